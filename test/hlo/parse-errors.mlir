// Errors the custom syntax reports while parsing, each at the token that is wrong.

// RUN: mx-opt %s --split-input-file --parsing-diagnostics --located-diagnostics | filecheck %s

func.func @tuple_count(%a: tensor<2xf32>) {
  %t = hlo.tuple %a, %a : tuple<tensor<2xf32>>
  func.return
}
// CHECK: parse-errors.mlir:6:27: error: hlo.tuple has 2 operands but its type tuple<tensor<2xf32>> has 1 elements
// CHECK-NEXT: %t = hlo.tuple %a, %a : tuple<tensor<2xf32>>
// CHECK-NEXT: {{^ +\^$}}

// -----

func.func @tuple_not_a_tuple(%a: tensor<2xf32>) {
  %t = hlo.tuple %a : tensor<2xf32>
  func.return
}
// CHECK: parse-errors.mlir:16:23: error: hlo.tuple produces a tuple type, got tensor<2xf32>

// -----

func.func @tuple_operand_type(%a: tensor<2xf32>) {
  %t = hlo.tuple %a : tuple<tensor<2xbf16>>
  func.return
}
// CHECK: parse-errors.mlir:24:18: error: operand is used with type tensor<2xbf16>, but has been previously used or defined with type tensor<2xf32>

// -----

%c = hlo.constant 5 : i64
// CHECK: parse-errors.mlir:31:19: error: a constant literal is a dense<...> tensor or a tuple of literals, got 5 : i64

// -----

%c = hlo.constant (dense<1> : tensor<i64>, dense<2> : vector<2xi64>)
// CHECK: parse-errors.mlir:36:44: error: a dense constant literal is a tensor, got vector<2xi64>

// -----

%c = hlo.constant (dense<1> : tensor<i64>
// CHECK: parse-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: Expected ')'

// -----

func.func @gte_two_indices(%t: tuple<tensor<2xf32>>) {
  %e = hlo.get_tuple_element %t[0, 1] : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  func.return
}
// CHECK: parse-errors.mlir:47:34: error: Expected ']'

// -----

func.func @gte_type(%t: tuple<tensor<2xf32>>) {
  %e = hlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>>) -> (tensor<2xf32>, tensor<2xf32>)
  func.return
}
// CHECK: parse-errors.mlir:55:38: error: hlo.get_tuple_element has type (tuple<...>) -> element type, got (tuple<tensor<2xf32>>) -> (tensor<2xf32>, tensor<2xf32>)

// -----

func.func @custom_call_results(%a: tensor<2xf32>) {
  %c = hlo.custom_call @X(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  func.return
}
// CHECK: parse-errors.mlir:63:33: error: hlo.custom_call has type (operand types) -> one result type (which may be a tuple), got (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)

// -----

func.func @custom_call_operands(%a: tensor<2xf32>) {
  %c = hlo.custom_call @X(%a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: parse-errors.mlir:71:33: error: expected 2 operand types but had 1

// -----

func.func @custom_call_target(%a: tensor<2xf32>) {
  %c = hlo.custom_call "X"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}
// CHECK: parse-errors.mlir:79:24: error: expect symbol name

// -----

func.func @dot_key(%a: tensor<2x2xf32>) {
  %d = hlo.dot_general %a, %a, contracting_dims = [1] x [0], contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}
// CHECK: parse-errors.mlir:87:62: error: expected batching_dims or contracting_dims (once each), got contracting_dims

// -----

func.func @dot_type(%a: tensor<2x2xf32>) {
  %d = hlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}
// CHECK: parse-errors.mlir:95:63: error: hlo.dot_general has type (lhs, rhs) -> result, got (tensor<2x2xf32>) -> tensor<2x2xf32>

// -----

func.func @convert_type(%x: tensor<2xf32>) {
  %y = hlo.convert %x : tensor<2xbf16>
  func.return
}
// CHECK: parse-errors.mlir:103:25: error: Expected '('
