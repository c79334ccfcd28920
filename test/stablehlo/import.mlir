// import-stablehlo on the files JAX wrote: the cuda custom call and the rocm composite
// both become the contract's hlo.custom_call @__op$block_scaled_dot over x4-packed ui32
// words (stablehlo.reshape [.., K] -> [.., K/4, 4], stablehlo.bitcast_convert -> ui32),
// the scales pass through, the private helpers are inlined and the decomposition erased;
// the result verifies (the contract runs on it) and legalizes. In the scaled_dot_general
// files JAX's quantization stays as written (converts become hlo.convert).

// RUN: mx-opt %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32.mlir -p import-stablehlo | filecheck %s --check-prefixes=CHECK,E4M3
// RUN: mx-opt %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.mlir -p import-stablehlo | filecheck %s --check-prefixes=CHECK,E4M3
// RUN: mx-opt %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.mlir -p import-stablehlo | mx-opt -p legalize-scaled-matmul | filecheck %s --check-prefix=LEGAL
// RUN: xdsl-opt %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.mlir -p import-stablehlo | filecheck %s --check-prefixes=CHECK,E4M3
// RUN: mx-opt %examples/stablehlo/scaled_matmul_cuda_e5m2_bf16.mlir -p 'import-stablehlo{packed-arguments=true}' | filecheck %s --check-prefix=PACKED
// RUN: mx-opt %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.mlir -p import-stablehlo | filecheck %s --check-prefix=SDG

// CHECK: func.func public @main(%arg0: tensor<1x4x64xf8E4M3FN>, %arg1: tensor<1x8x64xf8E4M3FN>, %arg2: tensor<1x4x2xf8E8M0FNU>, %arg3: tensor<1x8x2xf8E8M0FNU>) -> (tensor<1x4x8xf32> {jax.result_info = "result"}) {
// CHECK-NEXT: %arg0_x4 = stablehlo.reshape %arg0 : (tensor<1x4x64xf8E4M3FN>) -> tensor<1x4x16x4xf8E4M3FN>
// CHECK-NEXT: %arg0_packed = stablehlo.bitcast_convert %arg0_x4 : (tensor<1x4x16x4xf8E4M3FN>) -> tensor<1x4x16xui32>
// CHECK-NEXT: %arg1_x4 = stablehlo.reshape %arg1 : (tensor<1x8x64xf8E4M3FN>) -> tensor<1x8x16x4xf8E4M3FN>
// CHECK-NEXT: %arg1_packed = stablehlo.bitcast_convert %arg1_x4 : (tensor<1x8x16x4xf8E4M3FN>) -> tensor<1x8x16xui32>
// E4M3-NEXT: %0 = hlo.custom_call @__op$block_scaled_dot(%arg0_packed, %arg1_packed, %arg2, %arg3) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22lhs_contracting_dimensions\22: [2], \22rhs_contracting_dimensions\22: [2], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32} : (tensor<1x4x16xui32>, tensor<1x8x16xui32>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
// CHECK-NEXT: func.return %0 : tensor<1x4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }

// LEGAL: %dot_meta = hlo.constant (dense<0> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<3> : tensor<i64>, dense<3> : tensor<i64>, dense<32> : tensor<i64>)
// LEGAL-NEXT: hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%arg0_packed, %arg1_packed, %arg2, %arg3, %dot_meta)

// PACKED: func.func public @main(%arg0: tensor<2x16x32xui32>, %arg1: tensor<2x8x32xui32>, %arg2: tensor<2x16x4xf8E8M0FNU>, %arg3: tensor<2x8x4xf8E8M0FNU>) -> (tensor<2x16x8xbf16> {jax.result_info = "result"}) {
// PACKED-NEXT: %0 = hlo.custom_call @__op$block_scaled_dot(%arg0, %arg1, %arg2, %arg3) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22lhs_contracting_dimensions\22: [2], \22rhs_contracting_dimensions\22: [2], \22element_dtype\22: \22float8_e5m2\22}}", api_version = 1 : i32} : (tensor<2x16x32xui32>, tensor<2x8x32xui32>, tensor<2x16x4xf8E8M0FNU>, tensor<2x8x4xf8E8M0FNU>) -> tensor<2x16x8xbf16>

// SDG: func.func public @main(%arg0: tensor<2x8x64xbf16>, %arg1: tensor<2x64x16xbf16>) -> (tensor<2x8x16xbf16> {jax.result_info = "result"}) {
// SDG-NOT: func.call
// SDG: %{{.*}} = hlo.convert %{{.*}} : (tensor<2x8x2x32xbf16>) -> tensor<2x8x2x32xf8E5M2>
// SDG: stablehlo.bitcast_convert %{{.*}} : (tensor<2x8x16x4xf8E5M2>) -> tensor<2x8x16xui32>
// SDG: hlo.custom_call @__op$block_scaled_dot(
// SDG-SAME: \22element_dtype\22: \22float8_e5m2\22
// SDG-SAME: -> tensor<2x8x16xbf16>
// SDG-NOT: func.func
