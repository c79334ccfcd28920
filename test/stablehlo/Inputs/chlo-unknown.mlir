func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.lgamma %a : tensor<4xf32> -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
