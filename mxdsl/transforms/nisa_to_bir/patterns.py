"""Views as access patterns: a memref value as its root buffer, a linear element offset
(static plus loop-dependent ``index`` terms) and ``[size, stride]`` dims, and the bir
access patterns (``#bir.ap``) built from them (``docs/lowering.md``, "Views become access
patterns"). Shared by the two halves of ``lower-nisa-to-bir``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    MemRefType,
    NoneAttr,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from mxdsl.dialects import bir, nisa
from mxdsl.dialects.bir import AccessPatternAttr, Dtype, Memory

PASS_NAME = "lower-nisa-to-bir"

LIVE_BUFFERS_SHOWN = 6
"""A "does not fit" diagnostic names at most this many live buffers (the largest)."""

ALIGNMENT = 64
"""Every on-chip buffer starts at a multiple of 64 bytes of its partitions."""

MAX_UNROLLED_DMAS = 1024
"""A DMA split into more pieces than this is refused (it would not be one DMA any more)."""

VIEW_OPS = (
    memref.SubviewOp,
    memref.ExpandShapeOp,
    memref.CollapseShapeOp,
    memref.CastOp,
    nisa.ViewCastOp,
    nisa.PermuteOp,
)
KEPT_NISA = (nisa.ProgramIdOp, nisa.NumProgramsOp)
"""nisa ops that bir kernels use as they are (docs/bir.md)."""


class Refusal(Exception):
    """Internal: something this pass cannot express (becomes an OpDiagnostic)."""


def memref_of(value: SSAValue) -> MemRefType[Attribute]:
    t = value.type
    if not isinstance(t, MemRefType):
        raise Refusal(f"expected a memref, got {t}")
    return t  # pyright: ignore[reportUnknownVariableType]


def memory_of(t: MemRefType[Attribute]) -> Memory:
    space = nisa.memory_space_of(t)
    if space is None or space == nisa.MemorySpace.HBM:
        return Memory.HBM
    return Memory(space.value)


def dtype_of(element_type: Attribute) -> Dtype:
    try:
        return bir.dtype_of_element_type(element_type)
    except ValueError as err:
        raise Refusal(str(err)) from None


def name_of(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a buffer"


# ----------------------------------------------------------------------------- views


Dim = tuple[int, int]
"""``(size, stride)``, the stride in elements of the root buffer."""


@dataclass(frozen=True)
class View:
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
        return dtype_of(self.element_type)


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


def element_size(t: Attribute) -> int:
    return bir.element_bytes(t)


class Views:
    """Resolves memref values to :class:`View` (memoized)."""

    def __init__(self) -> None:
        self.known: dict[SSAValue, View] = {}

    def of(self, value: SSAValue) -> View:
        if (view := self.known.get(value)) is None:
            view = self.known[value] = self._resolve(value)
        return view

    def _resolve(self, value: SSAValue) -> View:
        t = memref_of(value)
        owner = value.owner
        if isinstance(owner, memref.AllocOp | memref.GetGlobalOp) or isinstance(
            value, BlockArgument
        ):
            shape = tuple(t.get_shape())
            if any(s < 0 for s in shape):
                raise Refusal(f"{name_of(value)} has a dynamic shape {t}")
            if not isinstance(t.layout, NoneAttr):
                raise Refusal(f"{name_of(value)} has a layout {t}; a buffer is whole")
            return View(value, memory_of(t), t.get_element_type(), 0, (), _row_major(shape))
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
                    raise Refusal(
                        f"memref.expand_shape splits a dim of {size} into {sizes}, which do "
                        "not multiply to it"
                    )
                inner = stride
                split: list[Dim] = []
                for s in reversed(sizes):
                    split.append((s, inner))
                    inner *= s
                dims.extend(reversed(split))
            return View(
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
                    raise Refusal(
                        f"memref.collapse_shape merges dims {members} (size, stride) that are not "
                        "contiguous"
                    )
                dims.append(merged)
            return View(
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
            if element_size(element) != element_size(source.element_type):
                if isinstance(owner, nisa.ViewCastOp):
                    return _rescaled(source, element, owner)
                raise Refusal(
                    f"{owner.name} from {source_value.type} to {t} changes the element size"
                )
            return View(
                source.root, source.memory, element, source.offset, source.terms, source.dims
            )
        if isinstance(owner, nisa.PermuteOp):
            source = self.of(owner.src)
            permuted = tuple(source.dims[d] for d in owner.get_permutation())
            return View(
                source.root,
                source.memory,
                source.element_type,
                source.offset,
                source.terms,
                permuted,
            )
        what = owner.name if isinstance(owner, Operation) else "a block argument"
        raise Refusal(f"a buffer made by {what} is not supported by {PASS_NAME} yet")

    def _subview(self, op: memref.SubviewOp) -> View:
        source = self.of(op.source)
        dynamic = iter(op.offsets)
        if op.sizes or op.strides:
            raise Refusal("a subview with dynamic sizes or strides has no static pattern")
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
        result_shape = list(memref_of(op.result).get_shape())
        if len(result_shape) < len(dims):  # rank reduction: drop unit dims not in the result
            kept: list[Dim] = []
            for dim in dims:
                if len(kept) < len(result_shape) and result_shape[len(kept)] == dim[0]:
                    kept.append(dim)
                elif dim[0] != 1:
                    raise Refusal(
                        f"memref.subview sizes {sizes} do not match its result shape "
                        f"{result_shape} (only unit dims may be dropped)"
                    )
            dims = kept
        return View(
            source.root,
            source.memory,
            memref_of(op.result).get_element_type(),
            offset,
            tuple(terms),
            tuple(dims),
        )


def _rescaled(source: View, element: Attribute, op: nisa.ViewCastOp) -> View:
    """An HBM view seen with a wider or narrower element (nisa.view_cast of FP8 lanes as x4
    words, or back): offsets, loop terms and strides change units; the last dim is
    contiguous and its size scales by the width ratio."""
    old_size, new_size = element_size(source.element_type), element_size(element)
    if source.memory != Memory.HBM:
        raise Refusal(
            f"{op.name} from {op.src.type} to {op.result.type} changes the element size on "
            "chip; only HBM tensors are viewed with another element width"
        )
    dims = list(source.dims)
    if not dims or dims[-1][1] != 1:
        raise Refusal(f"{op.name} changes the element size of a view whose last dim is strided")

    def convert(count: int) -> int | None:
        scaled = count * old_size
        return scaled // new_size if scaled % new_size == 0 else None

    last = convert(dims[-1][0])
    strides = [convert(stride) if size != 1 else 1 for size, stride in dims[:-1]]
    offset = convert(source.offset)
    terms = [(value, convert(c)) for value, c in source.terms]
    if last is None or offset is None or None in strides or any(c is None for _, c in terms):
        raise Refusal(
            f"{op.name} from {op.src.type} to {op.result.type}: the view does not start and "
            f"step on whole {new_size}-byte elements"
        )
    new_dims = [(size, s) for (size, _), s in zip(dims[:-1], strides, strict=True)]
    return View(
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
class Side:
    """One pattern being built: the view's root, its buffer facts and where it starts."""

    view: View
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
                raise Refusal(f"dim (size {size}, stride {stride}) crosses partitions unevenly")
            out.append(("p", (size // inner, 1)))
            out.append(("f", (inner, stride)))
        else:
            out.append(("f", (size, stride)))
    extent = free_start + sum((d[0] - 1) * d[1] for kind, d in out if kind == "f")
    if extent >= per_partition:
        raise Refusal(
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


def hbm_merge(dims: Sequence[Dim]) -> list[Dim]:
    out: list[Dim] = []
    for size, stride in dims:
        if size == 1:
            continue
        if out and out[-1][1] == stride * size:
            out[-1] = (out[-1][0] * size, stride)
        else:
            out.append((size, stride))
    return out


def pairs_of(dims: Sequence[Dim]) -> list[tuple[int, int]]:
    return [(stride, size) for size, stride in dims] or [(1, 1)]


def split_inner(
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


def _split_offset(side: Side, offset: int) -> tuple[int, int]:
    """Static linear offset -> (partition, element in the partition)."""
    return divmod(offset, side.per_partition) if side.view.memory != Memory.HBM else (0, offset)


def build_ap(side: Side, offset: int, dims: Sequence[Dim]) -> AccessPatternAttr | None:
    """The pattern of ``dims`` from linear ``offset``, or None when it is not one pattern
    (on chip: several partition dims, or a partition dim inside the free ones)."""
    view = side.view
    dtype = view.dtype
    if view.memory == Memory.HBM:
        merged = hbm_merge(dims)
        if len(merged) > bir.MAX_PATTERN_PAIRS:
            return None
        return bir.hbm_ap(pairs_of(merged), dtype, offset * dtype.size)
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
        pairs_of(free),
        dtype=dtype,
        offset=side.address + f0 * dtype.size,
        start_partition=p0,
        num_partitions=np_,
        partition_step=ps,
    )


def refine(a: Sequence[Dim], b: Sequence[Dim]) -> list[tuple[int, int, int]] | None:
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
