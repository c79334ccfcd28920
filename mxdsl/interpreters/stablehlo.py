"""Interpreter functions for the ``stablehlo`` dialect (``docs/stablehlo.md``).

Values follow ``docs/mx-run.md``: numpy arrays with ml_dtypes element types. Every op is
one vectorised numpy computation with the StableHLO semantics:

* float arithmetic (``add``, ``subtract``, ``multiply``, ``divide``, ``sqrt``, ...) is
  correctly rounded in the element type: computed in float64 and rounded once with
  :func:`mxdsl.interpreters.round_to` (float64 holds more than ``2p + 2`` bits for
  every format up to f32, so this is the IEEE result); f64 operands compute directly;
* the transcendentals (``exponential``, ``exponential_minus_one``, ``log``,
  ``log_plus_one``, ``logistic``, ``tanh``, ``power``, ``chlo.erf``, ``chlo.erfc``) are
  :mod:`mxdsl.numerics.elementary`'s float64 functions (within a few float64 ulps; the
  same bits on every machine) rounded once to the element type;
* integer arithmetic wraps; shifts by the bit width or more give 0 (the sign for an
  arithmetic right shift); ``convert`` is ``hlo.convert``;
* ``maximum`` / ``minimum`` (elementwise, in ``clamp`` and as ``reduce`` bodies) are
  IEEE 754's: NaN propagates and -0 < +0 (:mod:`mxdsl.numerics.minmax`);
* ``reduce`` runs its body's op as a numpy reduction; an ``add`` reduction of floats
  is the exact sum of the elements and the init rounded once to the element type
  (:mod:`mxdsl.numerics.sums`: an order-free reading of StableHLO's unspecified order);
* ``dot_general`` is ``hlo.dot_general`` (the PE/PSUM order of
  :mod:`mxdsl.numerics.matmul`);
* ``custom_call @__op$block_scaled_dot`` on typed FP8 operands dequantizes both sides
  along their last (contracting) dim and runs the MX dot of ``hlo`` (``nc_matmul_mx``
  K tiles of 512), so an imported program gives the same bits;
* ``composite`` runs its ``decomposition`` function.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from mxdsl.dialects import chlo
from mxdsl.dialects import stablehlo as shlo
from mxdsl.interpreters import (
    OpInterpretationError,
    dense_literal_value,
    is_float_dtype,
    numpy_dtype,
    round_to,
)
from mxdsl.interpreters.hlo import dot_general
from mxdsl.numerics import MxFormat, dequantize_mx_packed, elementary, minmax
from mxdsl.numerics.matmul import MX_MATMUL_K_TILE
from mxdsl.numerics.packing import pack_fp8_x4
from mxdsl.numerics.sums import odd_sum

BLOCK_SCALED_DOT = "__op$block_scaled_dot"

_FP8_FORMATS = {
    np.dtype(ml_dtypes.float8_e4m3fn): MxFormat.from_name("float8_e4m3fn"),
    np.dtype(ml_dtypes.float8_e5m2): MxFormat.from_name("float8_e5m2"),
}


def result_dtype(op_result: Any) -> np.dtype[Any]:
    t = op_result.type
    assert isinstance(t, TensorType)
    return numpy_dtype(t.get_element_type())


def _float_op(fn: Callable[..., np.ndarray], dtype: np.dtype[Any], *args: np.ndarray) -> Any:
    """``fn`` on float64 copies of ``args``, rounded once to ``dtype``."""
    wide = np.float64 if dtype != np.float64 else dtype
    with np.errstate(all="ignore"):
        out = fn(*(np.asarray(a, dtype=wide) for a in args))
    return round_to(np.asarray(out, dtype=np.float64), dtype) if dtype != np.float64 else out


def _bits(dtype: np.dtype[Any]) -> int:
    return dtype.itemsize * 8


def _unsigned(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(f"u{dtype.itemsize}")


def _int_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Truncating division; x / 0 is -1 (all ones), as XLA's CPU backend gives."""
    safe = np.where(b == 0, 1, b)
    with np.errstate(all="ignore"):
        q = np.abs(a.astype(np.int64)) // np.abs(safe.astype(np.int64))
        q = np.where((a < 0) != (safe < 0), -q, q)
    return np.where(b == 0, -1, q).astype(a.dtype)


