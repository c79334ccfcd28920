// Deeply nested IR is not an internal error. The tools run on a thread with a large
// stack and a raised recursion limit, so they parse, verify, print, transform and
// interpret ops nested up to 1024 levels deep (plain xdsl-opt stops near 200); a deeper
// op is a located error naming the bound, exit 1. The function is level 1 and the
// innermost loop's scf.yield (printed in the generic form) one level below the loop.

// 150 loops: as deep as plain xdsl-opt parses, and beyond where mx-run used to fail.
// RUN: python %S/Inputs/nested_loops.py 150 %t.150.mlir
// RUN: xdsl-opt %t.150.mlir -o /dev/null
// RUN: mx-opt %t.150.mlir | filecheck %s --check-prefix=LOOPS
// RUN: mx-run %t.150.mlir --random-inputs 0 --print-values | filecheck %s --check-prefix=VALUES
// LOOPS: scf.for %i149 = %c0 to %c1 step %c1 {

// 1000 loops: printed (custom and generic form) and read back, through passes, run.
// RUN: python %S/Inputs/nested_loops.py 1000 %t.1000.mlir
// RUN: mx-opt %t.1000.mlir -o %t.printed.mlir
// RUN: mx-opt %t.printed.mlir -p licm --print-op-generic | mx-opt | filecheck %s --check-prefix=DEEP
// RUN: mx-opt %t.printed.mlir -p canonicalize,cse | filecheck %s --check-prefix=FOLDED
// RUN: mx-run %t.1000.mlir --random-inputs 0 --print-values | filecheck %s --check-prefix=VALUES
// DEEP: scf.for %i999 = %c0 to %c1 step %c1 {
// FOLDED-NOT: scf.for
// FOLDED: func.return %x
// VALUES: result0 = [0.12573022, -0.13210486, 0.64042264, 0.104900114]

// 1024 loops: one level too deep, a located error naming the bound, exit 1.
// RUN: python %S/Inputs/nested_loops.py 1024 %t.1024.mlir
// RUN: not mx-opt %t.1024.mlir 2>&1 | filecheck %s --check-prefix=TOO-DEEP
// RUN: not mx-run %t.1024.mlir --random-inputs 0 2>&1 | filecheck %s --check-prefix=TOO-DEEP
// RUN: python -c "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode != 1)" mx-opt %t.1024.mlir
// RUN: python -c "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode != 1)" mx-run %t.1024.mlir --random-inputs 0
// TOO-DEEP-NOT: internal error
// TOO-DEEP-NOT: RecursionError
// TOO-DEEP: 1027:2049: error: this op is nested 1025 levels deep; the mxdsl tools take at most 1024 levels of nested regions (move the inner loops into a function of their own, or flatten them)
