// JAX-written attention and masked softmax (examples/stablehlo/layer_attention_causal_*,
// layer_softmax_masked_f32) lower to nisa and bir and give the StableHLO-level values bit
// for bit at every level: the causal mask from iota / compare / select, -inf constants,
// reduce max / add, exponential, divide, q k^T and p v as dot_general over heads. Here
// the bf16 multi-head layer goes through the installed commands;
// test_layers_three_levels.py puts every layer through the same commands.

// RUN: mx-run %examples/stablehlo/layer_attention_causal_mha_bf16.mlir --inputs %examples/stablehlo/layer_attention_causal_mha_bf16.inputs.npz --quiet --print-values > %t.mha_bf16.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_attention_causal_mha_bf16.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.mha_bf16.nisa.mlir
// RUN: mx-opt %t.mha_bf16.nisa.mlir -p lower-nisa-to-bir -o %t.mha_bf16.bir.mlir
// RUN: mx-run %t.mha_bf16.nisa.mlir --inputs %examples/stablehlo/layer_attention_causal_mha_bf16.inputs.npz --quiet --print-values > %t.mha_bf16.nisa
// RUN: mx-run %t.mha_bf16.bir.mlir --inputs %examples/stablehlo/layer_attention_causal_mha_bf16.inputs.npz --quiet --print-values > %t.mha_bf16.bir
// RUN: diff %t.mha_bf16.stablehlo %t.mha_bf16.nisa
// RUN: diff %t.mha_bf16.stablehlo %t.mha_bf16.bir
// RUN: filecheck %s < %t.mha_bf16.nisa.mlir

// CHECK: nisa.nc_matmul
// CHECK: nisa.iota
// CHECK: nisa.tensor_tensor {{.*}}greater_equal
// CHECK: nisa.view_cast
// CHECK: nisa.tensor_copy_predicated
// CHECK: nisa.activation {{.*}}exp
// CHECK: nisa.nc_matmul
