"""The nisa interpreter's loop engine: the speed layer under its op semantics.

:mod:`mxdsl.interpreters.nisa` states what each op computes; this module makes running
the kernels fast without changing a bit (``docs/interpreter.md``, "The fast path and
the reference mode"). On the fast path only:

* **Loop plans.** An ``scf.for`` body of one block is worked out once
  (:class:`_LoopPlan`): its values numbered into a frame, each op's operand slots and
  implementation looked up once, so an iteration reads operands from a list instead of
  the interpreter's scope chain (:func:`_run_loop_body`, which tells the interpreter's
  listeners of every op as xDSL's own loop does).
* **Operand analyses.** The PE operands of the tiles a matmul reads are kept per buffer
  (:class:`_Analyses`) until a write to that buffer; the write tracker
  (:mod:`mxdsl.interpreters.fast_path`) drops them before any op that may write it.
* **Matmul queueing.** In a loop body holding matmuls the PE passes are queued and run
  as batches sharing their moving operand, at the end of each iteration and before
  any op that may disturb them. Which ops those are is read from the memory effects
  each op declares per operand (:func:`waits_for_queued_passes`); an op that declares
  none (an extension's, say) is taken as writing everything.
* **Plans per op.** Subview indices and an op's static part (:meth:`LoopEngine.op_plan`)
  are worked out once.

What this needs of xDSL's interpreter internals goes through
:mod:`mxdsl.interpreters.xdsl_adapter`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

import numpy as np
from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.interpreter import Interpreter, PythonValues, ReturnedValues, TerminatorValue
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import InterpretationError
from xdsl.utils.scoped_dict import ScopedDict

from mxdsl.dialects import nisa
from mxdsl.interpreters import round_to
from mxdsl.interpreters.engines import F32, to_f32
from mxdsl.interpreters.engines import as_f64 as _as_f64
from mxdsl.interpreters.fast_path import declared_accesses, fast_path, write_tracker
from mxdsl.interpreters.index import DIRECT_IMPLS, as_int, int_attr
from mxdsl.interpreters.xdsl_adapter import (
    UPSTREAM_YIELD,
    implementations,
    region_scope,
    run_op,
    scope,
    set_scope,
)
from mxdsl.numerics.matmul import (
    BufferOperands,
    PeOperand,
    PePass,
    pe_operand,
    pe_pass_into,
    pe_passes_into,
)


class _SubviewPlan:
    """The static part of a ``memref.subview``, worked out once per op: static offsets
    (dynamic ones filled in per run), sizes and strides (all static), and the dims a
    rank reduction drops (indexed by their offset instead of a slice)."""

    __slots__ = ("dropped", "dynamic_dims", "offsets", "sizes", "strides")

    def __init__(
        self,
        offsets: tuple[int, ...],
        dynamic_dims: tuple[int, ...],
        sizes: tuple[int, ...],
        strides: tuple[int, ...],
        dropped: frozenset[int],
    ) -> None:
        self.offsets = offsets
        self.dynamic_dims = dynamic_dims
        self.sizes = sizes
        self.strides = strides
        self.dropped = dropped


def _subview_plan(op: memref.SubviewOp) -> _SubviewPlan | None:
    """The op's plan, or None when a size or stride is dynamic (the general path)."""
    sizes = tuple(int(v) for v in op.static_sizes.get_values())
    strides = tuple(int(v) for v in op.static_strides.get_values())
    if DYNAMIC_INDEX in sizes or DYNAMIC_INDEX in strides:
        return None
    static_offsets = tuple(int(v) for v in op.static_offsets.get_values())
    dynamic_dims = tuple(d for d, v in enumerate(static_offsets) if v == DYNAMIC_INDEX)
    result_type = op.result.type
    assert isinstance(result_type, MemRefType)
    result_shape = list(result_type.get_shape())
    dropped: set[int] = set()
    if len(result_shape) < len(sizes):  # as in _subview
        kept = 0
        for dim, size in enumerate(sizes):
            if kept < len(result_shape) and result_shape[kept] == size:
                kept += 1
            elif size == 1:
                dropped.add(dim)
    return _SubviewPlan(static_offsets, dynamic_dims, sizes, strides, frozenset(dropped))


