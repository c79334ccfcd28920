// Malformed IR: a located parse error (file:line:col, the source line, a caret), exit 1,
// no traceback; -o is not written.

// RUN: not mx-opt %s 2>&1 | filecheck %s
// RUN: rm -f %t.mlir
// RUN: not mx-opt %s -o %t.mlir
// RUN: python -c "import os, sys; sys.exit(os.path.exists(sys.argv[1]))" %t.mlir

// CHECK-NOT: Traceback
// CHECK:      {{^}}{{.*}}malformed.mlir:17:27: error: hlo.tuple has 2 operands but its type tuple<tensor<2xf32>> has 1 elements{{$}}
// CHECK-NEXT: {{^}}  %t = hlo.tuple %a, %a : tuple<tensor<2xf32>>{{$}}
// CHECK-NEXT: {{^}}                          ^{{$}}
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<2xf32>) {
  %ok = hlo.tuple %a : tuple<tensor<2xf32>>
  %t = hlo.tuple %a, %a : tuple<tensor<2xf32>>
  func.return
}
