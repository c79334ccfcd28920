"""The lowering of ``ExtScaleAdd`` to nisa, registered on the ``mxdsl.lowerings`` entry
point (``docs/extending.md``, "A lowering").

``x * scale + y`` is one Vector-engine instruction per tile:
``nisa.scalar_tensor_tensor %dst, %x, multiply %scale, add %y`` (f32 arithmetic, rounded
once to the destination), over [128-partition, free] tiles of the result with the
operands DMAed in and the result DMAed out. mxdsl's elementwise family does the tiling
(:func:`mxdsl.transforms.hlo_to_nisa.elementwise.elementwise`); this module supplies the per-tile
instruction. ``lower-nisa-to-bir`` selects ``bir.scalar_tensor_tensor`` for it with no
help from this package (it is a nisa op mxdsl knows).
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from mxdsl.dialects import nisa
from mxdsl.dialects.hlo import CustomCallOp
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa import FunctionLowering
from mxdsl.transforms.hlo_to_nisa.elementwise import elementwise
from mxdsl_ext_example.contract import SCALE_ADD, read_scale


def lower_scale_add(lowering: FunctionLowering, op: CustomCallOp) -> None:
    """``z = x * scale + y``, tile by tile."""
    scale = lowering.builder.f32(read_scale(op.backend_config.data))
    x, y = op.inputs

    def compute(dst: SSAValue, tiles: list[SSAValue]) -> None:
        x_tile, y_tile = tiles
        lowering.builder.emit(
            nisa.ScalarTensorTensorOp(
                dst, x_tile, nisa.AluOp.MULTIPLY, scale, nisa.AluOp.ADD, y_tile
            )
        )

    elementwise(lowering, op.result, [x, y], compute)


def register(lowerings: Lowerings) -> None:
    """The ``mxdsl.lowerings`` entry point: what this package lowers."""
    lowerings.custom_call(SCALE_ADD, lower_scale_add)
