// Verifier errors of dma, dma_indirect, memset, tensor_copy and cast.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @dma_count(%t: memref<128xf32>) {
  // expected-error@+1 {{'bir.dma' op dst has 64 elements but src has 128}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 64, [[1, 1]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 128]], off = 0, dtype = 16> of %t : memref<128xf32>
  func.return
}

// -----

func.func @dma_x4(%t: memref<128xf32>) {
  // expected-error@+1 {{'bir.dma' op cannot convert dtype 16 (float32) to 8 (float8_e4m3fn_x4); x4 dtypes copy only to the same dtype (use cast or quantize_mx)}}
  bir.dma #bir.ap<sbuf, p0 = 0, np = 32, [[1, 4]], off = 0, dtype = 8>, #bir.ap<hbm, [[1, 128]], off = 0, dtype = 16> of %t : memref<128xf32>
  func.return
}

// -----

func.func @dma_psum(%t: memref<128xf32>) {
  // expected-error@+1 {{'bir.dma' op dst must be in hbm or sbuf, got psum}}
  bir.dma #bir.ap<psum, p0 = 0, np = 1, [[1, 128]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 128]], off = 0, dtype = 16> of %t : memref<128xf32>
  func.return
}

// -----

func.func @indirect_count(%t: memref<16x8xf32>) {
  // expected-error@+1 {{'bir.dma_indirect' op dst has 16 elements but src has 32}}
  bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 4, [[1, 4]], off = 0, dtype = 16>, #bir.ap<hbm, [[8, 4], [1, 8]], off = 0, dtype = 16> of %t : memref<16x8xf32> index #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 64, dtype = 17> dim 0 bound 16
  func.return
}

// -----

func.func @indirect_on_chip() {
  // expected-error@+1 {{'bir.dma_indirect' op the indexed side (src) must be in hbm}}
  bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 4, np = 4, [[1, 8]], off = 0, dtype = 16> index #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 64, dtype = 17> dim 0 bound 16
  func.return
}

// -----

func.func @indirect_dim(%t: memref<16x8xf32>) {
  // expected-error@+1 {{'bir.dma_indirect' op indirect dim 2 is not a pair of the 2-pair src pattern}}
  bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16>, #bir.ap<hbm, [[8, 4], [1, 8]], off = 0, dtype = 16> of %t : memref<16x8xf32> index #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 64, dtype = 17> dim 2 bound 16
  func.return
}

// -----

func.func @indirect_bound(%t: memref<16x8xf32>) {
  // expected-error@+1 {{'bir.dma_indirect' op bound must be at least 1, got 0}}
  bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16>, #bir.ap<hbm, [[8, 4], [1, 8]], off = 0, dtype = 16> of %t : memref<16x8xf32> index #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 64, dtype = 17> dim 0 bound 0
  func.return
}

// -----

func.func @indirect_bound_beyond_tensor(%t: memref<16x8xf32>) {
  // expected-error@+1 {{'bir.dma_indirect' op dst with every index below the bound touches bytes [0, 544), outside its 512-byte tensor memref<16x8xf32>}}
  bir.dma_indirect #bir.ap<hbm, [[8, 4], [1, 8]], off = 0, dtype = 16> of %t : memref<16x8xf32>, #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16> index #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 64, dtype = 17> dim 0 bound 17 scatter
  func.return
}

// -----

func.func @indirect_index_dtype(%t: memref<16x8xf32>) {
  // expected-error@+1 {{'bir.dma_indirect' op index must have dtype 17 (int32) or 18 (uint32), got 16 (float32)}}
  bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16>, #bir.ap<hbm, [[8, 4], [1, 8]], off = 0, dtype = 16> of %t : memref<16x8xf32> index #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 64, dtype = 16> dim 0 bound 16
  func.return
}

// -----

func.func @indirect_index_count(%t: memref<16x8xf32>) {
  // expected-error@+1 {{'bir.dma_indirect' op index has 8 elements but pair 0 of src has num = 4}}
  bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16>, #bir.ap<hbm, [[8, 4], [1, 8]], off = 0, dtype = 16> of %t : memref<16x8xf32> index #bir.ap<sbuf, p0 = 0, np = 8, [[1, 1]], off = 64, dtype = 18> dim 0 bound 16
  func.return
}

// -----

func.func @memset_x4() {
  // expected-error@+1 {{'bir.memset' op an x4 pattern can only be set to 0, got 1.0}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 32, [[1, 4]], off = 0, dtype = 9>, 1.0
  func.return
}

// -----

func.func @memset_int() {
  // expected-error@+1 {{'bir.memset' op 1.5 is not an integer, but dst has dtype 17 (int32)}}
  bir.memset #bir.ap<sbuf, p0 = 0, np = 32, [[1, 4]], off = 0, dtype = 17>, 1.5
  func.return
}

// -----

func.func @copy_partitions() {
  // expected-error@+1 {{'bir.tensor_copy' op dst has 64 partitions but src has 128}}
  bir.tensor_copy #bir.ap<sbuf, p0 = 0, np = 64, [[1, 8]], off = 0, dtype = 16>, #bir.ap<psum, p0 = 0, np = 128, [[1, 8]], off = 0, dtype = 16>
  func.return
}

// -----

func.func @copy_free() {
  // expected-error@+1 {{'bir.tensor_copy' op dst has 8 elements per partition but src has 4}}
  bir.tensor_copy #bir.ap<sbuf, p0 = 0, np = 128, [[1, 8]], off = 0, dtype = 16>, #bir.ap<psum, p0 = 0, np = 128, [[2, 2], [1, 2]], off = 0, dtype = 16>
  func.return
}

// -----

func.func @copy_x4() {
  // expected-error@+1 {{'bir.tensor_copy' op cannot convert dtype 8 (float8_e4m3fn_x4) to 9 (float8_e5m2_x4); x4 dtypes copy only to the same dtype (use cast or quantize_mx)}}
  bir.tensor_copy #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 9>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 8>
  func.return
}

// -----

func.func @cast_partitions() {
  // expected-error@+1 {{'bir.cast' op dst has 32 partitions but src has 64}}
  bir.cast #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 5>, #bir.ap<sbuf, p0 = 0, np = 64, [[1, 8]], off = 64, dtype = 16>
  func.return
}

// -----

func.func @cast_logical_elements() {
  // expected-error@+1 {{'bir.cast' op dst has 32 logical elements per partition but src has 8 (an x4 element counts 4)}}
  bir.cast #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 8>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16>
  func.return
}

// -----

func.func @cast_config() {
  // expected-error@+1 {{'bir.cast' op saturate / nan_suppress configure an FP8 narrow; dst must have dtype 5, 7, 8 or 9, got 10 (bfloat16)}}
  bir.cast #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 32, [[1, 8]], off = 64, dtype = 16> saturate
  func.return
}
