module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x16x32xbf16>, %arg1: tensor<4x16x32xbf16>, %arg2: tensor<4x16x32xbf16>) -> (tensor<4x16x32xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<4x16x32xbf16>, tensor<4x16x32xbf16>) -> tensor<4x16x16xbf16>
    %cst = stablehlo.constant dense<1.767580e-01> : tensor<bf16>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<4x16x16xbf16>
    %2 = stablehlo.multiply %0, %1 : tensor<4x16x16xbf16>
    %3 = stablehlo.iota dim = 0 : tensor<16xi32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %5 = stablehlo.iota dim = 0 : tensor<16xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<16xi32>) -> tensor<1x16xi32>
    %7 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<16x1xi32>) -> tensor<16x16xi32>
    %8 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<1x16xi32>) -> tensor<16x16xi32>
    %9 = stablehlo.compare GE, %7, %8, SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = call @_where(%9, %2, %cst_0) : (tensor<16x16xi1>, tensor<4x16x16xbf16>, tensor<f32>) -> tensor<4x16x16xbf16>
    %cst_1 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %11 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.maximum across dimensions = [2] : (tensor<4x16x16xbf16>, tensor<bf16>) -> tensor<4x16xbf16>
    %cst_2 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<4x16xbf16>
    %13 = stablehlo.maximum %12, %11 : tensor<4x16xbf16>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<4x16xbf16>) -> tensor<4x16x1xbf16>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<4x16x1xbf16>) -> tensor<4x16x16xbf16>
    %16 = stablehlo.subtract %10, %15 : tensor<4x16x16xbf16>
    %17 = stablehlo.exponential %16 : tensor<4x16x16xbf16>
    %18 = stablehlo.convert %17 : (tensor<4x16x16xbf16>) -> tensor<4x16x16xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_3) applies stablehlo.add across dimensions = [2] : (tensor<4x16x16xf32>, tensor<f32>) -> tensor<4x16xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
    %21 = stablehlo.convert %20 : (tensor<4x16x1xf32>) -> tensor<4x16x1xbf16>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<4x16x1xbf16>) -> tensor<4x16x16xbf16>
    %23 = stablehlo.divide %17, %22 : tensor<4x16x16xbf16>
    %24 = stablehlo.dot_general %23, %arg2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x16x16xbf16>, tensor<4x16x32xbf16>) -> tensor<4x16x32xbf16>
    return %24 : tensor<4x16x32xbf16>
  }
  func.func private @_where(%arg0: tensor<16x16xi1>, %arg1: tensor<4x16x16xbf16>, %arg2: tensor<f32>) -> tensor<4x16x16xbf16> {
    %0 = stablehlo.convert %arg2 : (tensor<f32>) -> tensor<bf16>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<16x16xi1>) -> tensor<4x16x16xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<bf16>) -> tensor<4x16x16xbf16>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<4x16x16xi1>, tensor<4x16x16xbf16>
    return %3 : tensor<4x16x16xbf16>
  }
}
