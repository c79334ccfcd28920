// import-stablehlo maps an xla.scaled_dot composite onto the MX dot. For K > 128 it says,
// in a remark on the new call, that the rounding changes: the decomposition's bf16
// dot_general rounds each 128-element PE pass to fp32, the MX dot each 512-element one
// (docs/stablehlo.md; test_stablehlo_run.py measures the difference on JAX's K = 1024
// files). K <= 128 (one pass either way) gives no remark.

// RUN: mx-opt %s --split-input-file --verify-diagnostics -p import-stablehlo | filecheck %s

// CHECK: hlo.custom_call @__op$block_scaled_dot(%lhs_packed, %rhs_packed, %ls, %rs)
// CHECK-NOT: stablehlo.composite
// CHECK-NOT: func.func private @xla.scaled_dot

func.func @k256(%lhs: tensor<1x2x256xf8E4M3FN>, %rhs: tensor<1x2x256xf8E4M3FN>, %ls: tensor<1x2x8xf8E8M0FNU>, %rs: tensor<1x2x8xf8E8M0FNU>) -> tensor<1x2x2xf32> {
  // expected-remark@+1 {{import-stablehlo: the xla.scaled_dot composite (K = 256) becomes the MX dot, whose PE passes take 512 K elements (128 partitions x 4 lanes) where its decomposition's bf16 dot_general takes 128: the exact sum of each pass is rounded to fp32 once per 512 elements instead of once per 128, so results can differ from the decomposition's in the last bits (docs/stablehlo.md)}}
  %0 = stablehlo.composite "xla.scaled_dot" %lhs, %rhs, %ls, %rs {composite_attributes = {dimension_numbers = [[[2], [2]], [[0], [0]]], preferred_element_type = f32}, decomposition = @xla.scaled_dot} : (tensor<1x2x256xf8E4M3FN>, tensor<1x2x256xf8E4M3FN>, tensor<1x2x8xf8E8M0FNU>, tensor<1x2x8xf8E8M0FNU>) -> tensor<1x2x2xf32>
  func.return %0 : tensor<1x2x2xf32>
}
func.func private @xla.scaled_dot(%a: tensor<1x2x256xf8E4M3FN>, %b: tensor<1x2x256xf8E4M3FN>, %c: tensor<1x2x8xf8E8M0FNU>, %d: tensor<1x2x8xf8E8M0FNU>) -> tensor<1x2x2xf32> {
  %0 = stablehlo.convert %a : (tensor<1x2x256xf8E4M3FN>) -> tensor<1x2x256xbf16>
  %1 = stablehlo.convert %b : (tensor<1x2x256xf8E4M3FN>) -> tensor<1x2x256xbf16>
  %2 = stablehlo.dot_general %0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<1x2x256xbf16>, tensor<1x2x256xbf16>) -> tensor<1x2x2xf32>
  func.return %2 : tensor<1x2x2xf32>
}

// -----

// CHECK: hlo.custom_call @__op$block_scaled_dot(%lhs_packed, %rhs_packed, %ls, %rs)
func.func @k128(%lhs: tensor<1x2x128xf8E4M3FN>, %rhs: tensor<1x2x128xf8E4M3FN>, %ls: tensor<1x2x4xf8E8M0FNU>, %rs: tensor<1x2x4xf8E8M0FNU>) -> tensor<1x2x2xf32> {
  %0 = stablehlo.composite "xla.scaled_dot" %lhs, %rhs, %ls, %rs {composite_attributes = {dimension_numbers = [[[2], [2]], [[0], [0]]], preferred_element_type = f32}, decomposition = @xla.scaled_dot} : (tensor<1x2x128xf8E4M3FN>, tensor<1x2x128xf8E4M3FN>, tensor<1x2x4xf8E8M0FNU>, tensor<1x2x4xf8E8M0FNU>) -> tensor<1x2x2xf32>
  func.return %0 : tensor<1x2x2xf32>
}
func.func private @xla.scaled_dot(%a: tensor<1x2x128xf8E4M3FN>, %b: tensor<1x2x128xf8E4M3FN>, %c: tensor<1x2x4xf8E8M0FNU>, %d: tensor<1x2x4xf8E8M0FNU>) -> tensor<1x2x2xf32> {
  %0 = stablehlo.convert %a : (tensor<1x2x128xf8E4M3FN>) -> tensor<1x2x128xbf16>
  %1 = stablehlo.convert %b : (tensor<1x2x128xf8E4M3FN>) -> tensor<1x2x128xbf16>
  %2 = stablehlo.dot_general %0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<1x2x128xbf16>, tensor<1x2x128xbf16>) -> tensor<1x2x2xf32>
  func.return %2 : tensor<1x2x2xf32>
}
