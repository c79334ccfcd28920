// Verifier errors of the run-time keys and of iota, scalar_tensor_tensor,
// tensor_copy_predicated, dma_compute, sendrecv, core_barrier and register_load.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @runtime_count(%i: index) {
  // expected-error@+1 {{'bir.memset' op runtime lists 2 key(s) but 1 value(s)}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, 0.000000e+00 runtime ["dst", "dst:partition"](%i)
  func.return
}

// -----

func.func @runtime_role(%i: index) {
  // expected-error@+1 {{'bir.memset' op runtime key 'src' names no access pattern of bir.memset}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, 0.000000e+00 runtime ["src"](%i)
  func.return
}

// -----

func.func @runtime_hbm_partition(%t: memref<16xf32>, %i: index) {
  // expected-error@+1 {{'bir.dma_compute' op runtime key 'dst:partition': an hbm pattern has no partitions}}
  bir.dma_compute #bir.ap<hbm, [[1, 16]], off = 0, dtype = 16> of %t : memref<16xf32>, [#bir.ap<hbm, [[1, 16]], off = 0, dtype = 16>] of %t : memref<16xf32> runtime ["dst:partition"](%i)
  func.return
}

// -----

func.func @runtime_twice(%i: index) {
  // expected-error@+1 {{'bir.memset' op runtime key 'dst' appears twice}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, 0.000000e+00 runtime ["dst", "dst"](%i, %i)
  func.return
}

// -----

func.func @iota_count() {
  // expected-error@+1 {{'bir.iota' op pattern covers 8 elements per partition but dst has 16}}
  bir.iota #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 17>, [[1, 8]]
  func.return
}

// -----

func.func @iota_psum() {
  // expected-error@+1 {{'bir.iota' op dst must be in sbuf, got psum}}
  bir.iota #bir.ap<psum, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 17>, [[1, 16]]
  func.return
}

// -----

func.func @stt_bitwise() {
  // expected-error@+1 {{'bir.scalar_tensor_tensor' op takes arithmetic ops only, got bitwise_and}}
  bir.scalar_tensor_tensor #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 17>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 17>, bitwise_and 1 : i32, add #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 128, dtype = 17>
  func.return
}

// -----

func.func @stt_psum() {
  // expected-error@+1 {{'bir.scalar_tensor_tensor' op src and in1 cannot both be in psum}}
  bir.scalar_tensor_tensor #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, #bir.ap<psum, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, multiply 2.000000e+00 : f32, add #bir.ap<psum, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>
  func.return
}

// -----

func.func @tcp_predicate() {
  // expected-error@+1 {{'bir.tensor_copy_predicated' op predicate must be an 8, 16 or 32-bit integer (dtype 1, 12, 13, 14, 17 or 18), got 16 (float32)}}
  bir.tensor_copy_predicated #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, 1.000000e+00 : f32 where #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16>
  func.return
}

// -----

func.func @tcp_dtype() {
  // expected-error@+1 {{'bir.tensor_copy_predicated' op src dtype 10 (bfloat16) must equal dst dtype 16 (float32)}}
  bir.tensor_copy_predicated #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 10> where #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 128, dtype = 17>
  func.return
}

// -----

func.func @dma_compute_none() {
  // expected-error@+1 {{'bir.dma_compute' op takes 1 to 16 sources, got 0}}
  bir.dma_compute #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, []
  func.return
}

// -----

func.func @dma_compute_tensors(%t: memref<16xf32>) {
  // expected-error@+1 {{'bir.dma_compute' op 2 source(s) are in hbm but 1 tensor(s) are named}}
  bir.dma_compute #bir.ap<sbuf, p0 = 0, np = 1, [[1, 16]], off = 0, dtype = 16>, [#bir.ap<hbm, [[1, 16]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 16]], off = 0, dtype = 16>] of %t : memref<16xf32>
  func.return
}

// -----

func.func @dma_compute_count(%t: memref<16xf32>) {
  // expected-error@+1 {{'bir.dma_compute' op src0 has 16 elements but dst has 32}}
  bir.dma_compute #bir.ap<sbuf, p0 = 0, np = 2, [[1, 16]], off = 0, dtype = 16>, [#bir.ap<hbm, [[1, 16]], off = 0, dtype = 16>] of %t : memref<16xf32>
  func.return
}

// -----

func.func @sendrecv_dtype(%p: index) {
  // expected-error@+1 {{'bir.sendrecv' op dst dtype 16 (float32) must equal src dtype 17 (int32)}}
  bir.sendrecv #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 17> to %p from %p pipe 0
  func.return
}

// -----

func.func @sendrecv_psum(%p: index) {
  // expected-error@+1 {{'bir.sendrecv' op dst must be in sbuf, got psum}}
  bir.sendrecv #bir.ap<psum, p0 = 0, np = 8, [[1, 16]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 8, [[1, 16]], off = 64, dtype = 16> to %p from %p pipe 0
  func.return
}

// -----

func.func @barrier_cores(%t: memref<16xf32>) {
  // expected-error@+1 {{'bir.core_barrier' op cores must be distinct non-negative core ids, got [1, 1]}}
  bir.core_barrier %t : memref<16xf32> cores [1, 1]
  func.return
}

// -----

func.func @barrier_sbuf(%t: memref<16xf32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'bir.core_barrier' op an hbm tensor is a memref in #nisa.mem<hbm> (or with no memory space), got memref<16xf32, #nisa.mem<sbuf>>}}
  bir.core_barrier %t : memref<16xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @register_two(%t: memref<2xi32>) {
  // expected-error@+1 {{'bir.register_load' op src must have exactly one element, got 2}}
  %r = bir.register_load #bir.ap<hbm, [[1, 2]], off = 0, dtype = 17> of %t : memref<2xi32> : index
  func.return
}

// -----

func.func @register_float(%t: memref<1xf32>) {
  // expected-error@+1 {{'bir.register_load' op src must have an integer dtype, got 16 (float32)}}
  %r = bir.register_load #bir.ap<hbm, [[1, 1]], off = 0, dtype = 16> of %t : memref<1xf32> : index
  func.return
}
