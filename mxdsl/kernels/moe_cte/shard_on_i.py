"""shard_on_i, shard_on_i_hybrid, shard_on_i_dropping and the MX twins shard_on_i_mx,
shard_on_i_mx_hybrid: I split across the two cores.

::

    c = program_id; peer = 1 - c
    zero my row tiles of output; core_barrier
    for b in blocks:                                 # every core sees every block
        e = block_to_expert[b]
        load the B tokens of b (both cores: hidden is not sharded)
        gate/up/act over MY half of I: columns [c * I/2, (c + 1) * I/2)
        for h0 in 512-column H chunks:
            down over my half of I -> acc[token tile, 512], a partial sum over I/2
            for t in range(B/128 / 2):               # I own half of the token tiles
                sendrecv(recv <- peer's partial of my tile t, send mine of its tile t)
                acc[my tile t] += recv                # the reduce over I, on the owner
                bias, checkpoint, POST_SCALE, read-modify-write into the rows' chunk
        core_barrier                                  # orders the accumulating writes

* shard_on_i: ``blocks`` = ``range(N)``.
* shard_on_i_hybrid: ``range(num_static_block)`` (default N - E), then a data-dependent
  loop ``for b in range(num_static_block, sum(conditions))``: ``tensor_reduce`` adds
  ``conditions`` on chip, ``register_load`` turns the sum into the loop bound.
* shard_on_i_dropping: the N == E layout, block b is expert b (block_to_expert is not
  read; the expert index lives in an SBUF counter incremented per block), each block in
  tiles of at most 1024 rows, and the activation checkpoints are always written.
* The MX twins: the same driver over :class:`MxBlockFFN` (whole 512-row I tiles per
  core; the partials exchanged in bf16, scales never cross cores).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, i32

from mxdsl.dialects import nisa
from mxdsl.dialects.nisa import AluOp
from mxdsl.kernels.moe_cte.ffn import PSUM_FMAX, BlockFFN
from mxdsl.kernels.moe_cte.ir import Index
from mxdsl.kernels.moe_cte.mx import MxBlockFFN
from mxdsl.kernels.moe_cte.spec import (
    PMAX,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
)

HYBRIDS = (MoECTEImplementation.shard_on_i_hybrid, MoECTEImplementation.shard_on_i_mx_hybrid)


def build_shard_on_i(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    quantization: QuantizationConfig | None,
) -> tuple[ModuleOp, BlockFFN]:
    impl = spec.implementation
    ffn = (MxBlockFFN if impl.is_mx else BlockFFN)(spec, sizes, options, quantization, "main")
    kb, g = ffn.kb, ffn.g
    out = ffn.arg["output"]
    core = kb.emit(nisa.ProgramIdOp()).results[0]
    peer = kb.index(kb.sub(1, core))
    i0 = ffn.core_columns(core)
    recv = kb.alloc([PMAX, PSUM_FMAX], ffn.io, what="the received partial sums (H chunk)")
    send = kb.alloc([PMAX, PSUM_FMAX], ffn.io, what="the partial sums sent (H chunk)")
    half = g.nbt // 2
    ffn.zero_output(core)
    kb.emit(nisa.CoreBarrierOp(out))

    def one_block(b: Index, e: Index, row0: Index, col0: Index) -> None:
        ffn.load_tokens(0, row0)
        ffn.gate_up(0, e, i0, b, col0)

        def reduce_and_finish(h0: Index) -> None:  # this H chunk of my token tiles
            with kb.loop(0, half) as t:
                own = ffn.acc_tile(kb.add(kb.mul(core, half), t))
                other = ffn.acc_tile(kb.add(kb.mul(peer, half), t))
                kb.emit(nisa.TensorCopyOp(send, other))
                kb.emit(nisa.SendRecvOp(recv, send, peer, peer, pipe_id=0))
                kb.emit(nisa.TensorTensorOp(own, AluOp.ADD, own, recv))
                ffn.finish_tile(0, kb.add(kb.mul(core, half), t), own, out, b, col0, h0)

        ffn.down(e, i0, reduce_and_finish)
        kb.emit(nisa.CoreBarrierOp(out))

    def expert_block(b: Index) -> None:
        e = ffn.expert_of_block(b)
        one_block(b, e, kb.mul(b, g.B), 0)

    if impl == MoECTEImplementation.shard_on_i_dropping:
        kb.emit(nisa.MemsetOp(ffn.e_f, 0.0))  # the block (= expert) counter
        with kb.loop(0, g.N) as b:
            with kb.loop(0, g.B // g.Bc) as sub:
                marker = nisa.MemsetOp(ffn.aidx, 0.0)
                kb.emit(marker)
                ffn.progress_ops.append(marker)
                col0 = kb.mul(sub, g.Bc)
                one_block(b, b, kb.add(kb.mul(b, g.B), col0), col0)
            kb.emit(nisa.TensorScalarOp(ffn.e_f, ffn.e_f, AluOp.ADD, kb.f32(1.0)))
    elif impl in (
        MoECTEImplementation.shard_on_i_hybrid,
        MoECTEImplementation.shard_on_i_mx_hybrid,
    ):
        cfg = spec.shard_on_I
        assert cfg is not None
        static = cfg.num_static_block
        static = max(g.N - g.E, 0) if static is None else static
        with kb.loop(0, static) as b:  # the static prefix
            expert_block(b)
        conditions = kb.alloc([1, g.N + 1], i32)
        count = kb.alloc([1, 1], i32)
        kb.emit(nisa.DmaCopyOp(conditions, ffn.arg["conditions"]))
        kb.emit(nisa.TensorReduceOp(count, AluOp.ADD, conditions, [1]))
        live = kb.emit(nisa.RegisterLoadOp(count)).results[0]
        with kb.loop(static, live) as b:  # the data-dependent loop
            expert_block(b)
    else:
        with kb.loop(0, g.N) as b:
            expert_block(b)
    return kb.finish(), ffn


__all__ = ["build_shard_on_i"]
