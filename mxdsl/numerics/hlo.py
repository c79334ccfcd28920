"""The HLO-level MX calls: exactly what QuantizeMX returns and ScaledMatmul consumes.

"MX-FP8 Microscaling Legalization" §4.1: a BF16 / F16 input becomes ``{ui32 data, E8M0
scale}``; the data is FP8 x4-packed along the quantized dim (its length divided by 4),
the scale has one E8M0 byte per 32 elements along that dim (its length divided by 32).
Only ``float8_e4m3fn`` and ``float8_e5m2`` exist at this level.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mxdsl.numerics.blocks import logical_block_shape, normalize_axis
from mxdsl.numerics.formats import MX_BLOCK_SIZE, X4_PACK, MxFormat
from mxdsl.numerics.packing import pack_fp8_x4, unpack_fp8_x4
from mxdsl.numerics.quantize import as_scale_bytes, dequantize_mx, quantize_mx
from mxdsl.numerics.reference import as_quantize_input


def _hlo_format(fmt: MxFormat | str) -> MxFormat:
    if isinstance(fmt, str):
        return MxFormat.from_name(fmt)
    if not fmt.is_fp8:
        raise ValueError(
            f"{fmt.spec_name} is not an HLO MX element dtype: only 'float8_e5m2' and "
            "'float8_e4m3fn' are supported"
        )
    return fmt


def quantize_mx_packed(
    x: npt.ArrayLike,
    fmt: MxFormat | str,
    axis: int = -1,
    *,
    alternative_emax: bool = False,
    threads: int | None = None,
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8]]:
    """HLO QuantizeMX along ``axis``: ``(ui32 data, uint8 E8M0 scale)`` with ``axis``
    divided by 4 and by 32 respectively (its length must divide by 32). ``threads`` as
    in :func:`mxdsl.numerics.quantize.quantize_mx`."""
    fmt = _hlo_format(fmt)
    arr = as_quantize_input(x)
    if arr.ndim == 0:
        raise ValueError("QuantizeMX needs an input of rank >= 1")
    axis = normalize_axis(axis, arr.ndim)
    if arr.shape[axis] % MX_BLOCK_SIZE:
        raise ValueError(
            f"QuantizeMX dim {axis} has length {arr.shape[axis]}, which is not a multiple "
            f"of the block size {MX_BLOCK_SIZE}"
        )
    codes, scale = quantize_mx(
        arr,
        fmt,
        logical_block_shape(arr.ndim, axis),
        alternative_emax=alternative_emax,
        threads=threads,
    )
    return pack_fp8_x4(codes, axis), scale


def dequantize_mx_packed(
    data: npt.ArrayLike,
    scale: npt.ArrayLike,
    fmt: MxFormat | str,
    axis: int = -1,
) -> npt.NDArray[np.float32]:
    """Inverse of :func:`quantize_mx_packed` (what ScaledMatmul applies to each side):
    unpack the ui32 words along ``axis`` and multiply every element by its block's
    ``2**(E8M0 - 127)``; fp32 with ``axis`` times 4."""
    fmt = _hlo_format(fmt)
    words = np.asarray(data)
    if words.ndim == 0:
        raise ValueError("MX data needs rank >= 1")
    axis = normalize_axis(axis, words.ndim)
    scale_bytes = as_scale_bytes(scale)
    codes = unpack_fp8_x4(words, axis)
    if codes.shape[axis] % MX_BLOCK_SIZE:
        raise ValueError(
            f"MX data dim {axis} holds {codes.shape[axis]} elements "
            f"({words.shape[axis]} x{X4_PACK} words), not a multiple of {MX_BLOCK_SIZE}"
        )
    return dequantize_mx(codes, scale_bytes, fmt, logical_block_shape(codes.ndim, axis))
