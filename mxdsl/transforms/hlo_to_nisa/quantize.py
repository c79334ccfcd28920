"""``QuantizeMX_*``: per tile, DMA the input so that each physical MX block (8 partitions
x 4 free columns) holds exactly one logical 32-element block, ``nisa.quantize_mx``, DMA
the x4 data and the E8M0 scales (read out of the quadrant layout) back to HBM in the HLO
layout."""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects.builtin import (
    TensorType,
    TupleType,
)
from xdsl.ir import SSAValue

from mxdsl.builder import Dims, Offset, element_type_of, shape_of
from mxdsl.contract.mx import (
    MX_BLOCK_SIZE,
    QUANTIZE_MX_TARGETS,
    X4_PACK,
)
from mxdsl.dialects import nisa
from mxdsl.dialects.hlo import CustomCallOp
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa.common import (
    BLOCK_ROWS,
    BLOCKS_PER_TILE,
    E8M0,
    PMAX,
    QUADRANT,
    QUADRANT_ROWS,
    WORDS_PER_BLOCK,
    Refusal,
    round_up,
    scale_runs,
    scale_slots,
    x4_type,
)
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering


def lower_quantize(lowering: FunctionLowering, op: CustomCallOp) -> None:
    e = lowering.builder
    _, fp8_dtype = QUANTIZE_MX_TARGETS[op.target]
    source_tensor = op.inputs[1]
    shape = shape_of(source_tensor)
    result = op.result.type
    assert isinstance(result, TupleType)
    data_tensor, scale_tensor = result.types.data
    assert isinstance(data_tensor, TensorType)
    assert isinstance(scale_tensor, TensorType)
    data_shape = tuple(data_tensor.get_shape())
    dims = [d for d in range(len(shape)) if data_shape[d] != shape[d]]
    if len(dims) != 1 or shape[dims[0]] % MX_BLOCK_SIZE:
        raise Refusal(f"cannot tell the quantized dim from {source_tensor.type} -> {data_tensor}")
    dim = dims[0]
    if any(s == 0 for s in shape):
        raise Refusal(f"input {source_tensor.type} is empty")
    x4 = x4_type(fp8_dtype)
    source = lowering.value(source_tensor)
    element = element_type_of(source)
    data = e.alloc(data_shape, x4, nisa.MemorySpace.HBM, "q_data")
    scale = e.alloc(scale_tensor.get_shape(), E8M0, nisa.MemorySpace.HBM, "q_scale")
    lowering.values[op.result] = (data, scale)
    last = dim == len(shape) - 1
    # tile extents: groups of 8 partitions (rows / blocks) x free columns (blocks / N)
    groups_total = math.prod(shape[:-1]) if last else shape[-2] // MX_BLOCK_SIZE
    cols_total = shape[-1] // MX_BLOCK_SIZE if last else shape[-1]
    partitions = BLOCK_ROWS * round_up(min(BLOCKS_PER_TILE, groups_total), QUADRANT_ROWS)
    cols = min(lowering.options.quantize_free_tile, cols_total)
    src_tile = e.alloc([partitions, X4_PACK * cols], element, nisa.MemorySpace.SBUF, "q_src")
    dst_tile = e.alloc([partitions, cols], x4, nisa.MemorySpace.SBUF, "q_dst")
    scale_tile = e.alloc([PMAX, cols], E8M0, nisa.MemorySpace.SBUF, "q_scl")
    quadrants = e.split_dim(scale_tile, 0, [QUADRANT_ROWS, QUADRANT], "q_scl_quads")
    tiles = (src_tile, dst_tile, scale_tile, quadrants)
    if last:
        quantize_last(lowering, source, data, scale, tiles)
    else:
        quantize_second_to_last(lowering, source, data, scale, tiles)


def quantize_views(
    lowering: FunctionLowering, tiles: tuple[SSAValue, ...], groups: int, cols: int
) -> tuple[SSAValue, SSAValue]:
    """The src view ``[8 * padded groups, 4 cols]`` (the padding partitions zeroed, so
    the tile is a multiple of 32 partitions) and the dst view of one quantize tile."""
    e = lowering.builder
    src_tile, dst_tile, _, _ = tiles
    partitions = BLOCK_ROWS * round_up(groups, QUADRANT_ROWS)
    src = e.rows(src_tile, partitions, X4_PACK * cols)
    dst = e.rows(dst_tile, partitions, cols)
    if partitions > BLOCK_ROWS * groups:
        pad = e.rows(
            src_tile, partitions - BLOCK_ROWS * groups, X4_PACK * cols, BLOCK_ROWS * groups
        )
        e.memset(pad, 0.0)
    return src, dst


def quantize_scales_out(
    lowering: FunctionLowering,
    quadrants: SSAValue,
    groups: int,
    cols: int,
    hbm_rows: Callable[[int, int], SSAValue],
) -> None:
    """DMA scale rows 0..groups-1 of the tile (quadrant layout) to HBM;
    ``hbm_rows(first, count)`` is the HBM view of those rows ([count, cols])."""
    for first, count, per in scale_runs(groups):
        slots = scale_slots(lowering.builder, quadrants, first, count, per, 0, cols)
        lowering.builder.dma(hbm_rows(first, count * per), slots)


