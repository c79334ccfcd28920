"""The MX golden's own quantize, dequantize and x4 packing, independent of
:mod:`mxdsl.numerics` (which the kernels' interpreters run).

The MoE MX golden (``reference.mx``) builds its MX inputs and decodes them with these
functions, so a bug in ``mxdsl.numerics`` (a scale, a narrow, the FP4 lane order) shows
up as a golden mismatch instead of cancelling out. Written from
the spec "MX Microscaling: Quantize, Block-Scaling and E8M0" directly, with ml_dtypes for the
element formats:

* block scale ("Algorithm - generateMxScales (E8M0 clamp)"): ``E8M0 = max(1, max(0,
  maxBiasedExp - EMAX))``, ``maxBiasedExp`` the largest fp32 exponent field in the block
  ("GOTCHA - the per-element exponent is (fp32_bits >> 23) truncated to a byte"), EMAX
  from "The EMAX Table" (e2m1 2, e4m3fn 8, e5m2 15);
* prescale ("Algorithm - quantizeDataApplyingMxScales"): the fp32 product with
  ``bit_cast<float>((254 - E8M0) << 23)``;
* narrow ("Round-to-Grid: FP4 and FP8"): RNE with saturation to the largest finite
  value, here clipping to +-max finite and then ml_dtypes' RNE cast; FP4 NaN becomes
  the zero of its own sign ("A NaN input becomes a signed zero nibble");
* dequantize: ml_dtypes decodes the element and the E8M0 byte (``float8_e8m0fnu``), one
  fp32 product (= ``ldexpf(x, E8M0 - 127)``, page 9.9);
* FP8 x4 ("NOTE - FP8 x4 ... 1-per-element and contiguous"): byte ``j`` of the uint32
  holds element ``j`` (little-endian);
* FP4 x4 ("FP4 x4-Pack and Intra-x4 Lane Order"): nibble ``k`` goes to slot
  ``lane_remap(k, stride)``, byte ``slot >> 1``, the high nibble when ``slot & 1 ==
  parity``; stride 2 and parity 1 as ``docs/numerics.md`` chose ("G3");
* scale rows ("E8M0 Scale-Tensor Layout"): row ``i`` at ``(i & 3) + 32 * (i >> 2)``.

The functions take the same arguments as their ``mxdsl.numerics`` namesakes, so a
call site switches by its import. ``test/kernels/test_independent_mx.py`` checks the two
agree bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class _Element:
    dtype: Any  # the ml_dtypes element type
    emax: int  # "The EMAX Table"
    max_finite: float


_ELEMENTS = {
    "float4_e2m1fn": _Element(ml_dtypes.float4_e2m1fn, 2, 6.0),
    "float8_e4m3fn": _Element(ml_dtypes.float8_e4m3fn, 8, 448.0),
    "float8_e5m2": _Element(ml_dtypes.float8_e5m2, 15, 57344.0),
}


def _element(fmt: object) -> _Element:
    """``fmt``: an ``MxFormat`` (read by its spec name only) or a spec name."""
    return _ELEMENTS[str(getattr(fmt, "spec_name", fmt))]


def _blocked(x: np.ndarray, block: tuple[int, ...]) -> np.ndarray:
    """``x`` viewed as ``(n0, b0, n1, b1, ...)``."""
    shape: list[int] = []
    for extent, b in zip(x.shape, block, strict=True):
        if extent % b:
            raise ValueError(f"extent {extent} is not a multiple of the block extent {b}")
        shape += [extent // b, b]
    return x.reshape(shape)


def _block_view(x: np.ndarray, block: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """``x`` viewed as ``(n0, b0, n1, b1, ...)`` and the shape ``(n0, 1, n1, 1, ...)`` a
    per-block array broadcasts against it with (in place of repeating it per element)."""
    blocked = _blocked(x, block)
    return blocked, tuple(1 if axis % 2 else n for axis, n in enumerate(blocked.shape))


def _block_largest_magnitude_bits(x32: np.ndarray, block: tuple[int, ...]) -> np.ndarray:
    """Per block, the largest of the fp32 bit patterns with the sign cleared: its
    exponent field (bits 23..30) is the block's largest exponent field, since a larger
    exponent field means a larger magnitude pattern (the mantissa only orders equal ones)."""
    magnitude = np.bitwise_and(x32.view(np.uint32), np.uint32(0x7FFFFFFF))
    blocked = _blocked(magnitude, block)
    return blocked.max(axis=tuple(range(1, blocked.ndim, 2)))


def block_scales(x: np.ndarray, fmt: object, block: tuple[int, ...]) -> np.ndarray:
    """E8M0 bytes ``max(1, max(0, maxBiasedExp - EMAX))`` per block of fp32 ``x``."""
    x32 = np.asarray(x, np.float32)
    largest = (_block_largest_magnitude_bits(x32, block) >> 23).astype(np.int32)
    return np.maximum(largest - _element(fmt).emax, 1).astype(np.uint8)


def quantize_mx(
    x: np.ndarray, fmt: object, block: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """``(codes uint8, E8M0 uint8)``: codes of ``x`` (bf16 / f16 / f32, widened exactly to
    fp32) in ``fmt`` per ``block``. The prescale multiplier is broadcast over each block
    (the same fp32 product per element as a per-element multiplier array)."""
    element = _element(fmt)
    x32 = np.asarray(x, np.float32)
    scale = block_scales(x32, fmt, block)
    blocked, per_block = _block_view(x32, block)
    multiplier = ((254 - scale.astype(np.uint32)) << 23).view(np.float32).reshape(per_block)
    with np.errstate(invalid="ignore", over="ignore"):
        y = blocked * multiplier
    np.clip(y, -element.max_finite, element.max_finite, out=y)  # NaN stays NaN
    codes = y.astype(element.dtype).view(np.uint8)
    if element.dtype == ml_dtypes.float4_e2m1fn:
        sign = np.signbit(y).astype(np.uint8) << 3
        codes = np.where(np.isnan(y), sign, codes & 0xF).astype(np.uint8)
    return codes.reshape(x32.shape), scale


def _decoded(dtype: Any) -> np.ndarray:
    """float32 value of every byte ``0..255`` read as ``dtype`` (ml_dtypes' decode), to
    decode an array of bytes by table lookup: the same value per byte as a cast."""
    with np.errstate(invalid="ignore"):
        return np.arange(256, dtype=np.uint8).view(dtype).astype(np.float32)


_DECODED = {
    name: _decoded(dtype)
    for name, dtype in (
        *((name, e.dtype) for name, e in _ELEMENTS.items()),
        ("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu),
    )
}


def dequantize_mx(
    codes: np.ndarray, scale: np.ndarray, fmt: object, block: tuple[int, ...]
) -> np.ndarray:
    """fp32 ``element * 2**(E8M0 - 127)``, decoded by ml_dtypes (per byte, through a
    table of its 256 values); the scale is broadcast over each block."""
    name = str(getattr(fmt, "spec_name", fmt))
    values = _DECODED[name][np.asarray(codes, np.uint8)]  # (take would widen to intp first)
    factor = _DECODED["float8_e8m0fnu"][np.asarray(scale, np.uint8)]
    blocked, per_block = _block_view(values, block)
    with np.errstate(invalid="ignore", over="ignore"):
        np.multiply(blocked, factor.reshape(per_block), out=blocked)
    return values


def lane_remap(index: np.ndarray, stride: int) -> np.ndarray:
    """The spec's ``lane_remap``: ``w = 2 stride``, ``w (i / w + 1) - i % w``, less 2 for
    even ``i``."""
    w = 2 * stride
    out = w * (index // w + 1) - index % w
    return np.where(index % 2 == 0, out - 2, out)


def _last_axis_groups(x: np.ndarray, axis: int) -> np.ndarray:
    x = np.moveaxis(np.asarray(x), axis, -1)
    if x.shape[-1] % 4:
        raise ValueError(f"axis extent {x.shape[-1]} is not a multiple of 4")
    return x.reshape(*x.shape[:-1], x.shape[-1] // 4, 4)


def pack_fp8_x4(codes: np.ndarray, axis: int = -1) -> np.ndarray:
    """Four FP8 code bytes per uint32, element ``j`` of a group in byte ``j``: the group's
    four bytes read as one little-endian uint32."""
    g = np.ascontiguousarray(_last_axis_groups(codes, axis), dtype=np.uint8)
    words = g.view("<u4")[..., 0].astype(np.uint32, copy=False)
    return np.moveaxis(words, -1, axis)


def unpack_fp8_x4(words: np.ndarray, axis: int = -1) -> np.ndarray:
    """The four bytes of each uint32, least significant first (``pack_fp8_x4``'s inverse)."""
    w = np.ascontiguousarray(np.moveaxis(np.asarray(words, np.uint32), axis, -1), dtype="<u4")
    out = w.view(np.uint8).reshape(*w.shape[:-1], 4 * w.shape[-1])
    return np.moveaxis(out, -1, axis)


def _fp4_shifts(stride: int, parity: int) -> np.ndarray:
    """Bit offset in the uint16 of logical nibble ``k`` (0..3) of a container."""
    slot = lane_remap(np.arange(4), stride)
    if slot.min() < 0 or slot.max() > 3:
        raise ValueError(f"stride {stride} mixes nibbles of different containers")
    return (8 * (slot >> 1) + 4 * ((slot & 1) == parity)).astype(np.uint16)


def pack_fp4_x4(
    nibbles: np.ndarray, axis: int = -1, *, stride: int = 2, high_nibble_parity: int = 1
) -> np.ndarray:
    """Four e2m1 nibbles per uint16 through the spec's ``pack_nibble``."""
    g = _last_axis_groups(nibbles, axis).astype(np.uint16) & 0xF
    shifts = _fp4_shifts(stride, high_nibble_parity)
    words = np.zeros(g.shape[:-1], np.uint16)
    for k in range(4):
        words |= g[..., k] << shifts[k]
    return np.moveaxis(words, -1, axis)


def unpack_fp4_x4(
    words: np.ndarray, axis: int = -1, *, stride: int = 2, high_nibble_parity: int = 1
) -> np.ndarray:
    w = np.moveaxis(np.asarray(words, np.uint16), axis, -1)
    shifts = _fp4_shifts(stride, high_nibble_parity)
    lanes = [(w >> shifts[k]) & 0xF for k in range(4)]
    out = np.stack(lanes, axis=-1).reshape(*w.shape[:-1], 4 * w.shape[-1]).astype(np.uint8)
    return np.moveaxis(out, -1, axis)


def interleave_scale_rows(scale: np.ndarray, *, fill: int = 0) -> np.ndarray:
    """Scale row ``i`` at buffer row ``(i & 3) + 32 * (i >> 2)`` of a ``32 ceil(n/4)``-row
    buffer; other rows ``fill``."""
    scale = np.asarray(scale)
    n = scale.shape[0]
    rows = np.arange(n)
    buffer = np.full((32 * -(-n // 4), *scale.shape[1:]), fill, dtype=scale.dtype)
    buffer[(rows & 3) + 32 * (rows >> 2)] = scale
    return buffer


__all__ = [
    "block_scales",
    "dequantize_mx",
    "interleave_scale_rows",
    "lane_remap",
    "pack_fp4_x4",
    "pack_fp8_x4",
    "quantize_mx",
    "unpack_fp4_x4",
    "unpack_fp8_x4",
]
