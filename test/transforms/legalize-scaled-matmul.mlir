// legalize-scaled-matmul (spec §3): every custom call whose target is exactly
// __op$block_scaled_dot becomes ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16} with
// operands (lhs, rhs, lhs_scale, rhs_scale, metadata), the result type unchanged, the
// backend_config passed through and api_version 1. The metadata is a tuple of 7 s64
// scalars (our documented slot order, docs/passes.md): lhs batch dim, rhs batch dim
// (-1 when none), lhs contracting dim, rhs contracting dim, lhs rank, rhs rank, 32.

// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p legalize-scaled-matmul | filecheck %s
// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p legalize-scaled-matmul,legalize-scaled-matmul | filecheck %s
// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics --disable-verify -p legalize-scaled-matmul | filecheck %s --check-prefix=NOVERIFY

// The four targets: element_dtype (backend_config) x result element type (f32 / bf16).

func.func @e4m3fn_f32(%l: tensor<4x8xui32>, %r: tensor<8x16xui32>, %ls: tensor<4x1xf8E8M0FNU>, %rs: tensor<1x16xf8E8M0FNU>) -> tensor<4x16xf32> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<4x8xui32>, tensor<8x16xui32>, tensor<4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @e4m3fn_f32(
// CHECK-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
// CHECK-NEXT:    %[[Y:[^ ]+]] = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%l, %r, %ls, %rs, %[[META]])
// CHECK-SAME:        {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32}
// CHECK-SAME:        : (tensor<4x8xui32>, tensor<8x16xui32>, tensor<4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x16xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x16xf32>

// -----

// rhs transposed (contracting dim 1 on both sides); an api_version other than 1 on the
// frontend call still gives api_version 1.
func.func @e4m3fn_bf16(%l: tensor<4x8xui32>, %r: tensor<16x8xui32>, %ls: tensor<4x1xf8E8M0FNU>, %rs: tensor<16x1xf8E8M0FNU>) -> tensor<4x16xbf16> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [1], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 2 : i32} : (tensor<4x8xui32>, tensor<16x8xui32>, tensor<4x1xf8E8M0FNU>, tensor<16x1xf8E8M0FNU>) -> tensor<4x16xbf16>
  func.return %y : tensor<4x16xbf16>
}

// CHECK-LABEL: func.func @e4m3fn_bf16(
// CHECK-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<1> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
// CHECK-NEXT:    %[[Y:[^ ]+]] = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_bf16(%l, %r, %ls, %rs, %[[META]])
// CHECK-SAME:        {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [1], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32}
// CHECK-SAME:        -> tensor<4x16xbf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x16xbf16>

// -----

// One batch dimension, in front on both sides.
func.func @e5m2_f32(%l: tensor<3x4x8xui32>, %r: tensor<3x8x16xui32>, %ls: tensor<3x4x1xf8E8M0FNU>, %rs: tensor<3x1x16xf8E8M0FNU>) -> tensor<3x4x16xf32> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22lhs_contracting_dimensions\22: [2], \22rhs_contracting_dimensions\22: [1], \22element_dtype\22: \22float8_e5m2\22}}"} : (tensor<3x4x8xui32>, tensor<3x8x16xui32>, tensor<3x4x1xf8E8M0FNU>, tensor<3x1x16xf8E8M0FNU>) -> tensor<3x4x16xf32>
  func.return %y : tensor<3x4x16xf32>
}

// CHECK-LABEL: func.func @e5m2_f32(
// CHECK-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<0> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<1> : tensor<i64>, dense<3> : tensor<i64>, dense<3> : tensor<i64>, dense<32> : tensor<i64>)
// CHECK-NEXT:    %[[Y:[^ ]+]] = hlo.custom_call @ScaledMatmul_e5m2_e5m2_f32(%l, %r, %ls, %rs, %[[META]])
// CHECK-SAME:        {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22lhs_contracting_dimensions\22: [2], \22rhs_contracting_dimensions\22: [1], \22element_dtype\22: \22float8_e5m2\22}}", api_version = 1 : i32}
// CHECK-SAME:        : (tensor<3x4x8xui32>, tensor<3x8x16xui32>, tensor<3x4x1xf8E8M0FNU>, tensor<3x1x16xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<3x4x16xf32>
// CHECK-NEXT:    func.return %[[Y]]

// -----

// The batch dimension at a different place on each side.
func.func @e5m2_bf16(%l: tensor<4x3x8xui32>, %r: tensor<8x16x3xui32>, %ls: tensor<4x3x1xf8E8M0FNU>, %rs: tensor<1x16x3xf8E8M0FNU>) -> tensor<3x4x16xbf16> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [1], \22rhs_batch_dimensions\22: [2], \22lhs_contracting_dimensions\22: [2], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e5m2\22}}"} : (tensor<4x3x8xui32>, tensor<8x16x3xui32>, tensor<4x3x1xf8E8M0FNU>, tensor<1x16x3xf8E8M0FNU>) -> tensor<3x4x16xbf16>
  func.return %y : tensor<3x4x16xbf16>
}

// CHECK-LABEL: func.func @e5m2_bf16(
// CHECK-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<1> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<0> : tensor<i64>, dense<3> : tensor<i64>, dense<3> : tensor<i64>, dense<32> : tensor<i64>)
// CHECK-NEXT:    %[[Y:[^ ]+]] = hlo.custom_call @ScaledMatmul_e5m2_e5m2_bf16(%l, %r, %ls, %rs, %[[META]])
// CHECK-SAME:        {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [1], \22rhs_batch_dimensions\22: [2], \22lhs_contracting_dimensions\22: [2], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e5m2\22}}", api_version = 1 : i32}
// CHECK-SAME:        -> tensor<3x4x16xbf16>
// CHECK-NEXT:    func.return %[[Y]]

