"""Value traces: every op's value, in program order, as an interpreter runs a program.

A :class:`TraceRecorder` is an interpreter listener. After each op it records the op's
value: for an op that writes destination operands (:func:`written_operands`, e.g. a nisa
op's ``dst``), each destination as it is after the op; otherwise each tensor result.
Buffers made or viewed without being written (``memref.alloc``, ``memref.subview``),
control flow and calls are not recorded (what their bodies run is, op by op). A
record carries the op's name, its place in the file that was run, its source location
(the op's ``loc``: where the op came from, which passes keep) and the core.

A lowered op's value is written tile by tile: its last write may be one row of it. So
when a *run* of ops of one source location ends (the next op that writes a value has
another source location, or the run of the program ends: :meth:`Trace.finish`), each
HBM buffer that run wrote (whole or through a view) and that was allocated with the
same source location (the buffer a lowering made for that op's value) is recorded
whole, as it is then, as a ``buffer`` record, the one written last last: the completed
value that a level above compares with (:func:`completed_buffers`).

A trace is taken in the reference mode (every op one at a time through the
interpreter), so every op is seen; recording copies values and changes no output bit.

A :class:`Trace` is written as an ``.npz``: the arrays ``r0``, ``r1``, ... (bf16, fp8,
fp4 and E8M0 as their unsigned bit patterns, as ``mx-run -o`` writes them) and one
``__trace__`` entry holding the records' fields as JSON (``docs/debugging.md``).
"""

from __future__ import annotations

import fnmatch
import json
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import FileLineColLoc, MemRefType, NameLoc, TensorType, UnknownLoc
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.ir import Attribute, Operation, OpResult, SSAValue

from mxdsl.interpreters.fast_path import written_operands

TRACE_KEY = "__trace__"
TRACE_FORMAT = "mxdsl-trace"
TRACE_VERSION = 1

_NOT_RECORDED = ("func.", "scf.", "cf.", "memref.alloc", "memref.subview", "memref.dealloc")
"""Op name prefixes whose values are not recorded: control flow, calls, and buffers made
or viewed without being written."""

_BIT_CARRIERS = {
    np.dtype(t): np.dtype(f"u{np.dtype(t).itemsize}")
    for t in (
        ml_dtypes.bfloat16,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e4m3,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e8m0fnu,
        ml_dtypes.float4_e2m1fn,
    )
}


class TraceError(Exception):
    """A trace that cannot be read, or one that outgrew its budget (one line)."""


def location_text(location: Attribute | None) -> str:
    """``file:line:col`` of a ``FileLineColLoc``, the name of a ``NameLoc`` (with its
    child location), ``""`` when unknown."""
    if isinstance(location, FileLineColLoc):
        return f"{location.filename.data}:{location.line.data}:{location.column.data}"
    if isinstance(location, NameLoc):
        child = location_text(location.location)
        return location.desc.data + (f"@{child}" if child else "")
    if location is None or isinstance(location, UnknownLoc):
        return ""
    return str(location)


_LINE = re.compile(r"(?:^|@)(?P<file>[^@]*?):(?P<line>\d+):(?P<col>\d+)$")


def location_line(text: str) -> tuple[str, int] | None:
    """``(file, line)`` of a location's text (:func:`location_text`), None without one."""
    match = _LINE.search(text)
    if match is None:
        return None
    return match["file"], int(match["line"])


@dataclass
class TraceRecord:
    """One value: ``op`` (its name), ``location`` (its place in the file run), ``source``
    (its ``loc``), ``core``, ``what`` (``result0``, ``dst``, ... : which value of the op),
    ``name`` (a label such as ``result0`` or ``block0.gate``; ``""`` for an op's value)."""

    op: str
    location: str
    source: str
    core: int
    what: str
    value: np.ndarray
    name: str = ""

    def fields(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "location": self.location,
            "source": self.source,
            "core": self.core,
            "what": self.what,
            "name": self.name,
            "dtype": self.value.dtype.name,
            "shape": list(self.value.shape),
        }


