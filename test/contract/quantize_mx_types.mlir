// The QuantizeMX types and shapes (spec hlo-mx-legalization.txt sections 2.3, 4.1): input
// element type, the quantized dim, the 2-tuple result, x4 packing and 32-element blocks,
// the ui32 data and f8E8M0FNU scale outputs. One violation per chunk.
//
// RUN: mx-opt %s --split-input-file --verify-diagnostics --located-diagnostics | filecheck %s
// RUN: not mx-opt %s 2>&1 | filecheck %s --check-prefix=ERR
// ERR-NOT: Traceback
// ERR:     {{.*}}quantize_mx_types.mlir:13:3: error: 'hlo.custom_call' op [MXQ03] QuantizeMX: input type is tensor<4x64xf32>
// ERR-NOT: Traceback

// MXQ03: f32 input (only bf16 and f16 are quantized).
func.func @input_f32(%x: tensor<4x64xf32>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xf32>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ03] QuantizeMX: input type is tensor<4x64xf32>
  // CHECK-NEXT: {{^}}  cause: QuantizeMX input element type: only BF16 and F16 are supported.
  // CHECK-NEXT: {{^}}  resolution: Convert the input to bf16 or f16 (hlo.convert) before QuantizeMX.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ03: f8E4M3FN input (only bf16 and f16 are quantized).
func.func @input_f8E4M3FN(%x: tensor<4x64xf8E4M3FN>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xf8E4M3FN>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ03] QuantizeMX: input type is tensor<4x64xf8E4M3FN>
  // CHECK-NEXT: {{^}}  cause: QuantizeMX input element type: only BF16 and F16 are supported.
  // CHECK-NEXT: {{^}}  resolution: Convert the input to bf16 or f16 (hlo.convert) before QuantizeMX.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ03: i16 input (only bf16 and f16 are quantized).
func.func @input_i16(%x: tensor<4x64xi16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xi16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ03] QuantizeMX: input type is tensor<4x64xi16>
  // CHECK-NEXT: {{^}}  cause: QuantizeMX input element type: only BF16 and F16 are supported.
  // CHECK-NEXT: {{^}}  resolution: Convert the input to bf16 or f16 (hlo.convert) before QuantizeMX.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ03: a tuple is not a tensor to quantize.
func.func @input_tuple(%x: tuple<tensor<4x64xbf16>>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tuple<tensor<4x64xbf16>>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ03] QuantizeMX: input type is tuple<tensor<4x64xbf16>>
  // CHECK-NEXT: {{^}}  cause: QuantizeMX input element type: only BF16 and F16 are supported.
  // CHECK-NEXT: {{^}}  resolution: Convert the input to bf16 or f16 (hlo.convert) before QuantizeMX.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ07: dim 0 of a rank-3 input (only 2/-1 and 1/-2 are).
func.func @rank3_dim_10(%x: tensor<2x4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": 0, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<2x4x64xbf16>) -> tuple<tensor<2x4x16xui32>, tensor<2x4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ07] QuantizeMX: dim is 0 for a rank-3 input; supported: last dim (2 or -1) or second-to-last dim (1 or -2)
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dim: only the last dim (rank-1 or -1) or the second-to-last dim (rank-2 or -2) is supported.
  // CHECK-NEXT: {{^}}  resolution: Quantize along the last or second-to-last dimension; transpose the input first to bring the quantized dimension there.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ07: dim -3 of a rank-3 input (only 2/-1 and 1/-2 are).
func.func @rank3_dim_7(%x: tensor<2x4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -3, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<2x4x64xbf16>) -> tuple<tensor<2x4x16xui32>, tensor<2x4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ07] QuantizeMX: dim is -3 for a rank-3 input; supported: last dim (2 or -1) or second-to-last dim (1 or -2)
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dim: only the last dim (rank-1 or -1) or the second-to-last dim (rank-2 or -2) is supported.
  // CHECK-NEXT: {{^}}  resolution: Quantize along the last or second-to-last dimension; transpose the input first to bring the quantized dimension there.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ07: dim 3 of a rank-3 input (only 2/-1 and 1/-2 are).
