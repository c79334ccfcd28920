// -o FILE is written only when the whole run succeeds: a run whose pass fails leaves no
// file behind (and an existing file untouched); a good run writes the same text as stdout.

// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul -o %t.good.mlir
// RUN: filecheck %s --input-file %t.good.mlir --check-prefix=WRITTEN
// RUN: mx-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul > %t.stdout.mlir
// RUN: diff %t.good.mlir %t.stdout.mlir

// RUN: rm -f %t.failed.mlir
// RUN: not mx-opt %s -p legalize-quantize-mx,legalize-scaled-matmul -o %t.failed.mlir 2>&1 | filecheck %s --check-prefix=FAILED
// RUN: python -c "import os, sys; sys.exit(os.path.exists(sys.argv[1]))" %t.failed.mlir
// RUN: python -c "open(r'%t.kept.mlir', 'w').write('kept')"
// RUN: not mx-opt %s -p legalize-quantize-mx,legalize-scaled-matmul -o %t.kept.mlir
// RUN: python -c "import sys; sys.exit(open(r'%t.kept.mlir').read() != 'kept')"

// WRITTEN-LABEL: func.func @main(
// WRITTEN:         hlo.custom_call @QuantizeMX_bf16_e4m3fn(
// WRITTEN:         hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(

// The first pass succeeds, the second fails: nothing is written.
// FAILED-NOT: Traceback
// FAILED: output.mlir:27:3: error: 'hlo.custom_call' op legalize-scaled-matmul: the ScaledMatmul metadata holds at most one batch dimension
// FAILED-NOT: Traceback

func.func @two_batch_dims(%l: tensor<2x3x4x8xui32>, %r: tensor<2x3x8x16xui32>, %ls: tensor<2x3x4x1xf8E8M0FNU>, %rs: tensor<2x3x1x16xf8E8M0FNU>, %x: tensor<2x32xbf16>) -> tensor<2x3x4x16xf32> {
  %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{\22dtype\22: \22float8_e5m2\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}"} : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0, 1], \22rhs_batch_dimensions\22: [0, 1], \22lhs_contracting_dimensions\22: [3], \22rhs_contracting_dimensions\22: [2], \22element_dtype\22: \22float8_e5m2\22}}"} : (tensor<2x3x4x8xui32>, tensor<2x3x8x16xui32>, tensor<2x3x4x1xf8E8M0FNU>, tensor<2x3x1x16xf8E8M0FNU>) -> tensor<2x3x4x16xf32>
  func.return %y : tensor<2x3x4x16xf32>
}
