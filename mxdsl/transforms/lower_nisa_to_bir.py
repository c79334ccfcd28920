"""``lower-nisa-to-bir``: a nisa kernel becomes a bir kernel (``docs/lowering.md``).

The function keeps its name, arguments and results (HBM tensors in, HBM tensors out), so
``mx-run`` runs the nisa and the bir kernel with the same inputs and writes the same
outputs. The pass is the pipeline of its two halves, kernel by kernel:

* ``nisa-allocate`` (:mod:`mxdsl.transforms.nisa_to_bir.allocate`): every on-chip buffer
  gets its SBUF / PSUM address;
* ``nisa-select`` (:mod:`mxdsl.transforms.nisa_to_bir.select`): every nisa op becomes
  bir instructions over access patterns.

HBM tensors stay SSA values: function arguments and ``memref.alloc`` in hbm. The
``memref.cast`` between ``ui32`` and x4 that lower-hlo-to-nisa puts at the boundary
disappears (a pattern's dtype code says how a tensor's bytes are read); an x4 HBM buffer
returned as ``ui32`` is allocated as ``ui32``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TextIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from mxdsl.targets import DEFAULT_TARGET, Target, current_target, get_target
from mxdsl.transforms.nisa_to_bir.allocate import (
    ALIGNMENT,
    Allocation,
    allocate,
    allocate_module,
    peak_usage,
    usage_line,
)
from mxdsl.transforms.nisa_to_bir.patterns import PASS_NAME
from mxdsl.transforms.nisa_to_bir.patterns import split_inner as _split_inner  # noqa: F401 (its old name)
from mxdsl.transforms.nisa_to_bir.select import check_selections, select_kernel, selection_table


@dataclass(frozen=True)
class LowerNisaToBirPass(ModulePass):
    """Lower every nisa kernel (a ``func.func`` with nisa ops or on-chip buffers) to bir:
    allocate SBUF / PSUM within ``target``'s capacities (``mxdsl.targets``) and select bir
    instructions, i.e. ``nisa-allocate`` then ``nisa-select`` kernel by kernel.
    ``print-usage`` writes each kernel's peak bytes per partition to stderr."""

    name = PASS_NAME

    target: str | None = None
    """``trn3`` / ``trn2``; unset: the tool's ``--target`` (:func:`current_target`)."""
    print_usage: bool = False

    def __post_init__(self) -> None:
        if self.target is not None:
            get_target(self.target)  # an unknown name is refused when the pipeline is built

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        """The option's target wins over the tool's ``--target``."""
        target = current_target() if self.target is None else get_target(self.target)
        lower_nisa_to_bir(op, target, sys.stderr if self.print_usage else None)


def lower_nisa_to_bir(
    module: ModuleOp, target: Target = DEFAULT_TARGET, usage: TextIO | None = None
) -> dict[Operation, Operation]:
    """Run the pass on ``module`` in place: ``nisa-allocate`` then ``nisa-select`` on each
    kernel in turn; returns each lowered nisa op's bir instruction (the last piece of a
    split DMA), e.g. to follow ops a tool watches. ``usage``: where to write each
    kernel's peak usage (:func:`usage_line`)."""
    check_selections(selection_table())
    replacements: dict[Operation, Operation] = {}
    for function, allocator in allocate_module(module, target):
        replacements.update(select_kernel(function, target))
        if usage is not None:
            print(usage_line(function, allocator), file=usage)
    return replacements


__all__ = [
    "ALIGNMENT",
    "PASS_NAME",
    "Allocation",
    "LowerNisaToBirPass",
    "allocate",
    "lower_nisa_to_bir",
    "peak_usage",
    "usage_line",
]