func.func @rank3_dim_13(%x: tensor<2x4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": 3, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<2x4x64xbf16>) -> tuple<tensor<2x4x16xui32>, tensor<2x4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ07] QuantizeMX: dim is 3 for a rank-3 input; supported: last dim (2 or -1) or second-to-last dim (1 or -2)
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dim: only the last dim (rank-1 or -1) or the second-to-last dim (rank-2 or -2) is supported.
  // CHECK-NEXT: {{^}}  resolution: Quantize along the last or second-to-last dimension; transpose the input first to bring the quantized dimension there.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ07: dim -4 of a rank-3 input (only 2/-1 and 1/-2 are).
func.func @rank3_dim_6(%x: tensor<2x4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -4, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<2x4x64xbf16>) -> tuple<tensor<2x4x16xui32>, tensor<2x4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ07] QuantizeMX: dim is -4 for a rank-3 input; supported: last dim (2 or -1) or second-to-last dim (1 or -2)
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dim: only the last dim (rank-1 or -1) or the second-to-last dim (rank-2 or -2) is supported.
  // CHECK-NEXT: {{^}}  resolution: Quantize along the last or second-to-last dimension; transpose the input first to bring the quantized dimension there.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ07: dim -2 of a rank-1 input: it has no second-to-last dim.
func.func @rank1_dim_8(%x: tensor<64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -2, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<64xbf16>) -> tuple<tensor<16xui32>, tensor<2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ07] QuantizeMX: dim is -2 for a rank-1 input; supported: last dim (0 or -1)
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dim: only the last dim (rank-1 or -1) or the second-to-last dim (rank-2 or -2) is supported.
  // CHECK-NEXT: {{^}}  resolution: Quantize along the last or second-to-last dimension; transpose the input first to bring the quantized dimension there.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ07: dim 1 of a rank-1 input: it has no second-to-last dim.
func.func @rank1_dim_11(%x: tensor<64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": 1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<64xbf16>) -> tuple<tensor<16xui32>, tensor<2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ07] QuantizeMX: dim is 1 for a rank-1 input; supported: last dim (0 or -1)
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dim: only the last dim (rank-1 or -1) or the second-to-last dim (rank-2 or -2) is supported.
  // CHECK-NEXT: {{^}}  resolution: Quantize along the last or second-to-last dimension; transpose the input first to bring the quantized dimension there.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ07: a rank-0 input has no dim to quantize.
func.func @rank0(%x: tensor<bf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<bf16>) -> tuple<tensor<ui32>, tensor<f8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ07] QuantizeMX: dim is -1 for a rank-0 input; it has no dim to quantize
  // CHECK-NEXT: {{^}}  cause: QuantizeMX dim: only the last dim (rank-1 or -1) or the second-to-last dim (rank-2 or -2) is supported.
  // CHECK-NEXT: {{^}}  resolution: Quantize along the last or second-to-last dimension; transpose the input first to bring the quantized dimension there.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ08: the result is a bare tensor, not the 2-tuple (data, scale).
func.func @result_tensor(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tensor<4x16xui32>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ08] QuantizeMX: result type is tensor<4x16xui32>
  // CHECK-NEXT: {{^}}  cause: QuantizeMX must return a tuple with exactly 2 outputs (quantized data and scale).
  // CHECK-NEXT: {{^}}  resolution: Declare the result as tuple<tensor<...xui32>, tensor<...xf8E8M0FNU>>.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ08: the result is a 1-tuple, not the 2-tuple (data, scale).
func.func @result_1_tuple(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ08] QuantizeMX: result type is tuple<tensor<4x16xui32>>
  // CHECK-NEXT: {{^}}  cause: QuantizeMX must return a tuple with exactly 2 outputs (quantized data and scale).
  // CHECK-NEXT: {{^}}  resolution: Declare the result as tuple<tensor<...xui32>, tensor<...xf8E8M0FNU>>.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ08: the result is a 3-tuple, not the 2-tuple (data, scale).
func.func @result_3_tuple(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>, tensor<4x64xbf16>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ08] QuantizeMX: result type is tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>, tensor<4x64xbf16>>
  // CHECK-NEXT: {{^}}  cause: QuantizeMX must return a tuple with exactly 2 outputs (quantized data and scale).
  // CHECK-NEXT: {{^}}  resolution: Declare the result as tuple<tensor<...xui32>, tensor<...xf8E8M0FNU>>.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ09: the quantized (last) dim 62 is not a multiple of 4.
