// An input that ends inside a region says so, with its location, and exits 1.
// RUN: not mx-opt %s 2>&1 | filecheck %s
// CHECK: truncated-input.mlir:{{[0-9]+}}:1: error: in block definition (at the end of the input: is a closing '}' or ')' missing?)
// CHECK-NOT: Traceback
func.func @f() {
