// chlo ops verify their types; a chlo op mxdsl does not define is refused at the op.

// RUN: mx-opt %s --split-input-file --verify-diagnostics
// RUN: not mx-opt %S/Inputs/chlo-unknown.mlir 2>&1 | filecheck %s --check-prefix=UNKNOWN

func.func @int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{expects a float tensor, got tensor<4xi32>}}
  %0 = chlo.erf %a : tensor<4xi32> -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

func.func @types(%a: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error@+1 {{operand tensor<4xf32> and result tensor<4xbf16> must have one type}}
  %0 = chlo.erfc %a : tensor<4xf32> -> tensor<4xbf16>
  func.return %0 : tensor<4xbf16>
}

// UNKNOWN: chlo-unknown.mlir:2:{{[0-9]+}}: error: Operation chlo.lgamma is not registered