func.func @x4_last(%x: tensor<4x62xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x62xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ09] QuantizeMX: quantized dim 1 has size 62, not divisible by 4
  // CHECK-NEXT: {{^}}  cause: The quantized dimension must be divisible by 4 for x4 packing (four FP8 elements per ui32 lane word).
  // CHECK-NEXT: {{^}}  resolution: Pad the quantized dimension to a multiple of 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ09: the quantized (second-to-last) dim 30 is not a multiple of 4.
func.func @x4_second(%x: tensor<30x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -2, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<30x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ09] QuantizeMX: quantized dim 0 has size 30, not divisible by 4
  // CHECK-NEXT: {{^}}  cause: The quantized dimension must be divisible by 4 for x4 packing (four FP8 elements per ui32 lane word).
  // CHECK-NEXT: {{^}}  resolution: Pad the quantized dimension to a multiple of 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ10: the quantized dim 48 is a multiple of 4 but not of 32.
func.func @block_last(%x: tensor<4x48xf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x48xf16>) -> tuple<tensor<4x12xui32>, tensor<4x1xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ10] QuantizeMX: quantized dim 1 has size 48, not divisible by 32
  // CHECK-NEXT: {{^}}  cause: The quantized dimension must be divisible by 32 (one E8M0 scale per 32-element block).
  // CHECK-NEXT: {{^}}  resolution: Pad the quantized dimension to a multiple of 32 (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ10: the same along the second-to-last dim (spelled 0 for rank 2).
func.func @block_second(%x: tensor<80x4xf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": 0, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<80x4xf16>) -> tuple<tensor<20x4xui32>, tensor<2x4xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ10] QuantizeMX: quantized dim 0 has size 80, not divisible by 32
  // CHECK-NEXT: {{^}}  cause: The quantized dimension must be divisible by 32 (one E8M0 scale per 32-element block).
  // CHECK-NEXT: {{^}}  resolution: Pad the quantized dimension to a multiple of 32 (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ11: data output signless i32 instead of ui32.
func.func @data_18(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xi32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ11] QuantizeMX: data output is tensor<4x16xi32>, expected tensor<4x16xui32>
  // CHECK-NEXT: {{^}}  cause: The quantized data output must be ui32 (x4-packed FP8) with the quantized dimension divided by 4 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 0 as tensor<...xui32> with the quantized dim / 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ11: data output signed si32 instead of ui32.
func.func @data_19(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xsi32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ11] QuantizeMX: data output is tensor<4x16xsi32>, expected tensor<4x16xui32>
  // CHECK-NEXT: {{^}}  cause: The quantized data output must be ui32 (x4-packed FP8) with the quantized dimension divided by 4 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 0 as tensor<...xui32> with the quantized dim / 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ11: data output unpacked FP8 instead of x4-packed ui32.
func.func @data_20(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ11] QuantizeMX: data output is tensor<4x64xf8E4M3FN>, expected tensor<4x16xui32>
  // CHECK-NEXT: {{^}}  cause: The quantized data output must be ui32 (x4-packed FP8) with the quantized dimension divided by 4 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 0 as tensor<...xui32> with the quantized dim / 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ11: data output ui32 but the quantized dim not divided by 4.
func.func @data_21(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x64xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ11] QuantizeMX: data output is tensor<4x64xui32>, expected tensor<4x16xui32>
  // CHECK-NEXT: {{^}}  cause: The quantized data output must be ui32 (x4-packed FP8) with the quantized dimension divided by 4 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 0 as tensor<...xui32> with the quantized dim / 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ11: data output ui32 but a non-quantized dim changed.
func.func @data_22(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<8x16xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ11] QuantizeMX: data output is tensor<8x16xui32>, expected tensor<4x16xui32>
  // CHECK-NEXT: {{^}}  cause: The quantized data output must be ui32 (x4-packed FP8) with the quantized dimension divided by 4 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 0 as tensor<...xui32> with the quantized dim / 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ11: data output ui32 of the wrong rank.
func.func @data_23(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x4x4xui32>, tensor<4x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ11] QuantizeMX: data output is tensor<4x4x4xui32>, expected tensor<4x16xui32>
  // CHECK-NEXT: {{^}}  cause: The quantized data output must be ui32 (x4-packed FP8) with the quantized dimension divided by 4 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 0 as tensor<...xui32> with the quantized dim / 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ11: dim -2 packs the second-to-last dim, not the last.
func.func @data_dim_second(%x: tensor<64x4xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -2, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<64x4xbf16>) -> tuple<tensor<64x1xui32>, tensor<2x4xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ11] QuantizeMX: data output is tensor<64x1xui32>, expected tensor<16x4xui32>
  // CHECK-NEXT: {{^}}  cause: The quantized data output must be ui32 (x4-packed FP8) with the quantized dimension divided by 4 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 0 as tensor<...xui32> with the quantized dim / 4.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ12: scale output FP8 E4M3 instead of E8M0.