def quantize_last(
    lowering: FunctionLowering,
    source: SSAValue,
    data: SSAValue,
    scale: SSAValue,
    tiles: tuple[SSAValue, ...],
) -> None:
    """Quantize along the last dim: x[R, 32 B] (leading dims merged into R). Tile
    partition 8 g + r, column 4 c + q holds x[row0 + g, 32 (blk0 + c) + 4 r + q]: 16 rows
    x up to ``quantize_free_tile`` blocks per tile."""
    e = lowering.builder
    x = e.merge_leading(source, 1)
    rows, length = shape_of(x)
    blocks = length // MX_BLOCK_SIZE
    x_blocks = e.split_dim(x, 1, [blocks, BLOCK_ROWS, X4_PACK], "x_blocks")  # [R, B, 8, 4]
    words = e.merge_leading(data, 1)
    words = e.split_dim(words, 1, [blocks, WORDS_PER_BLOCK], "q_words")  # [R, B, 8]
    scales = e.merge_leading(scale, 1)  # [R, B]
    quadrants = tiles[3]

    def tile(row0: Offset, groups: int, blk0: Offset, cols: int) -> None:
        src, dst = quantize_views(lowering, tiles, groups, cols)

        def load(r: SSAValue) -> None:
            part = e.view(src, [(r, groups, BLOCK_ROWS, True), (0, X4_PACK * cols, 1, True)])
            hbm = e.view(
                x_blocks,
                [
                    (row0, groups, 1, True),
                    (blk0, cols, 1, True),
                    (r, 1, 1, False),
                    (0, X4_PACK, 1, True),
                ],
            )
            e.dma(part, hbm)

        e.loop(0, BLOCK_ROWS, 1, "r", load)
        e.emit(nisa.QuantizeMxOp(dst, e.rows(tiles[2], PMAX, cols), src))

        def store(r: SSAValue) -> None:
            part = e.view(dst, [(r, groups, BLOCK_ROWS, True), (0, cols, 1, True)])
            hbm = e.view(words, [(row0, groups, 1, True), (blk0, cols, 1, True), (r, 1, 1, False)])
            e.dma(hbm, part)

        e.loop(0, BLOCK_ROWS, 1, "r", store)
        quantize_scales_out(
            lowering,
            quadrants,
            groups,
            cols,
            lambda first, count: e.view(
                scales, [(e.add(row0, first), count, 1, True), (blk0, cols, 1, True)]
            ),
        )

    e.tiled(
        rows,
        BLOCKS_PER_TILE,
        "row",
        lambda row0, groups: e.tiled(
            blocks,
            lowering.options.quantize_free_tile,
            "blk",
            lambda blk0, cols: tile(row0, groups, blk0, cols),
        ),
    )


def quantize_second_to_last(
    lowering: FunctionLowering,
    source: SSAValue,
    data: SSAValue,
    scale: SSAValue,
    tiles: tuple[SSAValue, ...],
) -> None:
    """Quantize along the second-to-last dim: x[O, 32 B, N] (leading dims merged into
    O, absent for a rank-2 input). Tile partition 8 g + r, column 4 c + q holds
    x[o, 32 (blk0 + g) + 4 r + q, col0 + c]: partitions run along the quantized dim (the
    packed x4 word index), 16 blocks x up to ``quantize_free_tile`` columns per tile."""
    e = lowering.builder
    rank = len(shape_of(source))
    has_outer = rank > 2
    x = e.merge_leading(source, 2) if has_outer else source
    *_, length, cols_total = shape_of(x)
    blocks = length // MX_BLOCK_SIZE
    d = 1 if has_outer else 0  # the quantized dim after merging
    x_blocks = e.split_dim(x, d, [blocks, BLOCK_ROWS, X4_PACK], "x_blocks")  # [O,] B, 8, 4, N
    words = e.merge_leading(data, 2) if has_outer else data
    words = e.split_dim(words, d, [blocks, WORDS_PER_BLOCK], "q_words")  # [O,] B, 8, N
    scales = e.merge_leading(scale, 2) if has_outer else scale  # [O,] B, N
    quadrants = tiles[3]

    def tile(o: Offset, blk0: Offset, groups: int, col0: Offset, cols: int) -> None:
        outer: Dims = [(o, 1, 1, False)] if has_outer else []
        src, dst = quantize_views(lowering, tiles, groups, cols)
        rows = BLOCK_ROWS * groups

        def load(q: SSAValue) -> None:
            part = e.view(src, [(0, rows, 1, True), (q, cols, X4_PACK, True)])
            block_rows: Dims = [(blk0, groups, 1, True), (0, BLOCK_ROWS, 1, True)]
            lane: Dims = [(q, 1, 1, False), (col0, cols, 1, True)]
            e.dma(part, e.view(x_blocks, outer + block_rows + lane))

        e.loop(0, X4_PACK, 1, "q", load)
        e.emit(nisa.QuantizeMxOp(dst, e.rows(tiles[2], PMAX, cols), src))
        word_rows: Dims = [(blk0, groups, 1, True), (0, WORDS_PER_BLOCK, 1, True)]
        hbm_words = e.view(words, outer + word_rows + [(col0, cols, 1, True)])
        e.dma(hbm_words, e.rows(dst, rows, cols))
        quantize_scales_out(
            lowering,
            quadrants,
            groups,
            cols,
            lambda first, count: e.view(
                scales,
                outer + [(e.add(blk0, first), count, 1, True), (col0, cols, 1, True)],
            ),
        )

    def per_outer(o: Offset) -> None:
        e.tiled(
            blocks,
            BLOCKS_PER_TILE,
            "blk",
            lambda blk0, groups: e.tiled(
                cols_total,
                lowering.options.quantize_free_tile,
                "col",
                lambda col0, cols: tile(o, blk0, groups, col0, cols),
            ),
        )

    if has_outer:
        e.loop(0, shape_of(x)[0], 1, "b", per_outer)
    else:
        per_outer(0)


def register(lowerings: Lowerings) -> None:
    for target in QUANTIZE_MX_TARGETS:
        lowerings.custom_call(target, lower_quantize)
