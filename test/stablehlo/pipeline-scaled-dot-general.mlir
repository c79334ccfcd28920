// Every scaled_dot_general file JAX wrote (MXFP8 config: bf16 inputs, JAX's own
// quantization as ~50 plain ops, a 2-D dot given a batch dim by broadcast_in_dim +
// transpose, or a batched one; cuda and rocm) goes through
//   import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa
// and lower-nisa-to-bir with JAX's quantization kept (the default: JAX's round-up block
// scale, run op by op on the Vector engine), and mx-run prints bit-identical values as
// StableHLO, nisa and bir. test_stablehlo_run.py checks the StableHLO values (and the
// imported hlo program's) against JAX's own CPU run of its quantization. One file goes
// through printed .mlir files (mx-opt -o, mx-run on the text). With the quantize-mx
// opt-in (Neuron's EMAX scale rule, so other values than JAX's, and no quantization ops
// left to lower) the imported, nisa and bir programs agree with each other.

// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.inputs.npz --quiet --print-values > %t.scaled_dot_general_mxfp8_unbatched_f32.stablehlo
// RUN: mx-opt %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.scaled_dot_general_mxfp8_unbatched_f32.nisa.mlir
// RUN: mx-opt %t.scaled_dot_general_mxfp8_unbatched_f32.nisa.mlir -p lower-nisa-to-bir -o %t.scaled_dot_general_mxfp8_unbatched_f32.bir.mlir
// RUN: mx-run %t.scaled_dot_general_mxfp8_unbatched_f32.nisa.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.inputs.npz --quiet --print-values > %t.scaled_dot_general_mxfp8_unbatched_f32.nisa
// RUN: mx-run %t.scaled_dot_general_mxfp8_unbatched_f32.bir.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.inputs.npz --quiet --print-values > %t.scaled_dot_general_mxfp8_unbatched_f32.bir
// RUN: diff %t.scaled_dot_general_mxfp8_unbatched_f32.stablehlo %t.scaled_dot_general_mxfp8_unbatched_f32.nisa
// RUN: diff %t.scaled_dot_general_mxfp8_unbatched_f32.stablehlo %t.scaled_dot_general_mxfp8_unbatched_f32.bir
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_rocm_f32.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_rocm_f32.inputs.npz --quiet --print-values > %t.scaled_dot_general_mxfp8_rocm_f32.stablehlo
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_rocm_f32.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_rocm_f32.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' > %t.scaled_dot_general_mxfp8_rocm_f32.nisa
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_rocm_f32.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_rocm_f32.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir' > %t.scaled_dot_general_mxfp8_rocm_f32.bir
// RUN: diff %t.scaled_dot_general_mxfp8_rocm_f32.stablehlo %t.scaled_dot_general_mxfp8_rocm_f32.nisa
// RUN: diff %t.scaled_dot_general_mxfp8_rocm_f32.stablehlo %t.scaled_dot_general_mxfp8_rocm_f32.bir
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.inputs.npz --quiet --print-values > %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.stablehlo
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' > %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.nisa
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir' > %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.bir
// RUN: diff %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.stablehlo %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.nisa
// RUN: diff %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.stablehlo %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.bir
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.inputs.npz --quiet --print-values -p 'import-stablehlo{quantize-mx=true},legalize-quantize-mx,legalize-scaled-matmul' > %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.q.hlo 2> /dev/null
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.inputs.npz --quiet --print-values -p 'import-stablehlo{quantize-mx=true},legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa' > %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.q.nisa 2> /dev/null
// RUN: mx-run %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.inputs.npz --quiet --print-values -p 'import-stablehlo{quantize-mx=true},legalize-quantize-mx,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir' > %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.q.bir 2> /dev/null
// RUN: diff %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.q.hlo %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.q.nisa
// RUN: diff %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.q.hlo %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.q.bir
// RUN: not diff -q %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.stablehlo %t.scaled_dot_general_mxfp8_batched_e5m2_bf16.q.hlo

// RUN: filecheck %s --check-prefix=NISA < %t.scaled_dot_general_mxfp8_unbatched_f32.nisa.mlir

// JAX's quantization of the lhs, op by op: the blocked reshape is a view, |x| and the
// block max run on the Vector engine, the f32 bits of the scale are a view_cast, the
// E8M0 byte is a ui8 buffer viewed as f8E8M0FNU, the FP8 data is packed by a view_cast.
// NISA: func.func public @main(%arg0: memref<4x64xbf16, #nisa.mem<hbm>>, %arg1: memref<64x8xbf16, #nisa.mem<hbm>>) -> (memref<4x8xf32, #nisa.mem<hbm>> {jax.result_info = "result"})
// NISA: nisa.tensor_tensor {{.*}}, abs_max
// NISA: nisa.tensor_reduce {{.*}}, maximum {{.*}} axes [1]
// NISA: nisa.tensor_tensor {{.*}}, divide
// NISA: nisa.view_cast {{.*}} : memref<1x4x2x1xf32, #nisa.mem<hbm>> to memref<1x4x2x1xui32, #nisa.mem<hbm>>
// NISA: nisa.tensor_tensor {{.*}}, right_shift
// NISA: nisa.tensor_tensor {{.*}}, bitwise_and
// NISA: nisa.tensor_tensor {{.*}}, greater
// NISA: nisa.tensor_copy_predicated
// NISA: nisa.tensor_tensor {{.*}}, left_shift
// NISA: nisa.view_cast {{.*}} : memref<1x4x2xui8, #nisa.mem<hbm>> to memref<1x4x2xf8E8M0FNU, #nisa.mem<hbm>>
// NISA: nisa.view_cast {{.*}} : memref<1x4x16x4xf8E4M3FN, #nisa.mem<hbm>> to memref<1x4x16x1x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
// NISA: nisa.nc_matmul_mx
// NISA-NOT: stablehlo.
// NISA-NOT: hlo.
