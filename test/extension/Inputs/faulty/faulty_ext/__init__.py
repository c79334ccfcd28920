"""A deliberately buggy extension, installed for test/extension/faults.mlir by putting
this directory (with its ``.dist-info``) on ``PYTHONPATH``: its pass, verifier, contract
and interpreter function each raise a plain Python exception, which the tools must report
as this extension's, not as mxdsl's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def
from xdsl.passes import ModulePass
from xdsl.universe import Universe

from mxdsl.contract import CustomCallSignature


@irdl_op_definition
class FaultyOp(IRDLOperation):
    """``faulty.op {mode = "..."}``: its verifier divides by zero when mode is verify."""

    name = "faulty.op"
    mode = prop_def(StringAttr)
    assembly_format = "$mode attr-dict"

    def verify_(self) -> None:
        if self.mode.data == "verify":
            _ = 1 // 0


@dataclass(frozen=True)
class CrashPass(ModulePass):
    name = "faulty-crash"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise KeyError("a key the pass forgot")


@register_impls
class FaultyFunctions(InterpreterFunctions):
    @impl(FaultyOp)
    def run_faulty(
        self, interpreter: Interpreter, op: FaultyOp, args: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        raise ValueError(f"mode {op.mode.data!r} is not implemented")


def check_faulty(call: CustomCallSignature) -> None:
    _ = call.operand_types[5]


UNIVERSE = Universe(
    all_dialects={"faulty": lambda: Dialect("faulty", [FaultyOp], [])},
    all_passes={"faulty-crash": lambda: CrashPass},
)
