// mx-opt is a drop-in xdsl-opt: under xdsl-opt's diagnostic flags it prints exactly
// what xdsl-opt prints (the bare message, the generic IR with the failing op marked,
// parse errors with their notes, loc(unknown) for ops without a location). A sample of
// what upstream xDSL's filecheck suite checks (scripts/upstream-filecheck.sh runs all
// of it); each RUN pair compares the two tools' output byte for byte.

// RUN: mx-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics > %t.mx
// RUN: xdsl-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics > %t.x
// RUN: diff %t.mx %t.x
// RUN: mx-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics --syntax-highlight > %t.color.mx
// RUN: xdsl-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics --syntax-highlight > %t.color.x
// RUN: diff %t.color.mx %t.color.x
// RUN: mx-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics --print-debuginfo > %t.loc.mx
// RUN: xdsl-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics --print-debuginfo > %t.loc.x
// RUN: diff %t.loc.mx %t.loc.x

// And what it prints (checked once, independently of xdsl-opt):
// RUN: filecheck %s --input-file %t.mx
// RUN: filecheck %s --input-file %t.loc.mx --check-prefix=LOC
// CHECK: Operation func.func contains empty block in single-block region that expects at least a terminator
// CHECK: {{^}}result type tensor<i32> does not match the literal's type tensor<i64>
// CHECK-NEXT: "builtin.module"() ({
// CHECK:      %c = "hlo.constant"()
// CHECK-NEXT: ^^^^^^^^^^^^^^^^^^^-----
// CHECK-NEXT: | Operation does not verify: result type tensor<i32> does not match the literal's type tensor<i64>
// CHECK: region ends with missing block declarations for block(s) missing
// CHECK-NEXT: dangling block references:
// CHECK: reference to block "^missing" without implementation
// CHECK: {{^}}Operation hlo.constant terminates block in single-block region but is not a terminator
// LOC: func.func @fine() {
// LOC-NEXT: func.return loc(unknown)

// An empty block where a terminator is needed (xdsl-opt rejects it).
func.func @empty() {
^bb0:
}

// -----

// A verifier error: the generic IR, the op marked.
func.func @marked() {
  %c = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i32>
  func.return
}

// -----

// A parse error with a note.
func.func @dangling() {
  "test.op"() [^missing] : () -> ()
}

// -----

// Two errors: xdsl-opt reports the nested op's first.
func.func @two() {
  %c = hlo.constant dense<1> : tensor<i64>
}

// -----

// Printed with its (unknown) location.
func.func @fine() {
  func.return
}
