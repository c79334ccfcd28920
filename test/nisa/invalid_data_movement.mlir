// Verifier errors of dma_copy, dma_compute, memset, iota and the iota pattern.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @both_indirect(%t: memref<129x512xbf16, #nisa.mem<hbm>>, %u: memref<129x512xbf16, #nisa.mem<hbm>>, %i: memref<128x1xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op only one side of a copy may be indirect}}
  nisa.dma_copy %t[%i : memref<128x1xi32, #nisa.mem<sbuf>>], %u[%i : memref<128x1xi32, #nisa.mem<sbuf>>] : memref<129x512xbf16, #nisa.mem<hbm>>, memref<129x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @dim_without_index(%t: memref<128x512xbf16, #nisa.mem<hbm>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op indirect_dim 1 is set but neither side is indirect}}
  nisa.dma_copy %x, %t dim 1 : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @oob_without_index(%t: memref<128x512xbf16, #nisa.mem<hbm>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op oob_mode skip needs an indirect side}}
  nisa.dma_copy %x, %t oob_mode skip : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @dma_psum(%t: memref<128x512xf32, #nisa.mem<hbm>>, %p: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.dma_copy' op src must be in hbm or sbuf, got psum}}
  nisa.dma_copy %t, %p : memref<128x512xf32, #nisa.mem<hbm>>, memref<128x512xf32, #nisa.mem<psum>>
  func.return
}

// -----

func.func @indexed_side_in_hbm(%t: memref<128x512xbf16, #nisa.mem<sbuf>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>, %i: memref<128x1xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op src must be in hbm, got sbuf}}
  nisa.dma_copy %x, %t[%i : memref<128x1xi32, #nisa.mem<sbuf>>] : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @element_count(%t: memref<128x512xbf16, #nisa.mem<hbm>>, %x: memref<128x256xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op dst has 32768 elements but src has 65536}}
  nisa.dma_copy %x, %t : memref<128x256xbf16, #nisa.mem<sbuf>>, memref<128x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @x4_dma_convert(%t: memref<128x64x!nisa.float8_e5m2_x4, #nisa.mem<hbm>>, %x: memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op cannot convert !nisa.float8_e5m2_x4 to !nisa.float8_e4m3fn_x4; x4-packed types copy only to the same type}}
  nisa.dma_copy %x, %t : memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64x!nisa.float8_e5m2_x4, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @indirect_rank(%t: memref<129x4x128xbf16, #nisa.mem<hbm>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>, %i: memref<128x1xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op an indirect copy keeps the rank: dst is [128, 512] and src is [129, 4, 128]}}
  nisa.dma_copy %x, %t[%i : memref<128x1xi32, #nisa.mem<sbuf>>] : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<129x4x128xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @indirect_dim_range(%t: memref<129x512xbf16, #nisa.mem<hbm>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>, %i: memref<128x1xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op indirect_dim 2 is out of range for rank 2}}
  nisa.dma_copy %t[%i : memref<128x1xi32, #nisa.mem<sbuf>>], %x dim 2 : memref<129x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @indirect_other_dim(%t: memref<129x1024xbf16, #nisa.mem<hbm>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>, %i: memref<128x1xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op dim 1 differs between dst and src (1024 vs 512); only the indirect dim 0 may differ}}
  nisa.dma_copy %x, %t[%i : memref<128x1xi32, #nisa.mem<sbuf>>] : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<129x1024xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @index_dtype(%t: memref<129x512xbf16, #nisa.mem<hbm>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>, %i: memref<128x1xi16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op index must be a vector of 32-bit integers, got i16}}
  nisa.dma_copy %x, %t[%i : memref<128x1xi16, #nisa.mem<sbuf>>] : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<129x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @index_space(%t: memref<129x512xbf16, #nisa.mem<hbm>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>, %i: memref<128x1xi32, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.dma_copy' op index must be in sbuf, got hbm}}
  nisa.dma_copy %x, %t[%i : memref<128x1xi32, #nisa.mem<hbm>>] : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<129x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @index_shape(%t: memref<129x512xbf16, #nisa.mem<hbm>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>, %i: memref<128x2xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op index must have shape [n] or [n, 1], got [128, 2]}}
  nisa.dma_copy %x, %t[%i : memref<128x2xi32, #nisa.mem<sbuf>>] : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<129x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @index_entries(%t: memref<129x512xbf16, #nisa.mem<hbm>>, %x: memref<128x512xbf16, #nisa.mem<sbuf>>, %i: memref<64x1xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_copy' op index has 64 entries but dim 0 of dst has 128}}
  nisa.dma_copy %x, %t[%i : memref<64x1xi32, #nisa.mem<sbuf>>] : memref<128x512xbf16, #nisa.mem<sbuf>>, memref<129x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @dma_compute_none(%t: memref<128x512xbf16, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.dma_compute' op takes 1 to 16 sources, got 0}}
  nisa.dma_compute %t, () : memref<128x512xbf16, #nisa.mem<hbm>>, ()
  func.return
}

// -----

func.func @dma_compute_17(%t: memref<128x512xbf16, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.dma_compute' op takes 1 to 16 sources, got 17}}
  nisa.dma_compute %t, (%t, %t, %t, %t, %t, %t, %t, %t, %t, %t, %t, %t, %t, %t, %t, %t, %t) : memref<128x512xbf16, #nisa.mem<hbm>>, (memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xbf16, #nisa.mem<hbm>>)
  func.return
}

// -----

func.func @dma_compute_count(%t: memref<128x512xbf16, #nisa.mem<hbm>>, %u: memref<128x256xbf16, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.dma_compute' op source 1 has 32768 elements but dst has 65536}}
  nisa.dma_compute %t, (%t, %u) : memref<128x512xbf16, #nisa.mem<hbm>>, (memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x256xbf16, #nisa.mem<sbuf>>)
  func.return
}

// -----

func.func @dma_compute_space(%t: memref<128x512xbf16, #nisa.mem<hbm>>, %p: memref<128x512xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.dma_compute' op source 1 must be in hbm or sbuf, got psum}}
  nisa.dma_compute %t, (%t, %p) : memref<128x512xbf16, #nisa.mem<hbm>>, (memref<128x512xbf16, #nisa.mem<hbm>>, memref<128x512xf32, #nisa.mem<psum>>)
  func.return
}

// -----

func.func @memset_x4(%q: memref<128x64x!nisa.float4_e2m1fn_x4, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.memset' op an x4-packed tile can only be set to 0, got 1.0}}
  nisa.memset %q, 1.0 : memref<128x64x!nisa.float4_e2m1fn_x4, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @memset_int(%q: memref<128x1xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.memset' op 2.5 is not an integer, but dst is i32}}
  nisa.memset %q, 2.5 : memref<128x1xi32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @memset_hbm(%t: memref<128x512xbf16, #nisa.mem<hbm>>) {
  // expected-error@+1 {{'nisa.memset' op dst must be in sbuf or psum, got hbm}}
  nisa.memset %t, 0.0 : memref<128x512xbf16, #nisa.mem<hbm>>
  func.return
}

// -----

func.func @iota_pair(%x: memref<128x4xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{nisa.iota_pattern: each entry is a [step, num] pair, got [1, 4, 5]}}
  nisa.iota %x, [[1, 4, 5]] : memref<128x4xi32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @iota_num(%x: memref<128x4xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{nisa.iota_pattern: num must be at least 1, got [1, 0]}}
  nisa.iota %x, [[1, 0]] : memref<128x4xi32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @iota_dims(%x: memref<128x32xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.iota' op pattern has 5 [step, num] pairs; 1 to 4 are allowed}}
  nisa.iota %x, [[1, 2], [1, 2], [1, 2], [1, 2], [1, 2]] : memref<128x32xi32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @iota_cover(%x: memref<128x32xi32, #nisa.mem<sbuf>>) {
  // expected-error@+1 {{'nisa.iota' op pattern covers 16 elements per partition but dst has 32}}
  nisa.iota %x, [[1, 16]] : memref<128x32xi32, #nisa.mem<sbuf>>
  func.return
}

// -----

func.func @iota_psum(%x: memref<128x32xf32, #nisa.mem<psum>>) {
  // expected-error@+1 {{'nisa.iota' op dst must be in sbuf, got psum}}
  nisa.iota %x, [[1, 32]] : memref<128x32xf32, #nisa.mem<psum>>
  func.return
}
