// A value used and never defined is reported at its first use, with the others named.
// RUN: not mx-opt %s 2>&1 | filecheck %s
// RUN: not mx-run %s 2>&1 | filecheck %s
// CHECK: undefined-value.mlir:[[# @LINE + 6]]:19: error: use of undefined value %z (also never defined: %q)
// CHECK-NEXT: {{^}}  %w = arith.addi %z, %x : i32
// CHECK-NEXT: {{^}}                  ^^
// CHECK-NOT: missing?
func.func @main(%x: i32) -> i32 {
  %y = arith.addi %x, %x : i32
  %w = arith.addi %z, %x : i32
  %v = arith.addi %q, %w : i32
  func.return %v : i32
}
