// The legalized targets QuantizeMX_{f16|bf16}_{e5m2|e4m3fn} and
// ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16} (spec hlo-mx-legalization.txt
// sections 2.3-2.5, 3.2-3.4) are checked against the same contract as the frontend calls,
// plus their own: the name is one of the eight (MXL01), the metadata operand has the
// slot layout and values the legalization builds (MXL02), and the dtype tags in the name
// agree with the types and backend_config (MXL03). One violation per chunk.
//
// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics | filecheck %s
// RUN: not mx-opt %s 2>&1 | filecheck %s --check-prefix=ERR
// ERR-NOT: Traceback
// ERR:     {{.*}}legalized_targets.mlir:17:3: error: 'hlo.custom_call' op [MXL01] QuantizeMX_f32_e4m3fn: not a legalized target
// ERR-NOT: Traceback

// MXL01: QuantizeMX_f32_e4m3fn is not one of the four legalized quantize targets.
func.func @quantizemx_f32_e4m3fn(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_f32_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL01] QuantizeMX_f32_e4m3fn: not a legalized target
  // CHECK-NEXT: {{^}}  cause: Unknown legalized MX target: the legalizations only emit QuantizeMX_{f16|bf16}_{e5m2|e4m3fn} and ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16}.
  // CHECK-NEXT: {{^}}  resolution: Use one of the eight legalized target names, or the frontend targets QuantizeMX / __op$block_scaled_dot.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_f32_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL01: QuantizeMX_bf16_e4m3 is not one of the four legalized quantize targets.
func.func @quantizemx_bf16_e4m3(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL01] QuantizeMX_bf16_e4m3: not a legalized target
  // CHECK-NEXT: {{^}}  cause: Unknown legalized MX target: the legalizations only emit QuantizeMX_{f16|bf16}_{e5m2|e4m3fn} and ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16}.
  // CHECK-NEXT: {{^}}  resolution: Use one of the eight legalized target names, or the frontend targets QuantizeMX / __op$block_scaled_dot.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL01: ScaledMatmul_e4m3fn_e5m2_f32 is not one of the four legalized matmul targets.
func.func @scaledmatmul_e4m3fn_e5m2_f32(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e5m2_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL01] ScaledMatmul_e4m3fn_e5m2_f32: not a legalized target
  // CHECK-NEXT: {{^}}  cause: Unknown legalized MX target: the legalizations only emit QuantizeMX_{f16|bf16}_{e5m2|e4m3fn} and ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16}.
  // CHECK-NEXT: {{^}}  resolution: Use one of the eight legalized target names, or the frontend targets QuantizeMX / __op$block_scaled_dot.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e5m2_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL01: ScaledMatmul_e5m2_e5m2_f16 is not one of the four legalized matmul targets.
