// legalize-quantize-mx (spec §2): every custom call whose target is exactly QuantizeMX
// becomes QuantizeMX_{f16|bf16}_{e5m2|e4m3fn} with operands (metadata, input), the
// metadata a tuple constant (s64 shape of the input, normalized dim, block_size, 0), the
// result type unchanged, backend_config "" and api_version 1. Nothing else is touched.

// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p legalize-quantize-mx | filecheck %s
// Running the pass twice changes nothing more: a legalized call is not matched again.
// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics -p legalize-quantize-mx,legalize-quantize-mx | filecheck %s
// The contract requires block_size, so a call without one only reaches the pass with
// verification off; the DEFAULT run shows the pass's own default (32, spec §2.2).
// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics --disable-verify -p legalize-quantize-mx | filecheck %s --check-prefix=DEFAULT

// The four targets: bf16/f16 input (from the operand type) x e4m3fn/e5m2 (from dtype).

func.func @bf16_e4m3fn(%x: tensor<2x64xbf16>) -> tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>> {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<2x64xbf16>) -> tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>>
  func.return %q : tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>>
}

// CHECK-LABEL: func.func @bf16_e4m3fn(%x: tensor<2x64xbf16>)
// CHECK-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<[2, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %[[Q:[^ ]+]] = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%[[META]], %x)
// CHECK-SAME:        {backend_config = "", api_version = 1 : i32}
// CHECK-SAME:        : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<2x64xbf16>) -> tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>>
// CHECK-NEXT:    func.return %[[Q]] : tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>>

// -----

func.func @bf16_e5m2(%x: tensor<64x8xbf16>) -> tuple<tensor<16x8xui32>, tensor<2x8xf8E8M0FNU>> {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -2, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<64x8xbf16>) -> tuple<tensor<16x8xui32>, tensor<2x8xf8E8M0FNU>>
  func.return %q : tuple<tensor<16x8xui32>, tensor<2x8xf8E8M0FNU>>
}

// dim -2 on a rank-2 input is dim 0.
// CHECK-LABEL: func.func @bf16_e5m2(%x: tensor<64x8xbf16>)
// CHECK-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<[64, 8]> : tensor<2xi64>, dense<0> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %[[Q:[^ ]+]] = hlo.custom_call @QuantizeMX_bf16_e5m2(%[[META]], %x)
// CHECK-SAME:        {backend_config = "", api_version = 1 : i32}
// CHECK-SAME:        : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<64x8xbf16>) -> tuple<tensor<16x8xui32>, tensor<2x8xf8E8M0FNU>>
// CHECK-NEXT:    func.return %[[Q]]

// -----

func.func @f16_e4m3fn(%x: tensor<2x32xf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>> {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: 1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<2x32xf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  func.return %q : tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
}

// A positive dim is kept as written.
// CHECK-LABEL: func.func @f16_e4m3fn(%x: tensor<2x32xf16>)
// CHECK-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<[2, 32]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %[[Q:[^ ]+]] = hlo.custom_call @QuantizeMX_f16_e4m3fn(%[[META]], %x)
// CHECK-SAME:        {backend_config = "", api_version = 1 : i32}
// CHECK-SAME:        : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<2x32xf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
// CHECK-NEXT:    func.return %[[Q]]

// -----

func.func @f16_e5m2(%x: tensor<32x4xf16>) -> tuple<tensor<8x4xui32>, tensor<1x4xf8E8M0FNU>> {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: 0, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<32x4xf16>) -> tuple<tensor<8x4xui32>, tensor<1x4xf8E8M0FNU>>
  func.return %q : tuple<tensor<8x4xui32>, tensor<1x4xf8E8M0FNU>>
}

// CHECK-LABEL: func.func @f16_e5m2(%x: tensor<32x4xf16>)
// CHECK-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<[32, 4]> : tensor<2xi64>, dense<0> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %[[Q:[^ ]+]] = hlo.custom_call @QuantizeMX_f16_e5m2(%[[META]], %x)
// CHECK-SAME:        {backend_config = "", api_version = 1 : i32}
// CHECK-SAME:        : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<32x4xf16>) -> tuple<tensor<8x4xui32>, tensor<1x4xf8E8M0FNU>>
// CHECK-NEXT:    func.return %[[Q]]

// -----

// Rank 3: -1 -> 2 and -2 -> 1 (dim + rank); rank 1: -1 -> 0. The metadata shape list
// has one entry per input dimension.
func.func @normalize(%x: tensor<2x32x64xbf16>, %v: tensor<64xf16>) {
  %last = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}"} : (tensor<2x32x64xbf16>) -> tuple<tensor<2x32x16xui32>, tensor<2x32x2xf8E8M0FNU>>
  %second = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -2, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}"} : (tensor<2x32x64xbf16>) -> tuple<tensor<2x8x64xui32>, tensor<2x1x64xf8E8M0FNU>>
  %second_pos = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: 1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}"} : (tensor<2x32x64xbf16>) -> tuple<tensor<2x8x64xui32>, tensor<2x1x64xf8E8M0FNU>>
  %vec = hlo.custom_call @QuantizeMX(%v) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}"} : (tensor<64xf16>) -> tuple<tensor<16xui32>, tensor<2xf8E8M0FNU>>
  func.return
}

