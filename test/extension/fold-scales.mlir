// ext-fold-scales (examples/extension): chains of non-negative scalings fold into one
// (exact); a pair with a down-scaling stays, with a remark; a pair whose sum would break
// the exponent limit stays, with a warning. The remarks and warnings are checked by
// annotation, the IR by FileCheck; the pass runs in mx-opt and in xdsl-opt.

// RUN: mx-opt %s -p ext-fold-scales --split-input-file --verify-diagnostics | filecheck %s
// RUN: xdsl-opt %s -p ext-fold-scales --split-input-file 2>/dev/null | filecheck %s
// RUN: mx-opt %s -p ext-fold-scales --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=STDERR

// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %c = ext.scale %x, 6 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %c
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ext.scale %x, 1 : tensor<4xf32> -> tensor<4xf32>
  %b = ext.scale %a, 2 : tensor<4xf32> -> tensor<4xf32>
  %c = ext.scale %b, 3 : tensor<4xf32> -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// The first scaling has another use, so it stays.
// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %a = ext.scale %x, 1
// CHECK-NEXT:    %b = ext.scale %x, 3
// CHECK-NEXT:    func.return %a, %b
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = ext.scale %x, 1 : tensor<4xf32> -> tensor<4xf32>
  %b = ext.scale %a, 2 : tensor<4xf32> -> tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @down
// CHECK-NEXT:    %a = ext.scale %x, 4
// CHECK-NEXT:    %b = ext.scale %a, -4
// STDERR: fold-scales.mlir:[[# @LINE + 4]]:3: remark: 'ext.scale' op not folded: scaling by 2^4 then 2^-4 may round twice
func.func @down(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %a = ext.scale %x, 4 : tensor<4xbf16> -> tensor<4xbf16>
  // expected-remark@+1 {{not folded: scaling by 2^4 then 2^-4 may round twice}}
  %b = ext.scale %a, -4 : tensor<4xbf16> -> tensor<4xbf16>
  func.return %b : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @too_far
// CHECK-NEXT:    %a = ext.scale %x, 40
// CHECK-NEXT:    %b = ext.scale %a, 30
// STDERR: fold-scales.mlir:[[# @LINE + 3]]:3: warning: 'ext.scale' op not folded: the combined exponent 70 exceeds 64
func.func @too_far(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ext.scale %x, 40 : tensor<4xf32> -> tensor<4xf32>
  %b = ext.scale %a, 30 : tensor<4xf32> -> tensor<4xf32> // expected-warning {{combined exponent 70 exceeds 64}}
  func.return %b : tensor<4xf32>
}
