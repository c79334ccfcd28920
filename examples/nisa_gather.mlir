// Indirect-DMA gather with skipped rows: out[i, :] = table[ids[i], :] for ids in range,
// rows whose id is out of [0, 6) (nkilib's -1, or 7) keep the memset value -1.0.
//   mx-run examples/nisa_gather.mlir --inputs IN.npz --print-values
func.func @main(%table: memref<6x4xf32, #nisa.mem<hbm>>, %ids: memref<4x1xi32, #nisa.mem<hbm>>,
                %out: memref<4x4xf32, #nisa.mem<hbm>>) {
  %sid = memref.alloc() : memref<4x1xi32, #nisa.mem<sbuf>>
  %rows = memref.alloc() : memref<4x4xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %sid, %ids : memref<4x1xi32, #nisa.mem<sbuf>>, memref<4x1xi32, #nisa.mem<hbm>>
  nisa.memset %rows, -1.000000e+00 : memref<4x4xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %rows, %table[%sid : memref<4x1xi32, #nisa.mem<sbuf>>] oob_mode skip
      : memref<4x4xf32, #nisa.mem<sbuf>>, memref<6x4xf32, #nisa.mem<hbm>>
  nisa.dma_copy %out, %rows : memref<4x4xf32, #nisa.mem<hbm>>, memref<4x4xf32, #nisa.mem<sbuf>>
  func.return
}
