// Every refusal of lower-nisa-to-bir is a located diagnostic: a buffer that does not fit
// names itself and the bytes requested, available and the capacity (SBUF 192 KiB and
// PSUM 16 KiB per partition, the bir dialect's); a nisa op with no bir lowering yet says
// so. mx-opt exits 1 without a traceback (checked once below), and with
// --verify-diagnostics each chunk reports its error.

// RUN: mx-opt %s --split-input-file --verify-diagnostics -p lower-nisa-to-bir
// RUN: not mx-opt %s -p lower-nisa-to-bir 2>&1 | filecheck %s --check-prefix=EXIT
// EXIT: lower-nisa-to-bir-errors.mlir:17:3: error: 'memref.alloc' op lower-nisa-to-bir: sbuf buffer %c
// EXIT-NOT: Traceback

// Two 64 KiB tiles are live when the third is allocated: 64 KiB + 64 bytes are left.
func.func @sbuf_full(%x: memref<128x16384xf32, #nisa.mem<hbm>>) {
  %a = memref.alloc() : memref<128x16384xf32, #nisa.mem<sbuf>>
  %b = memref.alloc() : memref<128x16384xf32, #nisa.mem<sbuf>>
  // expected-error@+1 {{'memref.alloc' op lower-nisa-to-bir: sbuf buffer %c (memref<128x16400xf32, #nisa.mem<sbuf>>) needs 65600 bytes per partition, but only 65536 contiguous bytes are available (65536 free; 131072 held by 2 live buffer(s)) of the 196608-byte sbuf partition}}
  %c = memref.alloc() : memref<128x16400xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %a, %x : memref<128x16384xf32, #nisa.mem<sbuf>>, memref<128x16384xf32, #nisa.mem<hbm>>
  nisa.dma_copy %b, %a : memref<128x16384xf32, #nisa.mem<sbuf>>, memref<128x16384xf32, #nisa.mem<sbuf>>
  nisa.memset %c, 0.0 : memref<128x16400xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %x, %b : memref<128x16384xf32, #nisa.mem<hbm>>, memref<128x16384xf32, #nisa.mem<sbuf>>
  func.return
}

// -----

// Nine 2 KiB accumulators live at once: PSUM has 8 banks.
func.func @psum_full() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = memref.alloc() : memref<128x4096xf32, #nisa.mem<psum>>
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error@+1 {{'memref.alloc' op lower-nisa-to-bir: psum buffer %one (memref<128x512xf32, #nisa.mem<psum>>) needs 2048 bytes per partition, but only 0 contiguous bytes are available (0 free; 16384 held by 1 live buffer(s)) of the 16384-byte psum partition}}
    %one = memref.alloc() : memref<128x512xf32, #nisa.mem<psum>>
    nisa.memset %one, 0.0 : memref<128x512xf32, #nisa.mem<psum>>
    nisa.memset %acc, 0.0 : memref<128x4096xf32, #nisa.mem<psum>>
  }
  func.return
}

// -----

// A nisa op with no bir instruction yet.
func.func @unsupported(%x: memref<128x8xf32, #nisa.mem<hbm>>) {
  %t = memref.alloc() : memref<128x8xf32, #nisa.mem<sbuf>>
  // expected-error@+1 {{'nisa.dma_compute' op lower-nisa-to-bir: nisa.dma_compute is not supported by lower-nisa-to-bir yet}}
  nisa.dma_compute %t, (%x, %x) : memref<128x8xf32, #nisa.mem<sbuf>>, (memref<128x8xf32, #nisa.mem<hbm>>, memref<128x8xf32, #nisa.mem<hbm>>)
  func.return
}

// -----

// An indirect DMA into a loop-dependent view (bir.dma_indirect has no run-time offsets).
func.func @gather(%h: memref<64x8xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ids = memref.alloc() : memref<16x1xi32, #nisa.mem<sbuf>>
  %t = memref.alloc() : memref<16x16xf32, #nisa.mem<sbuf>>
  nisa.memset %ids, 0.0 : memref<16x1xi32, #nisa.mem<sbuf>>
  scf.for %i = %c0 to %c2 step %c1 {
    %v = memref.subview %t[0, %i] [16, 8] [1, 1] : memref<16x16xf32, #nisa.mem<sbuf>> to memref<16x8xf32, strided<[16, 1], offset: ?>, #nisa.mem<sbuf>>
    // expected-error@+1 {{'nisa.dma_copy' op lower-nisa-to-bir: the other side of an indirect dma_copy is a loop-dependent view; not supported by lower-nisa-to-bir yet (bir.dma_indirect has no run-time offsets)}}
    nisa.dma_copy %v, %h[%ids : memref<16x1xi32, #nisa.mem<sbuf>>] : memref<16x8xf32, strided<[16, 1], offset: ?>, #nisa.mem<sbuf>>, memref<64x8xf32, #nisa.mem<hbm>>
  }
  func.return
}

// -----

// A compute op on a loop-dependent view: bir has run-time offsets on bir.dma only.
func.func @dynamic_compute() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<128x32xf32, #nisa.mem<sbuf>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.subview %t[0, %i] [128, 8] [1, 4] : memref<128x32xf32, #nisa.mem<sbuf>> to memref<128x8xf32, strided<[32, 4], offset: ?>, #nisa.mem<sbuf>>
    // expected-error@+1 {{'nisa.memset' op lower-nisa-to-bir: dst is a loop-dependent view; not supported by lower-nisa-to-bir yet (bir has run-time offsets on bir.dma only)}}
    nisa.memset %v, 1.0 : memref<128x8xf32, strided<[32, 4], offset: ?>, #nisa.mem<sbuf>>
  }
  func.return
}

// -----

// hlo left over: the pass lowers nisa kernels.
func.func @still_hlo(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'hlo.convert' op lower-nisa-to-bir: an hlo op is left; run lower-hlo-to-nisa first}}
  %y = hlo.convert %x : (tensor<4xf32>) -> tensor<4xf32>
  %t = memref.alloc() : memref<4x4xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 0.0 : memref<4x4xf32, #nisa.mem<sbuf>>
  func.return %y : tensor<4xf32>
}

// -----

// A function that is still all hlo is refused too, not silently passed through.
func.func @only_hlo(%x: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error@+1 {{'hlo.convert' op lower-nisa-to-bir: an hlo op is left; run lower-hlo-to-nisa first}}
  %y = hlo.convert %x : (tensor<4xf32>) -> tensor<4xbf16>
  func.return %y : tensor<4xbf16>
}
