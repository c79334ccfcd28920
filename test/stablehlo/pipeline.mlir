// A file JAX wrote runs with mx-run at every step of
//   import-stablehlo, legalize-scaled-matmul, lower-hlo-to-nisa
// and prints bit-identical values (--print-values prints every element exactly): here
// the hlo steps (after the import, after legalization) and the packed-arguments form
// (import-stablehlo{packed-arguments=true}: the arguments are ui32 words, packed by
// examples/stablehlo/generate.py with numpy, not by mxdsl), which is compared with the
// unpacked imported form, so the packing op itself is checked against numpy's packing.
// pipeline-scaled-matmul.mlir and pipeline-scaled-dot-general.mlir run every file JAX
// wrote through the default import down to nisa and bir; test_stablehlo_run.py checks
// the first step against an exact numpy dot.

// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.inputs.npz --quiet --print-values > %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo
// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.inputs.npz --quiet --print-values -p import-stablehlo > %t.scaled_matmul_cuda_e4m3fn_f32_k1024.imported
// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.inputs.npz --quiet --print-values -p import-stablehlo,legalize-scaled-matmul > %t.scaled_matmul_cuda_e4m3fn_f32_k1024.legalized
// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.packed-inputs.npz --quiet --print-values -p 'import-stablehlo{packed-arguments=true},legalize-scaled-matmul' > %t.scaled_matmul_cuda_e4m3fn_f32_k1024.packed
// RUN: mx-opt %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.mlir -p 'import-stablehlo{packed-arguments=true},legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.scaled_matmul_cuda_e4m3fn_f32_k1024.nisa.mlir
// RUN: mx-run %t.scaled_matmul_cuda_e4m3fn_f32_k1024.nisa.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.packed-inputs.npz --quiet --print-values > %t.scaled_matmul_cuda_e4m3fn_f32_k1024.nisa
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_cuda_e4m3fn_f32_k1024.imported
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_cuda_e4m3fn_f32_k1024.legalized
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_cuda_e4m3fn_f32_k1024.packed
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_cuda_e4m3fn_f32_k1024.nisa
// RUN: filecheck %s --check-prefix=NISA < %t.scaled_matmul_cuda_e4m3fn_f32_k1024.nisa.mlir

// VALUES: result0 = {{\[\[\[}}
// NISA: func.func public @main(%arg0: memref<1x16x256xui32, #nisa.mem<hbm>>, %arg1: memref<1x8x256xui32, #nisa.mem<hbm>>, %arg2: memref<1x16x32xf8E8M0FNU, #nisa.mem<hbm>>, %arg3: memref<1x8x32xf8E8M0FNU, #nisa.mem<hbm>>) -> (memref<1x16x8xf32, #nisa.mem<hbm>> {jax.result_info = "result"})
// NISA: nisa.nc_matmul_mx
