module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x32xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<64x32xf32>) -> (tensor<8x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<8x32xf32>) -> tensor<8x32x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<32x64xf32>) -> tensor<32x64x1xf32>
    %2 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<8x32x1xf32>) -> tensor<1x8x32xf32>
    %3 = stablehlo.transpose %1, dims = [2, 1, 0] : (tensor<32x64x1xf32>) -> tensor<1x64x32xf32>
    %4 = stablehlo.reshape %2 : (tensor<1x8x32xf32>) -> tensor<1x8x1x32xf32>
    %5 = stablehlo.abs %4 : tensor<1x8x1x32xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.maximum across dimensions = [3] : (tensor<1x8x1x32xf32>, tensor<f32>) -> tensor<1x8x1xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<1x8x1xf32>) -> tensor<1x8x1x1xf32>
    %cst_0 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x8x1x1xf32>
    %9 = stablehlo.divide %7, %8 : tensor<1x8x1x1xf32>
    %10 = stablehlo.bitcast_convert %9 : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xui32>
    %c = stablehlo.constant dense<23> : tensor<ui32>
    %11 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<1x8x1x1xui32>
    %12 = stablehlo.shift_right_logical %10, %11 : tensor<1x8x1x1xui32>
    %c_1 = stablehlo.constant dense<8388607> : tensor<ui32>
    %13 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<1x8x1x1xui32>
    %14 = stablehlo.and %10, %13 : tensor<1x8x1x1xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<ui32>
    %15 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<1x8x1x1xui32>
    %16 = stablehlo.compare GT, %14, %15, UNSIGNED : (tensor<1x8x1x1xui32>, tensor<1x8x1x1xui32>) -> tensor<1x8x1x1xi1>
    %c_3 = stablehlo.constant dense<254> : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<1x8x1x1xui32>
    %18 = stablehlo.compare NE, %12, %17, UNSIGNED : (tensor<1x8x1x1xui32>, tensor<1x8x1x1xui32>) -> tensor<1x8x1x1xi1>
    %19 = stablehlo.and %16, %18 : tensor<1x8x1x1xi1>
    %c_4 = stablehlo.constant dense<0> : tensor<ui32>
    %20 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui32>) -> tensor<1x8x1x1xui32>
    %21 = stablehlo.compare EQ, %12, %20, UNSIGNED : (tensor<1x8x1x1xui32>, tensor<1x8x1x1xui32>) -> tensor<1x8x1x1xi1>
    %c_5 = stablehlo.constant dense<4194304> : tensor<ui32>
    %22 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui32>) -> tensor<1x8x1x1xui32>
    %23 = stablehlo.compare LE, %14, %22, UNSIGNED : (tensor<1x8x1x1xui32>, tensor<1x8x1x1xui32>) -> tensor<1x8x1x1xi1>
    %24 = stablehlo.and %21, %23 : tensor<1x8x1x1xi1>
    %25 = stablehlo.not %24 : tensor<1x8x1x1xi1>
    %26 = stablehlo.and %19, %25 : tensor<1x8x1x1xi1>
    %c_6 = stablehlo.constant dense<1> : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui32>) -> tensor<1x8x1x1xui32>
    %28 = stablehlo.add %12, %27 : tensor<1x8x1x1xui32>
    %29 = call @_where(%26, %28, %12) : (tensor<1x8x1x1xi1>, tensor<1x8x1x1xui32>, tensor<1x8x1x1xui32>) -> tensor<1x8x1x1xui32>
    %30 = stablehlo.convert %29 : (tensor<1x8x1x1xui32>) -> tensor<1x8x1x1xui8>
    %31 = stablehlo.convert %30 : (tensor<1x8x1x1xui8>) -> tensor<1x8x1x1xui32>
    %c_7 = stablehlo.constant dense<23> : tensor<ui32>
    %32 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui32>) -> tensor<1x8x1x1xui32>
    %33 = stablehlo.shift_left %31, %32 : tensor<1x8x1x1xui32>
    %34 = stablehlo.bitcast_convert %33 : (tensor<1x8x1x1xui32>) -> tensor<1x8x1x1xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1x8x1x1xf32>
    %36 = stablehlo.compare EQ, %34, %35, FLOAT : (tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xi1>
    %cst_9 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %37 = call @_where_0(%36, %cst_9, %34) : (tensor<1x8x1x1xi1>, tensor<f32>, tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2, 3] : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x32xf32>
    %39 = stablehlo.divide %4, %38 : tensor<1x8x1x32xf32>
    %cst_10 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_11 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %40 = call @clip(%39, %cst_10, %cst_11) : (tensor<1x8x1x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x1x32xf32>
    %41 = stablehlo.convert %40 : (tensor<1x8x1x32xf32>) -> tensor<1x8x1x32xf8E4M3FN>
    %42 = stablehlo.reshape %41 : (tensor<1x8x1x32xf8E4M3FN>) -> tensor<1x8x32xf8E4M3FN>
    %43 = stablehlo.reshape %30 : (tensor<1x8x1x1xui8>) -> tensor<1x8x1xui8>
    %44 = stablehlo.bitcast_convert %43 : (tensor<1x8x1xui8>) -> tensor<1x8x1xf8E8M0FNU>
    %45 = stablehlo.reshape %3 : (tensor<1x64x32xf32>) -> tensor<1x64x1x32xf32>
    %46 = stablehlo.abs %45 : tensor<1x64x1x32xf32>
    %cst_12 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %47 = stablehlo.reduce(%46 init: %cst_12) applies stablehlo.maximum across dimensions = [3] : (tensor<1x64x1x32xf32>, tensor<f32>) -> tensor<1x64x1xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2] : (tensor<1x64x1xf32>) -> tensor<1x64x1x1xf32>
    %cst_13 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<1x64x1x1xf32>
    %50 = stablehlo.divide %48, %49 : tensor<1x64x1x1xf32>
    %51 = stablehlo.bitcast_convert %50 : (tensor<1x64x1x1xf32>) -> tensor<1x64x1x1xui32>
    %c_14 = stablehlo.constant dense<23> : tensor<ui32>
    %52 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<ui32>) -> tensor<1x64x1x1xui32>
    %53 = stablehlo.shift_right_logical %51, %52 : tensor<1x64x1x1xui32>
    %c_15 = stablehlo.constant dense<8388607> : tensor<ui32>
    %54 = stablehlo.broadcast_in_dim %c_15, dims = [] : (tensor<ui32>) -> tensor<1x64x1x1xui32>
    %55 = stablehlo.and %51, %54 : tensor<1x64x1x1xui32>
    %c_16 = stablehlo.constant dense<0> : tensor<ui32>
    %56 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<ui32>) -> tensor<1x64x1x1xui32>
    %57 = stablehlo.compare GT, %55, %56, UNSIGNED : (tensor<1x64x1x1xui32>, tensor<1x64x1x1xui32>) -> tensor<1x64x1x1xi1>
    %c_17 = stablehlo.constant dense<254> : tensor<ui32>
    %58 = stablehlo.broadcast_in_dim %c_17, dims = [] : (tensor<ui32>) -> tensor<1x64x1x1xui32>
    %59 = stablehlo.compare NE, %53, %58, UNSIGNED : (tensor<1x64x1x1xui32>, tensor<1x64x1x1xui32>) -> tensor<1x64x1x1xi1>
    %60 = stablehlo.and %57, %59 : tensor<1x64x1x1xi1>
    %c_18 = stablehlo.constant dense<0> : tensor<ui32>
    %61 = stablehlo.broadcast_in_dim %c_18, dims = [] : (tensor<ui32>) -> tensor<1x64x1x1xui32>
    %62 = stablehlo.compare EQ, %53, %61, UNSIGNED : (tensor<1x64x1x1xui32>, tensor<1x64x1x1xui32>) -> tensor<1x64x1x1xi1>
    %c_19 = stablehlo.constant dense<4194304> : tensor<ui32>
    %63 = stablehlo.broadcast_in_dim %c_19, dims = [] : (tensor<ui32>) -> tensor<1x64x1x1xui32>
    %64 = stablehlo.compare LE, %55, %63, UNSIGNED : (tensor<1x64x1x1xui32>, tensor<1x64x1x1xui32>) -> tensor<1x64x1x1xi1>
    %65 = stablehlo.and %62, %64 : tensor<1x64x1x1xi1>
    %66 = stablehlo.not %65 : tensor<1x64x1x1xi1>
    %67 = stablehlo.and %60, %66 : tensor<1x64x1x1xi1>
    %c_20 = stablehlo.constant dense<1> : tensor<ui32>
    %68 = stablehlo.broadcast_in_dim %c_20, dims = [] : (tensor<ui32>) -> tensor<1x64x1x1xui32>
    %69 = stablehlo.add %53, %68 : tensor<1x64x1x1xui32>
    %70 = call @_where_1(%67, %69, %53) : (tensor<1x64x1x1xi1>, tensor<1x64x1x1xui32>, tensor<1x64x1x1xui32>) -> tensor<1x64x1x1xui32>
    %71 = stablehlo.convert %70 : (tensor<1x64x1x1xui32>) -> tensor<1x64x1x1xui8>
    %72 = stablehlo.convert %71 : (tensor<1x64x1x1xui8>) -> tensor<1x64x1x1xui32>
    %c_21 = stablehlo.constant dense<23> : tensor<ui32>
    %73 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<ui32>) -> tensor<1x64x1x1xui32>
    %74 = stablehlo.shift_left %72, %73 : tensor<1x64x1x1xui32>
    %75 = stablehlo.bitcast_convert %74 : (tensor<1x64x1x1xui32>) -> tensor<1x64x1x1xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<1x64x1x1xf32>
    %77 = stablehlo.compare EQ, %75, %76, FLOAT : (tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>) -> tensor<1x64x1x1xi1>
    %cst_23 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %78 = call @_where_2(%77, %cst_23, %75) : (tensor<1x64x1x1xi1>, tensor<f32>, tensor<1x64x1x1xf32>) -> tensor<1x64x1x1xf32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [0, 1, 2, 3] : (tensor<1x64x1x1xf32>) -> tensor<1x64x1x32xf32>
    %80 = stablehlo.divide %45, %79 : tensor<1x64x1x32xf32>
    %cst_24 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_25 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %81 = call @clip_3(%80, %cst_24, %cst_25) : (tensor<1x64x1x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x64x1x32xf32>
    %82 = stablehlo.convert %81 : (tensor<1x64x1x32xf32>) -> tensor<1x64x1x32xf8E4M3FN>
    %83 = stablehlo.reshape %82 : (tensor<1x64x1x32xf8E4M3FN>) -> tensor<1x64x32xf8E4M3FN>
    %84 = stablehlo.reshape %71 : (tensor<1x64x1x1xui8>) -> tensor<1x64x1xui8>
    %85 = stablehlo.bitcast_convert %84 : (tensor<1x64x1xui8>) -> tensor<1x64x1xf8E8M0FNU>
    %86 = call @_scaled_matmul(%42, %83, %44, %85) : (tensor<1x8x32xf8E4M3FN>, tensor<1x64x32xf8E4M3FN>, tensor<1x8x1xf8E8M0FNU>, tensor<1x64x1xf8E8M0FNU>) -> tensor<1x8x64xf32>
    %87 = stablehlo.reshape %86 : (tensor<1x8x64xf32>) -> tensor<8x64xf32>
    %88 = call @relu(%87) : (tensor<8x64xf32>) -> tensor<8x64xf32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [0, 1] : (tensor<8x64xf32>) -> tensor<8x64x1xf32>
    %90 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<64x32xf32>) -> tensor<64x32x1xf32>
    %91 = stablehlo.transpose %89, dims = [2, 0, 1] : (tensor<8x64x1xf32>) -> tensor<1x8x64xf32>
    %92 = stablehlo.transpose %90, dims = [2, 1, 0] : (tensor<64x32x1xf32>) -> tensor<1x32x64xf32>
    %93 = stablehlo.reshape %91 : (tensor<1x8x64xf32>) -> tensor<1x8x2x32xf32>
    %94 = stablehlo.abs %93 : tensor<1x8x2x32xf32>
    %cst_26 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %95 = stablehlo.reduce(%94 init: %cst_26) applies stablehlo.maximum across dimensions = [3] : (tensor<1x8x2x32xf32>, tensor<f32>) -> tensor<1x8x2xf32>
    %96 = stablehlo.broadcast_in_dim %95, dims = [0, 1, 2] : (tensor<1x8x2xf32>) -> tensor<1x8x2x1xf32>
    %cst_27 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<1x8x2x1xf32>
    %98 = stablehlo.divide %96, %97 : tensor<1x8x2x1xf32>
    %99 = stablehlo.bitcast_convert %98 : (tensor<1x8x2x1xf32>) -> tensor<1x8x2x1xui32>
    %c_28 = stablehlo.constant dense<23> : tensor<ui32>
    %100 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %101 = stablehlo.shift_right_logical %99, %100 : tensor<1x8x2x1xui32>
    %c_29 = stablehlo.constant dense<8388607> : tensor<ui32>
    %102 = stablehlo.broadcast_in_dim %c_29, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %103 = stablehlo.and %99, %102 : tensor<1x8x2x1xui32>
    %c_30 = stablehlo.constant dense<0> : tensor<ui32>
    %104 = stablehlo.broadcast_in_dim %c_30, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %105 = stablehlo.compare GT, %103, %104, UNSIGNED : (tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xi1>
    %c_31 = stablehlo.constant dense<254> : tensor<ui32>
    %106 = stablehlo.broadcast_in_dim %c_31, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %107 = stablehlo.compare NE, %101, %106, UNSIGNED : (tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xi1>
    %108 = stablehlo.and %105, %107 : tensor<1x8x2x1xi1>
    %c_32 = stablehlo.constant dense<0> : tensor<ui32>
    %109 = stablehlo.broadcast_in_dim %c_32, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %110 = stablehlo.compare EQ, %101, %109, UNSIGNED : (tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xi1>
    %c_33 = stablehlo.constant dense<4194304> : tensor<ui32>
    %111 = stablehlo.broadcast_in_dim %c_33, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %112 = stablehlo.compare LE, %103, %111, UNSIGNED : (tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xi1>
    %113 = stablehlo.and %110, %112 : tensor<1x8x2x1xi1>
    %114 = stablehlo.not %113 : tensor<1x8x2x1xi1>
    %115 = stablehlo.and %108, %114 : tensor<1x8x2x1xi1>
    %c_34 = stablehlo.constant dense<1> : tensor<ui32>
    %116 = stablehlo.broadcast_in_dim %c_34, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %117 = stablehlo.add %101, %116 : tensor<1x8x2x1xui32>
    %118 = call @_where_4(%115, %117, %101) : (tensor<1x8x2x1xi1>, tensor<1x8x2x1xui32>, tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xui32>
    %119 = stablehlo.convert %118 : (tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xui8>
    %120 = stablehlo.convert %119 : (tensor<1x8x2x1xui8>) -> tensor<1x8x2x1xui32>
    %c_35 = stablehlo.constant dense<23> : tensor<ui32>
    %121 = stablehlo.broadcast_in_dim %c_35, dims = [] : (tensor<ui32>) -> tensor<1x8x2x1xui32>
    %122 = stablehlo.shift_left %120, %121 : tensor<1x8x2x1xui32>
    %123 = stablehlo.bitcast_convert %122 : (tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %124 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<1x8x2x1xf32>
    %125 = stablehlo.compare EQ, %123, %124, FLOAT : (tensor<1x8x2x1xf32>, tensor<1x8x2x1xf32>) -> tensor<1x8x2x1xi1>
    %cst_37 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %126 = call @_where_5(%125, %cst_37, %123) : (tensor<1x8x2x1xi1>, tensor<f32>, tensor<1x8x2x1xf32>) -> tensor<1x8x2x1xf32>
    %127 = stablehlo.broadcast_in_dim %126, dims = [0, 1, 2, 3] : (tensor<1x8x2x1xf32>) -> tensor<1x8x2x32xf32>
    %128 = stablehlo.divide %93, %127 : tensor<1x8x2x32xf32>
    %cst_38 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_39 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %129 = call @clip_6(%128, %cst_38, %cst_39) : (tensor<1x8x2x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x2x32xf32>
    %130 = stablehlo.convert %129 : (tensor<1x8x2x32xf32>) -> tensor<1x8x2x32xf8E4M3FN>
    %131 = stablehlo.reshape %130 : (tensor<1x8x2x32xf8E4M3FN>) -> tensor<1x8x64xf8E4M3FN>
    %132 = stablehlo.reshape %119 : (tensor<1x8x2x1xui8>) -> tensor<1x8x2xui8>
    %133 = stablehlo.bitcast_convert %132 : (tensor<1x8x2xui8>) -> tensor<1x8x2xf8E8M0FNU>
    %134 = stablehlo.reshape %92 : (tensor<1x32x64xf32>) -> tensor<1x32x2x32xf32>
    %135 = stablehlo.abs %134 : tensor<1x32x2x32xf32>
    %cst_40 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %136 = stablehlo.reduce(%135 init: %cst_40) applies stablehlo.maximum across dimensions = [3] : (tensor<1x32x2x32xf32>, tensor<f32>) -> tensor<1x32x2xf32>
    %137 = stablehlo.broadcast_in_dim %136, dims = [0, 1, 2] : (tensor<1x32x2xf32>) -> tensor<1x32x2x1xf32>
    %cst_41 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<1x32x2x1xf32>
    %139 = stablehlo.divide %137, %138 : tensor<1x32x2x1xf32>
    %140 = stablehlo.bitcast_convert %139 : (tensor<1x32x2x1xf32>) -> tensor<1x32x2x1xui32>
    %c_42 = stablehlo.constant dense<23> : tensor<ui32>
    %141 = stablehlo.broadcast_in_dim %c_42, dims = [] : (tensor<ui32>) -> tensor<1x32x2x1xui32>
    %142 = stablehlo.shift_right_logical %140, %141 : tensor<1x32x2x1xui32>
    %c_43 = stablehlo.constant dense<8388607> : tensor<ui32>
    %143 = stablehlo.broadcast_in_dim %c_43, dims = [] : (tensor<ui32>) -> tensor<1x32x2x1xui32>
    %144 = stablehlo.and %140, %143 : tensor<1x32x2x1xui32>
    %c_44 = stablehlo.constant dense<0> : tensor<ui32>
    %145 = stablehlo.broadcast_in_dim %c_44, dims = [] : (tensor<ui32>) -> tensor<1x32x2x1xui32>
    %146 = stablehlo.compare GT, %144, %145, UNSIGNED : (tensor<1x32x2x1xui32>, tensor<1x32x2x1xui32>) -> tensor<1x32x2x1xi1>
    %c_45 = stablehlo.constant dense<254> : tensor<ui32>
    %147 = stablehlo.broadcast_in_dim %c_45, dims = [] : (tensor<ui32>) -> tensor<1x32x2x1xui32>
    %148 = stablehlo.compare NE, %142, %147, UNSIGNED : (tensor<1x32x2x1xui32>, tensor<1x32x2x1xui32>) -> tensor<1x32x2x1xi1>
    %149 = stablehlo.and %146, %148 : tensor<1x32x2x1xi1>
    %c_46 = stablehlo.constant dense<0> : tensor<ui32>
    %150 = stablehlo.broadcast_in_dim %c_46, dims = [] : (tensor<ui32>) -> tensor<1x32x2x1xui32>
    %151 = stablehlo.compare EQ, %142, %150, UNSIGNED : (tensor<1x32x2x1xui32>, tensor<1x32x2x1xui32>) -> tensor<1x32x2x1xi1>
    %c_47 = stablehlo.constant dense<4194304> : tensor<ui32>
    %152 = stablehlo.broadcast_in_dim %c_47, dims = [] : (tensor<ui32>) -> tensor<1x32x2x1xui32>
    %153 = stablehlo.compare LE, %144, %152, UNSIGNED : (tensor<1x32x2x1xui32>, tensor<1x32x2x1xui32>) -> tensor<1x32x2x1xi1>
    %154 = stablehlo.and %151, %153 : tensor<1x32x2x1xi1>
    %155 = stablehlo.not %154 : tensor<1x32x2x1xi1>
    %156 = stablehlo.and %149, %155 : tensor<1x32x2x1xi1>
    %c_48 = stablehlo.constant dense<1> : tensor<ui32>
    %157 = stablehlo.broadcast_in_dim %c_48, dims = [] : (tensor<ui32>) -> tensor<1x32x2x1xui32>
    %158 = stablehlo.add %142, %157 : tensor<1x32x2x1xui32>
    %159 = call @_where_7(%156, %158, %142) : (tensor<1x32x2x1xi1>, tensor<1x32x2x1xui32>, tensor<1x32x2x1xui32>) -> tensor<1x32x2x1xui32>
    %160 = stablehlo.convert %159 : (tensor<1x32x2x1xui32>) -> tensor<1x32x2x1xui8>
    %161 = stablehlo.convert %160 : (tensor<1x32x2x1xui8>) -> tensor<1x32x2x1xui32>
    %c_49 = stablehlo.constant dense<23> : tensor<ui32>
    %162 = stablehlo.broadcast_in_dim %c_49, dims = [] : (tensor<ui32>) -> tensor<1x32x2x1xui32>
    %163 = stablehlo.shift_left %161, %162 : tensor<1x32x2x1xui32>
    %164 = stablehlo.bitcast_convert %163 : (tensor<1x32x2x1xui32>) -> tensor<1x32x2x1xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %165 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<1x32x2x1xf32>
    %166 = stablehlo.compare EQ, %164, %165, FLOAT : (tensor<1x32x2x1xf32>, tensor<1x32x2x1xf32>) -> tensor<1x32x2x1xi1>
    %cst_51 = stablehlo.constant dense<5.87747175E-39> : tensor<f32>
    %167 = call @_where_8(%166, %cst_51, %164) : (tensor<1x32x2x1xi1>, tensor<f32>, tensor<1x32x2x1xf32>) -> tensor<1x32x2x1xf32>
    %168 = stablehlo.broadcast_in_dim %167, dims = [0, 1, 2, 3] : (tensor<1x32x2x1xf32>) -> tensor<1x32x2x32xf32>
    %169 = stablehlo.divide %134, %168 : tensor<1x32x2x32xf32>
    %cst_52 = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
    %cst_53 = stablehlo.constant dense<4.480000e+02> : tensor<f32>
    %170 = call @clip_9(%169, %cst_52, %cst_53) : (tensor<1x32x2x32xf32>, tensor<f32>, tensor<f32>) -> tensor<1x32x2x32xf32>
    %171 = stablehlo.convert %170 : (tensor<1x32x2x32xf32>) -> tensor<1x32x2x32xf8E4M3FN>
    %172 = stablehlo.reshape %171 : (tensor<1x32x2x32xf8E4M3FN>) -> tensor<1x32x64xf8E4M3FN>
    %173 = stablehlo.reshape %160 : (tensor<1x32x2x1xui8>) -> tensor<1x32x2xui8>
    %174 = stablehlo.bitcast_convert %173 : (tensor<1x32x2xui8>) -> tensor<1x32x2xf8E8M0FNU>
    %175 = call @_scaled_matmul_10(%131, %172, %133, %174) : (tensor<1x8x64xf8E4M3FN>, tensor<1x32x64xf8E4M3FN>, tensor<1x8x2xf8E8M0FNU>, tensor<1x32x2xf8E8M0FNU>) -> tensor<1x8x32xf32>
    %176 = stablehlo.reshape %175 : (tensor<1x8x32xf32>) -> tensor<8x32xf32>
    return %176 : tensor<8x32xf32>
  }
  func.func private @_where(%arg0: tensor<1x8x1x1xi1>, %arg1: tensor<1x8x1x1xui32>, %arg2: tensor<1x8x1x1xui32>) -> tensor<1x8x1x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x8x1x1xi1>, tensor<1x8x1x1xui32>
    return %0 : tensor<1x8x1x1xui32>
  }
  func.func private @_where_0(%arg0: tensor<1x8x1x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x8x1x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x8x1x1xi1>, tensor<1x8x1x1xf32>
    return %1 : tensor<1x8x1x1xf32>
  }
  func.func private @clip(%arg0: tensor<1x8x1x32xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<1x8x1x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x8x1x32xf32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x8x1x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x8x1x32xf32>
    %3 = stablehlo.minimum %2, %1 : tensor<1x8x1x32xf32>
    return %3 : tensor<1x8x1x32xf32>
  }
  func.func private @_where_1(%arg0: tensor<1x64x1x1xi1>, %arg1: tensor<1x64x1x1xui32>, %arg2: tensor<1x64x1x1xui32>) -> tensor<1x64x1x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x64x1x1xi1>, tensor<1x64x1x1xui32>
    return %0 : tensor<1x64x1x1xui32>
  }
  func.func private @_where_2(%arg0: tensor<1x64x1x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x64x1x1xf32>) -> tensor<1x64x1x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x64x1x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x64x1x1xi1>, tensor<1x64x1x1xf32>
    return %1 : tensor<1x64x1x1xf32>
  }
  func.func private @clip_3(%arg0: tensor<1x64x1x32xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<1x64x1x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x64x1x32xf32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x64x1x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x64x1x32xf32>
    %3 = stablehlo.minimum %2, %1 : tensor<1x64x1x32xf32>
    return %3 : tensor<1x64x1x32xf32>
  }
  func.func private @_scaled_matmul(%arg0: tensor<1x8x32xf8E4M3FN>, %arg1: tensor<1x64x32xf8E4M3FN>, %arg2: tensor<1x8x1xf8E8M0FNU>, %arg3: tensor<1x64x1xf8E8M0FNU>) -> tensor<1x8x64xf32> {
    %0 = stablehlo.custom_call @__op$block_scaled_dot(%arg0, %arg1, %arg2, %arg3) {api_version = 2 : i32, backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}", operand_layouts = [dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} : (tensor<1x8x32xf8E4M3FN>, tensor<1x64x32xf8E4M3FN>, tensor<1x8x1xf8E8M0FNU>, tensor<1x64x1xf8E8M0FNU>) -> tensor<1x8x64xf32>
    return %0 : tensor<1x8x64xf32>
  }
  func.func private @relu(%arg0: tensor<8x64xf32>) -> tensor<8x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x64xf32>
    return %1 : tensor<8x64xf32>
  }
  func.func private @_where_4(%arg0: tensor<1x8x2x1xi1>, %arg1: tensor<1x8x2x1xui32>, %arg2: tensor<1x8x2x1xui32>) -> tensor<1x8x2x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x8x2x1xi1>, tensor<1x8x2x1xui32>
    return %0 : tensor<1x8x2x1xui32>
  }
  func.func private @_where_5(%arg0: tensor<1x8x2x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x8x2x1xf32>) -> tensor<1x8x2x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x8x2x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x8x2x1xi1>, tensor<1x8x2x1xf32>
    return %1 : tensor<1x8x2x1xf32>
  }
  func.func private @clip_6(%arg0: tensor<1x8x2x32xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<1x8x2x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x8x2x32xf32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x8x2x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x8x2x32xf32>
    %3 = stablehlo.minimum %2, %1 : tensor<1x8x2x32xf32>
    return %3 : tensor<1x8x2x32xf32>
  }
  func.func private @_where_7(%arg0: tensor<1x32x2x1xi1>, %arg1: tensor<1x32x2x1xui32>, %arg2: tensor<1x32x2x1xui32>) -> tensor<1x32x2x1xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<1x32x2x1xi1>, tensor<1x32x2x1xui32>
    return %0 : tensor<1x32x2x1xui32>
  }
  func.func private @_where_8(%arg0: tensor<1x32x2x1xi1>, %arg1: tensor<f32>, %arg2: tensor<1x32x2x1xf32>) -> tensor<1x32x2x1xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x32x2x1xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<1x32x2x1xi1>, tensor<1x32x2x1xf32>
    return %1 : tensor<1x32x2x1xf32>
  }
  func.func private @clip_9(%arg0: tensor<1x32x2x32xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<1x32x2x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x32x2x32xf32>
    %1 = stablehlo.maximum %0, %arg0 : tensor<1x32x2x32xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x32x2x32xf32>
    %3 = stablehlo.minimum %2, %1 : tensor<1x32x2x32xf32>
    return %3 : tensor<1x32x2x32xf32>
  }
  func.func private @_scaled_matmul_10(%arg0: tensor<1x8x64xf8E4M3FN>, %arg1: tensor<1x32x64xf8E4M3FN>, %arg2: tensor<1x8x2xf8E8M0FNU>, %arg3: tensor<1x32x2xf8E8M0FNU>) -> tensor<1x8x32xf32> {
    %0 = stablehlo.custom_call @__op$block_scaled_dot(%arg0, %arg1, %arg2, %arg3) {api_version = 2 : i32, backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0], \22rhs_batch_dimensions\22: [0], \22dequantize_type\22: \22F32\22}}", operand_layouts = [dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>, dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} : (tensor<1x8x64xf8E4M3FN>, tensor<1x32x64xf8E4M3FN>, tensor<1x8x2xf8E8M0FNU>, tensor<1x32x2xf8E8M0FNU>) -> tensor<1x8x32xf32>
    return %0 : tensor<1x8x32xf32>
  }
}
