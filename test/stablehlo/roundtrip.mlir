// The files JAX 0.10.2 wrote (examples/stablehlo, see generate.py there) parse, print,
// and print again unchanged with mx-opt, and plain xdsl-opt prints the same (the
// stablehlo dialect is in the universe; checked on two files). The generic form
// round-trips too, hex float splats (the -inf reduce init, dense<0xff80>) included:
// mx-opt reads a hex float element as its bits in either syntax (docs/stablehlo.md).

// RUN: mx-opt %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.mlir -o %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.1.mlir
// RUN: mx-opt %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.1.mlir | diff %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.1.mlir -
// RUN: mx-opt %examples/stablehlo/scaled_dot_general_mxfp8_rocm_f32.mlir -o %t.scaled_dot_general_mxfp8_rocm_f32.1.mlir
// RUN: mx-opt %t.scaled_dot_general_mxfp8_rocm_f32.1.mlir | diff %t.scaled_dot_general_mxfp8_rocm_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.mlir -o %t.scaled_dot_general_mxfp8_unbatched_f32.1.mlir
// RUN: mx-opt %t.scaled_dot_general_mxfp8_unbatched_f32.1.mlir | diff %t.scaled_dot_general_mxfp8_unbatched_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32.mlir -o %t.scaled_matmul_cuda_e4m3fn_f32.1.mlir
// RUN: mx-opt %t.scaled_matmul_cuda_e4m3fn_f32.1.mlir | diff %t.scaled_matmul_cuda_e4m3fn_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.mlir -o %t.scaled_matmul_cuda_e4m3fn_f32_k1024.1.mlir
// RUN: mx-opt %t.scaled_matmul_cuda_e4m3fn_f32_k1024.1.mlir | diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.1.mlir -
// RUN: mx-opt %examples/stablehlo/scaled_matmul_cuda_e5m2_bf16.mlir -o %t.scaled_matmul_cuda_e5m2_bf16.1.mlir
// RUN: mx-opt %t.scaled_matmul_cuda_e5m2_bf16.1.mlir | diff %t.scaled_matmul_cuda_e5m2_bf16.1.mlir -
// RUN: mx-opt %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.mlir -o %t.scaled_matmul_rocm_e4m3fn_f32.1.mlir
// RUN: mx-opt %t.scaled_matmul_rocm_e4m3fn_f32.1.mlir | diff %t.scaled_matmul_rocm_e4m3fn_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32_k1024.mlir -o %t.scaled_matmul_rocm_e4m3fn_f32_k1024.1.mlir
// RUN: mx-opt %t.scaled_matmul_rocm_e4m3fn_f32_k1024.1.mlir | diff %t.scaled_matmul_rocm_e4m3fn_f32_k1024.1.mlir -
// RUN: mx-opt %examples/stablehlo/scaled_matmul_rocm_e5m2_bf16.mlir -o %t.scaled_matmul_rocm_e5m2_bf16.1.mlir
// RUN: mx-opt %t.scaled_matmul_rocm_e5m2_bf16.1.mlir | diff %t.scaled_matmul_rocm_e5m2_bf16.1.mlir -
// RUN: xdsl-opt %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32.mlir | diff %t.scaled_matmul_cuda_e4m3fn_f32.1.mlir -
// RUN: xdsl-opt %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.mlir | diff %t.scaled_dot_general_mxfp8_unbatched_f32.1.mlir -
// RUN: mx-opt --print-op-generic %examples/stablehlo/scaled_matmul_rocm_e5m2_bf16.mlir | mx-opt | diff %t.scaled_matmul_rocm_e5m2_bf16.1.mlir -
// RUN: mx-opt --print-op-generic %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.mlir | mx-opt | diff %t.scaled_dot_general_mxfp8_unbatched_f32.1.mlir -
// RUN: filecheck %s --check-prefix=CUDA < %t.scaled_matmul_cuda_e4m3fn_f32.1.mlir
// RUN: filecheck %s --check-prefix=ROCM < %t.scaled_matmul_rocm_e5m2_bf16.1.mlir
// RUN: filecheck %s --check-prefix=SDG < %t.scaled_dot_general_mxfp8_unbatched_f32.1.mlir

