module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xbf16>) -> (tensor<8xbf16> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0x7F80> : tensor<bf16>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.minimum across dimensions = [0] : (tensor<4x8xbf16>, tensor<bf16>) -> tensor<8xbf16>
    return %0 : tensor<8xbf16>
  }
}
