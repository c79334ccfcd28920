"""Value traces: every op's value, in program order, as an interpreter runs a program.

A :class:`TraceRecorder` is an interpreter listener. After each op it records the op's
value: for an op that writes destination operands (:func:`written_operands`, e.g. a nisa
op's ``dst``), each destination as it is after the op; otherwise each tensor result.
Buffers made or viewed without being written (``memref.alloc``, ``memref.subview``),
control flow and calls are not recorded (what their bodies run is, op by op). A
record carries the op's name, its place in the file that was run, its source location
(the op's ``loc``: where the op came from, which passes keep) and the core.

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
from xdsl.dialects.builtin import FileLineColLoc, MemRefType, NameLoc, UnknownLoc
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.ir import Attribute, Operation

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

    def add(self, record: TraceRecord) -> None:
        with self._lock:
            if self.overflowed:
                return
            if self.budget is not None and self.size + record.value.nbytes > self.budget:
                self.overflowed = True
                return
            self.size += record.value.nbytes
            self.records.append(record)

    def recorder(self, core: int = 0, locate: Callable[[Operation], str] | None = None):  # noqa: ANN201
        """A :class:`TraceRecorder` for one core's interpreter."""
        return TraceRecorder(self, core, locate)

    def ordered(self) -> list[TraceRecord]:
        """Records by core, each core's in program order, named records (outputs) last."""
        return sorted(self.records, key=lambda r: (bool(r.name), r.core))  # stable

    def save(self, stream: Any) -> None:
        """Write the trace as an ``.npz`` to a path or binary stream."""
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


class TraceRecorder(Interpreter.Listener):
    """Records each op's value into a :class:`Trace` after the op runs (see the module
    docstring); ``locate`` gives an op's place in the file run."""

    def __init__(
        self, trace: Trace, core: int = 0, locate: Callable[[Operation], str] | None = None
    ) -> None:
        self.trace = trace
        self.core = core
        self.locate = locate
        self.interpreter: Interpreter | None = None  # set by bind_recorders (bir ops)
        self._args: list[PythonValues | None] = []
        self._plans: dict[Operation, tuple[tuple[int, ...], str, str] | None] = {}

    def _plan(self, op: Operation) -> tuple[tuple[int, ...], str, str] | None:
        if op in self._plans:
            return self._plans[op]
        plan = None
        if recorded(op):
            location = self.locate(op) if self.locate is not None else ""
            source = location_text(op.location)
            if self.trace.filter.accepts(op.name, location, source):
                written = (-1,) if _writes_pattern(op) else (written_operands(op) or ())
                plan = (written, location, source)
        self._plans[op] = plan
        return plan

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        plan = self._plan(op)
        self._args.append(args if plan is not None and plan[0] else None)

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        args = self._args.pop() if self._args else None
        plan = self._plans.get(op)
        if plan is None or self.trace.overflowed:
            return
        written, location, source = plan
        values: list[tuple[str, Any]]
        if written == (-1,):
            values = [("dst", self._pattern_value(op, args))]
        elif args is not None:
            values = [(_operand_name(op, i), args[i]) for i in written]
        else:
            values = [
                (f"result{i}", value)
                for i, value in enumerate(results)
                if not isinstance(op.results[i].type, MemRefType)
            ]
        for what, value in values:
            if isinstance(value, np.ndarray):
                self.trace.add(
                    TraceRecord(op.name, location, source, self.core, what, value.copy())
                )

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
    once per trip of its enclosing loops with constant bounds. The flag says whether
    some loop's trip count is not known (the estimate is then per unknown loop trip)."""
    total = 0
    unknown = False
    for op in module.walk():
        if not recorded(op):
            continue
        if not trace_filter.accepts(op.name, "", location_text(op.location)):
            continue
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
    "TRACE_KEY",
    "LoadedTrace",
    "Trace",
    "TraceError",
    "TraceFilter",
    "TraceRecord",
    "TraceRecorder",
    "bind_recorders",
    "dtype_named",
    "estimate_trace_bytes",
    "load_trace",
    "location_line",
    "location_text",
    "recorded",
]
