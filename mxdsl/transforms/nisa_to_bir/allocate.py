"""``nisa-allocate``: the allocation half of ``lower-nisa-to-bir``.

Every on-chip buffer (``memref.alloc`` in ``#nisa.mem<sbuf>`` / ``<psum>``) gets a
per-partition byte address: first fit over live ranges. A buffer's live range runs from
its ``alloc`` to its last use (through its views); a use inside a loop that does not
contain the alloc keeps the buffer alive to the end of that loop. Buffers whose ranges do
not overlap share bytes; a buffer allocated inside a loop has one address for every
iteration. Addresses are multiples of :data:`ALIGNMENT`; in PSUM a buffer of at most one
bank (2 KiB per partition) never straddles a bank boundary and a larger one starts on a
bank. The capacities are the target's (:mod:`mxdsl.targets`, trn3 by default); a buffer
that does not fit is a located diagnostic naming it with the bytes requested, available,
the capacity and the live buffers holding the rest. The address is recorded on the
``memref.alloc`` as ``nisa.address``."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects.bir import Memory
from mxdsl.targets import DEFAULT_TARGET, Target, current_target, get_target
from mxdsl.transforms.nisa_to_bir.patterns import (
    ALIGNMENT,
    KEPT_NISA,
    LIVE_BUFFERS_SHOWN,
    PASS_NAME,
    VIEW_OPS,
    element_size,
    memory_of,
    memref_of,
    name_of,
)

# ----------------------------------------------------------------------------- allocation


@dataclass
class Allocation:
    """Where one on-chip buffer lives: ``address`` is its first byte in each of its
    partitions (0 .. ``partitions`` - 1) of ``memory``; ``size`` bytes per partition
    (aligned); live from op position ``start`` to ``end`` (pre-order positions)."""

    alloc: memref.AllocOp
    memory: Memory
    partitions: int
    size: int  # bytes per partition, aligned
    start: int
    end: int
    address: int = -1


@dataclass
class Allocator:
    """First-fit placement of on-chip buffers over their live ranges (module docstring),
    within ``target``'s capacities."""

    target: Target = DEFAULT_TARGET
    buffers: list[Allocation] = field(default_factory=list[Allocation])
    base: dict[Memory, int] = field(default_factory=dict[Memory, int])
    """The first byte each memory's buffers may use: above every buffer of the functions
    that call this one (:func:`frame_base`)."""

    def capacity(self, memory: Memory) -> int:
        if memory == Memory.PSUM:
            return self.target.psum_partition_bytes
        return self.target.sbuf_partition_bytes

    def _candidates(self, memory: Memory, size: int, taken: list[Allocation]) -> list[int]:
        low = self.base.get(memory, 0)
        starts = sorted({low, *(b.address + b.size for b in taken)})
        out: list[int] = []
        for start in starts:
            if memory == Memory.PSUM:
                bank = self.target.psum_bank_bytes
                if size > bank:
                    start = -(-start // bank) * bank
                elif start // bank != (start + size - 1) // bank:
                    start = (start // bank + 1) * bank
            out.append(start)
        return sorted(out)

    def place(self, buffer: Allocation) -> None:
        capacity = self.capacity(buffer.memory)
        live = [
            b
            for b in self.buffers
            if b.memory == buffer.memory and b.start <= buffer.end and buffer.start <= b.end
        ]
        for start in self._candidates(buffer.memory, buffer.size, live):
            end = start + buffer.size
            if end <= capacity and all(
                end <= b.address or b.address + b.size <= start for b in live
            ):
                buffer.address = start
                self.buffers.append(buffer)
                return
        gaps = _free_ranges(capacity, live)
        largest = max((hi - lo for lo, hi in gaps), default=0)
        held = capacity - sum(hi - lo for lo, hi in gaps)  # live buffers may share bytes
        t = buffer.alloc.memref.type
        shown = sorted(live, key=lambda b: -b.size)[:LIVE_BUFFERS_SHOWN]
        names = ", ".join(f"{name_of(b.alloc.memref)} {b.size} B at {b.address}" for b in shown)
        more = f", and {len(live) - len(shown)} more" if len(live) > len(shown) else ""
        raise OpDiagnostic(
            buffer.alloc,
            f"{PASS_NAME}: {buffer.memory.value} buffer {name_of(buffer.alloc.memref)} ({t}) "
            f"needs {buffer.size} bytes per partition, but only {largest} contiguous bytes are "
            f"available ({capacity - held} free; {held} held by {len(live)} live buffer(s)) "
            f"of the {capacity}-byte {buffer.memory.value} partition of {self.target.name}"
            + (f"; live: {names}{more}" if live else ""),
        )

    def peak(self, memory: Memory) -> int:
        """Bytes per partition the placement uses: the end of the highest buffer (the
        base when there is none)."""
        return max(
            (b.address + b.size for b in self.buffers if b.memory == memory),
            default=self.base.get(memory, 0),
        )


def _free_ranges(capacity: int, live: Sequence[Allocation]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    cursor = 0
    for b in sorted(live, key=lambda b: b.address):
        if b.address > cursor:
            ranges.append((cursor, b.address))
        cursor = max(cursor, b.address + b.size)
    if cursor < capacity:
        ranges.append((cursor, capacity))
    return ranges


def _number(function: func.FuncOp) -> tuple[dict[Operation, int], dict[Operation, int]]:
    """Pre-order positions of every op and the last position inside each op."""
    order: dict[Operation, int] = {}
    last: dict[Operation, int] = {}

    def visit(op: Operation) -> None:
        order[op] = len(order)
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    visit(inner)
        last[op] = len(order) - 1

    for block in function.body.blocks:
        for op in block.ops:
            visit(op)
    return order, last


def users_of(value: SSAValue) -> list[Operation]:
    """The ops that use ``value`` directly or through views."""
    out: list[Operation] = []
    for use in value.uses:
        user = use.operation
        if isinstance(user, VIEW_OPS):
            out.extend(users_of(user.results[0]))
        else:
            out.append(user)
    return out


def _live_end(
    alloc: Operation,
    users: Sequence[Operation],
    order: dict[Operation, int],
    last: dict[Operation, int],
) -> int:
    end = order[alloc]
    for user in users:
        end = max(end, order[user])
        parent = user.parent_op()
        while parent is not None and parent in order and not parent.is_ancestor(alloc):
            end = max(end, last[parent])  # a loop around the use but not around the alloc
            parent = parent.parent_op()
    return end


# ----------------------------------------------------------------------------- the pass


ADDRESS_ATTR = "nisa.address"
"""Set by ``nisa-allocate`` on every on-chip ``memref.alloc``: the buffer's first byte in
each of its partitions; read by ``nisa-select``."""


def _refuse(op: Operation, message: str) -> OpDiagnostic:
    return OpDiagnostic(op, f"{PASS_NAME}: {message}")


def check_kernel(function: func.FuncOp) -> None:
    """What both halves refuse first: hlo left over, an on-chip argument."""
    for op in function.walk():
        if op.dialect_name() == "hlo":
            raise _refuse(op, "an hlo op is left; run lower-hlo-to-nisa first")
    for arg in function.args:
        if isinstance(arg.type, MemRefType) and memory_of(memref_of(arg)) != Memory.HBM:
            raise _refuse(
                function,
                f"argument {arg.index} is an on-chip buffer ({arg.type}); a kernel's "
                "arguments are HBM tensors",
            )


def allocate_function(
    function: func.FuncOp,
    target: Target = DEFAULT_TARGET,
    base: dict[Memory, int] | None = None,
) -> tuple[Allocator, dict[SSAValue, Allocation]]:
    """Place every on-chip buffer of ``function`` (module docstring of
    :mod:`mxdsl.transforms.nisa_to_bir`): the placement and each buffer's allocation, by
    its ``memref.alloc`` result. An OpDiagnostic when a buffer cannot be placed."""
    order, last = _number(function)
    buffers: dict[SSAValue, Allocation] = {}
    allocator = Allocator(target, base=dict(base or {}))
    for op in function.walk():
        if not isinstance(op, memref.AllocOp):
            continue
        t = memref_of(op.memref)
        memory = memory_of(t)
        if memory == Memory.HBM:
            continue
        shape = t.get_shape()
        if not shape or any(s < 0 for s in shape) or op.dynamic_sizes:
            raise _refuse(op, f"an on-chip buffer needs a static shape, got {t}")
        partitions = target.partitions
        if shape[0] > partitions:
            raise _refuse(
                op,
                f"{name_of(op.memref)} ({t}) has {shape[0]} partitions; "
                f"{memory.value} has {partitions}",
            )
        try:
            esize = element_size(t.get_element_type())
        except Exception as err:
            raise _refuse(op, str(err)) from None
        raw = math.prod(shape[1:]) * esize
        size = -(-raw // ALIGNMENT) * ALIGNMENT
        users = users_of(op.memref)
        for user in users:
            if user.dialect_name() != "nisa" and not isinstance(user, memref.DeallocOp):
                raise _refuse(
                    user,
                    f"uses the on-chip buffer {name_of(op.memref)}; only nisa ops can be "
                    f"lowered onto its address",
                )
        buffer = Allocation(
            op, memory, shape[0], size, order[op], _live_end(op, users, order, last)
        )
        allocator.place(buffer)
        buffers[op.memref] = buffer
    return allocator, buffers


def annotate(buffers: dict[SSAValue, Allocation]) -> None:
    """Record each placed buffer's address on its ``memref.alloc`` (:data:`ADDRESS_ATTR`)."""
    for buffer in buffers.values():
        buffer.alloc.attributes[ADDRESS_ATTR] = IntegerAttr(buffer.address, 64)


def allocate_kernel(
    function: func.FuncOp, target: Target, base: dict[Memory, int] | None = None
) -> Allocator:
    """``nisa-allocate`` on one kernel: check it, place its buffers (from ``base`` up),
    record the addresses."""
    check_kernel(function)
    allocator, buffers = allocate_function(function, target, base)
    annotate(buffers)
    return allocator


def usage_line(function: func.FuncOp, allocator: Allocator) -> str:
    """``lower-nisa-to-bir: @main on trn3: sbuf 1536 of 262144 bytes per partition (5
    buffers), psum 2048 of 16384 (1 buffer)``: the placement's peak per memory."""
    parts = []
    for memory in (Memory.SBUF, Memory.PSUM):
        count = sum(b.memory == memory for b in allocator.buffers)
        parts.append(
            f"{memory.value} {allocator.peak(memory)} of {allocator.capacity(memory)} bytes "
            f"per partition ({count} buffer{'s' if count != 1 else ''})"
        )
    return f"{PASS_NAME}: @{function.sym_name.data} on {allocator.target.name}: " + ", ".join(parts)


def allocate(function: func.FuncOp, target: Target = DEFAULT_TARGET) -> dict[SSAValue, Allocation]:
    """The address of every on-chip buffer of a nisa kernel (what the pass uses), keyed
    by the ``memref.alloc`` result; an OpDiagnostic when one does not fit."""
    return allocate_function(function, target)[1]


def peak_usage(function: func.FuncOp, target: Target = DEFAULT_TARGET) -> dict[Memory, int]:
    """Bytes per partition of SBUF and PSUM the allocation of a nisa kernel uses."""
    allocator, _ = allocate_function(function, target)
    return {m: allocator.peak(m) for m in (Memory.SBUF, Memory.PSUM)}


def needs_lowering(function: func.FuncOp) -> bool:
    """A function with nisa to lower, or with hlo left over (refused when lowering)."""
    for op in function.walk():
        if op.dialect_name() == "hlo":
            return True
        if op.dialect_name() == "nisa" and not isinstance(op, KEPT_NISA):
            return True
        if isinstance(op, memref.AllocOp) and memory_of(memref_of(op.memref)) != Memory.HBM:
            return True
    return False


@dataclass(frozen=True)
class NisaAllocatePass(ModulePass):
    """The allocation half of ``lower-nisa-to-bir``: give every on-chip buffer of every
    nisa kernel its SBUF / PSUM address (first fit over live ranges, within ``target``'s
    capacities), recorded as ``nisa.address`` on its ``memref.alloc``. ``print-usage``
    writes each kernel's peak bytes per partition to stderr. Its diagnostics are
    ``lower-nisa-to-bir``'s."""

    name = "nisa-allocate"

    target: str | None = None
    """``trn3`` / ``trn2``; unset: the tool's ``--target`` (:func:`current_target`)."""
    print_usage: bool = False

    def __post_init__(self) -> None:
        if self.target is not None:
            get_target(self.target)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = current_target() if self.target is None else get_target(self.target)
        for function, allocator in allocate_module(op, target):
            if self.print_usage:
                print(usage_line(function, allocator), file=sys.stderr)


def allocate_module(module: ModuleOp, target: Target) -> list[tuple[func.FuncOp, Allocator]]:
    """``nisa-allocate`` on every kernel of ``module``, callers before the functions they
    call, each kernel's buffers above those of its callers (:func:`frame_base`): the
    kernels and their placements, in that order."""
    functions = [o for o in module.walk() if isinstance(o, func.FuncOp)]
    lowered = [f for f in functions if needs_lowering(f) and not f.is_declaration]
    peaks: dict[func.FuncOp, dict[Memory, int]] = {}
    placed: list[tuple[func.FuncOp, Allocator]] = []
    for function in callers_first(functions, lowered):
        base = frame_base(function, peaks)
        if function not in lowered:
            peaks[function] = base  # what it calls sits above its callers' buffers too
            continue
        allocator = allocate_kernel(function, target, base)
        peaks[function] = {m: allocator.peak(m) for m in (Memory.SBUF, Memory.PSUM)}
        placed.append((function, allocator))
    return placed


def _calls(function: func.FuncOp) -> list[func.CallOp]:
    return [op for op in function.walk() if isinstance(op, func.CallOp)]


def callers_first(
    functions: Sequence[func.FuncOp], lowered: Sequence[func.FuncOp]
) -> list[func.FuncOp]:
    """``functions`` ordered so that each comes after every function that calls it.
    On-chip buffers have no call stack: a call cycle through a kernel with on-chip
    buffers (``lowered``) is refused at a call of the cycle."""
    by_name = {f.sym_name.data: f for f in functions}
    callees = {f: [by_name.get(c.callee.string_value()) for c in _calls(f)] for f in functions}
    callers: dict[func.FuncOp, list[func.FuncOp]] = {f: [] for f in functions}
    for caller, called in callees.items():
        for callee in called:
            if callee is not None:
                callers[callee].append(caller)
    ordered: list[func.FuncOp] = []
    waiting = {f: len(set(callers[f])) for f in functions}
    ready = [f for f in functions if waiting[f] == 0]
    while ready:
        function = ready.pop(0)
        ordered.append(function)
        for callee in dict.fromkeys(c for c in callees[function] if c is not None):
            waiting[callee] -= 1
            if waiting[callee] == 0:
                ready.append(callee)
    cyclic = [f for f in functions if f not in ordered]
    for function in cyclic:
        if function in lowered:
            call = next(
                c for c in _calls(function) if by_name.get(c.callee.string_value()) in cyclic
            )
            raise _refuse(
                call,
                f"a recursive call of @{function.sym_name.data}, which has on-chip buffers "
                "or nisa ops: on-chip memory has no call stack; unroll the recursion",
            )
    return ordered + cyclic


def frame_base(
    function: func.FuncOp, peaks: dict[func.FuncOp, dict[Memory, int]]
) -> dict[Memory, int]:
    """Where ``function``'s on-chip buffers start: above every buffer of each function
    that calls it (allocated before it: :func:`callers_first`), so a callee never
    overwrites its caller's live buffers."""
    name = function.sym_name.data
    base: dict[Memory, int] = {}
    for caller, peak in peaks.items():
        if any(c.callee.string_value() == name for c in _calls(caller)):
            for memory, used in peak.items():
                base[memory] = max(base.get(memory, 0), used)
    return base
