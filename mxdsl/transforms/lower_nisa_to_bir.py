"""``lower-nisa-to-bir``: a nisa kernel becomes a bir kernel (``docs/lowering.md``).

The function keeps its name, arguments and results (HBM tensors in, HBM tensors out), so
``mx-run`` runs the nisa and the bir kernel with the same inputs and writes the same
outputs. Two jobs:

* **Memory allocation.** Every on-chip buffer (``memref.alloc`` in ``#nisa.mem<sbuf>`` /
  ``<psum>``) gets a per-partition byte address: first fit over live ranges. A buffer's
  live range runs from its ``alloc`` to its last use (through its views); a use inside a
  loop that does not contain the alloc keeps the buffer alive to the end of that loop.
  Buffers whose ranges do not overlap share bytes; a buffer allocated inside a loop has
  one address for every iteration. Addresses are multiples of :data:`ALIGNMENT`; in PSUM
  a buffer of at most one bank (2 KiB per partition) never straddles a bank boundary and
  a larger one starts on a bank. The capacities are the target's (``target`` option,
  :mod:`mxdsl.targets`, trn3 by default); a buffer that does not fit is a located
  diagnostic naming it with the bytes requested, available, the capacity and the live
  buffers holding the rest.
* **Instruction selection.** Every nisa op becomes bir instructions over access
  patterns (``#bir.ap``). The views (``memref.subview`` / ``expand_shape`` /
  ``collapse_shape`` / ``cast``) fold into the patterns: a view is a root buffer, a
  linear element offset (static plus loop-dependent ``index`` terms) and ``[size,
  stride]`` dims; on chip, linear element ``L`` of a buffer with ``F`` elements per
  partition is partition ``L // F``, element ``L % F``. Loop-dependent offsets become the
  run-time ``partition`` / ``offset`` operands of ``bir.dma`` (``arith`` on ``index``).
  A DMA whose on-chip side is not one arithmetic progression of partitions (the
  quadrant view of an MX scale tile) is split into several DMAs, statically.

HBM tensors stay SSA values: function arguments and ``memref.alloc`` in hbm. The
``memref.cast`` between ``ui32`` and x4 that lower-hlo-to-nisa puts at the boundary
disappears (a pattern's dtype code says how a tensor's bytes are read); an x4 HBM buffer
returned as ``ui32`` is allocated as ``ui32``. What has no bir equivalent yet is refused
with a located ``not supported by lower-nisa-to-bir yet`` diagnostic.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.loop_invariant_code_motion import move_loop_invariant_code

from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects import bir, nisa
from mxdsl.dialects.bir import AccessPatternAttr, Dtype, Memory
from mxdsl.targets import DEFAULT_TARGET, Target, current_target, get_target

PASS_NAME = "lower-nisa-to-bir"

LIVE_BUFFERS_SHOWN = 6
"""A "does not fit" diagnostic names at most this many live buffers (the largest)."""

ALIGNMENT = 64
"""Every on-chip buffer starts at a multiple of 64 bytes of its partitions."""

MAX_UNROLLED_DMAS = 1024
"""A DMA split into more pieces than this is refused (it would not be one DMA any more)."""

_VIEW_OPS = (
    memref.SubviewOp,
    memref.ExpandShapeOp,
    memref.CollapseShapeOp,
    memref.CastOp,
    nisa.ViewCastOp,
)
_KEPT_NISA = (nisa.ProgramIdOp, nisa.NumProgramsOp)
"""nisa ops that bir kernels use as they are (docs/bir.md)."""


class _Refusal(Exception):
    """Internal: something this pass cannot express (becomes an OpDiagnostic)."""


def _memref(value: SSAValue) -> MemRefType[Attribute]:
    t = value.type
    if not isinstance(t, MemRefType):
        raise _Refusal(f"expected a memref, got {t}")
    return t  # pyright: ignore[reportUnknownVariableType]


def _memory_of(t: MemRefType[Attribute]) -> Memory:
    space = nisa.memory_space_of(t)
    if space is None or space == nisa.MemorySpace.HBM:
        return Memory.HBM
    return Memory(space.value)


def _dtype(element_type: Attribute) -> Dtype:
    try:
        return bir.dtype_of_element_type(element_type)
    except ValueError as err:
        raise _Refusal(str(err)) from None


def _name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a buffer"


# ----------------------------------------------------------------------------- views


Dim = tuple[int, int]
"""``(size, stride)``, the stride in elements of the root buffer."""


@dataclass(frozen=True)
class _View:
    """A memref value as the root buffer it addresses: linear element offset
    ``offset + sum(coefficient * value)`` and ``dims`` enumerated row-major."""

    root: SSAValue
    memory: Memory
    element_type: Attribute
    offset: int
    terms: tuple[tuple[SSAValue, int], ...]
    dims: tuple[Dim, ...]

    @property
    def dtype(self) -> Dtype:
        return _dtype(self.element_type)


def _row_major(shape: Sequence[int]) -> tuple[Dim, ...]:
    strides: list[int] = []
    stride = 1
    for size in reversed(shape):
        strides.append(stride)
        stride *= size
    return tuple(zip(shape, reversed(strides), strict=True))


def _add_terms(
    terms: Sequence[tuple[SSAValue, int]], more: Sequence[tuple[SSAValue, int]]
) -> tuple[tuple[SSAValue, int], ...]:
    merged: dict[SSAValue, int] = dict(terms)
    for value, coefficient in more:
        merged[value] = merged.get(value, 0) + coefficient
    return tuple((v, c) for v, c in merged.items() if c)


def _element_size(t: Attribute) -> int:
    return bir.element_bytes(t)


class _Views:
    """Resolves memref values to :class:`_View` (memoized)."""

    def __init__(self) -> None:
        self.known: dict[SSAValue, _View] = {}

    def of(self, value: SSAValue) -> _View:
        if (view := self.known.get(value)) is None:
            view = self.known[value] = self._resolve(value)
        return view

    def _resolve(self, value: SSAValue) -> _View:
        t = _memref(value)
        owner = value.owner
        if isinstance(owner, memref.AllocOp | memref.GetGlobalOp) or isinstance(
            value, BlockArgument
        ):
            shape = tuple(t.get_shape())
            if any(s < 0 for s in shape):
                raise _Refusal(f"{_name(value)} has a dynamic shape {t}")
            if not isinstance(t.layout, NoneAttr):
                raise _Refusal(f"{_name(value)} has a layout {t}; a buffer is whole")
            return _View(value, _memory_of(t), t.get_element_type(), 0, (), _row_major(shape))
        if isinstance(owner, memref.SubviewOp):
            return self._subview(owner)
        if isinstance(owner, memref.ExpandShapeOp):
            source = self.of(owner.src)
            dims: list[Dim] = []
            shape = t.get_shape()
            for (size, stride), group in zip(source.dims, owner.reassociation, strict=True):
                assert isinstance(group, ArrayAttr)
                sizes = [shape[g.value.data] for g in group]  # pyright: ignore
                if math.prod(sizes) != size:
                    raise _Refusal(
                        f"memref.expand_shape splits a dim of {size} into {sizes}, which do "
                        "not multiply to it"
                    )
                inner = stride
                split: list[Dim] = []
                for s in reversed(sizes):
                    split.append((s, inner))
                    inner *= s
                dims.extend(reversed(split))
            return _View(
                source.root,
                source.memory,
                source.element_type,
                source.offset,
                source.terms,
                tuple(dims),
            )
        if isinstance(owner, memref.CollapseShapeOp):
            source = self.of(owner.src)
            dims = []
            for group in owner.reassociation:
                assert isinstance(group, ArrayAttr)
                members = [source.dims[g.value.data] for g in group]  # pyright: ignore
                merged = _merge_run([m for m in members if m[0] != 1])
                if merged is None:
                    raise _Refusal(
                        f"memref.collapse_shape merges dims {members} (size, stride) that are not "
                        "contiguous"
                    )
                dims.append(merged)
            return _View(
                source.root,
                source.memory,
                source.element_type,
                source.offset,
                source.terms,
                tuple(dims),
            )
        if isinstance(owner, (memref.CastOp, nisa.ViewCastOp)):
            source_value = owner.source if isinstance(owner, memref.CastOp) else owner.src
            source = self.of(source_value)
            element = t.get_element_type()
            if _element_size(element) != _element_size(source.element_type):
                if isinstance(owner, nisa.ViewCastOp):
                    return _rescaled(source, element, owner)
                raise _Refusal(
                    f"{owner.name} from {source_value.type} to {t} changes the element size"
                )
            return _View(
                source.root, source.memory, element, source.offset, source.terms, source.dims
            )
        what = owner.name if isinstance(owner, Operation) else "a block argument"
        raise _Refusal(f"a buffer made by {what} is not supported by {PASS_NAME} yet")

    def _subview(self, op: memref.SubviewOp) -> _View:
        source = self.of(op.source)
        dynamic = iter(op.offsets)
        if op.sizes or op.strides:
            raise _Refusal("a subview with dynamic sizes or strides has no static pattern")
        offsets: list[int | SSAValue] = [
            next(dynamic) if v == DYNAMIC_INDEX else int(v) for v in op.static_offsets.get_values()
        ]
        sizes = [int(v) for v in op.static_sizes.get_values()]
        strides = [int(v) for v in op.static_strides.get_values()]
        offset, terms = source.offset, list(source.terms)
        dims: list[Dim] = []
        for (_, src_stride), o, n, s in zip(source.dims, offsets, sizes, strides, strict=True):
            if isinstance(o, SSAValue):
                terms = list(_add_terms(terms, [(o, src_stride)]))
            else:
                offset += o * src_stride
            dims.append((n, s * src_stride))
        result_shape = list(_memref(op.result).get_shape())
        if len(result_shape) < len(dims):  # rank reduction: drop unit dims not in the result
            kept: list[Dim] = []
            for dim in dims:
                if len(kept) < len(result_shape) and result_shape[len(kept)] == dim[0]:
                    kept.append(dim)
                elif dim[0] != 1:
                    raise _Refusal(
                        f"memref.subview sizes {sizes} do not match its result shape "
                        f"{result_shape} (only unit dims may be dropped)"
                    )
            dims = kept
        return _View(
            source.root,
            source.memory,
            _memref(op.result).get_element_type(),
            offset,
            tuple(terms),
            tuple(dims),
        )


def _rescaled(source: _View, element: Attribute, op: nisa.ViewCastOp) -> _View:
    """An HBM view seen with a wider or narrower element (nisa.view_cast of FP8 lanes as x4
    words, or back): offsets, loop terms and strides change units; the last dim is
    contiguous and its size scales by the width ratio."""
    old_size, new_size = _element_size(source.element_type), _element_size(element)
    if source.memory != Memory.HBM:
        raise _Refusal(
            f"{op.name} from {op.src.type} to {op.result.type} changes the element size on "
            "chip; only HBM tensors are viewed with another element width"
        )
    dims = list(source.dims)
    if not dims or dims[-1][1] != 1:
        raise _Refusal(f"{op.name} changes the element size of a view whose last dim is strided")

    def convert(count: int) -> int | None:
        scaled = count * old_size
        return scaled // new_size if scaled % new_size == 0 else None

    last = convert(dims[-1][0])
    strides = [convert(stride) if size != 1 else 1 for size, stride in dims[:-1]]
    offset = convert(source.offset)
    terms = [(value, convert(c)) for value, c in source.terms]
    if last is None or offset is None or None in strides or any(c is None for _, c in terms):
        raise _Refusal(
            f"{op.name} from {op.src.type} to {op.result.type}: the view does not start and "
            f"step on whole {new_size}-byte elements"
        )
    new_dims = [(size, s) for (size, _), s in zip(dims[:-1], strides, strict=True)]
    return _View(
        source.root,
        source.memory,
        element,
        offset,
        tuple((v, c) for v, c in terms if c is not None),
        (*((size, s) for size, s in new_dims if s is not None), (last, 1)),
    )


def _merge_run(dims: Sequence[Dim]) -> Dim | None:
    """One dim for consecutive row-major dims, or None if they are not contiguous."""
    if not dims:
        return (1, 1)
    size, stride = dims[-1]
    for outer_size, outer_stride in reversed(dims[:-1]):
        if outer_stride != stride * size:
            return None
        size *= outer_size
    return (size, stride)


# ----------------------------------------------------------------------------- patterns


@dataclass
class _Side:
    """One pattern being built: the view's root, its buffer facts and where it starts."""

    view: _View
    per_partition: int  # F: elements per partition of the root (on chip)
    address: int  # byte address of the root buffer in its partitions (on chip)


