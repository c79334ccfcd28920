// lower-nisa-to-bir on the shipped MX matmul example after lower-hlo-to-nisa
// (docs/lowering.md, "lower-nisa-to-bir"): the function keeps its name, arguments and
// result; every SBUF / PSUM buffer became a byte address in the access patterns (first
// fit over live ranges: the second QuantizeMX and the matmul reuse the bytes of the first
// QuantizeMX's tiles); the views folded into the patterns, loop-dependent starts into the
// run-time `partition` / `offset` operands of bir.dma; quadrant views of the scale tiles
// split into one DMA per quadrant. The run-time offsets' index arithmetic is merged where
// equal and hoisted out of the loops it does not depend on. No nisa data op, on-chip buffer or view is left. The
// output re-parses and verifies; running the pass again changes nothing; mx-run gives the
// hlo function's bits at all three levels.

// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir | filecheck %s
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir | mx-opt | filecheck %s
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir --print-op-generic | mx-opt | filecheck %s
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir,lower-nisa-to-bir | filecheck %s
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir | filecheck %s --check-prefix=GONE

// CHECK-LABEL: func.func @main(%x: memref<128x256xbf16, #nisa.mem<hbm>>, %w: memref<256x64xbf16, #nisa.mem<hbm>>) -> memref<128x64xf32, #nisa.mem<hbm>> {

// QuantizeMX of x along its last dim. HBM outputs stay allocations; the SBUF tiles are
// q_src [128 x 32 bf16] at byte 0, q_dst [128 x 8 x4] at 64, q_scl [128 x 8 E8M0] at 128.
// The load of partitions r, r + 8, ... is a partition step of 8 with a run-time start
// `partition %r`; its HBM side walks 16 rows x 8 blocks of 32 elements (4 contiguous
// lanes each) from the byte offset row * 512 + blk * 64 + r * 8.
// CHECK:         %q_data = memref.alloc() : memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
// CHECK-NEXT:    %q_scale = memref.alloc() : memref<128x8xf8E8M0FNU, #nisa.mem<hbm>>
// CHECK-NEXT:    scf.for %row = %c0 to %c128 step %c16 {
// CHECK-NEXT:      %[[A:.+]] = arith.muli %row, %c512 : index
// CHECK-NEXT:      %{{.+}} = arith.muli %row, %c256 : index
// CHECK-NEXT:      %[[S:.+]] = arith.muli %row, %c8 : index
// CHECK-NEXT:      scf.for %blk = %c0 to %c8 step %c8 {
// CHECK-NEXT:        %[[B:.+]] = arith.muli %blk, %c64 : index
// CHECK-NEXT:        %[[AB:.+]] = arith.addi %[[A]], %[[B]] : index
// CHECK-NEXT:        scf.for %r = %c0 to %c8 step %c1 {
// CHECK-NEXT:          %[[C:.+]] = arith.muli %r, %c8 : index
// CHECK-NEXT:          %[[OFF:.+]] = arith.addi %[[AB]], %[[C]] : index
// CHECK-NEXT:          bir.dma #bir.ap<sbuf, p0 = 0, np = 16, ps = 8, [[1, 32]], off = 0, dtype = 10> partition %r, #bir.ap<hbm, [[32, 128], [1, 4]], off = 0, dtype = 10> of %x : memref<128x256xbf16, #nisa.mem<hbm>> offset %[[OFF]]
// CHECK-NEXT:        }
// CHECK-NEXT:        bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 128, [[1, 8]], off = 64, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 8]], off = 128, dtype = 15>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 32]], off = 0, dtype = 10>
// CHECK:             scf.for %r_1 = %c0 to %c8 step %c1 {
// CHECK:               bir.dma #bir.ap<hbm, [[8, 128]], off = 0, dtype = 8> of %q_data : memref<128x64x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>> offset %{{.+}}, #bir.ap<sbuf, p0 = 0, np = 16, ps = 8, [[1, 8]], off = 64, dtype = 8> partition %r_1
// CHECK-NEXT:        }
// The scales out of the quadrant layout: the view [4 quadrants, 4 rows, 8] of the scale
// tile is not one partition progression, so one DMA per quadrant (partitions 32 j + s).
// CHECK-NEXT:        %[[SO:.+]] = arith.addi %[[S]], %blk : index
// CHECK-NEXT:        bir.dma #bir.ap<hbm, [[1, 32]], off = 0, dtype = 15> of %q_scale : memref<128x8xf8E8M0FNU, #nisa.mem<hbm>> offset %[[SO]], #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 128, dtype = 15>
// CHECK-NEXT:        bir.dma #bir.ap<hbm, [[1, 32]], off = 32, dtype = 15> of %q_scale : memref<128x8xf8E8M0FNU, #nisa.mem<hbm>> offset %[[SO]], #bir.ap<sbuf, p0 = 32, np = 4, [[1, 8]], off = 128, dtype = 15>
// CHECK-NEXT:        bir.dma #bir.ap<hbm, [[1, 32]], off = 64, dtype = 15> of %q_scale : memref<128x8xf8E8M0FNU, #nisa.mem<hbm>> offset %[[SO]], #bir.ap<sbuf, p0 = 64, np = 4, [[1, 8]], off = 128, dtype = 15>
// CHECK-NEXT:        bir.dma #bir.ap<hbm, [[1, 32]], off = 96, dtype = 15> of %q_scale : memref<128x8xf8E8M0FNU, #nisa.mem<hbm>> offset %[[SO]], #bir.ap<sbuf, p0 = 96, np = 4, [[1, 8]], off = 128, dtype = 15>
// CHECK-NEXT:      }
// CHECK-NEXT:    }

