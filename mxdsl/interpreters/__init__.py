"""mxdsl interpreters: discovery of interpreter functions and the value conventions.

**Discovery.** Interpreter functions are :class:`xdsl.interpreter.InterpreterFunctions`
classes published on the entry-point group ``mxdsl.interpreters`` (mxdsl's own ``hlo``
entry lives in ``pyproject.toml``)::

    [project.entry-points."mxdsl.interpreters"]
    hlo = "mxdsl.interpreters.hlo:HloFunctions"

An out-of-tree package adds its own the same way; ``mx-run`` and
:func:`make_interpreter` then load them. An entry point may name an
``InterpreterFunctions`` subclass (instantiated without arguments), an instance, or a
zero-argument callable returning an instance. Entry points load in name order. They may
override upstream xDSL implementations (e.g. ``func.call``), but two of them implementing
the same op is an error naming both. Functions passed as ``extra=`` load last and may
override anything, which is how tests and scripts plug in a class without installing it.
An entry point that cannot be loaded is skipped with a warning naming its extension
(``mxdsl.extensions``).

**Values.** Tensors are numpy arrays whose dtype follows :func:`numpy_dtype` (ml_dtypes
for bf16, fp8, fp4 and E8M0; ``bool`` for ``i1``; signless integers as signed); tuples are
Python tuples. :func:`round_to` is the one rounding helper (round to nearest even, no
double rounding).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any

import ml_dtypes
import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    Float4E2M1FNType,
    Float8E3M4Type,
    Float8E4M3FNType,
    Float8E4M3Type,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
    Signedness,
)
from xdsl.interpreter import Interpreter, InterpreterFunctions
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from mxdsl import extensions
from mxdsl.numerics.matmul import bf16_to_f32

ENTRY_POINT_GROUP = "mxdsl.interpreters"


# ------------------------------------------------------------------------- errors


class OpInterpretationError(InterpretationError):
    """A run-time error about one op (for example a custom call with no implementation).

    ``message`` is the bare text; ``str()`` adds ``file:line:col`` when the op has a
    source location, so the error is useful outside the tools too."""

    def __init__(self, op: Operation, message: str):
        self.op = op
        self.message = message
        super().__init__(f"{location_prefix(op)}{message}")


def location_prefix(op: Operation) -> str:
    """``file:line:col: `` of ``op`` when it has a file location, else empty."""
    location = op.location
    if isinstance(location, FileLineColLoc):
        return f"{location.filename.data}:{location.line.data}:{location.column.data}: "
    return ""


class InterpreterDiscoveryError(Exception):
    """An entry point on ``mxdsl.interpreters`` that cannot be loaded or clashes."""


# ---------------------------------------------------------------------- discovery


FunctionsSource = InterpreterFunctions | type[InterpreterFunctions] | Callable[[], Any]


def _entry_points() -> Sequence[importlib.metadata.EntryPoint]:
    """The entry points of :data:`ENTRY_POINT_GROUP`, sorted by name (monkeypatchable)."""
    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return sorted(found, key=lambda ep: ep.name)


def _instantiate(source: object, name: str) -> InterpreterFunctions:
    if isinstance(source, InterpreterFunctions):
        return source
    if callable(source):
        made = source()
        if isinstance(made, InterpreterFunctions):
            return made
        raise InterpreterDiscoveryError(
            f"interpreter entry point {name!r} returned {type(made).__name__}, "
            "not an InterpreterFunctions instance"
        )
    raise InterpreterDiscoveryError(
        f"interpreter entry point {name!r} is a {type(source).__name__}, not an "
        "InterpreterFunctions class, instance or factory"
    )


def discover_interpreter_functions() -> list[tuple[str, InterpreterFunctions]]:
    """``(entry point name, functions)`` for every entry point of
    :data:`ENTRY_POINT_GROUP`, in name order. An entry point that cannot be loaded or is
    not interpreter functions is skipped with a warning naming its extension (programs
    that do not use its ops still run; those that do fail at the op with no
    implementation)."""
    discovered: list[tuple[str, InterpreterFunctions]] = []
    for entry_point in _entry_points():
        try:
            functions = _instantiate(entry_point.load(), entry_point.name)
        except InterpreterDiscoveryError as err:
            extensions.warn(f"{extensions.describe(entry_point)}: {err}; skipped")
            continue
        except Exception as err:
            extensions.warn(f"{extensions.load_failure(entry_point, err)}; skipped")
            continue
        discovered.append((entry_point.name, functions))
    return discovered


def _op_types(functions: InterpreterFunctions) -> set[type[Operation]]:
    from mxdsl.interpreters.xdsl_adapter import implemented_op_types

    return implemented_op_types(functions)


def register_interpreter_functions(
    interpreter: Interpreter,
    ctx: Context | None = None,
    *,
    extra: Iterable[FunctionsSource] = (),
    upstream: bool = True,
) -> None:
    """Register, in this order: every upstream xDSL implementation (``func``, ``arith``,
    ``scf``, ... when ``upstream``), the discovered entry points, then ``extra``."""
    if upstream:
        from xdsl.interpreters import register_implementations

        register_implementations(interpreter, ctx if ctx is not None else Context())
    owners: dict[type[Operation], str] = {}
    for name, functions in discover_interpreter_functions():
        for op_type in _op_types(functions):
            if (other := owners.get(op_type)) is not None:
                raise InterpreterDiscoveryError(
                    f"interpreter entry points {other!r} and {name!r} both implement "
                    f"{op_type.name}; remove one, or pass the override as extra="
                )
            owners[op_type] = name
        interpreter.register_implementations(functions, override=True)
    for index, source in enumerate(extra):
        interpreter.register_implementations(_instantiate(source, f"extra[{index}]"), override=True)


def make_interpreter(
    module: ModuleOp,
    ctx: Context | None = None,
    *,
    extra: Iterable[FunctionsSource] = (),
    file: IO[str] | None = None,
    listeners: Sequence[Interpreter.Listener] = (),
    fast_path: bool | None = None,
) -> Interpreter:
    """An :class:`Interpreter` over ``module`` with every implementation registered;
    ``fast_path=False`` runs it in the reference mode (:mod:`mxdsl.interpreters.fast_path`;
    ``None``: the environment's default)."""
    interpreter = Interpreter(module, file=file, listeners=tuple(listeners))
    register_interpreter_functions(interpreter, ctx, extra=extra)
    if fast_path is not None:
        from mxdsl.interpreters.fast_path import set_fast_path

        set_fast_path(interpreter, fast_path)
    return interpreter


# -------------------------------------------------------------------------- values


_FLOAT_DTYPES: dict[type[Attribute], Any] = {
    Float64Type: np.dtype(np.float64),
    Float32Type: np.dtype(np.float32),
    Float16Type: np.dtype(np.float16),
    BFloat16Type: np.dtype(ml_dtypes.bfloat16),
    Float8E4M3FNType: np.dtype(ml_dtypes.float8_e4m3fn),
    Float8E4M3Type: np.dtype(ml_dtypes.float8_e4m3),
    Float8E3M4Type: np.dtype(ml_dtypes.float8_e3m4),
    Float8E5M2Type: np.dtype(ml_dtypes.float8_e5m2),
    Float8E8M0FNUType: np.dtype(ml_dtypes.float8_e8m0fnu),
    Float4E2M1FNType: np.dtype(ml_dtypes.float4_e2m1fn),
}


def numpy_dtype(element_type: Attribute) -> np.dtype[Any]:
    """The numpy dtype that holds values of an MLIR element type.

    Raises ``TypeError`` for element types the interpreters do not model."""
    if (dtype := _FLOAT_DTYPES.get(type(element_type))) is not None:
        return dtype
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width in (8, 16, 32, 64):
            unsigned = element_type.signedness.data == Signedness.UNSIGNED
            return np.dtype(f"{'u' if unsigned else 'i'}{width // 8}")
    raise TypeError(f"no numpy representation for element type {element_type}")


def dense_literal_value(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A ``dense<...>`` literal as a numpy array, bit for bit (from the stored bytes)."""
    shape = tuple(attr.get_shape())
    dtype = numpy_dtype(attr.get_element_type())
    raw = attr.data.data
    if dtype == np.bool_:
        flat = np.frombuffer(raw, dtype=np.uint8) != 0
    else:
        flat = np.frombuffer(raw, dtype=dtype)  # xDSL stores little-endian bytes
    if flat.size == 1 and int(np.prod(shape)) != 1:
        flat = np.broadcast_to(flat, (int(np.prod(shape)),))
    return np.array(flat.reshape(shape), dtype=dtype)


def is_float_dtype(dtype: np.dtype[Any]) -> bool:
    """numpy floats (kind ``f``, as ``np.issubdtype(dtype, np.floating)``) and the
    ml_dtypes float types."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype in ML_FLOATS


ML_FLOATS = frozenset(
    np.dtype(t)
    for t in (
        ml_dtypes.bfloat16,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e4m3,
        ml_dtypes.float8_e3m4,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e8m0fnu,
        ml_dtypes.float4_e2m1fn,
    )
)
"""The ml_dtypes float types (each widens to float32 exactly)."""


def _round_to_odd_f32(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounding to odd: exact values stay, inexact ones take the
    neighbour whose last significand bit is 1. A second rounding from this float32 to any
    format with at most 22 significand bits is then the correctly rounded one."""
    with np.errstate(over="ignore"):  # beyond the float32 range: inf, as rounding gives
        y = x.astype(np.float32)
    with np.errstate(invalid="ignore"):
        inexact = (y.astype(np.float64) != x) & np.isfinite(y)
        even = (y.view(np.uint32) & 1) == 0
        toward = np.where(x > y, np.float32(np.inf), np.float32(-np.inf))
        return np.where(inexact & even, np.nextafter(y, toward), y)


_BF16 = np.dtype(ml_dtypes.bfloat16)
_F32 = np.dtype(np.float32)
_BF16_QUIET_NAN = np.uint16(0x7FC0)
_BF16_NEGATIVE_NAN = np.uint16(0xFFC0)


def _f32_to_bf16(values: np.ndarray) -> np.ndarray:
    """``values.astype(bfloat16)`` (ml_dtypes: round to nearest even, overflow to inf, a
    NaN becomes the quiet NaN ``0x7FC0`` of its sign) through the bits, about 2x faster
    than ml_dtypes' cast; checked against it over all 2^32 float32 words: a fresh array
    filled by :func:`f32_to_bf16_into`."""
    result = np.empty(values.shape, dtype=np.uint16).view(_BF16)
    f32_to_bf16_into(values, result)
    return result


def f32_to_bf16_into(values: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = values.astype(bfloat16)`` for float32 ``values`` and a bfloat16
    ``out`` of the same shape (any strides: a view of a larger buffer is written
    through), with no bfloat16 array in between: ml_dtypes' rounding (to nearest even,
    overflow to inf, a NaN becomes the quiet NaN ``0x7FC0`` of its sign). RNE on the
    word: add ``0x7FFF`` plus the kept part's last bit, keep the high half (a carry out
    of the significand steps the exponent, up to inf). Whether any element is NaN is
    read from ``values.max()`` (NaN exactly when one is: the maximum propagates NaN),
    the NaN positions only then. Everything is read from ``values`` before ``out`` is
    written, so the two may overlap."""
    words = values.view(np.uint32)
    rounded = np.asarray(words >> 16)  # a 0-d array stays an array
    rounded &= 1
    rounded += 0x7FFF
    rounded += words
    rounded >>= 16
    quiet: tuple[np.ndarray, np.ndarray] | None = None  # NaN positions, their words
    if values.size and np.isnan(values.max()):
        nan = np.isnan(values)
        quiet = nan, np.where(np.signbit(values[nan]), _BF16_NEGATIVE_NAN, _BF16_QUIET_NAN)
    bits = out.view(np.uint16)
    np.copyto(bits, rounded, casting="unsafe")  # the high halves: below 2**16
    if quiet is not None:
        bits[quiet[0]] = quiet[1]


def round_to(values: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """``values`` converted to ``dtype`` with HLO ``convert`` semantics, rounding once.

    * float -> float: round to nearest, ties to even (ml_dtypes), out-of-range as the
      format does (inf, or NaN for the formats without inf such as f8E4M3FN). ml_dtypes
      converts float64 through float32, which would round twice; float64 sources take a
      round-to-odd float32 step first, so the result is the correctly rounded one.
    * integer/bool -> float: through float64 (exact below 2^53), then as above.
    * float -> integer: truncate toward zero, saturate to the integer range, NaN -> 0
      (XLA's convert); float -> i1 is ``x != 0``.
    * integer -> integer: two's complement wrap-around; -> i1 is ``x != 0``.
    """
    dtype = np.dtype(dtype)
    source = values.dtype
    if source == dtype:
        return values.copy()
    if source == _BF16 and dtype == _F32 and isinstance(values, np.ndarray):
        return bf16_to_f32(values)  # exact: first, as the interpreters widen bf16 tiles often
    if dtype == np.bool_:
        return values != 0
    if is_float_dtype(dtype):
        if not is_float_dtype(source):
            values = values.astype(np.float64)
            source = values.dtype
        if source == np.float64 and dtype.itemsize < 4:
            values = _round_to_odd_f32(values)
            source = values.dtype
        if source == _F32 and dtype == _BF16 and isinstance(values, np.ndarray):
            return _f32_to_bf16(values)
        with np.errstate(over="ignore", invalid="ignore"):
            return values.astype(dtype)
    if is_float_dtype(source):
        info = np.iinfo(dtype)
        wide = values.astype(np.float64)
        with np.errstate(invalid="ignore"):
            truncated = np.trunc(np.nan_to_num(wide, nan=0.0, posinf=np.inf, neginf=-np.inf))
            low = truncated <= float(info.min)
            high = truncated >= float(info.max)
            middle = np.where(low | high, 0.0, truncated).astype(dtype)
        return np.where(low, info.min, np.where(high, info.max, middle)).astype(dtype)
    return values.astype(dtype)
