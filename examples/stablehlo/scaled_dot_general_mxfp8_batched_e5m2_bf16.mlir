module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x64xbf16>, %arg1: tensor<2x64x16xbf16>) -> (tensor<2x8x16xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg1, dims = [0, 2, 1] : (tensor<2x64x16xbf16>) -> tensor<2x16x64xbf16>
    %1 = stablehlo.reshape %arg0 : (tensor<2x8x64xbf16>) -> tensor<2x8x2x32xbf16>
    %2 = stablehlo.abs %1 : tensor<2x8x2x32xbf16>
    %cst = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.maximum across dimensions = [3] : (tensor<2x8x2x32xbf16>, tensor<bf16>) -> tensor<2x8x2xbf16>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x8x2xbf16>) -> tensor<2x8x2x1xbf16>
    %cst_0 = stablehlo.constant dense<5.734400e+04> : tensor<bf16>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<2x8x2x1xbf16>
    %6 = stablehlo.divide %4, %5 : tensor<2x8x2x1xbf16>
    %7 = stablehlo.convert %6 : (tensor<2x8x2x1xbf16>) -> tensor<2x8x2x1xf32>
    %8 = stablehlo.bitcast_convert %7 : (tensor<2x8x2x1xf32>) -> tensor<2x8x2x1xui32>
    %c = stablehlo.constant dense<23> : tensor<ui32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<2x8x2x1xui32>
    %10 = stablehlo.shift_right_logical %8, %9 : tensor<2x8x2x1xui32>
    %c_1 = stablehlo.constant dense<8388607> : tensor<ui32>
    %11 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<2x8x2x1xui32>
    %12 = stablehlo.and %8, %11 : tensor<2x8x2x1xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<ui32>
    %13 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<2x8x2x1xui32>
    %14 = stablehlo.compare GT, %12, %13, UNSIGNED : (tensor<2x8x2x1xui32>, tensor<2x8x2x1xui32>) -> tensor<2x8x2x1xi1>
    %c_3 = stablehlo.constant dense<254> : tensor<ui32>
    %15 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<2x8x2x1xui32>
    %16 = stablehlo.compare NE, %10, %15, UNSIGNED : (tensor<2x8x2x1xui32>, tensor<2x8x2x1xui32>) -> tensor<2x8x2x1xi1>
    %17 = stablehlo.and %14, %16 : tensor<2x8x2x1xi1>
    %c_4 = stablehlo.constant dense<0> : tensor<ui32>
    %18 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui32>) -> tensor<2x8x2x1xui32>
    %19 = stablehlo.compare EQ, %10, %18, UNSIGNED : (tensor<2x8x2x1xui32>, tensor<2x8x2x1xui32>) -> tensor<2x8x2x1xi1>
    %c_5 = stablehlo.constant dense<4194304> : tensor<ui32>
    %20 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui32>) -> tensor<2x8x2x1xui32>
    %21 = stablehlo.compare LE, %12, %20, UNSIGNED : (tensor<2x8x2x1xui32>, tensor<2x8x2x1xui32>) -> tensor<2x8x2x1xi1>
    %22 = stablehlo.and %19, %21 : tensor<2x8x2x1xi1>
    %23 = stablehlo.not %22 : tensor<2x8x2x1xi1>
    %24 = stablehlo.and %17, %23 : tensor<2x8x2x1xi1>
    %c_6 = stablehlo.constant dense<1> : tensor<ui32>
    %25 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui32>) -> tensor<2x8x2x1xui32>
    %26 = stablehlo.add %10, %25 : tensor<2x8x2x1xui32>
    %27 = call @_where(%24, %26, %10) : (tensor<2x8x2x1xi1>, tensor<2x8x2x1xui32>, tensor<2x8x2x1xui32>) -> tensor<2x8x2x1xui32>
    %28 = stablehlo.convert %27 : (tensor<2x8x2x1xui32>) -> tensor<2x8x2x1xui8>
    %29 = stablehlo.convert %28 : (tensor<2x8x2x1xui8>) -> tensor<2x8x2x1xui32>
    %c_7 = stablehlo.constant dense<23> : tensor<ui32>
    %30 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui32>) -> tensor<2x8x2x1xui32>
    %31 = stablehlo.shift_left %29, %30 : tensor<2x8x2x1xui32>
    %32 = stablehlo.bitcast_convert %31 : (tensor<2x8x2x1xui32>) -> tensor<2x8x2x1xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x8x2x1xf32>
    %34 = stablehlo.compare EQ, %32, %33, FLOAT : (tensor<2x8x2x1xf32>, tensor<2x8x2x1xf32>) -> tensor<2x8x2x1xi1>
    %cst_9 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %35 = call @_where_0(%34, %cst_9, %32) : (tensor<2x8x2x1xi1>, tensor<f32>, tensor<2x8x2x1xf32>) -> tensor<2x8x2x1xf32>
    %36 = stablehlo.convert %35 : (tensor<2x8x2x1xf32>) -> tensor<2x8x2x1xbf16>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1, 2, 3] : (tensor<2x8x2x1xbf16>) -> tensor<2x8x2x32xbf16>
    %38 = stablehlo.divide %1, %37 : tensor<2x8x2x32xbf16>
    %cst_10 = stablehlo.constant dense<-5.734400e+04> : tensor<bf16>
    %cst_11 = stablehlo.constant dense<5.734400e+04> : tensor<bf16>
    %39 = call @clip(%38, %cst_10, %cst_11) : (tensor<2x8x2x32xbf16>, tensor<bf16>, tensor<bf16>) -> tensor<2x8x2x32xbf16>
    %40 = stablehlo.convert %39 : (tensor<2x8x2x32xbf16>) -> tensor<2x8x2x32xf8E5M2>
    %41 = stablehlo.reshape %40 : (tensor<2x8x2x32xf8E5M2>) -> tensor<2x8x64xf8E5M2>
    %42 = stablehlo.reshape %28 : (tensor<2x8x2x1xui8>) -> tensor<2x8x2xui8>
    %43 = stablehlo.bitcast_convert %42 : (tensor<2x8x2xui8>) -> tensor<2x8x2xf8E8M0FNU>
    %44 = stablehlo.reshape %0 : (tensor<2x16x64xbf16>) -> tensor<2x16x2x32xbf16>
    %45 = stablehlo.abs %44 : tensor<2x16x2x32xbf16>
    %cst_12 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %46 = stablehlo.reduce(%45 init: %cst_12) applies stablehlo.maximum across dimensions = [3] : (tensor<2x16x2x32xbf16>, tensor<bf16>) -> tensor<2x16x2xbf16>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2] : (tensor<2x16x2xbf16>) -> tensor<2x16x2x1xbf16>
    %cst_13 = stablehlo.constant dense<5.734400e+04> : tensor<bf16>
    %48 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<bf16>) -> tensor<2x16x2x1xbf16>
    %49 = stablehlo.divide %47, %48 : tensor<2x16x2x1xbf16>
    %50 = stablehlo.convert %49 : (tensor<2x16x2x1xbf16>) -> tensor<2x16x2x1xf32>
    %51 = stablehlo.bitcast_convert %50 : (tensor<2x16x2x1xf32>) -> tensor<2x16x2x1xui32>
    %c_14 = stablehlo.constant dense<23> : tensor<ui32>
    %52 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<ui32>) -> tensor<2x16x2x1xui32>
    %53 = stablehlo.shift_right_logical %51, %52 : tensor<2x16x2x1xui32>
    %c_15 = stablehlo.constant dense<8388607> : tensor<ui32>
    %54 = stablehlo.broadcast_in_dim %c_15, dims = [] : (tensor<ui32>) -> tensor<2x16x2x1xui32>
    %55 = stablehlo.and %51, %54 : tensor<2x16x2x1xui32>
    %c_16 = stablehlo.constant dense<0> : tensor<ui32>
    %56 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<ui32>) -> tensor<2x16x2x1xui32>
    %57 = stablehlo.compare GT, %55, %56, UNSIGNED : (tensor<2x16x2x1xui32>, tensor<2x16x2x1xui32>) -> tensor<2x16x2x1xi1>
    %c_17 = stablehlo.constant dense<254> : tensor<ui32>
    %58 = stablehlo.broadcast_in_dim %c_17, dims = [] : (tensor<ui32>) -> tensor<2x16x2x1xui32>
    %59 = stablehlo.compare NE, %53, %58, UNSIGNED : (tensor<2x16x2x1xui32>, tensor<2x16x2x1xui32>) -> tensor<2x16x2x1xi1>
    %60 = stablehlo.and %57, %59 : tensor<2x16x2x1xi1>
    %c_18 = stablehlo.constant dense<0> : tensor<ui32>
    %61 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<ui32>) -> tensor<2x16x2x1xui32>
    %62 = stablehlo.compare EQ, %53, %61, UNSIGNED : (tensor<2x16x2x1xui32>, tensor<2x16x2x1xui32>) -> tensor<2x16x2x1xi1>
    %c_19 = stablehlo.constant dense<4194304> : tensor<ui32>
    %63 = stablehlo.broadcast_in_dim %c_19, dims = [] : (tensor<ui32>) -> tensor<2x16x2x1xui32>
    %64 = stablehlo.compare LE, %55, %63, UNSIGNED : (tensor<2x16x2x1xui32>, tensor<2x16x2x1xui32>) -> tensor<2x16x2x1xi1>
    %65 = stablehlo.and %62, %64 : tensor<2x16x2x1xi1>
    %66 = stablehlo.not %65 : tensor<2x16x2x1xi1>
    %67 = stablehlo.and %60, %66 : tensor<2x16x2x1xi1>
    %c_20 = stablehlo.constant dense<1> : tensor<ui32>
    %68 = stablehlo.broadcast_in_dim %c_20, dims = [] : (tensor<ui32>) -> tensor<2x16x2x1xui32>
    %69 = stablehlo.add %53, %68 : tensor<2x16x2x1xui32>
    %70 = call @_where_1(%67, %69, %53) : (tensor<2x16x2x1xi1>, tensor<2x16x2x1xui32>, tensor<2x16x2x1xui32>) -> tensor<2x16x2x1xui32>
    %71 = stablehlo.convert %70 : (tensor<2x16x2x1xui32>) -> tensor<2x16x2x1xui8>
    %72 = stablehlo.convert %71 : (tensor<2x16x2x1xui8>) -> tensor<2x16x2x1xui32>
    %c_21 = stablehlo.constant dense<23> : tensor<ui32>
    %73 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<ui32>) -> tensor<2x16x2x1xui32>
    %74 = stablehlo.shift_left %72, %73 : tensor<2x16x2x1xui32>
    %75 = stablehlo.bitcast_convert %74 : (tensor<2x16x2x1xui32>) -> tensor<2x16x2x1xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<2x16x2x1xf32>
    %77 = stablehlo.compare EQ, %75, %76, FLOAT : (tensor<2x16x2x1xf32>, tensor<2x16x2x1xf32>) -> tensor<2x16x2x1xi1>
    %cst_23 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %78 = call @_where_2(%77, %cst_23, %75) : (tensor<2x16x2x1xi1>, tensor<f32>, tensor<2x16x2x1xf32>) -> tensor<2x16x2x1xf32>
    %79 = stablehlo.convert %78 : (tensor<2x16x2x1xf32>) -> tensor<2x16x2x1xbf16>
    %80 = stablehlo.broadcast_in_dim %79, dims = [0, 1, 2, 3] : (tensor<2x16x2x1xbf16>) -> tensor<2x16x2x32xbf16>
    %81 = stablehlo.divide %44, %80 : tensor<2x16x2x32xbf16>
    %cst_24 = stablehlo.constant dense<-5.734400e+04> : tensor<bf16>
    %cst_25 = stablehlo.constant dense<5.734400e+04> : tensor<bf16>
    %82 = call @clip_3(%81, %cst_24, %cst_25) : (tensor<2x16x2x32xbf16>, tensor<bf16>, tensor<bf16>) -> tensor<2x16x2x32xbf16>
    %83 = stablehlo.convert %82 : (tensor<2x16x2x32xbf16>) -> tensor<2x16x2x32xf8E5M2>
    %84 = stablehlo.reshape %83 : (tensor<2x16x2x32xf8E5M2>) -> tensor<2x16x64xf8E5M2>
    %85 = stablehlo.reshape %71 : (tensor<2x16x2x1xui8>) -> tensor<2x16x2xui8>
    %86 = stablehlo.bitcast_convert %85 : (tensor<2x16x2xui8>) -> tensor<2x16x2xf8E8M0FNU>
    %87 = call @_scaled_matmul(%41, %84, %43, %86) : (tensor<2x8x64xf8E5M2>, tensor<2x16x64xf8E5M2>, tensor<2x8x2xf8E8M0FNU>, tensor<2x16x2xf8E8M0FNU>) -> tensor<2x8x16xbf16>
    return %87 : tensor<2x8x16xbf16>
  }
  func.func private @_where(%arg0: tensor<2x8x2x1xi1>, %arg1: tensor<2x8x2x1xui32>, %arg2: tensor<2x8x2x1xui32>) -> tensor<2x8x2x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<2x8x2x1xi1>, tensor<2x8x2x1xui32>
    return %0 : tensor<2x8x2x1xui32>
  }
  func.func private @_where_0(%arg0: tensor<2x8x2x1xi1>, %arg1: tensor<f32>, %arg2: tensor<2x8x2x1xf32>) -> tensor<2x8x2x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2x8x2x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<2x8x2x1xi1>, tensor<2x8x2x1xf32>
    return %1 : tensor<2x8x2x1xf32>
  }
  func.func private @clip(%arg0: tensor<2x8x2x32xbf16>, %arg1: tensor<bf16>, %arg2: tensor<bf16>) -> tensor<2x8x2x32xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<bf16>) -> tensor<2x8x2x32xbf16>
    %1 = stablehlo.maximum %0, %arg0 : tensor<2x8x2x32xbf16>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<bf16>) -> tensor<2x8x2x32xbf16>
    %3 = stablehlo.minimum %2, %1 : tensor<2x8x2x32xbf16>
    return %3 : tensor<2x8x2x32xbf16>
  }
  func.func private @_where_1(%arg0: tensor<2x16x2x1xi1>, %arg1: tensor<2x16x2x1xui32>, %arg2: tensor<2x16x2x1xui32>) -> tensor<2x16x2x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<2x16x2x1xi1>, tensor<2x16x2x1xui32>
    return %0 : tensor<2x16x2x1xui32>
  }
  func.func private @_where_2(%arg0: tensor<2x16x2x1xi1>, %arg1: tensor<f32>, %arg2: tensor<2x16x2x1xf32>) -> tensor<2x16x2x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2x16x2x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<2x16x2x1xi1>, tensor<2x16x2x1xf32>
    return %1 : tensor<2x16x2x1xf32>
  }
  func.func private @clip_3(%arg0: tensor<2x16x2x32xbf16>, %arg1: tensor<bf16>, %arg2: tensor<bf16>) -> tensor<2x16x2x32xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<bf16>) -> tensor<2x16x2x32xbf16>
    %1 = stablehlo.maximum %0, %arg0 : tensor<2x16x2x32xbf16>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<bf16>) -> tensor<2x16x2x32xbf16>
    %3 = stablehlo.minimum %2, %1 : tensor<2x16x2x32xbf16>
    return %3 : tensor<2x16x2x32xbf16>
  }
  func.func private @_scaled_matmul(%arg0: tensor<2x8x64xf8E5M2>, %arg1: tensor<2x16x64xf8E5M2>, %arg2: tensor<2x8x2xf8E8M0FNU>, %arg3: tensor<2x16x2xf8E8M0FNU>) -> tensor<2x8x16xbf16> {
    %0 = stablehlo.custom_call @__op$block_scaled_dot(%arg0, %arg1, %arg2, %arg3) {api_version = 2 : i32, backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22BF16\22}}", operand_layouts = [dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} : (tensor<2x8x64xf8E5M2>, tensor<2x16x64xf8E5M2>, tensor<2x8x2xf8E8M0FNU>, tensor<2x16x2xf8E8M0FNU>) -> tensor<2x8x16xbf16>
    return %0 : tensor<2x8x16xbf16>
  }
}
