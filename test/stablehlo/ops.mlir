// Every stablehlo op in its custom form prints back as written, and the generic form
// round-trips (mx-opt --print-op-generic | mx-opt gives the custom form again).

// RUN: mx-opt %s | filecheck %s
// RUN: mx-opt %s --print-op-generic | mx-opt | filecheck %s
// RUN: mx-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @ops(%f: tensor<2x4xf32>, %b: tensor<2x4xbf16>, %u: tensor<2x4xui32>, %p: tensor<2x4xi1>, %s: tensor<f32>, %e: tensor<2x8xf8E4M3FN>) -> tensor<2x4xf32> {
  %0 = stablehlo.abs %f : tensor<2x4xf32>
  %1 = stablehlo.negate %0 : tensor<2x4xf32>
  %2 = stablehlo.not %p : tensor<2x4xi1>
  %3 = stablehlo.exponential %f : tensor<2x4xf32>
  %4 = stablehlo.log %f : tensor<2x4xf32>
  %5 = stablehlo.sqrt %f : tensor<2x4xf32>
  %6 = stablehlo.rsqrt %f : tensor<2x4xf32>
  %7 = stablehlo.tanh %f : tensor<2x4xf32>
  %8 = stablehlo.floor %f : tensor<2x4xf32>
  %9 = stablehlo.ceil %f : tensor<2x4xf32>
  %10 = stablehlo.sign %f : tensor<2x4xf32>
  %11 = stablehlo.round_nearest_even %f : tensor<2x4xf32>
  %12 = stablehlo.add %f, %f : tensor<2x4xf32>
  %13 = stablehlo.subtract %f, %f : tensor<2x4xf32>
  %14 = stablehlo.multiply %b, %b : tensor<2x4xbf16>
  %15 = stablehlo.divide %b, %b : tensor<2x4xbf16>
  %16 = stablehlo.remainder %f, %f : tensor<2x4xf32>
  %17 = stablehlo.maximum %f, %f : tensor<2x4xf32>
  %18 = stablehlo.minimum %f, %f : tensor<2x4xf32>
  %19 = stablehlo.power %f, %f : tensor<2x4xf32>
  %20 = stablehlo.and %u, %u : tensor<2x4xui32>
  %21 = stablehlo.or %p, %p : tensor<2x4xi1>
  %22 = stablehlo.xor %u, %u : tensor<2x4xui32>
  %23 = stablehlo.shift_left %u, %u : tensor<2x4xui32>
  %24 = stablehlo.shift_right_logical %u, %u : tensor<2x4xui32>
  %25 = stablehlo.shift_right_arithmetic %u, %u : tensor<2x4xui32>
  %26 = stablehlo.clamp %s, %f, %s : (tensor<f32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %27 = stablehlo.clamp %f, %f, %f : tensor<2x4xf32>
  %28 = stablehlo.select %p, %f, %f : tensor<2x4xi1>, tensor<2x4xf32>
  %29 = stablehlo.compare GT, %u, %u, UNSIGNED : (tensor<2x4xui32>, tensor<2x4xui32>) -> tensor<2x4xi1>
  %30 = stablehlo.compare EQ, %f, %f : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %31 = stablehlo.convert %f : (tensor<2x4xf32>) -> tensor<2x4xbf16>
  %32 = stablehlo.bitcast_convert %f : (tensor<2x4xf32>) -> tensor<2x4xui32>
  %33 = stablehlo.reshape %e : (tensor<2x8xf8E4M3FN>) -> tensor<2x2x4xf8E4M3FN>
  %34 = stablehlo.bitcast_convert %33 : (tensor<2x2x4xf8E4M3FN>) -> tensor<2x2xui32>
  %35 = stablehlo.bitcast_convert %34 : (tensor<2x2xui32>) -> tensor<2x2x4xf8E4M3FN>
  %36 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
  %37 = stablehlo.broadcast_in_dim %f, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %38 = stablehlo.transpose %f, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %39 = stablehlo.iota dim = 1 : tensor<2x4xi32>
  %40 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %41 = stablehlo.constant dense<-1.500000e+00> : tensor<bf16>
  %42 = stablehlo.dot_general %f, %38, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  %43 = stablehlo.dot_general %f, %f, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2xf32>
  %44 = stablehlo.reduce(%f init: %s) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
  %45 = stablehlo.reduce(%f init: %s) across dimensions = [0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32>, %c: tensor<f32>) {
    %m = stablehlo.multiply %a, %c : tensor<f32>
    %n = stablehlo.add %m, %c : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }
  %46:2 = stablehlo.custom_call @foo(%f, %s) {api_version = 2 : i32, backend_config = "cfg"} : (tensor<2x4xf32>, tensor<f32>) -> (tensor<2x4xf32>, tensor<f32>)
  %47 = stablehlo.composite "my.op" %f {composite_attributes = {k = 1 : i64}, decomposition = @ops} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %12 : tensor<2x4xf32>
}

