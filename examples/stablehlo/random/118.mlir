module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xbf16>) -> (tensor<4x8xbf16> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<-1.500000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.250000e+00> : tensor<f32>
    %0 = call @clip(%arg0, %cst, %cst_0) : (tensor<4x8xbf16>, tensor<f32>, tensor<f32>) -> tensor<4x8xbf16>
    return %0 : tensor<4x8xbf16>
  }
  func.func private @clip(%arg0: tensor<4x8xbf16>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4x8xbf16> {
    %0 = stablehlo.convert %arg1 : (tensor<f32>) -> tensor<bf16>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<bf16>) -> tensor<4x8xbf16>
    %2 = stablehlo.maximum %1, %arg0 : tensor<4x8xbf16>
    %3 = stablehlo.convert %arg2 : (tensor<f32>) -> tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<bf16>) -> tensor<4x8xbf16>
    %5 = stablehlo.minimum %4, %2 : tensor<4x8xbf16>
    return %5 : tensor<4x8xbf16>
  }
}
