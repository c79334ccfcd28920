"""Scalar integer / index ``arith`` ops with upstream xDSL's semantics, minus its per-op
attribute construction.

Upstream (``xdsl.interpreters.arith``) returns every integer result as a fresh
``IntegerAttr`` built and verified by ``scalar_attr``; in a loop body that construction
is most of an op's cost (``benchmarks/interpreter_dispatch.py``, ``docs/interpreter.md``
"Dispatch cost"). :func:`int_attr` gives the same attribute (equal, same hash) at a
fraction of the cost: an ``IntegerAttr`` is immutable, so equal results share one, and a
new one is assembled from a value normalized here instead of through the verifier. The
ops here compute exactly what upstream computes (same value, same result type: ``index``
becomes the ``i32`` / ``i64`` of the interpreter's index bitwidth). ``NisaFunctions``
inherits these (``mxdsl/interpreters/nisa.py``, whose ``scf.for`` makes its induction
variables with :func:`int_attr` too), so every program run by ``make_interpreter`` /
``mx-run`` gets them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
)
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.builtin import scalar_attr
from xdsl.ir import Attribute, Operation
from xdsl.utils.comparisons import to_signed, to_unsigned

from mxdsl.interpreters import OpInterpretationError

DIRECT_IMPLS: dict[Callable[..., Any], Callable[..., Any]] = {}
"""The undecorated function of every implementation declared with :func:`direct_impl`,
keyed by what xDSL registers for it (``impl``'s wrapper, which returns the function's
values in an ``OpImplResult``): ``mxdsl.interpreters.nisa_engine``'s loop runner calls the
function itself when the interpreter's registered implementation is such a wrapper."""


def direct_impl(op_type: type[Operation]) -> Callable[[Callable[..., Any]], Any]:
    """xDSL's ``@impl(op_type)``, its function recorded in :data:`DIRECT_IMPLS`."""

    def annot(func: Callable[..., Any]) -> Any:
        wrapper = impl(op_type)(func)
        DIRECT_IMPLS[wrapper] = func
        return wrapper

    return annot


def as_int(value: Any) -> int:
    """An index / integer SSA value (upstream represents them as IntegerAttr)."""
    if isinstance(value, IntegerAttr):
        return int(value.value.data)
    return int(value)


_INT_ATTRS: dict[tuple[int, Attribute, int], Any] = {}
_INT_ATTRS_MAX = 1 << 16
_BOOLS = (IntegerAttr.from_bool(False), IntegerAttr.from_bool(True))
_INDEX_TYPES = {32: IntegerType(32), 64: IntegerType(64)}


def int_attr(value: int, value_type: Attribute, bitwidth: Any) -> Any:
    """``scalar_attr(value, value_type, bitwidth)`` for an index or integer type: the
    same attribute (equal, same hash), memoized, and built without ``scalar_attr``'s
    verification when the value is new (:func:`_integer_attr`)."""
    key = (value, value_type, bitwidth)
    attr = _INT_ATTRS.get(key)
    if attr is None:
        if len(_INT_ATTRS) >= _INT_ATTRS_MAX:
            _INT_ATTRS.clear()
        attr = _INT_ATTRS[key] = _integer_attr(value, value_type, bitwidth)
    return attr


def _integer_attr(value: int, value_type: Attribute, bitwidth: Any) -> Any:
    """``scalar_attr``'s ``IntegerAttr(value, type, truncate_bits=True)`` (``index``
    becoming the signless integer of ``bitwidth``). A signless result is normalized here
    as ``IntegerType.normalized_value`` does (wrapped to ``bitwidth`` bits, the upper half
    read as negative), so the attribute is valid by construction and is assembled
    without ``__init__`` and its verifier: those cost ~20x the arithmetic (xDSL 0.75's
    ``IntegerAttr`` is a frozen dataclass of ``value: IntAttr`` and ``type``). Other
    types (``si`` / ``ui``) go through ``scalar_attr``."""
    if isinstance(value_type, IndexType):
        value_type = _INDEX_TYPES.get(bitwidth) or IntegerType(bitwidth)
    if not isinstance(value_type, IntegerType) or value_type.signedness.data != Signedness.SIGNLESS:
        return scalar_attr(value, value_type, bitwidth)
    width = value_type.width.data
    wrapped = value & ((1 << width) - 1)
    if wrapped >> (width - 1):
        wrapped -= 1 << width
    data = IntAttr.__new__(IntAttr)
    object.__setattr__(data, "data", wrapped)
    attr = IntegerAttr.__new__(IntegerAttr)
    object.__setattr__(attr, "value", data)
    object.__setattr__(attr, "type", value_type)
    return attr


def _bitwidth(interpreter: Interpreter, value_type: Attribute) -> int:
    if isinstance(value_type, IntegerType):
        return value_type.width.data
    return interpreter.index_bitwidth


def _operands(args: PythonValues) -> tuple[int, int]:
    return args[0].value.data, args[1].value.data


def _result_type(op: Operation) -> Attribute:
    """The type of the op's one result (unpacking ``op.results`` is several times
    cheaper than the ``op.result`` accessor)."""
    (result,) = op.results
    return result.type


def _signed_operands(interpreter: Interpreter, op: Operation, args: PythonValues):
    bitwidth = _bitwidth(interpreter, _result_type(op))
    return to_signed(args[0].value.data, bitwidth), to_signed(args[1].value.data, bitwidth)


