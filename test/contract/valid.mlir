// Valid MX custom calls verify and print back unchanged (the printer spells the quotes in
// backend_config as \22): both spellings of both allowed dims, both FP8 dtypes, bf16 and
// f16 inputs, batch dims, hand-written legalized targets. They also survive the generic
// round trip, and what the two legalizations emit from them verifies as well.
//
// RUN: mx-opt %s | filecheck %s
// RUN: MX_ROUNDTRIP
// RUN: mx-opt %s -p legalize-quantize-mx,legalize-scaled-matmul | mx-opt | filecheck %s --check-prefix=LEG

// LEG-LABEL: func.func @quantize
// LEG-NOT: @QuantizeMX(
// LEG-LABEL: func.func @block_scaled_dot
// LEG-NOT: @__op$block_scaled_dot
// LEG-LABEL: func.func @legalized

// CHECK-LABEL: func.func @quantize(%a: tensor<4x64xbf16>, %b: tensor<64x4xf16>, %c: tensor<2x64x32xbf16>, %d: tensor<64xf16>) {
func.func @quantize(%a: tensor<4x64xbf16>, %b: tensor<64x4xf16>, %c: tensor<2x64x32xbf16>, %d: tensor<64xf16>) {
  // bf16, last dim spelled -1, float8_e4m3fn
  %q0 = hlo.custom_call @QuantizeMX(%a) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK-NEXT: %q0 = hlo.custom_call @QuantizeMX(%a) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // the same dim spelled rank-1 = 1, float8_e5m2
  %q1 = hlo.custom_call @QuantizeMX(%a) {backend_config = "{\"dtype\": \"float8_e5m2\", \"dim\": 1, \"block_size\": 32, \"scale_method\": \"EMAX\"}", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK-NEXT: %q1 = hlo.custom_call @QuantizeMX(%a) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: 1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // f16, second-to-last dim spelled -2
  %q2 = hlo.custom_call @QuantizeMX(%b) {backend_config = "{\"dtype\": \"float8_e5m2\", \"dim\": -2, \"block_size\": 32, \"scale_method\": \"EMAX\"}", api_version = 1 : i32} : (tensor<64x4xf16>) -> tuple<tensor<16x4xui32>, tensor<2x4xf8E8M0FNU>>
  // CHECK-NEXT: %q2 = hlo.custom_call @QuantizeMX(%b) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -2, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<64x4xf16>) -> tuple<tensor<16x4xui32>, tensor<2x4xf8E8M0FNU>>
  // the same dim spelled rank-2 = 0
  %q3 = hlo.custom_call @QuantizeMX(%b) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": 0, \"block_size\": 32, \"scale_method\": \"EMAX\"}", api_version = 1 : i32} : (tensor<64x4xf16>) -> tuple<tensor<16x4xui32>, tensor<2x4xf8E8M0FNU>>
  // CHECK-NEXT: %q3 = hlo.custom_call @QuantizeMX(%b) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: 0, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<64x4xf16>) -> tuple<tensor<16x4xui32>, tensor<2x4xf8E8M0FNU>>
  // rank 3: second-to-last dim spelled 1, then last dim spelled 2
  %q4 = hlo.custom_call @QuantizeMX(%c) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": 1, \"block_size\": 32, \"scale_method\": \"EMAX\"}", api_version = 1 : i32} : (tensor<2x64x32xbf16>) -> tuple<tensor<2x16x32xui32>, tensor<2x2x32xf8E8M0FNU>>
  // CHECK-NEXT: %q4 = hlo.custom_call @QuantizeMX(%c) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: 1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<2x64x32xbf16>) -> tuple<tensor<2x16x32xui32>, tensor<2x2x32xf8E8M0FNU>>
  %q5 = hlo.custom_call @QuantizeMX(%c) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": 2, \"block_size\": 32, \"scale_method\": \"EMAX\"}", api_version = 1 : i32} : (tensor<2x64x32xbf16>) -> tuple<tensor<2x64x8xui32>, tensor<2x64x1xf8E8M0FNU>>
  // CHECK-NEXT: %q5 = hlo.custom_call @QuantizeMX(%c) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: 2, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<2x64x32xbf16>) -> tuple<tensor<2x64x8xui32>, tensor<2x64x1xf8E8M0FNU>>
  // rank 1: the last dim, spelled 0 or -1
  %q6 = hlo.custom_call @QuantizeMX(%d) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": 0, \"block_size\": 32, \"scale_method\": \"EMAX\"}", api_version = 1 : i32} : (tensor<64xf16>) -> tuple<tensor<16xui32>, tensor<2xf8E8M0FNU>>
  // CHECK-NEXT: %q6 = hlo.custom_call @QuantizeMX(%d) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: 0, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<64xf16>) -> tuple<tensor<16xui32>, tensor<2xf8E8M0FNU>>
  %q7 = hlo.custom_call @QuantizeMX(%d) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}", api_version = 1 : i32} : (tensor<64xf16>) -> tuple<tensor<16xui32>, tensor<2xf8E8M0FNU>>
  // CHECK-NEXT: %q7 = hlo.custom_call @QuantizeMX(%d) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<64xf16>) -> tuple<tensor<16xui32>, tensor<2xf8E8M0FNU>>
  // fields beyond the four required ones are ignored
  %q8 = hlo.custom_call @QuantizeMX(%a) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\", \"comment\": \"activations\"}", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK-NEXT: %q8 = hlo.custom_call @QuantizeMX(%a) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22, \22comment\22: \22activations\22}", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  func.return
}

