"""HBM race detection for SPMD runs (see ``docs/nisa-interpreter.md``, "HBM races").

Two cores' accesses to the same HBM bytes race when at least one writes and no
synchronization orders them. Order comes from ``sendrecv`` and ``core_barrier`` only,
tracked with one vector clock per core: core ``a``'s entry ``a`` is its *epoch*, which
every synchronization it reaches starts anew; what a core learns at a synchronization
(the clocks its partners posted) is merged into its clock. An access of core ``a`` in
epoch ``e`` is ordered before the current access of core ``b`` exactly when
``clock[b][a] >= e``.

Every access to an argument tensor (the shared HBM) is recorded per tensor, core and
kind (read / write) with its epoch, its byte bounding interval and an exact description
of its elements (a strided view: offset, shape, byte strides; or explicit element
offsets for an indirect DMA). A new access is compared with the other cores' accesses
not ordered before it whose intervals meet its own (writes against reads and writes,
reads against writes), then, for those, element by element: strided views whose
intervals overlap but whose elements do not are not a race. An access is forgotten
once every other core is ordered after it. The check does not depend on the schedule:
every pair of conflicting accesses is compared when the second of the two runs,
whichever core that is.

At nisa the accesses come from :class:`HbmListener` (an interpreter listener, which
sees every op with its operand values, in loops too): each ``nisa`` op reads its array
operands and writes the ones it declares written; an indirect DMA touches only the
rows its index selects. At bir the interpreter reports each HBM access pattern it moves
(:meth:`RaceChecker.access_pattern`, :meth:`RaceChecker.access_offsets`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FileLineColLoc
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import InterpretationError

from mxdsl.interpreters.fast_path import written_operands


class SpmdError(InterpretationError):
    """A multi-core failure (deadlock, mismatched exchange, HBM race, a failing core)."""


class HbmRaceError(SpmdError):
    """Two cores touched the same HBM bytes, at least one writing, unordered."""


def location(op: Operation) -> str:
    """``f.mlir:3:5`` of ``op``, or ``""`` without a location."""
    where = op.location
    if isinstance(where, FileLineColLoc):
        return f"{where.filename.data}:{where.line.data}:{where.column.data}"
    return ""


def describe_op(op: Operation) -> str:
    """``nisa.sendrecv at f.mlir:3:5`` (or without a location)."""
    where = location(op)
    return f"{op.name} at {where}" if where else f"{op.name} (no location)"


# ------------------------------------------------------------------ descriptions

Elements = tuple[Any, ...] | np.ndarray
"""An access's element byte offsets from its tensor's start: a strided view
``(offset, shape, byte strides)``; an indexed one ``(offset, shape, byte strides, dim,
index)`` whose position ``i`` along ``dim`` is at ``index[i] * strides[dim]`` (an indirect
DMA: only the index is kept, not every element); or an explicit array of offsets."""


def element_starts(elements: Elements) -> np.ndarray:
    """Every element's first byte offset (flat, int64)."""
    if isinstance(elements, np.ndarray):
        return elements.reshape(-1).astype(np.int64, copy=False)
    offset, shape, strides = elements[:3]
    indexed = elements[3] if len(elements) == 5 else None
    starts = np.full((1,) * len(shape), offset, dtype=np.int64)
    for dim, (size, stride) in enumerate(zip(shape, strides, strict=True)):
        axis = [1] * len(shape)
        axis[dim] = size
        steps = elements[4] if dim == indexed else np.arange(size, dtype=np.int64)
        starts = starts + (steps * stride).reshape(axis)
    return np.broadcast_to(starts, shape).reshape(-1)


def _bounds(elements: Elements, itemsize: int) -> tuple[int, int] | None:
    """The byte interval ``[lo, hi)`` the elements span; None when there are none."""
    if isinstance(elements, np.ndarray):
        if elements.size == 0:
            return None
        return int(elements.min()), int(elements.max()) + itemsize
    offset, shape, strides = elements[:3]
    if any(size == 0 for size in shape):
        return None
    indexed = elements[3] if len(elements) == 5 else None
    lo = hi = offset
    for dim, (n, s) in enumerate(zip(shape, strides, strict=True)):
        if dim == indexed:
            ends = (int(elements[4].min()) * s, int(elements[4].max()) * s)
        else:
            ends = (0, (n - 1) * s)
        lo, hi = lo + min(ends), hi + max(ends)
    return lo, hi + itemsize