// QuantizeMX of w along dim 0: the first tiles are dead, so q_src_1 reuses byte 0. The
// per-lane load writes columns q, q + 4, ... (step 4, run-time byte offset q * 2).
// CHECK:         scf.for %q = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %[[Q:.+]] = arith.muli %q, %c2 : index
// CHECK:           bir.dma #bir.ap<sbuf, p0 = 0, np = 64, [[4, 64]], off = 0, dtype = 10> offset %[[Q]], #bir.ap<hbm, [[256, 64], [1, 64]], off = 0, dtype = 10> of %w : memref<256x64xbf16, #nisa.mem<hbm>> offset %{{.+}}
// CHECK:         bir.quantize_mx #bir.ap<sbuf, p0 = 0, np = 64, [[1, 64]], off = 512, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 768, dtype = 15>, #bir.ap<sbuf, p0 = 0, np = 64, [[1, 256]], off = 0, dtype = 10>
// CHECK:         bir.dma #bir.ap<hbm, [[1, 4096]], off = 0, dtype = 8> of %q_data_1 : {{.+}}, #bir.ap<sbuf, p0 = 0, np = 64, [[1, 64]], off = 512, dtype = 8>
// CHECK:         bir.dma #bir.ap<hbm, [[1, 256]], off = 0, dtype = 15> of %q_scale_1 : {{.+}}, #bir.ap<sbuf, p0 = 0, np = 4, [[1, 64]], off = 768, dtype = 15>
// CHECK-NEXT:    bir.dma #bir.ap<hbm, [[1, 256]], off = 256, dtype = 15> of %q_scale_1 : {{.+}}, #bir.ap<sbuf, p0 = 32, np = 4, [[1, 64]], off = 768, dtype = 15>

