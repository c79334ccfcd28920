// The example extension's custom-call target ExtScaleAdd (x * scale + y) all the way
// down: its contract, its hlo interpreter function, its lowering to nisa (registered on
// the mxdsl.lowerings entry point) and mxdsl's instruction selection to bir. The three
// levels give the same bits, and those bits are numpy's float32 x * scale + y rounded
// to the element type (an independent computation, in the RUN lines below).

// The lowering: one nisa.scalar_tensor_tensor per tile, the scale an f32 constant.
// RUN: mx-opt %s -p lower-hlo-to-nisa | filecheck %s --check-prefix=NISA
// NISA:      func.func @main(%x: memref<300x40xbf16, #nisa.mem<hbm>>, %y: memref<300x40xbf16, #nisa.mem<hbm>>) -> memref<300x40xbf16, #nisa.mem<hbm>>
// NISA:      %[[S:.*]] = arith.constant 3.000000e-01 : f32
// NISA:      scf.for %[[R:.*]] = %c0 to %c256 step %c128
// NISA:      nisa.scalar_tensor_tensor %{{.*}}, %{{.*}}, multiply %[[S]], add %{{.*}} : memref<128x40xbf16, #nisa.mem<sbuf>>
// NISA:      nisa.scalar_tensor_tensor %{{.*}}, %{{.*}}, multiply %[[S]], add %{{.*}} : memref<44x40xbf16
// NISA-NOT:  hlo.custom_call

// RUN: mx-opt %s -p lower-hlo-to-nisa,lower-nisa-to-bir | filecheck %s --check-prefix=BIR
// BIR:     bir.scalar_tensor_tensor
// BIR-NOT: nisa.scalar_tensor_tensor

// Three levels, the same inputs from a file: bit-identical, and equal to numpy.
// RUN: python -c "import numpy as np, ml_dtypes; r = np.random.default_rng(7); np.savez('%t.in.npz', arg0=r.standard_normal((300, 40)).astype(ml_dtypes.bfloat16).view(np.uint16), arg1=(4 * r.standard_normal((300, 40))).astype(ml_dtypes.bfloat16).view(np.uint16))"
// RUN: mx-run %s --inputs %t.in.npz -o %t.hlo.npz > /dev/null
// RUN: mx-run %s -p lower-hlo-to-nisa --inputs %t.in.npz -o %t.nisa.npz > /dev/null
// RUN: mx-run %s -p lower-hlo-to-nisa,lower-nisa-to-bir --inputs %t.in.npz -o %t.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a = np.load(sys.argv[1]); print(all(a[k].tobytes() == b[k].tobytes() for b in map(np.load, sys.argv[2:]) for k in a.files), a.files)" %t.hlo.npz %t.nisa.npz %t.bir.npz | filecheck %s --check-prefix=SAME
// SAME: True ['result0']
// RUN: python -c "import numpy as np, ml_dtypes, sys; i, o = np.load(sys.argv[1]), np.load(sys.argv[2]); x, y = (i[k].view(ml_dtypes.bfloat16).astype(np.float32) for k in ('arg0', 'arg1')); z = (x * np.float32(0.3) + y).astype(ml_dtypes.bfloat16); print(o['result0'].view(np.uint16).tobytes() == z.view(np.uint16).tobytes())" %t.in.npz %t.bir.npz | filecheck %s --check-prefix=NUMPY
// NUMPY: True

func.func @main(%x: tensor<300x40xbf16>, %y: tensor<300x40xbf16>) -> tensor<300x40xbf16> {
  %z = hlo.custom_call @ExtScaleAdd(%x, %y) {backend_config = "{\22scale\22: 0.3}"} : (tensor<300x40xbf16>, tensor<300x40xbf16>) -> tensor<300x40xbf16>
  func.return %z : tensor<300x40xbf16>
}
