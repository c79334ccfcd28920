// Every verifier message of the stablehlo dialect, at the op.

// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics | filecheck %s

// elementwise shapes
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.add %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return
}
// CHECK: error: 'stablehlo.add' op operand 1 has shape [4], the result [2, 4]; elementwise ops do not broadcast (use broadcast_in_dim)

// -----

// clamp bounds
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.clamp %b, %a, %b : (tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return
}
// CHECK: error: 'stablehlo.clamp' op operand 0 is neither a scalar nor [2, 4]

// -----

// select predicate type
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.select %a, %a, %a : tensor<2x4xf32>, tensor<2x4xf32>
  func.return
}
// CHECK: error: 'stablehlo.select' op the predicate is tensor<2x4xf32>, not a tensor of i1

// -----

// compare direction
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = "stablehlo.compare"(%a, %a) <{comparison_direction = "BIGGER"}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  func.return
}
// CHECK: error: 'stablehlo.compare' op comparison direction 'BIGGER' is not one of EQ, NE, GE, GT, LE, LT

// -----

// compare type
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = "stablehlo.compare"(%a, %a) <{comparison_direction = "EQ", compare_type = "FUZZY"}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  func.return
}
// CHECK: error: 'stablehlo.compare' op compare type 'FUZZY' is not one of FLOAT, TOTALORDER, SIGNED, UNSIGNED

// -----

// compare result
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.compare EQ, %a, %a : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return
}
// CHECK: error: 'stablehlo.compare' op the result must be the operand shape of i1, got tensor<2x4xf32>

// -----

// convert shape
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.convert %a : (tensor<2x4xf32>) -> tensor<8xbf16>
  func.return
}
// CHECK: error: 'stablehlo.convert' op convert keeps the shape

// -----

// bitcast minor dim
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.bitcast_convert %a : (tensor<2x4xf32>) -> tensor<2xui64>
  func.return
}
// CHECK: error: 'stablehlo.bitcast_convert' op a 32-bit to 64-bit bitcast needs a minor dim of 2, got shape [2, 4]

// -----

// bitcast shape
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.bitcast_convert %a : (tensor<2x4xf32>) -> tensor<2x4x2xui8>
  func.return
}
// CHECK: error: 'stablehlo.bitcast_convert' op result shape [2, 4, 2] should be [2, 4, 4] for a 32-bit to 8-bit bitcast

// -----

// reshape count
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.reshape %a : (tensor<2x4xf32>) -> tensor<3x3xf32>
  func.return
}
// CHECK: error: 'stablehlo.reshape' op cannot reshape [2, 4] (8 elements) to [3, 3] (9 elements)

// -----

// broadcast dims count
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return
}
// CHECK: error: 'stablehlo.broadcast_in_dim' op dims [0] must list one result dim per operand dim

// -----

// broadcast sizes
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x5xf32>
  func.return
}
// CHECK: error: 'stablehlo.broadcast_in_dim' op operand dim 1 of size 4 cannot broadcast to result dim 1 of size 5

// -----

// transpose permutation
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x4xf32>) -> tensor<2x2xf32>
  func.return
}
// CHECK: error: 'stablehlo.transpose' op dims [0, 0] are not a permutation of the operand dims

// -----

// iota dim
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.iota dim = 2 : tensor<2x4xi32>
  func.return
}
// CHECK: error: 'stablehlo.iota' op iota dim 2 is out of range

// -----

// dot_general shape
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.dot_general %a, %a, contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  func.return
}
// CHECK: error: 'stablehlo.dot_general' op result shape [4, 4] does not match the dot_general shape [2, 2]

// -----

// reduce result
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return
}
// CHECK: error: 'stablehlo.reduce' op result shape [4] should be [2]

// -----

// reduce dims
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [2] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
  func.return
}
// CHECK: error: 'stablehlo.reduce' op dimension 2 is out of range for rank 2

// -----

// composite decomposition
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  %r = stablehlo.composite "x" %a {composite_attributes = {}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return
}
// CHECK: error: 'stablehlo.composite' op a composite needs a decomposition = @function attribute