@dataclass(frozen=True)
class TraceFilter:
    """Which ops to record: op names (``fnmatch`` patterns such as ``nisa.*``) and line
    ranges (``[file:]first-last``, matched against the source line, else the op's line
    in the file run); an op is recorded when it matches a name (or none are given) and a
    range (or none are given)."""

    ops: tuple[str, ...] = ()
    lines: tuple[tuple[str, int, int], ...] = ()

    @staticmethod
    def parse(specs: Iterable[str]) -> TraceFilter:
        """From comma-separated items; raises ``ValueError`` (one line) for a bad one."""
        ops: list[str] = []
        lines: list[tuple[str, int, int]] = []
        for spec in specs:
            for item in filter(None, (part.strip() for part in spec.split(","))):
                match = re.fullmatch(r"(?:(?P<file>.+):)?(?P<first>\d+)(?:-(?P<last>\d+))?", item)
                if match is None:
                    if not re.fullmatch(r"[\w.*?\[\]]+", item):
                        raise ValueError(
                            f"--trace-filter item {item!r} is neither an op name (e.g. "
                            "nisa.activation, nisa.*) nor a line range (e.g. 10-20, f.py:3-9)"
                        )
                    ops.append(item)
                    continue
                first = int(match["first"])
                last = int(match["last"] or first)
                if last < first:
                    raise ValueError(f"--trace-filter line range {item!r} ends before it starts")
                lines.append((match["file"] or "", first, last))
        return TraceFilter(tuple(ops), tuple(lines))

    def accepts(self, op_name: str, location: str, source: str) -> bool:
        if self.ops and not any(fnmatch.fnmatchcase(op_name, p) for p in self.ops):
            return False
        if not self.lines:
            return True
        place = location_line(source) or location_line(location)
        if place is None:
            return False
        file, line = place
        return any(
            first <= line <= last and (not name or file.endswith(name))
            for name, first, last in self.lines
        )


def recorded(op: Operation) -> bool:
    """Whether the values of ``op`` are recorded (see the module docstring)."""
    return not op.name.startswith(_NOT_RECORDED)


BUFFER = "buffer"
"""The ``what`` of a record holding a whole buffer that a run of one source location's
ops completed (see the module docstring)."""

_VIEWS = (
    memref.SubviewOp,
    memref.ExpandShapeOp,
    memref.CollapseShapeOp,
    memref.CastOp,
    memref.ReinterpretCastOp,
)


def _viewed_alloc(value: SSAValue) -> memref.AllocOp | None:
    """The ``memref.alloc`` whose buffer ``value`` is or views (through memref views and
    ``nisa.view_cast``), None for a buffer of another origin (an argument)."""
    while isinstance(value, OpResult):
        owner = value.op
        if isinstance(owner, memref.AllocOp):
            return owner
        if not (isinstance(owner, _VIEWS) or owner.name == "nisa.view_cast"):
            return None
        value = owner.operands[0]
    return None


def _hbm_alloc(op: memref.AllocOp) -> bool:
    from mxdsl.dialects.nisa import MemorySpace, memory_space_of

    t = op.memref.type
    return isinstance(t, MemRefType) and memory_space_of(t) == MemorySpace.HBM


def completed_buffers(op: Operation) -> tuple[memref.AllocOp, ...]:
    """The buffers whose ``buffer`` records ``op``'s writes lead to (the module
    docstring): for each value ``op`` writes (a nisa op's destination, a buffer or a
    view of one; a bir instruction's ``dst_tensor``, whose record is its access
    pattern's ``[partitions, elements]``), the HBM ``memref.alloc`` it writes into, when
    that alloc carries ``op``'s own source location."""
    source = location_text(op.location)
    if not source:
        return ()
    if _writes_pattern(op):
        tensor = getattr(op, "dst_tensor", None)
        values = [tensor] if isinstance(tensor, SSAValue) else []
    else:
        values = [op.operands[i] for i in written_operands(op) or ()]
    found: list[memref.AllocOp] = []
    for value in values:
        alloc = _viewed_alloc(value)
        if (
            alloc is not None
            and alloc not in found
            and _hbm_alloc(alloc)
            and location_text(alloc.location) == source
        ):
            found.append(alloc)
    return tuple(found)


