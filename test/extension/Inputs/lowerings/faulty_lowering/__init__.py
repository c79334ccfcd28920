"""A deliberately buggy lowering extension, installed for
test/extension/lowering-faults.mlir by putting this directory (with its ``.dist-info``) on
``PYTHONPATH``: the lowering of ``FaultyRaise`` raises a plain Python exception, the one
of ``FaultyInvalid`` emits a ``nisa.tensor_copy`` between tiles of different partition
counts, which the nisa verifier refuses. Both must be reported at the call as this
extension's fault (exit 1), not as an mxdsl internal error."""

from __future__ import annotations

from xdsl.dialects.builtin import f32

from mxdsl.dialects import nisa
from mxdsl.dialects.hlo import CustomCallOp
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa import FunctionLowering


def lower_raising(lowering: FunctionLowering, op: CustomCallOp) -> None:
    table: dict[str, int] = {}
    lowering.bind(op.result, lowering.value(op.inputs[0]))
    _ = table["the tile size it forgot"]


def lower_invalid(lowering: FunctionLowering, op: CustomCallOp) -> None:
    e = lowering.builder
    src = e.alloc([4, 8], f32, nisa.MemorySpace.SBUF, "src")
    dst = e.alloc([2, 8], f32, nisa.MemorySpace.SBUF, "dst")
    e.emit(nisa.TensorCopyOp(dst, src))
    lowering.bind(op.result, lowering.value(op.inputs[0]))


def register(lowerings: Lowerings) -> None:
    lowerings.custom_call("FaultyRaise", lower_raising)
    lowerings.custom_call("FaultyInvalid", lower_invalid)
