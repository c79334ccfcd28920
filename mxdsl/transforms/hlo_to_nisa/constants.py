"""Constants: the MX metadata constants disappear; dense literals become constant
``memref.global`` s in HBM; StableHLO splats are memsets where they are used."""

from __future__ import annotations

import itertools

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
)
from xdsl.rewriter import InsertPoint, Rewriter

from mxdsl.builder import element_type_of
from mxdsl.contract.mx import (
    QUANTIZE_MX_TARGETS,
    SCALED_MATMUL_TARGETS,
)
from mxdsl.dialects import stablehlo as shlo
from mxdsl.dialects.hlo import ConstantOp, CustomCallOp
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa.common import (
    Refusal,
    Splat,
    buffer_element,
    hbm_type,
)
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering


def lower_constant(lowering: FunctionLowering, op: ConstantOp | shlo.ConstantOp) -> None:
    """Metadata constants disappear; a dense tensor literal becomes a constant
    ``memref.global`` in hbm (next to the function) read with ``memref.get_global``."""
    data_uses = [
        use
        for use in op.output.uses
        if not (
            isinstance(use.operation, CustomCallOp)
            and (
                (use.operation.target in QUANTIZE_MX_TARGETS and use.index == 0)
                or (use.operation.target in SCALED_MATMUL_TARGETS and use.index == 4)
            )
        )
    ]
    if not data_uses:
        lowering.values[op.output] = ()
        return
    literal = op.value
    t = op.output.type
    if not isinstance(literal, DenseIntOrFPElementsAttr) or not isinstance(t, TensorType):
        raise Refusal(
            "only dense tensor literals and the metadata constants of QuantizeMX_* / "
            "ScaledMatmul_* are lowered; pass other constants as function arguments"
        )
    hbm = hbm_type(t)  # pyright: ignore[reportUnknownArgumentType]
    module = lowering.function.parent_op()
    assert module is not None
    taken = {o.sym_name.data for o in module.walk() if isinstance(o, memref.GlobalOp | func.FuncOp)}
    base = f"{lowering.function.sym_name.data}_{op.output.name_hint or 'const'}"
    name = next(n for i in itertools.count() if (n := f"{base}{i or ''}") not in taken)
    glob = memref.GlobalOp.get(StringAttr(name), hbm, literal, constant=UnitAttr())
    glob.location = op.location
    Rewriter.insert_op(glob, InsertPoint.before(lowering.function))
    read = lowering.builder.emit(memref.GetGlobalOp(name, hbm))
    read.results[0].name_hint = op.output.name_hint
    lowering.values[op.output] = read.results[0]


def lower_stablehlo_constant(lowering: FunctionLowering, op: shlo.ConstantOp) -> None:
    literal = op.value
    values = literal.get_values()
    element = element_type_of(op.output)
    if len(set(values)) == 1 and values:
        value = values[0]
        if element == i1:
            value = 1 if value else 0
        lowering.splats[op.output] = Splat(value, buffer_element(element))
        return
    lower_constant(lowering, op)


def register(lowerings: Lowerings) -> None:
    lowerings.op(ConstantOp, lower_constant)
    lowerings.op(shlo.ConstantOp, lower_stablehlo_constant)
