"""x4 packing of MX element codes and the E8M0 scale-tensor row interleave.

Spec "MX Microscaling: Quantize, Block-Scaling and E8M0", "x4-Pack and Scale-Tensor Interleave":

* FP8 x4 (``float8_*_x4``): four code bytes per ui32 lane word, little-endian, element
  ``4k + j`` in byte ``j`` of word ``k`` ("MX-FP8 Microscaling Legalization" §4.1, the U32
  container; nki reference §3.1 "byte 0 = first").
* FP4 x4 (``float4_e2m1fn_x4``): four nibbles per 16-bit word, placed through
  ``lane_remap`` ("FP4 x4-Pack and Intra-x4 Lane Order"); see :func:`fp4_lane_remap`.
* The E8M0 scale tensor: scale row ``i`` lands in buffer row
  ``(i & 3) + 32 * (i >> 2)`` ("E8M0 Scale-Tensor Layout").

Every function is a pure permutation of its input (tests check the inverse pairs).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mxdsl.numerics.blocks import normalize_axis
from mxdsl.numerics.formats import X4_PACK

DEFAULT_FP4_LANE_STRIDE = 2
"""The ``packCtx`` stride of ``lane_remap``: 2, the only stride whose remap window
(``2 * stride`` = 4 nibbles) is exactly one x4 container and is not the identity; see
``docs/numerics.md``."""

DEFAULT_FP4_HIGH_NIBBLE_PARITY = 1
"""``packCtx[16]``: a (remapped) index whose parity equals it goes to the high nibble.
1 puts even indices in the low nibble (little-endian nibble order)."""

SCALE_ROW_GROUP = 4
SCALE_ROW_STRIDE = 32


def _axis_last(arr: np.ndarray, axis: int) -> tuple[np.ndarray, int]:
    axis = normalize_axis(axis, arr.ndim)
    return np.ascontiguousarray(np.moveaxis(arr, axis, -1)), axis


def _check_multiple(length: int, multiple: int, what: str) -> None:
    if length % multiple:
        raise ValueError(f"{what}: axis length {length} is not a multiple of {multiple}")


# ------------------------------------------------------------------------ FP8 x4


def pack_fp8_x4(codes: npt.ArrayLike, axis: int = -1) -> npt.NDArray[np.uint32]:
    """Four FP8 code bytes per ui32 along ``axis`` (its length must divide by 4):
    element ``4k + j`` goes to byte ``j`` (bits ``8j .. 8j + 7``) of word ``k``."""
    arr = np.asarray(codes)
    if arr.dtype != np.uint8:
        raise ValueError(f"FP8 codes must be uint8, got {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("x4 packing needs an array of rank >= 1")
    last, axis = _axis_last(arr, axis)
    _check_multiple(last.shape[-1], X4_PACK, "FP8 x4 packing")
    words = last.view(np.dtype("<u4")).astype(np.uint32, copy=False)
    return np.moveaxis(words, -1, axis)


def unpack_fp8_x4(words: npt.ArrayLike, axis: int = -1) -> npt.NDArray[np.uint8]:
    """Inverse of :func:`pack_fp8_x4`: each ui32 becomes four code bytes along ``axis``."""
    arr = np.asarray(words)
    if arr.dtype != np.uint32:
        raise ValueError(f"FP8 x4 words must be uint32, got {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("x4 unpacking needs an array of rank >= 1")
    last, axis = _axis_last(arr, axis)
    codes = last.astype(np.dtype("<u4"), copy=False).view(np.uint8)
    return np.moveaxis(codes, -1, axis)


# ------------------------------------------------------------------------ FP4 x4


def fp4_lane_remap(index: npt.ArrayLike, stride: int) -> npt.NDArray[np.int64]:
    """``lane_remap`` (sub_2A3500) exactly as the spec writes it, vectorised::

        w = 2 * stride; q = index / w; r = index % w
        result = w * (q + 1) - r;  if index is even: result -= 2

    Within each window of ``w`` indices this sends an even ``r`` to ``w - 2 - r`` and an
    odd ``r`` to ``w - r``: it reverses the order of the index pairs and keeps each
    index's parity, so it is a permutation of every whole window, for every stride
    >= 1. It is a permutation of ``[0, n)`` exactly when ``n`` is a multiple of ``w``
    (a partial last window maps past ``n``). Stride 1 is the identity; stride 0 means
    "no remap" (the caller skips it, ``if (stride)``)."""
    if stride < 0:
        raise ValueError(f"lane_remap stride must be >= 0, got {stride}")
    idx = np.asarray(index, dtype=np.int64)
    if stride == 0:
        return idx.copy()
    window = 2 * stride
    quotient, remainder = np.divmod(idx, window)
    result = window * (quotient + 1) - remainder
    return np.where(idx % 2 == 0, result - 2, result)


def _fp4_positions(length: int, stride: int) -> npt.NDArray[np.int64]:
    _check_multiple(length, X4_PACK, "FP4 x4 packing")
    if stride:
        _check_multiple(length, 2 * stride, f"FP4 lane remap with stride {stride}")
    return fp4_lane_remap(np.arange(length), stride)


def pack_fp4_x4(
    nibbles: npt.ArrayLike,
    axis: int = -1,
    *,
    stride: int = DEFAULT_FP4_LANE_STRIDE,
    high_nibble_parity: int = DEFAULT_FP4_HIGH_NIBBLE_PARITY,
) -> npt.NDArray[np.uint16]:
    """Four FP4 nibbles per 16-bit word along ``axis``, as ``pack_nibble`` (sub_2A6A80)
    places them: logical index ``k`` goes to nibble slot ``p = lane_remap(k, stride)``,
    byte ``p >> 1``, the high nibble when ``p & 1 == high_nibble_parity``; bytes pair up
    little-endian into words. The axis length must divide by 4 and by ``2 * stride``."""
    arr = np.asarray(nibbles)
    if arr.dtype != np.uint8:
        raise ValueError(f"FP4 nibbles must be uint8, got {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("x4 packing needs an array of rank >= 1")
    if high_nibble_parity not in (0, 1):
        raise ValueError(f"high_nibble_parity must be 0 or 1, got {high_nibble_parity}")
    last, axis = _axis_last(arr, axis)
    positions = _fp4_positions(last.shape[-1], stride)
    slots = np.empty_like(last)
    slots[..., positions] = last & np.uint8(0x0F)
    high = slots[..., high_nibble_parity::2]
    low = slots[..., 1 - high_nibble_parity :: 2]
    packed = np.ascontiguousarray(low | (high << np.uint8(4)))
    words = packed.view(np.dtype("<u2")).astype(np.uint16, copy=False)
    return np.moveaxis(words, -1, axis)


def unpack_fp4_x4(
    words: npt.ArrayLike,
    axis: int = -1,
    *,
    stride: int = DEFAULT_FP4_LANE_STRIDE,
    high_nibble_parity: int = DEFAULT_FP4_HIGH_NIBBLE_PARITY,
) -> npt.NDArray[np.uint8]:
    """Inverse of :func:`pack_fp4_x4` (the dequant lane-unpack sub_2A6080 applies the
    same ``lane_remap``): each 16-bit word becomes four nibbles along ``axis``."""
    arr = np.asarray(words)
    if arr.dtype != np.uint16:
        raise ValueError(f"FP4 x4 words must be uint16, got {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("x4 unpacking needs an array of rank >= 1")
    if high_nibble_parity not in (0, 1):
        raise ValueError(f"high_nibble_parity must be 0 or 1, got {high_nibble_parity}")
    last, axis = _axis_last(arr, axis)
    packed = last.astype(np.dtype("<u2"), copy=False).view(np.uint8)
    slots = np.empty(packed.shape[:-1] + (2 * packed.shape[-1],), np.uint8)
    slots[..., high_nibble_parity::2] = packed >> np.uint8(4)
    slots[..., 1 - high_nibble_parity :: 2] = packed & np.uint8(0x0F)
    positions = _fp4_positions(slots.shape[-1], stride)
    return np.moveaxis(slots[..., positions], -1, axis)


# ------------------------------------------------------------ E8M0 scale rows


def scale_row_slot(row: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Buffer row of scale row ``i``: ``(i & 3) + 32 * (i >> 2)``
    (``copy2DScaleVectorToArray``, sub_29E570)."""
    i = np.asarray(row, dtype=np.int64)
    return (i & (SCALE_ROW_GROUP - 1)) + SCALE_ROW_STRIDE * (i >> 2)


