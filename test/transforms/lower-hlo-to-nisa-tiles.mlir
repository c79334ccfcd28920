// lower-hlo-to-nisa emits work that scales with tiles, not rows: a K-minor matmul
// operand (x @ W's x) loads one [K, M] tile per step through a nisa.permute view (one
// strided DMA); a transpose is one strided DMA per 128 x 512 tile of the result from a
// permuted view of its source; a broadcast copies the operand once and doubles along each
// broadcast dim (ceil(log2 n) DMAs); a reduce over short rows (the 32 elements of an MX
// block) puts several rows on each partition, one tensor_reduce over the last axis of a
// [128, G, 32] tile. Values at stablehlo / nisa / bir against numpy:
// test/stablehlo/test_tile_lowering.py.

// RUN: mx-opt %s -p import-stablehlo,lower-hlo-to-nisa | filecheck %s

func.func @kminor(%x: tensor<256x192xf32>, %w: tensor<192x96xf32>) -> tensor<256x96xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<256x192xf32>, tensor<192x96xf32>) -> tensor<256x96xf32>
  func.return %y : tensor<256x96xf32>
}
func.func @transpose(%x: tensor<300x600xf32>) -> tensor<600x300xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<300x600xf32>) -> tensor<600x300xf32>
  func.return %t : tensor<600x300xf32>
}
func.func @broadcast(%x: tensor<200x1xf32>) -> tensor<200x48xf32> {
  %b = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<200x1xf32>) -> tensor<200x48xf32>
  func.return %b : tensor<200x48xf32>
}
func.func @block_max(%x: tensor<1x256x4x32xf32>) -> tensor<1x256x4xf32> {
  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [3] : (tensor<1x256x4x32xf32>, tensor<f32>) -> tensor<1x256x4xf32>
  func.return %r : tensor<1x256x4xf32>
}

// CHECK-LABEL: func.func @kminor(
// CHECK:         scf.for %m = %c0 to %c256 step %c128 {
// CHECK:           %[[T:.*]] = nisa.permute %{{.*}} [1, 0] : memref<128x128xf32, strided<[192, 1], offset: ?>, #nisa.mem<hbm>> to memref<128x128xf32, strided<[1, 192], offset: ?>, #nisa.mem<hbm>>
// CHECK-NEXT:      nisa.dma_copy %stat, %[[T]] : memref<128x128xf32, #nisa.mem<sbuf>>, memref<128x128xf32, strided<[1, 192], offset: ?>, #nisa.mem<hbm>>
// CHECK-NOT:       scf.for
// CHECK:           nisa.nc_matmul

// CHECK-LABEL: func.func @transpose(
// CHECK:         %[[P:.*]] = nisa.permute %x [1, 0] : memref<300x600xf32, #nisa.mem<hbm>> to memref<600x300xf32, strided<[1, 600]>, #nisa.mem<hbm>>
// CHECK:         scf.for %r = %c0 to %c512 step %c128 {
// CHECK:           nisa.dma_copy %{{.*}}, %{{.*}} : memref<128x300xf32, strided<[300, 1], offset: ?>, #nisa.mem<hbm>>, memref<128x300xf32, strided<[1, 600], offset: ?>, #nisa.mem<hbm>>
// CHECK:         nisa.dma_copy %{{.*}}, %{{.*}} : memref<88x300xf32, strided<[300, 1], offset: ?>, #nisa.mem<hbm>>, memref<88x300xf32, strided<[1, 600], offset: ?>, #nisa.mem<hbm>>

// CHECK-LABEL: func.func @broadcast(
// CHECK-NOT:     scf.for
// CHECK:         nisa.dma_copy %{{.*}}, %x : memref<200x1xf32, strided<[48, 1]>, #nisa.mem<hbm>>, memref<200x1xf32, #nisa.mem<hbm>>
// CHECK:         nisa.dma_copy %{{.*}}, %{{.*}} : memref<200x1xf32, strided<[48, 1], offset: 1>, #nisa.mem<hbm>>, memref<200x1xf32, strided<[48, 1]>, #nisa.mem<hbm>>
// CHECK:         nisa.dma_copy %{{.*}}, %{{.*}} : memref<200x16xf32, strided<[48, 1], offset: 16>, #nisa.mem<hbm>>, memref<200x16xf32, strided<[48, 1]>, #nisa.mem<hbm>>
// CHECK-NEXT:    %{{.*}} = memref.subview
// CHECK-NEXT:    %{{.*}} = memref.subview
// CHECK-NEXT:    nisa.dma_copy %{{.*}}, %{{.*}} : memref<200x16xf32, strided<[48, 1], offset: 32>, #nisa.mem<hbm>>, memref<200x16xf32, strided<[48, 1]>, #nisa.mem<hbm>>
// CHECK-NEXT:    func.return

// CHECK-LABEL: func.func @block_max(
// CHECK:         %red_in = memref.alloc() : memref<128x8x32xf32, #nisa.mem<sbuf>>
// CHECK:         scf.for %r{{.*}} = %c0 to %c128 step %c128 {
// CHECK:           nisa.dma_copy %red_in, %{{.*}} : memref<128x8x32xf32, #nisa.mem<sbuf>>, memref<128x8x32xf32, strided<[256, 32, 1], offset: ?>, #nisa.mem<hbm>>
// CHECK-NEXT:      nisa.tensor_reduce %red_out, maximum %red_in axes [2] : memref<128x8xf32, #nisa.mem<sbuf>>, memref<128x8x32xf32, #nisa.mem<sbuf>>
