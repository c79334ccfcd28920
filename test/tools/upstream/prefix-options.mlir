// mx-opt reads xdsl-opt's command lines as xdsl-opt does: an unambiguous prefix of an
// option is accepted (upstream xDSL's suite writes --verify-diagnostic), and the run
// answers byte for byte as xdsl-opt's (one of the upstream-style sample cases;
// scripts/upstream-filecheck.sh runs the whole upstream suite).

// RUN: mx-opt %s --verify-diagnostic --split-input > %t.mx
// RUN: xdsl-opt %s --verify-diagnostic --split-input > %t.x
// RUN: diff %t.mx %t.x
// RUN: filecheck %s --input-file %t.mx

func.func @ok(%a: i32) -> i32 {
  %s = arith.addi %a, %a : i32
  func.return %s : i32
}
// CHECK:      func.func @ok(%a: i32) -> i32 {
// CHECK-NEXT:   %s = arith.addi %a, %a : i32
// CHECK-NEXT:   func.return %s : i32
// CHECK-NEXT: }

// -----

func.func @wrong_count(%a: i32) -> i32 {
  func.return
}
// CHECK:      {{^}}// {{-{5}$}}
// CHECK-NEXT: {{^}}Expected arguments to have the same types as the function output types: expected [i32], got []
// CHECK-NEXT: "builtin.module"() ({
// CHECK:        "func.return"() : () -> ()
// CHECK-NEXT:   ^^^^^^^^^^^^^---
// CHECK-NEXT:   | Operation does not verify: Expected arguments
