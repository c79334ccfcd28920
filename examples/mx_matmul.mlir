// An MX matmul graph as a JAX/StableHLO frontend emits it: two QuantizeMX calls
// (bf16 activations along K, the last dim; bf16 weights along K, the first dim)
// feeding one __op$block_scaled_dot that contracts K and produces f32.
//
//   mx-opt examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul
func.func @main(%x: tensor<128x256xbf16>, %w: tensor<256x64xbf16>) -> tensor<128x64xf32> {
  %xq = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<128x256xbf16>) -> tuple<tensor<128x64xui32>, tensor<128x8xf8E8M0FNU>>
  %wq = hlo.custom_call @QuantizeMX(%w) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -2, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<256x64xbf16>) -> tuple<tensor<64x64xui32>, tensor<8x64xf8E8M0FNU>>
  %x_data = hlo.get_tuple_element %xq[0] : (tuple<tensor<128x64xui32>, tensor<128x8xf8E8M0FNU>>) -> tensor<128x64xui32>
  %x_scale = hlo.get_tuple_element %xq[1] : (tuple<tensor<128x64xui32>, tensor<128x8xf8E8M0FNU>>) -> tensor<128x8xf8E8M0FNU>
  %w_data = hlo.get_tuple_element %wq[0] : (tuple<tensor<64x64xui32>, tensor<8x64xf8E8M0FNU>>) -> tensor<64x64xui32>
  %w_scale = hlo.get_tuple_element %wq[1] : (tuple<tensor<64x64xui32>, tensor<8x64xf8E8M0FNU>>) -> tensor<8x64xf8E8M0FNU>
  %y = hlo.custom_call @__op$block_scaled_dot(%x_data, %w_data, %x_scale, %w_scale) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<128x64xui32>, tensor<64x64xui32>, tensor<128x8xf8E8M0FNU>, tensor<8x64xf8E8M0FNU>) -> tensor<128x64xf32>
  func.return %y : tensor<128x64xf32>
}
