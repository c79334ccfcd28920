// mx-run runs the example extension: its ops through its mxdsl.interpreters entry point,
// ExtSoftCap through the custom-call implementation that module registers. The expected
// values are 10 * tanh(v / 10) for v = clamp(8 * x, -10, 20), from Python's math.tanh,
// rounded to float32; the folded program gives the same bits.

// RUN: python -c "import numpy as np, sys; np.savez(sys.argv[1], arg0=np.array([1.0, -3.0, 0.5, 100.0], np.float32))" %t.npz
// RUN: mx-run %s --inputs %t.npz --print-values | filecheck %s
// RUN: mx-run %s -p ext-fold-scales --inputs %t.npz --print-values | filecheck %s
// RUN: mx-opt %s -p ext-fold-scales | filecheck %s --check-prefix=FOLDED

// CHECK: result0 = [6.6403675, -7.6159415, 3.7994897, 9.640276]
// FOLDED: ext.scale %x, 3
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ext.scale %x, 2 : tensor<4xf32> -> tensor<4xf32>
  %b = ext.scale %a, 1 : tensor<4xf32> -> tensor<4xf32>
  %c = ext.clamp %b, -10.0, 20.0 : tensor<4xf32> -> tensor<4xf32>
  %y = hlo.custom_call @ExtSoftCap(%c) {backend_config = "{\22cap\22: 10.0}"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
