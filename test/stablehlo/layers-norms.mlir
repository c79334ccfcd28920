// The JAX-written norm layers (examples/stablehlo/layer_rmsnorm_*.mlir,
// layer_layernorm_f32.mlir: reduce add over the minor dim, divide, rsqrt / sqrt,
// broadcasts, subtract, multiply) lower to nisa and bir and give the StableHLO-level
// values bit for bit at every level: the sums are the exact sum rounded once
// everywhere (docs/numerics.md, "Float sums"). Here LayerNorm goes through the installed
// commands; test_layers_three_levels.py puts every layer through the same commands.

// RUN: mx-run %examples/stablehlo/layer_layernorm_f32.mlir --inputs %examples/stablehlo/layer_layernorm_f32.inputs.npz --quiet --print-values > %t.layernorm.stablehlo
// RUN: mx-opt %examples/stablehlo/layer_layernorm_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.layernorm.nisa.mlir
// RUN: mx-opt %t.layernorm.nisa.mlir -p lower-nisa-to-bir -o %t.layernorm.bir.mlir
// RUN: mx-run %t.layernorm.nisa.mlir --inputs %examples/stablehlo/layer_layernorm_f32.inputs.npz --quiet --print-values > %t.layernorm.nisa
// RUN: mx-run %t.layernorm.bir.mlir --inputs %examples/stablehlo/layer_layernorm_f32.inputs.npz --quiet --print-values > %t.layernorm.bir
// RUN: diff %t.layernorm.stablehlo %t.layernorm.nisa
// RUN: diff %t.layernorm.stablehlo %t.layernorm.bir
// RUN: filecheck %s --check-prefix=LN < %t.layernorm.nisa.mlir
// RUN: mx-opt %examples/stablehlo/layer_rmsnorm_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' | filecheck %s --check-prefix=RMS

// The sum of squares, one tensor_reduce add per row tile, then the mean's divide.
// RMS: nisa.tensor_tensor {{.*}}multiply
// RMS: nisa.tensor_reduce {{%.*}}, add {{%.*}} axes [1] : memref<8x1xf32, #nisa.mem<sbuf>>, memref<8x32xf32, #nisa.mem<sbuf>>
// RMS: nisa.tensor_tensor {{.*}}divide

// The mean, then the sum of the squared deviations: two tensor_reduce adds.
// LN: nisa.tensor_reduce {{%.*}}, add {{%.*}} axes [1]
// LN: nisa.tensor_tensor {{.*}}subtract
// LN: nisa.tensor_reduce {{%.*}}, add {{%.*}} axes [1]
