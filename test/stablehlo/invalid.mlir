// Every verifier message of the stablehlo dialect, at the op.

// RUN: mx-opt %s --split-input-file --verify-diagnostics

// elementwise shapes
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.add' op operand 1 has shape [4], the result [2, 4]; elementwise ops do not broadcast (use broadcast_in_dim)}}
  %r = stablehlo.add %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// clamp bounds
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.clamp' op operand 0 is neither a scalar nor [2, 4]}}
  %r = stablehlo.clamp %b, %a, %b : (tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// select predicate type
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.select' op the predicate is tensor<2x4xf32>, not a tensor of i1}}
  %r = stablehlo.select %a, %a, %a : tensor<2x4xf32>, tensor<2x4xf32>
  func.return
}

// -----

// compare direction
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.compare' op comparison direction 'BIGGER' is not one of EQ, NE, GE, GT, LE, LT}}
  %r = "stablehlo.compare"(%a, %a) <{comparison_direction = "BIGGER"}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  func.return
}

// -----

// compare type
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.compare' op compare type 'FUZZY' is not one of FLOAT, TOTALORDER, SIGNED, UNSIGNED}}
  %r = "stablehlo.compare"(%a, %a) <{comparison_direction = "EQ", compare_type = "FUZZY"}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  func.return
}

// -----

// compare result
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.compare' op the result must be the operand shape of i1, got tensor<2x4xf32>}}
  %r = stablehlo.compare EQ, %a, %a : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// convert shape
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.convert' op convert keeps the shape}}
  %r = stablehlo.convert %a : (tensor<2x4xf32>) -> tensor<8xbf16>
  func.return
}

// -----

// bitcast minor dim
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.bitcast_convert' op a 32-bit to 64-bit bitcast needs a minor dim of 2, got shape [2, 4]}}
  %r = stablehlo.bitcast_convert %a : (tensor<2x4xf32>) -> tensor<2xui64>
  func.return
}

// -----

// bitcast shape
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.bitcast_convert' op result shape [2, 4, 2] should be [2, 4, 4] for a 32-bit to 8-bit bitcast}}
  %r = stablehlo.bitcast_convert %a : (tensor<2x4xf32>) -> tensor<2x4x2xui8>
  func.return
}

// -----

// reshape count
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.reshape' op cannot reshape [2, 4] (8 elements) to [3, 3] (9 elements)}}
  %r = stablehlo.reshape %a : (tensor<2x4xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

// broadcast dims count
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.broadcast_in_dim' op dims [0] must list one result dim per operand dim}}
  %r = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// broadcast sizes
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.broadcast_in_dim' op operand dim 1 of size 4 cannot broadcast to result dim 1 of size 5}}
  %r = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

// transpose permutation
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.transpose' op dims [0, 0] are not a permutation of the operand dims}}
  %r = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x4xf32>) -> tensor<2x2xf32>
  func.return
}

// -----

// iota dim
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.iota' op iota dim 2 is out of range}}
  %r = stablehlo.iota dim = 2 : tensor<2x4xi32>
  func.return
}

// -----

// dot_general shape
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.dot_general' op result shape [4, 4] does not match the dot_general shape [2, 2]}}
  %r = stablehlo.dot_general %a, %a, contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  func.return
}

// -----

// reduce result
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.reduce' op result shape [4] should be [2]}}
  %r = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return
}

// -----

// reduce dims
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.reduce' op dimension 2 is out of range for rank 2}}
  %r = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [2] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
  func.return
}

// -----

// composite decomposition
func.func @f(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'stablehlo.composite' op a composite needs a decomposition = @function attribute}}
  %r = stablehlo.composite "x" %a {composite_attributes = {}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return
}
