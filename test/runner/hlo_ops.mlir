// The plain hlo ops under mx-run, with values worked out by hand.
// RUN: mx-run %s --print-values --quiet | filecheck %s

func.func @main() -> (tensor<4xbf16>, tensor<1x1xbf16>, tensor<2x1x1xf32>, tensor<4xi8>, tensor<f32>) {
  // convert f32 -> bf16 rounds to nearest even (bf16 keeps 8 significant bits):
  //   1 + 2^-8 (0.00390625): a tie 1 | 1 + 2^-7, even -> 1.0
  //   1 + 3 * 2^-8: a tie 1 + 2^-7 | 1 + 2^-6, even -> 1.015625
  //   1 + 2^-8 + 2^-20: above the tie -> 1.0078125;   -2.5 exact
  %f = hlo.constant dense<[1.00390625, 1.01171875, 1.0039072036743164, -2.5]> : tensor<4xf32>
  %b = hlo.convert %f : (tensor<4xf32>) -> tensor<4xbf16>
  // dot_general accumulates bf16 inputs in f32 and rounds once: 1 + 16 * 2^-8 = 1.0625
  // (a bf16 accumulator would stay at 1.0: every 1 + 2^-8 is a tie, to even 1.0).
  %l = hlo.constant dense<[[1.0, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625, 0.00390625]]> : tensor<1x17xbf16>
  %r = hlo.constant dense<1.0> : tensor<17x1xbf16>
  %d = hlo.dot_general %l, %r, contracting_dims = [1] x [0] : (tensor<1x17xbf16>, tensor<17x1xbf16>) -> tensor<1x1xbf16>
  // batch dim 0, contracting lhs 2 x rhs 1: [[1,2]] . [[3],[4]] = 11; [[5,6]] . [[7],[8]] = 83
  %bl = hlo.constant dense<[[[1.0, 2.0]], [[5.0, 6.0]]]> : tensor<2x1x2xf32>
  %br = hlo.constant dense<[[[3.0], [4.0]], [[7.0], [8.0]]]> : tensor<2x2x1xf32>
  %bd = hlo.dot_general %bl, %br, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x1x2xf32>, tensor<2x2x1xf32>) -> tensor<2x1x1xf32>
  %bdt = hlo.tuple %bd : tuple<tensor<2x1x1xf32>>
  %bd1 = hlo.get_tuple_element %bdt[0] : (tuple<tensor<2x1x1xf32>>) -> tensor<2x1x1xf32>
  // float -> int truncates toward zero and saturates: 300.7 -> 127, -2.7 -> -2, -1e9 -> -128
  %fi = hlo.constant dense<[300.7, -2.7, -1.0e9, 0.5]> : tensor<4xf32>
  %ii = hlo.convert %fi : (tensor<4xf32>) -> tensor<4xi8>
  %m = hlo.constant (dense<[1, 2]> : tensor<2xi64>, dense<0.75> : tensor<f32>)
  %s = hlo.get_tuple_element %m[1] : (tuple<tensor<2xi64>, tensor<f32>>) -> tensor<f32>
  func.return %b, %d, %bd1, %ii, %s : tensor<4xbf16>, tensor<1x1xbf16>, tensor<2x1x1xf32>, tensor<4xi8>, tensor<f32>
}

// CHECK:      result0 = [1.0, 1.015625, 1.0078125, -2.5]
// CHECK-NEXT: result1 = {{\[\[}}1.0625]]
// CHECK-NEXT: result2 = {{\[\[\[}}11.0]],
// CHECK-EMPTY:
// CHECK-NEXT: {{\[\[}}83.0]]]
// CHECK-NEXT: result3 = [127, -2, -128, 0]
// CHECK-NEXT: result4 = 0.75
