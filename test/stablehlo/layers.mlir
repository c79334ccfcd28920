// The JAX-written FFN layers through the installed commands. A printed layer prints
// again unchanged and its generic form reads back; the lowerings emit each of JAX's
// steps as its own instruction; the MXFP8 SwiGLU FFN (block-scaled dots) gives the
// StableHLO-level values bit for bit at nisa and at bir. Every layer in
// examples/stablehlo/ is put through the same commands, in process, by
// test_layers_three_levels.py (round trip, and bits at all three levels).

// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.mlir -o %t.printed.mlir
// RUN: mx-opt %t.printed.mlir | diff %t.printed.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.mlir --print-op-generic | mx-opt | diff %t.printed.mlir -

// RUN: mx-run %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.inputs.npz --quiet --print-values > %t.swiglu_mxfp8.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.swiglu_mxfp8.nisa.mlir
// RUN: mx-opt %t.swiglu_mxfp8.nisa.mlir -p lower-nisa-to-bir -o %t.swiglu_mxfp8.bir.mlir
// RUN: mx-run %t.swiglu_mxfp8.nisa.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.inputs.npz --quiet --print-values > %t.swiglu_mxfp8.nisa
// RUN: mx-run %t.swiglu_mxfp8.bir.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.inputs.npz --quiet --print-values > %t.swiglu_mxfp8.bir
// RUN: diff %t.swiglu_mxfp8.stablehlo %t.swiglu_mxfp8.nisa
// RUN: diff %t.swiglu_mxfp8.stablehlo %t.swiglu_mxfp8.bir

// RUN: mx-opt %examples/stablehlo/layer_ffn_relu_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' | filecheck %s
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.swiglu.nisa.mlir
// RUN: filecheck %s --check-prefix=SWIGLU < %t.swiglu.nisa.mlir
// RUN: mx-opt %t.swiglu.nisa.mlir -p lower-nisa-to-bir | filecheck %s --check-prefix=SWIGLU-BIR
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_exact_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' | filecheck %s --check-prefix=GELU-EXACT
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_tanh_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' | filecheck %s --check-prefix=GELU-TANH

// CHECK: nisa.nc_matmul
// CHECK: nisa.tensor_tensor {{.*}}maximum

// SiLU as JAX 0.10 writes it, x / (1 + exp(-x)): each step its own op and rounding
// SWIGLU: nisa.nc_matmul
// SWIGLU: nisa.activation %{{.*}}, exp %
// SWIGLU: nisa.tensor_tensor {{.*}}add
// SWIGLU: nisa.tensor_tensor {{.*}}divide
// SWIGLU-BIR: bir.activation {{.*}} exp

// GELU-EXACT: nisa.activation %{{.*}}, erfc %
// GELU-TANH: nisa.activation %{{.*}}, tanh %
