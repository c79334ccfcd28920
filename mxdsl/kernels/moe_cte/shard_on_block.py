"""shard_on_block: whole blocks per core, PING_PONG map, two output planes.

::

    c = program_id                                  # 0 or 1
    zero my row tiles of output; core_barrier
    for o in range(ceil(ceil(N / 2) / 3)):          # BLOCK_PARALLEL_FACTOR = 3
        for g in range(3):                          # phase 1: loads
            b = 2 * (3 * o + g) + c                 # PING_PONG: core c takes blocks 2j + c
            if b < N: e = block_to_expert[b]; load tokens of b into buffer set g
        for g in range(3):                          # phase 2: compute
            b = 2 * (3 * o + g) + c
            if b < N: gate/up over all of I, down, scatter into output plane c
    if accumulating (TopK > 1):                     # the two-plane epilogue
        core_barrier; plane 0 := plane 0 + plane 1 (dma_compute), plane 1 := 0
        (each core reduces its row tiles)

Each core computes whole expert FFNs, so there is no per-block cross-core exchange. With
TopK = 1 every token is in one block: one output plane, overwrite. Where three sets of
a block's hidden states do not fit the SBUF with the rest (H = 7168, B >= 512), groups
of 2 or 1 blocks are loaded ahead instead (``MoECTEOptions.block_sets``): the blocks and
their order on each core are the same, so no result bit changes.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from mxdsl.dialects import nisa
from mxdsl.kernels.moe_cte.ffn import PSUM_FMAX, BlockFFN
from mxdsl.kernels.moe_cte.ir import Index
from mxdsl.kernels.moe_cte.spec import (
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
)

BLOCK_PARALLEL_FACTOR = 3


def build_shard_on_block(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    quantization: QuantizationConfig | None,
) -> tuple[ModuleOp, BlockFFN]:
    sets = options.block_sets or BLOCK_PARALLEL_FACTOR  # blocks loaded ahead per group
    ffn = BlockFFN(spec, sizes, options, quantization, "main", sets=sets)
    kb, g = ffn.kb, ffn.g
    out = ffn.arg["output"]
    core = kb.emit(nisa.ProgramIdOp()).results[0]
    ffn.zero_output(core)
    kb.emit(nisa.CoreBarrierOp(out))
    planes = len(out.type.get_shape()) == 3  # pyright: ignore[reportAttributeAccessIssue]
    plane = kb.view(out, [0, core, 0], [g.T + 1, 1, g.H], drop=[1]) if planes else out

    per_core = -(-g.N // 2)
    groups = -(-per_core // sets)

    def block_of(o: Index, s: Index) -> Index:
        return kb.add(kb.mul(kb.add(kb.mul(o, sets), s), 2), core)

    with kb.loop(0, groups) as o:
        with kb.loop(0, sets) as s:  # phase 1: token loads
            b = block_of(o, s)
            with kb.when(kb.lt(b, g.N)):
                if ffn.needs_affinity:
                    cell = kb.view(ffn.arg["block_to_expert"], [b], [1])
                    kb.emit(nisa.DmaCopyOp(ffn.e_i, cell, src_index=ffn.zidx))
                    kb.emit(nisa.TensorCopyOp(ffn.e_f, ffn.e_i))
                ffn.load_tokens(s, kb.mul(b, g.B))
        with kb.loop(0, sets) as s:  # phase 2: weights and matmuls
            b = block_of(o, s)
            with kb.when(kb.lt(b, g.N)):
                cell = kb.view(ffn.arg["block_to_expert"], [b], [1])
                load = nisa.RegisterLoadOp(cell)
                kb.emit(load)
                ffn.progress_ops.append(load)
                e = load.results[0]
                ffn.gate_up(s, e, 0, b)

                def finish(h0: Index, s: Index = s, b: Index = b) -> None:
                    with kb.loop(0, g.nbt) as bt:
                        ffn.finish_tile(s, bt, ffn.acc_tile(bt), plane, b, 0, h0)

                ffn.down(e, 0, finish)

    if planes:  # the two-plane epilogue reduce
        kb.emit(nisa.CoreBarrierOp(out))
        zeros = ffn.zero_rows()

        def reduce(r: Index, n: int) -> None:
            p0 = kb.view(out, [r, 0, 0], [n, 1, g.H], drop=[1])
            p1 = kb.view(out, [r, 1, 0], [n, 1, g.H], drop=[1])
            kb.emit(nisa.DmaComputeOp(p0, [p0, p1]))
            ffn.copy_zero_rows(zeros, lambda h0: kb.view(p1, [0, h0], [n, PSUM_FMAX]), n)

        ffn.for_core_row_tiles(core, g.T + 1, reduce)
    return kb.finish(), ffn


__all__ = ["BLOCK_PARALLEL_FACTOR", "build_shard_on_block"]
