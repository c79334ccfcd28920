"""The one matmul accumulation order, shared by every level.

"One semantics at three levels" (design) needs the dot products of hlo ``dot_general`` /
``ScaledMatmul_*``, nisa ``nc_matmul`` / ``nc_matmul_mx`` and bir ``matmult`` /
``matmult_mx`` to round identically, and a plain ``np.matmul`` in fp32 sums in BLAS's
unspecified order. So the order is defined here, as the PE array and PSUM do it:

* one PE pass contracts at most one K tile — 128 partitions for ``nc_matmul``,
  128 partitions x 4 packed lanes = 512 elements for ``nc_matmul_mx`` — and its products
  are summed in float64 and rounded once to fp32 (:func:`pe_pass`);
* PSUM accumulates the passes in K order, in fp32 (:func:`k_tiled_matmul`), the first
  pass overwriting.

The hlo interpreter runs :func:`k_tiled_matmul` with the tile size the lowering uses, the
nisa and bir interpreters run one :func:`pe_pass` per instruction and add into PSUM, so
the three levels agree bit for bit. (Inside a pass the float64 sum is exact whenever the
products' exponents span less than about 29 binades; beyond that BLAS order could in
principle move a result across an fp32 rounding boundary, with probability ~2^-29 per
element.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from mxdsl.numerics.blocks import PHYSICAL_BLOCK_SHAPE
from mxdsl.numerics.formats import MxFormat
from mxdsl.numerics.packing import unpack_fp4_x4, unpack_fp8_x4
from mxdsl.numerics.quantize import dequantize_mx

MATMUL_K_TILE = 128
"""Contraction elements per ``nc_matmul`` pass: the 128 partitions."""

MX_MATMUL_K_TILE = 128 * 4
"""Contraction elements per ``nc_matmul_mx`` pass: 128 partitions x 4 packed lanes."""


_IEEE_SPECIALS = np.errstate(invalid="ignore", over="ignore")
"""0 * inf = NaN and fp32 overflow to inf are the modelled results, not warnings."""


@_IEEE_SPECIALS
def pe_pass(lhs: npt.ArrayLike, rhs: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """One PE-array pass ``lhs[..., M, K] @ rhs[..., K, N]``: the K products summed in
    float64 and rounded once to fp32."""
    lhs64 = np.asarray(lhs, dtype=np.float64)
    rhs64 = np.asarray(rhs, dtype=np.float64)
    return np.matmul(lhs64, rhs64).astype(np.float32)


@_IEEE_SPECIALS
def pe_pass_f64(
    lhs: np.ndarray,
    rhs: np.ndarray,
    rows: np.ndarray | None = None,
    cols: np.ndarray | None = None,
) -> npt.NDArray[np.float32]:
    """:func:`pe_pass` for 2-D float64 operands ``lhs[M, K]``, ``rhs[K, N]``, bit for bit,
    skipping the work of all-zero operand rows / columns.

    An output row ``m`` whose ``lhs[m, :]`` is all zero (and ``rhs`` is finite) is a sum
    of signed zeros, which the float64 matmul returns as +0 (its accumulators start at
    +0); likewise an output column whose ``rhs[:, n]`` is zero with a finite ``lhs``. So
    only the rows and columns with a nonzero operand go through the float64 matmul, and
    the others are written as +0. (The padding token rows of a MoE block are zero: about
    half the PE work of a block-layout kernel.) Any NaN counts as nonzero, and an operand
    with an infinity or NaN disables the skip on the other side (0 * inf is NaN).
    ``rows`` / ``cols``, when given, are those masks (``lhs.any(axis=1)``,
    ``rhs.any(axis=0)``) already computed by the caller; they may be modified."""
    if rows is None:
        rows = np.asarray(lhs.T.any(axis=0) if lhs.flags.f_contiguous else lhs.any(axis=1))
    if cols is None:
        cols = np.asarray(rhs.any(axis=0))
    n_rows = int(np.count_nonzero(rows))
    n_cols = int(np.count_nonzero(cols))
    m, n = rows.size, cols.size
    if n_rows == m and n_cols == n:
        return np.matmul(lhs, rhs).astype(np.float32)
    if n_rows < m and not np.isfinite(rhs).all():
        rows[:] = True
        n_rows = m
    if n_cols < n and not np.isfinite(lhs).all():
        cols[:] = True
        n_cols = n
    if n_rows == m and n_cols == n:
        return np.matmul(lhs, rhs).astype(np.float32)
    out = np.zeros((m, n), dtype=np.float32)
    if n_rows == 0 or n_cols == 0:
        return out
    row_sel = _selection(rows, n_rows)
    col_sel = _selection(cols, n_cols)
    part = np.matmul(lhs[row_sel], rhs[:, col_sel]).astype(np.float32)
    if isinstance(row_sel, slice) or isinstance(col_sel, slice):
        out[row_sel, col_sel] = part
    else:
        out[np.ix_(row_sel, col_sel)] = part
    return out


def _selection(mask: np.ndarray, count: int) -> slice | np.ndarray:
    """The True positions of ``mask``: a slice when they are a prefix, else indices."""
    if mask[:count].all():
        return slice(0, count)
    return np.flatnonzero(mask)


def k_tiled_matmul(lhs: npt.ArrayLike, rhs: npt.ArrayLike, k_tile: int) -> npt.NDArray[np.float32]:
    """``lhs[..., M, K] @ rhs[..., K, N]`` as PSUM computes it: K split into tiles of
    ``k_tile`` from 0 (the last one partial), one :func:`pe_pass` each, summed in K order
    in fp32."""
    if k_tile <= 0:
        raise ValueError(f"k_tile must be positive, got {k_tile}")
    lhs_arr = np.asarray(lhs)
    rhs_arr = np.asarray(rhs)
    k = lhs_arr.shape[-1]
    if rhs_arr.shape[-2] != k:
        raise ValueError(f"contraction sizes differ: {k} vs {rhs_arr.shape[-2]}")
    if k == 0:
        shape = np.broadcast_shapes(lhs_arr.shape[:-2], rhs_arr.shape[:-2])
        return np.zeros((*shape, lhs_arr.shape[-2], rhs_arr.shape[-1]), dtype=np.float32)
    accumulator = pe_pass(lhs_arr[..., :k_tile], rhs_arr[..., :k_tile, :])
    for start in range(k_tile, k, k_tile):
        accumulator += pe_pass(
            lhs_arr[..., start : start + k_tile], rhs_arr[..., start : start + k_tile, :]
        )
    return accumulator


def mx_matmul_operand(
    containers: npt.ArrayLike,
    scale_rows: npt.ArrayLike,
    fmt: MxFormat,
    dtype: npt.DTypeLike = np.float32,
) -> npt.NDArray[Any]:
    """An ``nc_matmul_mx`` / ``matmult_mx`` operand as the PE array reads it: x4 data
    ``[P, F]`` (uint32 FP8 or uint16 FP4 containers) with its E8M0 scale rows
    ``[P // 8, F]`` (row i covers partitions 8i .. 8i+7: one 8 x 4 physical block per
    scale) dequantized to fp32 ``[F, 4P]``, contraction index ``k = 4p + q`` for
    partition p and lane q. ``dtype=np.float64`` gives the same values widened (exactly),
    in the same single reordering copy, for :func:`pe_pass_f64`."""
    data = np.asarray(containers)
    partitions, free = data.shape
    codes = unpack_fp8_x4(data) if fmt.is_fp8 else unpack_fp4_x4(data)
    scales = np.asarray(scale_rows).view(np.uint8)
    values = dequantize_mx(codes, scales, fmt, PHYSICAL_BLOCK_SHAPE)
    by_column = np.empty((free, partitions, 4), dtype=dtype)
    by_column[...] = values.reshape(partitions, free, 4).transpose(1, 0, 2)
    return by_column.reshape(free, 4 * partitions)