@dataclass
class Trace:
    """Records of one run, per core in program order; ``budget`` (bytes, None: no limit)
    bounds what it keeps: past it, recording stops and :attr:`overflowed` is set."""

    budget: int | None = None
    filter: TraceFilter = field(default_factory=TraceFilter)
    records: list[TraceRecord] = field(default_factory=list)
    size: int = 0
    overflowed: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _recorders: list[TraceRecorder] = field(default_factory=list)

    def add(self, record: TraceRecord) -> None:
        with self._lock:
            if self.overflowed:
                return
            if self.budget is not None and self.size + record.value.nbytes > self.budget:
                self.overflowed = True
                return
            self.size += record.value.nbytes
            self.records.append(record)

    def replace(self, old: TraceRecord, new: TraceRecord) -> None:
        """Drop ``old`` (a ``buffer`` record a later one of the same buffer supersedes),
        then :meth:`add` ``new``."""
        with self._lock:
            for k in range(len(self.records) - 1, -1, -1):  # it is near the end
                if self.records[k] is old:
                    del self.records[k]
                    self.size -= old.value.nbytes
                    break
        self.add(new)

    def recorder(
        self, core: int = 0, locate: Callable[[Operation], str] | None = None
    ) -> TraceRecorder:
        """A :class:`TraceRecorder` for one core's interpreter."""
        made = TraceRecorder(self, core, locate)
        with self._lock:
            self._recorders.append(made)
        return made

    def finish(self) -> None:
        """End every recorder's open run (its ``buffer`` records): call it once the
        program has run, before reading :attr:`records` (:meth:`save` does)."""
        for made in list(self._recorders):
            made.end_run()

    def ordered(self) -> list[TraceRecord]:
        """Records by core, each core's in program order, named records (outputs) last."""
        return sorted(self.records, key=lambda r: (bool(r.name), r.core))  # stable

    def save(self, stream: Any) -> None:
        """Write the trace as an ``.npz`` to a path or binary stream (after
        :meth:`finish`)."""
        self.finish()
        records = self.ordered()
        arrays = {f"r{i}": _carried(r.value) for i, r in enumerate(records)}
        meta = {
            "format": TRACE_FORMAT,
            "version": TRACE_VERSION,
            "records": [r.fields() for r in records],
        }
        arrays[TRACE_KEY] = np.array(json.dumps(meta))
        savez: Callable[..., None] = np.savez  # keys are record names, never options
        savez(stream, **arrays)


def _carried(value: np.ndarray) -> np.ndarray:
    carrier = _BIT_CARRIERS.get(value.dtype)
    value = np.array(value, order="C")  # ascontiguousarray would make a 0-d array 1-d
    return value.view(carrier) if carrier is not None else value


def dtype_named(name: str) -> np.dtype[Any]:
    """A numpy or ml_dtypes dtype from its ``.name``."""
    found = getattr(ml_dtypes, name, None)
    return np.dtype(found) if found is not None else np.dtype(name)


@dataclass(frozen=True)
class _Plan:
    """What a recorder does after one op: the operands it records (``(-1,)``: a bir
    access pattern), its places, and the buffers it completes."""

    written: tuple[int, ...]
    location: str
    source: str
    buffers: tuple[memref.AllocOp, ...]


