// --verify-diagnostics with annotations catches every mismatch, each reported at its
// place in MLIR's wording, then a summary; exit 1, no traceback, -o not written.

// RUN: not mx-opt %s --split-input-file --verify-diagnostics 2> %t.err
// RUN: filecheck %s --input-file %t.err
// RUN: rm -f %t.mlir && not mx-opt %s --split-input-file --verify-diagnostics -o %t.mlir
// RUN: python -c "import os, sys; sys.exit(os.path.exists(sys.argv[1]))" %t.mlir

// CHECK-NOT: Traceback
// An error nobody expected:
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:1: error: unexpected error: 'hlo.constant' op result type tensor<i32> does not match the literal's type tensor<i64>
%a = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i32>

// -----

// An expected error that did not come (reported at the annotation):
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:4: error: expected error "never emitted" was not produced (on line [[# @LINE + 2]])
// expected-error@+1 {{never emitted}}
%b = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>

// -----

// The right text on the wrong line is both unexpected and missing:
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 3]]:1: error: unexpected error: 'hlo.constant' op result type tensor<i8>
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:4: error: expected error "result type tensor<i8>" was not produced (on line [[# @LINE + 1]])
// expected-error {{result type tensor<i8>}}
%c = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i8>

// -----

// The right line with other text:
// CHECK: error: unexpected error: 'hlo.constant' op result type tensor<i16>
// CHECK: error: expected error "result type tensor<i32>" was not produced
// expected-error@+1 {{result type tensor<i32>}}
%d = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i16>

// -----

// The right place and text with another severity:
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:1: error: 'error' diagnostic emitted when expecting a 'warning': 'hlo.constant' op result type tensor<f32>
// expected-warning@+1 {{result type tensor<f32>}}
%e = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<f32>

// -----

// Expectations do not reach across a split: this one points at the error above.
// CHECK: error: expected error "result type tensor<f32>" was not produced
// expected-error@-7 {{result type tensor<f32>}}
%g = hlo.constant dense<1> : tensor<i64>

// -----

// A parse error nobody expected:
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:24: error: unexpected error: type expected
%f = arith.constant 1 :: i32

// -----

// A malformed annotation:
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:4: error: expected-error: the text has no closing
// expected-error@+1 {{no end

// CHECK: --verify-diagnostics: 10 problems with the expected-* annotations of {{.*}}verify-diagnostics-mismatch.mlir
// CHECK-NOT: {{.}}
