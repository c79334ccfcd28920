"""IEEE 754-2019 ``maximum`` and ``minimum``: NaN when an operand is NaN, and -0 < +0.

StableHLO specifies these for its ``maximum`` / ``minimum`` (and the ``reduce`` bodies
made of them), and mxdsl gives the nisa ALU's ``maximum`` / ``minimum`` the same rule
(``docs/numerics.md``, "Maximum, minimum and signed zeros"), so every level computes
``max(+0, -0) = +0`` and ``min(+0, -0) = -0`` whatever the operand order. numpy's
``np.maximum`` / ``np.minimum`` propagate NaN too but return the second operand of a
(+0, -0) pair; these functions take numpy's result and fix just the pairs of zeros.
They work on every float dtype (numpy's and ml_dtypes'); integers and bools pass
straight to numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

_ML_FLOATS = frozenset(
    np.dtype(t)
    for t in (
        ml_dtypes.bfloat16,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e8m0fnu,
        ml_dtypes.float4_e2m1fn,
    )
)


def _is_float(dtype: np.dtype[Any]) -> bool:
    return dtype.kind == "f" or dtype in _ML_FLOATS


def maximum(a: Any, b: Any) -> np.ndarray:
    """Elementwise IEEE maximum: NaN if either is NaN; of two zeros, -0 only if both are."""
    a, b = np.asarray(a), np.asarray(b)
    out = np.maximum(a, b)
    if not _is_float(out.dtype):
        return out
    zeros = (a == 0) & (b == 0)
    if not zeros.any():
        return out
    return np.where(zeros, np.where(np.signbit(a), b, a), out).astype(out.dtype)


def minimum(a: Any, b: Any) -> np.ndarray:
    """Elementwise IEEE minimum: NaN if either is NaN; of two zeros, +0 only if both are."""
    a, b = np.asarray(a), np.asarray(b)
    out = np.minimum(a, b)
    if not _is_float(out.dtype):
        return out
    zeros = (a == 0) & (b == 0)
    if not zeros.any():
        return out
    return np.where(zeros, np.where(np.signbit(a), a, b), out).astype(out.dtype)


def _reduce(x: np.ndarray, axis: Sequence[int], largest: bool) -> np.ndarray:
    axes = tuple(axis)
    out = np.asarray((np.maximum if largest else np.minimum).reduce(x, axis=axes))
    if not _is_float(x.dtype):
        return out
    zero = out == 0
    if not zero.any():
        return out
    # the sign a zero result takes: +0 for a maximum if any element is +0, -0 for a
    # minimum if any element is -0
    wanted_sign = not largest
    found = ((x == 0) & (np.signbit(x) == wanted_sign)).any(axis=axes)
    signed = np.where(found, -0.0 if wanted_sign else 0.0, 0.0 if wanted_sign else -0.0)
    return np.where(zero, signed.astype(out.dtype), out)


def reduce_maximum(x: Any, axis: Sequence[int]) -> np.ndarray:
    """IEEE maximum of ``x`` over ``axis`` (order-free: the IEEE maximum is associative)."""
    return _reduce(np.asarray(x), axis, largest=True)


def reduce_minimum(x: Any, axis: Sequence[int]) -> np.ndarray:
    """IEEE minimum of ``x`` over ``axis``."""
    return _reduce(np.asarray(x), axis, largest=False)


__all__ = ["maximum", "minimum", "reduce_maximum", "reduce_minimum"]