func.func @scale_25(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xf8E4M3FN>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ12] QuantizeMX: scale output is tensor<4x2xf8E4M3FN>, expected tensor<4x2xf8E8M0FNU>
  // CHECK-NEXT: {{^}}  cause: The scale output must be f8E8M0FNU (E8M0) with the quantized dimension divided by 32 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 1 as tensor<...xf8E8M0FNU> with the quantized dim / 32.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ12: scale output ui8 instead of f8E8M0FNU.
func.func @scale_26(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x2xui8>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ12] QuantizeMX: scale output is tensor<4x2xui8>, expected tensor<4x2xf8E8M0FNU>
  // CHECK-NEXT: {{^}}  cause: The scale output must be f8E8M0FNU (E8M0) with the quantized dimension divided by 32 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 1 as tensor<...xf8E8M0FNU> with the quantized dim / 32.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ12: scale output E8M0 with the dim divided by 4 instead of 32.
func.func @scale_27(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<4x16xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ12] QuantizeMX: scale output is tensor<4x16xf8E8M0FNU>, expected tensor<4x2xf8E8M0FNU>
  // CHECK-NEXT: {{^}}  cause: The scale output must be f8E8M0FNU (E8M0) with the quantized dimension divided by 32 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 1 as tensor<...xf8E8M0FNU> with the quantized dim / 32.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ12: scale output E8M0 with a non-quantized dim changed.
func.func @scale_28(%x: tensor<4x64xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": -1, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<4x64xbf16>) -> tuple<tensor<4x16xui32>, tensor<1x2xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ12] QuantizeMX: scale output is tensor<1x2xf8E8M0FNU>, expected tensor<4x2xf8E8M0FNU>
  // CHECK-NEXT: {{^}}  cause: The scale output must be f8E8M0FNU (E8M0) with the quantized dimension divided by 32 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 1 as tensor<...xf8E8M0FNU> with the quantized dim / 32.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}

// -----

// MXQ12: dim 0 (second-to-last, rank 2) scales the second-to-last dim.
func.func @scale_dim_second(%x: tensor<64x4xbf16>) {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\"dtype\": \"float8_e4m3fn\", \"dim\": 0, \"block_size\": 32, \"scale_method\": \"EMAX\"}"} : (tensor<64x4xbf16>) -> tuple<tensor<16x4xui32>, tensor<64x1xf8E8M0FNU>>
  // CHECK:      {{.*}}quantize_mx_types.mlir:[[# @LINE - 1]]:3: error: 'hlo.custom_call' op [MXQ12] QuantizeMX: scale output is tensor<64x1xf8E8M0FNU>, expected tensor<2x4xf8E8M0FNU>
  // CHECK-NEXT: {{^}}  cause: The scale output must be f8E8M0FNU (E8M0) with the quantized dimension divided by 32 and all other dimensions unchanged.
  // CHECK-NEXT: {{^}}  resolution: Declare tuple element 1 as tensor<...xf8E8M0FNU> with the quantized dim / 32.
  // CHECK-NEXT: {{^}}  %q = hlo.custom_call @QuantizeMX(%x)
  // CHECK-NEXT: {{^ +\^$}}
  func.return
}