class TraceRecorder(Interpreter.Listener):
    """Records each op's value into a :class:`Trace` after the op runs, and the
    ``buffer`` records of each run of one source location's ops as the run ends (see
    the module docstring); ``locate`` gives an op's place in the file run."""

    def __init__(
        self, trace: Trace, core: int = 0, locate: Callable[[Operation], str] | None = None
    ) -> None:
        self.trace = trace
        self.core = core
        self.locate = locate
        self.interpreter: Interpreter | None = None  # set by bind_recorders (bir ops)
        self._args: list[PythonValues | None] = []
        self._plans: dict[Operation, _Plan | None] = {}
        self._sources: dict[Operation, str | None] = {}
        self._allocs: dict[memref.AllocOp, bool] = {}
        self._buffers: dict[memref.AllocOp, np.ndarray] = {}
        """The latest buffer of each HBM alloc that some recorded op completes."""
        self._recorded: dict[memref.AllocOp, TraceRecord] = {}
        """The ``buffer`` record of each such buffer, once made."""
        self._run: str | None = None
        """The source location of the run of ops going on."""
        self._completing: dict[memref.AllocOp, tuple[str, str]] = {}
        """The buffers the run wrote, in the order of their last write, with the op name
        and location of that write."""

    def _plan(self, op: Operation) -> _Plan | None:
        if op in self._plans:
            return self._plans[op]
        plan = None
        if recorded(op):
            location = self.locate(op) if self.locate is not None else ""
            source = location_text(op.location)
            if self.trace.filter.accepts(op.name, location, source):
                written = (-1,) if _writes_pattern(op) else (written_operands(op) or ())
                plan = _Plan(written, location, source, completed_buffers(op))
        self._plans[op] = plan
        return plan

    def _source(self, op: Operation) -> str | None:
        """The source location of an op that writes a value (it ends a run of another
        source location), None for one that does not (views, control flow, index
        arithmetic)."""
        if op in self._sources:
            return self._sources[op]
        source = None
        if recorded(op):
            written = written_operands(op)
            if (
                written is None
                or written
                or _writes_pattern(op)
                or any(isinstance(r.type, TensorType) for r in op.results)
            ):
                source = location_text(op.location)
        self._sources[op] = source
        return source

    def _kept(self, alloc: memref.AllocOp) -> bool:
        """Whether a recorded op completes the buffers ``alloc`` allocates (they are
        kept for the ``buffer`` records): one that writes it or one of its views."""
        kept = self._allocs.get(alloc)
        if kept is not None:
            return kept
        kept = False
        pending: list[SSAValue] = [alloc.memref] if _hbm_alloc(alloc) else []
        seen: set[SSAValue] = set()
        while pending and not kept:
            value = pending.pop()
            if value in seen:
                continue
            seen.add(value)
            for use in value.uses:
                user = use.operation
                if isinstance(user, _VIEWS) or user.name == "nisa.view_cast":
                    pending.extend(user.results)
                elif (plan := self._plan(user)) is not None and alloc in plan.buffers:
                    kept = True
        self._allocs[alloc] = kept
        return kept

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        source = self._source(op)
        if source is not None and source != self._run:
            self.end_run()
            self._run = source
        plan = self._plan(op)
        self._args.append(args if plan is not None and plan.written else None)

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        args = self._args.pop() if self._args else None
        if isinstance(op, memref.AllocOp):
            if results and isinstance(results[0], np.ndarray) and self._kept(op):
                self._buffers[op] = results[0]
                self._recorded.pop(op, None)  # a new buffer: its records are its own
            return
        plan = self._plans.get(op)
        if plan is None or self.trace.overflowed:
            return
        values: list[tuple[str, Any]]
        if plan.written == (-1,):
            values = [("dst", self._pattern_value(op, args))]
        elif args is not None:
            values = [(_operand_name(op, i), args[i]) for i in plan.written]
        else:
            values = [
                (f"result{i}", value)
                for i, value in enumerate(results)
                if not isinstance(op.results[i].type, MemRefType)
            ]
        for what, value in values:
            if isinstance(value, np.ndarray):
                self.trace.add(
                    TraceRecord(op.name, plan.location, plan.source, self.core, what, value.copy())
                )
        for buffer in plan.buffers:
            self._completing.pop(buffer, None)
            self._completing[buffer] = (op.name, plan.location)

    def end_run(self) -> None:
        """End the run of ops going on: record the buffers it completed (whole, as they
        are now), the buffer of its last write last. A buffer that an earlier run of
        the same source location completed too (a loop that interleaves the writes of
        two source lines) keeps its latest record only: each one is whole."""
        completing, self._completing = self._completing, {}
        for buffer, (name, location) in completing.items():
            value = self._buffers.get(buffer)
            if value is None or self.trace.overflowed:
                continue
            record = TraceRecord(name, location, self._run or "", self.core, BUFFER, value.copy())
            earlier = self._recorded.get(buffer)
            if earlier is not None:
                self.trace.replace(earlier, record)
            else:
                self.trace.add(record)
            self._recorded[buffer] = record
        self._run = None

    def _pattern_value(self, op: Operation, args: PythonValues | None) -> Any:
        if self.interpreter is None or args is None:
            return None
        from mxdsl.interpreters.bir import destination_value

        return destination_value(self.interpreter, op, args)


def _writes_pattern(op: Operation) -> bool:
    """A bir instruction writing one ``dst`` access pattern (read back after it)."""
    return op.name.startswith("bir.") and op.name != "bir.dma_indirect" and "dst" in op.properties


def bind_recorders(interpreter: Interpreter) -> Interpreter:
    """Tell ``interpreter``'s trace recorders which interpreter they record (bir
    instructions are read back from its machine); returns it."""
    for listener in interpreter.listeners:
        if isinstance(listener, TraceRecorder):
            listener.interpreter = interpreter
    return interpreter