Box = tuple[tuple[int, int], ...] | None
"""The elements' index bounding box in their tensor, ``(low, high)`` per dim (high
exclusive); None when unknown (then only the byte interval filters)."""


def strided_box(
    offset: int, shape: Sequence[int], strides: Sequence[int], tensor: np.ndarray
) -> Box:
    """The index box in ``tensor`` (C-contiguous) of the strided view ``(offset, shape,
    strides)``, each view dim moving along one tensor dim; None when one does not."""
    if not tensor.flags.c_contiguous or tensor.ndim == 0:
        return None
    dims = tensor.strides
    origin = []
    rest = offset
    for stride in dims:
        index, rest = divmod(rest, stride)
        origin.append(index)
    low, high = list(origin), [i + 1 for i in origin]
    for n, s in zip(shape, strides, strict=True):
        if n == 1:
            continue
        k = next((k for k, t in enumerate(dims) if t <= abs(s) and abs(s) % t == 0), None)
        if k is None:
            return None
        move = (s // dims[k]) * (n - 1)
        low[k], high[k] = min(low[k], low[k] + move), max(high[k], high[k] + move)
        if low[k] < 0 or high[k] > tensor.shape[k]:
            return None
    return tuple(zip(low, high, strict=True))


def offsets_box(starts: np.ndarray, tensor: np.ndarray) -> Box:
    """The index box in ``tensor`` (C-contiguous) of elements at byte offsets ``starts``."""
    if not tensor.flags.c_contiguous or tensor.ndim == 0 or starts.size == 0:
        return None
    index = np.unravel_index(starts // tensor.itemsize, tensor.shape)
    return tuple((int(i.min()), int(i.max()) + 1) for i in index)


def _boxes_meet(a: Box, b: Box) -> bool:
    if a is None or b is None:
        return True
    return all(
        lo < other_hi and other_lo < hi for (lo, hi), (other_lo, other_hi) in zip(a, b, strict=True)
    )


def _same_rows(a: Elements, b: Elements, size: int) -> np.ndarray | None:
    """For two indexed accesses that are the same pattern apart from their rows (the same
    offset, shape apart from the indexed dim, strides and dim, the non-indexed part
    spanning at most one row step, so distinct rows never share a byte): the rows both
    touch. None for any other pair. Decides an indirect gather against a scatter from
    their indices alone."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) or len(a) != 5 or len(b) != 5:
        return None
    offset, shape, strides, dim, index = a
    if (offset, strides, dim) != (b[0], b[2], b[3]):
        return None
    if shape[:dim] + shape[dim + 1 :] != b[1][:dim] + b[1][dim + 1 :]:
        return None
    rest = zip(shape, strides, strict=True)
    span = sum(abs(s) * (n - 1) for k, (n, s) in enumerate(rest) if k != dim)
    if span + size > abs(strides[dim]):
        return None
    return np.intersect1d(index, b[4])


def overlapping_bytes(
    a: Elements, a_size: int, b: Elements, b_size: int, window: tuple[int, int]
) -> np.ndarray:
    """The byte offsets inside ``window`` that elements of both ``a`` and ``b`` cover."""
    rows = _same_rows(a, b, a_size) if a_size == b_size else None
    if rows is not None:  # exactly the elements of the common rows
        if rows.size == 0:
            return np.empty(0, dtype=np.int64)
        offset, shape, strides, dim, _ = a  # pyright: ignore[reportGeneralTypeIssues]
        a = b = (offset, shape[:dim] + (rows.size,) + shape[dim + 1 :], strides, dim, rows)
    lo, hi = window
    covered = []
    for elements, size in ((a, a_size), (b, b_size)):
        starts = element_starts(elements)
        starts = starts[(starts < hi) & (starts + size > lo)]
        spread = (starts[:, None] + np.arange(size, dtype=np.int64)).reshape(-1)
        covered.append(spread[(spread >= lo) & (spread < hi)])
    return np.intersect1d(covered[0], covered[1])


# ------------------------------------------------------------------------- logs


class _Log:
    """One core's reads or writes of one tensor: growable arrays of byte intervals and
    epochs, and each access's op and elements."""

    __slots__ = ("count", "epoch", "hi", "info", "lo")

    def __init__(self) -> None:
        self.lo = np.empty(16, dtype=np.int64)
        self.hi = np.empty(16, dtype=np.int64)
        self.epoch = np.empty(16, dtype=np.int64)
        self.info: list[tuple[Operation, Elements, int, Box]] = []
        self.count = 0

    def add(self, lo: int, hi: int, epoch: int, info: tuple[Operation, Elements, int, Box]) -> None:
        n = self.count
        if n == len(self.lo):
            self.lo, self.hi, self.epoch = (
                np.concatenate([x, np.empty_like(x)]) for x in (self.lo, self.hi, self.epoch)
            )
        self.lo[n], self.hi[n], self.epoch[n] = lo, hi, epoch
        self.info.append(info)
        self.count = n + 1

    def candidates(self, lo: int, hi: int, known: int) -> np.ndarray:
        """Accesses meeting ``[lo, hi)`` in an epoch after ``known``."""
        n = self.count
        if n == 0:
            return np.empty(0, dtype=np.int64)
        hit = (self.lo[:n] < hi) & (self.hi[:n] > lo) & (self.epoch[:n] > known)
        return np.flatnonzero(hit)

    def forget(self, frontier: int) -> None:
        """Drop the accesses of epochs up to ``frontier``."""
        n = self.count
        if n == 0 or int(self.epoch[:n].min()) > frontier:
            return
        keep = np.flatnonzero(self.epoch[:n] > frontier)
        self.lo[: len(keep)] = self.lo[keep]
        self.hi[: len(keep)] = self.hi[keep]
        self.epoch[: len(keep)] = self.epoch[keep]
        self.info = [self.info[int(i)] for i in keep]
        self.count = len(keep)


class _Tensor:
    """One HBM argument: its name, memory and every core's reads and writes."""

    def __init__(self, name: str, array: np.ndarray, cores: int, index: int) -> None:
        self.name = name
        self.index = index  # its position in RaceChecker.all_tensors
        self.array = array
        self.start = int(array.__array_interface__["data"][0])
        self.nbytes = array.nbytes
        self.logs = [(_Log(), _Log()) for _ in range(cores)]  # (reads, writes) per core

    def index_range(self, offsets: np.ndarray) -> str:
        """``name[a:b, c:d]``: the bounding box of the elements holding ``offsets``."""
        array = self.array
        if not array.flags.c_contiguous or array.ndim == 0:
            return f"{self.name} bytes [{int(offsets.min())}, {int(offsets.max()) + 1})"
        index = np.unravel_index(offsets // array.itemsize, array.shape)
        dims = ", ".join(f"{int(i.min())}:{int(i.max()) + 1}" for i in index)
        return f"{self.name}[{dims}]"


class RaceChecker:
    """The HBM accesses of one SPMD run of ``cores`` programs (module docstring)."""

    def __init__(self, cores: int) -> None:
        self.cores = cores
        self.lock = threading.Lock()
        # epochs start at 1: entry 0 of another core's clock means "ordered after nothing"
        self.clocks = [[int(a == b) for a in range(cores)] for b in range(cores)]
        self.tensors: dict[int, list[_Tensor]] = {}  # by id of the memory's owner
        self.all_tensors: list[_Tensor] = []
        self._owners: list[Any] = []  # keeps the owners alive (their ids stay unique)

    def add_tensor(self, name: str, array: np.ndarray) -> None:
        """Check accesses to ``array`` (an argument: HBM) as tensor ``name``, every
        element of it."""
        owner = array if array.base is None else array.base
        self._owners.append(owner)
        tensor = _Tensor(name, array, self.cores, len(self.all_tensors))
        self.tensors.setdefault(id(owner), []).append(tensor)
        self.all_tensors.append(tensor)

    def tensor_of(self, array: np.ndarray) -> tuple[_Tensor, int] | None:
        """The HBM tensor ``array`` views and its byte offset there, or None."""
        owner = array if array.base is None else array.base
        tensors = self.tensors.get(id(owner))
        if tensors is None:
            return None
        address = int(array.__array_interface__["data"][0])
        for tensor in tensors:
            if tensor.start <= address < tensor.start + max(tensor.nbytes, 1):
                return tensor, address - tensor.start
        return None

    # ------------------------------------------------------------ synchronization

    def post(self, rank: int) -> tuple[int, ...]:
        """``rank`` reaches a synchronization: the clock it tells its partners; its
        next accesses are a new epoch."""
        with self.lock:
            clock = self.clocks[rank]
            snapshot = tuple(clock)
            clock[rank] += 1
        return snapshot

    def complete(self, rank: int, learned: Sequence[tuple[int, ...]], _waits: Any = None) -> None:
        """``rank``'s synchronization completed having learned the partners' clocks:
        merge them, then forget the accesses every core is now ordered after."""
        with self.lock:
            clock = self.clocks[rank]
            for other in learned:
                for i, value in enumerate(other):
                    if value > clock[i]:
                        clock[i] = value
            frontier = [
                min(self.clocks[c][a] for c in range(self.cores) if c != a)
                for a in range(self.cores)
            ]
            for tensors in self.tensors.values():
                for tensor in tensors:
                    for a, (reads, writes) in enumerate(tensor.logs):
                        reads.forget(frontier[a])
                        writes.forget(frontier[a])

    # ------------------------------------------------------------------- accesses

    def access_array(
        self, rank: int, op: Operation, array: Any, write: bool, indirect: Any = None
    ) -> None:
        """``op`` of core ``rank`` reads or writes the numpy view ``array``; ``indirect``
        ``(dim, index)``: only the positions ``index`` along ``dim`` (an indirect DMA)."""
        if not isinstance(array, np.ndarray):
            return
        found = self.tensor_of(array)
        if found is None:
            return
        tensor, offset = found
        if indirect is None:
            shape, strides = array.shape, array.strides
            box = strided_box(offset, shape, strides, tensor.array)
            self.access(rank, op, tensor, (offset, shape, strides), array.itemsize, write, box)
            return
        dim, index = indirect
        self._indexed(rank, op, tensor, offset, array.shape, array.strides, dim, index, write)

    def _indexed(
        self,
        rank: int,
        op: Operation,
        tensor: _Tensor,
        offset: int,
        shape: tuple[int, ...],
        strides: tuple[int, ...],
        dim: int,
        index: np.ndarray,
        write: bool,
        itemsize: int | None = None,
    ) -> None:
        """The elements of the strided view ``(offset, shape, strides)`` whose position
        along ``dim`` is ``index`` (each position ``i`` at ``index[i]``)."""
        if len(index) == 0:
            return
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        rest_shape = shape[:dim] + (1,) + shape[dim + 1 :]
        step = strides[dim]
        first, last = (
            strided_box(offset + int(i) * step, rest_shape, strides, tensor.array)
            for i in (index.min(), index.max())
        )
        box = None
        if first is not None and last is not None:
            box = tuple((min(a, c), max(b, d)) for (a, b), (c, d) in zip(first, last, strict=True))
        full_shape = shape[:dim] + (len(index),) + shape[dim + 1 :]
        elements = (offset, full_shape, strides, dim, index)
        size = tensor.array.itemsize if itemsize is None else itemsize
        self.access(rank, op, tensor, elements, size, write, box)

    def access_pattern(
        self,
        rank: int,
        op: Operation,
        tensor_bytes: np.ndarray,
        start: int,
        pairs: Sequence[tuple[int, int]],
        size: int,
        write: bool,
    ) -> None:
        """A bir access pattern over an HBM tensor's bytes (``tensor_bytes``, a view of
        the whole tensor): elements ``start + size * sum(i_k * step_k)``."""
        found = self.tensor_of(tensor_bytes)
        if found is None:
            return
        tensor, offset = found
        shape = tuple(num for _, num in pairs)
        strides = tuple(step * size for step, _ in pairs)
        box = strided_box(offset + start, shape, strides, tensor.array)
        self.access(rank, op, tensor, (offset + start, shape, strides), size, write, box)

    def access_indexed(
        self,
        rank: int,
        op: Operation,
        tensor_bytes: np.ndarray,
        start: int,
        pairs: Sequence[tuple[int, int]],
        size: int,
        dim: int,
        index: np.ndarray,
        write: bool,
    ) -> None:
        """A bir indexed pattern: as :meth:`access_pattern`, but pair ``dim`` visits
        ``index[i] * step`` (the valid indices of an indirect DMA)."""
        found = self.tensor_of(tensor_bytes)
        if found is None:
            return
        tensor, offset = found
        shape = tuple(num for _, num in pairs)
        strides = tuple(step * size for step, _ in pairs)
        self._indexed(rank, op, tensor, offset + start, shape, strides, dim, index, write, size)

    def access_offsets(
        self,
        rank: int,
        op: Operation,
        tensor_bytes: np.ndarray,
        starts: np.ndarray,
        size: int,
        write: bool,
    ) -> None:
        """Explicit element byte offsets ``starts`` into an HBM tensor's bytes."""
        found = self.tensor_of(tensor_bytes)
        if found is None:
            return
        tensor, offset = found
        elements = np.asarray(starts, dtype=np.int64) + offset
        box = offsets_box(elements, tensor.array)
        self.access(rank, op, tensor, elements, size, write, box)

    def access(
        self,
        rank: int,
        op: Operation,
        tensor: _Tensor,
        elements: Elements,
        itemsize: int,
        write: bool,
        box: Box = None,
    ) -> None:
        """Check one access against the other cores' unordered ones, then record it;
        ``box``: the elements' index bounding box in the tensor, if known (a filter)."""
        bounds = _bounds(elements, itemsize)
        if bounds is None:
            return
        lo, hi = bounds
        with self.lock:
            clock = self.clocks[rank]
            for other in range(self.cores):
                if other == rank:
                    continue
                reads, writes = tensor.logs[other]
                for log in (writes, reads) if write else (writes,):
                    for i in log.candidates(lo, hi, clock[other]):
                        other_op, other_elements, other_size, other_box = log.info[int(i)]
                        if not _boxes_meet(box, other_box):
                            continue
                        window = (max(lo, int(log.lo[i])), min(hi, int(log.hi[i])))
                        common = overlapping_bytes(
                            elements, itemsize, other_elements, other_size, window
                        )
                        if common.size:
                            raise HbmRaceError(
                                _race_message(
                                    tensor,
                                    common,
                                    (rank, op, write),
                                    (other, other_op, log is writes),
                                )
                            )
            log = tensor.logs[rank][1 if write else 0]
            log.add(lo, hi, clock[rank], (op, elements, itemsize, box))

    def replay(self, rank: int, records: Sequence[Record], op_of: Any) -> None:
        """Check and record the accesses an :class:`AccessRecorder` of core ``rank``
        recorded, in their order (``op_of(id)``: the op of a recorded op id)."""
        for tensor, op, elements, itemsize, write, box in records:
            self.access(rank, op_of(op), self.all_tensors[tensor], elements, itemsize, write, box)


Record = tuple[int, int, Elements, int, bool, Box]
"""One recorded access: tensor index, id of the op, elements, item size, write, box."""


class AccessRecorder(RaceChecker):
    """Describes one core's HBM accesses as ``checker`` does (the same tensors, the
    same element descriptions) but records them instead of checking them: in a core's
    own process (:mod:`mxdsl.interpreters.spmd_processes`), whose records the
    coordinator's checker replays (:meth:`RaceChecker.replay`)."""

    def __init__(self, checker: RaceChecker) -> None:
        super().__init__(checker.cores)
        self.tensors = checker.tensors
        self.all_tensors = checker.all_tensors
        self.records: list[Record] = []

    def access(
        self,
        rank: int,
        op: Operation,
        tensor: _Tensor,
        elements: Elements,
        itemsize: int,
        write: bool,
        box: Box = None,
    ) -> None:
        self.records.append((tensor.index, id(op), elements, itemsize, write, box))

    def take(self) -> list[Record]:
        """The records since the last call."""
        records, self.records = self.records, []
        return records


def _race_message(
    tensor: _Tensor,
    common: np.ndarray,
    this: tuple[int, Operation, bool],
    other: tuple[int, Operation, bool],
) -> str:
    def side(core: int, op: Operation, write: bool) -> str:
        return f"core {core} {'writes' if write else 'reads'} them in {describe_op(op)}"

    first, second = sorted((this, other), key=lambda s: s[0])  # the same text in any order
    return (
        f"HBM race on {tensor.index_range(common)}: {side(*first)}, and {side(*second)}, "
        "with no sendrecv or core_barrier between the two; order the accesses with a "
        "core_barrier or sendrecv, or give each core its own elements"
    )


# ------------------------------------------------------------------ nisa listener


_UNSEEN: Any = object()

_SYNC_OPS = frozenset(("nisa.sendrecv", "nisa.core_barrier"))
"""Checked by the SPMD scheduler itself (a sendrecv's src before, its dst after)."""


class _OpAccesses:
    """What one nisa op touches: the array operands it reads and writes, and for an
    indirect DMA the indexed operand, its dim and the index operand."""

    __slots__ = ("indirect", "reads", "writes")

    def __init__(self, op: Operation) -> None:
        written = written_operands(op)
        operands = range(len(op.operands))
        self.writes = tuple(operands) if written is None else written
        self.reads = () if written is None else tuple(i for i in operands if i not in written)
        self.indirect: tuple[int, int, int] | None = None
        dim = getattr(op, "indirect_dim", None)
        for side, index_name in (("dst", "dst_index"), ("src", "src_index")):
            index = getattr(op, index_name, None)
            if isinstance(index, SSAValue) and dim is not None:
                indexed = getattr(op, side)
                position = list(op.operands).index(indexed)
                self.indirect = (position, dim.value.data, list(op.operands).index(index))


class HbmListener(Interpreter.Listener):
    """Reports every ``nisa`` op's accesses of core ``rank`` to ``checker``."""

    spmd_process_safe = True  # one per core, reporting to its core's checker or recorder

    def __init__(self, checker: RaceChecker, rank: int) -> None:
        self.checker = checker
        self.rank = rank
        self._ops: dict[Operation, _OpAccesses | None] = {}

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        accesses = self._ops.get(op, _UNSEEN)
        if accesses is _UNSEEN:
            nisa_op = op.name.startswith("nisa.") and op.name not in _SYNC_OPS
            accesses = self._ops[op] = _OpAccesses(op) if nisa_op else None
        if accesses is None:
            return
        indirect = accesses.indirect
        for position in accesses.reads:
            self._one(op, args, position, False, indirect)
        for position in accesses.writes:
            self._one(op, args, position, True, indirect)

    def _one(
        self,
        op: Operation,
        args: PythonValues,
        position: int,
        write: bool,
        indirect: tuple[int, int, int] | None,
    ) -> None:
        value = args[position]
        if not isinstance(value, np.ndarray):
            return
        if indirect is None or indirect[0] != position:
            self.checker.access_array(self.rank, op, value, write)
            return
        _, dim, index_position = indirect
        index = np.asarray(args[index_position]).reshape(-1).astype(np.int64)
        size = value.shape[dim]
        index = index[(index >= 0) & (index < size)]  # out of range: skipped or an error
        self.checker.access_array(self.rank, op, value, write, (dim, index))


__all__ = [
    "AccessRecorder",
    "HbmListener",
    "HbmRaceError",
    "RaceChecker",
    "SpmdError",
    "describe_op",
    "element_starts",
    "overlapping_bytes",
]