def _planned_index(plan: _SubviewPlan, shape: tuple[int, ...], offsets: list[int]) -> Any:
    """The numpy index of :func:`_subview` from a plan and the dynamic offsets, or None
    when out of bounds (the general path then reports it)."""
    resolved = list(plan.offsets)
    for dim, value in zip(plan.dynamic_dims, offsets, strict=True):
        resolved[dim] = value
    index: list[Any] = []
    dropped = plan.dropped
    for dim, (offset, size, stride) in enumerate(
        zip(resolved, plan.sizes, plan.strides, strict=True)
    ):
        last = offset + (size - 1) * stride
        if offset < 0 or size < 0 or (size > 0 and not 0 <= last < shape[dim]):
            return None
        if dim in dropped:
            index.append(offset)
        else:
            index.append(slice(offset, offset + size * stride if size else offset, stride))
    return tuple(index)


class _LoopPlan:
    """An ``scf.for`` body (one block) worked out once, its values numbered: the block
    arguments first, then the results of each op and the values read from enclosing
    scopes (``outer``: value and slot, fixed for the whole loop). Each step is an
    op with the slots of its operands and results, the results that ops nested in this
    body's regions read through the interpreter's scope (``scoped``), and whether it is
    one the queued passes must run before (:func:`waits_for_queued_passes`)."""

    __slots__ = ("has_matmul", "n_args", "outer", "scoped_args", "size", "steps", "uses_scope")

    def __init__(self, block: Block) -> None:
        slots: dict[SSAValue, int] = {value: i for i, value in enumerate(block.args)}
        outer: list[tuple[SSAValue, int]] = []
        for body_op in block.ops:
            for value in body_op.operands:
                if value not in slots:
                    slots[value] = len(slots)
                    outer.append((value, slots[value]))
            for value in body_op.results:
                slots[value] = len(slots)

        def scoped(values: Sequence[SSAValue]) -> tuple[tuple[SSAValue, int], ...]:
            nested = (
                v for v in values if any(u.operation.parent_block() is not block for u in v.uses)
            )
            return tuple((v, slots[v]) for v in nested)

        self.n_args = len(block.args)
        self.outer = tuple(outer)
        self.scoped_args = scoped(block.args)
        self.uses_scope = any(body_op.regions for body_op in block.ops)
        self.steps = tuple(
            (
                body_op,
                _frame_reader(tuple(slots[v] for v in body_op.operands)),
                tuple(slots[v] for v in body_op.results),
                scoped(body_op.results),
                waits_for_queued_passes(body_op),
            )
            for body_op in block.ops
        )
        self.size = len(slots)
        self.has_matmul = any(isinstance(body_op, _MATMUL_OPS) for body_op in block.ops)

    def frame(self, scope: ScopedDict[SSAValue, Any]) -> list[Any]:
        """A frame with the enclosing-scope values filled in (looked up once per loop)."""
        frame: list[Any] = [None] * self.size
        for value, slot in self.outer:
            frame[slot] = scope[value]
        return frame


