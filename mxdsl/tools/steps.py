"""A bound on interpretation: ``mx-run --max-steps N``.

A step is one op the interpreter runs (an op in a loop body counts once per iteration;
``func.call``, ``scf.for`` and the ops inside them each count), summed over all cores.
:class:`StepLimit` counts them as an interpreter listener: every op passes the
listeners before it runs, in xDSL's ``Interpreter._run_op`` and in the nisa loop engine
(``mxdsl.interpreters.nisa_engine``) alike, so no op escapes the count.

:func:`estimate_steps` is the up-front side: a lower bound of the steps of one call,
from the loops whose trip counts are constants (``scf.for`` over ``arith.constant``
bounds), the calls it makes and the ops that always run. A run whose estimate exceeds
the bound is refused before it starts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import FileLineColLoc, IntegerAttr, ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import SymbolTable

from mxdsl.interpreters import OpInterpretationError
from mxdsl.interpreters.spmd_processes import SharedCounts

DEFAULT_MAX_STEPS = 1_000_000_000
"""mx-run's default ``--max-steps``: 10^9 interpreted ops (hours of interpretation)."""

NOTE_STEPS = 10_000_000
"""An estimate above this many steps is announced before the run (a note on stderr)."""

LOOP_OPS = ("scf.for", "scf.while", "scf.parallel", "affine.for")


class StepLimitExceeded(OpInterpretationError):
    """The run reached ``--max-steps`` at ``op``."""


def where(op: Operation) -> str:
    """``f.mlir:3:5`` for an op with a source location, else ``''``."""
    location = op.location
    if isinstance(location, FileLineColLoc):
        return f"{location.filename.data}:{location.line.data}:{location.column.data}"
    return ""


def enclosing_loop(op: Operation) -> Operation | None:
    """The innermost loop op around ``op`` (in its function), or None."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp | ModuleOp):
        if parent.name in LOOP_OPS:
            return parent
        parent = parent.parent_op()
    return None


class StepLimit(Interpreter.Listener):
    """Ends the run at the op that would be step ``bound + 1``, counting every core's
    interpreter: the cores of one process share a counter (``itertools.count`` advances
    atomically), and cores in processes of their own (``mxdsl.interpreters.spmd_processes``)
    each publish their count in shared memory, where every op reads the others'."""

    spmd_process_safe = True

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._counts = SharedCounts()  # made before any fork: shared with the cores

    def will_interpret_op(self, op: Operation, args: tuple[Any, ...]) -> None:
        if self._counts.step() > self.bound:
            raise StepLimitExceeded(op, self.message(op))

    def message(self, op: Operation) -> str:
        loop = enclosing_loop(op)
        inside = ""
        if loop is not None:
            at = where(loop)
            inside = f" inside the {loop.name}" + (f" at {at}" if at else "")
        return (
            f"--max-steps {self.bound}: the run has interpreted {self.bound} ops (all "
            f"cores together) and stops at this one{inside}; a loop that does not end, "
            "or a longer run than the bound allows: raise --max-steps, or 0 for no limit"
        )


@dataclass(frozen=True)
class StepEstimate:
    """A lower bound of the ops one call interprets, and the constant loop that weighs
    most in it (with its trip count), if any."""

    steps: int
    loop: Operation | None = None
    trips: int = 0
    loop_steps: int = 0


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def trip_count(op: scf.ForOp) -> int | None:
    """The iterations of an ``scf.for`` whose bounds and step are constants, else None."""
    lb, ub, step = _constant(op.lb), _constant(op.ub), _constant(op.step)
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


class _Estimator:
    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        self.calling: set[Operation] = set()
        self.calls: dict[Operation, int] = {}  # a callee's steps, once worked out
        self.heaviest = StepEstimate(0)

    def region(self, region: Region) -> int:
        return self.block(region.blocks.first) if region.blocks.first is not None else 0

    def block(self, block: Block) -> int:
        return sum(self.op(op) for op in block.ops)

    def op(self, op: Operation) -> int:
        if isinstance(op, scf.ForOp):
            trips = trip_count(op)
            if trips is None:
                return 1
            body = trips * self.region(op.body)
            if body > self.heaviest.loop_steps:
                self.heaviest = StepEstimate(0, op, trips, body)
            return 1 + body
        if isinstance(op, scf.WhileOp):
            return 1 + self.region(op.before_region)  # the condition runs at least once
        if isinstance(op, scf.IfOp):
            branches = [self.region(r) for r in op.regions if r.blocks]
            return 1 + (min(branches) if len(branches) == 2 else 0)
        if isinstance(op, func.CallOp):
            return 1 + self.call(op)
        return 1

    def call(self, op: func.CallOp) -> int:
        callee = SymbolTable.lookup_symbol(self.module, op.callee)
        if not isinstance(callee, func.FuncOp) or callee in self.calling:
            return 0
        if (known := self.calls.get(callee)) is not None:
            return known
        self.calling.add(callee)
        try:
            steps = self.calls[callee] = self.region(callee.body)
        finally:
            self.calling.discard(callee)
        return steps


def estimate_steps(module: ModuleOp, function: Operation) -> StepEstimate:
    """A lower bound of the ops one call of ``function`` interprets (see the module
    docstring), and its heaviest constant loop."""
    estimator = _Estimator(module)
    regions: Iterable[Region] = function.regions
    steps = sum(estimator.region(region) for region in regions)
    heaviest = estimator.heaviest
    return StepEstimate(steps, heaviest.loop, heaviest.trips, heaviest.loop_steps)


__all__ = [
    "DEFAULT_MAX_STEPS",
    "NOTE_STEPS",
    "StepEstimate",
    "StepLimit",
    "StepLimitExceeded",
    "enclosing_loop",
    "estimate_steps",
    "trip_count",
]
