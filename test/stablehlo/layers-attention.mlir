// JAX-written attention and masked softmax (examples/stablehlo/layer_attention_causal_*,
// layer_softmax_masked_f32) lower to nisa and bir and give the StableHLO-level values bit
// for bit at every level: the causal mask from iota / compare / select, -inf constants,
// reduce max / add, exponential, divide, q k^T and p v as dot_general over heads.

// RUN: mx-run %examples/stablehlo/layer_attention_causal_1head_f32.mlir --inputs %examples/stablehlo/layer_attention_causal_1head_f32.inputs.npz --quiet --print-values > %t.layer_attention_causal_1head_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_attention_causal_1head_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_attention_causal_1head_f32.nisa.mlir
// RUN: mx-opt %t.layer_attention_causal_1head_f32.nisa.mlir -p lower-nisa-to-bir -o %t.layer_attention_causal_1head_f32.bir.mlir
// RUN: mx-run %t.layer_attention_causal_1head_f32.nisa.mlir --inputs %examples/stablehlo/layer_attention_causal_1head_f32.inputs.npz --quiet --print-values > %t.layer_attention_causal_1head_f32.nisa
// RUN: mx-run %t.layer_attention_causal_1head_f32.bir.mlir --inputs %examples/stablehlo/layer_attention_causal_1head_f32.inputs.npz --quiet --print-values > %t.layer_attention_causal_1head_f32.bir
// RUN: diff %t.layer_attention_causal_1head_f32.stablehlo %t.layer_attention_causal_1head_f32.nisa
// RUN: diff %t.layer_attention_causal_1head_f32.stablehlo %t.layer_attention_causal_1head_f32.bir
// RUN: mx-run %examples/stablehlo/layer_attention_causal_mha_f32.mlir --inputs %examples/stablehlo/layer_attention_causal_mha_f32.inputs.npz --quiet --print-values > %t.layer_attention_causal_mha_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_attention_causal_mha_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_attention_causal_mha_f32.nisa.mlir
// RUN: mx-opt %t.layer_attention_causal_mha_f32.nisa.mlir -p lower-nisa-to-bir -o %t.layer_attention_causal_mha_f32.bir.mlir
// RUN: mx-run %t.layer_attention_causal_mha_f32.nisa.mlir --inputs %examples/stablehlo/layer_attention_causal_mha_f32.inputs.npz --quiet --print-values > %t.layer_attention_causal_mha_f32.nisa
// RUN: mx-run %t.layer_attention_causal_mha_f32.bir.mlir --inputs %examples/stablehlo/layer_attention_causal_mha_f32.inputs.npz --quiet --print-values > %t.layer_attention_causal_mha_f32.bir
// RUN: diff %t.layer_attention_causal_mha_f32.stablehlo %t.layer_attention_causal_mha_f32.nisa
// RUN: diff %t.layer_attention_causal_mha_f32.stablehlo %t.layer_attention_causal_mha_f32.bir
// RUN: mx-run %examples/stablehlo/layer_attention_causal_mha_bf16.mlir --inputs %examples/stablehlo/layer_attention_causal_mha_bf16.inputs.npz --quiet --print-values > %t.layer_attention_causal_mha_bf16.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_attention_causal_mha_bf16.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_attention_causal_mha_bf16.nisa.mlir
// RUN: mx-opt %t.layer_attention_causal_mha_bf16.nisa.mlir -p lower-nisa-to-bir -o %t.layer_attention_causal_mha_bf16.bir.mlir
// RUN: mx-run %t.layer_attention_causal_mha_bf16.nisa.mlir --inputs %examples/stablehlo/layer_attention_causal_mha_bf16.inputs.npz --quiet --print-values > %t.layer_attention_causal_mha_bf16.nisa
// RUN: mx-run %t.layer_attention_causal_mha_bf16.bir.mlir --inputs %examples/stablehlo/layer_attention_causal_mha_bf16.inputs.npz --quiet --print-values > %t.layer_attention_causal_mha_bf16.bir
// RUN: diff %t.layer_attention_causal_mha_bf16.stablehlo %t.layer_attention_causal_mha_bf16.nisa
// RUN: diff %t.layer_attention_causal_mha_bf16.stablehlo %t.layer_attention_causal_mha_bf16.bir
// RUN: mx-run %examples/stablehlo/layer_softmax_masked_f32.mlir --inputs %examples/stablehlo/layer_softmax_masked_f32.inputs.npz --quiet --print-values > %t.layer_softmax_masked_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_softmax_masked_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_softmax_masked_f32.nisa.mlir
// RUN: mx-opt %t.layer_softmax_masked_f32.nisa.mlir -p lower-nisa-to-bir -o %t.layer_softmax_masked_f32.bir.mlir
// RUN: mx-run %t.layer_softmax_masked_f32.nisa.mlir --inputs %examples/stablehlo/layer_softmax_masked_f32.inputs.npz --quiet --print-values > %t.layer_softmax_masked_f32.nisa
// RUN: mx-run %t.layer_softmax_masked_f32.bir.mlir --inputs %examples/stablehlo/layer_softmax_masked_f32.inputs.npz --quiet --print-values > %t.layer_softmax_masked_f32.bir
// RUN: diff %t.layer_softmax_masked_f32.stablehlo %t.layer_softmax_masked_f32.nisa
// RUN: diff %t.layer_softmax_masked_f32.stablehlo %t.layer_softmax_masked_f32.bir
// RUN: filecheck %s < %t.layer_attention_causal_mha_bf16.nisa.mlir

// CHECK: nisa.nc_matmul
// CHECK: nisa.iota
// CHECK: nisa.tensor_tensor {{.*}}greater_equal
// CHECK: nisa.view_cast
// CHECK: nisa.tensor_copy_predicated
// CHECK: nisa.activation {{.*}}exp
// CHECK: nisa.nc_matmul