def _frame_reader(slots: tuple[int, ...]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """``lambda frame: tuple(frame[s] for s in slots)``, the cheapest way for its size
    (an op's operands are read from the frame on every iteration)."""
    if not slots:
        return lambda frame: ()
    if len(slots) == 1:
        (slot,) = slots
        return lambda frame: (frame[slot],)
    return itemgetter(*slots)


_MATMUL_OPS = (nisa.NcMatmulOp, nisa.NcMatmulMxOp)

_QUEUED_READS = frozenset((nisa.MemorySpace.SBUF, nisa.MemorySpace.HBM))
"""Memory a queued PE pass does not write (its dst is a PSUM tile, the verifier's
rule): an op reading only these may run before the queued passes."""


def waits_for_queued_passes(op: Operation) -> bool:
    """Whether the PE passes queued in a loop body must run before ``op`` (and none be
    queued while it runs), read from the memory effects ``op`` declares per operand
    (:func:`~mxdsl.interpreters.fast_path.declared_accesses`): yes when it may write
    anything (an SBUF tile a queued pass reads, a PSUM tile one writes), may read a
    buffer outside SBUF and HBM (a queued pass's PSUM dst), or its accesses are unknown
    (no effects declared, regions, a call). No for an op without memory effects (views,
    index arithmetic), one that only reads SBUF / HBM, and the matmuls, which the engine
    queues in order. So a run of ops that do not wait leaves the queued passes' operands
    unchanged: one analysis of an operand (``PeOperand``) serves every pass that reads
    the same view, and the run's passes run together at its end."""
    if isinstance(op, _MATMUL_OPS):
        return False
    accesses = declared_accesses(op)
    if accesses is None:
        return True
    reads, writes = accesses
    if writes:
        return True
    for position in reads:
        value_type = op.operands[position].type
        if not isinstance(value_type, MemRefType):
            return True
        if nisa.memory_space_of(value_type) not in _QUEUED_READS:
            return True
    return False


def _root(array: np.ndarray) -> np.ndarray:
    """The array whose memory ``array`` views (``array`` itself if it owns it)."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root


_MxKey = tuple[Any, ...]


class _Analyses:
    """What a planned loop knows of the buffers its matmuls read, each entry valid until
    a write to a buffer it was cut from (``drop``): the PE operands of bf16 / f32 buffers
    (``pe``: a :class:`BufferOperands` per root buffer, keyed by its id) and the
    dequantized MX operands (``mx``): a moving tile's at once (a kernel re-reads its
    token tiles against many weight tiles), a stationary tile's from its second request
    on (a weight tile read once is not kept): keyed by the data and scale tiles' root
    ids and geometry (the entry holds both roots, so their ids stay theirs)."""

    __slots__ = ("mx", "mx_keys", "mx_seen", "pe")

    def __init__(self) -> None:
        self.pe: dict[int, BufferOperands] = {}
        self.mx: dict[_MxKey, tuple[np.ndarray, np.ndarray, PeOperand]] = {}
        self.mx_seen: set[_MxKey] = set()
        self.mx_keys: dict[int, list[_MxKey]] = {}  # root id -> its keys (mx, mx_seen)

    def __bool__(self) -> bool:
        return bool(self.pe) or bool(self.mx_keys)

    def clear(self) -> None:
        self.pe.clear()
        self.mx.clear()
        self.mx_seen.clear()
        self.mx_keys.clear()

    def drop(self, array: np.ndarray) -> None:
        """Drop the analyses of the buffer ``array`` views; all of them when its memory
        is not an array's own (another array may view it unseen)."""
        root = _root(array)
        if root.base is not None:
            self.clear()
            return
        self.pe.pop(id(root), None)
        if not self.mx_keys:
            return
        for key in self.mx_keys.pop(id(root), ()):
            self.mx.pop(key, None)
            self.mx_seen.discard(key)

    def mx_operand(
        self,
        data: np.ndarray,
        scale: np.ndarray,
        element_type: Attribute,
        keep: bool,
        analyse: MxAnalysis,
    ) -> PeOperand:
        """``analyse(data, scale, element_type)``, kept at once (``keep``) or from its
        second request on (both tiles views of buffers that own their memory; else
        computed each time)."""
        data_root, scale_root = _root(data), _root(scale)
        if data_root.base is not None or scale_root.base is not None:
            return analyse(data, scale, element_type)
        key = (
            id(data_root),
            _address(data) - _address(data_root),
            data.shape,
            data.strides,
            id(scale_root),
            _address(scale) - _address(scale_root),
            scale.shape,
            scale.strides,
            element_type,
        )
        known = self.mx.get(key)
        if known is not None:
            return known[2]
        operand = analyse(data, scale, element_type)
        if key in self.mx_seen:
            self.mx[key] = (data_root, scale_root, operand)
            return operand
        self.mx_seen.add(key)
        for root in {id(data_root), id(scale_root)}:
            self.mx_keys.setdefault(root, []).append(key)
        if keep:
            self.mx[key] = (data_root, scale_root, operand)
        return operand


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def _loop_plan(op: scf.ForOp) -> _LoopPlan | None:
    blocks = list(op.body.blocks)
    if len(blocks) != 1:
        return None
    return _LoopPlan(blocks[0])