// The ScaledMatmul: the PSUM accumulator at byte 0 of bank 0 (f32 [128 x 64]), the SBUF
// tiles stat at 0, mov at 512, stat_scl at 768, mov_scl at 896, res at 960 (reusing the
// quantize tiles' bytes). The K-minor lhs is loaded as one transposed tile (its permuted
// view becomes the HBM pattern's step order).
// CHECK:         %y = memref.alloc() : memref<128x64xf32, #nisa.mem<hbm>>
// CHECK-NEXT:    scf.for %m = %c0 to %c128 step %c128 {
// CHECK:           scf.for %n = %c0 to %c64 step %c64 {
// The one K step is the chain's first: it initialises PSUM (no memset, no accumulate).
// x is K-minor: one DMA of the transposed [64 partitions, 128] tile, the HBM pattern
// stepping down the K words ([1, 64]) and across the rows ([64, 128]); its scales, one
// DMA per quadrant.
// CHECK-NEXT:        bir.dma #bir.ap<sbuf, p0 = 0, np = 64, [[1, 128]], off = 0, dtype = 8>, #bir.ap<hbm, {{\[\[}}1, 64], [64, 128]], off = 0, dtype = 8> of %q_data : {{.+}} offset %{{.+}}
// CHECK-NEXT:        bir.dma #bir.ap<sbuf, p0 = 0, np = 4, [[1, 128]], off = 768, dtype = 15>, #bir.ap<hbm, {{\[\[}}1, 4], [8, 128]], off = 0, dtype = 15> of %q_scale : {{.+}} offset %{{.+}}
// CHECK-NEXT:        bir.dma #bir.ap<sbuf, p0 = 32, np = 4, [[1, 128]], off = 768, dtype = 15>, #bir.ap<hbm, {{\[\[}}1, 4], [8, 128]], off = 4, dtype = 15> of %q_scale : {{.+}} offset %{{.+}}
// CHECK:             bir.dma #bir.ap<sbuf, p0 = 0, np = 64, [[1, 64]], off = 512, dtype = 8>, #bir.ap<hbm, [[1, 4096]], off = 0, dtype = 8> of %q_data_1 : {{.+}} offset %{{.+}}
// CHECK:             bir.dma #bir.ap<sbuf, p0 = 0, np = 4, [[1, 64]], off = 896, dtype = 15>, #bir.ap<hbm, [[1, 256]], off = 0, dtype = 15> of %q_scale_1 : {{.+}} offset %{{.+}}
// CHECK-NEXT:        bir.dma #bir.ap<sbuf, p0 = 32, np = 4, [[1, 64]], off = 896, dtype = 15>, #bir.ap<hbm, [[1, 256]], off = 256, dtype = 15> of %q_scale_1 : {{.+}} offset %{{.+}}
// CHECK-NEXT:        bir.matmult_mx #bir.ap<psum, p0 = 0, np = 128, [[1, 64]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 64, [[1, 128]], off = 0, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 128]], off = 768, dtype = 15>, #bir.ap<sbuf, p0 = 0, np = 64, [[1, 64]], off = 512, dtype = 8> scale #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 896, dtype = 15>{{$}}
// CHECK-NEXT:        bir.tensor_copy #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 960, dtype = 16>, #bir.ap<psum, p0 = 0, np = 128, [[1, 64]], off = 0, dtype = 16>
// CHECK:             bir.dma #bir.ap<hbm, [[1, 8192]], off = 0, dtype = 16> of %y : memref<128x64xf32, #nisa.mem<hbm>> offset %{{.+}}, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 64]], off = 960, dtype = 16>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y : memref<128x64xf32, #nisa.mem<hbm>>

// GONE-NOT: nisa.dma_copy
// GONE-NOT: nisa.quantize_mx
// GONE-NOT: nisa.nc_matmul
// GONE-NOT: #nisa.mem<sbuf>
// GONE-NOT: #nisa.mem<psum>
// GONE-NOT: memref.subview
// GONE-NOT: memref.expand_shape
// GONE: func.return

// One semantics at three levels: mx-run on the hlo function, the nisa kernel and the bir
// kernel with the same random inputs writes the same bytes.
// RUN: mx-run %examples/mx_matmul.mlir --random-inputs 5 -p legalize-quantize-mx,legalize-scaled-matmul -o %t.hlo.npz | filecheck %s --check-prefix=RESULT
// RUN: mx-run %examples/mx_matmul.mlir --random-inputs 5 -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa -o %t.nisa.npz | filecheck %s --check-prefix=RESULT
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir -o %t.bir.mlir
// RUN: mx-run %t.bir.mlir --random-inputs 5 -o %t.bir.npz | filecheck %s --check-prefix=RESULT
// RUN: python -c "import numpy as np, sys; a, b, c = (np.load(f) for f in sys.argv[1:]); same = a.files == b.files == c.files and all(a[k].dtype == b[k].dtype == c[k].dtype and a[k].tobytes() == b[k].tobytes() == c[k].tobytes() for k in a.files); print('identical' if same else 'DIFFERENT', a.files)" %t.hlo.npz %t.nisa.npz %t.bir.npz | filecheck %s --check-prefix=SAME
// RESULT: result0: {{.*}}128x64xf32{{.*}} shape=(128, 64) dtype=float32
// SAME: identical ['result0']
