// Faults of extension lowerings are the extension's, located at the op, exit 1.
// Inputs/lowerings holds faulty-lowering (a .dist-info beside the code, put on
// PYTHONPATH): its lowering of FaultyRaise raises KeyError, its lowering of FaultyInvalid
// emits a nisa.tensor_copy the nisa verifier refuses. Inputs/lowering-conflict holds
// conflicting-lowering, which registers hlo.dot_general without saying it overrides.

// RUN: env PYTHONPATH=%S/Inputs/lowerings not mx-opt %s -p lower-hlo-to-nisa 2>&1 | filecheck %s
// CHECK-NOT: internal error
// CHECK-NOT: Traceback
// CHECK:     lowering-faults.mlir:[[# @LINE + 8]]:3: error: 'hlo.custom_call' op lower-hlo-to-nisa: the lowering of extension 'faulty-lowering' (entry point mxdsl.lowerings:faulty_lowering = faulty_lowering:register) emitted an invalid 'nisa.tensor_copy': dst has 2 partitions but src has 4 (report it to the maintainers of 'faulty-lowering')
// CHECK-NEXT: %y = hlo.custom_call @FaultyInvalid(%x)
// RUN: env PYTHONPATH=%S/Inputs/lowerings python -c "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode != 1)" mx-opt %s -p lower-hlo-to-nisa
// RUN: rm -f %t.out
// RUN: env PYTHONPATH=%S/Inputs/lowerings not mx-opt %s -p lower-hlo-to-nisa -o %t.out
// RUN: python -c "import os, sys; sys.exit(os.path.exists(sys.argv[1]))" %t.out

func.func @invalid(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = hlo.custom_call @FaultyInvalid(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// A lowering that raises: exit 1 in mx-opt and in mx-run.
// RUN: env PYTHONPATH=%S/Inputs/lowerings not mx-opt %S/Inputs/faulty-lowering.mlir -p lower-hlo-to-nisa 2>&1 | filecheck %s --check-prefix=ONE
// RUN: env PYTHONPATH=%S/Inputs/lowerings python -c "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode != 1)" mx-opt %S/Inputs/faulty-lowering.mlir -p lower-hlo-to-nisa
// RUN: env PYTHONPATH=%S/Inputs/lowerings not mx-run %S/Inputs/faulty-lowering.mlir -p lower-hlo-to-nisa --random-inputs 0 2>&1 | filecheck %s --check-prefix=ONE
// RUN: env PYTHONPATH=%S/Inputs/lowerings python -c "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode != 1)" mx-run %S/Inputs/faulty-lowering.mlir -p lower-hlo-to-nisa --random-inputs 0
// ONE-NOT: internal error
// ONE: faulty-lowering.mlir:3:3: error: 'hlo.custom_call' op lower-hlo-to-nisa: the lowering of extension 'faulty-lowering' (entry point mxdsl.lowerings:faulty_lowering = faulty_lowering:register) raised KeyError: 'the tile size it forgot' (report it to the maintainers of 'faulty-lowering')

// A program that does not use the faulty targets lowers as without the extension.
// RUN: env PYTHONPATH=%S/Inputs/lowerings mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa > %t.with
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa > %t.without
// RUN: diff %t.with %t.without

// A registration for an op mxdsl lowers, without override=True: an error naming both.
// RUN: env PYTHONPATH=%S/Inputs/lowering-conflict not mx-opt %S/Inputs/faulty-lowering.mlir -p lower-hlo-to-nisa 2>&1 | filecheck %s --check-prefix=CONFLICT
// RUN: env PYTHONPATH=%S/Inputs/lowering-conflict python -c "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode != 1)" mx-opt %S/Inputs/faulty-lowering.mlir -p lower-hlo-to-nisa
// CONFLICT-NOT: Traceback
// CONFLICT: mx-opt: error: lower-hlo-to-nisa: extension 'conflicting-lowering' (entry point mxdsl.lowerings:conflicting_lowering = conflicting_lowering:register) registers a lowering for op hlo.dot_general, which mxdsl (mxdsl.transforms.hlo_to_nisa.matmul.lower_dot_general) already lowers; register it with override=True to replace that one, or uninstall one of the two
