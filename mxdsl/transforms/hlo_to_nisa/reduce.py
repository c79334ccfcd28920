"""StableHLO ``reduce``: add / max / min (or and / or / xor) over the trailing dims or
over one other dim, one ``tensor_reduce`` per 128 rows.

A float add is the exact sum of the reduced elements and the init rounded once to the
result type at every level (``docs/numerics.md``, "Float sums"); ``nisa.tensor_reduce``
add computes exactly that when the whole sum is one instruction, so a row is reduced in
one tile (at most a quarter of a partition's SBUF on the ``--target``), and a nonzero
init is one more column of the tile. Max / min are order-free (IEEE, -0 < +0), the
bitwise ops too."""

from __future__ import annotations

import math
from typing import Any

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    IntegerType,
    Signedness,
    i1,
)
from xdsl.ir import Attribute, SSAValue

from mxdsl.builder import NisaBuilder, Offset, element_type_of, shape_of
from mxdsl.dialects import nisa
from mxdsl.dialects import stablehlo as shlo
from mxdsl.lowerings import Lowerings
from mxdsl.targets import current_target
from mxdsl.transforms.hlo_to_nisa.common import (
    PMAX,
    Refusal,
    buffer_element,
    element_kind,
)
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering

SBUF_SHARE = 4
"""A reduce's data tile takes at most ``1 / SBUF_SHARE`` of a partition's SBUF."""


def lower_reduce(lowering: FunctionLowering, op: shlo.ReduceOp) -> None:
    """A single-input reduction over the trailing dims (the free axis of the tile) or
    over one other dim (its elements gathered onto the free axis by a strided DMA per
    tile): one ``tensor_reduce`` per 128 kept positions (per ``[128, G, n]`` tile of short
    rows: :func:`_grouped_reduce`). A max / min / bitwise init other than the
    op's identity is combined afterwards; an add's nonzero init is a term of the sum."""
    body = op.compact_body()
    alu = _REDUCE_ALU.get(body or "")
    if alu is None or len(op.inputs) != 1:
        raise Refusal(
            f"reduce applying {body or 'a multi-op body'}: only single-input add / max / "
            "min / and / or / xor reductions are lowered; write the reduction with one of "
            "these bodies"
        )
    source_tensor, init_tensor, result = op.inputs[0], op.init_values[0], op.reduced[0]
    element = element_type_of(source_tensor)
    kind = element_kind(element)
    kinds = {
        nisa.AluOp.ADD: ("float", "signed", "unsigned"),
        nisa.AluOp.MAXIMUM: ("float", "signed", "unsigned"),
        nisa.AluOp.MINIMUM: ("float", "signed", "unsigned"),
    }.get(alu, ("signed", "unsigned", "i1"))
    if kind not in kinds:
        raise Refusal(
            f"reduce {alu.value} on {element}: lowered on {' / '.join(kinds)} element "
            "types (float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers)"
        )
    shape = shape_of(source_tensor)
    dims = sorted(op.dims)
    trailing = bool(dims) and dims == list(range(len(shape) - len(dims), len(shape)))
    if not trailing and len(dims) != 1:
        raise Refusal(
            f"reduce over dims {dims} of a rank-{len(shape)} tensor: lowered over the "
            "trailing dims or over one dim; transpose the reduced dims last"
        )
    init = lowering.splats.get(init_tensor) if init_tensor not in lowering.values else None
    if init is None:
        raise Refusal("the init value of a reduce must be a constant")
    first = dims[0]
    outer = math.prod(shape[:first])
    count = math.prod(shape[d] for d in dims)
    inner = 1 if trailing else math.prod(shape[first + 1 :])
    rows = outer * inner
    identity = _is_identity(alu, init.value, element)
    extra = 0 if identity or alu != nisa.AluOp.ADD else 1
    tile_element = buffer_element(element)
    target = current_target()
    budget = target.sbuf_partition_bytes // SBUF_SHARE // _element_bytes(tile_element)
    if count + extra > budget or 0 in shape:
        raise Refusal(
            f"reduce over {count} elements per result: at most {budget} are lowered on "
            f"{target.name} (a row reduces in one tile of at most 1/{SBUF_SHARE} of a "
            f"partition's SBUF, {target.sbuf_partition_bytes // 1024} KiB); select a "
            "larger --target or reduce over fewer elements"
        )
    e = lowering.builder
    out = lowering.result_buffer(result, tile_element)
    lowering.values[result] = out
    group = _group(rows, count) if trailing and extra == 0 and identity else 1
    if group > 1:
        _grouped_reduce(lowering, lowering.value(source_tensor), out, (rows, count, group), alu)
        return
    p_alloc = min(PMAX, inner if not trailing else rows)
    data = e.alloc([p_alloc, count + extra], tile_element, nisa.MemorySpace.SBUF, "red_in")
    dst = e.alloc([p_alloc, 1], tile_element, nisa.MemorySpace.SBUF, "red_out")
    if extra:
        lowering.fill(e.view(data, [(0, p_alloc, 1, True), (count, 1, 1, True)]), init.value)
    init_tile = None
    if not identity and alu != nisa.AluOp.ADD:
        init_tile = e.alloc([p_alloc, 1], tile_element, nisa.MemorySpace.SBUF, "red_init")
        lowering.fill(init_tile, init.value)

    def reduce_rows(d: SSAValue, x: SSAValue, rt: int) -> None:
        e.emit(nisa.TensorReduceOp(d, alu, x, [1]))
        if init_tile is not None:
            e.emit(nisa.TensorTensorOp(d, alu, d, e.rows(init_tile, rt, 1)))

    source = lowering.value(source_tensor)
    if trailing:
        source2d = e.reshaped(source, (rows, count))
        # a rank-0 result is stored whole (a reshape of it would be a copy)
        out2d = e.reshaped(out, (rows, 1)) if shape_of(out) else None

        def tile(r0: Offset, rt: int) -> None:
            d, x = e.rows(dst, rt, 1), e.rows(data, rt, count + extra)
            e.dma(
                e.rows(data, rt, count), e.view(source2d, [(r0, rt, 1, True), (0, count, 1, True)])
            )
            reduce_rows(d, x, rt)
            if out2d is None:
                e.dma(out, d)
                return
            e.dma(e.view(out2d, [(r0, rt, 1, True), (0, 1, 1, True)]), d)

        e.tiled(rows, PMAX, "r", tile)
        return
    _gather_reduce(e, source, out, (outer, count, inner), data, dst, extra, reduce_rows)