func.func @scaledmatmul_e5m2_e5m2_f16(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e5m2_e5m2_f16(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL01] ScaledMatmul_e5m2_e5m2_f16: not a legalized target
  // CHECK-NEXT: {{^}}  cause: Unknown legalized MX target: the legalizations only emit QuantizeMX_{f16|bf16}_{e5m2|e4m3fn} and ScaledMatmul_{e4m3fn_e4m3fn|e5m2_e5m2}_{f32|bf16}.
  // CHECK-NEXT: {{^}}  resolution: Use one of the eight legalized target names, or the frontend targets QuantizeMX / __op$block_scaled_dot.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e5m2_e5m2_f16(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: the shape slot has rank 3 for a rank-2 input.
func.func @meta_rank(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[1, 4, 64]> : tensor<3xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<3xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] QuantizeMX_bf16_e4m3fn: metadata operand is tuple<tensor<3xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, expected tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: three slots, the trailing 0 missing.
func.func @meta_three_slots(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] QuantizeMX_bf16_e4m3fn: metadata operand is tuple<tensor<2xi64>, tensor<i64>, tensor<i64>>, expected tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: a flat tensor instead of the tuple literal.
func.func @meta_flat(%meta: tensor<5xi64>, %x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tensor<5xi64>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] QuantizeMX_bf16_e4m3fn: metadata operand is tensor<5xi64>, expected tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: the shape slot is not the input shape.
func.func @meta_shape(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[4, 32]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] QuantizeMX_bf16_e4m3fn: metadata is ([4, 32], 1, 32, 0), expected ([4, 64], 1, 32, 0)
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: the block-size slot is 16.
func.func @meta_block(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<16> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] QuantizeMX_bf16_e4m3fn: metadata is ([4, 64], 1, 16, 0), expected ([4, 64], 1, 32, 0)
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: the trailing slot is not 0.
func.func @meta_trailing(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<1> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] QuantizeMX_bf16_e4m3fn: metadata is ([4, 64], 1, 32, 1), expected ([4, 64], 1, 32, 0)
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: the dim slot holds the unfolded -1 (the legalization folds dim < 0).
func.func @meta_dim_negative(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<-1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] QuantizeMX_bf16_e4m3fn: metadata dim -1 is not normalized
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ11 through QuantizeMX_*: the dim slot says 0 but the data output packs dim 1.
func.func @meta_dim_mismatch(%x: tensor<64x64xbf16>) {
  %meta = hlo.constant (dense<[64, 64]> : tensor<2xi64>, dense<0> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<64x64xbf16>) -> tuple<tensor<64x16xui32>, tensor<64x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ11] QuantizeMX_bf16_e4m3fn: data output is tensor<64x16xui32>, expected tensor<16x64xui32>
  // CHECK-NEXT: {{^}}  cause: The quantized data output must be ui32 (x4-packed FP8) with the quantized dimension divided by 4 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 0 as tensor<...xui32> with the quantized dim / 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ07 through QuantizeMX_*: the dim slot is out of range.
func.func @meta_dim_oob(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ07] QuantizeMX_bf16_e4m3fn: dim is 2 for a rank-2 input; supported: last dim (1 or -1) or second-to-last dim (0 or -2)
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dim: only the last dim (rank-1 or -1) or the second-to-last dim (rank-2 or -2) is supported.
  // CHECK-NEXT: {{^}}  resolution: Quantize along the last or second-to-last dimension; transpose the input first to bring the quantized dimension there.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ03 through QuantizeMX_*: an f32 input.
func.func @legalized_f32_input(%x: tensor<4x64xf32>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xf32>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ03] QuantizeMX_bf16_e4m3fn: input type is tensor<4x64xf32>
  // CHECK-NEXT: {{^}}  cause: QuantizeMX input element type: only BF16 and F16 are supported.
  // CHECK-NEXT: {{^}}  resolution: Convert the input to bf16 or f16 (hlo.convert) before QuantizeMX.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ01 through QuantizeMX_*: the metadata operand missing.
func.func @legalized_no_meta(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX_bf16_e5m2(%x) {backend_config = ""} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ01] QuantizeMX_bf16_e5m2: got 1 operand, expected 2 (metadata, input)
  // CHECK-NEXT: {{^}}  cause: QuantizeMX takes exactly one operand (the BF16/F16 tensor to quantize).
  // CHECK-NEXT: {{^}}  resolution: Pass the activation or weight tensor as the only operand.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e5m2(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL03: the name says f16 input, the input is bf16.
func.func @name_f16_input_bf16(%x: tensor<4x64xbf16>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_f16_e5m2(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL03] QuantizeMX_f16_e5m2: target name says f16 input but the input is tensor<4x64xbf16>
  // CHECK-NEXT: {{^}}  cause: The dtype tags in a legalized target name do not match its operand, result or backend_config types.
  // CHECK-NEXT: {{^}}  resolution: Use the target name the legalization derives from the types.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_f16_e5m2(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL03: the name says bf16 input, the input is f16.
func.func @name_bf16_input_f16(%x: tensor<4x64xf16>) {
  %meta = hlo.constant (dense<[4, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x) {backend_config = ""} : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<4x64xf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL03] QuantizeMX_bf16_e4m3fn: target name says bf16 input but the input is tensor<4x64xf16>
  // CHECK-NEXT: {{^}}  cause: The dtype tags in a legalized target name do not match its operand, result or backend_config types.
  // CHECK-NEXT: {{^}}  resolution: Use the target name the legalization derives from the types.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%meta, %x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL03: the name says e5m2, backend_config element_dtype says e4m3fn.
func.func @name_e5m2_config_e4m3fn(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e5m2_e5m2_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL03] ScaledMatmul_e5m2_e5m2_f32: target name says float8_e5m2 but backend_config element_dtype is 'float8_e4m3fn'
  // CHECK-NEXT: {{^}}  cause: The dtype tags in a legalized target name do not match its operand, result or backend_config types.
  // CHECK-NEXT: {{^}}  resolution: Use the target name the legalization derives from the types.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e5m2_e5m2_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL03: the name says f32, the result is bf16.
func.func @name_f32_result_bf16(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x8xbf16>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL03] ScaledMatmul_e4m3fn_e4m3fn_f32: target name and result type tensor<4x8xbf16> disagree
  // CHECK-NEXT: {{^}}  cause: The dtype tags in a legalized target name do not match its operand, result or backend_config types.
  // CHECK-NEXT: {{^}}  resolution: Use the target name the legalization derives from the types.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: six metadata slots instead of seven.
func.func @sm_meta_six(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] ScaledMatmul_e4m3fn_e4m3fn_f32: metadata operand is tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>, expected tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: contracting-dim slots swapped.
func.func @sm_meta_contract(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<0> : tensor<i64>, dense<1> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] ScaledMatmul_e4m3fn_e4m3fn_f32: metadata is (-1, -1, 0, 1, 2, 2, 32), expected (-1, -1, 1, 0, 2, 2, 32)
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: no batch dim, but the batch slots say 0.
func.func @sm_meta_batch(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<0> : tensor<i64>, dense<0> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] ScaledMatmul_e4m3fn_e4m3fn_f32: metadata is (0, 0, 1, 0, 2, 2, 32), expected (-1, -1, 1, 0, 2, 2, 32)
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXL02: two batch dims do not fit the one batch slot pair.
func.func @sm_two_batch(%lhs: tensor<2x3x4x16xui32>, %rhs: tensor<2x3x16x8xui32>, %lhs_scale: tensor<2x3x4x2xf8E8M0FNU>, %rhs_scale: tensor<2x3x2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<0> : tensor<i64>, dense<0> : tensor<i64>, dense<3> : tensor<i64>, dense<2> : tensor<i64>, dense<4> : tensor<i64>, dense<4> : tensor<i64>, dense<32> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [0, 1], \"rhs_batch_dimensions\": [0, 1], \"lhs_contracting_dimensions\": [3], \"rhs_contracting_dimensions\": [2], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<2x3x4x16xui32>, tensor<2x3x16x8xui32>, tensor<2x3x4x2xf8E8M0FNU>, tensor<2x3x2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<2x3x4x8xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXL02] ScaledMatmul_e4m3fn_e4m3fn_f32: 2 batch dimensions; the metadata holds one
  // CHECK-NEXT: {{^}}  cause: The metadata operand of a legalized MX target does not match its data operands (see docs/contract.md for the slot layouts).
  // CHECK-NEXT: {{^}}  resolution: Run legalize-quantize-mx / legalize-scaled-matmul instead of writing the legalized call by hand, or fix the metadata constant.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD01 through ScaledMatmul_*: the metadata operand missing.
func.func @sm_no_meta(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD01] ScaledMatmul_e4m3fn_e4m3fn_f32: got 4 operands, expected 5 (lhs, rhs, lhs_scale, rhs_scale, metadata)
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul must have exactly 4 operands (lhs, rhs, lhs_scale, rhs_scale).
  // CHECK-NEXT: {{^}}  resolution: Pass the two packed MX tensors followed by their two E8M0 scale tensors.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02 through ScaledMatmul_*: the backend_config is passed through and still checked.
func.func @sm_empty_config(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = ""} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] ScaledMatmul_e4m3fn_e4m3fn_f32: backend_config is not valid JSON (Expecting value at character 0)
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD12 through ScaledMatmul_*: the result shape.
func.func @sm_result_shape(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %meta = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tuple<tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>>) -> tensor<4x4xf32>
  // CHECK:      {{.*}}legalized_targets.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD12] ScaledMatmul_e4m3fn_e4m3fn_f32: result shape is [4, 4], expected [4, 8]
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul result shape must be the batch dims, then the lhs free dims, then the rhs free dims.
  // CHECK-NEXT: {{^}}  resolution: Fix the declared result shape.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}
