// The elementwise ops JAX writes for activations and norms: the stablehlo ones and the
// chlo subset (chlo.erf / chlo.erfc, exact GELU) print back as written, round-trip the
// generic form, and run (mx-run) with the values worked out below.

// RUN: mx-opt %s | filecheck %s
// RUN: mx-opt %s --print-op-generic | mx-opt | filecheck %s
// RUN: mx-run %s --print-values | filecheck %s --check-prefix=VAL

func.func @main() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %x = stablehlo.constant dense<[0.000000e+00, -0.000000e+00, 0x7F800000]> : tensor<3xf32>
  %0 = stablehlo.exponential_minus_one %x : tensor<3xf32>
  %1 = stablehlo.log_plus_one %x : tensor<3xf32>
  %2 = stablehlo.logistic %x : tensor<3xf32>
  %3 = chlo.erf %x : tensor<3xf32> -> tensor<3xf32>
  %4 = chlo.erfc %x : tensor<3xf32> -> tensor<3xf32>
  %5 = stablehlo.tanh %x : tensor<3xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK:      %0 = stablehlo.exponential_minus_one %x : tensor<3xf32>
// CHECK-NEXT: %1 = stablehlo.log_plus_one %x : tensor<3xf32>
// CHECK-NEXT: %2 = stablehlo.logistic %x : tensor<3xf32>
// CHECK-NEXT: %3 = chlo.erf %x : tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT: %4 = chlo.erfc %x : tensor<3xf32> -> tensor<3xf32>

// expm1, log1p, erf and tanh keep the sign of zero; logistic(0) = 1/2, erfc(0) = 1
// VAL: result0 = [0.0, -0.0, inf]
// VAL: result1 = [0.0, -0.0, inf]
// VAL: result2 = [0.5, 0.5, 1.0]
// VAL: result3 = [0.0, -0.0, 1.0]
// VAL: result4 = [1.0, 1.0, 0.0]
// VAL: result5 = [0.0, -0.0, 1.0]
