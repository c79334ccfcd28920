module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<512x4096xf32>, %arg1: tensor<4096x14336xf32>, %arg2: tensor<4096x14336xf32>, %arg3: tensor<14336x4096xf32>) -> (tensor<512x4096xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<512x4096xf32>) -> tensor<512x4096x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<4096x14336xf32>) -> tensor<4096x14336x1xf32>
    %2 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<512x4096x1xf32>) -> tensor<1x512x4096xf32>
    %3 = stablehlo.transpose %1, dims = [2, 1, 0] : (tensor<4096x14336x1xf32>) -> tensor<1x14336x4096xf32>
    %4 = stablehlo.reshape %2 : (tensor<1x512x4096xf32>) -> tensor<1x512x128x32xf32>
    %5 = stablehlo.abs %4 : tensor<1x512x128x32xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.maximum across dimensions = [3] : (tensor<1x512x128x32xf32>, tensor<f32>) -> tensor<1x512x128xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<1x512x128xf32>) -> tensor<1x512x128x1xf32>
    %cst_0 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x512x128x1xf32>
    %9 = stablehlo.divide %7, %8 : tensor<1x512x128x1xf32>
    %10 = stablehlo.bitcast_convert %9 : (tensor<1x512x128x1xf32>) -> tensor<1x512x128x1xui32>
    %c = stablehlo.constant dense<23> : tensor<ui32>
    %11 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %12 = stablehlo.shift_right_logical %10, %11 : tensor<1x512x128x1xui32>
    %c_1 = stablehlo.constant dense<8388607> : tensor<ui32>
    %13 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %14 = stablehlo.and %10, %13 : tensor<1x512x128x1xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<ui32>
    %15 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %16 = stablehlo.compare GT, %14, %15, UNSIGNED : (tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xi1>
    %c_3 = stablehlo.constant dense<254> : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %18 = stablehlo.compare NE, %12, %17, UNSIGNED : (tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xi1>
    %19 = stablehlo.and %16, %18 : tensor<1x512x128x1xi1>
    %c_4 = stablehlo.constant dense<0> : tensor<ui32>
    %20 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %21 = stablehlo.compare EQ, %12, %20, UNSIGNED : (tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xi1>
    %c_5 = stablehlo.constant dense<4194304> : tensor<ui32>
    %22 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %23 = stablehlo.compare LE, %14, %22, UNSIGNED : (tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xi1>
    %24 = stablehlo.and %21, %23 : tensor<1x512x128x1xi1>
    %25 = stablehlo.not %24 : tensor<1x512x128x1xi1>
    %26 = stablehlo.and %19, %25 : tensor<1x512x128x1xi1>
    %c_6 = stablehlo.constant dense<1> : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %28 = stablehlo.add %12, %27 : tensor<1x512x128x1xui32>
    %29 = call @_where(%26, %28, %12) : (tensor<1x512x128x1xi1>, tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xui32>
    %30 = stablehlo.convert %29 : (tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xui8>
    %31 = stablehlo.convert %30 : (tensor<1x512x128x1xui8>) -> tensor<1x512x128x1xui32>
    %c_7 = stablehlo.constant dense<23> : tensor<ui32>
    %32 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %33 = stablehlo.shift_left %31, %32 : tensor<1x512x128x1xui32>
    %34 = stablehlo.bitcast_convert %33 : (tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1x512x128x1xf32>
    %36 = stablehlo.compare EQ, %34, %35, FLOAT : (tensor<1x512x128x1xf32>, tensor<1x512x128x1xf32>) -> tensor<1x512x128x1xi1>
    %cst_9 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %37 = call @_where_0(%36, %cst_9, %34) : (tensor<1x512x128x1xi1>, tensor<f32>, tensor<1x512x128x1xf32>) -> tensor<1x512x128x1xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2, 3] : (tensor<1x512x128x1xf32>) -> tensor<1x512x128x32xf32>
    %39 = stablehlo.divide %4, %38 : tensor<1x512x128x32xf32>
    %cst_10 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_11 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %40 = call @clip(%39, %cst_10, %cst_11) : (tensor<1x512x128x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x512x128x32xf32>
    %41 = stablehlo.convert %40 : (tensor<1x512x128x32xf32>) -> tensor<1x512x128x32xf8E4M3FN>
    %42 = stablehlo.reshape %41 : (tensor<1x512x128x32xf8E4M3FN>) -> tensor<1x512x4096xf8E4M3FN>
    %43 = stablehlo.reshape %30 : (tensor<1x512x128x1xui8>) -> tensor<1x512x128xui8>
    %44 = stablehlo.bitcast_convert %43 : (tensor<1x512x128xui8>) -> tensor<1x512x128xf8E8M0FNU>
    %45 = stablehlo.reshape %3 : (tensor<1x14336x4096xf32>) -> tensor<1x14336x128x32xf32>
    %46 = stablehlo.abs %45 : tensor<1x14336x128x32xf32>
    %cst_12 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %47 = stablehlo.reduce(%46 init: %cst_12) applies stablehlo.maximum across dimensions = [3] : (tensor<1x14336x128x32xf32>, tensor<f32>) -> tensor<1x14336x128xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2] : (tensor<1x14336x128xf32>) -> tensor<1x14336x128x1xf32>
    %cst_13 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<1x14336x128x1xf32>
    %50 = stablehlo.divide %48, %49 : tensor<1x14336x128x1xf32>
    %51 = stablehlo.bitcast_convert %50 : (tensor<1x14336x128x1xf32>) -> tensor<1x14336x128x1xui32>
    %c_14 = stablehlo.constant dense<23> : tensor<ui32>
    %52 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %53 = stablehlo.shift_right_logical %51, %52 : tensor<1x14336x128x1xui32>
    %c_15 = stablehlo.constant dense<8388607> : tensor<ui32>
    %54 = stablehlo.broadcast_in_dim %c_15, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %55 = stablehlo.and %51, %54 : tensor<1x14336x128x1xui32>
    %c_16 = stablehlo.constant dense<0> : tensor<ui32>
    %56 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %57 = stablehlo.compare GT, %55, %56, UNSIGNED : (tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xi1>
    %c_17 = stablehlo.constant dense<254> : tensor<ui32>
    %58 = stablehlo.broadcast_in_dim %c_17, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %59 = stablehlo.compare NE, %53, %58, UNSIGNED : (tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xi1>
    %60 = stablehlo.and %57, %59 : tensor<1x14336x128x1xi1>
    %c_18 = stablehlo.constant dense<0> : tensor<ui32>
    %61 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %62 = stablehlo.compare EQ, %53, %61, UNSIGNED : (tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xi1>
    %c_19 = stablehlo.constant dense<4194304> : tensor<ui32>
    %63 = stablehlo.broadcast_in_dim %c_19, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %64 = stablehlo.compare LE, %55, %63, UNSIGNED : (tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xi1>
    %65 = stablehlo.and %62, %64 : tensor<1x14336x128x1xi1>
    %66 = stablehlo.not %65 : tensor<1x14336x128x1xi1>
    %67 = stablehlo.and %60, %66 : tensor<1x14336x128x1xi1>
    %c_20 = stablehlo.constant dense<1> : tensor<ui32>
    %68 = stablehlo.broadcast_in_dim %c_20, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %69 = stablehlo.add %53, %68 : tensor<1x14336x128x1xui32>
    %70 = call @_where_1(%67, %69, %53) : (tensor<1x14336x128x1xi1>, tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xui32>
    %71 = stablehlo.convert %70 : (tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xui8>
    %72 = stablehlo.convert %71 : (tensor<1x14336x128x1xui8>) -> tensor<1x14336x128x1xui32>
    %c_21 = stablehlo.constant dense<23> : tensor<ui32>
    %73 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %74 = stablehlo.shift_left %72, %73 : tensor<1x14336x128x1xui32>
    %75 = stablehlo.bitcast_convert %74 : (tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<1x14336x128x1xf32>
    %77 = stablehlo.compare EQ, %75, %76, FLOAT : (tensor<1x14336x128x1xf32>, tensor<1x14336x128x1xf32>) -> tensor<1x14336x128x1xi1>
    %cst_23 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %78 = call @_where_2(%77, %cst_23, %75) : (tensor<1x14336x128x1xi1>, tensor<f32>, tensor<1x14336x128x1xf32>) -> tensor<1x14336x128x1xf32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [0, 1, 2, 3] : (tensor<1x14336x128x1xf32>) -> tensor<1x14336x128x32xf32>
    %80 = stablehlo.divide %45, %79 : tensor<1x14336x128x32xf32>
    %cst_24 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_25 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %81 = call @clip_3(%80, %cst_24, %cst_25) : (tensor<1x14336x128x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x14336x128x32xf32>
    %82 = stablehlo.convert %81 : (tensor<1x14336x128x32xf32>) -> tensor<1x14336x128x32xf8E4M3FN>
    %83 = stablehlo.reshape %82 : (tensor<1x14336x128x32xf8E4M3FN>) -> tensor<1x14336x4096xf8E4M3FN>
    %84 = stablehlo.reshape %71 : (tensor<1x14336x128x1xui8>) -> tensor<1x14336x128xui8>
    %85 = stablehlo.bitcast_convert %84 : (tensor<1x14336x128xui8>) -> tensor<1x14336x128xf8E8M0FNU>
    %86 = call @_scaled_matmul(%42, %83, %44, %85) : (tensor<1x512x4096xf8E4M3FN>, tensor<1x14336x4096xf8E4M3FN>, tensor<1x512x128xf8E8M0FNU>, tensor<1x14336x128xf8E8M0FNU>) -> tensor<1x512x14336xf32>
    %87 = stablehlo.reshape %86 : (tensor<1x512x14336xf32>) -> tensor<512x14336xf32>
    %88 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<512x4096xf32>) -> tensor<512x4096x1xf32>
    %89 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<4096x14336xf32>) -> tensor<4096x14336x1xf32>
    %90 = stablehlo.transpose %88, dims = [2, 0, 1] : (tensor<512x4096x1xf32>) -> tensor<1x512x4096xf32>
    %91 = stablehlo.transpose %89, dims = [2, 1, 0] : (tensor<4096x14336x1xf32>) -> tensor<1x14336x4096xf32>
    %92 = stablehlo.reshape %90 : (tensor<1x512x4096xf32>) -> tensor<1x512x128x32xf32>
    %93 = stablehlo.abs %92 : tensor<1x512x128x32xf32>
    %cst_26 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %94 = stablehlo.reduce(%93 init: %cst_26) applies stablehlo.maximum across dimensions = [3] : (tensor<1x512x128x32xf32>, tensor<f32>) -> tensor<1x512x128xf32>
    %95 = stablehlo.broadcast_in_dim %94, dims = [0, 1, 2] : (tensor<1x512x128xf32>) -> tensor<1x512x128x1xf32>
    %cst_27 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<1x512x128x1xf32>
    %97 = stablehlo.divide %95, %96 : tensor<1x512x128x1xf32>
    %98 = stablehlo.bitcast_convert %97 : (tensor<1x512x128x1xf32>) -> tensor<1x512x128x1xui32>
    %c_28 = stablehlo.constant dense<23> : tensor<ui32>
    %99 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %100 = stablehlo.shift_right_logical %98, %99 : tensor<1x512x128x1xui32>
    %c_29 = stablehlo.constant dense<8388607> : tensor<ui32>
    %101 = stablehlo.broadcast_in_dim %c_29, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %102 = stablehlo.and %98, %101 : tensor<1x512x128x1xui32>
    %c_30 = stablehlo.constant dense<0> : tensor<ui32>
    %103 = stablehlo.broadcast_in_dim %c_30, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %104 = stablehlo.compare GT, %102, %103, UNSIGNED : (tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xi1>
    %c_31 = stablehlo.constant dense<254> : tensor<ui32>
    %105 = stablehlo.broadcast_in_dim %c_31, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %106 = stablehlo.compare NE, %100, %105, UNSIGNED : (tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xi1>
    %107 = stablehlo.and %104, %106 : tensor<1x512x128x1xi1>
    %c_32 = stablehlo.constant dense<0> : tensor<ui32>
    %108 = stablehlo.broadcast_in_dim %c_32, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %109 = stablehlo.compare EQ, %100, %108, UNSIGNED : (tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xi1>
    %c_33 = stablehlo.constant dense<4194304> : tensor<ui32>
    %110 = stablehlo.broadcast_in_dim %c_33, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %111 = stablehlo.compare LE, %102, %110, UNSIGNED : (tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xi1>
    %112 = stablehlo.and %109, %111 : tensor<1x512x128x1xi1>
    %113 = stablehlo.not %112 : tensor<1x512x128x1xi1>
    %114 = stablehlo.and %107, %113 : tensor<1x512x128x1xi1>
    %c_34 = stablehlo.constant dense<1> : tensor<ui32>
    %115 = stablehlo.broadcast_in_dim %c_34, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %116 = stablehlo.add %100, %115 : tensor<1x512x128x1xui32>
    %117 = call @_where(%114, %116, %100) : (tensor<1x512x128x1xi1>, tensor<1x512x128x1xui32>, tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xui32>
    %118 = stablehlo.convert %117 : (tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xui8>
    %119 = stablehlo.convert %118 : (tensor<1x512x128x1xui8>) -> tensor<1x512x128x1xui32>
    %c_35 = stablehlo.constant dense<23> : tensor<ui32>
    %120 = stablehlo.broadcast_in_dim %c_35, dims = [] : (tensor<ui32>) -> tensor<1x512x128x1xui32>
    %121 = stablehlo.shift_left %119, %120 : tensor<1x512x128x1xui32>
    %122 = stablehlo.bitcast_convert %121 : (tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<1x512x128x1xf32>
    %124 = stablehlo.compare EQ, %122, %123, FLOAT : (tensor<1x512x128x1xf32>, tensor<1x512x128x1xf32>) -> tensor<1x512x128x1xi1>
    %cst_37 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %125 = call @_where_0(%124, %cst_37, %122) : (tensor<1x512x128x1xi1>, tensor<f32>, tensor<1x512x128x1xf32>) -> tensor<1x512x128x1xf32>
    %126 = stablehlo.broadcast_in_dim %125, dims = [0, 1, 2, 3] : (tensor<1x512x128x1xf32>) -> tensor<1x512x128x32xf32>
    %127 = stablehlo.divide %92, %126 : tensor<1x512x128x32xf32>
    %cst_38 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_39 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %128 = call @clip(%127, %cst_38, %cst_39) : (tensor<1x512x128x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x512x128x32xf32>
    %129 = stablehlo.convert %128 : (tensor<1x512x128x32xf32>) -> tensor<1x512x128x32xf8E4M3FN>
    %130 = stablehlo.reshape %129 : (tensor<1x512x128x32xf8E4M3FN>) -> tensor<1x512x4096xf8E4M3FN>
    %131 = stablehlo.reshape %118 : (tensor<1x512x128x1xui8>) -> tensor<1x512x128xui8>
    %132 = stablehlo.bitcast_convert %131 : (tensor<1x512x128xui8>) -> tensor<1x512x128xf8E8M0FNU>
    %133 = stablehlo.reshape %91 : (tensor<1x14336x4096xf32>) -> tensor<1x14336x128x32xf32>
    %134 = stablehlo.abs %133 : tensor<1x14336x128x32xf32>
    %cst_40 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %135 = stablehlo.reduce(%134 init: %cst_40) applies stablehlo.maximum across dimensions = [3] : (tensor<1x14336x128x32xf32>, tensor<f32>) -> tensor<1x14336x128xf32>
    %136 = stablehlo.broadcast_in_dim %135, dims = [0, 1, 2] : (tensor<1x14336x128xf32>) -> tensor<1x14336x128x1xf32>
    %cst_41 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<1x14336x128x1xf32>
    %138 = stablehlo.divide %136, %137 : tensor<1x14336x128x1xf32>
    %139 = stablehlo.bitcast_convert %138 : (tensor<1x14336x128x1xf32>) -> tensor<1x14336x128x1xui32>
    %c_42 = stablehlo.constant dense<23> : tensor<ui32>
    %140 = stablehlo.broadcast_in_dim %c_42, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %141 = stablehlo.shift_right_logical %139, %140 : tensor<1x14336x128x1xui32>
    %c_43 = stablehlo.constant dense<8388607> : tensor<ui32>
    %142 = stablehlo.broadcast_in_dim %c_43, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %143 = stablehlo.and %139, %142 : tensor<1x14336x128x1xui32>
    %c_44 = stablehlo.constant dense<0> : tensor<ui32>
    %144 = stablehlo.broadcast_in_dim %c_44, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %145 = stablehlo.compare GT, %143, %144, UNSIGNED : (tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xi1>
    %c_45 = stablehlo.constant dense<254> : tensor<ui32>
    %146 = stablehlo.broadcast_in_dim %c_45, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %147 = stablehlo.compare NE, %141, %146, UNSIGNED : (tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xi1>
    %148 = stablehlo.and %145, %147 : tensor<1x14336x128x1xi1>
    %c_46 = stablehlo.constant dense<0> : tensor<ui32>
    %149 = stablehlo.broadcast_in_dim %c_46, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %150 = stablehlo.compare EQ, %141, %149, UNSIGNED : (tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xi1>
    %c_47 = stablehlo.constant dense<4194304> : tensor<ui32>
    %151 = stablehlo.broadcast_in_dim %c_47, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %152 = stablehlo.compare LE, %143, %151, UNSIGNED : (tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xi1>
    %153 = stablehlo.and %150, %152 : tensor<1x14336x128x1xi1>
    %154 = stablehlo.not %153 : tensor<1x14336x128x1xi1>
    %155 = stablehlo.and %148, %154 : tensor<1x14336x128x1xi1>
    %c_48 = stablehlo.constant dense<1> : tensor<ui32>
    %156 = stablehlo.broadcast_in_dim %c_48, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %157 = stablehlo.add %141, %156 : tensor<1x14336x128x1xui32>
    %158 = call @_where_1(%155, %157, %141) : (tensor<1x14336x128x1xi1>, tensor<1x14336x128x1xui32>, tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xui32>
    %159 = stablehlo.convert %158 : (tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xui8>
    %160 = stablehlo.convert %159 : (tensor<1x14336x128x1xui8>) -> tensor<1x14336x128x1xui32>
    %c_49 = stablehlo.constant dense<23> : tensor<ui32>
    %161 = stablehlo.broadcast_in_dim %c_49, dims = [] : (tensor<ui32>) -> tensor<1x14336x128x1xui32>
    %162 = stablehlo.shift_left %160, %161 : tensor<1x14336x128x1xui32>
    %163 = stablehlo.bitcast_convert %162 : (tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %164 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<1x14336x128x1xf32>
    %165 = stablehlo.compare EQ, %163, %164, FLOAT : (tensor<1x14336x128x1xf32>, tensor<1x14336x128x1xf32>) -> tensor<1x14336x128x1xi1>
    %cst_51 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %166 = call @_where_2(%165, %cst_51, %163) : (tensor<1x14336x128x1xi1>, tensor<f32>, tensor<1x14336x128x1xf32>) -> tensor<1x14336x128x1xf32>
    %167 = stablehlo.broadcast_in_dim %166, dims = [0, 1, 2, 3] : (tensor<1x14336x128x1xf32>) -> tensor<1x14336x128x32xf32>
    %168 = stablehlo.divide %133, %167 : tensor<1x14336x128x32xf32>
    %cst_52 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_53 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %169 = call @clip_3(%168, %cst_52, %cst_53) : (tensor<1x14336x128x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x14336x128x32xf32>
    %170 = stablehlo.convert %169 : (tensor<1x14336x128x32xf32>) -> tensor<1x14336x128x32xf8E4M3FN>
    %171 = stablehlo.reshape %170 : (tensor<1x14336x128x32xf8E4M3FN>) -> tensor<1x14336x4096xf8E4M3FN>
    %172 = stablehlo.reshape %159 : (tensor<1x14336x128x1xui8>) -> tensor<1x14336x128xui8>
    %173 = stablehlo.bitcast_convert %172 : (tensor<1x14336x128xui8>) -> tensor<1x14336x128xf8E8M0FNU>
    %174 = call @_scaled_matmul(%130, %171, %132, %173) : (tensor<1x512x4096xf8E4M3FN>, tensor<1x14336x4096xf8E4M3FN>, tensor<1x512x128xf8E8M0FNU>, tensor<1x14336x128xf8E8M0FNU>) -> tensor<1x512x14336xf32>
    %175 = stablehlo.reshape %174 : (tensor<1x512x14336xf32>) -> tensor<512x14336xf32>
    %176 = call @silu(%87) : (tensor<512x14336xf32>) -> tensor<512x14336xf32>
    %177 = stablehlo.multiply %176, %175 : tensor<512x14336xf32>
    %178 = stablehlo.broadcast_in_dim %177, dims = [0, 1] : (tensor<512x14336xf32>) -> tensor<512x14336x1xf32>
    %179 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<14336x4096xf32>) -> tensor<14336x4096x1xf32>
    %180 = stablehlo.transpose %178, dims = [2, 0, 1] : (tensor<512x14336x1xf32>) -> tensor<1x512x14336xf32>
    %181 = stablehlo.transpose %179, dims = [2, 1, 0] : (tensor<14336x4096x1xf32>) -> tensor<1x4096x14336xf32>
    %182 = stablehlo.reshape %180 : (tensor<1x512x14336xf32>) -> tensor<1x512x448x32xf32>
    %183 = stablehlo.abs %182 : tensor<1x512x448x32xf32>
    %cst_54 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %184 = stablehlo.reduce(%183 init: %cst_54) applies stablehlo.maximum across dimensions = [3] : (tensor<1x512x448x32xf32>, tensor<f32>) -> tensor<1x512x448xf32>
    %185 = stablehlo.broadcast_in_dim %184, dims = [0, 1, 2] : (tensor<1x512x448xf32>) -> tensor<1x512x448x1xf32>
    %cst_55 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %186 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<1x512x448x1xf32>
    %187 = stablehlo.divide %185, %186 : tensor<1x512x448x1xf32>
    %188 = stablehlo.bitcast_convert %187 : (tensor<1x512x448x1xf32>) -> tensor<1x512x448x1xui32>
    %c_56 = stablehlo.constant dense<23> : tensor<ui32>
    %189 = stablehlo.broadcast_in_dim %c_56, dims = [] : (tensor<ui32>) -> tensor<1x512x448x1xui32>
    %190 = stablehlo.shift_right_logical %188, %189 : tensor<1x512x448x1xui32>
    %c_57 = stablehlo.constant dense<8388607> : tensor<ui32>
    %191 = stablehlo.broadcast_in_dim %c_57, dims = [] : (tensor<ui32>) -> tensor<1x512x448x1xui32>
    %192 = stablehlo.and %188, %191 : tensor<1x512x448x1xui32>
    %c_58 = stablehlo.constant dense<0> : tensor<ui32>
    %193 = stablehlo.broadcast_in_dim %c_58, dims = [] : (tensor<ui32>) -> tensor<1x512x448x1xui32>
    %194 = stablehlo.compare GT, %192, %193, UNSIGNED : (tensor<1x512x448x1xui32>, tensor<1x512x448x1xui32>) -> tensor<1x512x448x1xi1>
    %c_59 = stablehlo.constant dense<254> : tensor<ui32>
    %195 = stablehlo.broadcast_in_dim %c_59, dims = [] : (tensor<ui32>) -> tensor<1x512x448x1xui32>
    %196 = stablehlo.compare NE, %190, %195, UNSIGNED : (tensor<1x512x448x1xui32>, tensor<1x512x448x1xui32>) -> tensor<1x512x448x1xi1>
    %197 = stablehlo.and %194, %196 : tensor<1x512x448x1xi1>
    %c_60 = stablehlo.constant dense<0> : tensor<ui32>
    %198 = stablehlo.broadcast_in_dim %c_60, dims = [] : (tensor<ui32>) -> tensor<1x512x448x1xui32>
    %199 = stablehlo.compare EQ, %190, %198, UNSIGNED : (tensor<1x512x448x1xui32>, tensor<1x512x448x1xui32>) -> tensor<1x512x448x1xi1>
    %c_61 = stablehlo.constant dense<4194304> : tensor<ui32>
    %200 = stablehlo.broadcast_in_dim %c_61, dims = [] : (tensor<ui32>) -> tensor<1x512x448x1xui32>
    %201 = stablehlo.compare LE, %192, %200, UNSIGNED : (tensor<1x512x448x1xui32>, tensor<1x512x448x1xui32>) -> tensor<1x512x448x1xi1>
    %202 = stablehlo.and %199, %201 : tensor<1x512x448x1xi1>
    %203 = stablehlo.not %202 : tensor<1x512x448x1xi1>
    %204 = stablehlo.and %197, %203 : tensor<1x512x448x1xi1>
    %c_62 = stablehlo.constant dense<1> : tensor<ui32>
    %205 = stablehlo.broadcast_in_dim %c_62, dims = [] : (tensor<ui32>) -> tensor<1x512x448x1xui32>
    %206 = stablehlo.add %190, %205 : tensor<1x512x448x1xui32>
    %207 = call @_where_4(%204, %206, %190) : (tensor<1x512x448x1xi1>, tensor<1x512x448x1xui32>, tensor<1x512x448x1xui32>) -> tensor<1x512x448x1xui32>
    %208 = stablehlo.convert %207 : (tensor<1x512x448x1xui32>) -> tensor<1x512x448x1xui8>
    %209 = stablehlo.convert %208 : (tensor<1x512x448x1xui8>) -> tensor<1x512x448x1xui32>
    %c_63 = stablehlo.constant dense<23> : tensor<ui32>
    %210 = stablehlo.broadcast_in_dim %c_63, dims = [] : (tensor<ui32>) -> tensor<1x512x448x1xui32>
    %211 = stablehlo.shift_left %209, %210 : tensor<1x512x448x1xui32>
    %212 = stablehlo.bitcast_convert %211 : (tensor<1x512x448x1xui32>) -> tensor<1x512x448x1xf32>
    %cst_64 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %213 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<1x512x448x1xf32>
    %214 = stablehlo.compare EQ, %212, %213, FLOAT : (tensor<1x512x448x1xf32>, tensor<1x512x448x1xf32>) -> tensor<1x512x448x1xi1>
    %cst_65 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %215 = call @_where_5(%214, %cst_65, %212) : (tensor<1x512x448x1xi1>, tensor<f32>, tensor<1x512x448x1xf32>) -> tensor<1x512x448x1xf32>
    %216 = stablehlo.broadcast_in_dim %215, dims = [0, 1, 2, 3] : (tensor<1x512x448x1xf32>) -> tensor<1x512x448x32xf32>
    %217 = stablehlo.divide %182, %216 : tensor<1x512x448x32xf32>
    %cst_66 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_67 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %218 = call @clip_6(%217, %cst_66, %cst_67) : (tensor<1x512x448x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x512x448x32xf32>
    %219 = stablehlo.convert %218 : (tensor<1x512x448x32xf32>) -> tensor<1x512x448x32xf8E4M3FN>
    %220 = stablehlo.reshape %219 : (tensor<1x512x448x32xf8E4M3FN>) -> tensor<1x512x14336xf8E4M3FN>
    %221 = stablehlo.reshape %208 : (tensor<1x512x448x1xui8>) -> tensor<1x512x448xui8>
    %222 = stablehlo.bitcast_convert %221 : (tensor<1x512x448xui8>) -> tensor<1x512x448xf8E8M0FNU>
    %223 = stablehlo.reshape %181 : (tensor<1x4096x14336xf32>) -> tensor<1x4096x448x32xf32>
    %224 = stablehlo.abs %223 : tensor<1x4096x448x32xf32>
    %cst_68 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %225 = stablehlo.reduce(%224 init: %cst_68) applies stablehlo.maximum across dimensions = [3] : (tensor<1x4096x448x32xf32>, tensor<f32>) -> tensor<1x4096x448xf32>
    %226 = stablehlo.broadcast_in_dim %225, dims = [0, 1, 2] : (tensor<1x4096x448xf32>) -> tensor<1x4096x448x1xf32>
    %cst_69 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %227 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<1x4096x448x1xf32>
    %228 = stablehlo.divide %226, %227 : tensor<1x4096x448x1xf32>
    %229 = stablehlo.bitcast_convert %228 : (tensor<1x4096x448x1xf32>) -> tensor<1x4096x448x1xui32>
    %c_70 = stablehlo.constant dense<23> : tensor<ui32>
    %230 = stablehlo.broadcast_in_dim %c_70, dims = [] : (tensor<ui32>) -> tensor<1x4096x448x1xui32>
    %231 = stablehlo.shift_right_logical %229, %230 : tensor<1x4096x448x1xui32>
    %c_71 = stablehlo.constant dense<8388607> : tensor<ui32>
    %232 = stablehlo.broadcast_in_dim %c_71, dims = [] : (tensor<ui32>) -> tensor<1x4096x448x1xui32>
    %233 = stablehlo.and %229, %232 : tensor<1x4096x448x1xui32>
    %c_72 = stablehlo.constant dense<0> : tensor<ui32>
    %234 = stablehlo.broadcast_in_dim %c_72, dims = [] : (tensor<ui32>) -> tensor<1x4096x448x1xui32>
    %235 = stablehlo.compare GT, %233, %234, UNSIGNED : (tensor<1x4096x448x1xui32>, tensor<1x4096x448x1xui32>) -> tensor<1x4096x448x1xi1>
    %c_73 = stablehlo.constant dense<254> : tensor<ui32>
    %236 = stablehlo.broadcast_in_dim %c_73, dims = [] : (tensor<ui32>) -> tensor<1x4096x448x1xui32>
    %237 = stablehlo.compare NE, %231, %236, UNSIGNED : (tensor<1x4096x448x1xui32>, tensor<1x4096x448x1xui32>) -> tensor<1x4096x448x1xi1>
    %238 = stablehlo.and %235, %237 : tensor<1x4096x448x1xi1>
    %c_74 = stablehlo.constant dense<0> : tensor<ui32>
    %239 = stablehlo.broadcast_in_dim %c_74, dims = [] : (tensor<ui32>) -> tensor<1x4096x448x1xui32>
    %240 = stablehlo.compare EQ, %231, %239, UNSIGNED : (tensor<1x4096x448x1xui32>, tensor<1x4096x448x1xui32>) -> tensor<1x4096x448x1xi1>
    %c_75 = stablehlo.constant dense<4194304> : tensor<ui32>
    %241 = stablehlo.broadcast_in_dim %c_75, dims = [] : (tensor<ui32>) -> tensor<1x4096x448x1xui32>
    %242 = stablehlo.compare LE, %233, %241, UNSIGNED : (tensor<1x4096x448x1xui32>, tensor<1x4096x448x1xui32>) -> tensor<1x4096x448x1xi1>
    %243 = stablehlo.and %240, %242 : tensor<1x4096x448x1xi1>
    %244 = stablehlo.not %243 : tensor<1x4096x448x1xi1>
    %245 = stablehlo.and %238, %244 : tensor<1x4096x448x1xi1>
    %c_76 = stablehlo.constant dense<1> : tensor<ui32>
    %246 = stablehlo.broadcast_in_dim %c_76, dims = [] : (tensor<ui32>) -> tensor<1x4096x448x1xui32>
    %247 = stablehlo.add %231, %246 : tensor<1x4096x448x1xui32>
    %248 = call @_where_7(%245, %247, %231) : (tensor<1x4096x448x1xi1>, tensor<1x4096x448x1xui32>, tensor<1x4096x448x1xui32>) -> tensor<1x4096x448x1xui32>
    %249 = stablehlo.convert %248 : (tensor<1x4096x448x1xui32>) -> tensor<1x4096x448x1xui8>
    %250 = stablehlo.convert %249 : (tensor<1x4096x448x1xui8>) -> tensor<1x4096x448x1xui32>
    %c_77 = stablehlo.constant dense<23> : tensor<ui32>
    %251 = stablehlo.broadcast_in_dim %c_77, dims = [] : (tensor<ui32>) -> tensor<1x4096x448x1xui32>
    %252 = stablehlo.shift_left %250, %251 : tensor<1x4096x448x1xui32>
    %253 = stablehlo.bitcast_convert %252 : (tensor<1x4096x448x1xui32>) -> tensor<1x4096x448x1xf32>
    %cst_78 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %254 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<1x4096x448x1xf32>
    %255 = stablehlo.compare EQ, %253, %254, FLOAT : (tensor<1x4096x448x1xf32>, tensor<1x4096x448x1xf32>) -> tensor<1x4096x448x1xi1>
    %cst_79 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %256 = call @_where_8(%255, %cst_79, %253) : (tensor<1x4096x448x1xi1>, tensor<f32>, tensor<1x4096x448x1xf32>) -> tensor<1x4096x448x1xf32>
    %257 = stablehlo.broadcast_in_dim %256, dims = [0, 1, 2, 3] : (tensor<1x4096x448x1xf32>) -> tensor<1x4096x448x32xf32>
    %258 = stablehlo.divide %223, %257 : tensor<1x4096x448x32xf32>
    %cst_80 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_81 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %259 = call @clip_9(%258, %cst_80, %cst_81) : (tensor<1x4096x448x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4096x448x32xf32>
    %260 = stablehlo.convert %259 : (tensor<1x4096x448x32xf32>) -> tensor<1x4096x448x32xf8E4M3FN>
    %261 = stablehlo.reshape %260 : (tensor<1x4096x448x32xf8E4M3FN>) -> tensor<1x4096x14336xf8E4M3FN>
    %262 = stablehlo.reshape %249 : (tensor<1x4096x448x1xui8>) -> tensor<1x4096x448xui8>
    %263 = stablehlo.bitcast_convert %262 : (tensor<1x4096x448xui8>) -> tensor<1x4096x448xf8E8M0FNU>
    %264 = call @_scaled_matmul_10(%220, %261, %222, %263) : (tensor<1x512x14336xf8E4M3FN>, tensor<1x4096x14336xf8E4M3FN>, tensor<1x512x448xf8E8M0FNU>, tensor<1x4096x448xf8E8M0FNU>) -> tensor<1x512x4096xf32>
    %265 = stablehlo.reshape %264 : (tensor<1x512x4096xf32>) -> tensor<512x4096xf32>
    return %265 : tensor<512x4096xf32>
  }
  func.func private @_where(%arg0: tensor<1x512x128x1xi1>, %arg1: tensor<1x512x128x1xui32>, %arg2: tensor<1x512x128x1xui32>) -> tensor<1x512x128x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x512x128x1xi1>, tensor<1x512x128x1xui32>
    return %0 : tensor<1x512x128x1xui32>
  }
  func.func private @_where_0(%arg0: tensor<1x512x128x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x512x128x1xf32>) -> tensor<1x512x128x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x512x128x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x512x128x1xi1>, tensor<1x512x128x1xf32>
    return %1 : tensor<1x512x128x1xf32>
  }
  func.func private @clip(%arg0: tensor<1x512x128x32xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<1x512x128x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x512x128x32xf32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x512x128x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x512x128x32xf32>
    %3 = stablehlo.minimum %2, %1 : tensor<1x512x128x32xf32>
    return %3 : tensor<1x512x128x32xf32>
  }
  func.func private @_where_1(%arg0: tensor<1x14336x128x1xi1>, %arg1: tensor<1x14336x128x1xui32>, %arg2: tensor<1x14336x128x1xui32>) -> tensor<1x14336x128x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x14336x128x1xi1>, tensor<1x14336x128x1xui32>
    return %0 : tensor<1x14336x128x1xui32>
  }
  func.func private @_where_2(%arg0: tensor<1x14336x128x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x14336x128x1xf32>) -> tensor<1x14336x128x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x14336x128x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x14336x128x1xi1>, tensor<1x14336x128x1xf32>
    return %1 : tensor<1x14336x128x1xf32>
  }
  func.func private @clip_3(%arg0: tensor<1x14336x128x32xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<1x14336x128x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x14336x128x32xf32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x14336x128x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x14336x128x32xf32>
    %3 = stablehlo.minimum %2, %1 : tensor<1x14336x128x32xf32>
    return %3 : tensor<1x14336x128x32xf32>
  }
  func.func private @_scaled_matmul(%arg0: tensor<1x512x4096xf8E4M3FN>, %arg1: tensor<1x14336x4096xf8E4M3FN>, %arg2: tensor<1x512x128xf8E8M0FNU>, %arg3: tensor<1x14336x128xf8E8M0FNU>) -> tensor<1x512x14336xf32> {
    %0 = stablehlo.custom_call @__op$block_scaled_dot(%arg0, %arg1, %arg2, %arg3) {api_version = 2 : i32, backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}", operand_layouts = [dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} : (tensor<1x512x4096xf8E4M3FN>, tensor<1x14336x4096xf8E4M3FN>, tensor<1x512x128xf8E8M0FNU>, tensor<1x14336x128xf8E8M0FNU>) -> tensor<1x512x14336xf32>
    return %0 : tensor<1x512x14336xf32>
  }
  func.func private @silu(%arg0: tensor<512x14336xf32>) -> tensor<512x14336xf32> {
    %0 = stablehlo.negate %arg0 : tensor<512x14336xf32>
    %1 = stablehlo.exponential %0 : tensor<512x14336xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<512x14336xf32>
    %3 = stablehlo.add %2, %1 : tensor<512x14336xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<512x14336xf32>
    %5 = stablehlo.divide %4, %3 : tensor<512x14336xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<512x14336xf32>
    return %6 : tensor<512x14336xf32>
  }
  func.func private @_where_4(%arg0: tensor<1x512x448x1xi1>, %arg1: tensor<1x512x448x1xui32>, %arg2: tensor<1x512x448x1xui32>) -> tensor<1x512x448x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x512x448x1xi1>, tensor<1x512x448x1xui32>
    return %0 : tensor<1x512x448x1xui32>
  }
  func.func private @_where_5(%arg0: tensor<1x512x448x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x512x448x1xf32>) -> tensor<1x512x448x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x512x448x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x512x448x1xi1>, tensor<1x512x448x1xf32>
    return %1 : tensor<1x512x448x1xf32>
  }
  func.func private @clip_6(%arg0: tensor<1x512x448x32xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<1x512x448x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x512x448x32xf32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x512x448x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x512x448x32xf32>
    %3 = stablehlo.minimum %2, %1 : tensor<1x512x448x32xf32>
    return %3 : tensor<1x512x448x32xf32>
  }
  func.func private @_where_7(%arg0: tensor<1x4096x448x1xi1>, %arg1: tensor<1x4096x448x1xui32>, %arg2: tensor<1x4096x448x1xui32>) -> tensor<1x4096x448x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x4096x448x1xi1>, tensor<1x4096x448x1xui32>
    return %0 : tensor<1x4096x448x1xui32>
  }
  func.func private @_where_8(%arg0: tensor<1x4096x448x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x4096x448x1xf32>) -> tensor<1x4096x448x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x4096x448x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x4096x448x1xi1>, tensor<1x4096x448x1xf32>
    return %1 : tensor<1x4096x448x1xf32>
  }
  func.func private @clip_9(%arg0: tensor<1x4096x448x32xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<1x4096x448x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x4096x448x32xf32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x4096x448x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x4096x448x32xf32>
    %3 = stablehlo.minimum %2, %1 : tensor<1x4096x448x32xf32>
    return %3 : tensor<1x4096x448x32xf32>
  }
  func.func private @_scaled_matmul_10(%arg0: tensor<1x512x14336xf8E4M3FN>, %arg1: tensor<1x4096x14336xf8E4M3FN>, %arg2: tensor<1x512x448xf8E8M0FNU>, %arg3: tensor<1x4096x448xf8E8M0FNU>) -> tensor<1x512x4096xf32> {
    %0 = stablehlo.custom_call @__op$block_scaled_dot(%arg0, %arg1, %arg2, %arg3) {api_version = 2 : i32, backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}", operand_layouts = [dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} : (tensor<1x512x14336xf8E4M3FN>, tensor<1x4096x14336xf8E4M3FN>, tensor<1x512x448xf8E8M0FNU>, tensor<1x4096x448xf8E8M0FNU>) -> tensor<1x512x4096xf32>
    return %0 : tensor<1x512x4096xf32>
  }
}