def scale_buffer_rows(num_rows: int) -> int:
    """Rows of the interleaved scale buffer for ``num_rows`` scale rows:
    ``32 * ceil(num_rows / 4)``, one 32-row stride per group of 4 scale rows (``P``
    when ``num_rows = P / 8`` and ``P`` is a multiple of 32). The last used row is
    ``scale_row_slot(num_rows - 1)``; the rows in between stay as filled."""
    if num_rows < 0:
        raise ValueError(f"number of scale rows must be >= 0, got {num_rows}")
    return SCALE_ROW_STRIDE * -(-num_rows // SCALE_ROW_GROUP)


def interleave_scale_rows(scale: npt.ArrayLike, *, fill: int = 0) -> npt.NDArray[np.uint8]:
    """Lay the scale tensor's rows (axis 0, ``[P//8, F//4]`` for the physical geometry)
    out in a buffer of :func:`scale_buffer_rows` rows, row ``i`` at
    :func:`scale_row_slot` ``(i)``; every other row holds ``fill``."""
    arr = np.asarray(scale)
    if arr.ndim == 0:
        raise ValueError("the scale tensor needs rank >= 1 (rows on axis 0)")
    num_rows = arr.shape[0]
    out = np.full((scale_buffer_rows(num_rows), *arr.shape[1:]), fill, dtype=arr.dtype)
    out[scale_row_slot(np.arange(num_rows))] = arr
    return out


def deinterleave_scale_rows(buffer: npt.ArrayLike, num_rows: int) -> np.ndarray:
    """Inverse of :func:`interleave_scale_rows` (``copyScalesFromArray``, sub_29E5E0,
    reads the same slots): the ``num_rows`` scale rows out of an interleaved buffer."""
    arr = np.asarray(buffer)
    if arr.ndim == 0:
        raise ValueError("the scale buffer needs rank >= 1 (rows on axis 0)")
    if num_rows < 0:
        raise ValueError(f"number of scale rows must be >= 0, got {num_rows}")
    if num_rows and int(scale_row_slot(num_rows - 1)) >= arr.shape[0]:
        raise ValueError(
            f"a buffer of {arr.shape[0]} rows cannot hold {num_rows} interleaved scale rows "
            f"(needs {int(scale_row_slot(num_rows - 1)) + 1})"
        )
    return arr[scale_row_slot(np.arange(num_rows))]
