// The quantize rewrite is opt-in: without quantize-mx, JAX's MXFP8 quantization stays as
// written (no QuantizeMX, no remark); with import-stablehlo{quantize-mx=true} each
// quantized operand of the block-scaled dot comes from one QuantizeMX along its last
// dim, JAX's ops are gone, and a located remark at each site says the block-scale rule
// changed. The rewritten program legalizes (legalize-quantize-mx,
// legalize-scaled-matmul) and gives the same values before and after; that they are
// the Neuron rule's values (and where they differ from JAX's) is test_stablehlo_run.py.

// RUN: mx-opt %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.mlir -p import-stablehlo 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: mx-opt %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.mlir -p 'import-stablehlo{quantize-mx=true}' -o %t.mlir 2> %t.remarks
// RUN: filecheck %s < %t.mlir
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: mx-opt %t.mlir -p legalize-quantize-mx,legalize-scaled-matmul | filecheck %s --check-prefix=LEGAL
// RUN: mx-run %t.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.inputs.npz --quiet --print-values > %t.a
// RUN: mx-run %t.mlir --inputs %examples/stablehlo/scaled_dot_general_mxfp8_unbatched_f32.inputs.npz --quiet --print-values -p legalize-quantize-mx,legalize-scaled-matmul > %t.b
// RUN: diff %t.a %t.b
// RUN: mx-opt %examples/stablehlo/scaled_dot_general_mxfp8_batched_e5m2_bf16.mlir -p 'import-stablehlo{quantize-mx=true}' 2>&1 | filecheck %s --check-prefix=E5M2

// DEFAULT-NOT: remark
// DEFAULT-NOT: QuantizeMX
// DEFAULT: stablehlo.reduce(%{{.*}} init: %cst) applies stablehlo.maximum across dimensions = [3]
// DEFAULT: hlo.custom_call @__op$block_scaled_dot(

// CHECK: func.func public @main(%arg0: tensor<4x64xbf16>, %arg1: tensor<64x8xbf16>) -> (tensor<4x8xf32> {jax.result_info = "result"}) {
// CHECK: %2 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<4x64x1xbf16>) -> tensor<1x4x64xbf16>
// CHECK: %lhs_mx = hlo.custom_call @QuantizeMX(%2) {backend_config = "{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, \22scale_method\22: \22EMAX\22}", api_version = 1 : i32} : (tensor<1x4x64xbf16>) -> tuple<tensor<1x4x16xui32>, tensor<1x4x2xf8E8M0FNU>>
// CHECK-NEXT: %[[LD:.*]] = hlo.get_tuple_element %lhs_mx[0]
// CHECK-NEXT: %[[LS:.*]] = hlo.get_tuple_element %lhs_mx[1]
// CHECK-NEXT: %rhs_mx = hlo.custom_call @QuantizeMX(%3)
// CHECK-NEXT: %[[RD:.*]] = hlo.get_tuple_element %rhs_mx[0]
// CHECK-NEXT: %[[RS:.*]] = hlo.get_tuple_element %rhs_mx[1]
// CHECK-NEXT: hlo.custom_call @__op$block_scaled_dot(%[[LD]], %[[RD]], %[[LS]], %[[RS]])
// CHECK-NOT: stablehlo.abs
// CHECK-NOT: stablehlo.reduce

// REMARK: scaled_dot_general_mxfp8_unbatched_f32.mlir:7:5: remark: 'hlo.custom_call' op import-stablehlo: JAX's MXFP8 quantization of the lhs of the block-scaled dot was replaced by QuantizeMX (opt-in quantize-mx): the E8M0 block scale now follows the Neuron EMAX floor rule (max(1, maxExp - emax), then saturate) instead of JAX's round-up rule (ceil(log2(amax / 448))), so blocks whose amax has a significand above 1.75 get half JAX's scale and all-zero blocks get E8M0 1, not 0; results can differ from JAX's (docs/stablehlo.md)
// REMARK-NEXT: scaled_dot_general_mxfp8_unbatched_f32.mlir:64:5: remark: 'hlo.custom_call' op import-stablehlo: JAX's MXFP8 quantization of the rhs

// LEGAL: hlo.custom_call @QuantizeMX_bf16_e4m3fn(
// LEGAL: hlo.custom_call @QuantizeMX_bf16_e4m3fn(
// LEGAL: hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(

// E5M2: remark: 'hlo.custom_call' op import-stablehlo: JAX's MXFP8 quantization of the lhs of the block-scaled dot was replaced by QuantizeMX (opt-in quantize-mx): {{.*}}(ceil(log2(amax / 57344))){{.*}}
// E5M2: hlo.custom_call @QuantizeMX(%{{.*}}) {backend_config = "{\22dtype\22: \22float8_e5m2\22
