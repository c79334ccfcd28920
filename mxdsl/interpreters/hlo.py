"""Interpreter functions for the ``hlo`` dialect (see ``docs/interpreter.md``).

Values are numpy arrays (dtypes per :func:`mxdsl.interpreters.numpy_dtype`) and Python
tuples of them. Every op is one vectorised numpy computation:

* ``hlo.constant``: the literal's bytes as an array; a tuple literal as a tuple.
* ``hlo.tuple`` / ``hlo.get_tuple_element``: Python tuples.
* ``hlo.convert``: :func:`mxdsl.interpreters.round_to` (RNE, saturating float -> int).
* ``hlo.dot_general``: float operands are widened exactly to float32 (float64 if an
  operand or the result is f64) and multiplied in the PE/PSUM order of
  :mod:`mxdsl.numerics.matmul` (K tiles of 128, each summed in float64 and rounded to
  fp32, tiles added in fp32); the result is rounded once to the result type. Integer
  dots accumulate in int64 and wrap.
* ``hlo.custom_call``: dispatched on the call target through a registry
  (:func:`register_custom_call_impl`); mxdsl registers ``QuantizeMX``,
  ``__op$block_scaled_dot`` and the legalized ``QuantizeMX_*`` / ``ScaledMatmul_*``
  targets. Every MX computation is :mod:`mxdsl.numerics`; the frontend call and its
  legalized form run the very same code, so they agree bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr, TensorType, TupleType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Attribute

from mxdsl.contract.errors import MxContractError
from mxdsl.contract.mx import (
    BLOCK_SCALED_DOT,
    MX_BLOCK_SIZE,
    NO_BATCH_DIM,
    QUANTIZE_MX,
    QUANTIZE_MX_TARGETS,
    SCALED_MATMUL_TARGETS,
    QuantizeMXConfig,
    ScaledDotConfig,
)
from mxdsl.dialects.hlo import (
    ConstantOp,
    ConvertOp,
    CustomCallOp,
    DotGeneralOp,
    GetTupleElementOp,
    TupleOp,
)
from mxdsl.interpreters import (
    OpInterpretationError,
    dense_literal_value,
    is_float_dtype,
    numpy_dtype,
    round_to,
)
from mxdsl.numerics import MxFormat, dequantize_mx_packed, quantize_mx_packed
from mxdsl.numerics.matmul import MATMUL_K_TILE, MX_MATMUL_K_TILE, k_tiled_matmul

# ------------------------------------------------------------ custom call registry

CustomCallImpl = Callable[[Interpreter, CustomCallOp, tuple[Any, ...]], Any]
"""``(interpreter, op, operand values) -> result value`` (an array or a tuple)."""

_CUSTOM_CALLS: dict[str, CustomCallImpl] = {}
_CUSTOM_CALL_PREFIXES: dict[str, CustomCallImpl] = {}


def register_custom_call_impl(
    target: str, fn: CustomCallImpl, *, prefix: bool = False, override: bool = False
) -> None:
    """Make ``fn`` run ``hlo.custom_call @target``; with ``prefix``, every target that
    starts with ``target`` and has no exact registration. An extension calls this when
    its entry-point module is imported."""
    table = _CUSTOM_CALL_PREFIXES if prefix else _CUSTOM_CALLS
    if target in table and not override:
        raise ValueError(f"custom call target {target!r} already has an implementation")
    table[target] = fn


def unregister_custom_call_impl(target: str, *, prefix: bool = False) -> None:
    """Remove a registration (for tests and interactive use)."""
    (_CUSTOM_CALL_PREFIXES if prefix else _CUSTOM_CALLS).pop(target, None)


def custom_call_impl(target: str, *, prefix: bool = False, override: bool = False):
    """Decorator form of :func:`register_custom_call_impl`."""

    def register(fn: CustomCallImpl) -> CustomCallImpl:
        register_custom_call_impl(target, fn, prefix=prefix, override=override)
        return fn

    return register


def lookup_custom_call_impl(target: str) -> CustomCallImpl | None:
    if (fn := _CUSTOM_CALLS.get(target)) is not None:
        return fn
    matches = [p for p in _CUSTOM_CALL_PREFIXES if target.startswith(p)]
    return _CUSTOM_CALL_PREFIXES[max(matches, key=len)] if matches else None


def registered_custom_call_targets() -> list[str]:
    """Every registered target (prefix registrations end in ``*``)."""
    return sorted(_CUSTOM_CALLS) + sorted(f"{p}*" for p in _CUSTOM_CALL_PREFIXES)


# ------------------------------------------------------------------ value helpers


def _literal_value(value: Attribute) -> Any:
    if isinstance(value, ArrayAttr):
        return tuple(_literal_value(element) for element in value.data)
    assert isinstance(value, DenseIntOrFPElementsAttr)
    array = dense_literal_value(value)
    array.setflags(write=False)
    return array


def _describe(value: Any) -> str:
    if isinstance(value, tuple):
        return "tuple(" + ", ".join(_describe(v) for v in value) + ")"
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array of shape {value.shape}"
    return type(value).__name__


def check_value(value: Any, value_type: Attribute) -> str | None:
    """Why ``value`` is not a value of ``value_type`` (None when it is)."""
    if isinstance(value_type, TupleType):
        elements = value_type.types.data
        if not isinstance(value, tuple) or len(value) != len(elements):
            return f"expected a tuple of {len(elements)} elements, got {_describe(value)}"
        for index, (element, element_type) in enumerate(zip(value, elements, strict=True)):
            if (why := check_value(element, element_type)) is not None:
                return f"element {index}: {why}"
        return None
    if isinstance(value_type, TensorType):
        shape = tuple(value_type.get_shape())
        dtype = numpy_dtype(value_type.get_element_type())
        if not isinstance(value, np.ndarray) or value.shape != shape or value.dtype != dtype:
            return f"expected {dtype} array of shape {shape}, got {_describe(value)}"
        return None
    return f"values of type {value_type} are not modelled"


def _mx_format(op: CustomCallOp, name: str) -> MxFormat:
    try:
        return MxFormat.from_name(name)
    except (KeyError, ValueError) as err:
        raise OpInterpretationError(op, f"{op.target}: unsupported MX dtype {name!r}") from err


def _parse_config(op: CustomCallOp, parse: Callable[[str, str], Any]) -> Any:
    try:
        return parse(op.backend_config.data, op.target)
    except MxContractError as err:
        raise OpInterpretationError(op, str(err)) from None


def _check_block_size(op: CustomCallOp, block_size: int) -> None:
    if block_size != MX_BLOCK_SIZE:
        raise OpInterpretationError(
            op, f"{op.target}: block size {block_size} (only {MX_BLOCK_SIZE} is modelled)"
        )


# ----------------------------------------------------------------------- dots


def _accumulation_dtype(*dtypes: np.dtype[Any]) -> np.dtype[Any]:
    if any(is_float_dtype(d) for d in dtypes):
        return np.dtype(np.float64 if np.dtype(np.float64) in dtypes else np.float32)
    return np.dtype(np.int64)


def dot_general(
    lhs: np.ndarray,
    rhs: np.ndarray,
    batching_dims: tuple[Sequence[int], Sequence[int]],
    contracting_dims: tuple[Sequence[int], Sequence[int]],
    accumulation: np.dtype[Any],
    k_tile: int = MATMUL_K_TILE,
) -> np.ndarray:
    """The StableHLO dot_general of ``lhs`` and ``rhs`` (already in ``accumulation``):
    result dims are batch, lhs free, rhs free, over ``(batch, M, K) x (batch, K, N)``.
    An fp32 accumulation follows the PE/PSUM order of :mod:`mxdsl.numerics.matmul`
    (K tiles of ``k_tile``), so the lowered kernels agree bit for bit; float64 and
    integer dots are one ``np.matmul``."""
    (lhs_batch, rhs_batch), (lhs_contract, rhs_contract) = batching_dims, contracting_dims
    lhs_free = [d for d in range(lhs.ndim) if d not in (*lhs_batch, *lhs_contract)]
    rhs_free = [d for d in range(rhs.ndim) if d not in (*rhs_batch, *rhs_contract)]
    batch_shape = [lhs.shape[d] for d in lhs_batch]
    lhs_free_shape = [lhs.shape[d] for d in lhs_free]
    rhs_free_shape = [rhs.shape[d] for d in rhs_free]
    b = int(np.prod(batch_shape, dtype=np.int64))
    m = int(np.prod(lhs_free_shape, dtype=np.int64))
    n = int(np.prod(rhs_free_shape, dtype=np.int64))
    k = int(np.prod([lhs.shape[d] for d in lhs_contract], dtype=np.int64))
    lhs3 = np.transpose(lhs, (*lhs_batch, *lhs_free, *lhs_contract)).reshape(b, m, k)
    rhs3 = np.transpose(rhs, (*rhs_batch, *rhs_contract, *rhs_free)).reshape(b, k, n)
    lhs3 = lhs3.astype(accumulation, copy=False)
    rhs3 = rhs3.astype(accumulation, copy=False)
    if accumulation == np.dtype(np.float32):
        out = k_tiled_matmul(lhs3, rhs3, k_tile)
    else:
        out = np.matmul(lhs3, rhs3)
    return out.reshape((*batch_shape, *lhs_free_shape, *rhs_free_shape))


def scaled_matmul(
    op: CustomCallOp,
    operands: Sequence[np.ndarray],
    element_dtype: str,
    batching_dims: tuple[Sequence[int], Sequence[int]],
    contracting_dims: tuple[int, int],
) -> np.ndarray:
    """The MX block-scaled dot (both ``__op$block_scaled_dot`` and ``ScaledMatmul_*``):
    dequantize each side along its contracting dim (:mod:`mxdsl.numerics`), multiply and
    accumulate in float32 over K tiles of 512 (128 partitions x 4 lanes, the
    ``nc_matmul_mx`` pass; :func:`dot_general`), round once to the result type."""
    lhs, rhs, lhs_scale, rhs_scale = operands
    fmt = _mx_format(op, element_dtype)
    lhs_c, rhs_c = contracting_dims
    lhs_f32 = dequantize_mx_packed(lhs, lhs_scale.view(np.uint8), fmt, lhs_c)
    rhs_f32 = dequantize_mx_packed(rhs, rhs_scale.view(np.uint8), fmt, rhs_c)
    out = dot_general(
        np.asarray(lhs_f32, dtype=np.float32),
        np.asarray(rhs_f32, dtype=np.float32),
        batching_dims,
        ((lhs_c,), (rhs_c,)),
        np.dtype(np.float32),
        MX_MATMUL_K_TILE,
    )
    assert isinstance(op.result.type, TensorType)
    return round_to(out, numpy_dtype(op.result.type.get_element_type()))


def quantize_mx(op: CustomCallOp, source: np.ndarray, dtype: str, axis: int) -> tuple[Any, ...]:
    """QuantizeMX along ``axis``: ``(ui32 data, E8M0 scale)`` from :mod:`mxdsl.numerics`."""
    data, scale = quantize_mx_packed(source, _mx_format(op, dtype), axis)
    return (
        np.asarray(data, dtype=np.uint32),
        np.asarray(scale, dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu),
    )


# ------------------------------------------------------------ MX custom calls


@custom_call_impl(QUANTIZE_MX)
def _run_quantize_mx(interpreter: Interpreter, op: CustomCallOp, args: tuple[Any, ...]) -> Any:
    (source,) = args
    config: QuantizeMXConfig = _parse_config(op, QuantizeMXConfig.parse)
    if config.block_size is not None:
        _check_block_size(op, config.block_size)
    axis = config.dim + source.ndim if config.dim < 0 else config.dim
    return quantize_mx(op, source, config.dtype, axis)


def _run_quantize_mx_legalized(
    interpreter: Interpreter, op: CustomCallOp, args: tuple[Any, ...]
) -> Any:
    metadata, source = args
    _, dtype = QUANTIZE_MX_TARGETS[op.target]
    if not isinstance(metadata, tuple) or len(metadata) != 4:
        raise OpInterpretationError(
            op,
            f"{op.target}: metadata must be (shape, dim, block_size, 0), got {_describe(metadata)}",
        )
    shape, dim, block_size = (np.asarray(v) for v in metadata[:3])
    if tuple(int(s) for s in shape.reshape(-1)) != source.shape:
        raise OpInterpretationError(
            op,
            f"{op.target}: metadata shape {shape.reshape(-1).tolist()} is not the input "
            f"shape {list(source.shape)}",
        )
    _check_block_size(op, int(block_size))
    axis = int(dim)
    if not 0 <= axis < source.ndim:
        raise OpInterpretationError(op, f"{op.target}: metadata dim {axis} is out of range")
    return quantize_mx(op, source, dtype, axis)


@custom_call_impl(BLOCK_SCALED_DOT)
def _run_block_scaled_dot(interpreter: Interpreter, op: CustomCallOp, args: tuple[Any, ...]) -> Any:
    config: ScaledDotConfig = _parse_config(op, ScaledDotConfig.parse)
    (lhs_c,), (rhs_c,) = config.lhs_contracting_dimensions, config.rhs_contracting_dimensions
    return scaled_matmul(
        op,
        args,
        config.element_dtype,
        (config.lhs_batch_dimensions, config.rhs_batch_dimensions),
        (lhs_c, rhs_c),
    )


def _run_scaled_matmul_legalized(
    interpreter: Interpreter, op: CustomCallOp, args: tuple[Any, ...]
) -> Any:
    *operands, metadata = args
    element_dtype, _ = SCALED_MATMUL_TARGETS[op.target]
    if not isinstance(metadata, tuple) or len(metadata) != 7:
        raise OpInterpretationError(
            op, f"{op.target}: metadata must be 7 scalars, got {_describe(metadata)}"
        )
    lhs_batch, rhs_batch, lhs_c, rhs_c, lhs_rank, rhs_rank, block_size = (
        int(np.asarray(v)) for v in metadata
    )
    lhs, rhs = operands[0], operands[1]
    if (lhs_rank, rhs_rank) != (lhs.ndim, rhs.ndim):
        raise OpInterpretationError(
            op,
            f"{op.target}: metadata ranks {lhs_rank}, {rhs_rank} are not the operand ranks "
            f"{lhs.ndim}, {rhs.ndim}",
        )
    _check_block_size(op, block_size)
    batch = ((), ()) if lhs_batch == NO_BATCH_DIM else ((lhs_batch,), (rhs_batch,))
    return scaled_matmul(op, operands, element_dtype, batch, (lhs_c, rhs_c))


for _target in QUANTIZE_MX_TARGETS:
    register_custom_call_impl(_target, _run_quantize_mx_legalized)
for _target in SCALED_MATMUL_TARGETS:
    register_custom_call_impl(_target, _run_scaled_matmul_legalized)


# ----------------------------------------------------------------- the functions


@register_impls
class HloFunctions(InterpreterFunctions):
    """``@impl`` for every ``hlo`` op; published on the ``mxdsl.interpreters`` entry point."""

    @impl(ConstantOp)
    def run_constant(
        self, interpreter: Interpreter, op: ConstantOp, args: PythonValues
    ) -> PythonValues:
        cache: dict[ConstantOp, Any] = interpreter.get_data(HloFunctions, "constants", dict)
        if (value := cache.get(op)) is None:
            value = cache[op] = _literal_value(op.value)
        return (value,)

    @impl(TupleOp)
    def run_tuple(self, interpreter: Interpreter, op: TupleOp, args: PythonValues) -> PythonValues:
        return (tuple(args),)

    @impl(GetTupleElementOp)
    def run_get_tuple_element(
        self, interpreter: Interpreter, op: GetTupleElementOp, args: PythonValues
    ) -> PythonValues:
        (value,) = args
        return (value[op.index.value.data],)

    @impl(ConvertOp)
    def run_convert(
        self, interpreter: Interpreter, op: ConvertOp, args: PythonValues
    ) -> PythonValues:
        (value,) = args
        assert isinstance(op.result.type, TensorType)
        return (round_to(value, numpy_dtype(op.result.type.get_element_type())),)

    @impl(DotGeneralOp)
    def run_dot_general(
        self, interpreter: Interpreter, op: DotGeneralOp, args: PythonValues
    ) -> PythonValues:
        lhs, rhs = args
        assert isinstance(op.result.type, TensorType)
        result_dtype = numpy_dtype(op.result.type.get_element_type())
        accumulation = _accumulation_dtype(lhs.dtype, rhs.dtype, result_dtype)
        out = dot_general(
            round_to(lhs, accumulation) if lhs.dtype != accumulation else lhs,
            round_to(rhs, accumulation) if rhs.dtype != accumulation else rhs,
            op.batching_dims,
            op.contracting_dims,
            accumulation,
        )
        return (round_to(out, result_dtype) if out.dtype != result_dtype else out,)

    @impl(CustomCallOp)
    def run_custom_call(
        self, interpreter: Interpreter, op: CustomCallOp, args: PythonValues
    ) -> PythonValues:
        fn = lookup_custom_call_impl(op.target)
        if fn is None:
            raise OpInterpretationError(
                op, f"no interpreter implementation for custom call target {op.target!r}"
            )
        result = fn(interpreter, op, tuple(args))
        if (why := check_value(result, op.result.type)) is not None:
            raise OpInterpretationError(
                op, f"custom call {op.target!r} produced a wrong result: {why}"
            )
        return (result,)
