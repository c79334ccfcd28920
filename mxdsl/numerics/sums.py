"""The float sum of a reduction: the exact sum, rounded once (``docs/numerics.md``,
"Float sums").

A float ``reduce`` whose body is ``add`` has StableHLO's unspecified order; mxdsl fixes
one result every level can compute whatever its order: the **exact** (rational) sum of
all the terms (the reduced elements and the init), rounded **once** to the result type,
round to nearest even. An exact zero is +0; a nonzero sum that underflows keeps its sign.
NaN if a term is NaN or the terms hold both infinities (the quiet NaN, positive);
otherwise an infinite term gives that infinity; a finite exact sum beyond the format's
range rounds to an infinity (or NaN in formats without one) as round to nearest does.
This is the PE pass's rule (:mod:`mxdsl.numerics.exact`), so a sum computed as a
matmul against ones gives the same bits, and it is computed with the same certificate
and exact path.

:func:`odd_sum` returns the sum as float64 *rounded to odd* (at least 27 significant
bits); rounding that once more to any format of at most 25 significand bits (f32, f16,
bf16, the fp8 types) is the correct rounding of the exact sum
(:func:`mxdsl.interpreters.round_to` does it). Terms must be values of such a format
(every one is an fp32 value); f64 terms are summed in float64 in row-major order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mxdsl.numerics.exact import odd_exact_sum

_F32_BITS = 24


def _rows(values: np.ndarray, axis: Sequence[int]) -> tuple[np.ndarray, tuple[int, ...]]:
    """``values`` as float64 rows ``[n, K]`` of the reduced elements (row-major order),
    and the kept shape."""
    axes = tuple(sorted(a % values.ndim for a in axis)) if values.ndim else ()
    kept = tuple(s for d, s in enumerate(values.shape) if d not in axes)
    moved = np.moveaxis(values, axes, tuple(range(values.ndim - len(axes), values.ndim)))
    return np.asarray(moved, dtype=np.float64).reshape(int(np.prod(kept)), -1), kept


def _certified(rows: np.ndarray) -> np.ndarray:
    """Rows whose float64 sum is exact in any order: every term (an fp32 value, so a
    multiple of ``2**(e - 24)`` below ``2**e`` with ``e`` its frexp exponent) and every
    partial sum of at most ``c`` terms fits 53 bits."""
    _, exponent = np.frexp(rows)
    nonzero = rows != 0
    exponent = exponent.astype(np.int64)
    top = np.where(nonzero, exponent, np.iinfo(np.int64).min // 2).max(axis=1)
    low = np.where(nonzero, exponent - _F32_BITS, np.iinfo(np.int64).max // 2).min(axis=1)
    count = nonzero.sum(axis=1)
    _, log = np.frexp((count - 1).astype(np.float64))  # ceil(log2(count)) for count >= 1
    return (count <= 1) | (top + log - low <= 53)


def odd_sum(
    values: np.ndarray, axis: Sequence[int], init: np.ndarray | float | None = None
) -> np.ndarray:
    """The exact sum of ``values`` over ``axis`` (plus ``init`` when given), float64
    rounded to odd, shape the kept dims (see the module docstring)."""
    values = np.asarray(values)
    rows, kept = _rows(values, axis)
    if init is not None:
        rows = np.concatenate([rows, np.full((rows.shape[0], 1), float(init))], axis=1)
    out = np.zeros(rows.shape[0], dtype=np.float64)
    if rows.shape[1] == 0:
        return out.reshape(kept)
    if values.dtype == np.float64:
        return np.add.accumulate(rows, axis=1)[:, -1].reshape(kept)
    finite = np.isfinite(rows).all(axis=1)
    with np.errstate(invalid="ignore"):
        out[~finite] = rows[~finite].sum(axis=1)  # NaN, or the one infinity
    out[np.isnan(out)] = np.nan  # the positive quiet NaN
    certified = finite & _certified(rows)
    out[certified] = rows[certified].sum(axis=1)  # exact, whatever the order
    doubtful = finite & ~certified
    if doubtful.any():
        out[doubtful] = odd_exact_sum(rows[doubtful])
    out[out == 0] = 0.0  # an exact zero is +0
    return out.reshape(kept)


__all__ = ["odd_sum"]