// CHECK-LABEL: func.func @block_scaled_dot(%l: tensor<4x16xui32>, %r: tensor<16x8xui32>, %ls: tensor<4x2xf8E8M0FNU>, %rs: tensor<2x8xf8E8M0FNU>, %rt: tensor<8x16xui32>, %rts: tensor<8x2xf8E8M0FNU>, %bl: tensor<2x4x16xui32>, %br: tensor<2x16x8xui32>, %bls: tensor<2x4x2xf8E8M0FNU>, %brs: tensor<2x2x8xf8E8M0FNU>) {
func.func @block_scaled_dot(%l: tensor<4x16xui32>, %r: tensor<16x8xui32>, %ls: tensor<4x2xf8E8M0FNU>, %rs: tensor<2x8xf8E8M0FNU>, %rt: tensor<8x16xui32>, %rts: tensor<8x2xf8E8M0FNU>, %bl: tensor<2x4x16xui32>, %br: tensor<2x16x8xui32>, %bls: tensor<2x4x2xf8E8M0FNU>, %brs: tensor<2x2x8xf8E8M0FNU>) {
  // no batch dims, K contracted on lhs dim 1 and rhs dim 0, f32 result
  %y0 = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}", api_version = 1 : i32} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK-NEXT: %y0 = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // rhs contracted on its last dim (weights stored [N, K]), float8_e5m2, bf16 result
  %y1 = hlo.custom_call @__op$block_scaled_dot(%l, %rt, %ls, %rts) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e5m2\"}}", api_version = 1 : i32} : (tensor<4x16xui32>, tensor<8x16xui32>, tensor<4x2xf8E8M0FNU>, tensor<8x2xf8E8M0FNU>) -> tensor<4x8xbf16>
  // CHECK-NEXT: %y1 = hlo.custom_call @__op$block_scaled_dot(%l, %rt, %ls, %rts) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [1], \22element_dtype\22: \22float8_e5m2\22}}", api_version = 1 : i32} : (tensor<4x16xui32>, tensor<8x16xui32>, tensor<4x2xf8E8M0FNU>, tensor<8x2xf8E8M0FNU>) -> tensor<4x8xbf16>
  // one batch dim, bf16 result
  %y2 = hlo.custom_call @__op$block_scaled_dot(%bl, %br, %bls, %brs) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [0], \"rhs_batch_dimensions\": [0], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e4m3fn\"}}", api_version = 1 : i32} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x2x8xf8E8M0FNU>) -> tensor<2x4x8xbf16>
  // CHECK-NEXT: %y2 = hlo.custom_call @__op$block_scaled_dot(%bl, %br, %bls, %brs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22lhs_contracting_dimensions\22: [2], \22rhs_contracting_dimensions\22: [1], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x2x8xf8E8M0FNU>) -> tensor<2x4x8xbf16>
  // the batch lists may be omitted (absent reads as empty)
  %y3 = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}", api_version = 1 : i32} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK-NEXT: %y3 = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  func.return
}

