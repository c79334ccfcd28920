// A tiny MX matmul with constant inputs whose result can be worked out by hand (see
// test/runner/mx_matmul_small.mlir): x = 32 x 8.0; w = [31 x 1.0, 1.125 | 16 x 1.0,
// 16 x -0.5]. The same block-scaled dot returns f32 (x.w = [257, 64], exact) and bf16
// (257 rounds once, to even: 256).
//
//   mx-run examples/mx_matmul_small.mlir --print-values
//   mx-run examples/mx_matmul_small.mlir --print-values -p legalize-quantize-mx,legalize-scaled-matmul
func.func @main() -> (tensor<1x2xf32>, tensor<1x2xbf16>, tuple<tensor<1x8xui32>, tensor<1x1xf8E8M0FNU>>, tuple<tensor<8x2xui32>, tensor<1x2xf8E8M0FNU>>) {
  %x = hlo.constant dense<[[8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0]]> : tensor<1x32xbf16>
  %w = hlo.constant dense<[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.0, -0.5], [1.125, -0.5]]> : tensor<32x2xbf16>
  %xq = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<1x32xbf16>) -> tuple<tensor<1x8xui32>, tensor<1x1xf8E8M0FNU>>
  %wq = hlo.custom_call @QuantizeMX(%w) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -2, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<32x2xbf16>) -> tuple<tensor<8x2xui32>, tensor<1x2xf8E8M0FNU>>
  %xd = hlo.get_tuple_element %xq[0] : (tuple<tensor<1x8xui32>, tensor<1x1xf8E8M0FNU>>) -> tensor<1x8xui32>
  %xs = hlo.get_tuple_element %xq[1] : (tuple<tensor<1x8xui32>, tensor<1x1xf8E8M0FNU>>) -> tensor<1x1xf8E8M0FNU>
  %wd = hlo.get_tuple_element %wq[0] : (tuple<tensor<8x2xui32>, tensor<1x2xf8E8M0FNU>>) -> tensor<8x2xui32>
  %ws = hlo.get_tuple_element %wq[1] : (tuple<tensor<8x2xui32>, tensor<1x2xf8E8M0FNU>>) -> tensor<1x2xf8E8M0FNU>
  %y32 = hlo.custom_call @__op$block_scaled_dot(%xd, %wd, %xs, %ws) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<1x8xui32>, tensor<8x2xui32>, tensor<1x1xf8E8M0FNU>, tensor<1x2xf8E8M0FNU>) -> tensor<1x2xf32>
  %y16 = hlo.custom_call @__op$block_scaled_dot(%xd, %wd, %xs, %ws) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<1x8xui32>, tensor<8x2xui32>, tensor<1x1xf8E8M0FNU>, tensor<1x2xf8E8M0FNU>) -> tensor<1x2xbf16>
  func.return %y32, %y16, %xq, %wq : tensor<1x2xf32>, tensor<1x2xbf16>, tuple<tensor<1x8xui32>, tensor<1x1xf8E8M0FNU>>, tuple<tensor<8x2xui32>, tensor<1x2xf8E8M0FNU>>
}
