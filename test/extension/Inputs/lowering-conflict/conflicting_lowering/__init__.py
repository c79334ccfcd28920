"""An extension that registers a lowering for ``hlo.dot_general``, which mxdsl already
lowers, without saying it overrides: lower-hlo-to-nisa refuses to run, naming both
(test/extension/lowering-faults.mlir)."""

from __future__ import annotations

from xdsl.ir import Operation

from mxdsl.dialects.hlo import DotGeneralOp
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa import FunctionLowering


def lower_dot(lowering: FunctionLowering, op: Operation) -> None:
    raise NotImplementedError


def register(lowerings: Lowerings) -> None:
    lowerings.op(DotGeneralOp, lower_dot)