def _operand_name(op: Operation, index: int) -> str:
    operand = op.operands[index]
    for name in ("dst", "dst_scale", "data"):
        if getattr(op, name, None) is operand:
            return name
    return f"operand{index}"


@dataclass
class LoadedTrace:
    """A trace read back (:func:`load_trace`): its records, values as their dtypes."""

    path: str
    records: list[TraceRecord]


def load_trace(path: str, npz: Any) -> LoadedTrace:
    """The trace in an open ``.npz`` (``np.load``); raises :class:`TraceError`."""
    try:
        meta = json.loads(str(npz[TRACE_KEY][()]))
        if meta.get("format") != TRACE_FORMAT:
            raise ValueError("not an mxdsl trace")
        if meta.get("version") != TRACE_VERSION:
            raise TraceError(
                f"{path}: trace format version {meta.get('version')} (this mxdsl reads "
                f"{TRACE_VERSION}); record it again"
            )
        records = []
        for i, f in enumerate(meta["records"]):
            dtype = dtype_named(f["dtype"])
            value = npz[f"r{i}"]
            if value.dtype != dtype:
                value = value.view(dtype)
            if list(value.shape) != list(f["shape"]):
                raise ValueError(f"record {i} has shape {value.shape}, not {f['shape']}")
            records.append(
                TraceRecord(
                    f["op"],
                    f["location"],
                    f["source"],
                    int(f["core"]),
                    f["what"],
                    value,
                    f.get("name", ""),
                )
            )
    except TraceError:
        raise
    except Exception as err:
        raise TraceError(f"{path}: not a readable mxdsl trace ({err})") from None
    return LoadedTrace(path, records)


def estimate_trace_bytes(module: Operation, trace_filter: TraceFilter) -> tuple[int, bool]:
    """A lower bound of the bytes a trace of ``module`` keeps: each recorded op's value
    once per trip of its enclosing loops with constant bounds, and each buffer that
    recorded ops complete (``buffer`` records) once per trip of the loops around its
    ``memref.alloc``. The flag says whether some loop's trip count is not known (the
    estimate is then per unknown loop trip)."""
    total = 0
    unknown = False
    completed: dict[memref.AllocOp, None] = {}
    for op in module.walk():
        if not recorded(op):
            continue
        if not trace_filter.accepts(op.name, "", location_text(op.location)):
            continue
        completed.update(dict.fromkeys(completed_buffers(op)))
        written = written_operands(op) or ()
        types = [op.operands[i].type for i in written] or [
            r.type for r in op.results if not isinstance(r.type, MemRefType)
        ]
        size = sum(_type_bytes(t) for t in types)
        if not size:
            continue
        trips, known = _trips(op)
        unknown |= not known
        total += size * trips
    for alloc in completed:
        trips, known = _trips(alloc)
        unknown |= not known
        total += _type_bytes(alloc.memref.type) * trips
    return total, unknown


def _type_bytes(t: Attribute) -> int:
    from mxdsl.interpreters import numpy_dtype

    shape = getattr(t, "get_shape", None)
    element = getattr(t, "get_element_type", None)
    if shape is None or element is None:
        return 0
    dims = shape()
    if any(d < 0 for d in dims):
        return 0
    try:
        itemsize = numpy_dtype(element()).itemsize
    except TypeError:
        return 0
    return int(np.prod(dims, dtype=np.int64)) * itemsize


def _trips(op: Operation) -> tuple[int, bool]:
    from xdsl.dialects import arith, scf

    trips, known = 1, True
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            bounds = []
            for value in (parent.lb, parent.ub, parent.step):
                owner = value.owner
                if isinstance(owner, arith.ConstantOp) and hasattr(owner.value, "value"):
                    bounds.append(owner.value.value.data)  # pyright: ignore
            if len(bounds) == 3 and bounds[2] > 0:
                trips *= max(0, -(-(bounds[1] - bounds[0]) // bounds[2]))
            else:
                known = False
        parent = parent.parent_op()
    return trips, known


__all__ = [
    "BUFFER",
    "TRACE_KEY",
    "LoadedTrace",
    "Trace",
    "TraceError",
    "TraceFilter",
    "TraceRecord",
    "TraceRecorder",
    "bind_recorders",
    "completed_buffers",
    "dtype_named",
    "estimate_trace_bytes",
    "load_trace",
    "location_line",
    "location_text",
    "recorded",
]
