"""An independent reference for the PE pass: exact rational sums (``fractions``) rounded
to fp32 with integer arithmetic. It shares no code with ``mxdsl.numerics``."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def round_to_f32(value: Fraction) -> np.float32:
    """``value`` rounded to the nearest fp32, ties to even; +-inf past the largest
    finite value's rounding range; an exact zero is +0 (the PE's zero)."""
    if value == 0:
        return np.float32(0.0)
    sign = -1.0 if value < 0 else 1.0
    p, q = abs(value.numerator), value.denominator
    exponent = p.bit_length() - q.bit_length()
    if (p << max(-exponent, 0)) < (q << max(exponent, 0)):
        exponent -= 1  # now 2**exponent <= |value| < 2**(exponent + 1)
    quantum = max(exponent, -126) - 23  # fp32's spacing at this magnitude
    numerator = p << max(-quantum, 0)
    denominator = q << max(quantum, 0)
    units, remainder = divmod(numerator, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and units % 2 == 1):
        units += 1
    if units * 2.0**quantum >= 2.0**128:
        return np.float32(sign * math.inf)
    return np.float32(sign * math.ldexp(units, quantum))


def exact_pass(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``lhs[M, K] @ rhs[K, N]`` as one PE pass: each output the exact sum of its
    products rounded once to fp32. Finite operands only."""
    a = [[Fraction(float(x)) for x in row] for row in np.asarray(lhs, dtype=np.float64)]
    b = [[Fraction(float(x)) for x in col] for col in np.asarray(rhs, dtype=np.float64).T]
    out = np.empty((len(a), len(b)), dtype=np.float32)
    for i, row in enumerate(a):
        for j, col in enumerate(b):
            out[i, j] = round_to_f32(
                sum((x * y for x, y in zip(row, col, strict=True)), Fraction(0))
            )
    return out


def k_tiled(lhs: np.ndarray, rhs: np.ndarray, k_tile: int) -> np.ndarray:
    """PSUM's chain: one exact pass per K tile, the first initialising, the others added
    in fp32 (numpy's float32 add is IEEE round to nearest even); a NaN is the canonical
    quiet NaN."""
    k = lhs.shape[1]
    total = exact_pass(lhs[:, :k_tile], rhs[:k_tile])
    with np.errstate(invalid="ignore"):
        for start in range(k_tile, k, k_tile):
            total = total + exact_pass(lhs[:, start : start + k_tile], rhs[start : start + k_tile])
    total = total.astype(np.float32)
    total[np.isnan(total)] = np.float32(np.nan)
    return total


def bits(array: np.ndarray) -> np.ndarray:
    return np.asarray(array, dtype=np.float32).view(np.uint32)


_FORMATS = {"float32": (24, -126, 128), "bfloat16": (8, -126, 128), "float16": (11, -14, 16)}
"""(significand bits, smallest normal exponent, the exponent that overflows)."""


def round_fraction(value: Fraction, dtype: np.dtype) -> float:
    """``value`` rounded to nearest even in ``dtype`` (f32, bf16 or f16), as a Python
    float: an exact zero is +0, past the largest finite value's rounding range an
    infinity."""
    if value == 0:
        return 0.0
    bits, emin, emax = _FORMATS[np.dtype(dtype).name]
    sign = -1.0 if value < 0 else 1.0
    p, q = abs(value.numerator), value.denominator
    exponent = p.bit_length() - q.bit_length()
    if (p << max(-exponent, 0)) < (q << max(exponent, 0)):
        exponent -= 1
    quantum = max(exponent, emin) - (bits - 1)
    denominator = q << max(quantum, 0)
    units, remainder = divmod(p << max(-quantum, 0), denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and units % 2 == 1):
        units += 1
    if units * 2.0**quantum >= 2.0**emax:
        return sign * math.inf
    return sign * math.ldexp(units, quantum)


def exact_row_sums(rows: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Each row's exact sum rounded once to ``dtype`` (docs/numerics.md, "Float sums"):
    NaN for a NaN or both infinities, an infinity for one, else :func:`round_fraction`
    of the ``Fraction`` sum."""
    out = []
    for row in np.asarray(rows).astype(np.float64):
        if np.isnan(row).any() or (np.isposinf(row).any() and np.isneginf(row).any()):
            out.append(math.nan)
        elif np.isinf(row).any():
            out.append(float(row[np.isinf(row)][0]))
        else:
            out.append(round_fraction(sum((Fraction(float(x)) for x in row), Fraction(0)), dtype))
    return np.array(out, np.float64).astype(dtype)
