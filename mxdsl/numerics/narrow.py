"""fp32 -> FP8 / FP4 narrows and the FP4 decoder (the reference path).

Spec "MX Microscaling: Quantize, Block-Scaling and E8M0", "Round-to-Grid: FP4 and FP8": FP8 e4m3fn
/ e5m2 go
through ``bir::CastToNewDType`` with the FP8ConversionConfig saturate byte forced on;
FP4 e2m1 has its own RNE-saturate encoder (``encode_e2m1``) and decoder (``decode_e2m1``).
Every function works on whole arrays with integer arithmetic on the fp32 bit pattern;
codes are returned as uint8 (FP4: one nibble per byte, in the low four bits).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mxdsl.numerics.formats import MxFormat, as_format

_FP32_EXP_SHIFT = 23
_FP32_MANT_MASK = 0x007F_FFFF
_FP32_MAG_MASK = 0x7FFF_FFFF
_FP32_INF_BITS = 0x7F80_0000


def fp32_bits(x: npt.ArrayLike) -> npt.NDArray[np.uint32]:
    """The uint32 bit patterns of ``x`` widened to fp32 (bf16 / f16 widen exactly)."""
    return np.asarray(np.asarray(x).astype(np.float32, copy=False)).view(np.uint32)


def _rne_shift(value: npt.NDArray[np.uint64], shift: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """``value >> shift`` rounded to nearest, ties to even (``shift`` >= 1)."""
    shift = np.asarray(shift, dtype=np.uint64)
    one = np.uint64(1)
    half_minus_one = (one << (shift - one)) - one
    odd = (value >> shift) & one
    return (value + half_minus_one + odd) >> shift


def rne_magnitude_code(
    magnitude_bits: npt.NDArray[np.uint32], mantissa_bits: int, bias: int
) -> npt.NDArray[np.uint64]:
    """Round finite non-negative fp32 magnitudes (bit patterns) to the grid of a
    ``1.mantissa_bits`` format with exponent ``bias``: RNE, no saturation, both the
    normal and the subnormal range (the carry out of the mantissa bumps the exponent,
    a subnormal may round up to the smallest normal). The result is the magnitude code,
    possibly beyond the format's largest code; callers saturate."""
    mag = magnitude_bits.astype(np.uint64)
    exponent = mag >> np.uint64(_FP32_EXP_SHIFT)
    drop = _FP32_EXP_SHIFT - mantissa_bits
    # Normal result (target biased exponent >= 1): rebias the exponent field, round.
    is_normal = exponent >= np.uint64(128 - bias)
    rebias = np.uint64((127 - bias) << _FP32_EXP_SHIFT)
    rebased = np.where(is_normal, mag - np.minimum(mag, rebias), np.uint64(0))
    normal_code = _rne_shift(rebased, drop)
    # Subnormal result: the significand in units of the smallest subnormal, RNE.
    significand = (mag & np.uint64(_FP32_MANT_MASK)) | np.where(
        exponent > 0, np.uint64(1 << _FP32_EXP_SHIFT), np.uint64(0)
    )
    effective_exponent = np.maximum(exponent, np.uint64(1)).astype(np.int64)
    shift = np.clip((151 - bias - mantissa_bits) - effective_exponent, 1, 40)
    subnormal_code = _rne_shift(significand, shift)
    return np.where(is_normal, normal_code, subnormal_code)


def narrow_fp8(x: npt.ArrayLike, fmt: MxFormat | str) -> npt.NDArray[np.uint8]:
    """fp32 -> float8_e4m3fn / float8_e5m2 code bytes, RNE with saturation on.

    The FP8ConversionConfig saturate byte that QuantizeMx forces to 1 ("FP8 e4m3fn ...
    and e5m2 ... — delegated", QUIRK "always narrows fp8 with saturate on"):

    * finite values round to nearest, ties to even, through the subnormal range;
    * a result beyond the largest finite value (also one that only gets there by
      rounding) becomes +-max finite (448 / 57344), never NaN or Inf;
    * +-Inf becomes +-max finite;
    * NaN stays NaN: the canonical quiet NaN (0x7F e4m3fn, 0x7E e5m2) with the input's sign.

    ``x`` is converted to float32 first.
    """
    info = as_format(fmt).info
    if info.bits != 8 or info.nan_code is None:
        raise ValueError(f"narrow_fp8 needs an FP8 format, got {info.spec_name}")
    bits = fp32_bits(x)
    magnitude = bits & np.uint32(_FP32_MAG_MASK)
    finite = np.minimum(magnitude, np.uint32(_FP32_INF_BITS - 1))
    code = np.minimum(
        rne_magnitude_code(finite, info.mantissa_bits, info.bias), np.uint64(info.max_code)
    )
    code = np.where(magnitude > np.uint32(_FP32_INF_BITS), np.uint64(info.nan_code), code)
    sign = (bits >> np.uint32(31)).astype(np.uint64) << np.uint64(7)
    return (code | sign).astype(np.uint8)


