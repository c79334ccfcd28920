"""The NeuronCore engines' semantics, shared by the nisa and bir interpreters.

What an engine computes, apart from how either interpreter walks its IR:

* **compute domains**: an elementwise engine op computes in float32 (every float tile is
  widened exactly or rounded once to f32), or exactly in int64 when every tile (the
  destination included) is integer, or for a bitwise op (:func:`compute_domain`);
* **ALU ops** (:data:`ARITH`, :func:`alu`): each ``nisa.AluOp`` as a numpy function of
  two operands in the domain; compares and logical ops give 1.0 / 0.0;
* **reduce ops** (:data:`REDUCE`): the ALU ops that fold along the free axes, in order
  (:func:`mxdsl.numerics.reduce.fold_trailing`) where the order matters; a float add is
  the exact sum rounded once to the destination (:func:`mxdsl.numerics.sums.reduce_add`);
* **activation functions** (:data:`ACTIVATIONS`): each ``nisa.ActivationFunction`` of
  a float64 array (the f32 ``data * scale + bias`` widened exactly), this project's model
  (:mod:`mxdsl.numerics.elementary`), rounded once to the destination by the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr

from mxdsl.dialects import nisa
from mxdsl.interpreters import ML_FLOATS, is_float_dtype, round_to
from mxdsl.numerics import elementary, minmax
from mxdsl.numerics.matmul import to_float64
from mxdsl.numerics.reduce import fold_trailing
from mxdsl.numerics.sums import reduce_add

F32 = np.dtype(np.float32)


def to_f32(array: np.ndarray) -> np.ndarray:
    """``array`` as float32 (:func:`round_to`; itself when it is float32)."""
    if array.dtype == F32:
        return array
    return round_to(array, F32)


EXACT_IN_F32 = frozenset((F32, np.dtype(np.float16))) | ML_FLOATS
"""Float dtypes that widen to float32 exactly, so ``to_f32(x).astype(float64)`` is
``x.astype(float64)``."""


def as_f64(array: np.ndarray) -> np.ndarray:
    """``to_f32(array)`` widened to float64, in one conversion where that is exact."""
    if array.dtype in EXACT_IN_F32:
        return to_float64(array)
    return to_f32(array).astype(np.float64)


def scalar_operand(value: Any, partitions: int) -> Any:
    """A scalar-or-column operand, broadcastable against ``[P, F]``."""
    if isinstance(value, FloatAttr):
        return np.float32(value.value.data)
    if isinstance(value, IntegerAttr):
        return int(value.value.data)
    if isinstance(value, np.ndarray):
        return value.reshape(partitions, 1)
    return value


# ------------------------------------------------------------------------ ALU ops


def _as_bool(x: Any) -> Any:
    return np.not_equal(x, 0)


def _f(x: Any) -> Any:
    return np.asarray(x).astype(F32)


ARITH: dict[nisa.AluOp, Callable[[Any, Any], Any]] = {
    nisa.AluOp.BYPASS: lambda a, b: a,
    nisa.AluOp.ADD: np.add,
    nisa.AluOp.SUBTRACT: np.subtract,
    nisa.AluOp.MULTIPLY: np.multiply,
    nisa.AluOp.DIVIDE: np.divide,
    nisa.AluOp.MAXIMUM: minmax.maximum,
    nisa.AluOp.MINIMUM: minmax.minimum,
    nisa.AluOp.EQUAL: lambda a, b: _f(np.equal(a, b)),
    nisa.AluOp.NOT_EQUAL: lambda a, b: _f(np.not_equal(a, b)),
    nisa.AluOp.GREATER: lambda a, b: _f(np.greater(a, b)),
    nisa.AluOp.GREATER_EQUAL: lambda a, b: _f(np.greater_equal(a, b)),
    nisa.AluOp.LESS: lambda a, b: _f(np.less(a, b)),
    nisa.AluOp.LESS_EQUAL: lambda a, b: _f(np.less_equal(a, b)),
    nisa.AluOp.LOGICAL_AND: lambda a, b: _f(np.logical_and(_as_bool(a), _as_bool(b))),
    nisa.AluOp.LOGICAL_OR: lambda a, b: _f(np.logical_or(_as_bool(a), _as_bool(b))),
    nisa.AluOp.LOGICAL_XOR: lambda a, b: _f(np.logical_xor(_as_bool(a), _as_bool(b))),
    nisa.AluOp.POWER: lambda a, b: power(a, b),
    nisa.AluOp.ABS_MAX: lambda a, b: np.maximum(np.abs(a), np.abs(b)),
    nisa.AluOp.ABS_MIN: lambda a, b: np.minimum(np.abs(a), np.abs(b)),
    nisa.AluOp.BITWISE_AND: np.bitwise_and,
    nisa.AluOp.BITWISE_OR: np.bitwise_or,
    nisa.AluOp.BITWISE_XOR: np.bitwise_xor,
    nisa.AluOp.LEFT_SHIFT: np.left_shift,
    nisa.AluOp.RIGHT_SHIFT: np.right_shift,
}

REDUCE: dict[nisa.AluOp, Callable[..., Any]] = {
    nisa.AluOp.ADD: reduce_add,
    nisa.AluOp.SUBTRACT: partial(fold_trailing, np.subtract),
    nisa.AluOp.MULTIPLY: partial(fold_trailing, np.multiply),
    nisa.AluOp.MAXIMUM: minmax.reduce_maximum,
    nisa.AluOp.MINIMUM: minmax.reduce_minimum,
    nisa.AluOp.LOGICAL_AND: lambda x, axis: _f(np.logical_and.reduce(_as_bool(x), axis=axis)),
    nisa.AluOp.LOGICAL_OR: lambda x, axis: _f(np.logical_or.reduce(_as_bool(x), axis=axis)),
    nisa.AluOp.LOGICAL_XOR: lambda x, axis: _f(np.logical_xor.reduce(_as_bool(x), axis=axis)),
    nisa.AluOp.BITWISE_AND: np.bitwise_and.reduce,
    nisa.AluOp.BITWISE_OR: np.bitwise_or.reduce,
    nisa.AluOp.BITWISE_XOR: np.bitwise_xor.reduce,
}


def power(a: Any, b: Any) -> Any:
    """Integer operands: numpy's exact integer power; floats (the f32 domain):
    :func:`mxdsl.numerics.elementary.power` in float64, rounded to f32."""
    a, b = np.asarray(a), np.asarray(b)
    if not (is_float_dtype(a.dtype) or is_float_dtype(b.dtype)):
        return np.power(a, b)
    return elementary.power(a, b).astype(F32)


def alu(op: nisa.AluOp, a: Any, b: Any) -> Any:
    with np.errstate(all="ignore"):
        return ARITH[op](a, b)


INT64 = np.dtype(np.int64)


def compute_domain(dst: np.ndarray, *tiles: np.ndarray, bitwise: bool = False) -> np.dtype:
    """int64 when every tile (dst included) is integer (exact integer ALU), else f32."""
    if bitwise:
        return INT64
    for tile in (dst, *tiles):
        dtype = tile.dtype
        if dtype.kind == "f" or dtype in ML_FLOATS:  # is_float_dtype, dtype in hand
            return F32
    return INT64


def in_domain(array: np.ndarray, domain: np.dtype) -> np.ndarray:
    if domain == F32:
        return to_f32(array)
    return array.astype(domain)


def scalar_in_domain(value: Any, domain: np.dtype) -> Any:
    if isinstance(value, np.ndarray):
        return in_domain(value, domain)
    if domain == F32:
        return np.float32(value)
    return np.int64(value)


# -------------------------------------------------------------------- activations

ACTIVATIONS: dict[nisa.ActivationFunction, Callable[[np.ndarray], np.ndarray]] = {
    nisa.ActivationFunction.COPY: lambda x: x,
    nisa.ActivationFunction.SQUARE: lambda x: x * x,
    nisa.ActivationFunction.SIGMOID: elementary.sigmoid,
    nisa.ActivationFunction.RELU: lambda x: np.maximum(x, 0.0),
    nisa.ActivationFunction.GELU: elementary.gelu,
    nisa.ActivationFunction.GELU_APPRX_TANH: elementary.gelu_apprx_tanh,
    nisa.ActivationFunction.GELU_APPRX_SIGMOID: elementary.gelu_apprx_sigmoid,
    nisa.ActivationFunction.SILU: elementary.silu,
    nisa.ActivationFunction.TANH: elementary.tanh,
    nisa.ActivationFunction.EXP: elementary.exp,
    nisa.ActivationFunction.LOG: elementary.log,
    nisa.ActivationFunction.SQRT: elementary.sqrt,
    nisa.ActivationFunction.RSQRT: elementary.rsqrt,
    nisa.ActivationFunction.RECIPROCAL: lambda x: 1.0 / x,
    nisa.ActivationFunction.SOFTPLUS: elementary.softplus,
    nisa.ActivationFunction.ERF: elementary.erf,
    nisa.ActivationFunction.ERFC: elementary.erfc,
    nisa.ActivationFunction.EXPM1: elementary.expm1,
    nisa.ActivationFunction.LOG1P: elementary.log1p,
    nisa.ActivationFunction.ABS: np.abs,
    nisa.ActivationFunction.SIGN: np.sign,
}


def wrap_i32(value: int) -> int:
    value &= 0xFFFF_FFFF
    return value - (1 << 32) if value >= 1 << 31 else value


__all__ = [
    "ACTIVATIONS",
    "ARITH",
    "EXACT_IN_F32",
    "F32",
    "INT64",
    "REDUCE",
    "alu",
    "as_f64",
    "compute_domain",
    "in_domain",
    "power",
    "scalar_in_domain",
    "scalar_operand",
    "to_f32",
    "wrap_i32",
]
