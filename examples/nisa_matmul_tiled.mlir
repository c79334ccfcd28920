// A tiled bf16 matmul over K = 256 > 128 partitions: out[M, N] = a[K, M]^T . b[K, N],
// two K tiles of 128 accumulated in PSUM (f32). Run:
//   mx-run examples/nisa_matmul_tiled.mlir --inputs IN.npz --print-values
func.func @main(%a: memref<256x4xbf16, #nisa.mem<hbm>>, %b: memref<256x8xbf16, #nisa.mem<hbm>>,
                %out: memref<4x8xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %acc = memref.alloc() : memref<4x8xf32, #nisa.mem<psum>>
  %sa = memref.alloc() : memref<128x4xbf16, #nisa.mem<sbuf>>
  %sb = memref.alloc() : memref<128x8xbf16, #nisa.mem<sbuf>>
  nisa.memset %acc, 0.000000e+00 : memref<4x8xf32, #nisa.mem<psum>>
  scf.for %k = %c0 to %c256 step %c128 {
    %ta = memref.subview %a[%k, 0] [128, 4] [1, 1]
        : memref<256x4xbf16, #nisa.mem<hbm>> to memref<128x4xbf16, strided<[4, 1], offset: ?>, #nisa.mem<hbm>>
    %tb = memref.subview %b[%k, 0] [128, 8] [1, 1]
        : memref<256x8xbf16, #nisa.mem<hbm>> to memref<128x8xbf16, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
    nisa.dma_copy %sa, %ta : memref<128x4xbf16, #nisa.mem<sbuf>>, memref<128x4xbf16, strided<[4, 1], offset: ?>, #nisa.mem<hbm>>
    nisa.dma_copy %sb, %tb : memref<128x8xbf16, #nisa.mem<sbuf>>, memref<128x8xbf16, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>
    nisa.nc_matmul %acc, %sa, %sb accumulate
        : memref<4x8xf32, #nisa.mem<psum>>, memref<128x4xbf16, #nisa.mem<sbuf>>, memref<128x8xbf16, #nisa.mem<sbuf>>
  }
  %res = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.tensor_copy %res, %acc : memref<4x8xf32, #nisa.mem<sbuf>>, memref<4x8xf32, #nisa.mem<psum>>
  nisa.dma_copy %out, %res : memref<4x8xf32, #nisa.mem<hbm>>, memref<4x8xf32, #nisa.mem<sbuf>>
  func.return
}
