// Every hlo op in its custom syntax: printed, re-parsed and printed again (custom ->
// custom), through the generic form (MX_ROUNDTRIP: generic -> custom), and the generic
// form itself (GENERIC). All element types of the MX path appear: bf16, f16, f32,
// f8E4M3FN, f8E5M2, f8E8M0FNU, ui32, i64.

// RUN: mx-opt %s | mx-opt | filecheck %s
// RUN: MX_ROUNDTRIP
// RUN: mx-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @constants() {
  %dense = hlo.constant dense<[128, 256]> : tensor<2xi64>
  %scalar = hlo.constant dense<1.5> : tensor<bf16>
  %splat = hlo.constant dense<7> : tensor<2x2xui32>
  %attr = hlo.constant {note = "kept"} dense<0.25> : tensor<f32>
  %meta = hlo.constant (dense<[128, 256]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %nested = hlo.constant (dense<1.0> : tensor<f16>, (dense<2> : tensor<i64>, dense<[1, 2]> : tensor<2xui32>))
  %empty = hlo.constant ()
  func.return
}

// CHECK-LABEL: func.func @constants() {
// CHECK-NEXT:    %dense = hlo.constant dense<[128, 256]> : tensor<2xi64>
// CHECK-NEXT:    %scalar = hlo.constant dense<1.500000e+00> : tensor<bf16>
// CHECK-NEXT:    %splat = hlo.constant dense<7> : tensor<2x2xui32>
// CHECK-NEXT:    %attr = hlo.constant {note = "kept"} dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT:    %meta = hlo.constant (dense<[128, 256]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %nested = hlo.constant (dense<1.000000e+00> : tensor<f16>, (dense<2> : tensor<i64>, dense<[1, 2]> : tensor<2xui32>))
// CHECK-NEXT:    %empty = hlo.constant ()
// CHECK-NEXT:    func.return

// GENERIC-LABEL: "func.func"() <{sym_name = "constants"
// GENERIC:       %dense = "hlo.constant"() <{value = dense<[128, 256]> : tensor<2xi64>}> : () -> tensor<2xi64>
// GENERIC-NEXT:  %scalar = "hlo.constant"() <{value = dense<1.500000e+00> : tensor<bf16>}> : () -> tensor<bf16>
// GENERIC-NEXT:  %splat = "hlo.constant"() <{value = dense<7> : tensor<2x2xui32>}> : () -> tensor<2x2xui32>
// GENERIC-NEXT:  %attr = "hlo.constant"() <{value = dense<2.500000e-01> : tensor<f32>}> {note = "kept"} : () -> tensor<f32>
// GENERIC-NEXT:  %meta = "hlo.constant"() <{value = [dense<[128, 256]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>]}> : () -> tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>
// GENERIC-NEXT:  %nested = "hlo.constant"() <{value = [dense<1.000000e+00> : tensor<f16>, [dense<2> : tensor<i64>, dense<[1, 2]> : tensor<2xui32>]]}> : () -> tuple<tensor<f16>, tuple<tensor<i64>, tensor<2xui32>>>
// GENERIC-NEXT:  %empty = "hlo.constant"() <{value = []}> : () -> tuple<>

func.func @tuples(%a: tensor<4xf8E4M3FN>, %b: tensor<4xf8E5M2>, %s: tensor<1xf8E8M0FNU>) -> tensor<1xf8E8M0FNU> {
  %t = hlo.tuple %a, %b : tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>
  %n = hlo.tuple %t, %s {note} : tuple<tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>, tensor<1xf8E8M0FNU>>
  %none = hlo.tuple : tuple<>
  %inner = hlo.get_tuple_element %n[0] : (tuple<tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>, tensor<1xf8E8M0FNU>>) -> tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>
  %e5 = hlo.get_tuple_element %inner[1] {note} : (tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>) -> tensor<4xf8E5M2>
  %scale = hlo.get_tuple_element %n[1] : (tuple<tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>, tensor<1xf8E8M0FNU>>) -> tensor<1xf8E8M0FNU>
  func.return %scale : tensor<1xf8E8M0FNU>
}

// CHECK-LABEL: func.func @tuples(%a: tensor<4xf8E4M3FN>, %b: tensor<4xf8E5M2>, %s: tensor<1xf8E8M0FNU>) -> tensor<1xf8E8M0FNU> {
// CHECK-NEXT:    %t = hlo.tuple %a, %b : tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>
// CHECK-NEXT:    %n = hlo.tuple %t, %s {note} : tuple<tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>, tensor<1xf8E8M0FNU>>
// CHECK-NEXT:    %none = hlo.tuple : tuple<>
// CHECK-NEXT:    %inner = hlo.get_tuple_element %n[0] : (tuple<tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>, tensor<1xf8E8M0FNU>>) -> tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>
// CHECK-NEXT:    %e5 = hlo.get_tuple_element %inner[1] {note} : (tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>) -> tensor<4xf8E5M2>
// CHECK-NEXT:    %scale = hlo.get_tuple_element %n[1] : (tuple<tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>, tensor<1xf8E8M0FNU>>) -> tensor<1xf8E8M0FNU>
// CHECK-NEXT:    func.return %scale : tensor<1xf8E8M0FNU>

