"""StableHLO's elementwise functions (``exponential``, ``log``, ``logistic``, ``tanh``,
``sqrt``, ``rsqrt``, ``exponential_minus_one``, ``log_plus_one``, ``power`` by a constant
integer, ``chlo.erf`` / ``chlo.erfc`` / ``chlo.square``) onto the engines.

A function goes onto ``nisa.activation`` where the Scalar engine's function is the
StableHLO op's interpretation: both evaluate :mod:`mxdsl.numerics.elementary`'s float64
function of the exactly widened input and round once to the element type, so the
stablehlo, nisa and bir levels give the same bits (``docs/lowering.md``, "Elementwise
functions"). ``power`` by a constant integer runs on the Vector engine's ALU ``power``
(the same function, computed in f32) for f32, and as the activation ``square`` for
exponent 2 of any float type; bf16 / f16 powers by other exponents would be rounded twice
there and are refused. Each op runs over the [128-partition, free] tiles of
:func:`mxdsl.transforms.hlo_to_nisa.elementwise.elementwise`."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Operation, SSAValue

from mxdsl.builder import element_type_of
from mxdsl.dialects import chlo, nisa
from mxdsl.dialects import stablehlo as shlo
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa.common import Refusal, Splat, element_kind
from mxdsl.transforms.hlo_to_nisa.elementwise import alu_op, elementwise
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering

Act = nisa.ActivationFunction

ACTIVATION_OF: dict[type[Operation], nisa.ActivationFunction] = {
    shlo.ExpOp: Act.EXP,
    shlo.ExpM1Op: Act.EXPM1,
    shlo.LogOp: Act.LOG,
    shlo.Log1pOp: Act.LOG1P,
    shlo.LogisticOp: Act.SIGMOID,
    shlo.TanhOp: Act.TANH,
    shlo.SqrtOp: Act.SQRT,
    shlo.RsqrtOp: Act.RSQRT,
    chlo.ErfOp: Act.ERF,
    chlo.ErfcOp: Act.ERFC,
    chlo.SquareOp: Act.SQUARE,
}
"""Each function op and the activation function that is its interpretation."""


def _float_only(op: Operation) -> None:
    element = element_type_of(op.results[0])
    if element_kind(element) != "float":
        raise Refusal(
            f"{op.name} on {element}: lowered on f32, bf16 and f16 (the Scalar engine reads "
            "them exactly as f32 and rounds its float64 function once to the result type)"
        )


def activate(
    lowering: FunctionLowering, function: nisa.ActivationFunction
) -> Callable[[SSAValue, list[SSAValue]], None]:
    """The tile compute of one activation: ``dst = function(src)``."""

    def compute(dst: SSAValue, tiles: list[SSAValue]) -> None:
        lowering.builder.emit(nisa.ActivationOp(dst, function, tiles[0]))

    return compute


def lower_activation(lowering: FunctionLowering, op: Operation) -> None:
    _float_only(op)
    function = ACTIVATION_OF[type(op)]
    elementwise(lowering, op.results[0], [op.operands[0]], activate(lowering, function))


def lower_power(lowering: FunctionLowering, op: Operation) -> None:
    """``power(x, n)`` for a constant integer ``n``: ``square`` for n = 2, else the ALU's
    ``power`` with an f32 tile of ``n`` (f32 results only)."""
    _float_only(op)
    x, n = op.operands
    result = op.results[0]
    exponent = lowering.splats.get(n) if n not in lowering.values else None
    value = float(exponent.value) if exponent is not None else None
    if value is None or not value.is_integer():
        raise Refusal(
            "stablehlo.power: lowered for a constant integer exponent (a splat); "
            "a tensor or fractional exponent has no lowering here"
        )
    element = element_type_of(result)
    if value == 2.0:
        elementwise(lowering, result, [x], activate(lowering, Act.SQUARE))
        return
    if not isinstance(element, Float32Type):
        raise Refusal(
            f"stablehlo.power by {int(value)} on {element}: lowered on f32 (and by 2 on "
            "any float); the ALU computes the power in f32, which a narrower result would "
            "round a second time: convert to f32 first"
        )
    elementwise(
        lowering,
        result,
        [x, Splat(value, element)],
        alu_op(lowering, nisa.AluOp.POWER),
    )


def register(lowerings: Lowerings) -> None:
    for op_type in ACTIVATION_OF:
        lowerings.op(op_type, lower_activation)
    lowerings.op(shlo.PowOp, lower_power)
