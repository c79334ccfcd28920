// An escape xDSL does not know is reported at its backslash (it, too, made the lexer
// backtrack exponentially).
// RUN: not mx-opt %s 2>&1 | filecheck %s
// RUN: mx-opt %s --verify-diagnostics
// CHECK: invalid-escape.mlir:[[# @LINE + 4]]:81: error: invalid escape sequence in string literal (use \", \n, \t, \\ or \XX with two hex digits)
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{invalid escape sequence in string literal}}
  %y = hlo.custom_call @Foo(%x) {backend_config = "abcdefghijklmnopqrstuvwxyz012\q"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