// CHECK:      %0 = stablehlo.abs %f : tensor<2x4xf32>
// CHECK-NEXT: %1 = stablehlo.negate %0 : tensor<2x4xf32>
// CHECK-NEXT: %2 = stablehlo.not %p : tensor<2x4xi1>
// CHECK-NEXT: %3 = stablehlo.exponential %f : tensor<2x4xf32>
// CHECK-NEXT: %4 = stablehlo.log %f : tensor<2x4xf32>
// CHECK-NEXT: %5 = stablehlo.sqrt %f : tensor<2x4xf32>
// CHECK-NEXT: %6 = stablehlo.rsqrt %f : tensor<2x4xf32>
// CHECK-NEXT: %7 = stablehlo.tanh %f : tensor<2x4xf32>
// CHECK-NEXT: %8 = stablehlo.floor %f : tensor<2x4xf32>
// CHECK-NEXT: %9 = stablehlo.ceil %f : tensor<2x4xf32>
// CHECK-NEXT: %10 = stablehlo.sign %f : tensor<2x4xf32>
// CHECK-NEXT: %11 = stablehlo.round_nearest_even %f : tensor<2x4xf32>
// CHECK-NEXT: %12 = stablehlo.add %f, %f : tensor<2x4xf32>
// CHECK-NEXT: %13 = stablehlo.subtract %f, %f : tensor<2x4xf32>
// CHECK-NEXT: %14 = stablehlo.multiply %b, %b : tensor<2x4xbf16>
// CHECK-NEXT: %15 = stablehlo.divide %b, %b : tensor<2x4xbf16>
// CHECK-NEXT: %16 = stablehlo.remainder %f, %f : tensor<2x4xf32>
// CHECK-NEXT: %17 = stablehlo.maximum %f, %f : tensor<2x4xf32>
// CHECK-NEXT: %18 = stablehlo.minimum %f, %f : tensor<2x4xf32>
// CHECK-NEXT: %19 = stablehlo.power %f, %f : tensor<2x4xf32>
// CHECK-NEXT: %20 = stablehlo.and %u, %u : tensor<2x4xui32>
// CHECK-NEXT: %21 = stablehlo.or %p, %p : tensor<2x4xi1>
// CHECK-NEXT: %22 = stablehlo.xor %u, %u : tensor<2x4xui32>
// CHECK-NEXT: %23 = stablehlo.shift_left %u, %u : tensor<2x4xui32>
// CHECK-NEXT: %24 = stablehlo.shift_right_logical %u, %u : tensor<2x4xui32>
// CHECK-NEXT: %25 = stablehlo.shift_right_arithmetic %u, %u : tensor<2x4xui32>
// CHECK-NEXT: %26 = stablehlo.clamp %s, %f, %s : (tensor<f32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK-NEXT: %27 = stablehlo.clamp %f, %f, %f : tensor<2x4xf32>
// CHECK-NEXT: %28 = stablehlo.select %p, %f, %f : tensor<2x4xi1>, tensor<2x4xf32>
// CHECK-NEXT: %29 = stablehlo.compare GT, %u, %u, UNSIGNED : (tensor<2x4xui32>, tensor<2x4xui32>) -> tensor<2x4xi1>
// CHECK-NEXT: %30 = stablehlo.compare EQ, %f, %f : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
// CHECK-NEXT: %31 = stablehlo.convert %f : (tensor<2x4xf32>) -> tensor<2x4xbf16>
// CHECK-NEXT: %32 = stablehlo.bitcast_convert %f : (tensor<2x4xf32>) -> tensor<2x4xui32>
// CHECK-NEXT: %33 = stablehlo.reshape %e : (tensor<2x8xf8E4M3FN>) -> tensor<2x2x4xf8E4M3FN>
// CHECK-NEXT: %34 = stablehlo.bitcast_convert %33 : (tensor<2x2x4xf8E4M3FN>) -> tensor<2x2xui32>
// CHECK-NEXT: %35 = stablehlo.bitcast_convert %34 : (tensor<2x2xui32>) -> tensor<2x2x4xf8E4M3FN>
// CHECK-NEXT: %36 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
// CHECK-NEXT: %37 = stablehlo.broadcast_in_dim %f, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %38 = stablehlo.transpose %f, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %39 = stablehlo.iota dim = 1 : tensor<2x4xi32>
// CHECK-NEXT: %40 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %41 = stablehlo.constant dense<-1.500000e+00> : tensor<bf16>
// CHECK-NEXT: %42 = stablehlo.dot_general %f, %38, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: %43 = stablehlo.dot_general %f, %f, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2xf32>
// CHECK-NEXT: %44 = stablehlo.reduce(%f init: %s) applies stablehlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %45 = stablehlo.reduce(%f init: %s) across dimensions = [0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4xf32> reducer(%a: tensor<f32>, %c: tensor<f32>) {
// CHECK-NEXT:   %m = stablehlo.multiply %a, %c : tensor<f32>
// CHECK-NEXT:   %n = stablehlo.add %m, %c : tensor<f32>
// CHECK-NEXT:   stablehlo.return %n : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: %46, %47 = stablehlo.custom_call @foo(%f, %s) {api_version = 2 : i32, backend_config = "cfg"} : (tensor<2x4xf32>, tensor<f32>) -> (tensor<2x4xf32>, tensor<f32>)
// CHECK-NEXT: %48 = stablehlo.composite "my.op" %f {composite_attributes = {k = 1 : i64}, decomposition = @ops} : (tensor<2x4xf32>) -> tensor<2x4xf32>

// GENERIC: "stablehlo.compare"(%u, %u) <{comparison_direction = "GT", compare_type = "UNSIGNED"}>
// GENERIC: "stablehlo.dot_general"(%f, %38) <{lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>, precision_config = ["DEFAULT", "HIGHEST"]}>
// GENERIC: "stablehlo.reduce"(%f, %s) <{dimensions = array<i64: 1>, operandSegmentSizes = array<i32: 1, 1>}> ({
// GENERIC: "stablehlo.custom_call"(%f, %s) <{call_target_name = "foo"}> {api_version = 2 : i32, backend_config = "cfg"}
// GENERIC: "stablehlo.composite"(%f) <{name = "my.op"}> {composite_attributes = {k = 1 : i64}, decomposition = @ops}
