// An attribute the parser's own verification refuses is a located error in both tools
// (mx-run used to call it an internal error).
// RUN: not mx-opt %s 2>&1 | filecheck %s
// RUN: not mx-run %s --random-inputs 0 2>&1 | filecheck %s
// CHECK: parse-verify.mlir:[[# @LINE + 4]]:3: error: invalid op: Integer value 1099511627776 is out of range for type i32
// CHECK-NOT: internal error
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4x32xbf16>) -> tensor<4x32xbf16> {
  %y = hlo.custom_call @Foo(%x) {api_version = 1099511627776 : i32} : (tensor<4x32xbf16>) -> tensor<4x32xbf16>
  func.return %y : tensor<4x32xbf16>
}
