"""The reference MX quantize / dequantize: the spec's algorithm, written plainly.

Spec "MX Microscaling: Quantize, Block-Scaling and E8M0":

* "Algorithm — findMaxExponentPerInputBlock": the per-element exponent is the raw
  byte ``(uint8)(fp32_bits >> 23)`` (sign dropped, denormals read 0, Inf / NaN read
  255), reduced with max over the block.
* "Algorithm — generateMxScales (E8M0 clamp)": ``E8M0 = max(1, max(0, maxExp - emaxBias))``.
* "Algorithm — doQuantizeMx (EMAX pick)": ``emaxBias`` is emax (2 / 8 / 15), or
  emax - 1 with MxAlternativeEmaxEn.
* "Algorithm — quantizeDataApplyingMxScales (the prescale)": multiply in fp32 by
  ``bit_cast<float>((254 - E8M0) << 23)`` = ``2**(127 - E8M0)``, then narrow.

This module is the executable statement of those rules; the fast path in
:mod:`mxdsl.numerics.fast` is tested against it bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np
import numpy.typing as npt

from mxdsl.numerics.blocks import block_max, grid_shape, interleaved_shape, per_block_view
from mxdsl.numerics.formats import E8M0_DTYPE, MxFormat, as_format, emax_bias
from mxdsl.numerics.narrow import decode, fp32_bits, narrow

INPUT_DTYPES = (np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16), np.dtype(np.float32))
"""Quantizer inputs: BF16 / F16 (the HLO contract) and fp32 (what they widen to)."""


def as_quantize_input(x: npt.ArrayLike) -> np.ndarray:
    """``x`` as an array of one of ``INPUT_DTYPES``; anything else is a ValueError (a
    float64 input would be rounded to fp32 before quantizing: do that explicitly)."""
    arr = np.asarray(x)
    if arr.dtype not in INPUT_DTYPES:
        raise ValueError(f"MX quantize input must be bfloat16, float16 or float32, got {arr.dtype}")
    return arr


def exponent_bytes(x: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """``(uint8)(fp32_bits >> 23)``: the biased exponent, sign-independent; zeros and
    denormals read 0, Inf and NaN read 255 ("GOTCHA — the per-element exponent")."""
    return (fp32_bits(x) >> np.uint32(23)).astype(np.uint8)


def e8m0_from_max_exponent(
    max_exponent: npt.ArrayLike, fmt: MxFormat | str, *, alternative_emax: bool = False
) -> npt.NDArray[np.uint8]:
    """``max(1, max(0, maxExp - emaxBias))``: CLAMP-LOW first, then ZERO-FLOOR
    ("Algorithm — generateMxScales"). The result is always in ``[1, 254]``."""
    bias = emax_bias(as_format(fmt), alternative_emax=alternative_emax)
    shifted = np.asarray(max_exponent).astype(np.int16) - bias
    return np.maximum(np.maximum(shifted, 0), 1).astype(np.uint8)


def block_scales(
    x: npt.ArrayLike,
    fmt: MxFormat | str,
    block_shape: Sequence[int],
    *,
    alternative_emax: bool = False,
) -> npt.NDArray[np.uint8]:
    """The E8M0 scale byte of every block of ``x`` (grid-shaped uint8)."""
    arr = as_quantize_input(x)
    max_exponent = block_max(exponent_bytes(arr), block_shape)
    return e8m0_from_max_exponent(max_exponent, fmt, alternative_emax=alternative_emax)


def prescale_multiplier(e8m0: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``bit_cast<float>((254 - E8M0) << 23)`` = ``2**(127 - E8M0)`` for E8M0 in
    ``[1, 254]`` ("NOTE — the constant is 254, not 255"). E8M0 = 254 (reachable only for
    e2m1 in the alternative-emax mode with an Inf / NaN in the block) gives the bit
    pattern 0, i.e. a multiplier of +0.0, exactly as the simulator builds it."""
    scale = np.asarray(e8m0).astype(np.uint32)
    if np.any(scale > 254):
        raise ValueError("the prescale multiplier is defined for E8M0 bytes <= 254")
    return ((np.uint32(254) - scale) << np.uint32(23)).view(np.float32)


def e8m0_to_float32(e8m0: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``2**(E8M0 - 127)`` as fp32, exactly: 0 is the denormal ``2**-127``, 254 is
    ``2**127`` and 255 is NaN (the ``float8_e8m0fnu`` NaN)."""
    return np.asarray(e8m0, dtype=np.uint8).view(E8M0_DTYPE).astype(np.float32)


def quantize_mx_reference(
    x: npt.ArrayLike,
    fmt: MxFormat | str,
    block_shape: Sequence[int],
    *,
    alternative_emax: bool = False,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Quantize ``x`` block by block: ``(element codes, E8M0 scale bytes)``.

    Codes are uint8 with the shape of ``x`` (FP4: one nibble per byte); scales are uint8
    with the shape ``x.shape / block_shape``."""
    fmt = as_format(fmt)
    arr = as_quantize_input(x)
    grid_shape(arr.shape, block_shape)
    widened = arr.astype(np.float32)
    scale = block_scales(widened, fmt, block_shape, alternative_emax=alternative_emax)
    blocked = widened.reshape(interleaved_shape(arr.shape, block_shape))
    with np.errstate(invalid="ignore"):  # Inf * 0.0 when E8M0 = 254 (see prescale_multiplier)
        prescaled = blocked * per_block_view(prescale_multiplier(scale))
    return narrow(prescaled.reshape(arr.shape), fmt), scale


def dequantize_mx_reference(
    codes: npt.ArrayLike,
    scale: npt.ArrayLike,
    fmt: MxFormat | str,
    block_shape: Sequence[int],
) -> npt.NDArray[np.float32]:
    """``element * 2**(E8M0 - 127)`` in fp32: the exact product, rounded once (the same
    as ``ldexpf``): it overflows to +-Inf and underflows through the fp32 denormals
    like ldexpf; E8M0 = 255 (NaN in ``float8_e8m0fnu``) makes the whole block NaN."""
    fmt = as_format(fmt)
    codes = np.asarray(codes, dtype=np.uint8)
    scale = np.asarray(scale, dtype=np.uint8)
    expected = grid_shape(codes.shape, block_shape)
    if scale.shape != expected:
        raise ValueError(
            f"scale shape {scale.shape} does not match codes shape {codes.shape} "
            f"with block shape {tuple(block_shape)} (expected {expected})"
        )
    values = decode(codes, fmt).reshape(interleaved_shape(codes.shape, block_shape))
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = values * per_block_view(e8m0_to_float32(scale))
    return scaled.reshape(codes.shape)
