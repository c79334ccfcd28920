module @jit_tanh attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf16>) -> (tensor<4x8xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.tanh %arg0 : tensor<4x8xf16>
    return %0 : tensor<4x8xf16>
  }
}