def encode_e2m1(x: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """fp32 -> float4_e2m1fn nibble (``encode_e2m1``, sub_2A3530), in the low four bits.

    Spec "FP4 e2m1 (dtype 2) — local encode/decode", in the encoder's own order:

    * NaN -> the signed ZERO nibble ``sign << 3`` (FP4 has no NaN);
    * unbiased fp32 exponent > 2, i.e. ``|x| >= 8`` and +-Inf -> ``sign | 7`` = +-6;
    * otherwise RNE on the 1-bit mantissa; rounding up across 6.0 also saturates to
      +-6 (so ``[6, 8)`` gives +-6);
    * the denormal branch (``|x| < 1``) rounds on the 0.5 grid with the same RNE:
      0.25 -> 0, 0.75 -> 1.0, anything below 0.25 (fp32 denormals included) -> +-0.
    """
    bits = fp32_bits(x)
    sign = ((bits >> np.uint32(31)) << np.uint32(3)).astype(np.uint8)
    magnitude = bits & np.uint32(_FP32_MAG_MASK)
    exponent = (magnitude >> np.uint32(_FP32_EXP_SHIFT)).astype(np.int32)
    is_nan = magnitude > np.uint32(_FP32_INF_BITS)
    saturates = exponent - 127 > 2
    finite = np.minimum(magnitude, np.uint32(_FP32_INF_BITS - 1))
    rounded = np.minimum(rne_magnitude_code(finite, 1, 1), np.uint64(7)).astype(np.uint8)
    code = np.where(saturates, np.uint8(7), rounded)
    code = np.where(is_nan, np.uint8(0), code)
    return code | sign


def decode_e2m1(nibbles: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """float4_e2m1fn nibble -> fp32 (``decode_e2m1``, sub_2A3F30): exponent field + 126
    is the fp32 exponent (bias 1); ``exp == 0`` with mantissa 1 is the 0.5 subnormal.
    Grid ``{0, +-0.5, +-1, +-1.5, +-2, +-3, +-4, +-6}``; only the low four bits are read."""
    nib = np.asarray(nibbles).astype(np.uint32)
    sign = (nib >> np.uint32(3)) & np.uint32(1)
    mantissa = nib & np.uint32(1)
    exponent = (nib >> np.uint32(1)) & np.uint32(3)
    normal_bits = (mantissa << np.uint32(22)) | ((exponent + np.uint32(126)) << np.uint32(23))
    small_bits = np.where(mantissa != 0, np.uint32(0x3F00_0000), np.uint32(0))
    bits = np.where(exponent != 0, normal_bits, small_bits) | (sign << np.uint32(31))
    return bits.astype(np.uint32).view(np.float32)


def narrow(x: npt.ArrayLike, fmt: MxFormat | str) -> npt.NDArray[np.uint8]:
    """fp32 -> element codes of ``fmt`` (FP8: ``narrow_fp8``; FP4: ``encode_e2m1``)."""
    fmt = as_format(fmt)
    if fmt is MxFormat.E2M1:
        return encode_e2m1(x)
    return narrow_fp8(x, fmt)


def decode(codes: npt.ArrayLike, fmt: MxFormat | str) -> npt.NDArray[np.float32]:
    """Element codes of ``fmt`` -> fp32, exactly (FP8 through ml_dtypes)."""
    fmt = as_format(fmt)
    codes = np.asarray(codes, dtype=np.uint8)
    if fmt is MxFormat.E2M1:
        return decode_e2m1(codes)
    return codes.view(fmt.dtype).astype(np.float32)


def as_ml_dtype(codes: npt.ArrayLike, fmt: MxFormat | str) -> np.ndarray:
    """View uint8 codes as the ml_dtypes element type of ``fmt`` (no copy)."""
    return np.asarray(codes, dtype=np.uint8).view(as_format(fmt).dtype)
