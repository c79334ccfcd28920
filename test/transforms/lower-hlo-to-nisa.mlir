// lower-hlo-to-nisa on the shipped MX matmul example (docs/lowering.md): the function
// keeps its name, arguments and result as HBM memrefs; each QuantizeMX_* becomes DMAs +
// quantize_mx over 128-partition tiles with the scales read out of the quadrant layout;
// the ScaledMatmul_* becomes a K loop of nc_matmul_mx accumulating in PSUM and a copy
// out; no hlo op, tuple or metadata constant is left. The output re-parses and verifies,
// and mx-run gives the hlo function's result.

// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa | filecheck %s
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa | mx-opt | filecheck %s
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa --print-op-generic | mx-opt | filecheck %s
// A kernel has nothing left to lower: running the pass again changes nothing.
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa,lower-hlo-to-nisa | filecheck %s

// CHECK-LABEL: func.func @main(%x: memref<128x256xbf16, #nisa.mem<hbm>>, %w: memref<256x64xbf16, #nisa.mem<hbm>>) -> memref<128x64xf32, #nisa.mem<hbm>> {

// The activations x[128, 256], quantized along K (the last dim): HBM outputs in the HLO
// shapes (data as x4 words), SBUF tiles of 16 rows x 8 blocks (8 groups of 8 partitions
// per row: partition 8 g + r, column 4 c + q holds x[row + g, 32 (blk + c) + 4 r + q]).
// CHECK:         %q_data = memref.alloc() : memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
// CHECK-NEXT:    %q_scale = memref.alloc() : memref<128x8xf8E8M0FNU, #nisa.mem<hbm>>
// CHECK-NEXT:    %q_src = memref.alloc() : memref<128x32xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT:    %q_dst = memref.alloc() : memref<128x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
// CHECK-NEXT:    %q_scl = memref.alloc() : memref<128x8xf8E8M0FNU, #nisa.mem<sbuf>>
// CHECK-NEXT:    %q_scl_quads = memref.expand_shape %q_scl {{.*}} into memref<4x32x8xf8E8M0FNU, #nisa.mem<sbuf>>
// CHECK-NEXT:    %x_blocks = memref.expand_shape %x {{.*}} into memref<128x8x8x4xbf16, #nisa.mem<hbm>>
// CHECK-NEXT:    %q_words = memref.expand_shape %q_data {{.*}} into memref<128x8x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
// CHECK-NEXT:    scf.for %row = %c0 to %c128 step %c16 {
// CHECK-NEXT:      scf.for %blk = %c0 to %c8 step %c8 {
// CHECK-NEXT:        scf.for %r = %c0 to %c8 step %c1 {
// CHECK-NEXT:          %[[PART:.+]] = memref.subview %q_src[%r, 0] [16, 32] [8, 1]
// CHECK-NEXT:          %[[X:.+]] = memref.subview %x_blocks[%row, %blk, %r, 0] [16, 8, 1, 4] [1, 1, 1, 1]
// CHECK-NEXT:          nisa.dma_copy %[[PART]], %[[X]] : memref<16x32xbf16, {{.*}}#nisa.mem<sbuf>>, memref<16x8x4xbf16, {{.*}}#nisa.mem<hbm>>
// CHECK-NEXT:        }
// CHECK-NEXT:        nisa.quantize_mx %q_dst scale %q_scl, %q_src : memref<128x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x8xf8E8M0FNU, #nisa.mem<sbuf>>, memref<128x32xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT:        scf.for %[[R:.+]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:          %[[PART:.+]] = memref.subview %q_dst[%[[R]], 0] [16, 8] [8, 1]
// CHECK-NEXT:          %[[W:.+]] = memref.subview %q_words[%row, %blk, %[[R]]] [16, 8, 1] [1, 1, 1]
// CHECK-NEXT:          nisa.dma_copy %[[W]], %[[PART]]
// CHECK-NEXT:        }
// The scales: rows (i & 3) + 32 (i >> 2) of the tile are scale rows 0..15, in HLO order.
// CHECK-NEXT:        %[[SLOTS:.+]] = memref.subview %q_scl_quads[0, 0, 0] [4, 4, 8] [1, 1, 1]
// CHECK-NEXT:        %[[S:.+]] = memref.subview %q_scale[%row, %blk] [16, 8] [1, 1]
// CHECK-NEXT:        nisa.dma_copy %[[S]], %[[SLOTS]] : memref<16x8xf8E8M0FNU, {{.*}}#nisa.mem<hbm>>, memref<4x4x8xf8E8M0FNU, {{.*}}#nisa.mem<sbuf>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// The weights w[256, 64], quantized along K (the second-to-last dim): partitions run along
// K (the x4 word index), so the packed words store back in one DMA; 4 strided loads (one
// per x4 lane q) put x[32 (blk + g) + 4 r + q, col + c] at partition 8 g + r, column 4 c + q.
// CHECK:         %q_data_1 = memref.alloc() : memref<64x64x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
// CHECK-NEXT:    %q_scale_1 = memref.alloc() : memref<8x64xf8E8M0FNU, #nisa.mem<hbm>>
// CHECK:         scf.for %blk_1 = %c0 to %c8 step %c8 {
// CHECK-NEXT:      scf.for %col = %c0 to %c64 step %c64 {
// CHECK-NEXT:        scf.for %q = %c0 to %c4 step %c1 {
// CHECK-NEXT:          %[[PART:.+]] = memref.subview %q_src_1[0, %q] [64, 64] [1, 4]
// CHECK-NEXT:          %[[X:.+]] = memref.subview %x_blocks_1[%blk_1, 0, %q, %col] [8, 8, 1, 64] [1, 1, 1, 1]
// CHECK-NEXT:          nisa.dma_copy %[[PART]], %[[X]]
// CHECK-NEXT:        }
// CHECK-NEXT:        nisa.quantize_mx %q_dst_1 scale %q_scl_1, %q_src_1 : memref<64x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xf8E8M0FNU, #nisa.mem<sbuf>>, memref<64x256xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT:        %[[W:.+]] = memref.subview %q_words_1[%blk_1, 0, %col] [8, 8, 64] [1, 1, 1]
// CHECK-NEXT:        nisa.dma_copy %[[W]], %q_dst_1
// CHECK-NEXT:        %[[SLOTS:.+]] = memref.subview %q_scl_quads_1[0, 0, 0] [2, 4, 64] [1, 1, 1]
// CHECK-NEXT:        %[[S:.+]] = memref.subview %q_scale_1[%blk_1, %col] [8, 64] [1, 1]
// CHECK-NEXT:        nisa.dma_copy %[[S]], %[[SLOTS]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// The scaled matmul y[128, 64] = x . w: the K dim split into scale rows of 8 x4 words.
// CHECK-NEXT:    %lhs_blocks = memref.expand_shape %q_data {{.*}} into memref<128x8x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
// CHECK-NEXT:    %rhs_blocks = memref.expand_shape %q_data_1 {{.*}} into memref<8x8x64x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
// CHECK-NEXT:    %y = memref.alloc() : memref<128x64xf32, #nisa.mem<hbm>>
// CHECK-NEXT:    %stat = memref.alloc() : memref<64x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
// CHECK-NEXT:    %mov = memref.alloc() : memref<64x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
// CHECK-NEXT:    %stat_scl = memref.alloc() : memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>
// CHECK-NEXT:    %mov_scl = memref.alloc() : memref<128x64xf8E8M0FNU, #nisa.mem<sbuf>>
// CHECK-NEXT:    %stat_scl_quads = memref.expand_shape %stat_scl
// CHECK-NEXT:    %mov_scl_quads = memref.expand_shape %mov_scl
// CHECK-NEXT:    %acc = memref.alloc() : memref<128x64xf32, #nisa.mem<psum>>
// CHECK-NEXT:    %res = memref.alloc() : memref<128x64xf32, #nisa.mem<sbuf>>
// CHECK-NEXT:    scf.for %m = %c0 to %c128 step %c128 {
// CHECK-NEXT:      scf.for %n = %c0 to %c64 step %c64 {
// One K step (up to 16 scale rows = 128 partitions = 512 K elements; here 8 rows): the
// first K tile is peeled and initialises PSUM (no accumulate; docs/numerics.md, "PSUM").
// x is K-minor (K is its last dim): a transposing load, the whole [128 rows, 8, 8] tile
// as [8, 8, 128] through nisa.permute (one strided DMA), and its scale rows likewise.
// CHECK-NEXT:        %[[XD:.+]] = memref.subview %lhs_blocks[%m, 0, 0] [128, 8, 8] [1, 1, 1]
// CHECK-NEXT:        %[[XT:.+]] = nisa.permute %[[XD]] [1, 2, 0] : memref<128x8x8x!nisa.float8_e4m3fn_x4, strided<[64, 8, 1], offset: ?>, #nisa.mem<hbm>> to memref<8x8x128x!nisa.float8_e4m3fn_x4, strided<[8, 1, 64], offset: ?>, #nisa.mem<hbm>>
// CHECK-NEXT:        nisa.dma_copy %stat, %[[XT]] : memref<64x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<8x8x128x!nisa.float8_e4m3fn_x4, strided<[8, 1, 64], offset: ?>, #nisa.mem<hbm>>
// CHECK-NEXT:        %[[SLOTS:.+]] = memref.subview %stat_scl_quads[0, 0, 0] [2, 4, 128] [1, 1, 1]
// CHECK-NEXT:        %[[XS:.+]] = memref.subview %q_scale[%m, 0] [128, 8] [1, 1]
// CHECK-NEXT:        %[[XST:.+]] = nisa.permute %[[XS]] [1, 0]
// CHECK-NEXT:        nisa.dma_copy %[[SLOTS]], %[[XST]]
// w is K-major: its K rows load straight onto the partitions.
// CHECK-NEXT:        %[[WD:.+]] = memref.subview %rhs_blocks[0, 0, %n] [8, 8, 64] [1, 1, 1]
// CHECK-NEXT:        nisa.dma_copy %mov, %[[WD]] : memref<64x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<8x8x64x!nisa.float8_e4m3fn_x4, {{.*}}#nisa.mem<hbm>>
// CHECK-NEXT:        %[[SLOTS:.+]] = memref.subview %mov_scl_quads[0, 0, 0] [2, 4, 64] [1, 1, 1]
// CHECK-NEXT:        %[[WS:.+]] = memref.subview %q_scale_1[0, %n] [8, 64] [1, 1]
// CHECK-NEXT:        nisa.dma_copy %[[SLOTS]], %[[WS]]
// CHECK-NEXT:        nisa.nc_matmul_mx %acc, %stat scale %stat_scl, %mov scale %mov_scl : memref<128x64xf32, #nisa.mem<psum>>, memref<64x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x128xf8E8M0FNU, #nisa.mem<sbuf>>, memref<64x64x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<128x64xf8E8M0FNU, #nisa.mem<sbuf>>
// The copy out: PSUM -> SBUF in the result type, then DMA into the HBM result.
// CHECK-NEXT:        nisa.tensor_copy %res, %acc : memref<128x64xf32, #nisa.mem<sbuf>>, memref<128x64xf32, #nisa.mem<psum>>
// CHECK-NEXT:        %[[Y:.+]] = memref.subview %y[%m, %n] [128, 64] [1, 1]
// CHECK-NEXT:        nisa.dma_copy %[[Y]], %res : memref<128x64xf32, {{.*}}#nisa.mem<hbm>>, memref<128x64xf32, #nisa.mem<sbuf>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y : memref<128x64xf32, #nisa.mem<hbm>>
// CHECK-NEXT:  }
// CHECK-NOT:   hlo.
// CHECK-NOT:   tuple

// mx-run: the hlo function and the lowered kernel print the same result (and no argI).
// RUN: mx-run %examples/mx_matmul.mlir --random-inputs 3 | filecheck %s --check-prefix=RESULT
// RUN: mx-run %examples/mx_matmul.mlir --random-inputs 3 -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa | filecheck %s --check-prefix=RESULT
// RESULT-NOT:  arg0
// RESULT:      result0: {{tensor<128x64xf32>|memref<128x64xf32, #nisa.mem<hbm>>}} shape=(128, 64) dtype=float32 min=-56.4582 max=62.1166 mean=-0.201075 nan=0
// RESULT-NOT:  arg
