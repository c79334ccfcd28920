module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x16x128xf8E5M2>, %arg1: tensor<2x8x128xf8E5M2>, %arg2: tensor<2x16x4xf8E8M0FNU>, %arg3: tensor<2x8x4xf8E8M0FNU>) -> (tensor<2x16x8xbf16> {jax.result_info = "result"}) {
    %0 = call @_scaled_matmul(%arg0, %arg1, %arg2, %arg3) : (tensor<2x16x128xf8E5M2>, tensor<2x8x128xf8E5M2>, tensor<2x16x4xf8E8M0FNU>, tensor<2x8x4xf8E8M0FNU>) -> tensor<2x16x8xbf16>
    return %0 : tensor<2x16x8xbf16>
  }
  func.func private @_scaled_matmul(%arg0: tensor<2x16x128xf8E5M2>, %arg1: tensor<2x8x128xf8E5M2>, %arg2: tensor<2x16x4xf8E8M0FNU>, %arg3: tensor<2x8x4xf8E8M0FNU>) -> tensor<2x16x8xbf16> {
    %0 = stablehlo.composite "xla.scaled_dot" %arg0, %arg1, %arg2, %arg3 {composite_attributes = {dimension_numbers = [[[2], [2]], [[0], [0]]], preferred_element_type = bf16}, decomposition = @xla.scaled_dot} : (tensor<2x16x128xf8E5M2>, tensor<2x8x128xf8E5M2>, tensor<2x16x4xf8E8M0FNU>, tensor<2x8x4xf8E8M0FNU>) -> tensor<2x16x8xbf16>
    return %0 : tensor<2x16x8xbf16>
  }
  func.func private @xla.scaled_dot(%arg0: tensor<2x16x128xf8E5M2>, %arg1: tensor<2x8x128xf8E5M2>, %arg2: tensor<2x16x4xf8E8M0FNU>, %arg3: tensor<2x8x4xf8E8M0FNU>) -> tensor<2x16x8xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2] : (tensor<2x16x4xf8E8M0FNU>) -> tensor<2x16x4x1xf8E8M0FNU>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2, 3] : (tensor<2x16x4x1xf8E8M0FNU>) -> tensor<2x16x4x32xf8E8M0FNU>
    %2 = stablehlo.reshape %1 : (tensor<2x16x4x32xf8E8M0FNU>) -> tensor<2x16x128xf8E8M0FNU>
    %3 = stablehlo.convert %arg0 : (tensor<2x16x128xf8E5M2>) -> tensor<2x16x128xbf16>
    %4 = stablehlo.convert %2 : (tensor<2x16x128xf8E8M0FNU>) -> tensor<2x16x128xbf16>
    %5 = stablehlo.multiply %3, %4 : tensor<2x16x128xbf16>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1, 2] : (tensor<2x8x4xf8E8M0FNU>) -> tensor<2x8x4x1xf8E8M0FNU>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2, 3] : (tensor<2x8x4x1xf8E8M0FNU>) -> tensor<2x8x4x32xf8E8M0FNU>
    %8 = stablehlo.reshape %7 : (tensor<2x8x4x32xf8E8M0FNU>) -> tensor<2x8x128xf8E8M0FNU>
    %9 = stablehlo.convert %arg1 : (tensor<2x8x128xf8E5M2>) -> tensor<2x8x128xbf16>
    %10 = stablehlo.convert %8 : (tensor<2x8x128xf8E8M0FNU>) -> tensor<2x8x128xbf16>
    %11 = stablehlo.multiply %9, %10 : tensor<2x8x128xbf16>
    %12 = stablehlo.dot_general %5, %11, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xbf16>, tensor<2x8x128xbf16>) -> tensor<2x16x8xbf16>
    return %12 : tensor<2x16x8xbf16>
  }
}
