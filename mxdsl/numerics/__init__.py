"""MX (OCP microscaling) numerics: formats, narrows, quantize / dequantize, packing.

Pure numpy + ml_dtypes, vectorised over whole arrays, no IR. Every interpreter calls
these functions, so the MX numerics exist once. The behaviour follows
the spec "MX Microscaling: Quantize, Block-Scaling and E8M0" (the BIR simulator's InstQuantizeMx)
and
the spec "MX-FP8 Microscaling Legalization" §4; ``docs/numerics.md`` explains the choices.
"""

from mxdsl.numerics.blocks import (
    PHYSICAL_BLOCK_SHAPE,
    grid_shape,
    logical_block_shape,
    physical_block_shape,
)
from mxdsl.numerics.formats import (
    E8M0_BIAS,
    E8M0_DTYPE,
    E8M0_NAN,
    MX_BLOCK_SIZE,
    X4_PACK,
    FormatInfo,
    MxFormat,
    as_format,
    emax_bias,
)
from mxdsl.numerics.hlo import dequantize_mx_packed, quantize_mx_packed
from mxdsl.numerics.narrow import (
    as_ml_dtype,
    decode,
    decode_e2m1,
    encode_e2m1,
    narrow,
    narrow_fp8,
)
from mxdsl.numerics.packing import (
    DEFAULT_FP4_HIGH_NIBBLE_PARITY,
    DEFAULT_FP4_LANE_STRIDE,
    deinterleave_scale_rows,
    fp4_lane_remap,
    interleave_scale_rows,
    pack_fp4_x4,
    pack_fp8_x4,
    scale_buffer_rows,
    scale_row_slot,
    unpack_fp4_x4,
    unpack_fp8_x4,
)
from mxdsl.numerics.quantize import dequantize_mx, quantize_mx
from mxdsl.numerics.reference import (
    block_scales,
    dequantize_mx_reference,
    e8m0_from_max_exponent,
    e8m0_to_float32,
    exponent_bytes,
    prescale_multiplier,
    quantize_mx_reference,
)

__all__ = [
    "DEFAULT_FP4_HIGH_NIBBLE_PARITY",
    "DEFAULT_FP4_LANE_STRIDE",
    "E8M0_BIAS",
    "E8M0_DTYPE",
    "E8M0_NAN",
    "MX_BLOCK_SIZE",
    "PHYSICAL_BLOCK_SHAPE",
    "X4_PACK",
    "FormatInfo",
    "MxFormat",
    "as_format",
    "as_ml_dtype",
    "block_scales",
    "decode",
    "decode_e2m1",
    "deinterleave_scale_rows",
    "dequantize_mx",
    "dequantize_mx_packed",
    "dequantize_mx_reference",
    "e8m0_from_max_exponent",
    "e8m0_to_float32",
    "emax_bias",
    "encode_e2m1",
    "exponent_bytes",
    "fp4_lane_remap",
    "grid_shape",
    "interleave_scale_rows",
    "logical_block_shape",
    "narrow",
    "narrow_fp8",
    "pack_fp4_x4",
    "pack_fp8_x4",
    "physical_block_shape",
    "prescale_multiplier",
    "quantize_mx",
    "quantize_mx_packed",
    "quantize_mx_reference",
    "scale_buffer_rows",
    "scale_row_slot",
    "unpack_fp4_x4",
    "unpack_fp8_x4",
]
