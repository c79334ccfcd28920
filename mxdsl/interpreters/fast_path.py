"""The interpreters' fast path: its switch, and the write tracking its caches rely on.

**The switch.** The nisa and bir interpreters have a speed layer: loop plans, matmul
operand analyses kept across ops, matmul passes queued and run as one batch. The
reference mode (``mx-run --no-fast-path``, ``mx-moe run --no-fast-path``, or the
environment variable :data:`NO_FAST_PATH_ENV` set to ``1``) runs every op one at a time
through the interpreter with none of it: the definition the fast path must equal, bit
for bit (``docs/interpreter.md``, "The fast path and the reference mode").

**Write tracking.** Whatever the fast path derives from a buffer's contents is valid
until the next write to that buffer or to anything aliasing it. A :class:`WriteTracker`
is told of every op before it runs — xDSL's interpreter tells its listeners, and the
nisa loop runner tells them too — in any function, at any loop depth, whatever runs it,
and drops what was derived from each buffer the op may write (:func:`written_operands`):
the op's declared write effects where each names an operand, and everything for an op
whose writes are unknown (an extension's op, say). There is no path on which ops run
unseen.
"""

from __future__ import annotations

import os
from typing import Any, Protocol

import numpy as np
from xdsl.dialects import cf, func, scf
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues
from xdsl.ir import Operation, SSAValue
from xdsl.traits import MemoryEffectKind, SymbolTable, get_effects

NO_FAST_PATH_ENV = "MXDSL_NO_FAST_PATH"
"""Set to ``1`` to run every interpreter in the reference mode (``0`` or empty: the
fast path, the default); any other value is refused by the tools."""


def fast_path_default() -> bool:
    """Whether the fast path is on unless a caller says otherwise: off when
    :data:`NO_FAST_PATH_ENV` is ``1``."""
    return os.environ.get(NO_FAST_PATH_ENV, "").strip() != "1"


def fast_path_option(no_fast_path: bool) -> bool:
    """A tool's fast-path setting: off with its ``--no-fast-path`` flag or
    :data:`NO_FAST_PATH_ENV` = ``1``. Raises ``ValueError`` (one line naming the variable)
    for a value of the variable other than empty, ``0`` or ``1``."""
    value = os.environ.get(NO_FAST_PATH_ENV, "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(
            f"{NO_FAST_PATH_ENV}={value!r} is not 0 or 1: set it to 1 for the reference "
            "mode, or unset it"
        )
    return not no_fast_path and value != "1"


class _Key(InterpreterFunctions):
    """The key of this module's data on an interpreter (``Interpreter.get_data``)."""


def set_fast_path(interpreter: Interpreter, enabled: bool) -> None:
    """Run ``interpreter`` with (``enabled``) or without its fast path."""
    interpreter.set_data(_Key, "fast_path", enabled)


def fast_path(interpreter: Interpreter) -> bool:
    """Whether ``interpreter`` runs its fast path (:func:`fast_path_default` unless set)."""
    return interpreter.get_data(_Key, "fast_path", fast_path_default)


class Derived(Protocol):
    """What a fast path keeps of buffer contents: ``drop`` forgets what was derived
    from the memory ``array`` views, ``clear`` forgets everything; false when empty."""

    def __bool__(self) -> bool: ...

    def drop(self, array: np.ndarray) -> None: ...

    def clear(self) -> None: ...


class WriteTracker(Interpreter.Listener):
    """Drops what the registered caches (:meth:`register`) derived from a buffer before
    any op that may write it runs (a listener: see the module docstring)."""

    spmd_process_safe = True  # one per interpreter: a core's own

    def __init__(self) -> None:
        self.caches: list[Derived] = []
        self._written: dict[Operation, tuple[int, ...] | None] = {}

    def register(self, cache: Derived) -> None:
        self.caches.append(cache)

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        if not any(self.caches):
            return
        written = self._written.get(op, _UNSEEN)
        if written is _UNSEEN:
            written = self._written[op] = written_operands(op)
        self.before_write(written, args)

    def before_write(self, written: tuple[int, ...] | None, args: PythonValues) -> None:
        """Forget what was derived from the operands ``written`` (their positions in
        ``args``) may write: from everything when ``written`` is ``None``."""
        for cache in self.caches:
            if not cache:
                continue
            if written is None:
                cache.clear()
                continue
            for position in written:
                value = args[position]
                if isinstance(value, np.ndarray):
                    cache.drop(value)