// CUDA: builtin.module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
// CUDA-NEXT: func.func public @main(%arg0: tensor<1x4x64xf8E4M3FN>, %arg1: tensor<1x8x64xf8E4M3FN>, %arg2: tensor<1x4x2xf8E8M0FNU>, %arg3: tensor<1x8x2xf8E8M0FNU>) -> (tensor<1x4x8xf32> {jax.result_info = "result"}) {
// CUDA-NEXT: %0 = func.call @_scaled_matmul(%arg0, %arg1, %arg2, %arg3)
// CUDA: func.func private @_scaled_matmul(
// CUDA-NEXT: %0 = stablehlo.custom_call @__op$block_scaled_dot(%arg0, %arg1, %arg2, %arg3) {api_version = 2 : i32, backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}", operand_layouts = [dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>

// ROCM: %0 = stablehlo.composite "xla.scaled_dot" %arg0, %arg1, %arg2, %arg3 {composite_attributes = {dimension_numbers = {{\[\[\[}}2 : i64], [2 : i64]], {{\[\[}}0 : i64], [0 : i64]]], preferred_element_type = bf16}, decomposition = @xla.scaled_dot} : (tensor<2x16x128xf8E5M2>, tensor<2x8x128xf8E5M2>, tensor<2x16x4xf8E8M0FNU>, tensor<2x8x4xf8E8M0FNU>) -> tensor<2x16x8xbf16>
// ROCM: func.func private @xla.scaled_dot(
// ROCM-NEXT: %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2] : (tensor<2x16x4xf8E8M0FNU>) -> tensor<2x16x4x1xf8E8M0FNU>
// ROCM: stablehlo.convert %arg0 : (tensor<2x16x128xf8E5M2>) -> tensor<2x16x128xbf16>
// ROCM: stablehlo.multiply %{{.*}}, %{{.*}} : tensor<2x16x128xbf16>
// ROCM: stablehlo.dot_general %{{.*}}, %{{.*}}, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xbf16>, tensor<2x8x128xbf16>) -> tensor<2x16x8xbf16>

// SDG: %2 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<4x64x1xbf16>) -> tensor<1x4x64xbf16>
// SDG: %5 = stablehlo.abs %4 : tensor<1x4x2x32xbf16>
// SDG-NEXT: %cst = stablehlo.constant dense<0xff80> : tensor<bf16>
// SDG-NEXT: %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.maximum across dimensions = [3] : (tensor<1x4x2x32xbf16>, tensor<bf16>) -> tensor<1x4x2xbf16>
// SDG: stablehlo.bitcast_convert %{{.*}} : (tensor<1x4x2x1xf32>) -> tensor<1x4x2x1xui32>
// SDG: stablehlo.shift_right_logical %{{.*}}, %{{.*}} : tensor<1x4x2x1xui32>
// SDG: stablehlo.compare GT, %{{.*}}, %{{.*}}, UNSIGNED : (tensor<1x4x2x1xui32>, tensor<1x4x2x1xui32>) -> tensor<1x4x2x1xi1>
// SDG: stablehlo.not %{{.*}} : tensor<1x4x2x1xi1>
// SDG: stablehlo.shift_left %{{.*}}, %{{.*}} : tensor<1x4x2x1xui32>
// SDG: stablehlo.compare EQ, %{{.*}}, %{{.*}}, FLOAT : (tensor<1x4x2x1xf32>, tensor<1x4x2x1xf32>) -> tensor<1x4x2x1xi1>
// SDG: stablehlo.constant dense<5.87747175e-39> : tensor<f32>
// SDG: stablehlo.select %arg0, %arg1, %arg2 : tensor<1x4x2x1xi1>, tensor<1x4x2x1xui32>
// SDG: stablehlo.maximum %0, %arg0 : tensor<1x4x2x32xbf16>
// SDG: stablehlo.minimum %2, %1 : tensor<1x4x2x32xbf16>
