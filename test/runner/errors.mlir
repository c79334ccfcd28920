// mx-run's errors are located diagnostics (exit code 1, no traceback).
// RUN: not mx-run %s 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not mx-run %s --symbol no_impl 2>&1 | filecheck %s --check-prefix=NOIMPL
// RUN: not mx-run %s --symbol nope 2>&1 | filecheck %s --check-prefix=SYMBOL
// RUN: not mx-run %s --symbol with_args 2>&1 | filecheck %s --check-prefix=ARGS
// RUN: not mx-run %s.missing 2>&1 | filecheck %s --check-prefix=MISSING

func.func @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = hlo.custom_call @VendorThing(%x) {backend_config = ""} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// The failing op is inside the called function; the diagnostic points at it.
// TARGET: errors.mlir:9:3: error: 'hlo.custom_call' op no interpreter implementation for custom call target 'VendorThing'
// TARGET-NEXT: %y = hlo.custom_call @VendorThing
// TARGET-NEXT: ^
// TARGET-NOT: Traceback
func.func @main() -> tensor<2xf32> {
  %x = hlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %y = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// NOIMPL: errors.mlir:27:3: error: 'math.absf' op no interpreter implementation for this op
func.func @no_impl() -> tensor<2xf32> {
  %x = hlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %y = math.absf %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// SYMBOL: mx-run: error: no function @nope in {{.*}}errors.mlir; functions: @helper, @main, @no_impl, @with_args

// ARGS: errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op @with_args takes 1 argument(s); give --inputs IN.npz or --random-inputs SEED
func.func @with_args(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  func.return %x : tensor<4xbf16>
}

// MISSING: mx-run: error: cannot open '{{.*}}errors.mlir.missing': No such file or directory
