// Every scaled_matmul file JAX wrote (cuda custom calls and rocm composites, e4m3fn -> f32
// and e5m2 -> bf16, batch 1 and 2, K = 64 .. 1024) goes through
//   import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa
// and on through lower-nisa-to-bir, and mx-run prints bit-identical values (every element
// exactly, --print-values) as StableHLO, as the nisa kernel and as the bir kernel, on the
// generator's typed FP8 inputs (the hlo step between: pipeline.mlir and
// test_stablehlo_run.py). One file goes through printed .mlir files at each step (mx-opt
// -o, then mx-run on the text), the others through mx-run -p. The FP8 arguments stay FP8
// at the kernel boundary: import-stablehlo's packing pair (reshape to [.., K/4, 4],
// bitcast_convert to ui32) lowers to a nisa.view_cast of the FP8 bytes as x4 words (NKI's
// view(dtype)), which lower-nisa-to-bir folds into x4 access patterns over the FP8
// argument. test_stablehlo_run.py checks the StableHLO values against an exact numpy dot.

// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32.inputs.npz --quiet --print-values > %t.scaled_matmul_cuda_e4m3fn_f32.stablehlo
// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' > %t.scaled_matmul_cuda_e4m3fn_f32.nisa
// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir' > %t.scaled_matmul_cuda_e4m3fn_f32.bir
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32.stablehlo %t.scaled_matmul_cuda_e4m3fn_f32.nisa
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32.stablehlo %t.scaled_matmul_cuda_e4m3fn_f32.bir
// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.inputs.npz --quiet --print-values > %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo
// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' > %t.scaled_matmul_cuda_e4m3fn_f32_k1024.nisa
// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e4m3fn_f32_k1024.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir' > %t.scaled_matmul_cuda_e4m3fn_f32_k1024.bir
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_cuda_e4m3fn_f32_k1024.nisa
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_cuda_e4m3fn_f32_k1024.bir
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.inputs.npz --quiet --print-values > %t.scaled_matmul_rocm_e4m3fn_f32.stablehlo
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' > %t.scaled_matmul_rocm_e4m3fn_f32.nisa
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir' > %t.scaled_matmul_rocm_e4m3fn_f32.bir
// RUN: diff %t.scaled_matmul_rocm_e4m3fn_f32.stablehlo %t.scaled_matmul_rocm_e4m3fn_f32.nisa
// RUN: diff %t.scaled_matmul_rocm_e4m3fn_f32.stablehlo %t.scaled_matmul_rocm_e4m3fn_f32.bir
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e5m2_bf16.inputs.npz --quiet --print-values > %t.scaled_matmul_rocm_e5m2_bf16.stablehlo
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e5m2_bf16.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' > %t.scaled_matmul_rocm_e5m2_bf16.nisa
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e5m2_bf16.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir' > %t.scaled_matmul_rocm_e5m2_bf16.bir
// RUN: diff %t.scaled_matmul_rocm_e5m2_bf16.stablehlo %t.scaled_matmul_rocm_e5m2_bf16.nisa
// RUN: diff %t.scaled_matmul_rocm_e5m2_bf16.stablehlo %t.scaled_matmul_rocm_e5m2_bf16.bir
// RUN: mx-run %examples/stablehlo/scaled_matmul_cuda_e5m2_bf16.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e5m2_bf16.inputs.npz --quiet --print-values > %t.scaled_matmul_cuda_e5m2_bf16.stablehlo
// RUN: mx-opt %examples/stablehlo/scaled_matmul_cuda_e5m2_bf16.mlir -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' -o %t.scaled_matmul_cuda_e5m2_bf16.nisa.mlir
// RUN: mx-opt %t.scaled_matmul_cuda_e5m2_bf16.nisa.mlir -p lower-nisa-to-bir -o %t.scaled_matmul_cuda_e5m2_bf16.bir.mlir
// RUN: mx-run %t.scaled_matmul_cuda_e5m2_bf16.nisa.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e5m2_bf16.inputs.npz --quiet --print-values > %t.scaled_matmul_cuda_e5m2_bf16.nisa
// RUN: mx-run %t.scaled_matmul_cuda_e5m2_bf16.bir.mlir --inputs %examples/stablehlo/scaled_matmul_cuda_e5m2_bf16.inputs.npz --quiet --print-values > %t.scaled_matmul_cuda_e5m2_bf16.bir
// RUN: diff %t.scaled_matmul_cuda_e5m2_bf16.stablehlo %t.scaled_matmul_cuda_e5m2_bf16.nisa
// RUN: diff %t.scaled_matmul_cuda_e5m2_bf16.stablehlo %t.scaled_matmul_cuda_e5m2_bf16.bir


