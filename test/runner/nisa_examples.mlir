// The shipped nisa examples under mx-run; inputs written by python, results derived by hand.
//
// Tiled matmul: a[k, m] = 1 for k < 128, 2 for k >= 128; b[k, n] = n + 1.
//   out[m, n] = sum_k a[k, m] b[k, n] = (128 * 1 + 128 * 2) (n + 1) = 384 (n + 1)
//   (overwriting instead of accumulating would give 256 (n + 1)).
// RUN: python -c "import numpy as np, ml_dtypes as m; a = np.ones((256, 4), m.bfloat16); a[128:] = 2; b = np.tile(np.arange(1, 9), (256, 1)).astype(m.bfloat16); np.savez('%t.mm.npz', arg0=a, arg1=b, arg2=np.zeros((4, 8), np.float32))"
// RUN: mx-run %examples/nisa_matmul_tiled.mlir --inputs %t.mm.npz --print-values | filecheck %s --check-prefix=MM
// MM: arg2 = {{\[}}[384.0, 768.0, 1152.0, 1536.0, 1920.0, 2304.0, 2688.0, 3072.0],
// MM-NEXT: [384.0, 768.0,
// MM-NEXT: [384.0, 768.0,
// MM-NEXT: [384.0, 768.0, 1152.0, 1536.0, 1920.0, 2304.0, 2688.0, 3072.0]]
//
// MX matmul: a[p, 4m + q] = m + 1, b[p, 4n + q] = (q + 1) / 4. Every value is exact in
// e4m3fn after the block prescale (a block of a holds one value v: E8M0 = 127 + e(v) - 8,
// v * 2^(127 - E8M0) = v * 2^(8 - e(v)) in [256, 512): 1.0 / 1.5 mantissas; b's blocks
// have max 1.0, E8M0 = 119, prescaled 64, 128, 192, 256: exact), so
//   out[m, n] = sum_p sum_q (m + 1) (q + 1) / 4 = 32 (m + 1) (1 + 2 + 3 + 4) / 4 = 80 (m + 1).
// RUN: python -c "import numpy as np, ml_dtypes as m; a = np.repeat(np.arange(1, 5), 4)[None].repeat(32, 0).astype(m.bfloat16); b = np.tile(np.array([0.25, 0.5, 0.75, 1.0] * 8), (32, 1)).astype(m.bfloat16); np.savez('%t.mx.npz', arg0=a, arg1=b, arg2=np.zeros((4, 8), np.float32))"
// RUN: mx-run %examples/nisa_mx_matmul.mlir --inputs %t.mx.npz --print-values | filecheck %s --check-prefix=MX
// MX: arg2 = {{\[}}[80.0, 80.0, 80.0, 80.0, 80.0, 80.0, 80.0, 80.0],
// MX-NEXT: [160.0, 160.0, 160.0, 160.0, 160.0, 160.0, 160.0, 160.0],
// MX-NEXT: [240.0, 240.0, 240.0, 240.0, 240.0, 240.0, 240.0, 240.0],
// MX-NEXT: [320.0, 320.0, 320.0, 320.0, 320.0, 320.0, 320.0, 320.0]]
//
// Gather: table[r, c] = 10 r + c, ids = [2, -1, 5, 7]: rows 2 and 5; -1 and 7 (>= 6) are
// skipped and keep the memset -1.0.
// RUN: python -c "import numpy as np; t = (10 * np.arange(6)[:, None] + np.arange(4)).astype(np.float32); np.savez('%t.g.npz', arg0=t, arg1=np.array([[2], [-1], [5], [7]], np.int32), arg2=np.zeros((4, 4), np.float32))"
// RUN: mx-run %examples/nisa_gather.mlir --inputs %t.g.npz --print-values | filecheck %s --check-prefix=GATHER
// GATHER: arg2 = {{\[}}[20.0, 21.0, 22.0, 23.0],
// GATHER-NEXT: [-1.0, -1.0, -1.0, -1.0],
// GATHER-NEXT: [50.0, 51.0, 52.0, 53.0],
// GATHER-NEXT: [-1.0, -1.0, -1.0, -1.0]]
//
// 2-core exchange: x[0] = 1, x[1][i, j] = 2 (8 i + j): both cores write 1 + 2 (8 i + j).
// RUN: python -c "import numpy as np; x = np.zeros((2, 4, 8), np.float32); x[0] = 1; x[1] = 2 * np.arange(32).reshape(4, 8); np.savez('%t.x.npz', arg0=x, arg1=np.zeros((2, 4, 8), np.float32))"
// RUN: mx-run %examples/nisa_exchange_2core.mlir --cores 2 --inputs %t.x.npz --print-values | filecheck %s --check-prefix=XCHG
// XCHG: arg1 = {{\[\[}}[1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0],
// XCHG: [49.0, 51.0, 53.0, 55.0, 57.0, 59.0, 61.0, 63.0]],
// XCHG: {{\[\[}}1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0],
// XCHG: [49.0, 51.0, 53.0, 55.0, 57.0, 59.0, 61.0, 63.0]]]
//
// With one core the sendrecv has no partner: a located error, not a hang.
// RUN: not mx-run %examples/nisa_exchange_2core.mlir --inputs %t.x.npz 2>&1 | filecheck %s --check-prefix=ONE
// ONE: nisa_exchange_2core.mlir:16:3: error: 'nisa.sendrecv' op sendrecv to core 1 does not exist (1 program(s) running)
