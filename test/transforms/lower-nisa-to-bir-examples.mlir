// The hand-written nisa examples that have bir equivalents lower to bir and compute the
// same bytes under mx-run (destination-passing kernels: the arguments are written).

// RUN: mx-run %examples/nisa_matmul_tiled.mlir --random-inputs 2 -o %t.mm.nisa.npz > /dev/null
// RUN: mx-run %examples/nisa_matmul_tiled.mlir --random-inputs 2 -p lower-nisa-to-bir -o %t.mm.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('identical' if a.files == b.files and all(a[k].tobytes() == b[k].tobytes() for k in a.files) else 'DIFFERENT', a.files)" %t.mm.nisa.npz %t.mm.bir.npz | filecheck %s
// RUN: mx-run %examples/nisa_mx_matmul.mlir --random-inputs 2 -o %t.mx.nisa.npz > /dev/null
// RUN: mx-run %examples/nisa_mx_matmul.mlir --random-inputs 2 -p lower-nisa-to-bir -o %t.mx.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('identical' if a.files == b.files and all(a[k].tobytes() == b[k].tobytes() for k in a.files) else 'DIFFERENT', a.files)" %t.mx.nisa.npz %t.mx.bir.npz | filecheck %s
// CHECK: identical ['arg0', 'arg1', 'arg2']

// The tiled matmul: a K loop of DMAs at run-time HBM offsets into the same SBUF tiles.
// RUN: mx-opt %examples/nisa_matmul_tiled.mlir -p lower-nisa-to-bir | filecheck %s --check-prefix=TILED
// TILED: bir.memset #bir.ap<psum, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16>, 0.000000e+00
// TILED: bir.dma #bir.ap<sbuf, p0 = 0, np = 128, [[1, 4]], off = 0, dtype = 10>, #bir.ap<hbm, [[1, 512]], off = 0, dtype = 10> of %a : memref<256x4xbf16, #nisa.mem<hbm>> offset %{{.+}}
// TILED: bir.matmult #bir.ap<psum, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 4]], off = 0, dtype = 10>, #bir.ap<sbuf, p0 = 0, np = 128, [[1, 8]], off = 64, dtype = 10>

// The gather with skipped rows (ids 2, -1, 5, 7 into a 6-row table): one bir.dma_indirect
// whose hbm side keeps dim 0 as the indexed pair (num 4, bound 6), the same bytes.
// RUN: mx-opt %examples/nisa_gather.mlir -p lower-nisa-to-bir | filecheck %s --check-prefix=GATHER
// GATHER: bir.dma_indirect #bir.ap<sbuf, p0 = 0, np = 4, [[1, 4]], off = 64, dtype = 16>, #bir.ap<hbm, [[4, 4], [1, 4]], off = 0, dtype = 16> of %table : memref<6x4xf32, #nisa.mem<hbm>> index #bir.ap<sbuf, p0 = 0, np = 4, [[1, 1]], off = 0, dtype = 17> dim 0 bound 6 oob_mode skip
// RUN: python -c "import numpy as np; t = (10 * np.arange(6)[:, None] + np.arange(4)).astype(np.float32); np.savez('%t.g.npz', arg0=t, arg1=np.array([[2], [-1], [5], [7]], np.int32), arg2=np.zeros((4, 4), np.float32))"
// RUN: mx-run %examples/nisa_gather.mlir --inputs %t.g.npz -o %t.g.nisa.npz > /dev/null
// RUN: mx-run %examples/nisa_gather.mlir --inputs %t.g.npz -p lower-nisa-to-bir -o %t.g.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('identical' if a.files == b.files and all(a[k].tobytes() == b[k].tobytes() for k in a.files) else 'DIFFERENT', a.files)" %t.g.nisa.npz %t.g.bir.npz | filecheck %s
// The 2-core exchange: bir.sendrecv between the cores' private SBUFs; run on 2 cores at
// both levels, the same bytes.
// RUN: mx-opt %examples/nisa_exchange_2core.mlir -p lower-nisa-to-bir | filecheck %s --check-prefix=EXCHANGE
// EXCHANGE: bir.sendrecv #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 64, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16> to %peer from %peer pipe 0
// RUN: mx-run %examples/nisa_exchange_2core.mlir --cores 2 --random-inputs 4 -o %t.x.nisa.npz > /dev/null
// RUN: mx-run %examples/nisa_exchange_2core.mlir --cores 2 --random-inputs 4 -p lower-nisa-to-bir -o %t.x.bir.npz > /dev/null
// RUN: python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('identical' if a.files == b.files and all(a[k].tobytes() == b[k].tobytes() for k in a.files) else 'DIFFERENT', a.files, bool((a['arg1'][0] == a['arg0'][0] + a['arg0'][1]).all()))" %t.x.nisa.npz %t.x.bir.npz | filecheck %s --check-prefix=SUM
// SUM: identical ['arg0', 'arg1'] True
