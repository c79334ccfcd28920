// The __op$block_scaled_dot contract (spec hlo-mx-legalization.txt sections 3.2, 4.2):
// 4 operands (lhs, rhs, lhs_scale, rhs_scale), the nested scaled_dot_backend_config,
// ui32 lhs/rhs of rank >= 2, an f32/bf16 result, element_dtype, batch and contracting
// dims, the E8M0 scale shapes and the result shape. One violation per chunk.
//
// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics | filecheck %s
// RUN: not mx-opt %s 2>&1 | filecheck %s --check-prefix=ERR
// ERR-NOT: Traceback
// ERR:     {{.*}}block_scaled_dot.mlir:14:3: error: 'hlo.custom_call' op [MXD01] __op$block_scaled_dot: got 3 operands
// ERR-NOT: Traceback

// MXD01: three operands (rhs_scale missing).
func.func @three_operands(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD01] __op$block_scaled_dot: got 3 operands
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul must have exactly 4 operands (lhs, rhs, lhs_scale, rhs_scale).
  // CHECK-NEXT: {{^}}  resolution: Pass the two packed MX tensors followed by their two E8M0 scale tensors.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD01: five operands (the metadata operand belongs to the legalized ScaledMatmul_*).
func.func @five_operands(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>, %meta: tensor<7xi64>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>, tensor<7xi64>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD01] __op$block_scaled_dot: got 5 operands
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul must have exactly 4 operands (lhs, rhs, lhs_scale, rhs_scale).
  // CHECK-NEXT: {{^}}  resolution: Pass the two packed MX tensors followed by their two E8M0 scale tensors.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale, %meta)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: backend_config is not JSON.
