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

Two certificates let float64 do the work, and neither can change an answer: a row whose
float64 sum is exact in any order (every partial sum fits 53 bits) is that sum; a row
whose float64 sum ``s`` lies, with its error bound, strictly between two consecutive
26-bit numbers is ``s`` itself, since every rounding boundary of a format of at most 25
significand bits (a value of it, or a midpoint) is a 26-bit number, so the exact sum and
``s`` round alike in each. The other rows take the exact path
(:func:`mxdsl.numerics.exact.odd_exact_sum`).

:func:`reduce_add` is ``nisa.tensor_reduce``'s (and bir's) add: the same sum over the
trailing axes of an f32 tile, and the exact integer fold of an int64 one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mxdsl.numerics.exact import odd_exact_sum
from mxdsl.numerics.reduce import fold_trailing

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


_KEEP_26 = ~np.int64((1 << 27) - 1)
"""A float64 bit pattern less its lowest 27 significand bits: truncated to 26 bits."""


def _bounded(rows: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """Rows (finite, ``c`` terms) whose float64 sum ``sums`` rounds as the exact sum in
    every format of at most 25 significand bits. Any order of ``c - 1`` float64
    additions is off by at most ``gamma(c - 1) * sum |x| < 2**(log - 53) * S`` (``S``
    the float64 sum of the magnitudes, ``log = ceil(log2 c)``); the interval twice as
    wide, ``sums -+ 2**(log - 52) * S``, also covers the rounding of its own ends. It
    must hold no 26-bit number: both ends nonzero of one sign, the lower magnitude not
    a 26-bit number and both magnitudes truncated to 26 bits equal."""
    count = rows.shape[1]
    log = max(count - 1, 0).bit_length()
    margin = np.ldexp(np.add.reduce(np.abs(rows), axis=1), log - 52)
    low, high = np.abs(sums - margin), np.abs(sums + margin)
    low_bits, high_bits = low.view(np.int64), high.view(np.int64)
    same_sign = np.signbit(sums - margin) == np.signbit(sums + margin)
    return (
        same_sign
        & (low != 0)
        & ((low_bits & _KEEP_26) != low_bits)
        & ((low_bits & _KEEP_26) == (high_bits & _KEEP_26))
    )


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
    with np.errstate(invalid="ignore", over="ignore"):
        sums = np.add.reduce(rows, axis=1)
    if finite.all():  # the common case: no copy of the rows
        bounded = _bounded(rows, sums)
    else:
        bounded = finite.copy()
        bounded[finite] = _bounded(rows[finite], sums[finite])
    out[bounded] = sums[bounded]  # rounds as the exact sum
    rest = finite & ~bounded
    certified = rest.copy()
    certified[rest] = _certified(rows[rest])
    out[certified] = sums[certified]  # exact, whatever the order
    doubtful = rest & ~certified
    if doubtful.any():
        out[doubtful] = odd_exact_sum(rows[doubtful])
    out[out == 0] = 0.0  # an exact zero is +0
    return out.reshape(kept)


def reduce_add(data: np.ndarray, axis: Sequence[int]) -> np.ndarray:
    """``tensor_reduce`` add over the trailing ``axis`` of ``data`` in the engine's
    domain: an f32 tile gives :func:`odd_sum` (float64 rounded to odd; the caller's one
    rounding to the destination makes it the exact sum rounded once), an int64 tile the
    exact integer sum (folded left to right, wrapping as int64)."""
    if data.dtype.kind == "f":
        return odd_sum(data, axis)
    return fold_trailing(np.add, data, axis)


__all__ = ["odd_sum", "reduce_add"]
