module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x32xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<32x64xf32>, %arg3: tensor<64x32xf32>) -> (tensor<8x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %3 = stablehlo.multiply %2, %0 : tensor<8x64xf32>
    %4 = stablehlo.negate %0 : tensor<8x64xf32>
    %cst_0 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %6 = stablehlo.multiply %4, %5 : tensor<8x64xf32>
    %7 = chlo.erfc %6 : tensor<8x64xf32> -> tensor<8x64xf32>
    %8 = stablehlo.multiply %3, %7 : tensor<8x64xf32>
    %9 = stablehlo.multiply %8, %1 : tensor<8x64xf32>
    %10 = stablehlo.dot_general %9, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    return %10 : tensor<8x32xf32>
  }
}
