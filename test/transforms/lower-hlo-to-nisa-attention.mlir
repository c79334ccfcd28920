// lower-hlo-to-nisa on what attention is made of: stablehlo.iota (nisa.iota over the free
// axis or the partitions), special-value constants (a splat -inf filled as its bit
// pattern through an integer view of the tile; a literal mixing -inf / NaN / -0 with
// other values a constant memref.global holding those bits), dot_general over heads (a
// loop over the batch dim), with merged free dims (a collapse_shape view) and a vector
// operand (a unit free axis). Values: test_attention_lowering.py.

// RUN: mx-opt %s -p import-stablehlo,lower-hlo-to-nisa | filecheck %s

func.func @iota_rows() -> tensor<300xi32> {
  %i = stablehlo.iota dim = 0 : tensor<300xi32>
  func.return %i : tensor<300xi32>
}
func.func @iota_partitions() -> tensor<3x200x5xf32> {
  %i = stablehlo.iota dim = 1 : tensor<3x200x5xf32>
  func.return %i : tensor<3x200x5xf32>
}
func.func @neg_inf(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %c = stablehlo.constant dense<0xFF80> : tensor<bf16>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<bf16>) -> tensor<4x8xbf16>
  %m = stablehlo.maximum %x, %b : tensor<4x8xbf16>
  func.return %m : tensor<4x8xbf16>
}
func.func @mask_row(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = stablehlo.constant dense<[0.0, 0xFF800000, 0.0, 0xFF800000, 0.0, 0.0, 0x7FC00000, -0.0]> : tensor<8xf32>
  %b = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  %s = stablehlo.add %x, %b : tensor<4x8xf32>
  func.return %s : tensor<4x8xf32>
}
func.func @heads(%q: tensor<4x16x32xf32>, %k: tensor<4x16x32xf32>) -> tensor<4x16x16xf32> {
  %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<4x16x32xf32>, tensor<4x16x32xf32>) -> tensor<4x16x16xf32>
  func.return %s : tensor<4x16x16xf32>
}
func.func @merged(%x: tensor<4x5x64xbf16>, %w: tensor<64x48xbf16>) -> tensor<4x5x48xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [2] x [0] : (tensor<4x5x64xbf16>, tensor<64x48xbf16>) -> tensor<4x5x48xf32>
  func.return %y : tensor<4x5x48xf32>
}
func.func @matvec(%w: tensor<48x64xf32>, %v: tensor<64xf32>) -> tensor<48xf32> {
  %y = stablehlo.dot_general %w, %v, contracting_dims = [1] x [0] : (tensor<48x64xf32>, tensor<64xf32>) -> tensor<48xf32>
  func.return %y : tensor<48xf32>
}

// CHECK-LABEL: func.func @iota_rows()
// CHECK:         %iota = memref.alloc() : memref<1x300xi32, #nisa.mem<sbuf>>
// CHECK-NEXT:    nisa.iota %iota, {{\[\[}}1, 300]] : memref<1x300xi32, #nisa.mem<sbuf>>
// CHECK:         nisa.dma_copy

// CHECK-LABEL: func.func @iota_partitions()
// CHECK:         nisa.iota %iota, {{\[\[}}0, 5]] channel_multiplier 1 : memref<128x5xf32, #nisa.mem<sbuf>>
// CHECK:         nisa.iota %{{.*}}, {{\[\[}}0, 5]] offset 128 channel_multiplier 1 : memref<72x5xf32

// CHECK-LABEL: func.func @neg_inf(
// CHECK:         %[[V:.*]] = nisa.view_cast %cst : memref<4x8xbf16, #nisa.mem<sbuf>> to memref<4x8xui16, #nisa.mem<sbuf>>
// CHECK-NEXT:    nisa.iota %[[V]], {{\[\[}}0, 8]] offset 65408 : memref<4x8xui16, #nisa.mem<sbuf>>
// CHECK:         nisa.tensor_tensor %res, maximum %in, %cst

// CHECK:       "memref.global"() <{sym_name = "mask_row_c", type = memref<8xf32, #nisa.mem<hbm>>, initial_value = dense<[0.000000e+00, 0xff800000, 0.000000e+00, 0xff800000, 0.000000e+00, 0.000000e+00, 0x7fc00000, -0.000000e+00]> : tensor<8xf32>
// CHECK-LABEL: func.func @mask_row(
// CHECK:         memref.get_global @mask_row_c

// CHECK-LABEL: func.func @heads(
// CHECK:         scf.for %b = %c0 to %c4 step %c1 {
// CHECK:           memref.subview %q[%b, %m, 0] [1, 16, 32]
// CHECK-NEXT:      nisa.permute
// CHECK:           memref.subview %k[%b, %n, 0] [1, 16, 32]
// CHECK-NEXT:      nisa.permute
// CHECK:           nisa.nc_matmul %acc, %stat, %mov : memref<16x16xf32, #nisa.mem<psum>>, memref<32x16xf32, #nisa.mem<sbuf>>, memref<32x16xf32, #nisa.mem<sbuf>>
// CHECK:           memref.subview %s[%b, %m, %n] [1, 16, 16]

// CHECK-LABEL: func.func @merged(
// CHECK:         memref.collapse_shape %x {{\[\[}}0 : i64, 1 : i64], [2 : i64]] : memref<4x5x64xbf16, #nisa.mem<hbm>> into memref<20x64xbf16, #nisa.mem<hbm>>
// CHECK:         memref.collapse_shape %y {{\[\[}}0 : i64, 1 : i64], [2 : i64]] : memref<4x5x48xf32, #nisa.mem<hbm>> into memref<20x48xf32, #nisa.mem<hbm>>
// CHECK:         nisa.nc_matmul %acc, %stat, %mov : memref<20x48xf32, #nisa.mem<psum>>, memref<64x20xbf16, #nisa.mem<sbuf>>, memref<64x48xbf16, #nisa.mem<sbuf>>

// CHECK-LABEL: func.func @matvec(
// CHECK:         memref.expand_shape %v {{\[\[}}0 : i64, 1 : i64]] output_shape [64, 1] : memref<64xf32, #nisa.mem<hbm>> into memref<64x1xf32, #nisa.mem<hbm>>
// CHECK:         memref.expand_shape %y {{\[\[}}0 : i64, 1 : i64]] output_shape [48, 1]
// CHECK:         nisa.nc_matmul %acc, %stat, %mov : memref<48x1xf32, #nisa.mem<psum>>, memref<64x48xf32, #nisa.mem<sbuf>>, memref<64x1xf32, #nisa.mem<sbuf>>
