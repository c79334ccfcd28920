"""Scalar integer / index ``arith`` ops with upstream xDSL's semantics, minus its per-op
attribute construction.

Upstream (``xdsl.interpreters.arith``) returns every integer result as a fresh
``IntegerAttr`` built and verified by ``scalar_attr``; in a loop body that construction
is most of an op's cost (``benchmarks/interpreter_dispatch.py``, ``docs/interpreter.md``
"Dispatch cost"). An ``IntegerAttr`` is immutable, so equal results can share one:
:func:`int_attr` memoizes ``scalar_attr`` and the ops here compute exactly what upstream
computes (same value, same result type: ``index`` becomes the ``i32`` / ``i64`` of the
interpreter's index bitwidth) and return the shared attribute. ``NisaFunctions``
inherits these (``mxdsl/interpreters/nisa.py``, which has its own ``addi`` / ``subi`` /
``muli`` likewise), so every program run by ``make_interpreter`` / ``mx-run`` gets them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.builtin import scalar_attr
from xdsl.ir import Attribute, Operation
from xdsl.utils.comparisons import to_signed, to_unsigned

from mxdsl.interpreters import OpInterpretationError

_INT_ATTRS: dict[tuple[int, Attribute, int], Any] = {}
_INT_ATTRS_MAX = 1 << 16
_BOOLS = (IntegerAttr.from_bool(False), IntegerAttr.from_bool(True))


def int_attr(value: int, value_type: Attribute, bitwidth: Any) -> Any:
    """``scalar_attr(value, value_type, bitwidth)`` (an index or integer), memoized."""
    key = (value, value_type, bitwidth)
    attr = _INT_ATTRS.get(key)
    if attr is None:
        if len(_INT_ATTRS) >= _INT_ATTRS_MAX:
            _INT_ATTRS.clear()
        attr = _INT_ATTRS[key] = scalar_attr(value, value_type, bitwidth)
    return attr


def _bitwidth(interpreter: Interpreter, value_type: Attribute) -> int:
    if isinstance(value_type, IntegerType):
        return value_type.width.data
    return interpreter.index_bitwidth


def _operands(args: PythonValues) -> tuple[int, int]:
    return args[0].value.data, args[1].value.data


def _signed_operands(interpreter: Interpreter, op: Operation, args: PythonValues):
    bitwidth = _bitwidth(interpreter, op.results[0].type)
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

    @impl(arith.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: arith.ConstantOp, args: PythonValues):
        value = op.value
        interpreter.interpreter_assert(
            isinstance(value, IntegerAttr | FloatAttr),
            f"arith.constant not implemented for {type(value)}",
        )
        if isinstance(value, IntegerAttr) and isinstance(value.type, IndexType):
            return (int_attr(value.value.data, value.type, interpreter.index_bitwidth),)
        return (value,)

    @impl(arith.AndIOp)
    def run_andi(self, interpreter: Interpreter, op: arith.AndIOp, args: PythonValues):
        lhs, rhs = _operands(args)
        return (int_attr(lhs & rhs, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.OrIOp)
    def run_ori(self, interpreter: Interpreter, op: arith.OrIOp, args: PythonValues):
        lhs, rhs = _operands(args)
        return (int_attr(lhs | rhs, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.XOrIOp)
    def run_xori(self, interpreter: Interpreter, op: arith.XOrIOp, args: PythonValues):
        lhs, rhs = _operands(args)
        return (int_attr(lhs ^ rhs, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.ShLIOp)
    def run_shli(self, interpreter: Interpreter, op: arith.ShLIOp, args: PythonValues):
        lhs = to_signed(args[0].value.data, _bitwidth(interpreter, op.result.type))
        shift = args[1].value.data
        if shift < 0:
            raise OpInterpretationError(op, f"arith.shli by a negative amount ({shift})")
        return (int_attr(lhs << shift, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.ShRSIOp)
    def run_shrsi(self, interpreter: Interpreter, op: arith.ShRSIOp, args: PythonValues):
        lhs = to_signed(args[0].value.data, _bitwidth(interpreter, op.result.type))
        shift = args[1].value.data
        if shift < 0:
            raise OpInterpretationError(op, f"arith.shrsi by a negative amount ({shift})")
        return (int_attr(lhs >> shift, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.DivSIOp)
    def run_divsi(self, interpreter: Interpreter, op: arith.DivSIOp, args: PythonValues):
        lhs, rhs = _signed_operands(interpreter, op, args)
        quotient = _truncated_quotient(op, lhs, rhs)
        return (int_attr(quotient, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.RemSIOp)
    def run_remsi(self, interpreter: Interpreter, op: arith.RemSIOp, args: PythonValues):
        lhs, rhs = _signed_operands(interpreter, op, args)
        remainder = lhs - _truncated_quotient(op, lhs, rhs) * rhs
        return (int_attr(remainder, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.FloorDivSIOp)
    def run_floordivsi(self, interpreter: Interpreter, op: arith.FloorDivSIOp, args: PythonValues):
        lhs, rhs = _signed_operands(interpreter, op, args)
        if rhs == 0:
            raise OpInterpretationError(op, f"{op.name}: division by zero")
        return (int_attr(lhs // rhs, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.CmpiOp)
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
