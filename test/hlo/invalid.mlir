// The verifier of every hlo op, one error per chunk. Each diagnostic names the op and
// its place in this file.

// RUN: mx-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{'hlo.constant' op result type tensor<i32> does not match the literal's type tensor<i64>}}
%c = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i32>

// -----

// expected-error@+1 {{'hlo.constant' op result type tuple<tensor<i64>, tensor<f16>> does not match the literal's type tuple<tensor<i64>, tensor<f32>>}}
%c = "hlo.constant"() <{value = [dense<1> : tensor<i64>, dense<2.0> : tensor<f32>]}> : () -> tuple<tensor<i64>, tensor<f16>>

// -----

// expected-error@+1 {{'hlo.constant' op a constant literal is a dense<...> tensor or a tuple of literals, got 5 : i64}}
%c = "hlo.constant"() <{value = [dense<1> : tensor<i64>, 5 : i64]}> : () -> tuple<tensor<i64>, i64>

// -----

// expected-error@+1 {{'hlo.constant' op a dense constant literal is a tensor, got vector<2xi64>}}
%c = "hlo.constant"() <{value = dense<1> : vector<2xi64>}> : () -> tensor<2xi64>

// -----

func.func @tuple_type(%a: tensor<2xf32>, %b: tensor<2xbf16>) {
  // expected-error@+1 {{'hlo.tuple' op result type tuple<tensor<2xf32>, tensor<2xf16>> does not match the operand types tuple<tensor<2xf32>, tensor<2xbf16>>}}
  %t = "hlo.tuple"(%a, %b) : (tensor<2xf32>, tensor<2xbf16>) -> tuple<tensor<2xf32>, tensor<2xf16>>
  func.return
}

// -----

func.func @tuple_count(%a: tensor<2xf32>) {
  // expected-error@+1 {{'hlo.tuple' op result type tuple<tensor<2xf32>, tensor<2xf32>> does not match the operand types tuple<tensor<2xf32>>}}
  %t = "hlo.tuple"(%a) : (tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  func.return
}

// -----

func.func @gte_out_of_range(%t: tuple<tensor<2xf32>, tensor<4xui32>>) {
  // expected-error@+1 {{'hlo.get_tuple_element' op index 2 is out of range for a tuple of 2 elements}}
  %e = hlo.get_tuple_element %t[2] : (tuple<tensor<2xf32>, tensor<4xui32>>) -> tensor<2xf32>
  func.return
}

// -----

func.func @gte_negative(%t: tuple<tensor<2xf32>>) {
  // expected-error@+1 {{'hlo.get_tuple_element' op index -1 is out of range for a tuple of 1 elements}}
  %e = hlo.get_tuple_element %t[-1] : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  func.return
}

// -----

func.func @gte_result_type(%t: tuple<tensor<2xf32>, tensor<4xui32>>) {
  // expected-error@+1 {{'hlo.get_tuple_element' op result type tensor<4xi64> does not match tuple element 1 of type tensor<4xui32>}}
  %e = hlo.get_tuple_element %t[1] : (tuple<tensor<2xf32>, tensor<4xui32>>) -> tensor<4xi64>
  func.return
}

// -----

func.func @gte_not_a_tuple(%x: tensor<2xf32>) {
  // expected-error-re@+1 {{'hlo.get_tuple_element' op operand 'operand' at position 0 does not verify:{{\s+}}tensor<2xf32> should be of base attribute tuple}}
  %e = "hlo.get_tuple_element"(%x) <{index = 0 : i32}> : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @dot_batch_count(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error@+1 {{'hlo.dot_general' op lhs has 1 batching dims but rhs has 0}}
  %d = hlo.dot_general %a, %b, batching_dims = [0] x [], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x2x5xf32>
  func.return
}

// -----

func.func @dot_contract_count(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'hlo.dot_general' op lhs has 2 contracting dims but rhs has 1}}
  %d = hlo.dot_general %a, %b, contracting_dims = [1, 0] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  func.return
}

// -----

func.func @dot_out_of_range(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'hlo.dot_general' op lhs dimension 2 is out of range for a rank-2 operand}}
  %d = hlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  func.return
}

// -----

func.func @dot_negative(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'hlo.dot_general' op rhs dimension -1 is out of range for a rank-2 operand}}
  %d = hlo.dot_general %a, %b, contracting_dims = [1] x [-1] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  func.return
}

// -----

func.func @dot_overlap(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) {
  // expected-error@+1 {{'hlo.dot_general' op lhs dimension 1 appears more than once in the batching and contracting dims [1, 1]}}
  %d = hlo.dot_general %a, %b, batching_dims = [1] x [0], contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @dot_contract_size(%a: tensor<3x4xf32>, %b: tensor<8x5xf32>) {
  // expected-error@+1 {{'hlo.dot_general' op contracting dim sizes differ: lhs dim 1 has 4, rhs dim 0 has 8}}
  %d = hlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
  func.return
}

// -----

func.func @dot_batch_size(%a: tensor<2x3x4xf32>, %b: tensor<6x4x5xf32>) {
  // expected-error@+1 {{'hlo.dot_general' op batching dim sizes differ: lhs dim 0 has 2, rhs dim 0 has 6}}
  %d = hlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<6x4x5xf32>) -> tensor<2x3x5xf32>
  func.return
}

// -----

func.func @dot_result_shape(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error@+1 {{'hlo.dot_general' op result shape [3, 2, 5] does not match the dot_general shape [2, 3, 5]}}
  %d = hlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<3x2x5xf32>
  func.return
}

// -----

func.func @dot_dims_type(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'hlo.dot_general' op Expected attribute i64 but got i32}}
  %d = "hlo.dot_general"(%a, %b) <{lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i32: 1>, rhs_contracting_dimensions = array<i64: 0>}> : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  func.return
}

// -----

func.func @convert_shape(%x: tensor<2x32xf32>) {
  // expected-error@+1 {{'hlo.convert' op result shape [64] differs from the operand shape [2, 32]; convert only changes the element type}}
  %y = hlo.convert %x : (tensor<2x32xf32>) -> tensor<64xbf16>
  func.return
}

// -----

// hlo.custom_call verifies the contract registered for its target (mxdsl.contract):
func.func @contract(%x: tensor<2x32xbf16>) {
  // expected-error@+1 {{'hlo.custom_call' op [MXQ05] QuantizeMX: block_size is 16}}
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -1, \22block_size\22: 16, \22scale_method\22: \22EMAX\22}"} : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  func.return
}
