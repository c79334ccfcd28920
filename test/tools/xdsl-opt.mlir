// Plain xdsl-opt sees mxdsl's dialect and passes through the xdsl.universe entry point.

// RUN: xdsl-opt %examples/mx_matmul.mlir | filecheck %s --check-prefix=PARSE
// RUN: xdsl-opt %examples/mx_matmul.mlir -p legalize-quantize-mx,legalize-scaled-matmul | filecheck %s --check-prefix=LEGAL
// RUN: xdsl-opt %examples/mx_matmul.mlir --print-op-generic | mx-opt | filecheck %s --check-prefix=PARSE

// PARSE-LABEL: func.func @main(
// PARSE-NEXT:    %xq = hlo.custom_call @QuantizeMX(%x)
// PARSE-NEXT:    %wq = hlo.custom_call @QuantizeMX(%w)
// PARSE-COUNT-4: hlo.get_tuple_element
// PARSE-NEXT:    %y = hlo.custom_call @__op$block_scaled_dot(%x_data, %w_data, %x_scale, %w_scale)

// LEGAL-LABEL: func.func @main(
// LEGAL:         hlo.custom_call @QuantizeMX_bf16_e4m3fn(
// LEGAL:         hlo.custom_call @QuantizeMX_bf16_e4m3fn(
// LEGAL:         hlo.custom_call @ScaledMatmul_e4m3fn_e4m3fn_f32(%x_data, %w_data, %x_scale, %w_scale, %
