// A hex element of a float dense<...> literal is its bit pattern, splat or not, in the
// custom and the generic syntax (mx-opt and mx-run parse with it): JAX writes NaN and
// the infinities so (jnp.asarray([nan, inf]), softmax masks). Decimal elements beside
// them are read as before; integer literals are unchanged.

// RUN: mx-opt %s | filecheck %s
// RUN: mx-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: mx-opt %s --print-op-generic | mx-opt | filecheck %s
// RUN: mx-opt %s --print-op-generic | mx-opt --print-debuginfo | filecheck %s --check-prefix=DEBUG
// RUN: mx-opt %s --print-op-generic | mx-run - --print-values | filecheck %s --check-prefix=VAL
// RUN: mx-run %s --print-values | filecheck %s --check-prefix=VAL
// RUN: xdsl-opt %s | filecheck %s
// RUN: mx-run %s --symbol masked --print-values | filecheck %s --check-prefix=MASKED

func.func @main() -> (tensor<2xf32>, tensor<2xbf16>, tensor<3xf8E4M3FN>, tensor<2xf16>, tensor<2xi8>, tensor<2xf8E5M2>) {
  %0 = stablehlo.constant dense<[0x7FC00000, 0x7F800000]> : tensor<2xf32>
  %1 = stablehlo.constant dense<[0xFF80, 1.0]> : tensor<2xbf16>
  %2 = stablehlo.constant dense<[0x7F, 1.0, -0.0]> : tensor<3xf8E4M3FN>
  %3 = stablehlo.constant dense<[0x7C00, 2.5]> : tensor<2xf16>
  %4 = stablehlo.constant dense<[0xFF, 3]> : tensor<2xi8>
  %5 = stablehlo.constant dense<0xFC> : tensor<2xf8E5M2>
  func.return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xbf16>, tensor<3xf8E4M3FN>, tensor<2xf16>, tensor<2xi8>, tensor<2xf8E5M2>
}

// jax.nn.softmax(s + jnp.asarray([0, 0, -inf, -inf])) with s = [1, 2, 3, 4]
func.func @masked() -> tensor<4xf32> {
  %s = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %mask = stablehlo.constant dense<[0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000]> : tensor<4xf32>
  %x = stablehlo.add %s, %mask : tensor<4xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %d = stablehlo.subtract %x, %mb : tensor<4xf32>
  %e = stablehlo.exponential %d : tensor<4xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %sb = stablehlo.broadcast_in_dim %sum, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %r = stablehlo.divide %e, %sb : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// CHECK:      stablehlo.constant dense<[0x7fc00000, 0x7f800000]> : tensor<2xf32>
// CHECK-NEXT: stablehlo.constant dense<[0xff80, 1.000000e+00]> : tensor<2xbf16>
// CHECK-NEXT: stablehlo.constant dense<[0x7f, 1.000000e+00, -0.000000e+00]> : tensor<3xf8E4M3FN>
// CHECK-NEXT: stablehlo.constant dense<[0x7c00, 2.500000e+00]> : tensor<2xf16>
// CHECK-NEXT: stablehlo.constant dense<[-1, 3]> : tensor<2xi8>
// CHECK-NEXT: stablehlo.constant dense<0xfc> : tensor<2xf8E5M2>

// GENERIC: "stablehlo.constant"() <{value = dense<[0x7fc00000, 0x7f800000]> : tensor<2xf32>}>
// GENERIC: "stablehlo.constant"() <{value = dense<[0xff80, 1.000000e+00]> : tensor<2xbf16>}>

// DEBUG: stablehlo.constant dense<[0x7fc00000, 0x7f800000]> : tensor<2xf32>
// DEBUG: stablehlo.constant dense<[0xff80, 1.000000e+00]> : tensor<2xbf16>

// VAL: result0 = [nan, inf]
// VAL: result1 = [-inf, 1.0]
// VAL: result2 = [nan, 1.0, -0.0]
// VAL: result3 = [inf, 2.5]
// VAL: result4 = [-1, 3]
// VAL: result5 = [-inf, -inf]

// MASKED: result0 = [0.26894143, 0.7310586, 0.0, 0.0]