def _classify(dims: Sequence[Dim], per_partition: int, free_start: int) -> list[tuple[str, Dim]]:
    """On-chip dims as partition (``p``, stride in partitions) or free (``f``) dims; size-1
    dims dropped; a dim crossing partitions split at the partition boundary."""
    out: list[tuple[str, Dim]] = []
    for size, stride in dims:
        if size == 1:
            continue
        if stride % per_partition == 0:
            out.append(("p", (size, stride // per_partition)))
        elif (
            stride < per_partition and per_partition % stride == 0 and stride * size > per_partition
        ):
            inner = per_partition // stride
            if size % inner:
                raise _Refusal(f"dim (size {size}, stride {stride}) crosses partitions unevenly")
            out.append(("p", (size // inner, 1)))
            out.append(("f", (inner, stride)))
        else:
            out.append(("f", (size, stride)))
    extent = free_start + sum((d[0] - 1) * d[1] for kind, d in out if kind == "f")
    if extent >= per_partition:
        raise _Refusal(
            f"a view's free elements reach element {extent} of a {per_partition}-element partition"
        )
    return out


def _merge_same(dims: Sequence[tuple[str, Dim]]) -> list[tuple[str, Dim]]:
    out: list[tuple[str, Dim]] = []
    for kind, (size, stride) in dims:
        if out and out[-1][0] == kind:
            outer_size, outer_stride = out[-1][1]
            if outer_stride == stride * size:
                out[-1] = (kind, (outer_size * size, stride))
                continue
        out.append((kind, (size, stride)))
    return out


def _hbm_merge(dims: Sequence[Dim]) -> list[Dim]:
    out: list[Dim] = []
    for size, stride in dims:
        if size == 1:
            continue
        if out and out[-1][1] == stride * size:
            out[-1] = (out[-1][0] * size, stride)
        else:
            out.append((size, stride))
    return out


def _pairs(dims: Sequence[Dim]) -> list[tuple[int, int]]:
    return [(stride, size) for size, stride in dims] or [(1, 1)]


def _split_inner(
    pairs: Sequence[tuple[int, int]], reduced: int
) -> tuple[list[tuple[int, int]], int] | None:
    """``pairs`` with their innermost ones enumerating exactly ``reduced`` elements, and
    how many they are: a pair straddling that boundary is split in two (step ``s``, num
    ``n`` = ``a * b`` -> ``(s * b, a), (s, b)``, the same elements in the same order);
    nothing reduced gets a ``(1, 1)`` pair. None when no split enumerates ``reduced``."""
    out = list(pairs)
    inner, count = 0, 1  # the innermost pairs taken, the elements they enumerate
    while count < reduced:
        if inner == len(out):
            return None
        at = len(out) - 1 - inner
        step, num = out[at]
        need = reduced // count  # count always divides reduced
        if need % num and num % need:  # neither is a block of the other
            return None
        if num > need:  # the pair's inner part completes the reduced elements
            out[at : at + 1] = [(step * need, num // need), (step, need)]
            num = need
        count *= num
        inner += 1
    if inner == 0:
        out.append((1, 1))
        inner = 1
    return out, inner


def _split_offset(side: _Side, offset: int) -> tuple[int, int]:
    """Static linear offset -> (partition, element in the partition)."""
    return divmod(offset, side.per_partition) if side.view.memory != Memory.HBM else (0, offset)


def _build_ap(side: _Side, offset: int, dims: Sequence[Dim]) -> AccessPatternAttr | None:
    """The pattern of ``dims`` from linear ``offset``, or None when it is not one pattern
    (on chip: several partition dims, or a partition dim inside the free ones)."""
    view = side.view
    dtype = view.dtype
    if view.memory == Memory.HBM:
        merged = _hbm_merge(dims)
        if len(merged) > bir.MAX_PATTERN_PAIRS:
            return None
        return bir.hbm_ap(_pairs(merged), dtype, offset * dtype.size)
    p0, f0 = _split_offset(side, offset)
    classified = _merge_same(_classify(dims, side.per_partition, f0))
    kinds = [k for k, _ in classified]
    if kinds.count("p") > 1 or ("p" in kinds and kinds[0] != "p"):
        return None
    np_, ps = 1, 1
    if kinds and kinds[0] == "p":
        np_, ps = classified[0][1]
        classified = classified[1:]
    free = [d for _, d in classified]
    if len(free) > bir.MAX_PATTERN_PAIRS:
        return None
    return AccessPatternAttr(
        view.memory,
        _pairs(free),
        dtype=dtype,
        offset=side.address + f0 * dtype.size,
        start_partition=p0,
        num_partitions=np_,
        partition_step=ps,
    )


def _refine(a: Sequence[Dim], b: Sequence[Dim]) -> list[tuple[int, int, int]] | None:
    """Common refinement of two row-major dim lists with the same element count:
    ``(size, stride_a, stride_b)`` each, or None if their sizes do not nest."""
    out: list[tuple[int, int, int]] = []
    xs, ys = [d for d in a if d[0] != 1], [d for d in b if d[0] != 1]
    while xs and ys:
        (na, sa), (nb, sb) = xs[0], ys[0]
        if na == nb:
            out.append((na, sa, sb))
            xs.pop(0)
            ys.pop(0)
        elif na % nb == 0:
            out.append((nb, sa * (na // nb), sb))
            xs[0] = (na // nb, sa)
            ys.pop(0)
        elif nb % na == 0:
            out.append((na, sa, sb * (nb // na)))
            ys[0] = (nb // na, sb)
            xs.pop(0)
        else:
            return None
    return out if not xs and not ys else None


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
class _Allocator:
    """First-fit placement of on-chip buffers over their live ranges (module docstring),
    within ``target``'s capacities."""

    target: Target = DEFAULT_TARGET
    buffers: list[Allocation] = field(default_factory=list[Allocation])

    def capacity(self, memory: Memory) -> int:
        if memory == Memory.PSUM:
            return self.target.psum_partition_bytes
        return self.target.sbuf_partition_bytes

    def _candidates(self, memory: Memory, size: int, taken: list[Allocation]) -> list[int]:
        starts = sorted({0, *(b.address + b.size for b in taken)})
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
        names = ", ".join(f"{_name(b.alloc.memref)} {b.size} B at {b.address}" for b in shown)
        more = f", and {len(live) - len(shown)} more" if len(live) > len(shown) else ""
        raise OpDiagnostic(
            buffer.alloc,
            f"{PASS_NAME}: {buffer.memory.value} buffer {_name(buffer.alloc.memref)} ({t}) "
            f"needs {buffer.size} bytes per partition, but only {largest} contiguous bytes are "
            f"available ({capacity - held} free; {held} held by {len(live)} live buffer(s)) "
            f"of the {capacity}-byte {buffer.memory.value} partition of {self.target.name}"
            + (f"; live: {names}{more}" if live else ""),
        )

    def peak(self, memory: Memory) -> int:
        """Bytes per partition the placement uses: the end of the highest buffer."""
        return max((b.address + b.size for b in self.buffers if b.memory == memory), default=0)


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


def _users(value: SSAValue) -> list[Operation]:
    """The ops that use ``value`` directly or through views."""
    out: list[Operation] = []
    for use in value.uses:
        user = use.operation
        if isinstance(user, _VIEW_OPS):
            out.extend(_users(user.results[0]))
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


@dataclass(frozen=True)
class LowerNisaToBirPass(ModulePass):
    """Lower every nisa kernel (a ``func.func`` with nisa ops or on-chip buffers) to bir:
    allocate SBUF / PSUM within ``target``'s capacities (``mxdsl.targets``) and select bir
    instructions (module docstring). ``print-usage`` writes each kernel's peak bytes per
    partition to stderr."""

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
    """Run the pass on ``module`` in place; returns each lowered nisa op's bir
    instruction (the last piece of a split DMA), e.g. to follow ops a tool watches.
    ``usage``: where to write each kernel's peak usage (:func:`usage_line`)."""
    replacements: dict[Operation, Operation] = {}
    for function in [o for o in module.walk() if isinstance(o, func.FuncOp)]:
        if _needs_lowering(function):
            lowering = _FunctionLowering(function, target)
            lowering.run()
            _tidy_index_arithmetic(function)
            replacements.update(lowering.replacements)
            if usage is not None:
                print(usage_line(function, lowering.allocator), file=usage)
    return replacements


def _tidy_index_arithmetic(function: func.FuncOp) -> None:
    """The index arithmetic the selection emits per instruction (each run-time offset
    computed where it is used) merged where equal (CSE) and hoisted out of the loops it
    does not depend on (LICM): the same program, with a third of the operations a
    simulator steps through per iteration of a MoE kernel's loops. Only side-effect-free
    operations move or merge; no bir instruction does."""
    cse(function)
    loops = [op for op in function.walk() if isinstance(op, scf.ForOp)]
    for loop in reversed(loops):  # innermost first, so hoisted code can move further out
        move_loop_invariant_code(loop)
    cse(function)


def usage_line(function: func.FuncOp, allocator: _Allocator) -> str:
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
    lowering = _FunctionLowering(function, target)
    lowering.allocate()
    return lowering.buffers


def peak_usage(function: func.FuncOp, target: Target = DEFAULT_TARGET) -> dict[Memory, int]:
    """Bytes per partition of SBUF and PSUM the allocation of a nisa kernel uses."""
    lowering = _FunctionLowering(function, target)
    lowering.allocate()
    return {m: lowering.allocator.peak(m) for m in (Memory.SBUF, Memory.PSUM)}


def _needs_lowering(function: func.FuncOp) -> bool:
    """A function with nisa to lower, or with hlo left over (refused when lowering)."""
    for op in function.walk():
        if op.dialect_name() == "hlo":
            return True
        if op.dialect_name() == "nisa" and not isinstance(op, _KEPT_NISA):
            return True
        if isinstance(op, memref.AllocOp) and _memory_of(_memref(op.memref)) != Memory.HBM:
            return True
    return False


class _FunctionLowering:
    def __init__(self, function: func.FuncOp, target: Target = DEFAULT_TARGET):
        self.function = function
        self.allocator = _Allocator(target)
        self.views = _Views()
        self.buffers: dict[SSAValue, Allocation] = {}
        self.constants: dict[int, SSAValue] = {}
        self.anchor: Operation | None = None
        self.current: Operation | None = None  # the nisa op being lowered
        self.replacements: dict[Operation, Operation] = {}
        self.pending: list[tuple[str, SSAValue]] = []  # its run-time keys so far
        self.runtime_cache: dict[tuple[Operation, tuple[tuple[SSAValue, int], ...]], SSAValue] = {}

    def refuse(self, op: Operation, message: str) -> OpDiagnostic:
        return OpDiagnostic(op, f"{PASS_NAME}: {message}")

    def run(self) -> None:
        function = self.function
        if function.is_declaration:
            return
        for op in function.walk():
            if op.dialect_name() == "hlo":
                raise self.refuse(op, "an hlo op is left; run lower-hlo-to-nisa first")
        for arg in function.args:
            if isinstance(arg.type, MemRefType) and _memory_of(_memref(arg)) != Memory.HBM:
                raise self.refuse(
                    function,
                    f"argument {arg.index} is an on-chip buffer ({arg.type}); a kernel's "
                    "arguments are HBM tensors",
                )
        self.reuse_constants()
        self.allocate()
        for op in list(function.walk()):
            if op.dialect_name() == "nisa" and not isinstance(op, (*_KEPT_NISA, *_VIEW_OPS)):
                try:
                    self.lower(op)
                except _Refusal as err:
                    raise self.refuse(op, str(err)) from None
        self.clean_up()

    def reuse_constants(self) -> None:
        """The index constants at the top of the entry block serve the run-time offsets."""
        for op in self.function.body.blocks[0].ops:
            if not isinstance(op, arith.ConstantOp):
                break
            attr = op.value
            if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType):
                self.constants.setdefault(attr.value.data, op.result)
                self.anchor = op

    # ------------------------------------------------------------- allocation

    def allocate(self) -> None:
        order, last = _number(self.function)
        allocator = self.allocator = _Allocator(self.allocator.target)
        for op in self.function.walk():
            if not isinstance(op, memref.AllocOp):
                continue
            t = _memref(op.memref)
            memory = _memory_of(t)
            if memory == Memory.HBM:
                continue
            shape = t.get_shape()
            if not shape or any(s < 0 for s in shape) or op.dynamic_sizes:
                raise self.refuse(op, f"an on-chip buffer needs a static shape, got {t}")
            partitions = self.allocator.target.partitions
            if shape[0] > partitions:
                raise self.refuse(
                    op,
                    f"{_name(op.memref)} ({t}) has {shape[0]} partitions; "
                    f"{memory.value} has {partitions}",
                )
            try:
                esize = _element_size(t.get_element_type())
            except Exception as err:
                raise self.refuse(op, str(err)) from None
            raw = math.prod(shape[1:]) * esize
            size = -(-raw // ALIGNMENT) * ALIGNMENT
            users = _users(op.memref)
            for user in users:
                if user.dialect_name() != "nisa" and not isinstance(user, memref.DeallocOp):
                    raise self.refuse(
                        user,
                        f"uses the on-chip buffer {_name(op.memref)}; only nisa ops can be "
                        f"lowered onto its address",
                    )
            buffer = Allocation(
                op, memory, shape[0], size, order[op], _live_end(op, users, order, last)
            )
            allocator.place(buffer)
            self.buffers[op.memref] = buffer

    # ------------------------------------------------------------- patterns

    def side(self, value: SSAValue) -> _Side:
        view = self.views.of(value)
        if view.memory == Memory.HBM:
            return _Side(view, 1, 0)
        buffer = self.buffers[view.root]
        shape = _memref(view.root).get_shape()
        return _Side(view, math.prod(shape[1:]), buffer.address)

    def compute_ap(self, value: SSAValue, role: str) -> AccessPatternAttr:
        """The pattern of an on-chip operand of a compute instruction: consecutive
        partitions, dim 0 of the view = the partitions (as nisa reads it). A
        loop-dependent view is the pattern at its static offset plus run-time keys for
        ``role`` (:meth:`record_runtime`)."""
        side = self.side(value)
        view = side.view
        if view.memory == Memory.HBM:
            raise _Refusal(f"{role} is in hbm")
        ap = _build_ap(side, view.offset, view.dims)
        shape = _memref(value).get_shape()
        partitions = shape[0] if shape else 1
        if ap is None or ap.ps != 1 or ap.np != partitions:
            raise _Refusal(
                f"{role} (dims {list(view.dims)} of {_name(view.root)}) is not one pattern over "
                f"its {partitions} consecutive partitions; not supported by {PASS_NAME} yet"
            )
        self.record_runtime(side, role)
        return ap

    def record_runtime(self, side: _Side, role: str) -> None:
        """The loop-dependent part of a view as run-time keys of the instruction being
        built: on chip, a term moving whole partitions is ``role:partition`` (in
        partitions), any other ``role`` (in bytes); in hbm always bytes."""
        view = side.view
        if not view.terms:
            return
        assert self.current is not None
        if view.memory == Memory.HBM:
            partition_terms: list[tuple[SSAValue, int]] = []
            byte_terms = [(v, c * view.dtype.size) for v, c in view.terms]
        else:
            f = side.per_partition
            for _, coefficient in view.terms:
                if 0 < coefficient % f < coefficient:
                    raise _Refusal(
                        f"{role}'s loop-dependent offset (x {coefficient} elements) moves "
                        "across partitions unevenly"
                    )
            partition_terms = [(v, c // f) for v, c in view.terms if c % f == 0]
            byte_terms = [(v, c * view.dtype.size) for v, c in view.terms if c % f]
        for key, terms in ((role, byte_terms), (role + bir.PARTITION_SUFFIX, partition_terms)):
            total = self.runtime(terms, self.current)
            if total is not None:
                self.pending.append((key, total))

    def runtime(self, terms: Sequence[tuple[SSAValue, int]], before: Operation) -> SSAValue | None:
        """``sum(coefficient * value)`` as index arithmetic before ``before`` (once per op
        for the same terms)."""
        key = (before, tuple(terms))
        if (known := self.runtime_cache.get(key)) is not None:
            return known
        total = self._runtime(terms, before)
        if total is not None:
            self.runtime_cache[key] = total
        return total

    def _runtime(self, terms: Sequence[tuple[SSAValue, int]], before: Operation) -> SSAValue | None:
        total: SSAValue | None = None
        for value, coefficient in terms:
            term = value
            if coefficient != 1:
                mul = arith.MuliOp(value, self.constant(coefficient))
                Rewriter.insert_op(mul, InsertPoint.before(before))
                term = mul.result
            if total is None:
                total = term
            else:
                add = arith.AddiOp(total, term)
                Rewriter.insert_op(add, InsertPoint.before(before))
                total = add.result
        return total

    def constant(self, value: int) -> SSAValue:
        if (known := self.constants.get(value)) is None:
            op = arith.ConstantOp.from_int_and_width(value, IndexType())
            op.result.name_hint = f"c{value}"
            entry = self.function.body.blocks[0]
            if self.anchor is not None:
                entry.insert_op_after(op, self.anchor)
            elif entry.first_op is not None:
                entry.insert_op_before(op, entry.first_op)
            else:
                entry.add_op(op)
            self.anchor = op
            known = self.constants[value] = op.result
        return known

    # ------------------------------------------------------------- ops

    def lower(self, op: Operation) -> None:
        self.current, self.pending = op, []
        new = self.select(op)
        if self.pending and not bir.runtime_keys(new):
            assert not new.operands, f"{new.name} takes its run-time keys in its constructor"
            new.properties.update(bir.runtime_properties(self.pending))
            new.operands = bir.runtime_values(self.pending)
        new.location = op.location
        self.replacements[op] = new
        Rewriter.replace_op(op, new)

    def take_runtime(self) -> list[tuple[str, SSAValue]]:
        """The run-time keys recorded so far (for constructors that take them)."""
        pending, self.pending = self.pending, []
        return pending

    def select(self, op: Operation) -> Operation:
        """The bir instruction of one nisa op (a ``bir.dma`` split into pieces is inserted
        here and the last piece returned)."""
        new: Operation
        if isinstance(op, nisa.DmaCopyOp):
            if op.dst_index is None and op.src_index is None:
                return self.dma(op)
            new = self.indirect_dma(op)
        elif isinstance(op, nisa.MemsetOp):
            new = bir.MemsetOp(self.compute_ap(op.dst, "dst"), op.value.value.data)
        elif isinstance(op, nisa.TensorCopyOp):
            new = bir.TensorCopyOp(self.compute_ap(op.dst, "dst"), self.compute_ap(op.src, "src"))
        elif isinstance(op, nisa.NcMatmulOp):
            new = bir.MatmultOp(
                self.matmul_dst(op.dst),
                self.compute_ap(op.stationary, "stationary"),
                self.compute_ap(op.moving, "moving"),
                accumulate=op.accumulate is not None,
            )
        elif isinstance(op, nisa.NcMatmulMxOp):
            new = bir.MatmultMxOp(
                self.matmul_dst(op.dst),
                self.compute_ap(op.stationary, "stationary"),
                self.compute_ap(op.stationary_scale, "stationary_scale"),
                self.compute_ap(op.moving, "moving"),
                self.compute_ap(op.moving_scale, "moving_scale"),
                accumulate=op.accumulate is not None,
            )
        elif isinstance(op, nisa.QuantizeMxOp):
            new = bir.QuantizeMxOp(
                self.compute_ap(op.dst, "dst"),
                self.compute_ap(op.dst_scale, "dst_scale"),
                self.compute_ap(op.src, "src"),
            )
        elif isinstance(op, nisa.TensorTensorOp):
            new = bir.TensorTensorOp(
                self.compute_ap(op.dst, "dst"),
                op.op,
                self.compute_ap(op.data1, "in0"),
                self.compute_ap(op.data2, "in1"),
            )
        elif isinstance(op, nisa.TensorScalarOp):
            new = bir.TensorScalarOp(
                self.compute_ap(op.dst, "dst"),
                self.compute_ap(op.data, "src"),
                op.op0,
                self.scalar(op.operand0, "operand0"),
                op.op1,
                None if op.operand1 is None else self.scalar(op.operand1, "operand1"),
                reverse0=op.reverse0 is not None,
                reverse1=op.reverse1 is not None,
            )
        elif isinstance(op, nisa.ActivationOp):
            new = bir.ActivationOp(
                self.compute_ap(op.dst, "dst"),
                op.op,
                self.compute_ap(op.data, "src"),
                scale=None if op.scale is None else self.scalar(op.scale, "scale"),
                bias=None if op.bias is None else self.scalar(op.bias, "bias"),
            )
        elif isinstance(op, nisa.NcTransposeOp):
            new = bir.TransposeOp(
                self.compute_ap(op.dst, "dst"),
                self.compute_ap(op.data, "src"),
                None if op.engine is None else op.engine.data,
            )
        elif isinstance(op, nisa.TensorReduceOp):
            new = self.tensor_reduce(op)
        elif isinstance(op, nisa.IotaOp):
            new = bir.IotaOp(
                self.compute_ap(op.dst, "dst"),
                op.pattern.get_pairs(),
                op.offset.value.data,
                op.channel_multiplier.value.data,
            )
        elif isinstance(op, nisa.ScalarTensorTensorOp):
            new = bir.ScalarTensorTensorOp(
                self.compute_ap(op.dst, "dst"),
                self.compute_ap(op.data, "src"),
                op.op0,
                self.scalar(op.operand0, "operand0"),
                op.op1,
                self.compute_ap(op.operand1, "in1"),
                reverse0=op.reverse0 is not None,
                reverse1=op.reverse1 is not None,
            )
        elif isinstance(op, nisa.TensorCopyPredicatedOp):
            new = bir.TensorCopyPredicatedOp(
                self.compute_ap(op.dst, "dst"),
                self.scalar(op.src, "src", keep_type=True),
                self.compute_ap(op.predicate, "predicate"),
                reverse_predicate=op.reverse_predicate is not None,
            )
        elif isinstance(op, nisa.DmaComputeOp):
            new = self.dma_compute(op)
        elif isinstance(op, nisa.SendRecvOp):
            dst, src = self.compute_ap(op.dst, "dst"), self.compute_ap(op.src, "src")
            new = bir.SendRecvOp(
                dst,
                src,
                op.send_to,
                op.recv_from,
                op.pipe_id.value.data,
                runtime=self.take_runtime(),
            )
        elif isinstance(op, nisa.CoreBarrierOp):
            view = self.views.of(op.data)
            if view.memory != Memory.HBM:
                raise _Refusal("a core_barrier's tensor must be in hbm")
            new = bir.CoreBarrierOp(view.root, op.get_cores())
        elif isinstance(op, nisa.RegisterLoadOp):
            new = self.register_load(op)
        else:
            raise _Refusal(f"{op.name} is not supported by {PASS_NAME} yet")
        return new

    def dma_side(self, value: SSAValue, role: str) -> tuple[AccessPatternAttr, SSAValue | None]:
        """One whole pattern of an hbm / sbuf operand of a DMA-engine instruction (static
        part; run-time keys recorded) and its tensor (hbm)."""
        side = self.side(value)
        if side.view.memory == Memory.PSUM:
            raise _Refusal(f"{role} is in psum; a DMA engine reads hbm and sbuf")
        ap = _build_ap(side, side.view.offset, side.view.dims)
        if ap is None:
            raise _Refusal(
                f"{role} (dims {list(side.view.dims)} of {_name(side.view.root)}) is not one "
                f"access pattern; not supported by {PASS_NAME} yet"
            )
        self.record_runtime(side, role)
        return ap, side.view.root if side.view.memory == Memory.HBM else None

    def dma_compute(self, op: nisa.DmaComputeOp) -> bir.DmaComputeOp:
        dst, dst_tensor = self.dma_side(op.dst, "dst")
        sources = [self.dma_side(value, f"src{i}") for i, value in enumerate(op.srcs)]
        return bir.DmaComputeOp(
            dst,
            [ap for ap, _ in sources],
            dst_tensor=dst_tensor,
            src_tensors=[t for _, t in sources if t is not None],
            runtime=self.take_runtime(),
        )

    def register_load(self, op: nisa.RegisterLoadOp) -> bir.RegisterLoadOp:
        src, tensor = self.dma_side(op.src, "src")
        return bir.RegisterLoadOp(
            src, op.result.type, src_tensor=tensor, runtime=self.take_runtime()
        )

    def tensor_reduce(self, op: nisa.TensorReduceOp) -> bir.TensorReduceOp:
        """nisa's reduced trailing dims as the innermost pairs of the src pattern (whose
        pairs may merge contiguous dims: a pair across the kept / reduced boundary is
        split there); both interpreters fold the reduced elements in the same row-major
        order (``mxdsl.numerics.reduce``)."""
        data = self.compute_ap(op.data, "src")
        shape = _memref(op.data).get_shape()
        reduced = math.prod(shape[len(shape) - len(op.get_axes()) :])
        split = _split_inner(data.get_pairs(), reduced)
        if split is None or len(split[0]) > bir.MAX_PATTERN_PAIRS:
            raise _Refusal(
                f"the reduced dims of data ({reduced} elements per kept position) are not "
                f"the innermost pairs of one pattern; not supported by {PASS_NAME} yet"
            )
        pairs, inner = split
        return bir.TensorReduceOp(
            self.compute_ap(op.dst, "dst"),
            op.op,
            data.with_pairs(pairs),
            inner,
            negate=op.negate is not None,
        )

    def matmul_dst(self, value: SSAValue) -> AccessPatternAttr:
        ap = self.compute_ap(value, "dst")
        low, high = ap.byte_range()
        bank = bir.PSUM_BANK_BYTES
        if ap.memory == Memory.PSUM and low // bank != (high - 1) // bank:
            raise _Refusal(
                f"the accumulator {_name(self.views.of(value).root)} view touches bytes "
                f"[{low}, {high}) of each psum partition, across a {bank}-byte bank boundary; "
                "a matmul writes inside one PSUM bank (split the matmul per bank)"
            )
        return ap

    def scalar(self, value: SSAValue, role: str, keep_type: bool = False) -> Attribute:
        """A scalar-or-column operand: an immediate (from ``arith.constant``; an ALU
        operand as f32, a predicated copy's value in its own type) or a column."""
        if isinstance(value.type, MemRefType):
            return self.compute_ap(value, role)
        owner = value.owner
        if isinstance(owner, arith.ConstantOp):
            attr = owner.value
            if keep_type and isinstance(attr, FloatAttr | IntegerAttr):
                return attr
            if isinstance(attr, FloatAttr) and not isinstance(attr.type, Float32Type):
                return FloatAttr(attr.value.data, Float32Type())
            if isinstance(attr, FloatAttr | IntegerAttr):
                return attr
        raise _Refusal(
            f"{role} is a run-time scalar; bir takes immediates (arith.constant) or column "
            f"tiles, not supported by {PASS_NAME} yet"
        )

    def dma(self, op: nisa.DmaCopyOp) -> bir.DmaOp:
        dst, src = self.side(op.dst), self.side(op.src)
        for role, side in (("dst", dst), ("src", src)):
            if side.view.memory == Memory.PSUM:
                raise _Refusal(f"{role} is in psum; a DMA moves hbm and sbuf")
            for _, coefficient in side.view.terms:
                if (
                    side.view.memory != Memory.HBM
                    and 0 < coefficient % side.per_partition < coefficient
                ):
                    raise _Refusal(
                        f"{role}'s loop-dependent offset (x {coefficient} elements) moves "
                        "across partitions unevenly"
                    )
        pieces = self.dma_pieces(dst, src)
        if pieces is None:
            raise _Refusal(
                f"cannot express this copy between dims {list(dst.view.dims)} and "
                f"{list(src.view.dims)} as access patterns"
            )
        runtime: dict[str, dict[str, SSAValue | None]] = {}
        for role, side in (("dst", dst), ("src", src)):
            view = side.view
            if view.memory == Memory.HBM:
                partition_terms: list[tuple[SSAValue, int]] = []
                byte_terms = [(v, c * view.dtype.size) for v, c in view.terms]
            else:
                f = side.per_partition
                partition_terms = [(v, c // f) for v, c in view.terms if c % f == 0]
                byte_terms = [(v, c * view.dtype.size) for v, c in view.terms if c % f]
            runtime[role] = {
                "partition": self.runtime(partition_terms, op),
                "offset": self.runtime(byte_terms, op),
            }
        made: list[bir.DmaOp] = []
        for dst_ap, src_ap in pieces:
            piece = bir.DmaOp(
                dst_ap,
                src_ap,
                dst_tensor=dst.view.root if dst.view.memory == Memory.HBM else None,
                src_tensor=src.view.root if src.view.memory == Memory.HBM else None,
                dst_partition=runtime["dst"]["partition"],
                dst_offset=runtime["dst"]["offset"],
                src_partition=runtime["src"]["partition"],
                src_offset=runtime["src"]["offset"],
            )
            piece.location = op.location
            made.append(piece)
        for piece in made[:-1]:
            Rewriter.insert_op(piece, InsertPoint.before(op))
        return made[-1]

    def indirect_dma(self, op: nisa.DmaCopyOp) -> bir.DmaIndirectOp:
        """A gather (``src`` indexed) or scatter (``dst`` indexed) as one
        ``bir.dma_indirect``: the indexed hbm side's pattern keeps the indirect dim as a
        pair of its own (its num: the other side's size there, its bound: the indexed
        view's), the other dims merged around it; the other side is one pattern in the
        same row-major order; the index vector one element per partition. Loop-dependent
        views become run-time keys (``dst``, ``src``, ``index``)."""
        scatter = op.dst_index is not None
        index = op.dst_index if scatter else op.src_index
        assert index is not None
        indexed_value, direct_value = (op.dst, op.src) if scatter else (op.src, op.dst)
        indexed, direct = self.side(indexed_value), self.side(direct_value)
        dim = op.indirect_dim.value.data
        dims, other_dims = indexed.view.dims, direct.view.dims
        if len(dims) != len(other_dims):
            raise _Refusal(
                f"the dims of the two sides ({list(dims)} and {list(other_dims)}) do not "
                f"correspond one to one; not supported by {PASS_NAME} yet"
            )
        bound, stride = dims[dim]
        num = other_dims[dim][0]
        before = _hbm_merge(dims[:dim])
        merged = [*before, (num, stride), *_hbm_merge(dims[dim + 1 :])]
        direct_ap = _build_ap(direct, direct.view.offset, other_dims)
        if len(merged) > bir.MAX_PATTERN_PAIRS or direct_ap is None:
            raise _Refusal(
                f"the indirect dma_copy between dims {list(dims)} and {list(other_dims)} is "
                f"not one access pattern per side; not supported by {PASS_NAME} yet"
            )
        dtype = indexed.view.dtype
        indexed_ap = bir.hbm_ap(_pairs(merged), dtype, indexed.view.offset * dtype.size)
        dst_ap, src_ap = (indexed_ap, direct_ap) if scatter else (direct_ap, indexed_ap)
        dst_side, src_side = (indexed, direct) if scatter else (direct, indexed)
        self.record_runtime(dst_side, "dst")
        self.record_runtime(src_side, "src")
        return bir.DmaIndirectOp(
            dst_ap,
            src_ap,
            self.compute_ap(index, "index"),
            indirect_dim=len(before),
            bound=bound,
            scatter=scatter,
            oob_mode=op.oob_mode.data,
            dst_tensor=dst_side.view.root if dst_side.view.memory == Memory.HBM else None,
            src_tensor=src_side.view.root if src_side.view.memory == Memory.HBM else None,
            runtime=self.take_runtime(),
        )

    def dma_pieces(
        self, dst: _Side, src: _Side
    ) -> list[tuple[AccessPatternAttr, AccessPatternAttr]] | None:
        """One (dst, src) pattern pair, or the fewest static pieces (unrolling the
        outermost dims of a common refinement) that each are one pattern per side."""
        whole = (
            _build_ap(dst, dst.view.offset, dst.view.dims),
            _build_ap(src, src.view.offset, src.view.dims),
        )
        if whole[0] is not None and whole[1] is not None:
            return [(whole[0], whole[1])]
        refined = _refine(dst.view.dims, src.view.dims)
        if refined is None:
            return None
        for unrolled in range(1, len(refined) + 1):
            outer, inner = refined[:unrolled], refined[unrolled:]
            count = math.prod(n for n, _, _ in outer)
            if count > MAX_UNROLLED_DMAS:
                return None
            pieces: list[tuple[AccessPatternAttr, AccessPatternAttr]] = []
            for index in itertools.product(*(range(n) for n, _, _ in outer)):
                d_off = dst.view.offset + sum(
                    i * s for i, (_, s, _) in zip(index, outer, strict=True)
                )
                s_off = src.view.offset + sum(
                    i * s for i, (_, _, s) in zip(index, outer, strict=True)
                )
                d_ap = _build_ap(dst, d_off, [(n, s) for n, s, _ in inner])
                s_ap = _build_ap(src, s_off, [(n, s) for n, _, s in inner])
                if d_ap is None or s_ap is None:
                    break
                pieces.append((d_ap, s_ap))
            else:
                return pieces
        return None

    # ------------------------------------------------------------- clean up

    def clean_up(self) -> None:
        """Erase the on-chip buffers and the views (now unused); fold the boundary casts."""
        ops = list(self.function.walk())
        for op in reversed(ops):
            if isinstance(op, memref.DeallocOp) and _memory_of(_memref(op.memref)) != Memory.HBM:
                Rewriter.erase_op(op)
        for op in reversed(ops):
            if isinstance(op, (*_VIEW_OPS, memref.AllocOp)) and not op.results[0].uses:
                if isinstance(op, memref.AllocOp) and _memory_of(_memref(op.memref)) == Memory.HBM:
                    continue
                Rewriter.erase_op(op)
        for op in [o for o in self.function.walk() if isinstance(o, memref.CastOp)]:
            source = op.source
            if isinstance(source.owner, memref.AllocOp):
                alloc = source.owner
                new = memref.AllocOp([], [], op.dest.type)
                new.results[0].name_hint = source.name_hint
                new.location = alloc.location
                Rewriter.replace_op(alloc, new)
                op.dest.replace_all_uses_with(new.results[0])
                Rewriter.erase_op(op)
