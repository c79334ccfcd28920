// A row of 16384 f32 (64 KiB): a quarter of trn3's 256 KiB partition, more than trn2's.
func.func @main(%a: tensor<2x16384xf32>) -> tensor<2xf32> {
  %i = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [1] : (tensor<2x16384xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