def _run_loop_body(
    interpreter: Interpreter,
    plan: _LoopPlan,
    frame: list[Any],
    args: tuple[Any, ...],
    functions: LoopEngine | None = None,
) -> Any:
    """One iteration of an ``scf.for`` body, as ``interpreter.run_ssacfg_region`` would
    run it (each op's listeners, its registered implementation, errors reported against
    the op as ``Interpreter._run_op`` does), but with operands read from the plan's
    numbered frame instead of the scope chain, and a scope for the body only when an op
    in it has regions (which read values through the scope). An implementation declared
    with :func:`direct_impl` is called without xDSL's wrapper (its values are the
    wrapper's ``OpImplResult.values``), and upstream's ``scf.yield`` (which returns its
    operands) is not called: its operands are the body's results. ``functions`` is told
    of each op that waits for the queued passes (:func:`waits_for_queued_passes`) before
    and after it runs (``_before_write``)."""
    frame[: plan.n_args] = args
    parent = scope(interpreter)
    local: dict[SSAValue, Any] = {}
    if plan.uses_scope:
        local.update((value, frame[slot]) for value, slot in plan.scoped_args)
        set_scope(interpreter, region_scope(parent, local))
    listeners = interpreter.listeners
    registered = implementations(interpreter)
    direct = DIRECT_IMPLS
    tracked = functions is not None
    results: Any = ()
    queueing = False
    try:
        for body_op, read, result_slots, scoped, flushes in plan.steps:
            inputs = read(frame)
            if flushes and tracked:
                queueing = functions._before_write()  # pyright: ignore[reportOptionalMemberAccess]
            entry = registered.get(type(body_op))
            values: PythonValues
            terminator: TerminatorValue | None = None
            if entry is None:  # Interpreter._run_op reports the missing implementation
                result = run_op(interpreter, body_op, inputs)
                values, terminator = result.values, result.terminator_value
            else:
                for listener in listeners:
                    listener.will_interpret_op(body_op, inputs)
                function = direct.get(entry[1])
                if function is not None:
                    try:
                        values = function(entry[0], interpreter, body_op, inputs)
                    except Exception as error:
                        body_op.emit_error("Error while interpreting op", error)
                elif entry[1] is UPSTREAM_YIELD:  # what it returns, without the call
                    values, terminator = (), ReturnedValues(inputs)
                else:
                    try:
                        result = entry[1](entry[0], interpreter, body_op, inputs)
                    except Exception as error:
                        body_op.emit_error("Error while interpreting op", error)
                    values, terminator = result.values, result.terminator_value
                for listener in listeners:
                    listener.did_interpret_op(body_op, values)
            if flushes and tracked:
                functions._after_write(queueing)  # pyright: ignore[reportOptionalMemberAccess]
            if len(result_slots) != len(values):  # as run_ssacfg_region asserts
                interpreter.interpreter_assert(
                    False,
                    f"Incorrect number of results for op {body_op.name}, expected "
                    f"{len(result_slots)} but got {len(values)}",
                )
            if len(result_slots) == 1:
                frame[result_slots[0]] = values[0]
            elif result_slots:
                for slot, value in zip(result_slots, values, strict=True):
                    frame[slot] = value
            for value, slot in scoped:
                local[value] = frame[slot]
            if terminator is not None:
                if not isinstance(terminator, ReturnedValues):
                    raise InterpretationError("scf.for body branches to a successor")
                results = terminator.values
                break
    finally:
        set_scope(interpreter, parent)
    return results


_VIEWS_MAX = 1 << 16
"""Subview indices kept per interpreter before the cache starts over."""


def _int_attr(value: int, value_type: Attribute, bitwidth: Any) -> Any:
    """``scalar_attr(value, value_type, bitwidth)`` (an index or integer), memoized and
    built without re-verification: :func:`mxdsl.interpreters.index.int_attr`."""
    return int_attr(value, value_type, bitwidth)


def _matmul_into(dst: np.ndarray, stationary: PeOperand, moving: PeOperand, accumulate: bool):
    """``dst (= | +=) stationary^T @ moving``, one PE pass: in place for the common f32
    PSUM tile; a bf16 tile gets the f32 sum rounded (accumulating from its f32 value)."""
    if dst.dtype == F32:
        pe_pass_into(dst, stationary, moving, accumulate)
        return
    total = to_f32(dst) if accumulate else np.empty(dst.shape, dtype=F32)
    pe_pass_into(total, stationary, moving, accumulate)
    dst[...] = round_to(total, dst.dtype)


