module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x32xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<32x64xf32>, %arg3: tensor<64x32xf32>) -> (tensor<8x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %1 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %2 = stablehlo.multiply %0, %0 : tensor<8x64xf32>
    %3 = stablehlo.multiply %2, %0 : tensor<8x64xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %5 = stablehlo.multiply %4, %3 : tensor<8x64xf32>
    %6 = stablehlo.add %0, %5 : tensor<8x64xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<8x64xf32>
    %9 = stablehlo.tanh %8 : tensor<8x64xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %11 = stablehlo.add %10, %9 : tensor<8x64xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %13 = stablehlo.multiply %12, %11 : tensor<8x64xf32>
    %14 = stablehlo.multiply %0, %13 : tensor<8x64xf32>
    %15 = stablehlo.multiply %14, %1 : tensor<8x64xf32>
    %16 = stablehlo.dot_general %15, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    return %16 : tensor<8x32xf32>
  }
}
