// The JAX-written layers (examples/stablehlo/layer_*.mlir) parse, print and print again
// unchanged, and their generic form reads back; the FFNs (SwiGLU f32 / bf16 / MXFP8 cuda
// and rocm, GeGLU with exact and tanh GELU, ReLU; plain dots and MXFP8 block-scaled
// dots) lower to nisa and bir and give the StableHLO-level values bit for bit at every
// level. The norm layers' three-level runs are in layers-norms.mlir, the attention
// layers' and the masked softmax's in layers-attention.mlir.

// RUN: mx-opt %examples/stablehlo/layer_attention_causal_1head_f32.mlir -o %t.layer_attention_causal_1head_f32.1.mlir
// RUN: mx-opt %t.layer_attention_causal_1head_f32.1.mlir | diff %t.layer_attention_causal_1head_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_attention_causal_1head_f32.mlir --print-op-generic | mx-opt | diff %t.layer_attention_causal_1head_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_attention_causal_mha_bf16.mlir -o %t.layer_attention_causal_mha_bf16.1.mlir
// RUN: mx-opt %t.layer_attention_causal_mha_bf16.1.mlir | diff %t.layer_attention_causal_mha_bf16.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_attention_causal_mha_bf16.mlir --print-op-generic | mx-opt | diff %t.layer_attention_causal_mha_bf16.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_attention_causal_mha_f32.mlir -o %t.layer_attention_causal_mha_f32.1.mlir
// RUN: mx-opt %t.layer_attention_causal_mha_f32.1.mlir | diff %t.layer_attention_causal_mha_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_attention_causal_mha_f32.mlir --print-op-generic | mx-opt | diff %t.layer_attention_causal_mha_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_exact_f32.mlir -o %t.layer_ffn_geglu_exact_f32.1.mlir
// RUN: mx-opt %t.layer_ffn_geglu_exact_f32.1.mlir | diff %t.layer_ffn_geglu_exact_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_exact_f32.mlir --print-op-generic | mx-opt | diff %t.layer_ffn_geglu_exact_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_exact_mxfp8_cuda.mlir -o %t.layer_ffn_geglu_exact_mxfp8_cuda.1.mlir
// RUN: mx-opt %t.layer_ffn_geglu_exact_mxfp8_cuda.1.mlir | diff %t.layer_ffn_geglu_exact_mxfp8_cuda.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_exact_mxfp8_cuda.mlir --print-op-generic | mx-opt | diff %t.layer_ffn_geglu_exact_mxfp8_cuda.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_tanh_f32.mlir -o %t.layer_ffn_geglu_tanh_f32.1.mlir
// RUN: mx-opt %t.layer_ffn_geglu_tanh_f32.1.mlir | diff %t.layer_ffn_geglu_tanh_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_tanh_f32.mlir --print-op-generic | mx-opt | diff %t.layer_ffn_geglu_tanh_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_relu_f32.mlir -o %t.layer_ffn_relu_f32.1.mlir
// RUN: mx-opt %t.layer_ffn_relu_f32.1.mlir | diff %t.layer_ffn_relu_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_relu_f32.mlir --print-op-generic | mx-opt | diff %t.layer_ffn_relu_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.mlir -o %t.layer_ffn_relu_mxfp8_cuda.1.mlir
// RUN: mx-opt %t.layer_ffn_relu_mxfp8_cuda.1.mlir | diff %t.layer_ffn_relu_mxfp8_cuda.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.mlir --print-op-generic | mx-opt | diff %t.layer_ffn_relu_mxfp8_cuda.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_bf16.mlir -o %t.layer_ffn_swiglu_bf16.1.mlir
// RUN: mx-opt %t.layer_ffn_swiglu_bf16.1.mlir | diff %t.layer_ffn_swiglu_bf16.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_bf16.mlir --print-op-generic | mx-opt | diff %t.layer_ffn_swiglu_bf16.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_f32.mlir -o %t.layer_ffn_swiglu_f32.1.mlir
// RUN: mx-opt %t.layer_ffn_swiglu_f32.1.mlir | diff %t.layer_ffn_swiglu_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_f32.mlir --print-op-generic | mx-opt | diff %t.layer_ffn_swiglu_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.mlir -o %t.layer_ffn_swiglu_mxfp8_cuda.1.mlir
// RUN: mx-opt %t.layer_ffn_swiglu_mxfp8_cuda.1.mlir | diff %t.layer_ffn_swiglu_mxfp8_cuda.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.mlir --print-op-generic | mx-opt | diff %t.layer_ffn_swiglu_mxfp8_cuda.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_mxfp8_rocm.mlir -o %t.layer_ffn_swiglu_mxfp8_rocm.1.mlir
// RUN: mx-opt %t.layer_ffn_swiglu_mxfp8_rocm.1.mlir | diff %t.layer_ffn_swiglu_mxfp8_rocm.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_mxfp8_rocm.mlir --print-op-generic | mx-opt | diff %t.layer_ffn_swiglu_mxfp8_rocm.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_layernorm_f32.mlir -o %t.layer_layernorm_f32.1.mlir
// RUN: mx-opt %t.layer_layernorm_f32.1.mlir | diff %t.layer_layernorm_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_layernorm_f32.mlir --print-op-generic | mx-opt | diff %t.layer_layernorm_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_rmsnorm_bf16.mlir -o %t.layer_rmsnorm_bf16.1.mlir
// RUN: mx-opt %t.layer_rmsnorm_bf16.1.mlir | diff %t.layer_rmsnorm_bf16.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_rmsnorm_bf16.mlir --print-op-generic | mx-opt | diff %t.layer_rmsnorm_bf16.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_rmsnorm_f32.mlir -o %t.layer_rmsnorm_f32.1.mlir
// RUN: mx-opt %t.layer_rmsnorm_f32.1.mlir | diff %t.layer_rmsnorm_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_rmsnorm_f32.mlir --print-op-generic | mx-opt | diff %t.layer_rmsnorm_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_softmax_masked_f32.mlir -o %t.layer_softmax_masked_f32.1.mlir
// RUN: mx-opt %t.layer_softmax_masked_f32.1.mlir | diff %t.layer_softmax_masked_f32.1.mlir -
// RUN: mx-opt %examples/stablehlo/layer_softmax_masked_f32.mlir --print-op-generic | mx-opt | diff %t.layer_softmax_masked_f32.1.mlir -
// RUN: mx-run %examples/stablehlo/layer_ffn_geglu_exact_f32.mlir --inputs %examples/stablehlo/layer_ffn_geglu_exact_f32.inputs.npz --quiet --print-values > %t.layer_ffn_geglu_exact_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_exact_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_ffn_geglu_exact_f32.nisa.mlir
// RUN: mx-opt %t.layer_ffn_geglu_exact_f32.nisa.mlir -p lower-nisa-to-bir -o %t.layer_ffn_geglu_exact_f32.bir.mlir
// RUN: mx-run %t.layer_ffn_geglu_exact_f32.nisa.mlir --inputs %examples/stablehlo/layer_ffn_geglu_exact_f32.inputs.npz --quiet --print-values > %t.layer_ffn_geglu_exact_f32.nisa
// RUN: mx-run %t.layer_ffn_geglu_exact_f32.bir.mlir --inputs %examples/stablehlo/layer_ffn_geglu_exact_f32.inputs.npz --quiet --print-values > %t.layer_ffn_geglu_exact_f32.bir
// RUN: diff %t.layer_ffn_geglu_exact_f32.stablehlo %t.layer_ffn_geglu_exact_f32.nisa
// RUN: diff %t.layer_ffn_geglu_exact_f32.stablehlo %t.layer_ffn_geglu_exact_f32.bir
// RUN: mx-run %examples/stablehlo/layer_ffn_geglu_exact_mxfp8_cuda.mlir --inputs %examples/stablehlo/layer_ffn_geglu_exact_mxfp8_cuda.inputs.npz --quiet --print-values > %t.layer_ffn_geglu_exact_mxfp8_cuda.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_exact_mxfp8_cuda.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_ffn_geglu_exact_mxfp8_cuda.nisa.mlir
// RUN: mx-opt %t.layer_ffn_geglu_exact_mxfp8_cuda.nisa.mlir -p lower-nisa-to-bir -o %t.layer_ffn_geglu_exact_mxfp8_cuda.bir.mlir
// RUN: mx-run %t.layer_ffn_geglu_exact_mxfp8_cuda.nisa.mlir --inputs %examples/stablehlo/layer_ffn_geglu_exact_mxfp8_cuda.inputs.npz --quiet --print-values > %t.layer_ffn_geglu_exact_mxfp8_cuda.nisa
// RUN: mx-run %t.layer_ffn_geglu_exact_mxfp8_cuda.bir.mlir --inputs %examples/stablehlo/layer_ffn_geglu_exact_mxfp8_cuda.inputs.npz --quiet --print-values > %t.layer_ffn_geglu_exact_mxfp8_cuda.bir
// RUN: diff %t.layer_ffn_geglu_exact_mxfp8_cuda.stablehlo %t.layer_ffn_geglu_exact_mxfp8_cuda.nisa
// RUN: diff %t.layer_ffn_geglu_exact_mxfp8_cuda.stablehlo %t.layer_ffn_geglu_exact_mxfp8_cuda.bir
// RUN: mx-run %examples/stablehlo/layer_ffn_geglu_tanh_f32.mlir --inputs %examples/stablehlo/layer_ffn_geglu_tanh_f32.inputs.npz --quiet --print-values > %t.layer_ffn_geglu_tanh_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_geglu_tanh_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_ffn_geglu_tanh_f32.nisa.mlir
// RUN: mx-opt %t.layer_ffn_geglu_tanh_f32.nisa.mlir -p lower-nisa-to-bir -o %t.layer_ffn_geglu_tanh_f32.bir.mlir
// RUN: mx-run %t.layer_ffn_geglu_tanh_f32.nisa.mlir --inputs %examples/stablehlo/layer_ffn_geglu_tanh_f32.inputs.npz --quiet --print-values > %t.layer_ffn_geglu_tanh_f32.nisa
// RUN: mx-run %t.layer_ffn_geglu_tanh_f32.bir.mlir --inputs %examples/stablehlo/layer_ffn_geglu_tanh_f32.inputs.npz --quiet --print-values > %t.layer_ffn_geglu_tanh_f32.bir
// RUN: diff %t.layer_ffn_geglu_tanh_f32.stablehlo %t.layer_ffn_geglu_tanh_f32.nisa
// RUN: diff %t.layer_ffn_geglu_tanh_f32.stablehlo %t.layer_ffn_geglu_tanh_f32.bir
// RUN: mx-run %examples/stablehlo/layer_ffn_relu_f32.mlir --inputs %examples/stablehlo/layer_ffn_relu_f32.inputs.npz --quiet --print-values > %t.layer_ffn_relu_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_relu_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_ffn_relu_f32.nisa.mlir
// RUN: mx-opt %t.layer_ffn_relu_f32.nisa.mlir -p lower-nisa-to-bir -o %t.layer_ffn_relu_f32.bir.mlir
// RUN: mx-run %t.layer_ffn_relu_f32.nisa.mlir --inputs %examples/stablehlo/layer_ffn_relu_f32.inputs.npz --quiet --print-values > %t.layer_ffn_relu_f32.nisa
// RUN: mx-run %t.layer_ffn_relu_f32.bir.mlir --inputs %examples/stablehlo/layer_ffn_relu_f32.inputs.npz --quiet --print-values > %t.layer_ffn_relu_f32.bir
// RUN: diff %t.layer_ffn_relu_f32.stablehlo %t.layer_ffn_relu_f32.nisa
// RUN: diff %t.layer_ffn_relu_f32.stablehlo %t.layer_ffn_relu_f32.bir
// RUN: mx-run %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.mlir --inputs %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.inputs.npz --quiet --print-values > %t.layer_ffn_relu_mxfp8_cuda.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_ffn_relu_mxfp8_cuda.nisa.mlir
// RUN: mx-opt %t.layer_ffn_relu_mxfp8_cuda.nisa.mlir -p lower-nisa-to-bir -o %t.layer_ffn_relu_mxfp8_cuda.bir.mlir
// RUN: mx-run %t.layer_ffn_relu_mxfp8_cuda.nisa.mlir --inputs %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.inputs.npz --quiet --print-values > %t.layer_ffn_relu_mxfp8_cuda.nisa
// RUN: mx-run %t.layer_ffn_relu_mxfp8_cuda.bir.mlir --inputs %examples/stablehlo/layer_ffn_relu_mxfp8_cuda.inputs.npz --quiet --print-values > %t.layer_ffn_relu_mxfp8_cuda.bir
// RUN: diff %t.layer_ffn_relu_mxfp8_cuda.stablehlo %t.layer_ffn_relu_mxfp8_cuda.nisa
// RUN: diff %t.layer_ffn_relu_mxfp8_cuda.stablehlo %t.layer_ffn_relu_mxfp8_cuda.bir
// RUN: mx-run %examples/stablehlo/layer_ffn_swiglu_bf16.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_bf16.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_bf16.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_bf16.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_ffn_swiglu_bf16.nisa.mlir
// RUN: mx-opt %t.layer_ffn_swiglu_bf16.nisa.mlir -p lower-nisa-to-bir -o %t.layer_ffn_swiglu_bf16.bir.mlir
// RUN: mx-run %t.layer_ffn_swiglu_bf16.nisa.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_bf16.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_bf16.nisa
// RUN: mx-run %t.layer_ffn_swiglu_bf16.bir.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_bf16.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_bf16.bir
// RUN: diff %t.layer_ffn_swiglu_bf16.stablehlo %t.layer_ffn_swiglu_bf16.nisa
// RUN: diff %t.layer_ffn_swiglu_bf16.stablehlo %t.layer_ffn_swiglu_bf16.bir
// RUN: mx-run %examples/stablehlo/layer_ffn_swiglu_f32.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_f32.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_ffn_swiglu_f32.nisa.mlir
// RUN: mx-opt %t.layer_ffn_swiglu_f32.nisa.mlir -p lower-nisa-to-bir -o %t.layer_ffn_swiglu_f32.bir.mlir
// RUN: mx-run %t.layer_ffn_swiglu_f32.nisa.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_f32.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_f32.nisa
// RUN: mx-run %t.layer_ffn_swiglu_f32.bir.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_f32.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_f32.bir
// RUN: diff %t.layer_ffn_swiglu_f32.stablehlo %t.layer_ffn_swiglu_f32.nisa
// RUN: diff %t.layer_ffn_swiglu_f32.stablehlo %t.layer_ffn_swiglu_f32.bir
// RUN: mx-run %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_mxfp8_cuda.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_ffn_swiglu_mxfp8_cuda.nisa.mlir
// RUN: mx-opt %t.layer_ffn_swiglu_mxfp8_cuda.nisa.mlir -p lower-nisa-to-bir -o %t.layer_ffn_swiglu_mxfp8_cuda.bir.mlir
// RUN: mx-run %t.layer_ffn_swiglu_mxfp8_cuda.nisa.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_mxfp8_cuda.nisa
// RUN: mx-run %t.layer_ffn_swiglu_mxfp8_cuda.bir.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_mxfp8_cuda.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_mxfp8_cuda.bir
// RUN: diff %t.layer_ffn_swiglu_mxfp8_cuda.stablehlo %t.layer_ffn_swiglu_mxfp8_cuda.nisa
// RUN: diff %t.layer_ffn_swiglu_mxfp8_cuda.stablehlo %t.layer_ffn_swiglu_mxfp8_cuda.bir
// RUN: mx-run %examples/stablehlo/layer_ffn_swiglu_mxfp8_rocm.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_mxfp8_rocm.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_mxfp8_rocm.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_ffn_swiglu_mxfp8_rocm.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layer_ffn_swiglu_mxfp8_rocm.nisa.mlir
// RUN: mx-opt %t.layer_ffn_swiglu_mxfp8_rocm.nisa.mlir -p lower-nisa-to-bir -o %t.layer_ffn_swiglu_mxfp8_rocm.bir.mlir
// RUN: mx-run %t.layer_ffn_swiglu_mxfp8_rocm.nisa.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_mxfp8_rocm.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_mxfp8_rocm.nisa
// RUN: mx-run %t.layer_ffn_swiglu_mxfp8_rocm.bir.mlir --inputs %examples/stablehlo/layer_ffn_swiglu_mxfp8_rocm.inputs.npz --quiet --print-values > %t.layer_ffn_swiglu_mxfp8_rocm.bir
// RUN: diff %t.layer_ffn_swiglu_mxfp8_rocm.stablehlo %t.layer_ffn_swiglu_mxfp8_rocm.nisa
// RUN: diff %t.layer_ffn_swiglu_mxfp8_rocm.stablehlo %t.layer_ffn_swiglu_mxfp8_rocm.bir
// RUN: filecheck %s < %t.layer_ffn_relu_f32.nisa.mlir
// RUN: filecheck %s --check-prefix=SWIGLU < %t.layer_ffn_swiglu_f32.nisa.mlir
// RUN: filecheck %s --check-prefix=SWIGLU-BIR < %t.layer_ffn_swiglu_f32.bir.mlir
// RUN: filecheck %s --check-prefix=GELU-EXACT < %t.layer_ffn_geglu_exact_f32.nisa.mlir
// RUN: filecheck %s --check-prefix=GELU-TANH < %t.layer_ffn_geglu_tanh_f32.nisa.mlir

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