def _same_sources(known: tuple[Any, ...], sources: tuple[Any, ...]) -> bool:
    """The same arrays (by identity: a view never changes what it views) and equal
    other values."""
    return len(known) == len(sources) and all(
        a is b if isinstance(b, np.ndarray) else a == b for a, b in zip(known, sources, strict=True)
    )


MxAnalysis = Callable[[np.ndarray, np.ndarray, Attribute], PeOperand]
"""How the semantics turn an x4 data tile, its scale tile and its element type into a
PE operand (``nisa.py``'s ``_mx_pe_operand``)."""


class LoopEngine:
    """The fast path's state for one :class:`~mxdsl.interpreters.nisa.NisaFunctions`:
    the plans worked out once per op (loop bodies, subviews, an op's static part), the
    analyses of matmul operands kept while their buffers are unwritten, and the queue of
    PE passes of a loop body. The op semantics call it only on the fast path (the
    reference mode runs each op by its definition); its results are the same bits."""

    def __init__(self) -> None:
        # keyed by id(op) (Operation hashes in Python); the op is kept to check identity
        # keyed by id(op) (Operation hashes in Python); the op is kept to check identity
        self._subview_plans: dict[int, tuple[Operation, _SubviewPlan | None]] = {}
        self._loop_plans: dict[int, tuple[Operation, _LoopPlan | None]] = {}
        self._op_plans: dict[int, tuple[Operation, Any]] = {}
        # the numpy index of a static subview: (op, source shape, offsets) -> index
        self._view_indices: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        # inside a queueing loop (see run_for): the last operand analysed per role, and
        # the matmuls of the current iteration, run together at its end
        self._operands: dict[str, tuple[tuple[Any, ...], PeOperand]] | None = None
        self._passes: list[tuple[np.ndarray, PeOperand, PeOperand, bool]] | None = None
        # inside a planned loop (``_caching``), the PE operands cut from each buffer
        # (keyed by id; the entry holds the buffer), each buffer's until a write to it:
        # every op is seen before it runs, wherever it runs (fast_path.WriteTracker)
        self._caching = False
        self._buffers = _Analyses()
        self._tracked: set[int] = set()  # ids of the interpreters tracking _buffers

    def run_for(
        self, interpreter: Interpreter, op: scf.ForOp, args: PythonValues
    ) -> tuple[Any, ...]:
        """``scf.for`` (``NisaFunctions.run_for``): in the reference mode each iteration
        through ``interpreter.run_ssacfg_region``; on the fast path a one-block body
        from its plan (:func:`_run_loop_body`), its matmuls queued when it has any
        (``_run_queueing``), the buffer analyses kept until the outermost planned loop
        ends."""
        lb, ub, step, *packed = args
        loop_args = tuple(packed)
        value_type = op.lb.type
        bitwidth = interpreter.index_bitwidth
        plan = self._plan(op) if fast_path(interpreter) else None
        trips = range(lb.value.data, ub.value.data, step.value.data)
        if plan is None:
            for i in trips:
                iv = _int_attr(i, value_type, bitwidth)
                loop_args = interpreter.run_ssacfg_region(op.body, (iv, *loop_args), "for_loop")
            return loop_args
        if not trips:
            return loop_args
        frame = plan.frame(scope(interpreter))
        outermost = not self._caching
        if outermost:
            self._track(interpreter)
            self._caching = True
        try:
            if not plan.has_matmul:
                for i in trips:
                    iv = _int_attr(i, value_type, bitwidth)
                    loop_args = _run_loop_body(interpreter, plan, frame, (iv, *loop_args), self)
                return loop_args
            return self._run_queueing(interpreter, plan, frame, trips, value_type, loop_args)
        finally:
            if outermost:  # what the loop kept is not kept past it (memory)
                self._buffers.clear()
                self._caching = False

    def _track(self, interpreter: Interpreter) -> None:
        """Have ``interpreter``'s write tracker drop ``_buffers``' analyses of whatever
        an op may write, before it runs (:mod:`mxdsl.interpreters.fast_path`)."""
        if id(interpreter) in self._tracked:
            return
        write_tracker(interpreter).register(self._buffers)
        self._tracked.add(id(interpreter))

    def _run_queueing(
        self,
        interpreter: Interpreter,
        plan: _LoopPlan,
        frame: list[Any],
        trips: range,
        value_type: Attribute,
        loop_args: tuple[Any, ...],
    ) -> tuple[Any, ...]:
        """The iterations of a loop whose body holds matmuls: they are queued and run
        together (``_run_passes``) at the end of each iteration and before any op that
        may write SBUF or PSUM or read PSUM (:func:`waits_for_queued_passes`; a run of
        ops that do not wait leaves the queued operands unchanged); a matmul operand
        analysed once holds until such an op."""
        bitwidth = interpreter.index_bitwidth
        outer = self._operands, self._passes
        self._operands, self._passes = {}, []
        try:
            for i in trips:
                iv = _int_attr(i, value_type, bitwidth)
                loop_args = _run_loop_body(interpreter, plan, frame, (iv, *loop_args), self)
                self._run_passes()
        finally:
            self._operands, self._passes = outer
        return loop_args

    def _before_write(self) -> bool:
        """Before an op that waits for the queued passes in a planned loop body: the queued
        passes run and nothing is queued while the op runs (a matmul it runs, in a
        region or a callee, executes at once). What the op may write is forgotten by
        the write tracker, which sees it next (a listener). Returns whether the loop
        was queueing (for ``_after_write``)."""
        if self._passes is None:
            return False
        self._run_passes()
        self._operands, self._passes = None, None
        return True

    def _after_write(self, queueing: bool) -> None:
        if queueing:
            self._operands, self._passes = {}, []

    def _plan(self, op: scf.ForOp) -> _LoopPlan | None:
        known = self._loop_plans.get(id(op))
        if known is None or known[0] is not op:
            known = self._loop_plans[id(op)] = (op, _loop_plan(op))
        return known[1]

    def _buffer_operand(self, tile: np.ndarray) -> PeOperand:
        """``tile``'s PE operand (widened as ``to_f32`` then float64 would); inside a
        planned loop from its buffer's ``BufferOperands``, which holds it (and its
        widening) until a write to the buffer."""
        if not self._caching:
            return pe_operand(tile, _as_f64)
        root = _root(tile)
        if root.base is not None or root is tile:
            return pe_operand(tile, _as_f64)
        buffer = self._buffers.pe.get(id(root))
        if buffer is None:
            if not BufferOperands.supports(root):
                return pe_operand(tile, _as_f64)
            buffer = self._buffers.pe[id(root)] = BufferOperands(root, _as_f64)
        columns = buffer.columns_of(tile)
        if columns is None:
            return pe_operand(tile, _as_f64)
        return buffer.operand(tile, columns)

    def mx_operand(
        self,
        role: str,
        data: np.ndarray,
        scale: np.ndarray,
        element_type: Attribute,
        keep: bool,
        analyse: MxAnalysis,
    ) -> PeOperand:
        """``analyse(data, scale, element_type)``, an x4 tile's PE operand, through
        :meth:`operand` (the previous matmul's in this role when the same tiles) and
        inside a planned loop kept for the next request of the same tiles until a write
        to either buffer (:meth:`_Analyses.mx_operand`; ``keep``: at once, else from the
        second request on)."""
        return self.operand(
            role,
            (data, scale, element_type),
            lambda: self._mx_operand(data, scale, element_type, keep, analyse),
        )

    def _mx_operand(
        self,
        data: np.ndarray,
        scale: np.ndarray,
        element_type: Attribute,
        keep: bool,
        analyse: MxAnalysis,
    ) -> PeOperand:
        if not self._caching:
            return analyse(data, scale, element_type)
        return self._buffers.mx_operand(data, scale, element_type, keep, analyse)

    def subview(self, op: memref.SubviewOp, args: PythonValues) -> np.ndarray | None:
        """``memref.subview``'s view of ``args[0]`` from a kept numpy index: one per
        (op, source shape, dynamic offsets) of an op with static sizes and strides, so a
        view seen before costs one dict lookup (its key spelled out for the common one or
        two dynamic offsets). None when the op has dynamic sizes or strides or the view
        is out of bounds: the semantics' general path then runs (and reports)."""
        source = args[0]
        # the dynamic offsets: index values (IntegerAttr); an index is cached only for
        # a planned op, which _subview_plans keeps alive
        try:
            if len(args) == 2:
                key = (id(op), source.shape, args[1].value.data)
            elif len(args) == 3:
                key = (id(op), source.shape, args[1].value.data, args[2].value.data)
            else:
                key = (id(op), source.shape, *[v.value.data for v in args[1:]])
        except AttributeError:
            key = (id(op), source.shape, *[as_int(v) for v in args[1:]])
        index = self._view_indices.get(key)
        if index is not None:
            return source[index]
        offsets = list(key[2:])
        known = self._subview_plans.get(id(op))
        if known is None or known[0] is not op:
            known = self._subview_plans[id(op)] = (op, _subview_plan(op))
        plan = known[1]
        if plan is None:
            return None
        index = _planned_index(plan, source.shape, offsets)
        if index is None:  # out of bounds: reported by the general path
            return None
        if len(self._view_indices) >= _VIEWS_MAX:
            self._view_indices.clear()
        self._view_indices[key] = index
        return source[index]

    def op_plan(self, op: Operation, build: Callable[[Operation], Any]) -> Any:
        """``build(op)``, the static part of an op worked out once per op (reading an
        op's attributes and optional operands costs microseconds per access)."""
        known = self._op_plans.get(id(op))
        if known is None or known[0] is not op:
            known = self._op_plans[id(op)] = (op, build(op))
        return known[1]

    def tile_operand(self, role: str, tile: np.ndarray) -> PeOperand:
        """A bf16 / f32 tile's PE operand: ``self.operand(role, (tile,), lambda:
        self._buffer_operand(tile))``, without building the closure and the generic
        comparison on every matmul."""
        memo = self._operands
        if memo is None:
            return self._buffer_operand(tile)
        known = memo.get(role)
        if known is not None:
            sources = known[0]
            if len(sources) == 1 and sources[0] is tile:
                return known[1]
        operand = self._buffer_operand(tile)
        memo[role] = ((tile,), operand)
        return operand

    def pe_pass(self, dst: np.ndarray, lhs: PeOperand, rhs: PeOperand, accumulate: bool) -> None:
        """One PE pass into ``dst``: now, or inside a queueing loop (``_run_queueing``)
        queued until the end of the iteration or the next op that may write or read
        PSUM."""
        if self._passes is None:
            _matmul_into(dst, lhs, rhs, accumulate)
            return
        self._passes.append((dst, lhs, rhs, accumulate))

    def _run_passes(self) -> None:
        """The queued passes in order; consecutive ones into f32 PSUM that share their
        moving operand (e.g. gate and up on one token tile) as one batch, a pass into a
        bf16 PSUM tile alone."""
        queued = self._passes
        if not queued:
            return
        self._passes = []
        moving: PeOperand | None = None
        batch: list[PePass] = []
        for dst, lhs, rhs, accumulate in queued:
            if moving is not None and (rhs is not moving or dst.dtype != F32):
                pe_passes_into(moving, batch)
                moving, batch = None, []
            if dst.dtype != F32:
                _matmul_into(dst, lhs, rhs, accumulate)
                continue
            moving = rhs
            batch.append(PePass(dst, lhs, accumulate))
        if moving is not None:
            pe_passes_into(moving, batch)

    def operand(
        self, role: str, sources: tuple[Any, ...], analyse: Callable[[], PeOperand]
    ) -> PeOperand:
        """``analyse()``, or inside a queueing loop the same analysis as the previous
        matmul's in this role when it read the very same view (the same array object:
        one SSA value, e.g. the token tile the gate and up matmuls share) as the same
        type. ``sources``: the arrays read and anything else the analysis depends on
        (the x4 type of an MX operand). The memo holds the arrays, so an object seen
        again is the view seen before."""
        memo = self._operands
        if memo is None:
            return analyse()
        known = memo.get(role)
        if known is not None and _same_sources(known[0], sources):
            return known[1]
        operand = analyse()
        memo[role] = (sources, operand)
        return operand
