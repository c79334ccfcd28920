// The verifiers of the example extension's ops, checked by expected-error annotations.
// RUN: mx-opt %s --split-input-file --verify-diagnostics

func.func @exponent_too_large(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ext.scale' op exponent 65 is outside [-64, 64]; split the scaling}}
  %a = ext.scale %x, 65 : tensor<4xf32> -> tensor<4xf32>
  func.return
}

// -----

func.func @exponent_too_small(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ext.scale' op exponent -65 is outside [-64, 64]}}
  %a = ext.scale %x, -65 : tensor<4xf32> -> tensor<4xf32>
  func.return
}

// -----

func.func @integer_tensor(%x: tensor<4xi32>) {
  // expected-error@+1 {{'ext.scale' op operand is tensor<4xi32>, not a tensor of floats}}
  %a = ext.scale %x, 1 : tensor<4xi32> -> tensor<4xi32>
  func.return
}

// -----

func.func @result_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ext.clamp' op result type tensor<4xbf16> differs from the operand type tensor<4xf32>}}
  %a = ext.clamp %x, 0.0, 1.0 : tensor<4xf32> -> tensor<4xbf16>
  func.return
}

// -----

func.func @bounds(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ext.clamp' op lo = 2.0 is greater than hi = 1.0}}
  %a = ext.clamp %x, 2.0, 1.0 : tensor<4xf32> -> tensor<4xf32>
  func.return
}
