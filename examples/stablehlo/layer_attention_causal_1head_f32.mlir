module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<16x32xf32>) -> (tensor<16x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
    %cst = stablehlo.constant dense<0.176776692> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<16x16xf32>
    %4 = stablehlo.iota dim = 0 : tensor<16xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %6 = stablehlo.iota dim = 0 : tensor<16xi32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<16xi32>) -> tensor<1x16xi32>
    %8 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<16x1xi32>) -> tensor<16x16xi32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %10 = stablehlo.compare GE, %8, %9, SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %11 = call @_where(%10, %3, %cst_0) : (tensor<16x16xi1>, tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst_1) applies stablehlo.maximum across dimensions = [1] : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %14 = stablehlo.maximum %13, %12 : tensor<16xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x16xf32>
    %17 = stablehlo.subtract %11, %16 : tensor<16x16xf32>
    %18 = stablehlo.exponential %17 : tensor<16x16xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x16xf32>
    %22 = stablehlo.divide %18, %21 : tensor<16x16xf32>
    %23 = stablehlo.dot_general %22, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
    return %23 : tensor<16x32xf32>
  }
  func.func private @_where(%arg0: tensor<16x16xi1>, %arg1: tensor<16x16xf32>, %arg2: tensor<f32>) -> tensor<16x16xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<16x16xi1>, tensor<16x16xf32>
    return %2 : tensor<16x16xf32>
  }
}
