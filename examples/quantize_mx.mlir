// QuantizeMX on a small constant input, in both FP8 formats: three rows of one 32-element
// block each (the quantized dim is the last one). The expected data words and E8M0
// scales are worked out by hand in test/runner/quantize_mx.mlir.
//
//   mx-run examples/quantize_mx.mlir --print-values
//   mx-run examples/quantize_mx.mlir --print-values -p legalize-quantize-mx
//
// Row 0: 1.0, -0.5, 3.0, 0.25, 0.30078125, 0.296875, then zeros (rounding and its ties).
// Row 1: all zeros (the E8M0 zero floor).
// Row 2: 480.0, 1.0, -448.0, 2^-20, then zeros (saturation and underflow).
func.func @main() -> (tuple<tensor<3x8xui32>, tensor<3x1xf8E8M0FNU>>, tuple<tensor<3x8xui32>, tensor<3x1xf8E8M0FNU>>) {
  %x = hlo.constant dense<[[1.0, -0.5, 3.0, 0.25, 0.30078125, 0.296875, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [480.0, 1.0, -448.0, 9.5367431640625e-07, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<3x32xbf16>
  %e4m3 = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<3x32xbf16>) -> tuple<tensor<3x8xui32>, tensor<3x1xf8E8M0FNU>>
  %e5m2 = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<3x32xbf16>) -> tuple<tensor<3x8xui32>, tensor<3x1xf8E8M0FNU>>
  func.return %e4m3, %e5m2 : tuple<tensor<3x8xui32>, tensor<3x1xf8E8M0FNU>>, tuple<tensor<3x8xui32>, tensor<3x1xf8E8M0FNU>>
}
