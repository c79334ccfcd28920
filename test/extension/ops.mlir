// The example extension's ops (examples/extension, docs/extending.md): its dialect
// comes in through its xdsl.universe entry point, for mx-opt and for plain xdsl-opt, in
// custom and generic form; its verifiers' errors are checked by annotation.

// RUN: mx-opt %s | filecheck %s
// RUN: xdsl-opt %s | filecheck %s
// RUN: mx-opt %s --print-op-generic | mx-opt | filecheck %s
// RUN: mx-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @ops(%x: tensor<4xbf16>) -> tensor<4xbf16> {
// CHECK-NEXT:    %a = ext.scale %x, -3 : tensor<4xbf16> -> tensor<4xbf16>
// CHECK-NEXT:    %b = ext.clamp %a, -1.000000e+00, 2.500000e+00 : tensor<4xbf16> -> tensor<4xbf16>
// CHECK-NEXT:    func.return %b : tensor<4xbf16>
// GENERIC: "ext.scale"(%x) <{exponent = -3 : i64}> : (tensor<4xbf16>) -> tensor<4xbf16>
// GENERIC: "ext.clamp"(%a) <{lo = -1.000000e+00 : f64, hi = 2.500000e+00 : f64}> : (tensor<4xbf16>) -> tensor<4xbf16>
func.func @ops(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %a = ext.scale %x, -3 : tensor<4xbf16> -> tensor<4xbf16>
  %b = ext.clamp %a, -1.0, 2.5 : tensor<4xbf16> -> tensor<4xbf16>
  func.return %b : tensor<4xbf16>
}