def _truncated_quotient(op: Operation, lhs: int, rhs: int) -> int:
    """``lhs / rhs`` rounded toward zero (``divsi``)."""
    if rhs == 0:
        raise OpInterpretationError(op, f"{op.name}: division by zero")
    quotient = abs(lhs) // abs(rhs)
    return -quotient if (lhs > 0) != (rhs > 0) else quotient


_PREDICATES: dict[int, Callable[[int, int], bool]] = {
    0: lambda a, b: a == b,
    1: lambda a, b: a != b,
    2: lambda a, b: a < b,
    3: lambda a, b: a <= b,
    4: lambda a, b: a > b,
    5: lambda a, b: a >= b,
    6: lambda a, b: a < b,
    7: lambda a, b: a <= b,
    8: lambda a, b: a > b,
    9: lambda a, b: a >= b,
}
"""``arith.cmpi`` predicates: 0-5 compare as signed, 6-9 as unsigned."""


@register_impls
class IndexFunctions(InterpreterFunctions):
    """``arith`` integer ops on scalars (index and signless integers) as upstream xDSL
    runs them, results shared through :func:`int_attr`."""

    @direct_impl(arith.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: arith.ConstantOp, args: PythonValues):
        value = op.value
        interpreter.interpreter_assert(
            isinstance(value, IntegerAttr | FloatAttr),
            f"arith.constant not implemented for {type(value)}",
        )
        if isinstance(value, IntegerAttr) and isinstance(value.type, IndexType):
            return (int_attr(value.value.data, value.type, interpreter.index_bitwidth),)
        return (value,)

    @direct_impl(arith.AddiOp)
    def run_addi(self, interpreter: Interpreter, op: arith.AddiOp, args: PythonValues):
        lhs, rhs = _operands(args)
        return (int_attr(lhs + rhs, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.SubiOp)
    def run_subi(self, interpreter: Interpreter, op: arith.SubiOp, args: PythonValues):
        lhs, rhs = _operands(args)
        return (int_attr(lhs - rhs, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.MuliOp)
    def run_muli(self, interpreter: Interpreter, op: arith.MuliOp, args: PythonValues):
        lhs, rhs = _operands(args)
        return (int_attr(lhs * rhs, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.AndIOp)
    def run_andi(self, interpreter: Interpreter, op: arith.AndIOp, args: PythonValues):
        lhs, rhs = _operands(args)
        return (int_attr(lhs & rhs, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.OrIOp)
    def run_ori(self, interpreter: Interpreter, op: arith.OrIOp, args: PythonValues):
        lhs, rhs = _operands(args)
        return (int_attr(lhs | rhs, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.XOrIOp)
    def run_xori(self, interpreter: Interpreter, op: arith.XOrIOp, args: PythonValues):
        lhs, rhs = _operands(args)
        return (int_attr(lhs ^ rhs, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.ShLIOp)
    def run_shli(self, interpreter: Interpreter, op: arith.ShLIOp, args: PythonValues):
        lhs = to_signed(args[0].value.data, _bitwidth(interpreter, _result_type(op)))
        shift = args[1].value.data
        if shift < 0:
            raise OpInterpretationError(op, f"arith.shli by a negative amount ({shift})")
        return (int_attr(lhs << shift, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.ShRSIOp)
    def run_shrsi(self, interpreter: Interpreter, op: arith.ShRSIOp, args: PythonValues):
        lhs = to_signed(args[0].value.data, _bitwidth(interpreter, _result_type(op)))
        shift = args[1].value.data
        if shift < 0:
            raise OpInterpretationError(op, f"arith.shrsi by a negative amount ({shift})")
        return (int_attr(lhs >> shift, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.DivSIOp)
    def run_divsi(self, interpreter: Interpreter, op: arith.DivSIOp, args: PythonValues):
        lhs, rhs = _signed_operands(interpreter, op, args)
        quotient = _truncated_quotient(op, lhs, rhs)
        return (int_attr(quotient, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.RemSIOp)
    def run_remsi(self, interpreter: Interpreter, op: arith.RemSIOp, args: PythonValues):
        lhs, rhs = _signed_operands(interpreter, op, args)
        remainder = lhs - _truncated_quotient(op, lhs, rhs) * rhs
        return (int_attr(remainder, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.FloorDivSIOp)
    def run_floordivsi(self, interpreter: Interpreter, op: arith.FloorDivSIOp, args: PythonValues):
        lhs, rhs = _signed_operands(interpreter, op, args)
        if rhs == 0:
            raise OpInterpretationError(op, f"{op.name}: division by zero")
        return (int_attr(lhs // rhs, _result_type(op), interpreter.index_bitwidth),)

    @direct_impl(arith.CmpiOp)
    def run_cmpi(self, interpreter: Interpreter, op: arith.CmpiOp, args: PythonValues):
        predicate = op.predicate.value.data
        compare = _PREDICATES.get(predicate)
        if compare is None:
            raise OpInterpretationError(op, f"arith.cmpi predicate {predicate} is not modelled")
        bitwidth = _bitwidth(interpreter, op.lhs.type)
        interpret = to_unsigned if predicate >= 6 else to_signed
        lhs = interpret(args[0].value.data, bitwidth)
        rhs = interpret(args[1].value.data, bitwidth)
        return (_BOOLS[compare(lhs, rhs)],)
