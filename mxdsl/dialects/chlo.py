"""The ``chlo`` subset JAX writes for whole layers (``docs/stablehlo.md``).

JAX writes ``jax.scipy.special.erf`` / ``erfc`` (and so exact GELU,
``jax.nn.gelu(x, approximate=False)``) and ``jnp.square`` (LayerNorm's variance) as CHLO
ops, which XLA expands later::

    %5 = chlo.erfc %4 : tensor<4x8xf32> -> tensor<4x8xf32>

mxdsl defines these three with MLIR's syntax; other ``chlo`` ops are not registered (the
parser names the op it does not know). They run in the stablehlo interpreter.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, TensorType
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


class _FloatUnaryOp(IRDLOperation):
    """``chlo.<op> %x : tensor<..xF> -> tensor<..xF>``: elementwise on a float tensor."""

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"

    def __init__(self, operand: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[operand], result_types=[result_type or operand.type])

    def verify_(self) -> None:
        if self.operand.type != self.result.type:
            raise VerifyException(
                f"operand {self.operand.type} and result {self.result.type} must have one type"
            )
        t = self.operand.type
        assert isinstance(t, TensorType)
        if not isinstance(t.get_element_type(), AnyFloat):
            raise VerifyException(f"expects a float tensor, got {t}")


@irdl_op_definition
class ErfOp(_FloatUnaryOp):
    """The error function, ``2/sqrt(pi) * integral_0^x e^(-t^2) dt``."""

    name = "chlo.erf"


@irdl_op_definition
class ErfcOp(_FloatUnaryOp):
    """The complementary error function, ``1 - erf(x)``."""

    name = "chlo.erfc"


@irdl_op_definition
class SquareOp(_FloatUnaryOp):
    """``x * x`` (``jnp.square``), rounded once."""

    name = "chlo.square"


Chlo = Dialect("chlo", [ErfOp, ErfcOp, SquareOp], [])
