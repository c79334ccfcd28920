// mx-run --no-fast-path (and MXDSL_NO_FAST_PATH=1) runs every op one at a time, the
// reference the fast path must equal: the same bits. A bad value of the variable is one
// line, exit 1.

// RUN: mx-run %examples/nisa_matmul_tiled.mlir --random-inputs 4 -o %t.fast.npz --quiet
// RUN: mx-run %examples/nisa_matmul_tiled.mlir --random-inputs 4 -o %t.ref.npz --quiet --no-fast-path
// RUN: env MXDSL_NO_FAST_PATH=1 mx-run %examples/nisa_matmul_tiled.mlir --random-inputs 4 -o %t.env.npz --quiet
// RUN: cmp %t.fast.npz %t.ref.npz
// RUN: cmp %t.fast.npz %t.env.npz
// RUN: not env MXDSL_NO_FAST_PATH=yes mx-run %examples/nisa_matmul_tiled.mlir --random-inputs 4 2>&1 | filecheck %s
// CHECK: mx-run: error: MXDSL_NO_FAST_PATH='yes' is not 0 or 1: set it to 1 for the reference mode, or unset it
// CHECK-NOT: Traceback
