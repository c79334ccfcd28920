"""MX block geometry: one parameterised description for both block shapes.

A block is a box of ``block_shape`` elements (one extent per axis) and carries one E8M0
scale; the scale tensor has the input shape divided by ``block_shape`` axis by axis.

* Logical (HLO QuantizeMX, "MX-FP8 Microscaling Legalization" §4.1): 32 consecutive elements
  along the quantized axis, ``logical_block_shape(ndim, axis)``.
* Physical (BIR InstQuantizeMx, Spec "MX Microscaling: Quantize, Block-Scaling and E8M0"
  "Algorithm — findMaxExponentPerInputBlock"): 8 partitions x 4 free columns of a
  ``[P, F]`` tile, ``PHYSICAL_BLOCK_SHAPE``; the scale tensor is ``[P//8, F//4]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mxdsl.numerics.formats import MX_BLOCK_SIZE

PHYSICAL_BLOCK_SHAPE: tuple[int, int] = (8, 4)
"""8 partition rows x 4 free-dim columns (``grpByteBase = 192 * rowGroup``,
``c0 = 4 * colBlock``)."""


def normalize_axis(axis: int, ndim: int) -> int:
    """``axis`` in ``[0, ndim)``; negative axes count from the end (HLO ``dim`` fold)."""
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of range for an array of rank {ndim}")
    return axis + ndim if axis < 0 else axis


def logical_block_shape(ndim: int, axis: int, block_size: int = MX_BLOCK_SIZE) -> tuple[int, ...]:
    """The HLO block: ``block_size`` consecutive elements along ``axis``, 1 elsewhere."""
    if ndim < 1:
        raise ValueError("MX quantization needs an array of rank >= 1")
    axis = normalize_axis(axis, ndim)
    return tuple(block_size if d == axis else 1 for d in range(ndim))


def physical_block_shape(ndim: int = 2) -> tuple[int, int]:
    """The BIR block (8 partitions x 4 columns); the tile must be 2-D ``[P, F]``."""
    if ndim != 2:
        raise ValueError(f"the physical MX block needs a 2-D [P, F] tile, got rank {ndim}")
    return PHYSICAL_BLOCK_SHAPE


def grid_shape(shape: Sequence[int], block_shape: Sequence[int]) -> tuple[int, ...]:
    """The scale-tensor shape ``shape / block_shape``; ValueError when they do not divide."""
    shape, block_shape = tuple(shape), tuple(block_shape)
    if len(block_shape) != len(shape):
        raise ValueError(
            f"block shape {block_shape} has {len(block_shape)} axes, the array has {len(shape)}"
        )
    for axis, (extent, block) in enumerate(zip(shape, block_shape, strict=True)):
        if block < 1:
            raise ValueError(f"block shape {block_shape}: extents must be >= 1")
        if extent % block:
            raise ValueError(
                f"axis {axis} has length {extent}, which is not a multiple of the MX block "
                f"extent {block} (array shape {shape}, block shape {block_shape})"
            )
    return tuple(extent // block for extent, block in zip(shape, block_shape, strict=True))


def interleaved_shape(shape: Sequence[int], block_shape: Sequence[int]) -> tuple[int, ...]:
    """``(n0, b0, n1, b1, ...)``: the array reshaped so every block is a sub-box."""
    grid = grid_shape(shape, block_shape)
    return tuple(v for pair in zip(grid, block_shape, strict=True) for v in pair)


def block_axes(ndim: int) -> tuple[int, ...]:
    """The in-block axes ``(1, 3, 5, ...)`` of an interleaved view."""
    return tuple(2 * d + 1 for d in range(ndim))


def per_block_view(per_block: np.ndarray) -> np.ndarray:
    """A grid-shaped array reshaped to ``(n0, 1, n1, 1, ...)`` so it broadcasts
    against the interleaved view of the data."""
    return per_block.reshape(tuple(v for n in per_block.shape for v in (n, 1)))


def block_max(values: np.ndarray, block_shape: Sequence[int]) -> np.ndarray:
    """Per-block maximum of ``values`` (the grid-shaped reduce)."""
    blocked = values.reshape(interleaved_shape(values.shape, block_shape))
    return blocked.max(axis=block_axes(values.ndim))


def expand_blocks(per_block: np.ndarray, block_shape: Sequence[int]) -> np.ndarray:
    """Repeat every per-block value over its block (a new array of the data shape)."""
    shape = tuple(n * b for n, b in zip(per_block.shape, block_shape, strict=True))
    blocked = np.broadcast_to(per_block_view(per_block), interleaved_shape(shape, block_shape))
    return blocked.reshape(shape)


def canonical_geometry(
    shape: Sequence[int], block_shape: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Merge every run of adjacent axes whose block extent is 1 into one axis: the same
    blocks, fewer axes (``(A, B, C)`` with block ``(1, 1, 32)`` becomes ``(A*B, C)``
    with block ``(1, 32)``). The data reshape is a free view for C-contiguous arrays."""
    grid_shape(shape, block_shape)
    out_shape: list[int] = []
    out_block: list[int] = []
    for extent, block in zip(shape, block_shape, strict=True):
        if block == 1 and out_block and out_block[-1] == 1:
            out_shape[-1] *= extent
            continue
        out_shape.append(extent)
        out_block.append(block)
    return tuple(out_shape), tuple(out_block)
