// import-stablehlo refuses, with a located MXS diagnostic (code, cause, resolution),
// what the Neuron MX contract cannot express; a call it can express but the contract
// rejects is reported by the contract's verifier on the imported call (MXD codes).

// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p import-stablehlo | filecheck %s
// RUN: not mx-opt %s --split-input-file -p import-stablehlo -o %t.out 2> %t.err
// RUN: not test -e %t.out
// RUN: filecheck %s --check-prefix=STDERR < %t.err

// MXS01: two different FP8 formats.
func.func @mixed(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E5M2>, %ls: tensor<1x4x2xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}"} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E5M2>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: import-errors.mlir:12:3: error: 'stablehlo.custom_call' op import-stablehlo: [MXS01] stablehlo.custom_call @__op$block_scaled_dot: lhs is f8E4M3FN and rhs is f8E5M2
// CHECK-NEXT: cause: The Neuron MX contract takes lhs and rhs of one FP8 format, float8_e4m3fn or float8_e5m2 (spec §4.2 element_dtype).
// CHECK-NEXT: resolution: Quantize both operands to f8E4M3FN or both to f8E5M2
// STDERR: import-errors.mlir:12:3: error: 'stablehlo.custom_call' op import-stablehlo: [MXS01]
// STDERR-NOT: Traceback

// -----

// MXS01: an element type outside e4m3fn / e5m2 (FP4).
func.func @fp4(%l: tensor<1x4x64xf4E2M1FN>, %r: tensor<1x8x64xf4E2M1FN>, %ls: tensor<1x4x2xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}"} : (tensor<1x4x64xf4E2M1FN>, tensor<1x8x64xf4E2M1FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'stablehlo.custom_call' op import-stablehlo: [MXS01] stablehlo.custom_call @__op$block_scaled_dot: lhs is f4E2M1FN and rhs is f4E2M1FN

// -----

// MXS02: NVFP4-style f8E4M3FN scales.
func.func @scale_type(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x4x2xf8E4M3FN>, %rs: tensor<1x8x2xf8E4M3FN>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}"} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E4M3FN>, tensor<1x8x2xf8E4M3FN>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'stablehlo.custom_call' op import-stablehlo: [MXS02] stablehlo.custom_call @__op$block_scaled_dot: lhs scale is tensor<1x4x2xf8E4M3FN>
// CHECK-NEXT: cause: The Neuron MX contract scales each 32-element block by one E8M0 exponent

// -----

// MXS03: a block size of 16 (4 scales over 64 elements).
func.func @block16(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x4x4xf8E8M0FNU>, %rs: tensor<1x8x4xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}"} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x4xf8E8M0FNU>, tensor<1x8x4xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'stablehlo.custom_call' op import-stablehlo: [MXS03] stablehlo.custom_call @__op$block_scaled_dot: lhs has a block size of 16 (64 elements, 4 scales)
// CHECK-NEXT: cause: The Neuron MX contract has block_size 32 only

// -----

// MXS03: scales that do not block the data along its last dim.
func.func @scale_shape(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x2x4xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}"} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x2x4xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'stablehlo.custom_call' op import-stablehlo: [MXS03] stablehlo.custom_call @__op$block_scaled_dot: lhs scale tensor<1x2x4xf8E8M0FNU> does not block tensor<1x4x64xf8E4M3FN> along its last dim

// -----

// MXS04: a composite contracting the rhs on a dim that is not its minor one.
func.func @not_minor_k(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x4x2xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.composite "xla.scaled_dot" %l, %r, %ls, %rs {composite_attributes = {dimension_numbers = [[[2], [1]], [[0], [0]]], preferred_element_type = f32}, decomposition = @none} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'stablehlo.composite' op import-stablehlo: [MXS04] stablehlo.composite "xla.scaled_dot": rhs contracts dims [1] of a rank-3 operand (the minor dim is 2)
// CHECK-NEXT: cause: The imported scaled dot must contract exactly one dim per side, the minor (last) dim

// -----

// MXS05: a backend_config that is not JSON.
func.func @not_json(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x4x2xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{oops"} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'stablehlo.custom_call' op import-stablehlo: [MXS05] stablehlo.custom_call @__op$block_scaled_dot: backend_config is not JSON (Expecting property name enclosed in double quotes)

// -----

// MXS05: no scaled_dot_backend_config object.
func.func @no_config(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x4x2xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {api_version = 2 : i32} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'stablehlo.custom_call' op import-stablehlo: [MXS05] stablehlo.custom_call @__op$block_scaled_dot: backend_config has no scaled_dot_backend_config object

// -----

// MXS05: a composite without dimension_numbers.
func.func @no_dims(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x4x2xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.composite "xla.scaled_dot" %l, %r, %ls, %rs {composite_attributes = {preferred_element_type = f32}, decomposition = @none} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'stablehlo.composite' op import-stablehlo: [MXS05] stablehlo.composite "xla.scaled_dot": composite_attributes has no dimension_numbers

// -----

// MXS06: an f16 result.
func.func @f16(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x4x2xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf16> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F16\22}}"} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf16>
  func.return %0 : tensor<1x4x8xf16>
}
// CHECK: error: 'stablehlo.custom_call' op import-stablehlo: [MXS06] stablehlo.custom_call @__op$block_scaled_dot: the result is tensor<1x4x8xf16>
// CHECK-NEXT: cause: The Neuron MX contract outputs F32 or BF16 only

// -----

// MXS06: dequantize_type and the result type disagree.
func.func @disagree(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x4x2xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22BF16\22}}"} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'stablehlo.custom_call' op import-stablehlo: [MXS06] stablehlo.custom_call @__op$block_scaled_dot: the dot dequantizes to BF16 but its result is tensor<1x4x8xf32>

// -----

// Expressible by import, rejected by the contract on the imported call: the batch
// lists differ in length (MXD07), at the original op's location.
func.func @batch_count(%l: tensor<1x4x64xf8E4M3FN>, %r: tensor<1x8x64xf8E4M3FN>, %ls: tensor<1x4x2xf8E8M0FNU>, %rs: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
  %0 = stablehlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [], \22dequantize_type\22: \22F32\22}}"} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
  func.return %0 : tensor<1x4x8xf32>
}
// CHECK: error: 'hlo.custom_call' op [MXD07] __op$block_scaled_dot:
