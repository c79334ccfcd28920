// Tuples at the function boundary (docs/lowering.md "The function boundary"): a tuple
// argument or result becomes its elements, depth first, and the kernel records their
// mx-run keys, so mx-run writes result0.0, result0.1, ... at every level and the .npz
// files of the hlo function, the nisa kernel and the bir kernel compare directly.

// RUN: mx-opt %s -p legalize-quantize-mx,lower-hlo-to-nisa | filecheck %s
// CHECK:      func.func @main(%{{[a-z0-9_]+}}: memref<32x64xbf16, #nisa.mem<hbm>>, %{{[a-z0-9_]+}}: memref<64x32xf16, #nisa.mem<hbm>>)
// CHECK-SAME: -> (memref<32x2xf8E8M0FNU, #nisa.mem<hbm>>, memref<32x16xui32, #nisa.mem<hbm>>, memref<16x32xui32, #nisa.mem<hbm>>, memref<2x32xf8E8M0FNU, #nisa.mem<hbm>>)
// CHECK-SAME: attributes {mx.arg_names = ["arg0.0", "arg0.1"], mx.result_names = ["result0.0.0", "result0.0.1", "result0.1", "result1"]}
// CHECK-NOT:  tuple
// CHECK:      func.return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :

// RUN: mx-run %s --random-inputs 3 -p legalize-quantize-mx -o %t.hlo.npz | filecheck %s --check-prefix=KEYS
// RUN: mx-run %s --random-inputs 3 -p legalize-quantize-mx,lower-hlo-to-nisa,lower-nisa-to-bir -o %t.bir.npz | filecheck %s --check-prefix=KEYS
// KEYS:      result0.0.0: {{.*}}shape=(32, 2) dtype=float8_e8m0fnu
// KEYS-NEXT: result0.0.1: {{.*}}shape=(32, 16) dtype=uint32
// KEYS-NEXT: result0.1: {{.*}}shape=(16, 32) dtype=uint32
// KEYS-NEXT: result1: {{.*}}shape=(2, 32) dtype=float8_e8m0fnu
// RUN: python -c "import numpy as np, sys; a = np.load(sys.argv[1]); print(all(sorted(b.files) == sorted(a.files) and all(a[k].tobytes() == b[k].tobytes() for k in a.files) for b in map(np.load, sys.argv[2:])), sorted(a.files))" %t.hlo.npz %t.bir.npz | filecheck %s --check-prefix=SAME
// SAME: True ['result0.0.0', 'result0.0.1', 'result0.1', 'result1']

// Inputs from a file under the hlo function's keys (arg0.0, arg0.1) at the nisa level.
// RUN: python -c "import numpy as np, ml_dtypes; r = np.random.default_rng(0); np.savez('%t.in.npz', **{'arg0.0': r.standard_normal((32, 64)).astype(ml_dtypes.bfloat16).view(np.uint16), 'arg0.1': r.standard_normal((64, 32)).astype(np.float16)})"
// RUN: mx-run %s --inputs %t.in.npz -p legalize-quantize-mx -o %t.hlo2.npz > /dev/null
// RUN: mx-run %s --inputs %t.in.npz -p legalize-quantize-mx,lower-hlo-to-nisa -o %t.nisa2.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a, b = map(np.load, sys.argv[1:]); print(sorted(a.files) == sorted(b.files) and all(a[k].tobytes() == b[k].tobytes() for k in a.files))" %t.hlo2.npz %t.nisa2.npz | filecheck %s --check-prefix=FILE
// FILE: True

// A tuple argument (x bf16 quantized along the last dim, y f16 along dim 0) and a nested
// tuple result: ((scales of x, data of x), data of y), then the scales of y.
func.func @main(%t: tuple<tensor<32x64xbf16>, tensor<64x32xf16>>) -> (tuple<tuple<tensor<32x2xf8E8M0FNU>, tensor<32x16xui32>>, tensor<16x32xui32>>, tensor<2x32xf8E8M0FNU>) {
  %x = hlo.get_tuple_element %t[0] : (tuple<tensor<32x64xbf16>, tensor<64x32xf16>>) -> tensor<32x64xbf16>
  %y = hlo.get_tuple_element %t[1] : (tuple<tensor<32x64xbf16>, tensor<64x32xf16>>) -> tensor<64x32xf16>
  %qx = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<32x64xbf16>) -> tuple<tensor<32x16xui32>, tensor<32x2xf8E8M0FNU>>
  %qy = hlo.custom_call @QuantizeMX(%y) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: 0, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<64x32xf16>) -> tuple<tensor<16x32xui32>, tensor<2x32xf8E8M0FNU>>
  %xd = hlo.get_tuple_element %qx[0] : (tuple<tensor<32x16xui32>, tensor<32x2xf8E8M0FNU>>) -> tensor<32x16xui32>
  %xs = hlo.get_tuple_element %qx[1] : (tuple<tensor<32x16xui32>, tensor<32x2xf8E8M0FNU>>) -> tensor<32x2xf8E8M0FNU>
  %yd = hlo.get_tuple_element %qy[0] : (tuple<tensor<16x32xui32>, tensor<2x32xf8E8M0FNU>>) -> tensor<16x32xui32>
  %ys = hlo.get_tuple_element %qy[1] : (tuple<tensor<16x32xui32>, tensor<2x32xf8E8M0FNU>>) -> tensor<2x32xf8E8M0FNU>
  %inner = hlo.tuple %xs, %xd : tuple<tensor<32x2xf8E8M0FNU>, tensor<32x16xui32>>
  %outer = hlo.tuple %inner, %yd : tuple<tuple<tensor<32x2xf8E8M0FNU>, tensor<32x16xui32>>, tensor<16x32xui32>>
  func.return %outer, %ys : tuple<tuple<tensor<32x2xf8E8M0FNU>, tensor<32x16xui32>>, tensor<16x32xui32>>, tensor<2x32xf8E8M0FNU>
}
