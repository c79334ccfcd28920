// Input of lowering-faults.mlir: a call whose extension lowering raises.
func.func @raises(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = hlo.custom_call @FaultyRaise(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
