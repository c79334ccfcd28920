// lower-nisa-to-bir views an HBM tensor with another element width (FP8 lanes as x4
// words) but refuses the same view of an on-chip tile, with a located diagnostic and no
// traceback (a tile's partition layout is in its own element units).

// RUN: not mx-opt %s -p lower-nisa-to-bir -o %t.out.mlir 2>&1 | filecheck %s --check-prefix=CHIP
// CHIP: stablehlo-lanes-view-cast-errors.mlir:{{[0-9]+}}:3: error: 'nisa.dma_copy' op lower-nisa-to-bir: nisa.view_cast from memref<32x8xf8E4M3FN, #nisa.mem<sbuf>> to memref<32x2x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>> changes the element size on chip; only HBM tensors are viewed with another element width
// CHIP-NOT: Traceback
// RUN: not test -e %t.out.mlir

func.func @on_chip(%o: memref<32x2x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>) {
  %t = memref.alloc() : memref<32x8xf8E4M3FN, #nisa.mem<sbuf>>
  nisa.memset %t, 0.0 : memref<32x8xf8E4M3FN, #nisa.mem<sbuf>>
  %w = nisa.view_cast %t : memref<32x8xf8E4M3FN, #nisa.mem<sbuf>> to memref<32x2x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  nisa.dma_copy %o, %w : memref<32x2x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>, memref<32x2x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  func.return
}
