// Verifier errors of access patterns: their form, and their bounds in SBUF, PSUM and HBM tensors.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @unknown_dtype() {
  // expected-error@+1 {{bir.ap: unknown dtype code 6 (known codes: 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 4, [[1, 4]], off = 0, dtype = 6>, 0.0
  func.return
}

// -----

func.func @too_many_pairs() {
  // expected-error@+1 {{bir.ap: 6 [step, num] pairs; 1 to 5 are allowed}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1], [1, 1], [1, 1], [1, 1], [1, 1], [1, 4]], off = 0, dtype = 16>, 0.0
  func.return
}

// -----

func.func @not_a_pair() {
  // expected-error@+1 {{bir.ap: each entry is a [step, num] pair, got [1, 4, 2]}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 4, [[1, 4, 2]], off = 0, dtype = 16>, 0.0
  func.return
}

// -----

func.func @zero_num() {
  // expected-error@+1 {{bir.ap: num must be at least 1, got [1, 0]}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 4, [[1, 0]], off = 0, dtype = 16>, 0.0
  func.return
}

// -----

func.func @zero_partitions() {
  // expected-error@+1 {{bir.ap: p0 must be >= 0, np and ps >= 1, got p0 = 0, np = 0, ps = 1}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 0, [[1, 4]], off = 0, dtype = 16>, 0.0
  func.return
}

// -----

func.func @wrong_memory(%t: memref<16xf32>) {
  // expected-error@+1 {{'bir.memset' op dst must be in sbuf or psum, got hbm}}
  bir.memset #bir.ap<hbm, [[1, 4]], off = 0, dtype = 16>, 0.0
  func.return
}

// -----

func.func @hbm_without_tensor() {
  // expected-error@+1 {{'bir.dma' op src is in hbm and needs its tensor (`... of %t : memref<...>`)}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 4]], off = 0, dtype = 16>
  func.return
}

// -----

func.func @sbuf_with_tensor(%t: memref<16xf32>) {
  // expected-error@+1 {{'bir.dma' op dst is in sbuf; only an hbm pattern names a tensor}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 0, dtype = 16> of %t : memref<16xf32>, #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 64, dtype = 16>
  func.return
}

// -----

func.func @misaligned() {
  // expected-error@+1 {{'bir.memset' op dst byte offset 3 is not a multiple of the 2-byte element of dtype 10 (bfloat16)}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 4, [[1, 4]], off = 3, dtype = 10>, 0.0
  func.return
}

// -----

func.func @partitions() {
  // expected-error@+1 {{'bir.memset' op dst partitions [100, 164) exceed the 128 partitions of sbuf}}
  bir.memset #bir.ap<sbuf, p0 = 100, np = 64, [[1, 4]], off = 0, dtype = 16>, 0.0
  func.return
}

// -----

func.func @strided_partitions(%t: memref<17x4xf32>) {
  // expected-error@+1 {{'bir.dma' op dst partitions 0, 8, ..., 128 exceed the 128 partitions of sbuf}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 17, ps = 8, [[1, 4]], off = 0, dtype = 16>, #bir.ap<hbm, [[4, 17], [1, 4]], off = 0, dtype = 16> of %t : memref<17x4xf32>
  func.return
}

// -----

func.func @partition_step_on_an_engine() {
  // expected-error@+1 {{'bir.memset' op dst steps over partitions (ps = 8); only the DMAs take a partition step, engines work on consecutive partitions}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 16, ps = 8, [[1, 4]], off = 0, dtype = 16>, 0.0
  func.return
}

// -----

func.func @run_time_partition_in_hbm(%t: memref<16xf32>, %i: index) {
  // expected-error@+1 {{'bir.dma' op src is in hbm; a run-time partition needs an on-chip pattern}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 4]], off = 0, dtype = 16> of %t : memref<16xf32> partition %i
  func.return
}

// -----

func.func @sbuf_capacity() {
  // expected-error@+1 {{'bir.memset' op dst touches bytes [262140, 262148), outside a 262144-byte sbuf partition}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 128, [[1, 2]], off = 262140, dtype = 16>, 0.0
  func.return
}

// -----

func.func @psum_capacity() {
  // expected-error@+1 {{'bir.memset' op dst touches bytes [0, 16388), outside a 16384-byte psum partition}}
  bir.memset #bir.ap<psum, p0 = 0, np = 128, [[1, 4097]], off = 0, dtype = 16>, 0.0
  func.return
}

// -----

func.func @before_the_partition() {
  // expected-error@+1 {{'bir.memset' op dst touches bytes [-12, 4), outside a 262144-byte sbuf partition}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 1, [[-1, 4]], off = 0, dtype = 16>, 0.0
  func.return
}

// -----

func.func @hbm_extent(%t: memref<4x4xf32, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'bir.dma' op src touches bytes [0, 68), outside its 64-byte tensor memref<4x4xf32, #nisa.mem<hbm>>}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 1, [[1, 17]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 17]], off = 0, dtype = 16> of %t : memref<4x4xf32, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @tensor_on_chip(%t: memref<16xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'bir.dma' op an hbm tensor is a memref in #nisa.mem<hbm> (or with no memory space), got memref<16xf32, #nisa.mem<sbuf>>}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 4]], off = 0, dtype = 16> of %t : memref<16xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @tensor_with_layout(%t: memref<4x4xf32, strided<[8, 1]>, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'bir.dma' op an hbm tensor is a whole contiguous memref (no layout; strides belong in the access pattern), got memref<4x4xf32, strided<[8, 1]>, #nisa.mem<hbm>>}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 4]], off = 0, dtype = 16> of %t : memref<4x4xf32, strided<[8, 1]>, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @dynamic_tensor(%t: memref<?xf32>) {
  // expected-error@+1 {{'bir.dma' op an hbm tensor has a static shape, got memref<?xf32>}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 4]], off = 0, dtype = 16> of %t : memref<?xf32>
  func.return
}

// -----

func.func @index_tensor(%t: memref<4xindex>) {
  // expected-error@+1 {{'bir.dma' op an hbm tensor needs a fixed-width element type, got index}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 4]], off = 0, dtype = 16> of %t : memref<4xindex>
  func.return
}