GROUP_FREE = 4096
"""Free elements per partition of a grouped reduce's data tile (16 KiB in f32)."""


def _group(rows: int, count: int) -> int:
    """How many reduced rows one partition takes in a reduction over the trailing dims
    with short rows (such as the 32 elements of an MX block): the largest divisor of
    ``rows`` that keeps a tile within ``GROUP_FREE`` elements per partition and uses no
    more than all the rows over 128 partitions (1: one row per partition)."""
    limit = min(GROUP_FREE // max(count, 1), -(-rows // PMAX))
    return next(g for g in range(max(limit, 1), 0, -1) if rows % g == 0)


def _grouped_reduce(
    lowering: FunctionLowering,
    source: SSAValue,
    out: SSAValue,
    shape: tuple[int, int, int],
    alu: nisa.AluOp,
) -> None:
    """A reduction of ``[rows, count]`` over its last dim with ``group`` rows per
    partition: the source seen as ``[rows / group, group, count]``, one ``tensor_reduce``
    over the last axis of each ``[128, group, count]`` tile into ``[128, group]`` (each
    row reduced on its own, as in the one-row-per-partition form)."""
    e = lowering.builder
    rows, count, group = shape
    element = element_type_of(out)
    lines = rows // group
    p_alloc = min(PMAX, lines)
    data = e.alloc([p_alloc, group, count], element, nisa.MemorySpace.SBUF, "red_in")
    dst = e.alloc([p_alloc, group], element, nisa.MemorySpace.SBUF, "red_out")
    source3d = e.reshaped(source, (lines, group, count))
    out2d = e.reshaped(out, (lines, group))

    def tile(r0: Offset, rt: int) -> None:
        x = e.view(data, [(0, rt, 1, True), (0, group, 1, True), (0, count, 1, True)])
        d = e.rows(dst, rt, group)
        e.dma(x, e.view(source3d, [(r0, rt, 1, True), (0, group, 1, True), (0, count, 1, True)]))
        e.emit(nisa.TensorReduceOp(d, alu, x, [2]))
        e.dma(e.view(out2d, [(r0, rt, 1, True), (0, group, 1, True)]), d)

    e.tiled(lines, PMAX, "r", tile)


def _gather_reduce(
    e: NisaBuilder,
    source: SSAValue,
    out: SSAValue,
    shape: tuple[int, int, int],
    data: SSAValue,
    dst: SSAValue,
    extra: int,
    reduce_rows: Any,
) -> None:
    """A reduction over the middle dim of ``source`` seen as ``[outer, count, inner]``:
    per outer index and per 128 inner positions, one strided DMA gathers
    ``source[o, :, r0 : r0 + rt]`` transposed (a ``nisa.permute`` view) into the tile,
    the reduced index along the free axis."""
    outer, count, inner = shape
    source3d = e.reshaped(source, shape)
    out2d = e.reshaped(out, (outer, inner))

    def per_outer(o: Offset) -> None:
        def tile(r0: Offset, rt: int) -> None:
            columns = e.view(source3d, [(o, 1, 1, False), (0, count, 1, True), (r0, rt, 1, True)])
            rows_first = e.emit(nisa.PermuteOp(columns, [1, 0])).results[0]
            e.dma(e.view(data, [(0, rt, 1, True), (0, count, 1, True)]), rows_first)
            d = e.rows(dst, rt, 1)
            reduce_rows(d, e.rows(data, rt, count + extra), rt)
            e.dma(
                e.view(out2d, [(o, 1, 1, False), (r0, rt, 1, True)]),
                e.view(d, [(0, rt, 1, True), (0, 1, 1, False)]),
            )

        e.tiled(inner, PMAX, "r", tile)

    e.loop(0, outer, 1, "o", per_outer)


_REDUCE_ALU = {
    "stablehlo.add": nisa.AluOp.ADD,
    "stablehlo.maximum": nisa.AluOp.MAXIMUM,
    "stablehlo.minimum": nisa.AluOp.MINIMUM,
    "stablehlo.and": nisa.AluOp.BITWISE_AND,
    "stablehlo.or": nisa.AluOp.BITWISE_OR,
    "stablehlo.xor": nisa.AluOp.BITWISE_XOR,
}


def _element_bytes(element: Attribute) -> int:
    if isinstance(element, Float32Type):
        return 4
    if isinstance(element, BFloat16Type | Float16Type):
        return 2
    if isinstance(element, IntegerType):
        return max(element.width.data // 8, 1)
    return 4


def _is_identity(alu: nisa.AluOp, value: Any, element: Attribute) -> bool:
    """Whether ``value`` is the identity of the reduction ``alu`` in ``element`` (for a
    float add any zero: the exact sum's zero is +0 whatever the init's sign)."""
    if alu == nisa.AluOp.ADD:
        return value == 0
    if alu == nisa.AluOp.MAXIMUM:
        if isinstance(element, IntegerType):
            unsigned = element.signedness.data == Signedness.UNSIGNED
            return value == (0 if unsigned else -(1 << (element.width.data - 1)))
        return value == -math.inf
    if alu == nisa.AluOp.MINIMUM:
        if isinstance(element, IntegerType):
            width = element.width.data
            unsigned = element.signedness.data == Signedness.UNSIGNED
            return value == ((1 << width) - 1 if unsigned else (1 << (width - 1)) - 1)
        return value == math.inf
    if alu == nisa.AluOp.BITWISE_AND:
        return value in (-1, (1 << 32) - 1) or (element == i1 and value == 1)
    return value == 0


def register(lowerings: Lowerings) -> None:
    lowerings.op(shlo.ReduceOp, lower_reduce)
