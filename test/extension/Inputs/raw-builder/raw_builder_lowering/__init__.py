"""A lowering extension that builds its ops with xDSL's own ``Builder`` instead of
``lowering.builder`` (installed for test/extension/locations.mlir by putting this
directory, with its ``.dist-info``, on ``PYTHONPATH``): the ops it inserts carry no
location of their own, and lower-hlo-to-nisa gives them the location of the call they
lower."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.rewriter import InsertPoint

from mxdsl.dialects import nisa
from mxdsl.dialects.hlo import CustomCallOp
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa import FunctionLowering


def lower_raw_copy(lowering: FunctionLowering, op: CustomCallOp) -> None:
    """``y = x``: a new HBM buffer and one DMA into it, both built by a plain Builder."""
    source = lowering.value(op.inputs[0])
    assert isinstance(source.type, MemRefType)
    builder = Builder(InsertPoint.at_end(lowering.builder.entry))
    buffer = builder.insert(
        memref.AllocOp.get(
            source.type.element_type, shape=source.type.shape, memory_space=source.type.memory_space
        )
    )
    builder.insert(nisa.DmaCopyOp(buffer.memref, source))
    lowering.bind(op.result, buffer.memref)


def register(lowerings: Lowerings) -> None:
    lowerings.custom_call("RawCopy", lower_raw_copy)