func.func @not_json(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "lhs_contracting_dimensions=1"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: backend_config is not valid JSON (Expecting value at character 0)
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: JSON, but not an object.
func.func @json_number(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "1"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: backend_config must be a JSON object, got number 1
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: the dimension numbers at the top level instead of under
// scaled_dot_backend_config.
func.func @flat_config(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: missing required field 'scaled_dot_backend_config'
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: scaled_dot_backend_config is a string, not an object.
func.func @inner_string(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": \"None\"}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: field 'scaled_dot_backend_config' must be an object, got "None"
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: required key lhs_contracting_dimensions missing.
func.func @missing_lhs_contracting_dimensions(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: missing required field 'lhs_contracting_dimensions'
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: required key rhs_contracting_dimensions missing.
func.func @missing_rhs_contracting_dimensions(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: missing required field 'rhs_contracting_dimensions'
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: required key element_dtype missing.
func.func @missing_element_dtype(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0]}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: missing required field 'element_dtype'
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: a dimension list that is a number.
func.func @dims_number(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": 0, \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: field 'rhs_contracting_dimensions' must be a list, got 0
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: a dimension list holding a non-integer.
func.func @dims_float(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1.0], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: field 'lhs_contracting_dimensions' must be a list of integers, got [1.0]
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: a dimension list holding a boolean.
func.func @dims_bool(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [false], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: field 'lhs_batch_dimensions' must be a list of integers, got [false]
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD02: element_dtype is not a string.
func.func @dtype_list(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": [\"float8_e4m3fn\"]}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD02] __op$block_scaled_dot: field 'element_dtype' must be a string, got ["float8_e4m3fn"]
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul backend_config is not valid JSON with a scaled_dot_backend_config object holding the dot dimension numbers and element_dtype.
  // CHECK-NEXT: {{^}}  resolution: Provide {"scaled_dot_backend_config": {"lhs_batch_dimensions": [...], "rhs_batch_dimensions": [...], "lhs_contracting_dimensions": [d], "rhs_contracting_dimensions": [d], "element_dtype": "float8_e4m3fn"}}.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD03: lhs is signless i32, not ui32.
func.func @lhs_i32(%lhs: tensor<4x16xi32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xi32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD03] __op$block_scaled_dot: lhs is tensor<4x16xi32>
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul LHS/RHS input type: only U32 (packed MX format from QuantizeMX) is supported.
  // CHECK-NEXT: {{^}}  resolution: Feed lhs and rhs from the data output (tuple element 0) of a QuantizeMX call.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD03: rhs is unpacked FP8, not x4-packed ui32.
func.func @rhs_fp8(%lhs: tensor<4x16xui32>, %rhs: tensor<64x8xf8E4M3FN>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<64x8xf8E4M3FN>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD03] __op$block_scaled_dot: rhs is tensor<64x8xf8E4M3FN>
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul LHS/RHS input type: only U32 (packed MX format from QuantizeMX) is supported.
  // CHECK-NEXT: {{^}}  resolution: Feed lhs and rhs from the data output (tuple element 0) of a QuantizeMX call.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD04: rank-1 lhs.
func.func @lhs_rank1(%lhs: tensor<16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [0], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<16xui32>, tensor<16x8xui32>, tensor<2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD04] __op$block_scaled_dot: lhs has rank 1
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul LHS and RHS must have rank at least 2.
  // CHECK-NEXT: {{^}}  resolution: Reshape the operands to at least [rows, packed K] before the scaled dot.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD04: rank-1 rhs.
func.func @rhs_rank1(%lhs: tensor<4x16xui32>, %rhs: tensor<16xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16xui32>, tensor<4x2xf8E8M0FNU>, tensor<2xf8E8M0FNU>) -> tensor<4xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD04] __op$block_scaled_dot: rhs has rank 1
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul LHS and RHS must have rank at least 2.
  // CHECK-NEXT: {{^}}  resolution: Reshape the operands to at least [rows, packed K] before the scaled dot.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD05: result tensor<4x8xf16> (only f32 and bf16).
func.func @result_f16(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf16>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD05] __op$block_scaled_dot: result is tensor<4x8xf16>
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul output type: only F32 and BF16 are supported.
  // CHECK-NEXT: {{^}}  resolution: Declare the result as tensor<...xf32> or tensor<...xbf16>.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD05: result tensor<4x8xi32> (only f32 and bf16).
func.func @result_i32(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xi32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD05] __op$block_scaled_dot: result is tensor<4x8xi32>
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul output type: only F32 and BF16 are supported.
  // CHECK-NEXT: {{^}}  resolution: Declare the result as tensor<...xf32> or tensor<...xbf16>.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD05: a tuple result.
func.func @result_tuple(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tuple<tensor<4x8xf32>>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD05] __op$block_scaled_dot: result is tuple<tensor<4x8xf32>>
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul output type: only F32 and BF16 are supported.
  // CHECK-NEXT: {{^}}  resolution: Declare the result as tensor<...xf32> or tensor<...xbf16>.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD06: element_dtype float8_e4m3.
func.func @element_dtype_float8_e4m3(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD06] __op$block_scaled_dot: element_dtype is 'float8_e4m3'
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul element_dtype: only 'float8_e4m3fn' and 'float8_e5m2' are supported.
  // CHECK-NEXT: {{^}}  resolution: Set element_dtype to the dtype both operands were quantized to (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD06: element_dtype float4_e2m1fn.
func.func @element_dtype_float4_e2m1fn(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float4_e2m1fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD06] __op$block_scaled_dot: element_dtype is 'float4_e2m1fn'
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul element_dtype: only 'float8_e4m3fn' and 'float8_e5m2' are supported.
  // CHECK-NEXT: {{^}}  resolution: Set element_dtype to the dtype both operands were quantized to (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD06: element_dtype float8_e8m0fnu.
func.func @element_dtype_float8_e8m0fnu(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e8m0fnu\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD06] __op$block_scaled_dot: element_dtype is 'float8_e8m0fnu'
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul element_dtype: only 'float8_e4m3fn' and 'float8_e5m2' are supported.
  // CHECK-NEXT: {{^}}  resolution: Set element_dtype to the dtype both operands were quantized to (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD07: one lhs batch dim, no rhs batch dim.
func.func @batch_count(%lhs: tensor<2x4x16xui32>, %rhs: tensor<2x16x8xui32>, %lhs_scale: tensor<2x4x2xf8E8M0FNU>, %rhs_scale: tensor<2x2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [0], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x2x8xf8E8M0FNU>) -> tensor<2x4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD07] __op$block_scaled_dot: lhs_batch_dimensions [0] and rhs_batch_dimensions [] differ in length
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul lhs and rhs must have the same number of batch dimensions, of equal sizes.
  // CHECK-NEXT: {{^}}  resolution: List one rhs batch dimension per lhs batch dimension, with matching sizes.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD07: batch dims of different sizes (2 vs 3).
func.func @batch_size(%lhs: tensor<2x4x16xui32>, %rhs: tensor<3x16x8xui32>, %lhs_scale: tensor<2x4x2xf8E8M0FNU>, %rhs_scale: tensor<3x2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [0], \"rhs_batch_dimensions\": [0], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<2x4x16xui32>, tensor<3x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<3x2x8xf8E8M0FNU>) -> tensor<2x4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD07] __op$block_scaled_dot: lhs batch dim 0 has size 2, rhs batch dim 0 has size 3
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul lhs and rhs must have the same number of batch dimensions, of equal sizes.
  // CHECK-NEXT: {{^}}  resolution: List one rhs batch dimension per lhs batch dimension, with matching sizes.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD08: two contracting dims per side (exactly one is supported).
func.func @contract_two(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [0, 1], \"rhs_contracting_dimensions\": [0, 1], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD08] __op$block_scaled_dot: contracting dimensions are [0, 1] x [0, 1]; exactly one per side is supported
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul requires the same contract dim and size for lhs and rhs: exactly one contracting dimension on each side, of equal (unpacked) size.
  // CHECK-NEXT: {{^}}  resolution: Contract over the dimension both operands were quantized along.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD08: no contracting dim.
func.func @contract_none(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [], \"rhs_contracting_dimensions\": [], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD08] __op$block_scaled_dot: contracting dimensions are [] x []; exactly one per side is supported
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul requires the same contract dim and size for lhs and rhs: exactly one contracting dimension on each side, of equal (unpacked) size.
  // CHECK-NEXT: {{^}}  resolution: Contract over the dimension both operands were quantized along.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD08: lhs contracts 64 elements, rhs 32.
func.func @contract_size(%lhs: tensor<4x16xui32>, %rhs: tensor<8x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<1x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<8x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<1x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD08] __op$block_scaled_dot: lhs contracts 64 elements (dim 1), rhs 32 (dim 0)
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul requires the same contract dim and size for lhs and rhs: exactly one contracting dimension on each side, of equal (unpacked) size.
  // CHECK-NEXT: {{^}}  resolution: Contract over the dimension both operands were quantized along.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD09: lhs dim 2 is both batch and contracting.
func.func @overlap_lhs(%lhs: tensor<2x4x16xui32>, %rhs: tensor<2x16x8xui32>, %lhs_scale: tensor<2x4x2xf8E8M0FNU>, %rhs_scale: tensor<2x2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [2], \"rhs_batch_dimensions\": [0], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x2x8xf8E8M0FNU>) -> tensor<2x4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD09] __op$block_scaled_dot: lhs dimension 2 is both a batch and a contracting dimension
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul contracting and batch dimensions must not overlap.
  // CHECK-NEXT: {{^}}  resolution: Remove the contracting dimension from the batch dimension list.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD09: rhs dim 0 is both batch and contracting.
func.func @overlap_rhs(%lhs: tensor<2x4x16xui32>, %rhs: tensor<2x16x8xui32>, %lhs_scale: tensor<2x4x2xf8E8M0FNU>, %rhs_scale: tensor<2x2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [0], \"rhs_batch_dimensions\": [0], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x2x8xf8E8M0FNU>) -> tensor<2x4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD09] __op$block_scaled_dot: rhs dimension 0 is both a batch and a contracting dimension
  // CHECK-NEXT: {{^}}  cause: ScaledMatmul contracting and batch dimensions must not overlap.
  // CHECK-NEXT: {{^}}  resolution: Remove the contracting dimension from the batch dimension list.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD10: lhs contracting dim 2 of a rank-2 lhs.
func.func @oob_contract(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD10] __op$block_scaled_dot: lhs contracting dimension 2 is out of bounds for rank 2
  // CHECK-NEXT: {{^}}  cause: A ScaledMatmul batch or contracting dimension is out of bounds for the operand's rank.
  // CHECK-NEXT: {{^}}  resolution: Use dimension indices in [0, rank).
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD10: negative rhs batch dim (dims are not folded here).
func.func @oob_batch(%lhs: tensor<2x4x16xui32>, %rhs: tensor<2x16x8xui32>, %lhs_scale: tensor<2x4x2xf8E8M0FNU>, %rhs_scale: tensor<2x2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [0], \"rhs_batch_dimensions\": [-3], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x2x8xf8E8M0FNU>) -> tensor<2x4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD10] __op$block_scaled_dot: rhs batch dimension -3 is out of bounds for rank 3
  // CHECK-NEXT: {{^}}  cause: A ScaledMatmul batch or contracting dimension is out of bounds for the operand's rank.
  // CHECK-NEXT: {{^}}  resolution: Use dimension indices in [0, rank).
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD11: lhs_scale is ui8, not f8E8M0FNU.
func.func @scale_ui8(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xui8>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xui8>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD11] __op$block_scaled_dot: lhs_scale is tensor<4x2xui8>, expected tensor<4x2xf8E8M0FNU>
  // CHECK-NEXT: {{^}}  cause: A ScaledMatmul scale must be f8E8M0FNU with the data shape, the contracting dimension divided by 8 (32 elements = 8 packed ui32 words per scale).
  // CHECK-NEXT: {{^}}  resolution: Pass the scale output (tuple element 1) of the QuantizeMX that produced the data.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD11: rhs_scale divides K by 4 (words) instead of 8 (one scale per 8 ui32 words).
func.func @scale_shape(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<4x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<4x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD11] __op$block_scaled_dot: rhs_scale is tensor<4x8xf8E8M0FNU>, expected tensor<2x8xf8E8M0FNU>
  // CHECK-NEXT: {{^}}  cause: A ScaledMatmul scale must be f8E8M0FNU with the data shape, the contracting dimension divided by 8 (32 elements = 8 packed ui32 words per scale).
  // CHECK-NEXT: {{^}}  resolution: Pass the scale output (tuple element 1) of the QuantizeMX that produced the data.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD11: scales bound positionally: lhs_scale and rhs_scale swapped.
func.func @scales_swapped(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<2x8xf8E8M0FNU>, %rhs_scale: tensor<4x2xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<2x8xf8E8M0FNU>, tensor<4x2xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD11] __op$block_scaled_dot: lhs_scale is tensor<2x8xf8E8M0FNU>, expected tensor<4x2xf8E8M0FNU>
  // CHECK-NEXT: {{^}}  cause: A ScaledMatmul scale must be f8E8M0FNU with the data shape, the contracting dimension divided by 8 (32 elements = 8 packed ui32 words per scale).
  // CHECK-NEXT: {{^}}  resolution: Pass the scale output (tuple element 1) of the QuantizeMX that produced the data.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD11: K of 16 elements is not a whole 32-element block.
func.func @scale_partial_block(%lhs: tensor<4x4xui32>, %rhs: tensor<4x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x4xui32>, tensor<4x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD11] __op$block_scaled_dot: lhs contracts 16 elements, not a multiple of 32
  // CHECK-NEXT: {{^}}  cause: A ScaledMatmul scale must be f8E8M0FNU with the data shape, the contracting dimension divided by 8 (32 elements = 8 packed ui32 words per scale).
  // CHECK-NEXT: {{^}}  resolution: Pass the scale output (tuple element 1) of the QuantizeMX that produced the data.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD11: a batched scale without its batch dim.
func.func @scale_batch(%lhs: tensor<2x4x16xui32>, %rhs: tensor<2x16x8xui32>, %lhs_scale: tensor<2x4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [0], \"rhs_batch_dimensions\": [0], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<2x4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD11] __op$block_scaled_dot: rhs_scale is tensor<2x8xf8E8M0FNU>, expected tensor<2x2x8xf8E8M0FNU>
  // CHECK-NEXT: {{^}}  cause: A ScaledMatmul scale must be f8E8M0FNU with the data shape, the contracting dimension divided by 8 (32 elements = 8 packed ui32 words per scale).
  // CHECK-NEXT: {{^}}  resolution: Pass the scale output (tuple element 1) of the QuantizeMX that produced the data.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD12: result shape transposed.
func.func @result_transposed(%lhs: tensor<4x16xui32>, %rhs: tensor<16x8xui32>, %lhs_scale: tensor<4x2xf8E8M0FNU>, %rhs_scale: tensor<2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [], \"rhs_batch_dimensions\": [], \"lhs_contracting_dimensions\": [1], \"rhs_contracting_dimensions\": [0], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<4x16xui32>, tensor<16x8xui32>, tensor<4x2xf8E8M0FNU>, tensor<2x8xf8E8M0FNU>) -> tensor<8x4xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD12] __op$block_scaled_dot: result shape is [8, 4], expected [4, 8]
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul result shape must be the batch dims, then the lhs free dims, then the rhs free dims.
  // CHECK-NEXT: {{^}}  resolution: Fix the declared result shape.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXD12: batched result without the batch dim.
func.func @result_no_batch(%lhs: tensor<2x4x16xui32>, %rhs: tensor<2x16x8xui32>, %lhs_scale: tensor<2x4x2xf8E8M0FNU>, %rhs_scale: tensor<2x2x8xf8E8M0FNU>) {
  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale) {backend_config = "{\"scaled_dot_backend_config\": {\"lhs_batch_dimensions\": [0], \"rhs_batch_dimensions\": [0], \"lhs_contracting_dimensions\": [2], \"rhs_contracting_dimensions\": [1], \"element_dtype\": \"float8_e4m3fn\"}}"} : (tensor<2x4x16xui32>, tensor<2x16x8xui32>, tensor<2x4x2xf8E8M0FNU>, tensor<2x2x8xf8E8M0FNU>) -> tensor<4x8xf32>
  // CHECK:      {{.*}}block_scaled_dot.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXD12] __op$block_scaled_dot: result shape is [4, 8], expected [2, 4, 8]
  // CHECK-NEXT: {{^}}  cause: The ScaledMatmul result shape must be the batch dims, then the lhs free dims, then the rhs free dims.
  // CHECK-NEXT: {{^}}  resolution: Fix the declared result shape.
  // CHECK-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(%lhs, %rhs, %lhs_scale, %rhs_scale)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}
