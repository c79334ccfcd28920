// Faults are attributed. test/extension/Inputs/faulty holds two installed-looking
// distributions (a .dist-info beside the code, put on PYTHONPATH): faulty-ext, whose
// pass, verifier, contract and interpreter function raise plain Python exceptions, and
// broken-ext, whose modules are missing. A bug in faulty-ext is reported as faulty-ext's
// (distribution and entry point), not as an mxdsl internal error; broken-ext only warns,
// and programs that do not use it still run.

// A program that uses neither: runs, with a warning naming broken-ext.
// RUN: env PYTHONPATH=%S/Inputs/faulty mx-opt %s 2>&1 | filecheck %s --check-prefix=WARN
// RUN: env PYTHONPATH=%S/Inputs/faulty mx-run %s --symbol plain --print-values 2>&1 | filecheck %s --check-prefix=RUN-WARN
// WARN: warning: cannot load extension 'broken-ext' (entry point xdsl.universe:broken_ext = broken_ext_not_installed.universe:UNIVERSE): ModuleNotFoundError: No module named 'broken_ext_not_installed'; its dialects and passes are unavailable
// WARN: func.func @plain
// RUN-WARN: warning: cannot load extension 'broken-ext' (entry point mxdsl.interpreters:broken_ext = broken_ext_not_installed.interpreter:Functions): ModuleNotFoundError: No module named 'broken_ext_not_installed'; skipped
// RUN-WARN: result0 = [1.0, 2.0]

// Its pass raises KeyError.
// RUN: env PYTHONPATH=%S/Inputs/faulty not mx-opt %s -p faulty-crash 2>&1 | filecheck %s --check-prefix=PASS
// PASS-NOT: internal error
// PASS: mx-opt: error: error in extension 'faulty-ext' (entry point xdsl.universe:faulty_ext = faulty_ext:UNIVERSE): KeyError: 'a key the pass forgot' (raised in faulty_ext; set MXDSL_TRACEBACK=1 for the traceback, and report it to the maintainers of 'faulty-ext')
// PASS-NOT: Traceback

// Its verifier divides by zero.
// RUN: env PYTHONPATH=%S/Inputs/faulty not mx-opt %S/Inputs/faulty-verifier.mlir 2>&1 | filecheck %s --check-prefix=VERIFIER
// VERIFIER: mx-opt: error: error in extension 'faulty-ext' (entry point xdsl.universe:faulty_ext = faulty_ext:UNIVERSE): ZeroDivisionError: integer division or modulo by zero
// VERIFIER-NOT: Traceback

// Its contract indexes out of range: named by its mxdsl.contracts entry point.
// RUN: env PYTHONPATH=%S/Inputs/faulty not mx-opt %S/Inputs/faulty-contract.mlir 2>&1 | filecheck %s --check-prefix=CONTRACT
// CONTRACT: mx-opt: error: error in extension 'faulty-ext' (entry point mxdsl.contracts:FaultyTarget = faulty_ext:check_faulty): IndexError: tuple index out of range

// A contract entry point whose module is missing fails the calls that use its target.
// RUN: env PYTHONPATH=%S/Inputs/faulty not mx-opt %S/Inputs/broken-contract.mlir 2>&1 | filecheck %s --check-prefix=BROKEN
// BROKEN: broken-contract.mlir:2:3: error: 'hlo.custom_call' op the contract for custom-call target 'BrokenTarget' is unavailable: cannot load extension 'faulty-ext' (entry point mxdsl.contracts:BrokenTarget = faulty_ext.missing:check): ModuleNotFoundError: No module named 'faulty_ext.missing'

// Its interpreter function raises ValueError: a located error naming the extension.
// RUN: env PYTHONPATH=%S/Inputs/faulty not mx-run %s --symbol uses_faulty 2>&1 | filecheck %s --check-prefix=INTERP
// INTERP: faults.mlir:[[# @LINE + 8]]:3: error: 'faulty.op' op interpreting it failed: ValueError: mode 'run' is not implemented (a bug in extension 'faulty-ext' (entry point mxdsl.interpreters:faulty_ext = faulty_ext:FaultyFunctions), raised in faulty_ext)

func.func @plain() -> tensor<2xf32> {
  %x = hlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  func.return %x : tensor<2xf32>
}

func.func @uses_faulty() {
  faulty.op "run"
  func.return
}