// CHECK-LABEL: func.func @legalized(%b: tensor<64x4xf16>, %meta: tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, %bl: tensor<2x4x16xui32>, %br: tensor<2x16x8xui32>, %bls: tensor<2x4x2xf8E8M0FNU>, %brs: tensor<2x2x8xf8E8M0FNU>) {
func.func @legalized(%b: tensor<64x4xf16>, %meta: tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, %bl: tensor<2x4x16xui32>, %br: tensor<2x16x8xui32>, %bls: tensor<2x4x2xf8E8M0FNU>, %brs: tensor<2x2x8xf8E8M0FNU>) {
  // what legalize-quantize-mx emits: metadata (shape, normalized dim, 32, 0), then the input
  %m0 = hlo.constant (dense<[64, 4]> : tensor<2xi64>, dense<0> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  // CHECK-NEXT: %m0 = hlo.constant (dense<[64, 4]> : tensor<2xi64>, dense<0> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q0 = hlo.custom_call @QuantizeMX_f16_e5m2(%m0, %b) {backend_config = "", api_version = 1 : i32} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<64x4xf16>) -> tuple<tensor<16x4xui32>, tensor<2x4xf8E8M0FNU>>
  // CHECK-NEXT: %q0 = hlo.custom_call @QuantizeMX_f16_e5m2(%m0, %b) {backend_config = "", api_version = 1 : i32} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<64x4xf16>) -> tuple<tensor<16x4xui32>, tensor<2x4xf8E8M0FNU>>
  // metadata that is not a literal: only its type is checked; the dim comes from the data shape
  %q1 = hlo.custom_call @QuantizeMX_f16_e4m3fn(%meta, %b) {backend_config = "", api_version = 1 : i32} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<64x4xf16>) -> tuple<tensor<16x4xui32>, tensor<2x4xf8E8M0FNU>>
  // CHECK-NEXT: %q1 = hlo.custom_call @QuantizeMX_f16_e4m3fn(%meta, %b) {backend_config = "", api_version = 1 : i32} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<64x4xf16>) -> tuple<tensor<16x4xui32>, tensor<2x4xf8E8M0FNU>>
  // what legalize-scaled-matmul emits: the 7-slot dims metadata appended, the config passed through
  %m1 = hlo.constant (dense<0> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<1> : tensor<i64>, dense<3> : tensor<i64>, dense<3> : tensor<i64>, dense<32> : tensor<i64>)
  // CHECK-NEXT: %m1 = hlo.constant (dense<0> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<1> : tensor<i64>, dense<3> : tensor<i64>, dense<3> : tensor<i64>, dense<32> : tensor<i64>)
  %y0 = hlo.custom_call @ScaledMatmul_e5m2_e5m2_bf16(%bl, %br, %bls, %brs, %m1) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [0], \"rhs_batch_dimensions\": [0], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e5m2\"}}", api_version = 1 : i32} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<2x4x8xbf16>
  // CHECK-NEXT: %y0 = hlo.custom_call @ScaledMatmul_e5m2_e5m2_bf16(%bl, %br, %bls, %brs, %m1) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22lhs_contracting_dimensions\22: [2], \22rhs_contracting_dimensions\22: [1], \22element_dtype\22: \22float8_e5m2\22}}", api_version = 1 : i32} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<2x4x8xbf16>
  func.return
}

// CHECK-LABEL: func.func @other_targets(%a: tensor<4x64xbf16>) {
func.func @other_targets(%a: tensor<4x64xbf16>) {
  // targets without a registered contract are not checked
  %z0 = hlo.custom_call @my_backend_op(%a) {backend_config = "not json", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tensor<4x64xbf16>
  // CHECK-NEXT: %z0 = hlo.custom_call @my_backend_op(%a) {backend_config = "not json", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tensor<4x64xbf16>
  // QuantizeMX matches by exact name, the legalized targets by the prefix QuantizeMX_
  %z1 = hlo.custom_call @QuantizeMXv2(%a) {backend_config = "", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tensor<4x64xbf16>
  // CHECK-NEXT: %z1 = hlo.custom_call @QuantizeMXv2(%a) {backend_config = "", api_version = 1 : i32} : (tensor<4x64xbf16>) -> tensor<4x64xbf16>
  func.return
}
