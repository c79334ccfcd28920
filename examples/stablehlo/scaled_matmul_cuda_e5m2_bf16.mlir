module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x16x128xf8E5M2>, %arg1: tensor<2x8x128xf8E5M2>, %arg2: tensor<2x16x4xf8E8M0FNU>, %arg3: tensor<2x8x4xf8E8M0FNU>) -> (tensor<2x16x8xbf16> {jax.result_info = "result"}) {
    %0 = call @_scaled_matmul(%arg0, %arg1, %arg2, %arg3) : (tensor<2x16x128xf8E5M2>, tensor<2x8x128xf8E5M2>, tensor<2x16x4xf8E8M0FNU>, tensor<2x8x4xf8E8M0FNU>) -> tensor<2x16x8xbf16>
    return %0 : tensor<2x16x8xbf16>
  }
  func.func private @_scaled_matmul(%arg0: tensor<2x16x128xf8E5M2>, %arg1: tensor<2x8x128xf8E5M2>, %arg2: tensor<2x16x4xf8E8M0FNU>, %arg3: tensor<2x8x4xf8E8M0FNU>) -> tensor<2x16x8xbf16> {
    %0 = stablehlo.custom_call @__op$block_scaled_dot(%arg0, %arg1, %arg2, %arg3) {api_version = 2 : i32, backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22BF16\22}}", operand_layouts = [dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} : (tensor<2x16x128xf8E5M2>, tensor<2x8x128xf8E5M2>, tensor<2x16x4xf8E8M0FNU>, tensor<2x8x4xf8E8M0FNU>) -> tensor<2x16x8xbf16>
    return %0 : tensor<2x16x8xbf16>
  }
}
