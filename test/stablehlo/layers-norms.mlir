// The JAX-written norm layers (examples/stablehlo/layer_rmsnorm_*.mlir,
// layer_layernorm_f32.mlir: reduce add over the minor dim, divide, rsqrt / sqrt,
// broadcasts, subtract, multiply) lower to nisa and bir and give the StableHLO-level
// values bit for bit at every level: the sums are the exact sum rounded once
// everywhere (docs/numerics.md, "Float sums").

// RUN: mx-run %examples/stablehlo/layer_rmsnorm_f32.mlir --inputs %examples/stablehlo/layer_rmsnorm_f32.inputs.npz --quiet --print-values > %t.rmsnorm_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_rmsnorm_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.rmsnorm_f32.nisa.mlir
// RUN: mx-opt %t.rmsnorm_f32.nisa.mlir -p lower-nisa-to-bir -o %t.rmsnorm_f32.bir.mlir
// RUN: mx-run %t.rmsnorm_f32.nisa.mlir --inputs %examples/stablehlo/layer_rmsnorm_f32.inputs.npz --quiet --print-values > %t.rmsnorm_f32.nisa
// RUN: mx-run %t.rmsnorm_f32.bir.mlir --inputs %examples/stablehlo/layer_rmsnorm_f32.inputs.npz --quiet --print-values > %t.rmsnorm_f32.bir
// RUN: diff %t.rmsnorm_f32.stablehlo %t.rmsnorm_f32.nisa
// RUN: diff %t.rmsnorm_f32.stablehlo %t.rmsnorm_f32.bir
// RUN: filecheck %s --check-prefix=RMS < %t.rmsnorm_f32.nisa.mlir

// RUN: mx-run %examples/stablehlo/layer_rmsnorm_bf16.mlir --inputs %examples/stablehlo/layer_rmsnorm_bf16.inputs.npz --quiet --print-values > %t.rmsnorm_bf16.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_rmsnorm_bf16.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.rmsnorm_bf16.nisa.mlir
// RUN: mx-opt %t.rmsnorm_bf16.nisa.mlir -p lower-nisa-to-bir -o %t.rmsnorm_bf16.bir.mlir
// RUN: mx-run %t.rmsnorm_bf16.nisa.mlir --inputs %examples/stablehlo/layer_rmsnorm_bf16.inputs.npz --quiet --print-values > %t.rmsnorm_bf16.nisa
// RUN: mx-run %t.rmsnorm_bf16.bir.mlir --inputs %examples/stablehlo/layer_rmsnorm_bf16.inputs.npz --quiet --print-values > %t.rmsnorm_bf16.bir
// RUN: diff %t.rmsnorm_bf16.stablehlo %t.rmsnorm_bf16.nisa
// RUN: diff %t.rmsnorm_bf16.stablehlo %t.rmsnorm_bf16.bir

// RUN: mx-run %examples/stablehlo/layer_layernorm_f32.mlir --inputs %examples/stablehlo/layer_layernorm_f32.inputs.npz --quiet --print-values > %t.layernorm_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_layernorm_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layernorm_f32.nisa.mlir
// RUN: mx-opt %t.layernorm_f32.nisa.mlir -p lower-nisa-to-bir -o %t.layernorm_f32.bir.mlir
// RUN: mx-run %t.layernorm_f32.nisa.mlir --inputs %examples/stablehlo/layer_layernorm_f32.inputs.npz --quiet --print-values > %t.layernorm_f32.nisa
// RUN: mx-run %t.layernorm_f32.bir.mlir --inputs %examples/stablehlo/layer_layernorm_f32.inputs.npz --quiet --print-values > %t.layernorm_f32.bir
// RUN: diff %t.layernorm_f32.stablehlo %t.layernorm_f32.nisa
// RUN: diff %t.layernorm_f32.stablehlo %t.layernorm_f32.bir
// RUN: filecheck %s --check-prefix=LN < %t.layernorm_f32.nisa.mlir

// The sum of squares, one tensor_reduce add per row tile, then the mean's divide.
// RMS: nisa.tensor_tensor {{.*}}multiply
// RMS: nisa.tensor_reduce {{%.*}}, add {{%.*}} axes [1] : memref<8x1xf32, #nisa.mem<sbuf>>, memref<8x32xf32, #nisa.mem<sbuf>>
// RMS: nisa.tensor_tensor {{.*}}divide

// The mean, then the sum of the squared deviations: two tensor_reduce adds.
// LN: nisa.tensor_reduce {{%.*}}, add {{%.*}} axes [1]
// LN: nisa.tensor_tensor {{.*}}subtract
// LN: nisa.tensor_reduce {{%.*}}, add {{%.*}} axes [1]