// GENERIC-LABEL: "func.func"() <{sym_name = "tuples"
// GENERIC:       %t = "hlo.tuple"(%a, %b) : (tensor<4xf8E4M3FN>, tensor<4xf8E5M2>) -> tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>
// GENERIC-NEXT:  %n = "hlo.tuple"(%t, %s) {note} : (tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>, tensor<1xf8E8M0FNU>) -> tuple<tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>, tensor<1xf8E8M0FNU>>
// GENERIC-NEXT:  %none = "hlo.tuple"() : () -> tuple<>
// GENERIC-NEXT:  %inner = "hlo.get_tuple_element"(%n) <{index = 0 : i32}> : (tuple<tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>, tensor<1xf8E8M0FNU>>) -> tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>
// GENERIC-NEXT:  %e5 = "hlo.get_tuple_element"(%inner) <{index = 1 : i32}> {note} : (tuple<tensor<4xf8E4M3FN>, tensor<4xf8E5M2>>) -> tensor<4xf8E5M2>

func.func @dots(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %m: tensor<3x4xbf16>, %n: tensor<4x5xbf16>) {
  %batched = hlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %matmul = hlo.dot_general %m, %n, contracting_dims = [1] x [0] : (tensor<3x4xbf16>, tensor<4x5xbf16>) -> tensor<3x5xbf16>
  %outer = hlo.dot_general %m, %n {note} : (tensor<3x4xbf16>, tensor<4x5xbf16>) -> tensor<3x4x4x5xbf16>
  func.return
}

// CHECK-LABEL: func.func @dots(
// CHECK-NEXT:    %batched = hlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT:    %matmul = hlo.dot_general %m, %n, contracting_dims = [1] x [0] : (tensor<3x4xbf16>, tensor<4x5xbf16>) -> tensor<3x5xbf16>
// CHECK-NEXT:    %outer = hlo.dot_general %m, %n {note} : (tensor<3x4xbf16>, tensor<4x5xbf16>) -> tensor<3x4x4x5xbf16>

// GENERIC-LABEL: "func.func"() <{sym_name = "dots"
// GENERIC:       %batched = "hlo.dot_general"(%a, %b) <{lhs_batching_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// GENERIC-NEXT:  %matmul = "hlo.dot_general"(%m, %n) <{lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}> : (tensor<3x4xbf16>, tensor<4x5xbf16>) -> tensor<3x5xbf16>

func.func @converts(%h: tensor<2x32xf16>, %f: tensor<2x32xf32>) {
  %to_bf16 = hlo.convert %f : (tensor<2x32xf32>) -> tensor<2x32xbf16>
  %to_e4m3 = hlo.convert %h {note} : (tensor<2x32xf16>) -> tensor<2x32xf8E4M3FN>
  %to_e5m2 = hlo.convert %h : (tensor<2x32xf16>) -> tensor<2x32xf8E5M2>
  %to_i64 = hlo.convert %f : (tensor<2x32xf32>) -> tensor<2x32xi64>
  func.return
}

// CHECK-LABEL: func.func @converts(
// CHECK-NEXT:    %to_bf16 = hlo.convert %f : (tensor<2x32xf32>) -> tensor<2x32xbf16>
// CHECK-NEXT:    %to_e4m3 = hlo.convert %h {note} : (tensor<2x32xf16>) -> tensor<2x32xf8E4M3FN>
// CHECK-NEXT:    %to_e5m2 = hlo.convert %h : (tensor<2x32xf16>) -> tensor<2x32xf8E5M2>
// CHECK-NEXT:    %to_i64 = hlo.convert %f : (tensor<2x32xf32>) -> tensor<2x32xi64>

// GENERIC-LABEL: "func.func"() <{sym_name = "converts"
// GENERIC:       %to_bf16 = "hlo.convert"(%f) : (tensor<2x32xf32>) -> tensor<2x32xbf16>
// GENERIC-NEXT:  %to_e4m3 = "hlo.convert"(%h) {note} : (tensor<2x32xf16>) -> tensor<2x32xf8E4M3FN>

func.func @custom_calls(%x: tensor<2x32xbf16>, %y: tensor<2x32xf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  %plain = hlo.custom_call @some.target(%x, %y) : (tensor<2x32xbf16>, tensor<2x32xf16>) -> tensor<2x32xf32>
  %nullary = hlo.custom_call @"quoted target"() {backend_config = "opaque", api_version = 4 : i32, note} : () -> tuple<tensor<i64>, tuple<>>
  func.return
}

// The defaults (backend_config "", api_version 1) are always printed.
// CHECK-LABEL: func.func @custom_calls(
// CHECK-NEXT:    %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
// CHECK-NEXT:    %plain = hlo.custom_call @some.target(%x, %y) {backend_config = "", api_version = 1 : i32} : (tensor<2x32xbf16>, tensor<2x32xf16>) -> tensor<2x32xf32>
// CHECK-NEXT:    %nullary = hlo.custom_call @"quoted target"() {backend_config = "opaque", api_version = 4 : i32, note} : () -> tuple<tensor<i64>, tuple<>>

// GENERIC-LABEL: "func.func"() <{sym_name = "custom_calls"
// GENERIC:       %q = "hlo.custom_call"(%x) <{call_target_name = "QuantizeMX", backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32}> : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
// GENERIC-NEXT:  %plain = "hlo.custom_call"(%x, %y) <{call_target_name = "some.target", backend_config = "", api_version = 1 : i32}> : (tensor<2x32xbf16>, tensor<2x32xf16>) -> tensor<2x32xf32>
// GENERIC-NEXT:  %nullary = "hlo.custom_call"() <{call_target_name = "quoted target", backend_config = "opaque", api_version = 4 : i32}> {note} : () -> tuple<tensor<i64>, tuple<>>
