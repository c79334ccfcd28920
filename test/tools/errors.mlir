// Bad command lines and failing passes: one short diagnostic on stderr, exit 1, never a
// Python traceback. (Exact exit codes and stdout/stderr are checked in test_mx_opt.py.)

// RUN: not mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-everything 2>&1 | filecheck %s --check-prefix=UNKNOWN-PASS
// UNKNOWN-PASS-NOT: Traceback
// UNKNOWN-PASS:     {{^}}mx-opt: error: unknown pass 'legalize-everything'; mxdsl passes: {{([a-z-]+, )*}}legalize-quantize-mx, legalize-scaled-matmul{{(, [a-z-]+)*}} (and every xdsl-opt pass; see mx-opt --help){{$}}
// UNKNOWN-PASS-NOT: {{.}}

// RUN: not mx-opt %examples/mx_matmul.mlir -p 'legalize-quantize-mx{block-size=16}' 2>&1 | filecheck %s --check-prefix=UNKNOWN-OPTION
// UNKNOWN-OPTION-NOT: Traceback
// UNKNOWN-OPTION:     {{^}}mx-opt: error: pass 'legalize-quantize-mx' has no option 'block-size' (it takes no options){{$}}
// UNKNOWN-OPTION-NOT: {{.}}

// RUN: not mx-opt %examples/mx_matmul.mlir -p 'approximate-math-with-bitcast{lg=true}' 2>&1 | filecheck %s --check-prefix=UPSTREAM-OPTION
// UPSTREAM-OPTION-NOT: Traceback
// UPSTREAM-OPTION:     {{^}}mx-opt: error: pass 'approximate-math-with-bitcast' has no option 'lg' (its options are: log, exp){{$}}
// UPSTREAM-OPTION-NOT: {{.}}

// RUN: not mx-opt %examples/mx_matmul.mlir -p 'approximate-math-with-bitcast{log=3}' 2>&1 | filecheck %s --check-prefix=OPTION-VALUE
// OPTION-VALUE-NOT: Traceback
// OPTION-VALUE:     {{^}}mx-opt: error: invalid options for pass 'approximate-math-with-bitcast': Incompatible types: given (3,), expected <class 'bool'>{{$}}
// OPTION-VALUE-NOT: {{.}}

// RUN: not mx-opt %examples/mx_matmul.mlir -p 'cse{' 2>&1 | filecheck %s --check-prefix=PIPELINE-SYNTAX
// PIPELINE-SYNTAX-NOT: Traceback
// PIPELINE-SYNTAX:     {{^}}mx-opt: error: invalid pass pipeline: Error parsing pass pipeline specification:
// PIPELINE-SYNTAX-NEXT: pass-pipeline:1:5
// PIPELINE-SYNTAX-NEXT: cse{
// PIPELINE-SYNTAX-NOT: Traceback

// RUN: not mx-opt %t.no-such-file.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING-NOT: Traceback
// MISSING:     {{^}}mx-opt: error: cannot open '{{.*}}no-such-file.mlir': No such file or directory{{$}}
// MISSING-NOT: {{.}}

// A call the contract accepts but the pass cannot encode: the pass's diagnostic points
// at the op in this file.
// RUN: not mx-opt %s -p legalize-scaled-matmul 2>&1 | filecheck %s --check-prefix=PASS-FAILED
// PASS-FAILED-NOT: Traceback
// PASS-FAILED:     errors.mlir:46:3: error: 'hlo.custom_call' op legalize-scaled-matmul: the ScaledMatmul metadata holds at most one batch dimension, got lhs_batch_dimensions [0, 1]; reshape the batch dimensions into one before the scaled dot
// PASS-FAILED-NEXT: {{^}}  %y = hlo.custom_call @__op$block_scaled_dot(
// PASS-FAILED-NEXT: {{^}}  ^{{$}}
// PASS-FAILED-NOT: {{.}}

func.func @two_batch_dims(%l: tensor<2x3x4x8xui32>, %r: tensor<2x3x8x16xui32>, %ls: tensor<2x3x4x1xf8E8M0FNU>, %rs: tensor<2x3x1x16xf8E8M0FNU>) -> tensor<2x3x4x16xf32> {
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0, 1], \22rhs_batch_dimensions\22: [0, 1], \22lhs_contracting_dimensions\22: [3], \22rhs_contracting_dimensions\22: [2], \22element_dtype\22: \22float8_e5m2\22}}"} : (tensor<2x3x4x8xui32>, tensor<2x3x8x16xui32>, tensor<2x3x4x1xf8E8M0FNU>, tensor<2x3x1x16xf8E8M0FNU>) -> tensor<2x3x4x16xf32>
  func.return %y : tensor<2x3x4x16xf32>
}