def _shift(kind: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    bits = _bits(a.dtype)
    amount = b.astype(np.int64)
    out_of_range = (amount < 0) | (amount >= bits)
    clamped = np.where(out_of_range, 0, amount).astype(a.dtype)
    if kind == "left":
        shifted = np.left_shift(a, clamped)
        return np.where(out_of_range, 0, shifted).astype(a.dtype)
    if kind == "logical":
        u = a.view(_unsigned(a.dtype))
        shifted = np.right_shift(u, clamped.view(_unsigned(a.dtype)))
        return np.where(out_of_range, 0, shifted).astype(u.dtype).view(a.dtype)
    signed = a.view(np.dtype(f"i{a.dtype.itemsize}"))
    shifted = np.right_shift(signed, clamped.view(signed.dtype))
    sign = np.right_shift(signed, bits - 1)
    return np.where(out_of_range, sign, shifted).astype(signed.dtype).view(a.dtype)


def _binary(name: str, a: np.ndarray, b: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    is_float = is_float_dtype(dtype)
    float_fns: dict[str, Callable[..., np.ndarray]] = {
        "add": np.add,
        "subtract": np.subtract,
        "multiply": np.multiply,
        "divide": np.divide,
        "remainder": np.fmod,
        "power": elementary.power,
    }
    if name in ("maximum", "minimum"):
        fn = minmax.maximum if name == "maximum" else minmax.minimum
        if is_float:
            return _float_op(fn, dtype, a, b)
        return fn(a, b)
    if is_float:
        if name not in float_fns:
            raise ValueError(f"{name} is not defined on floats")
        return _float_op(float_fns[name], dtype, a, b)
    if dtype == np.bool_:
        bool_fns = {"add": np.logical_or, "multiply": np.logical_and, "and": np.logical_and}
        bool_fns |= {"or": np.logical_or, "xor": np.logical_xor}
        if name not in bool_fns:
            raise ValueError(f"{name} is not defined on i1")
        return bool_fns[name](a, b)
    with np.errstate(all="ignore"):
        if name in ("add", "subtract", "multiply"):
            return {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}[name](
                a, b, dtype=dtype
            )
        if name == "divide":
            return _int_divide(a, b)
        if name == "remainder":
            safe = np.where(b == 0, 1, b)
            return np.where(b == 0, a, np.fmod(a, safe)).astype(dtype)
        if name == "power":
            if np.any(b < 0):
                raise ValueError("integer power with a negative exponent")
            return np.power(a, b, dtype=dtype)
        if name in ("and", "or", "xor"):
            return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[name](a, b)
    kinds = {"shift_left": "left", "shift_right_logical": "logical"}
    return _shift(kinds.get(name, "arithmetic"), a, b)


def _unary(name: str, a: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    if name == "not":
        return np.logical_not(a) if dtype == np.bool_ else np.invert(a)
    if name in ("abs", "negate") and not is_float_dtype(dtype):
        with np.errstate(all="ignore"):
            return (np.abs(a) if name == "abs" else np.negative(a)).astype(dtype)
    if not is_float_dtype(dtype):
        if name == "sign":
            return np.sign(a).astype(dtype)
        raise ValueError(f"{name} is not defined on integers")
    return _float_op(FLOAT_UNARY[name], dtype, a)


FLOAT_UNARY: dict[str, Callable[..., np.ndarray]] = {
    "abs": np.abs,
    "negate": np.negative,
    "exponential": elementary.exp,
    "exponential_minus_one": elementary.expm1,
    "log": elementary.log,
    "log_plus_one": elementary.log1p,
    "logistic": elementary.sigmoid,
    "sqrt": elementary.sqrt,
    "rsqrt": elementary.rsqrt,
    "tanh": elementary.tanh,
    "floor": np.floor,
    "ceil": np.ceil,
    "sign": lambda x: np.where(x == 0, x, np.sign(x)),  # sign(-0) = -0, as specified
    "round_nearest_even": np.rint,
    "erf": elementary.erf,
    "erfc": elementary.erfc,
}
"""Each float unary op as a float64 function (rounded once to the element type by
:func:`_float_op`): the transcendentals from :mod:`mxdsl.numerics.elementary` (the same
bits on every machine), ``sqrt`` and ``rsqrt`` too (the Scalar engine's activations
are the same functions, so a lowered program gives these bits), the rest IEEE
operations."""


def _total_order_key(a: np.ndarray) -> np.ndarray:
    u = a.view(_unsigned(a.dtype)).astype(np.uint64)
    sign = np.uint64(1) << np.uint64(_bits(a.dtype) - 1)
    mask = (np.uint64(1) << np.uint64(_bits(a.dtype))) - np.uint64(1)
    return np.where(u & sign, ~u & mask, u | sign)


_COMPARE = {
    "EQ": np.equal,
    "NE": np.not_equal,
    "GE": np.greater_equal,
    "GT": np.greater,
    "LE": np.less_equal,
    "LT": np.less,
}


def _compare(op: shlo.CompareOp, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    kind = op.compare_type.data if op.compare_type else None
    fn = _COMPARE[op.comparison_direction.data]
    if kind == "TOTALORDER" and is_float_dtype(a.dtype):
        return fn(_total_order_key(a), _total_order_key(b))
    if kind == "UNSIGNED" and a.dtype.kind == "i":
        return fn(a.view(_unsigned(a.dtype)), b.view(_unsigned(b.dtype)))
    if kind == "SIGNED" and a.dtype.kind == "u":
        signed = np.dtype(f"i{a.dtype.itemsize}")
        return fn(a.view(signed), b.view(signed))
    if is_float_dtype(a.dtype):
        return fn(a.astype(np.float64), b.astype(np.float64))
    return fn(a, b)


def _bitcast(value: np.ndarray, dtype: np.dtype[Any], shape: tuple[int, ...]) -> np.ndarray:
    """StableHLO bitcast_convert on a little-endian host (numpy views are)."""
    source = np.ascontiguousarray(value)
    if source.dtype == np.bool_:
        source = source.view(np.uint8)
    if dtype == np.bool_:
        return source.view(np.uint8).reshape(shape) != 0
    return source.view(dtype).reshape(shape).copy()


def _broadcast_in_dim(value: np.ndarray, dims: tuple[int, ...], shape: tuple[int, ...]) -> Any:
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    moved = np.transpose(value, order) if order else value
    expanded = [1] * len(shape)
    for i in order:
        expanded[dims[i]] = value.shape[i]
    return np.broadcast_to(moved.reshape(expanded), shape).copy()


_REDUCERS: dict[str, Any] = {
    "stablehlo.add": np.add,
    "stablehlo.multiply": np.multiply,
    "stablehlo.maximum": np.maximum,
    "stablehlo.minimum": np.minimum,
    "stablehlo.and": np.bitwise_and,
    "stablehlo.or": np.bitwise_or,
    "stablehlo.xor": np.bitwise_xor,
}
"""The ufunc of each reduction body; and / or / xor act on the bits of integers (on
bools, logically)."""


_IEEE_REDUCERS: dict[str, tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]] = {
    "stablehlo.maximum": (minmax.reduce_maximum, minmax.maximum),
    "stablehlo.minimum": (minmax.reduce_minimum, minmax.minimum),
}
"""Float max / min reductions: IEEE 754 (NaN propagates, -0 < +0), exact in the type."""


def _reduce(op: shlo.ReduceOp, value: np.ndarray, init: np.ndarray) -> np.ndarray:
    body = op.compact_body()
    if body is None or body not in _REDUCERS:
        raise OpInterpretationError(
            op,
            "only reductions whose body is one add, multiply, maximum, minimum, and, or or "
            "xor of its two arguments are interpreted",
        )
    dtype = value.dtype
    axes = op.dims
    if body == "stablehlo.add" and is_float_dtype(dtype):
        return round_to(np.asarray(odd_sum(value, axes, init)), dtype)
    ufunc = _REDUCERS[body]
    if dtype == np.bool_ and body in ("stablehlo.maximum", "stablehlo.add"):
        ufunc = np.logical_or
    if dtype == np.bool_ and body in ("stablehlo.minimum", "stablehlo.multiply"):
        ufunc = np.logical_and
    if is_float_dtype(dtype) and body in _IEEE_REDUCERS:
        reduce, combine = _IEEE_REDUCERS[body]
        return np.asarray(combine(reduce(value, axes), init)).astype(dtype)
    if is_float_dtype(dtype) and body != "stablehlo.multiply":
        wide = ufunc.reduce(value.astype(np.float64), axis=axes)
        return round_to(np.asarray(ufunc(wide, init.astype(np.float64))), dtype)
    with np.errstate(all="ignore"):
        reduced = ufunc.reduce(value, axis=axes)
        return np.asarray(ufunc(reduced, init)).astype(dtype)


# ---------------------------------------------------------- block scaled dot


def block_scaled_dot_config(op: shlo.CustomCallOp) -> dict[str, Any]:
    """The ``scaled_dot_backend_config`` object of a JAX ``__op$block_scaled_dot``."""
    text = op.backend_config()
    if text is None:
        raise ValueError("no backend_config string")
    config = json.loads(text)
    inner = config.get("scaled_dot_backend_config") if isinstance(config, dict) else None
    if not isinstance(inner, dict):
        raise ValueError("backend_config has no scaled_dot_backend_config object")
    return inner


def _dequantize(data: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """fp32 values of typed FP8 ``data`` with one E8M0 scale per block of the last dim;
    32-element blocks of e4m3fn / e5m2 go through the very numerics ``hlo`` uses."""
    k, k_scale = data.shape[-1], scale.shape[-1]
    if k_scale == 0 or k % k_scale:
        raise ValueError(f"a last dim of {k} does not split into {k_scale} scale blocks")
    block = k // k_scale
    fmt = _FP8_FORMATS.get(data.dtype)
    scale_bytes = np.ascontiguousarray(scale).view(np.uint8)
    if fmt is not None and block == 32:
        words = pack_fp8_x4(np.ascontiguousarray(data).view(np.uint8), -1)
        return np.asarray(dequantize_mx_packed(words, scale_bytes, fmt, -1), dtype=np.float32)
    factor = np.where(scale_bytes == 0xFF, np.nan, np.exp2(scale_bytes.astype(np.float64) - 127.0))
    values = data.astype(np.float64) * np.repeat(factor, block, axis=-1)
    return round_to(values, np.dtype(np.float32))


def run_block_scaled_dot(op: shlo.CustomCallOp, args: tuple[Any, ...]) -> np.ndarray:
    """JAX's ``__op$block_scaled_dot``: lhs ``[batch.., M, K]``, rhs ``[batch.., N, K]``,
    scales ``[.., K / block]``; contracts the last dims, batch dims from the config."""
    if len(args) != 4 or len(op.outputs) != 1:
        raise ValueError("expects (lhs, rhs, lhs_scale, rhs_scale) and one result")
    lhs, rhs, lhs_scale, rhs_scale = args
    config = block_scaled_dot_config(op)
    batch = (
        list(config.get("lhs_batch_dimensions", [])),
        list(config.get("rhs_batch_dimensions", [])),
    )
    lhs_f32, rhs_f32 = _dequantize(lhs, lhs_scale), _dequantize(rhs, rhs_scale)
    out = dot_general(
        lhs_f32,
        rhs_f32,
        (batch[0], batch[1]),
        ((lhs.ndim - 1,), (rhs.ndim - 1,)),
        np.dtype(np.float32),
        MX_MATMUL_K_TILE,
    )
    return round_to(out, result_dtype(op.outputs[0]))


# ---------------------------------------------------------------- the functions


def _elementwise(
    self: StableHloFunctions, interpreter: Interpreter, op: shlo.ElementwiseOp, args: PythonValues
) -> PythonValues:
    name = op.name.split(".", 1)[1]
    dtype = result_dtype(op.result)
    try:
        if op.ARITY == 1:
            return (_unary(name, args[0], dtype),)
        return (_binary(name, args[0], args[1], dtype),)
    except ValueError as err:
        raise OpInterpretationError(op, str(err)) from None


def _square(x: np.ndarray) -> np.ndarray:
    """``x * x`` in float64 (exact for floats up to f32), the activation ``square``'s."""
    return x * x


class StableHloFunctions(InterpreterFunctions):
    """``@impl`` for every ``stablehlo`` op; on the ``mxdsl.interpreters`` entry point."""

    @impl(shlo.ConstantOp)
    def run_constant(
        self, interpreter: Interpreter, op: shlo.ConstantOp, args: PythonValues
    ) -> PythonValues:
        cache: dict[Any, Any] = interpreter.get_data(StableHloFunctions, "constants", dict)
        if (value := cache.get(op)) is None:
            value = cache[op] = dense_literal_value(op.value)
            value.setflags(write=False)
        return (value,)

    @impl(shlo.ClampOp)
    def run_clamp(
        self, interpreter: Interpreter, op: shlo.ClampOp, args: PythonValues
    ) -> PythonValues:
        lo, x, hi = args
        dtype = result_dtype(op.result)
        if is_float_dtype(dtype):
            return (minmax.minimum(minmax.maximum(x, lo), hi).astype(dtype),)
        return (np.minimum(np.maximum(x, lo), hi).astype(dtype),)

    @impl(shlo.SelectOp)
    def run_select(
        self, interpreter: Interpreter, op: shlo.SelectOp, args: PythonValues
    ) -> PythonValues:
        pred, on_true, on_false = args
        return (np.where(pred, on_true, on_false).astype(result_dtype(op.result)),)

    @impl(shlo.CompareOp)
    def run_compare(
        self, interpreter: Interpreter, op: shlo.CompareOp, args: PythonValues
    ) -> PythonValues:
        return (np.asarray(_compare(op, args[0], args[1]), dtype=np.bool_),)

    @impl(shlo.ConvertOp)
    def run_convert(
        self, interpreter: Interpreter, op: shlo.ConvertOp, args: PythonValues
    ) -> PythonValues:
        return (round_to(args[0], result_dtype(op.result)),)

    @impl(shlo.BitcastConvertOp)
    def run_bitcast_convert(
        self, interpreter: Interpreter, op: shlo.BitcastConvertOp, args: PythonValues
    ) -> PythonValues:
        shape = shlo.tensor_shape(op.result)
        return (_bitcast(args[0], result_dtype(op.result), shape),)

    @impl(shlo.ReshapeOp)
    def run_reshape(
        self, interpreter: Interpreter, op: shlo.ReshapeOp, args: PythonValues
    ) -> PythonValues:
        return (np.reshape(args[0], shlo.tensor_shape(op.result)).copy(),)

    @impl(shlo.BroadcastInDimOp)
    def run_broadcast_in_dim(
        self, interpreter: Interpreter, op: shlo.BroadcastInDimOp, args: PythonValues
    ) -> PythonValues:
        return (_broadcast_in_dim(args[0], op.dims, shlo.tensor_shape(op.result)),)

    @impl(shlo.TransposeOp)
    def run_transpose(
        self, interpreter: Interpreter, op: shlo.TransposeOp, args: PythonValues
    ) -> PythonValues:
        return (np.ascontiguousarray(np.transpose(args[0], op.dims)),)

    @impl(shlo.IotaOp)
    def run_iota(
        self, interpreter: Interpreter, op: shlo.IotaOp, args: PythonValues
    ) -> PythonValues:
        shape = shlo.tensor_shape(op.result)
        dim = op.iota_dimension.value.data
        index = np.arange(shape[dim]).reshape([-1 if d == dim else 1 for d in range(len(shape))])
        return (round_to(np.broadcast_to(index, shape).copy(), result_dtype(op.result)),)

    @impl(shlo.DotGeneralOp)
    def run_dot_general(
        self, interpreter: Interpreter, op: shlo.DotGeneralOp, args: PythonValues
    ) -> PythonValues:
        lhs, rhs = args
        dtype = result_dtype(op.result)
        floats = [is_float_dtype(d) for d in (lhs.dtype, rhs.dtype, dtype)]
        if any(floats):
            wide = np.float64 in (lhs.dtype, rhs.dtype, dtype)
            accumulation = np.dtype(np.float64 if wide else np.float32)
        else:
            accumulation = np.dtype(np.int64)
        out = dot_general(
            round_to(lhs, accumulation) if lhs.dtype != accumulation else lhs,
            round_to(rhs, accumulation) if rhs.dtype != accumulation else rhs,
            op.batching_dims,
            op.contracting_dims,
            accumulation,
        )
        return (round_to(out, dtype) if out.dtype != dtype else out,)

    @impl(shlo.ReduceOp)
    def run_reduce(
        self, interpreter: Interpreter, op: shlo.ReduceOp, args: PythonValues
    ) -> PythonValues:
        if len(op.inputs) != 1:
            raise OpInterpretationError(op, "only single-input reductions are interpreted")
        return (_reduce(op, args[0], args[1]),)

    @impl(shlo.CustomCallOp)
    def run_custom_call(
        self, interpreter: Interpreter, op: shlo.CustomCallOp, args: PythonValues
    ) -> PythonValues:
        if op.target != BLOCK_SCALED_DOT:
            raise OpInterpretationError(
                op, f"no interpreter implementation for custom call target {op.target!r}"
            )
        try:
            return (run_block_scaled_dot(op, tuple(args)),)
        except (ValueError, KeyError, TypeError) as err:
            raise OpInterpretationError(op, f"{BLOCK_SCALED_DOT}: {err}") from None

    @impl(chlo.ErfOp)
    def run_erf(self, interpreter: Interpreter, op: chlo.ErfOp, args: PythonValues) -> PythonValues:
        return (_float_op(elementary.erf, result_dtype(op.result), args[0]),)

    @impl(chlo.ErfcOp)
    def run_erfc(
        self, interpreter: Interpreter, op: chlo.ErfcOp, args: PythonValues
    ) -> PythonValues:
        return (_float_op(elementary.erfc, result_dtype(op.result), args[0]),)

    @impl(chlo.SquareOp)
    def run_square(
        self, interpreter: Interpreter, op: chlo.SquareOp, args: PythonValues
    ) -> PythonValues:
        return (_float_op(_square, result_dtype(op.result), args[0]),)

    @impl(shlo.CompositeOp)
    def run_composite(
        self, interpreter: Interpreter, op: shlo.CompositeOp, args: PythonValues
    ) -> PythonValues:
        symbol = op.decomposition()
        assert symbol is not None
        return interpreter.call_op(symbol, args)


def _register_elementwise(functions: type[StableHloFunctions]) -> type[StableHloFunctions]:
    """One ``@impl`` per elementwise op class, all running :func:`_elementwise`."""
    for op_type in shlo.StableHLO.operations:
        if issubclass(op_type, shlo.ElementwiseOp) and op_type is not shlo.ClampOp:
            method = impl(op_type)(_elementwise)  # pyright: ignore[reportArgumentType]
            setattr(functions, "run_" + op_type.name.split(".", 1)[1], method)
    return register_impls(functions)


StableHloFunctions = _register_elementwise(StableHloFunctions)