// The rocm composite with K = 1024 has the cuda K = 1024 file's inputs. Its StableHLO
// run is its decomposition (bf16 dot_general: fp32 rounding per 128 K elements), so it
// differs from the custom call's MX dot (per 512) in the last bits; imported, it is the
// MX dot: hlo, nisa and bir print the cuda file's values (import-stablehlo remarks on
// it; docs/stablehlo.md).
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32_k1024.inputs.npz --quiet --print-values > %t.scaled_matmul_rocm_e4m3fn_f32_k1024.stablehlo
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32_k1024.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul' > %t.scaled_matmul_rocm_e4m3fn_f32_k1024.hlo 2> /dev/null
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32_k1024.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa' > %t.scaled_matmul_rocm_e4m3fn_f32_k1024.nisa 2> /dev/null
// RUN: mx-run %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32_k1024.mlir --inputs %examples/stablehlo/scaled_matmul_rocm_e4m3fn_f32_k1024.inputs.npz --quiet --print-values -p 'import-stablehlo,legalize-scaled-matmul,lower-hlo-to-nisa,lower-nisa-to-bir' > %t.scaled_matmul_rocm_e4m3fn_f32_k1024.bir 2> /dev/null
// RUN: not diff -q %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_rocm_e4m3fn_f32_k1024.stablehlo
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_rocm_e4m3fn_f32_k1024.hlo
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_rocm_e4m3fn_f32_k1024.nisa
// RUN: diff %t.scaled_matmul_cuda_e4m3fn_f32_k1024.stablehlo %t.scaled_matmul_rocm_e4m3fn_f32_k1024.bir

// RUN: filecheck %s --check-prefix=NISA < %t.scaled_matmul_cuda_e5m2_bf16.nisa.mlir
// RUN: filecheck %s --check-prefix=BIR < %t.scaled_matmul_cuda_e5m2_bf16.bir.mlir

// NISA: func.func public @main(%arg0: memref<2x16x128xf8E5M2, #nisa.mem<hbm>>, %arg1: memref<2x8x128xf8E5M2, #nisa.mem<hbm>>, %arg2: memref<2x16x4xf8E8M0FNU, #nisa.mem<hbm>>, %arg3: memref<2x8x4xf8E8M0FNU, #nisa.mem<hbm>>) -> (memref<2x16x8xbf16, #nisa.mem<hbm>> {jax.result_info = "result"})
// NISA: %[[L:.*]] = memref.expand_shape %arg0 {{\[\[}}0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [2, 16, 32, 4] : memref<2x16x128xf8E5M2, #nisa.mem<hbm>> into memref<2x16x32x4xf8E5M2, #nisa.mem<hbm>>
// NISA-NEXT: %[[LX:.*]] = nisa.view_cast %[[L]] : memref<2x16x32x4xf8E5M2, #nisa.mem<hbm>> to memref<2x16x32x1x!nisa.float8_e5m2_x4, #nisa.mem<hbm>>
// NISA-NEXT: memref.collapse_shape %[[LX]] {{\[\[}}0 : i64], [1 : i64], [2 : i64, 3 : i64]] : memref<2x16x32x1x!nisa.float8_e5m2_x4, #nisa.mem<hbm>> into memref<2x16x32x!nisa.float8_e5m2_x4, #nisa.mem<hbm>>
// NISA: nisa.view_cast {{.*}} : memref<2x8x32x4xf8E5M2, #nisa.mem<hbm>> to memref<2x8x32x1x!nisa.float8_e5m2_x4, #nisa.mem<hbm>>
// NISA: nisa.nc_matmul_mx
// NISA-NOT: stablehlo.
// NISA-NOT: hlo.custom_call

// The x4 words are read straight out of the FP8 argument (dtype 9: float8_e5m2_x4).
// BIR-NOT: nisa.view_cast
// BIR: bir.dma {{.*}} #bir.ap<hbm, {{\[\[}}1, 32], [32, 16]], off = 0, dtype = 9> of %arg0 : memref<2x16x128xf8E5M2, #nisa.mem<hbm>>
// BIR: bir.matmult_mx
// BIR-NOT: nisa.view_cast
