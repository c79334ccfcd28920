// lower-hlo-to-nisa on plain dot_general (docs/lowering.md): tiled nc_matmul with the
// contraction on partitions, K <= 128 per step accumulated in an f32 PSUM tile, M <= 128
// (stationary free), N <= 512 (moving free), full tiles in scf.for loops and the partial
// tiles peeled; batch dims become loops; the result is copied out PSUM -> SBUF (rounded
// once to the result type) -> HBM. A K-minor operand (K is its last dim) is loaded one
// column per free index; a K-major one in one DMA.

// RUN: mx-opt %s --split-input-file -p lower-hlo-to-nisa | filecheck %s
// RUN: mx-opt %s --split-input-file -p lower-hlo-to-nisa | mx-opt --split-input-file | filecheck %s

// a[160, 200] . b[200, 48]: M = 128 + 32, K = 128 + 72 (partial tiles in M and K).
func.func @dot(%a: tensor<160x200xbf16>, %b: tensor<200x48xbf16>) -> tensor<160x48xf32> {
  %y = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<160x200xbf16>, tensor<200x48xbf16>) -> tensor<160x48xf32>
  func.return %y : tensor<160x48xf32>
}
// CHECK-LABEL: func.func @dot(%a: memref<160x200xbf16, #nisa.mem<hbm>>, %b: memref<200x48xbf16, #nisa.mem<hbm>>) -> memref<160x48xf32, #nisa.mem<hbm>> {
// CHECK:         %y = memref.alloc() : memref<160x48xf32, #nisa.mem<hbm>>
// CHECK-NEXT:    %stat = memref.alloc() : memref<128x128xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT:    %mov = memref.alloc() : memref<128x48xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT:    %acc = memref.alloc() : memref<128x48xf32, #nisa.mem<psum>>
// CHECK-NEXT:    %res = memref.alloc() : memref<128x48xf32, #nisa.mem<sbuf>>
// The full M tiles.
// CHECK-NEXT:    scf.for %m = %c0 to %c128 step %c128 {
// CHECK-NEXT:      scf.for %n = %c0 to %c48 step %c48 {
// The first K tile initialises PSUM (docs/numerics.md, "PSUM"): peeled, no accumulate.
// a is K-minor: its [128, 128] tile loads transposed, one strided DMA (nisa.permute).
// CHECK-NEXT:        %[[A:.+]] = memref.subview %a[%m, 0] [128, 128] [1, 1]
// CHECK-NEXT:        %[[AT:.+]] = nisa.permute %[[A]] [1, 0] : memref<128x128xbf16, strided<[200, 1], offset: ?>, #nisa.mem<hbm>> to memref<128x128xbf16, strided<[1, 200], offset: ?>, #nisa.mem<hbm>>
// CHECK-NEXT:        nisa.dma_copy %stat, %[[AT]] : memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x128xbf16, strided<[1, 200], offset: ?>, #nisa.mem<hbm>>
// CHECK-NEXT:        %[[B:.+]] = memref.subview %b[0, %n] [128, 48] [1, 1]
// CHECK-NEXT:        nisa.dma_copy %mov, %[[B]]
// CHECK-NEXT:        nisa.nc_matmul %acc, %stat, %mov : memref<128x48xf32, #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x48xbf16, #nisa.mem<sbuf>>
// The partial K tile (72 partitions), peeled.
// CHECK-NEXT:        %[[S:.+]] = memref.subview %stat[0, 0] [72, 128] [1, 1]
// CHECK-NEXT:        %[[V:.+]] = memref.subview %mov[0, 0] [72, 48] [1, 1]
// CHECK:             %{{.+}} = memref.subview %a[%m, 128] [128, 72] [1, 1]
// CHECK:             %{{.+}} = memref.subview %b[128, %n] [72, 48] [1, 1]
// CHECK:             nisa.nc_matmul %acc, %[[S]], %[[V]] accumulate : memref<128x48xf32, #nisa.mem<psum>>, memref<72x128xbf16, {{.*}}#nisa.mem<sbuf>>, memref<72x48xbf16, {{.*}}#nisa.mem<sbuf>>
// CHECK-NEXT:        nisa.tensor_copy %res, %acc : memref<128x48xf32, #nisa.mem<sbuf>>, memref<128x48xf32, #nisa.mem<psum>>
// CHECK-NEXT:        %[[Y:.+]] = memref.subview %y[%m, %n] [128, 48] [1, 1]
// CHECK-NEXT:        nisa.dma_copy %[[Y]], %res
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// The partial M tile (rows 128..159), peeled: a [32, 48] accumulator.
// CHECK-NEXT:    scf.for %[[N:.+]] = %c0 to %c48 step %c48 {
// CHECK-NEXT:      %[[ACC:.+]] = memref.subview %acc[0, 0] [32, 48] [1, 1]
// CHECK-NOT:       nisa.memset
// CHECK:           nisa.nc_matmul %[[ACC]], %{{.+}}, %mov : memref<32x48xf32, {{.*}}#nisa.mem<psum>>, memref<128x32xbf16, {{.*}}#nisa.mem<sbuf>>, memref<128x48xbf16, #nisa.mem<sbuf>>
// CHECK:           nisa.nc_matmul %[[ACC]], %{{.+}}, %{{.+}} accumulate : memref<32x48xf32, {{.*}}#nisa.mem<psum>>, memref<72x32xbf16, {{.*}}#nisa.mem<sbuf>>, memref<72x48xbf16, {{.*}}#nisa.mem<sbuf>>
// CHECK:           nisa.tensor_copy
// CHECK-NEXT:      %[[Y:.+]] = memref.subview %y[128, %[[N]]] [32, 48] [1, 1]
// CHECK-NEXT:      nisa.dma_copy %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %y : memref<160x48xf32, #nisa.mem<hbm>>