_UNSEEN: Any = object()


def write_tracker(interpreter: Interpreter) -> WriteTracker:
    """The interpreter's :class:`WriteTracker`, installed as its first listener on first
    use (so an interpreter built by hand is tracked too)."""

    def install() -> WriteTracker:
        tracker = WriteTracker()
        interpreter.listeners = (tracker, *interpreter.listeners)
        return tracker

    return interpreter.get_data(_Key, "writes", install)


_CONTROL_FLOW = (
    scf.ForOp,
    scf.IfOp,
    scf.WhileOp,
    scf.YieldOp,
    scf.ConditionOp,
    scf.IndexSwitchOp,
    func.ReturnOp,
    cf.BranchOp,
    cf.ConditionalBranchOp,
)
"""Ops that only move control and values: what their regions run is seen op by op."""

_NOT_WRITES = frozenset((MemoryEffectKind.READ, MemoryEffectKind.ALLOC, MemoryEffectKind.FREE))

_DESTINATIONS = ("dst", "dst_scale")
"""Until the nisa ops declare their effects per operand: the operands a nisa op writes
(and ``core_barrier``'s ``data``, the tensor it exchanges)."""


def written_operands(op: Operation) -> tuple[int, ...] | None:
    """The positions of the operands running ``op`` may write, ``()`` for none, ``None``
    when it may write anything: control flow writes nothing itself (a call's callee
    runs op by op; a call to an external function may write anything); otherwise the
    write effects ``op`` declares, each on one of its operands, else anything."""
    if isinstance(op, _CONTROL_FLOW):
        return ()
    if isinstance(op, func.CallOp):
        callee = SymbolTable.lookup_symbol(op, op.callee)
        if isinstance(callee, func.FuncOp) and not callee.is_declaration:
            return ()
        return None
    effects = get_effects(op)
    if effects is None:
        return None
    writes = [e for e in effects if e.kind not in _NOT_WRITES]
    if all(isinstance(e.value, SSAValue) for e in writes):
        values = {e.value for e in writes}
        return tuple(i for i, operand in enumerate(op.operands) if operand in values)
    if op.name.startswith("nisa."):
        return _nisa_destinations(op)
    return None


def declared_accesses(op: Operation) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The positions of the operands ``op`` itself reads and of those it writes, from
    the memory effects it declares (``OperandEffects`` on the nisa ops, as MLIR's
    memref ops declare theirs): ``((), ())`` for an op without memory effects (a view,
    index arithmetic); ``None`` when they are unknown: no effects declared (an
    extension's op that declares none is taken as reading and writing anything), an
    effect on memory that is not an operand, an op whose regions or callee run other
    ops. Allocation is no access (the buffer is new); freeing is a write."""
    if op.regions or isinstance(op, func.CallOp):
        return None
    effects = get_effects(op)
    if effects is None:
        return None
    read: set[SSAValue] = set()
    written: set[SSAValue] = set()
    for effect in effects:
        if effect.kind == MemoryEffectKind.ALLOC:
            continue
        if not isinstance(effect.value, SSAValue) or effect.value not in op.operands:
            return None
        (read if effect.kind == MemoryEffectKind.READ else written).add(effect.value)
    operands = op.operands
    return (
        tuple(i for i, value in enumerate(operands) if value in read),
        tuple(i for i, value in enumerate(operands) if value in written),
    )


def _nisa_destinations(op: Operation) -> tuple[int, ...]:
    names = ("data",) if op.name == "nisa.core_barrier" else _DESTINATIONS
    values = {v for v in (getattr(op, name, None) for name in names) if isinstance(v, SSAValue)}
    return tuple(i for i, operand in enumerate(op.operands) if operand in values)


__all__ = [
    "NO_FAST_PATH_ENV",
    "WriteTracker",
    "declared_accesses",
    "fast_path",
    "fast_path_default",
    "fast_path_option",
    "set_fast_path",
    "write_tracker",
    "written_operands",
]
