func.func @main(%x: tensor<4xf32>) {
  %y = hlo.custom_call @FaultyTarget(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}
