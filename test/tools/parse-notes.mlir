// A parse error keeps its notes, each located (here the dangling block reference), and
// gets no "closing '}' missing?" hint, which is only for a plain error at the end of
// the input.
// RUN: not mx-opt %s --allow-unregistered-dialect 2>&1 | filecheck %s

// CHECK:      parse-notes.mlir:[[# @LINE + 9]]:1: error: region ends with missing block declarations for block(s) missing{{$}}
// CHECK-NEXT: dangling block references:
// CHECK-NEXT: parse-notes.mlir:[[# @LINE + 5]]:16: note: reference to block "^missing" without implementation
// CHECK-NEXT:   "test.op"() [^missing] : () -> ()
// CHECK-NEXT:                ^^^^^^^^
// CHECK-NOT: Traceback
func.func @dangling() {
  "test.op"() [^missing] : () -> ()
}
