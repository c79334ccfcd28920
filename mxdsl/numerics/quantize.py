"""The public MX quantize / dequantize at the unpacked level (one code byte per element).

Both take a ``block_shape`` (one extent per axis, see :mod:`mxdsl.numerics.blocks`), so
the logical HLO block (32 along one axis) and the physical BIR block (8 partitions x 4
columns) run the same code. Each dispatches to the fast path of
:mod:`mxdsl.numerics.fast` where one exists (bfloat16 input; FP8 codes) and to the
reference of :mod:`mxdsl.numerics.reference` otherwise; the two agree bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import ml_dtypes
import numpy as np
import numpy.typing as npt

from mxdsl.numerics import fast
from mxdsl.numerics.blocks import grid_shape
from mxdsl.numerics.formats import E8M0_DTYPE, MxFormat, as_format
from mxdsl.numerics.reference import (
    as_quantize_input,
    dequantize_mx_reference,
    quantize_mx_reference,
)

_BF16 = np.dtype(ml_dtypes.bfloat16)


def _fast_geometry(shape: Sequence[int], block_shape: Sequence[int]) -> bool:
    """The fast kernels work on whole 8-byte words of blocks: a block of a multiple of
    8 elements (every MX block has 32) and a non-empty array."""
    return math.prod(block_shape) % 8 == 0 and math.prod(shape) > 0  # plain ints: no numpy call


def quantize_mx(
    x: npt.ArrayLike,
    fmt: MxFormat | str,
    block_shape: Sequence[int],
    *,
    alternative_emax: bool = False,
    threads: int | None = None,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """MX-quantize ``x`` (bfloat16, float16 or float32) block by block.

    Returns ``(codes, scale)``: uint8 element codes with the shape of ``x`` (FP4: one
    nibble per byte) and uint8 E8M0 bytes with the shape ``x.shape / block_shape``.
    ``alternative_emax`` is MxAlternativeEmaxEn (emax - 1). Spec
    "MX Microscaling: Quantize, Block-Scaling and E8M0" "The Quantize Data Path" and "Block-Scale
    Computation";
    a shape that ``block_shape`` does not divide is a ValueError. ``threads`` bounds the
    threads of the bf16 fast path (default ``$MXDSL_QUANTIZE_THREADS``, else every
    available CPU; see :func:`mxdsl.numerics.fast.quantize_threads`): the bits do not
    depend on it."""
    fmt = as_format(fmt)
    arr = as_quantize_input(x)
    grid_shape(arr.shape, block_shape)
    count = fast.quantize_threads(threads)
    if arr.dtype == _BF16 and _fast_geometry(arr.shape, block_shape):
        return fast.quantize_bf16(
            arr, fmt, block_shape, alternative_emax=alternative_emax, threads=count
        )
    return quantize_mx_reference(arr, fmt, block_shape, alternative_emax=alternative_emax)


def as_scale_bytes(scale: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """E8M0 scales as uint8 bytes (a ``float8_e8m0fnu`` array is viewed, not converted)."""
    arr = np.asarray(scale)
    if arr.dtype == E8M0_DTYPE:
        return arr.view(np.uint8)
    if arr.dtype != np.uint8:
        raise ValueError(f"E8M0 scales must be uint8 or float8_e8m0fnu, got {arr.dtype}")
    return arr


def dequantize_mx(
    codes: npt.ArrayLike,
    scale: npt.ArrayLike,
    fmt: MxFormat | str,
    block_shape: Sequence[int],
) -> npt.NDArray[np.float32]:
    """``element * 2**(E8M0 - 127)`` in fp32, exactly (ldexpf semantics: overflow to
    +-Inf, gradual underflow; E8M0 = 255, the ``float8_e8m0fnu`` NaN, gives NaN)."""
    fmt = as_format(fmt)
    code_bytes = np.asarray(codes)
    if code_bytes.dtype != np.uint8:
        raise ValueError(f"MX element codes must be uint8, got {code_bytes.dtype}")
    scale_bytes = as_scale_bytes(scale)
    expected = grid_shape(code_bytes.shape, block_shape)
    if scale_bytes.shape != expected:
        raise ValueError(
            f"scale shape {scale_bytes.shape} does not match codes shape {code_bytes.shape} "
            f"with block shape {tuple(block_shape)} (expected {expected})"
        )
    if fmt.is_fp8 and _fast_geometry(code_bytes.shape, block_shape):
        return fast.dequantize_fp8(code_bytes, scale_bytes, fmt, block_shape)
    return dequantize_mx_reference(code_bytes, scale_bytes, fmt, block_shape)
