// A string literal never closed on its line is reported at its opening quote at once
// (xDSL 0.75's lexer would backtrack exponentially on it), by mx-opt and mx-run alike.
// RUN: not mx-opt %s 2>&1 | filecheck %s
// RUN: not mx-run %s 2>&1 | filecheck %s
// CHECK: unterminated-string.mlir:[[# @LINE + 5]]:51: error: string literal is not closed: add the closing '"' on this line
// CHECK-NEXT: {{^}}  %y = hlo.custom_call @Foo(%x) {backend_config = "abcdefghijklmnopqrstuvwxyz0123456789abc} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: {{^}}                                                  ^{{$}}
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = hlo.custom_call @Foo(%x) {backend_config = "abcdefghijklmnopqrstuvwxyz0123456789abc} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