// -----

// A batch dim (a loop) and a bf16 result; both operands K-major (one DMA each).
func.func @batched(%a: tensor<2x64x24xbf16>, %b: tensor<2x64x40xbf16>) -> tensor<2x24x40xbf16> {
  %y = hlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x64x24xbf16>, tensor<2x64x40xbf16>) -> tensor<2x24x40xbf16>
  func.return %y : tensor<2x24x40xbf16>
}
// CHECK-LABEL: func.func @batched(%a: memref<2x64x24xbf16, #nisa.mem<hbm>>, %b: memref<2x64x40xbf16, #nisa.mem<hbm>>) -> memref<2x24x40xbf16, #nisa.mem<hbm>> {
// CHECK:         %acc = memref.alloc() : memref<24x40xf32, #nisa.mem<psum>>
// CHECK-NEXT:    %res = memref.alloc() : memref<24x40xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT:    scf.for %[[B:.+]] = %c0 to %c2 step %c1 {
// CHECK-NEXT:      scf.for %m = %c0 to %c24 step %c24 {
// CHECK-NEXT:        scf.for %n = %c0 to %c40 step %c40 {
// CHECK-NEXT:          %[[A:.+]] = memref.subview %a[%[[B]], 0, %m] [1, 64, 24] [1, 1, 1] : memref<2x64x24xbf16, #nisa.mem<hbm>> to memref<64x24xbf16, strided<[24, 1], offset: ?>, #nisa.mem<hbm>>
// CHECK-NEXT:          nisa.dma_copy %stat, %[[A]]
// CHECK-NEXT:          %[[BB:.+]] = memref.subview %b[%[[B]], 0, %n] [1, 64, 40] [1, 1, 1]
// CHECK-NEXT:          nisa.dma_copy %mov, %[[BB]]
// CHECK-NEXT:          nisa.nc_matmul %acc, %stat, %mov : memref<24x40xf32, #nisa.mem<psum>>, memref<64x24xbf16, #nisa.mem<sbuf>>, memref<64x40xbf16, #nisa.mem<sbuf>>
// CHECK-NEXT:          nisa.tensor_copy %res, %acc : memref<24x40xbf16, #nisa.mem<sbuf>>, memref<24x40xf32, #nisa.mem<psum>>
// CHECK-NEXT:          %[[Y:.+]] = memref.subview %y[%[[B]], %m, %n] [1, 24, 40] [1, 1, 1]
// CHECK-NEXT:          nisa.dma_copy %[[Y]], %res
