module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x64xbf16>, %arg1: tensor<64x8xbf16>) -> (tensor<4x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<4x64xbf16>) -> tensor<4x64x1xbf16>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<64x8xbf16>) -> tensor<64x8x1xbf16>
    %2 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<4x64x1xbf16>) -> tensor<1x4x64xbf16>
    %3 = stablehlo.transpose %1, dims = [2, 1, 0] : (tensor<64x8x1xbf16>) -> tensor<1x8x64xbf16>
    %4 = stablehlo.reshape %2 : (tensor<1x4x64xbf16>) -> tensor<1x4x2x32xbf16>
    %5 = stablehlo.abs %4 : tensor<1x4x2x32xbf16>
    %cst = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.maximum across dimensions = [3] : (tensor<1x4x2x32xbf16>, tensor<bf16>) -> tensor<1x4x2xbf16>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<1x4x2xbf16>) -> tensor<1x4x2x1xbf16>
    %cst_0 = stablehlo.constant dense<4.480000e+02> : tensor<bf16>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<1x4x2x1xbf16>
    %9 = stablehlo.divide %7, %8 : tensor<1x4x2x1xbf16>
    %10 = stablehlo.convert %9 : (tensor<1x4x2x1xbf16>) -> tensor<1x4x2x1xf32>
    %11 = stablehlo.bitcast_convert %10 : (tensor<1x4x2x1xf32>) -> tensor<1x4x2x1xui32>
    %c = stablehlo.constant dense<23> : tensor<ui32>
    %12 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<1x4x2x1xui32>
    %13 = stablehlo.shift_right_logical %11, %12 : tensor<1x4x2x1xui32>
    %c_1 = stablehlo.constant dense<8388607> : tensor<ui32>
    %14 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<1x4x2x1xui32>
    %15 = stablehlo.and %11, %14 : tensor<1x4x2x1xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<ui32>
    %16 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<1x4x2x1xui32>
    %17 = stablehlo.compare GT, %15, %16, UNSIGNED : (tensor<1x4x2x1xui32>, tensor<1x4x2x1xui32>) -> tensor<1x4x2x1xi1>
    %c_3 = stablehlo.constant dense<254> : tensor<ui32>
    %18 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<1x4x2x1xui32>
    %19 = stablehlo.compare NE, %13, %18, UNSIGNED : (tensor<1x4x2x1xui32>, tensor<1x4x2x1xui32>) -> tensor<1x4x2x1xi1>
    %20 = stablehlo.and %17, %19 : tensor<1x4x2x1xi1>
    %c_4 = stablehlo.constant dense<0> : tensor<ui32>
    %21 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui32>) -> tensor<1x4x2x1xui32>
    %22 = stablehlo.compare EQ, %13, %21, UNSIGNED : (tensor<1x4x2x1xui32>, tensor<1x4x2x1xui32>) -> tensor<1x4x2x1xi1>
    %c_5 = stablehlo.constant dense<4194304> : tensor<ui32>
    %23 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui32>) -> tensor<1x4x2x1xui32>
    %24 = stablehlo.compare LE, %15, %23, UNSIGNED : (tensor<1x4x2x1xui32>, tensor<1x4x2x1xui32>) -> tensor<1x4x2x1xi1>
    %25 = stablehlo.and %22, %24 : tensor<1x4x2x1xi1>
    %26 = stablehlo.not %25 : tensor<1x4x2x1xi1>
    %27 = stablehlo.and %20, %26 : tensor<1x4x2x1xi1>
    %c_6 = stablehlo.constant dense<1> : tensor<ui32>
    %28 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui32>) -> tensor<1x4x2x1xui32>
    %29 = stablehlo.add %13, %28 : tensor<1x4x2x1xui32>
    %30 = call @_where(%27, %29, %13) : (tensor<1x4x2x1xi1>, tensor<1x4x2x1xui32>, tensor<1x4x2x1xui32>) -> tensor<1x4x2x1xui32>
    %31 = stablehlo.convert %30 : (tensor<1x4x2x1xui32>) -> tensor<1x4x2x1xui8>
    %32 = stablehlo.convert %31 : (tensor<1x4x2x1xui8>) -> tensor<1x4x2x1xui32>
    %c_7 = stablehlo.constant dense<23> : tensor<ui32>
    %33 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui32>) -> tensor<1x4x2x1xui32>
    %34 = stablehlo.shift_left %32, %33 : tensor<1x4x2x1xui32>
    %35 = stablehlo.bitcast_convert %34 : (tensor<1x4x2x1xui32>) -> tensor<1x4x2x1xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1x4x2x1xf32>
    %37 = stablehlo.compare EQ, %35, %36, FLOAT : (tensor<1x4x2x1xf32>, tensor<1x4x2x1xf32>) -> tensor<1x4x2x1xi1>
    %cst_9 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %38 = call @_where_0(%37, %cst_9, %35) : (tensor<1x4x2x1xi1>, tensor<f32>, tensor<1x4x2x1xf32>) -> tensor<1x4x2x1xf32>
    %39 = stablehlo.convert %38 : (tensor<1x4x2x1xf32>) -> tensor<1x4x2x1xbf16>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2, 3] : (tensor<1x4x2x1xbf16>) -> tensor<1x4x2x32xbf16>
    %41 = stablehlo.divide %4, %40 : tensor<1x4x2x32xbf16>
    %cst_10 = stablehlo.constant dense<-4.480000e+02> : tensor<bf16>
    %cst_11 = stablehlo.constant dense<4.480000e+02> : tensor<bf16>
    %42 = call @clip(%41, %cst_10, %cst_11) : (tensor<1x4x2x32xbf16>, tensor<bf16>, tensor<bf16>) -> tensor<1x4x2x32xbf16>
    %43 = stablehlo.convert %42 : (tensor<1x4x2x32xbf16>) -> tensor<1x4x2x32xf8E4M3FN>
    %44 = stablehlo.reshape %43 : (tensor<1x4x2x32xf8E4M3FN>) -> tensor<1x4x64xf8E4M3FN>
    %45 = stablehlo.reshape %31 : (tensor<1x4x2x1xui8>) -> tensor<1x4x2xui8>
    %46 = stablehlo.bitcast_convert %45 : (tensor<1x4x2xui8>) -> tensor<1x4x2xf8E8M0FNU>
    %47 = stablehlo.reshape %3 : (tensor<1x8x64xbf16>) -> tensor<1x8x2x32xbf16>
    %48 = stablehlo.abs %47 : tensor<1x8x2x32xbf16>
    %cst_12 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %49 = stablehlo.reduce(%48 init: %cst_12) applies stablehlo.maximum across dimensions = [3] : (tensor<1x8x2x32xbf16>, tensor<bf16>) -> tensor<1x8x2xbf16>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2] : (tensor<1x8x2xbf16>) -> tensor<1x8x2x1xbf16>
    %cst_13 = stablehlo.constant dense<4.480000e+02> : tensor<bf16>
    %51 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<bf16>) -> tensor<1x8x2x1xbf16>
    %52 = stablehlo.divide %50, %51 : tensor<1x8x2x1xbf16>
    %53 = stablehlo.convert %52 : (tensor<1x8x2x1xbf16>) -> tensor<1x8x2x1xf32>
    %54 = stablehlo.bitcast_convert %53 : (tensor<1x8x2x1xf32>) -> tensor<1x8x2x1xui32>
    %c_14 = stablehlo.constant dense<23> : tensor<ui32>
    %55 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %56 = stablehlo.shift_right_logical %54, %55 : tensor<1x8x2x1xui32>
    %c_15 = stablehlo.constant dense<8388607> : tensor<ui32>
    %57 = stablehlo.broadcast_in_dim %c_15, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %58 = stablehlo.and %54, %57 : tensor<1x8x2x1xui32>
    %c_16 = stablehlo.constant dense<0> : tensor<ui32>
    %59 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %60 = stablehlo.compare GT, %58, %59, UNSIGNED : (tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xi1>
    %c_17 = stablehlo.constant dense<254> : tensor<ui32>
    %61 = stablehlo.broadcast_in_dim %c_17, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %62 = stablehlo.compare NE, %56, %61, UNSIGNED : (tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xi1>
    %63 = stablehlo.and %60, %62 : tensor<1x8x2x1xi1>
    %c_18 = stablehlo.constant dense<0> : tensor<ui32>
    %64 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %65 = stablehlo.compare EQ, %56, %64, UNSIGNED : (tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xi1>
    %c_19 = stablehlo.constant dense<4194304> : tensor<ui32>
    %66 = stablehlo.broadcast_in_dim %c_19, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %67 = stablehlo.compare LE, %58, %66, UNSIGNED : (tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xi1>
    %68 = stablehlo.and %65, %67 : tensor<1x8x2x1xi1>
    %69 = stablehlo.not %68 : tensor<1x8x2x1xi1>
    %70 = stablehlo.and %63, %69 : tensor<1x8x2x1xi1>
    %c_20 = stablehlo.constant dense<1> : tensor<ui32>
    %71 = stablehlo.broadcast_in_dim %c_20, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %72 = stablehlo.add %56, %71 : tensor<1x8x2x1xui32>
    %73 = call @_where_1(%70, %72, %56) : (tensor<1x8x2x1xi1>, tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xui32>
    %74 = stablehlo.convert %73 : (tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xui8>
    %75 = stablehlo.convert %74 : (tensor<1x8x2x1xui8>) -> tensor<1x8x2x1xui32>
    %c_21 = stablehlo.constant dense<23> : tensor<ui32>
    %76 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %77 = stablehlo.shift_left %75, %76 : tensor<1x8x2x1xui32>
    %78 = stablehlo.bitcast_convert %77 : (tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<1x8x2x1xf32>
    %80 = stablehlo.compare EQ, %78, %79, FLOAT : (tensor<1x8x2x1xf32>, tensor<1x8x2x1xf32>) -> tensor<1x8x2x1xi1>
    %cst_23 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %81 = call @_where_2(%80, %cst_23, %78) : (tensor<1x8x2x1xi1>, tensor<f32>, tensor<1x8x2x1xf32>) -> tensor<1x8x2x1xf32>
    %82 = stablehlo.convert %81 : (tensor<1x8x2x1xf32>) -> tensor<1x8x2x1xbf16>
    %83 = stablehlo.broadcast_in_dim %82, dims = [0, 1, 2, 3] : (tensor<1x8x2x1xbf16>) -> tensor<1x8x2x32xbf16>
    %84 = stablehlo.divide %47, %83 : tensor<1x8x2x32xbf16>
    %cst_24 = stablehlo.constant dense<-4.480000e+02> : tensor<bf16>
    %cst_25 = stablehlo.constant dense<4.480000e+02> : tensor<bf16>
    %85 = call @clip_3(%84, %cst_24, %cst_25) : (tensor<1x8x2x32xbf16>, tensor<bf16>, tensor<bf16>) -> tensor<1x8x2x32xbf16>
    %86 = stablehlo.convert %85 : (tensor<1x8x2x32xbf16>) -> tensor<1x8x2x32xf8E4M3FN>
    %87 = stablehlo.reshape %86 : (tensor<1x8x2x32xf8E4M3FN>) -> tensor<1x8x64xf8E4M3FN>
    %88 = stablehlo.reshape %74 : (tensor<1x8x2x1xui8>) -> tensor<1x8x2xui8>
    %89 = stablehlo.bitcast_convert %88 : (tensor<1x8x2xui8>) -> tensor<1x8x2xf8E8M0FNU>
    %90 = call @_scaled_matmul(%44, %87, %46, %89) : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
    %91 = stablehlo.reshape %90 : (tensor<1x4x8xf32>) -> tensor<4x8xf32>
    return %91 : tensor<4x8xf32>
  }
  func.func private @_where(%arg0: tensor<1x4x2x1xi1>, %arg1: tensor<1x4x2x1xui32>, %arg2: tensor<1x4x2x1xui32>) -> tensor<1x4x2x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x4x2x1xi1>, tensor<1x4x2x1xui32>
    return %0 : tensor<1x4x2x1xui32>
  }
  func.func private @_where_0(%arg0: tensor<1x4x2x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x4x2x1xf32>) -> tensor<1x4x2x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x4x2x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x4x2x1xi1>, tensor<1x4x2x1xf32>
    return %1 : tensor<1x4x2x1xf32>
  }
  func.func private @clip(%arg0: tensor<1x4x2x32xbf16>, %arg1: tensor<bf16>, %arg2: tensor<bf16>) -> tensor<1x4x2x32xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<bf16>) -> tensor<1x4x2x32xbf16>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x4x2x32xbf16>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<bf16>) -> tensor<1x4x2x32xbf16>
    %3 = stablehlo.minimum %2, %1 : tensor<1x4x2x32xbf16>
    return %3 : tensor<1x4x2x32xbf16>
  }
  func.func private @_where_1(%arg0: tensor<1x8x2x1xi1>, %arg1: tensor<1x8x2x1xui32>, %arg2: tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x8x2x1xi1>, tensor<1x8x2x1xui32>
    return %0 : tensor<1x8x2x1xui32>
  }
  func.func private @_where_2(%arg0: tensor<1x8x2x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x8x2x1xf32>) -> tensor<1x8x2x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x8x2x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x8x2x1xi1>, tensor<1x8x2x1xf32>
    return %1 : tensor<1x8x2x1xf32>
  }
  func.func private @clip_3(%arg0: tensor<1x8x2x32xbf16>, %arg1: tensor<bf16>, %arg2: tensor<bf16>) -> tensor<1x8x2x32xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<bf16>) -> tensor<1x8x2x32xbf16>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x8x2x32xbf16>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<bf16>) -> tensor<1x8x2x32xbf16>
    %3 = stablehlo.minimum %2, %1 : tensor<1x8x2x32xbf16>
    return %3 : tensor<1x8x2x32xbf16>
  }
  func.func private @_scaled_matmul(%arg0: tensor<1x4x64xf8E4M3FN>, %arg1: tensor<1x8x64xf8E4M3FN>, %arg2: tensor<1x4x2xf8E8M0FNU>, %arg3: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
    %0 = stablehlo.composite "xla.scaled_dot" %arg0, %arg1, %arg2, %arg3 {composite_attributes = {dimension_numbers = [[[2], [2]], [[0], [0]]], preferred_element_type = f32}, decomposition = @xla.scaled_dot} : (tensor<1x4x64xf8E4M3FN>, tensor<1x8x64xf8E4M3FN>, tensor<1x4x2xf8E8M0FNU>, tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32>
    return %0 : tensor<1x4x8xf32>
  }
  func.func private @xla.scaled_dot(%arg0: tensor<1x4x64xf8E4M3FN>, %arg1: tensor<1x8x64xf8E4M3FN>, %arg2: tensor<1x4x2xf8E8M0FNU>, %arg3: tensor<1x8x2xf8E8M0FNU>) -> tensor<1x4x8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 2] : (tensor<1x4x2xf8E8M0FNU>) -> tensor<1x4x2x1xf8E8M0FNU>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2, 3] : (tensor<1x4x2x1xf8E8M0FNU>) -> tensor<1x4x2x32xf8E8M0FNU>
    %2 = stablehlo.reshape %1 : (tensor<1x4x2x32xf8E8M0FNU>) -> tensor<1x4x64xf8E8M0FNU>
    %3 = stablehlo.convert %arg0 : (tensor<1x4x64xf8E4M3FN>) -> tensor<1x4x64xbf16>
    %4 = stablehlo.convert %2 : (tensor<1x4x64xf8E8M0FNU>) -> tensor<1x4x64xbf16>
    %5 = stablehlo.multiply %3, %4 : tensor<1x4x64xbf16>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1, 2] : (tensor<1x8x2xf8E8M0FNU>) -> tensor<1x8x2x1xf8E8M0FNU>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2, 3] : (tensor<1x8x2x1xf8E8M0FNU>) -> tensor<1x8x2x32xf8E8M0FNU>
    %8 = stablehlo.reshape %7 : (tensor<1x8x2x32xf8E8M0FNU>) -> tensor<1x8x64xf8E8M0FNU>
    %9 = stablehlo.convert %arg1 : (tensor<1x8x64xf8E4M3FN>) -> tensor<1x8x64xbf16>
    %10 = stablehlo.convert %8 : (tensor<1x8x64xf8E8M0FNU>) -> tensor<1x8x64xbf16>
    %11 = stablehlo.multiply %9, %10 : tensor<1x8x64xbf16>
    %12 = stablehlo.dot_general %5, %11, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<1x4x64xbf16>, tensor<1x8x64xbf16>) -> tensor<1x4x8xf32>
    return %12 : tensor<1x4x8xf32>
  }
}