// -----

// Different ranks, no batch dimension: the rank slots differ.
func.func @ranks(%l: tensor<2x4x8xui32>, %r: tensor<8x16xui32>, %ls: tensor<2x4x1xf8E8M0FNU>, %rs: tensor<1x16xf8E8M0FNU>) -> tensor<2x4x16xf32> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [2], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}"} : (tensor<2x4x8xui32>, tensor<8x16xui32>, tensor<2x4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>) -> tensor<2x4x16xf32>
  func.return %y : tensor<2x4x16xf32>
}

// CHECK-LABEL: func.func @ranks(
// CHECK-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<2> : tensor<i64>, dense<0> : tensor<i64>, dense<3> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
// CHECK-NEXT:    %{{[^ ]+}} = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%l, %r, %ls, %rs, %[[META]])

// -----

// Only the exact target __op$block_scaled_dot matches. "ScaledMatmul" is the output
// prefix, never an input target (spec §3.1); legalized calls are not matched again.
func.func @untouched(%l: tensor<4x8xui32>, %r: tensor<8x16xui32>, %ls: tensor<4x1xf8E8M0FNU>, %rs: tensor<1x16xf8E8M0FNU>, %x: tensor<2x32xbf16>) {
  %v2 = hlo.custom_call @__op$block_scaled_dot_v2(%l, %r, %ls, %rs) {backend_config = "not json"} : (tensor<4x8xui32>, tensor<8x16xui32>, tensor<4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>) -> tensor<4x16xf32>
  %bare = hlo.custom_call @block_scaled_dot(%l, %r, %ls, %rs) : (tensor<4x8xui32>, tensor<8x16xui32>, tensor<4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>) -> tensor<4x16xf32>
  %name = hlo.custom_call @ScaledMatmul(%l, %r, %ls, %rs) : (tensor<4x8xui32>, tensor<8x16xui32>, tensor<4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>) -> tensor<4x16xf32>
  %meta = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
  %done = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%l, %r, %ls, %rs, %meta) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}"} : (tensor<4x8xui32>, tensor<8x16xui32>, tensor<4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x16xf32>
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}"} : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  func.return
}

// CHECK-LABEL: func.func @untouched(
// CHECK-NEXT:    %v2 = hlo.custom_call @__op$block_scaled_dot_v2(%l, %r, %ls, %rs) {backend_config = "not json", api_version = 1 : i32}
// CHECK-NEXT:    %bare = hlo.custom_call @block_scaled_dot(%l, %r, %ls, %rs)
// CHECK-NEXT:    %name = hlo.custom_call @ScaledMatmul(%l, %r, %ls, %rs)
// CHECK-NEXT:    %meta = hlo.constant
// CHECK-NEXT:    %done = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%l, %r, %ls, %rs, %meta)
// CHECK-NEXT:    %q = hlo.custom_call @QuantizeMX(%x)
// CHECK-NEXT:    func.return

// -----

// Two batch dimensions do not fit the 7 metadata slots: the contract accepts the call,
// the pass refuses it with a diagnostic on the op.
func.func @two_batch_dims(%l: tensor<2x3x4x8xui32>, %r: tensor<2x3x8x16xui32>, %ls: tensor<2x3x4x1xf8E8M0FNU>, %rs: tensor<2x3x1x16xf8E8M0FNU>) -> tensor<2x3x4x16xf32> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0, 1], \22rhs_batch_dimensions\22: [0, 1], \22lhs_contracting_dimensions\22: [3], \22rhs_contracting_dimensions\22: [2], \22element_dtype\22: \22float8_e5m2\22}}"} : (tensor<2x3x4x8xui32>, tensor<2x3x8x16xui32>, tensor<2x3x4x1xf8E8M0FNU>, tensor<2x3x1x16xf8E8M0FNU>) -> tensor<2x3x4x16xf32>
  func.return %y : tensor<2x3x4x16xf32>
}

// CHECK: legalize-scaled-matmul.mlir:112:3: error: 'hlo.custom_call' op legalize-scaled-matmul: the ScaledMatmul metadata holds at most one batch dimension, got lhs_batch_dimensions [0, 1]; reshape the batch dimensions into one before the scaled dot
// CHECK-NEXT: %y = hlo.custom_call @__op$block_scaled_dot(

// -----

// Without a contracting dimension the contract rejects the call; with verification off
// the pass refuses it (the metadata holds exactly one per side).
func.func @no_contracting_dim(%l: tensor<4x8xui32>, %r: tensor<8x16xui32>, %ls: tensor<4x1xf8E8M0FNU>, %rs: tensor<1x16xf8E8M0FNU>) -> tensor<4x8x8x16xf32> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_contracting_dimensions\22: [], \22rhs_contracting_dimensions\22: [], \22element_dtype\22: \22float8_e5m2\22}}"} : (tensor<4x8xui32>, tensor<8x16xui32>, tensor<4x1xf8E8M0FNU>, tensor<1x16xf8E8M0FNU>) -> tensor<4x8x8x16xf32>
  func.return %y : tensor<4x8x8x16xf32>
}

// CHECK: legalize-scaled-matmul.mlir:124:3: error: 'hlo.custom_call' op [MXD08]
// NOVERIFY: legalize-scaled-matmul.mlir:124:3: error: 'hlo.custom_call' op legalize-scaled-matmul: the ScaledMatmul metadata holds exactly one contracting dimension per side, got lhs_contracting_dimensions []