// CHECK-LABEL: func.func @normalize(
// CHECK-NEXT:    %[[M0:[^ ]+]] = hlo.constant (dense<[2, 32, 64]> : tensor<3xi64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %last = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%[[M0]], %x)
// CHECK-NEXT:    %[[M1:[^ ]+]] = hlo.constant (dense<[2, 32, 64]> : tensor<3xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %second = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%[[M1]], %x)
// CHECK-NEXT:    %[[M2:[^ ]+]] = hlo.constant (dense<[2, 32, 64]> : tensor<3xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %second_pos = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%[[M2]], %x)
// CHECK-NEXT:    %[[M3:[^ ]+]] = hlo.constant (dense<64> : tensor<1xi64>, dense<0> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %vec = hlo.custom_call @QuantizeMX_f16_e5m2(%[[M3]], %v)
// CHECK-SAME:        : (tuple<tensor<1xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<64xf16>) -> tuple<tensor<16xui32>, tensor<2xf8E8M0FNU>>
// CHECK-NEXT:    func.return

// -----

// Only the exact target QuantizeMX matches: near misses, other targets and calls the
// pass already legalized stay as they are (their backend_config is never read).
func.func @untouched(%x: tensor<2x32xbf16>, %l: tensor<2x8xui32>, %r: tensor<8x4xui32>, %ls: tensor<2x1xf8E8M0FNU>, %rs: tensor<1x4xf8E8M0FNU>) {
  %foo = hlo.custom_call @QuantizeMXFoo(%x) {backend_config = "not json"} : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  %lower = hlo.custom_call @quantizemx(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1}"} : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  %prefix = hlo.custom_call @QuantizeM(%x) : (tensor<2x32xbf16>) -> tensor<2x32xbf16>
  %meta = hlo.constant (dense<[2, 32]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %done = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = "", api_version = 1 : i32} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  %dot = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}"} : (tensor<2x8xui32>, tensor<8x4xui32>, tensor<2x1xf8E8M0FNU>, tensor<1x4xf8E8M0FNU>) -> tensor<2x4xf32>
  func.return
}

// CHECK-LABEL: func.func @untouched(
// CHECK-NEXT:    %foo = hlo.custom_call @QuantizeMXFoo(%x) {backend_config = "not json", api_version = 1 : i32}
// CHECK-NEXT:    %lower = hlo.custom_call @quantizemx(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1}", api_version = 1 : i32}
// CHECK-NEXT:    %prefix = hlo.custom_call @QuantizeM(%x)
// CHECK-NEXT:    %meta = hlo.constant (dense<[2, 32]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %done = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = "", api_version = 1 : i32}
// CHECK-NEXT:    %dot = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs)
// CHECK-NEXT:    func.return

// -----

// No block_size: the contract (verifier) rejects the call before the pass runs ...
func.func @default_block_size(%x: tensor<2x64xbf16>) -> tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>> {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -1, \22scale_method\22: \22EMAX\22}"} : (tensor<2x64xbf16>) -> tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>>
  func.return %q : tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>>
}

// CHECK: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: missing required field 'block_size'

// ... with --disable-verify the pass itself fills in block_size 32.
// DEFAULT-LABEL: func.func @default_block_size(%x: tensor<2x64xbf16>)
// DEFAULT-NEXT:    %[[META:[^ ]+]] = hlo.constant (dense<[2, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// DEFAULT-NEXT:    %[[Q:[^ ]+]] = hlo.custom_call @QuantizeMX_bf16_e5m2(%[[META]], %x) {backend_config = "", api_version = 1 : i32}
// DEFAULT-NEXT:    func.return %[[Q]]

// -----

// A call without dim is unreadable: the contract rejects it, and with verification off
// the pass refuses it with a diagnostic on the op (no traceback, no partial rewrite).
func.func @no_dim(%x: tensor<2x64xbf16>) -> tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>> {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}"} : (tensor<2x64xbf16>) -> tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>>
  func.return %q : tuple<tensor<2x16xui32>, tensor<2x2xf8E8M0FNU>>
}

// CHECK: legalize-quantize-mx.mlir:139:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: missing required field 'dim'
// DEFAULT: legalize-quantize-mx.mlir:139:3: error: 'hlo.custom_call' op legalize-quantize-mx: [MXQ02] QuantizeMX: missing required field 'dim'
