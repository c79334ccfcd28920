// --verify-diagnostics with expected-* annotations (MLIR's meaning): every diagnostic
// must be expected on its line, with its severity and text, chunk by chunk. Here every
// one is, so mx-opt exits 0 and prints the IR of the chunks no error stopped.

// RUN: mx-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: mx-opt %s --split-input-file --verify-diagnostics -o %t.mlir && filecheck %s --input-file %t.mlir

// The annotation's own line, @+N, @-N, @above, @below; {{...}} is a substring.
%a = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i32> // expected-error {{does not match the literal's type tensor<i64>}}

// -----

// expected-error@+2 {{'hlo.constant' op result type tensor<i32>}}

%b = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i32>

// -----

%c = "hlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i16>

// expected-error@-2 {{tensor<i16> does not match}}

// -----

func.func @above(%a: tensor<2xf32>) {
  %t = "hlo.tuple"(%a) : (tensor<2xf32>) -> tuple<tensor<2xf16>>
  // expected-error @above {{'hlo.tuple' op result type tuple<tensor<2xf16>> does not match}}
  func.return
}

// -----

func.func @below(%t: tuple<tensor<2xf32>>) {
  // expected-error @below {{index 3 is out of range for a tuple of 1 elements}}
  %e = hlo.get_tuple_element %t[3] : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  func.return
}

// -----

// -re: literal text with {{regex}} parts.
func.func @regex(%t: tuple<tensor<2xf32>>) {
  // expected-error-re @below {{index {{[0-9]+}} is out of range for a tuple of {{[0-9]+}} elements}}
  %e = hlo.get_tuple_element %t[7] : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  func.return
}

// -----

// A parse error is a diagnostic too.
func.func @parse() {
  // expected-error @below {{type expected}}
  %x = arith.constant 1 :: i32
  func.return
}

// -----

// A chunk with no error prints its IR, in its place between the separators.
func.func @fine(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

// The separators are written as {{-----}} here, or they would split this file.
// CHECK-NOT: error
// CHECK:      // {{-----}}
// CHECK-NEXT: // {{-----}}
// CHECK-NEXT: // {{-----}}
// CHECK-NEXT: // {{-----}}
// CHECK-NEXT: // {{-----}}
// CHECK-NEXT: // {{-----}}
// CHECK-NEXT: // {{-----}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @fine(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NOT: error
