// Both legalizations over the shipped MX matmul example: the two QuantizeMX calls and
// the __op$block_scaled_dot that consumes them (spec §4.3). The legalized IR verifies
// against the contract again after re-parsing, in custom and in generic form.

// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul | filecheck %s
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul | mx-opt | filecheck %s
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul --print-op-generic | mx-opt | filecheck %s
// The passes are independent: the other order gives the same IR.
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-scaled-matmul,legalize-quantize-mx | filecheck %s

// CHECK-LABEL: func.func @main(%x: tensor<128x256xbf16>, %w: tensor<256x64xbf16>) -> tensor<128x64xf32> {
// CHECK-NEXT:    %[[XMETA:[^ ]+]] = hlo.constant (dense<[128, 256]> : tensor<2xi64>, dense<1> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %xq = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%[[XMETA]], %x) {backend_config = "", api_version = 1 : i32}
// CHECK-SAME:        : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<128x256xbf16>) -> tuple<tensor<128x64xui32>, tensor<128x8xf8E8M0FNU>>
// CHECK-NEXT:    %[[WMETA:[^ ]+]] = hlo.constant (dense<[256, 64]> : tensor<2xi64>, dense<0> : tensor<i64>, dense<32> : tensor<i64>, dense<0> : tensor<i64>)
// CHECK-NEXT:    %wq = hlo.custom_call @QuantizeMX_bf16_e4m3fn(%[[WMETA]], %w) {backend_config = "", api_version = 1 : i32}
// CHECK-SAME:        : (tuple<tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<i64>>, tensor<256x64xbf16>) -> tuple<tensor<64x64xui32>, tensor<8x64xf8E8M0FNU>>
// CHECK-NEXT:    %x_data = hlo.get_tuple_element %xq[0]
// CHECK-NEXT:    %x_scale = hlo.get_tuple_element %xq[1]
// CHECK-NEXT:    %w_data = hlo.get_tuple_element %wq[0]
// CHECK-NEXT:    %w_scale = hlo.get_tuple_element %wq[1]
// CHECK-NEXT:    %[[DMETA:[^ ]+]] = hlo.constant (dense<-1> : tensor<i64>, dense<-1> : tensor<i64>, dense<1> : tensor<i64>, dense<0> : tensor<i64>, dense<2> : tensor<i64>, dense<2> : tensor<i64>, dense<32> : tensor<i64>)
// CHECK-NEXT:    %y = hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%x_data, %w_data, %x_scale, %w_scale, %[[DMETA]])
// CHECK-SAME:        {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [], \22rhs_batch_dimensions\22: [], \22lhs_contracting_dimensions\22: [1], \22rhs_contracting_dimensions\22: [0], \22element_dtype\22: \22float8_e4m3fn\22}}", api_version = 1 : i32}
// CHECK-SAME:        -> tensor<128x64xf32>
// CHECK-NEXT:    func.return %y : tensor<128x64xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   QuantizeMX(
// CHECK-NOT:   block_scaled_dot
