"""The ``ext`` dialect: two elementwise ops on float tensors.

* ``ext.scale %x, k : tensor<...>`` is ``x * 2^k``, computed exactly and rounded once to
  the element type (so it overflows to inf or underflows to subnormals/zero only as
  that rounding does); ``-64 <= k <= 64``.
* ``ext.clamp %x, lo, hi : tensor<...>`` is ``min(max(x, lo), hi)`` with ``lo`` and ``hi``
  rounded to the element type first; NaN stays NaN; ``lo <= hi``.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

MAX_EXPONENT = 64
"""The largest ``|k|`` of ``ext.scale`` (beyond it every float format over- or
underflows anyway)."""


def _check_float_tensor(op: IRDLOperation, value: SSAValue) -> TensorType:
    value_type = value.type
    if not isinstance(value_type, TensorType) or not isinstance(
        value_type.get_element_type(), AnyFloat
    ):
        raise VerifyException(f"operand is {value_type}, not a tensor of floats")
    if value_type != op.results[0].type:
        raise VerifyException(
            f"result type {op.results[0].type} differs from the operand type {value_type}"
        )
    return value_type


@irdl_op_definition
class ScaleOp(IRDLOperation):
    """``x * 2^exponent``, exact, rounded once to the element type; ``|exponent| <= 64``."""

    name = "ext.scale"
    input = operand_def(TensorType)
    exponent = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $exponent attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, exponent: int):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={"exponent": IntegerAttr(exponent, 64)},
        )

    def verify_(self) -> None:
        _check_float_tensor(self, self.input)
        k = self.exponent.value.data
        if abs(k) > MAX_EXPONENT:
            raise VerifyException(
                f"exponent {k} is outside [-{MAX_EXPONENT}, {MAX_EXPONENT}]; split the "
                "scaling, or it over- or underflows every float format"
            )


@irdl_op_definition
class ClampOp(IRDLOperation):
    """``min(max(x, lo), hi)``, ``lo`` and ``hi`` rounded to the element type; NaN stays
    NaN; ``lo <= hi``."""

    name = "ext.clamp"
    input = operand_def(TensorType)
    lo = prop_def(FloatAttr[Float64Type])
    hi = prop_def(FloatAttr[Float64Type])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $lo `,` $hi attr-dict `:` type($input) `->` type($result)"

    _FLOAT: ClassVar = Float64Type()

    def __init__(self, input: SSAValue, lo: float, hi: float):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={"lo": FloatAttr(lo, self._FLOAT), "hi": FloatAttr(hi, self._FLOAT)},
        )

    def verify_(self) -> None:
        _check_float_tensor(self, self.input)
        lo, hi = self.lo.value.data, self.hi.value.data
        if not lo <= hi:
            raise VerifyException(f"lo = {lo} is greater than hi = {hi} (or one is NaN)")


Ext = Dialect("ext", [ScaleOp, ClampOp], [])
