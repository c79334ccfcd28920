// ExtScaleAdd on values worked out by hand: x * 0.5 + y for x = [1, -3, 0.5, 100],
// y = [0.25, 2, -1, 0.125] is [0.75, 0.5, -0.75, 50.125] (every step exact in f32), and
// x * 3 + y for x = 2^24 + 2 (exact in f32), y = 1: f32 steps by 4 above 2^25, so the
// product 50331654 is a tie, rounded to even (50331656), and 50331656 + 1 rounds back
// to 50331656: two roundings, as the Vector engine's f32 arithmetic does them. The same
// values at hlo, nisa and bir.

// RUN: python -c "import numpy as np, sys; np.savez(sys.argv[1], arg0=np.array([1.0, -3.0, 0.5, 100.0], np.float32), arg1=np.array([0.25, 2.0, -1.0, 0.125], np.float32), arg2=np.array([16777218.0], np.float32), arg3=np.array([1.0], np.float32))" %t.npz
// RUN: mx-run %s --inputs %t.npz --print-values | filecheck %s
// RUN: mx-run %s -p lower-hlo-to-nisa --inputs %t.npz --print-values | filecheck %s
// RUN: mx-run %s -p lower-hlo-to-nisa,lower-nisa-to-bir --inputs %t.npz --print-values | filecheck %s
// CHECK: result0 = [0.75, 0.5, -0.75, 50.125]
// CHECK: result1 = [5.0331656e+07]

func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %big: tensor<1xf32>, %one: tensor<1xf32>) -> (tensor<4xf32>, tensor<1xf32>) {
  %z = hlo.custom_call @ExtScaleAdd(%x, %y) {backend_config = "{\22scale\22: 0.5}"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %w = hlo.custom_call @ExtScaleAdd(%big, %one) {backend_config = "{\22scale\22: 3}"} : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  func.return %z, %w : tensor<4xf32>, tensor<1xf32>
}
