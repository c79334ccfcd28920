// The QuantizeMX backend_config (spec hlo-mx-legalization.txt section 4.1): valid JSON,
// an object, the required fields dtype, dim, block_size, scale_method with the right
// JSON types and the values the OCP MX contract allows; and the operand count.
// One violation per chunk; each shows the code, detail, cause, resolution and the
// located source line.
//
// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics | filecheck %s
//
// Without --verify-diagnostics the first violation fails the run (exit 1, no traceback):
// RUN: not mx-opt %s 2>&1 | filecheck %s --check-prefix=ERR
// ERR-NOT: Traceback
// ERR:     {{.*}}quantize_mx_config.mlir:17:3: error: 'hlo.custom_call' op [MXQ01] QuantizeMX: got 0 operands
// ERR-NOT: Traceback

// MXQ01: no operand.
func.func @no_operand() {
  %q = hlo.custom_call @QuantizeMX() {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : () -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ01] QuantizeMX: got 0 operands
  // CHECK-NEXT: {{^}}  cause: QuantizeMX takes exactly one operand (the BF16/F16 tensor to quantize).
  // CHECK-NEXT: {{^}}  resolution: Pass the activation or weight tensor as the only operand.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX()
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ01: two operands (QuantizeMX takes the tensor only; the legalized targets add the
// metadata operand themselves).
func.func @two_operands(%x: tensor<4x64xbf16>, %y: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x, %y) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>, tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ01] QuantizeMX: got 2 operands
  // CHECK-NEXT: {{^}}  cause: QuantizeMX takes exactly one operand (the BF16/F16 tensor to quantize).
  // CHECK-NEXT: {{^}}  resolution: Pass the activation or weight tensor as the only operand.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x, %y)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: backend_config is not JSON.
func.func @not_json(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "dtype=float8_e4m3fn, dim=-1"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: backend_config is not valid JSON (Expecting value at character 0)
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: backend_config absent (it defaults to the empty string, which is not JSON).
func.func @absent_config(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x)  : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: backend_config is not valid JSON (Expecting value at character 0)
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: truncated JSON.
func.func @truncated_json(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: backend_config is not valid JSON (Expecting ',' delimiter at character 54)
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: JSON, but an array rather than an object.
func.func @json_array(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "[\"float8_e4m3fn\", -1, 32, \"EMAX\"]"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: backend_config must be a JSON object, got array ["float8_e4m3fn", -1, 32, "EMAX"]
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: JSON, but a string rather than an object.
func.func @json_string(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "\"EMAX\""} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: backend_config must be a JSON object, got string "EMAX"
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: required field dtype missing.
func.func @missing_dtype(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: missing required field 'dtype'
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: required field dim missing.
func.func @missing_dim(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: missing required field 'dim'
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: required field block_size missing.
func.func @missing_block_size(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: missing required field 'block_size'
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: required field scale_method missing.
func.func @missing_scale_method(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: missing required field 'scale_method'
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: dtype of the wrong JSON type (8).
func.func @wrong_type_dtype_11(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": 8, \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: field 'dtype' must be a string, got 8
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: dim of the wrong JSON type ("-1").
func.func @wrong_type_dim_12(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": \"-1\", \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: field 'dim' must be an integer, got "-1"
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: dim of the wrong JSON type (-1.0).
func.func @wrong_type_dim_13(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1.0, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: field 'dim' must be an integer, got -1.0
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: dim of the wrong JSON type (true).
func.func @wrong_type_dim_14(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": true, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: field 'dim' must be an integer, got true
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: block_size of the wrong JSON type ("32").
func.func @wrong_type_block_size_15(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": \"32\", \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: field 'block_size' must be an integer, got "32"
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: scale_method of the wrong JSON type (null).
func.func @wrong_type_scale_method_16(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": null}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: field 'scale_method' must be a string, got null
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ02: scale_method of the wrong JSON type (["EMAX"]).
func.func @wrong_type_scale_method_17(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": [\"EMAX\"]}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ02] QuantizeMX: field 'scale_method' must be a string, got ["EMAX"]
  // CHECK-NEXT: {{^}}  cause: The QuantizeMX backend_config is not valid JSON with the required fields.
  // CHECK-NEXT: {{^}}  resolution: Ensure the backend_config is valid JSON with required fields: dtype, dim, block_size, scale_method.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ04: dtype float8_e4m3 is not an OCP MX FP8 element format.
func.func @dtype_float8_e4m3(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ04] QuantizeMX: dtype is 'float8_e4m3'
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dtype: only 'float8_e5m2' and 'float8_e4m3fn' are supported.
  // CHECK-NEXT: {{^}}  resolution: Set backend_config dtype to "float8_e4m3fn" or "float8_e5m2" (the OCP MX FP8 element formats, see https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ04: dtype float4_e2m1fn is not an OCP MX FP8 element format.
func.func @dtype_float4_e2m1fn(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float4_e2m1fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ04] QuantizeMX: dtype is 'float4_e2m1fn'
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dtype: only 'float8_e5m2' and 'float8_e4m3fn' are supported.
  // CHECK-NEXT: {{^}}  resolution: Set backend_config dtype to "float8_e4m3fn" or "float8_e5m2" (the OCP MX FP8 element formats, see https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ04: dtype float8_e8m0fnu is not an OCP MX FP8 element format.
func.func @dtype_float8_e8m0fnu(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e8m0fnu\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ04] QuantizeMX: dtype is 'float8_e8m0fnu'
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dtype: only 'float8_e5m2' and 'float8_e4m3fn' are supported.
  // CHECK-NEXT: {{^}}  resolution: Set backend_config dtype to "float8_e4m3fn" or "float8_e5m2" (the OCP MX FP8 element formats, see https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ05: block_size 16.
func.func @block_size_16(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 16, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ05] QuantizeMX: block_size is 16
  // CHECK-NEXT: {{^}}  cause: QuantizeMX block_size must be 32.
  // CHECK-NEXT: {{^}}  resolution: Set block_size to 32, the OCP MX block size (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ05: block_size 64.
func.func @block_size_64(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 64, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ05] QuantizeMX: block_size is 64
  // CHECK-NEXT: {{^}}  cause: QuantizeMX block_size must be 32.
  // CHECK-NEXT: {{^}}  resolution: Set block_size to 32, the OCP MX block size (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ06: scale_method MAX (only EMAX, spelled exactly).
func.func @scale_method_MAX(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"MAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ06] QuantizeMX: scale_method is 'MAX'
  // CHECK-NEXT: {{^}}  cause: QuantizeMX scale_method: only EMAX is supported.
  // CHECK-NEXT: {{^}}  resolution: Set backend_config scale_method to "EMAX" (the shared exponent is taken from the block's largest element exponent).
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ06: scale_method emax (only EMAX, spelled exactly).
func.func @scale_method_emax(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"emax\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_config.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ06] QuantizeMX: scale_method is 'emax'
  // CHECK-NEXT: {{^}}  cause: QuantizeMX scale_method: only EMAX is supported.
  // CHECK-NEXT: {{^}}  resolution: Set backend_config scale_method to "EMAX" (the shared exponent is taken from the block's largest element exponent).
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}
