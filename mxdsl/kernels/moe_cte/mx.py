"""The MoE-CTE MX kernels: shard_on_block_mx, shard_on_i_mx, shard_on_i_mx_hybrid.

The skeleton is the bf16 family's (:mod:`ffn`, :mod:`shard_on_block`, :mod:`shard_on_i`);
only the projections change (``docs/moe-cte-mx.md``):

* the weights are integer HBM tensors viewed as x4 types with ``nisa.view_cast`` (no copy)
  in nkilib's layouts (:mod:`mx_layouts`), their E8M0 scales gathered per block expert by
  an indirect DMA whose index vector holds ``16 e + 4 (p >> 5) + (p & 3)`` in the first 4
  partitions of each 32-partition quadrant and -1 (``oob_mode skip``) in the holes, so
  scale row r of the expert lands at partition ``(r & 3) + 32 (r >> 2)``;
* the gathered hidden rows are transposed on the PE into ``[128 p, tokens, 4 q]``
  (``h = q H/4 + t 128 + p``) and quantized on chip to float8_e4m3fn_x4 (quantize_mx);
* gate/up: ``nc_matmul_mx`` over the ``H / 512`` tiles (E8M0 scales inside the matmul),
  then bias, clamps, activation, ``act(gate) * up`` into ``[128 p, nt, tokens, 4 q]`` bf16
  (``i = t 512 + q 128 + p``), quantized again to float8_e4m3fn_x4; a partial last I
  tile (block shard, I a multiple of 128) has its missing lanes zero, here and in the
  down weights, so they add exact zeros to the down passes;
* down: ``nc_matmul_mx`` (intermediate stationary, weights moving) over the core's
  ``I / 512`` tiles into f32; everything after it (bias, affinity, scatter, the bf16
  sendrecv reduce of the I-shard twins, the output planes) is the bf16 family's.

Scales never leave a core: the I-shard exchange carries the dequantized bf16 partials.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    Signedness,
    bf16,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue

from mxdsl.dialects import nisa
from mxdsl.dialects.nisa import AluOp, MemorySpace, OobMode
from mxdsl.kernels.moe_cte.ffn import BlockFFN, ITile
from mxdsl.kernels.moe_cte.ir import Index
from mxdsl.kernels.moe_cte.mx_formats import MX_TILE, SCALE_ROWS, weight_format
from mxdsl.kernels.moe_cte.spec import (
    PMAX,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
)

X4_TYPES: dict[str, Attribute] = {
    "float8_e4m3fn_x4": nisa.float8_e4m3fn_x4,
    "float8_e5m2_x4": nisa.float8_e5m2_x4,
    "float4_e2m1fn_x4": nisa.float4_e2m1fn_x4,
}
ui8 = IntegerType(8, Signedness.UNSIGNED)
BLOCK_PARALLEL_FACTOR = 3
PSUM_FMAX = 512


class MxBlockFFN(BlockFFN):
    """:class:`BlockFFN` with MX projections (see the module docstring)."""

    # ------------------------------------------------------------ buffers

    def _allocate(self) -> None:
        kb, g, io = self.kb, self.g, self.io
        S = MemorySpace
        self.fp8 = False  # the scale arguments are E8M0, consumed by nc_matmul_mx
        wf = weight_format(self.options.mx_weights)
        x4 = X4_TYPES[wf.x4]
        self.kt4 = g.H // MX_TILE
        self.nt = -(-g.Ic // MX_TILE)  # 512-row I tiles of this core
        # 128-row lanes of a partial last I tile (0: none); its other lanes stay zero
        self.last_lanes = (g.Ic % MX_TILE) // PMAX
        self.tile0: Index = 0  # first 512-row I tile of this core (I shard: core * nt)
        E = g.E
        # zero-copy x4 views of the integer weights, and the scales as [E * 16, ...] rows
        self.w_gu = kb.emit(nisa.ViewCastOp(self.arg["gate_up_proj_weight"], x4)).results[0]
        self.w_d = kb.emit(nisa.ViewCastOp(self.arg["down_proj_weight"], x4)).results[0]
        self.s_gu = self._collapse_rows(self.arg["gate_up_proj_scale"], E * SCALE_ROWS)
        self.s_d = self._collapse_rows(self.arg["down_proj_scale"], E * SCALE_ROWS)

        self.zidx = kb.alloc([PMAX, 1], i32)
        kb.emit(nisa.MemsetOp(self.zidx, 0.0))
        # the quadrant-hole index vector: base (4 (p >> 5) + (p & 3), -1 in the holes)
        # and 16 on the valid partitions; per block sidx = valid16 * e + base
        self.base = kb.alloc([PMAX, 1], f32)
        self.valid16 = kb.alloc([PMAX, 1], f32)
        self.sidx = kb.alloc([PMAX, 1], i32)
        kb.emit(nisa.MemsetOp(self.base, -1.0))
        kb.emit(nisa.MemsetOp(self.valid16, 0.0))
        for quadrant in range(4):
            rows = kb.view(self.base, [32 * quadrant, 0], [4, 1])
            kb.emit(nisa.IotaOp(rows, [(1, 1)], offset=4 * quadrant, channel_multiplier=1))
            kb.emit(nisa.MemsetOp(kb.view(self.valid16, [32 * quadrant, 0], [4, 1]), 16.0))

        self.ids = kb.alloc([PMAX, self.sets, g.nbt], i32)
        self.affc = kb.alloc([PMAX, self.sets, g.nbt], f32)
        self.aidx = kb.alloc([PMAX, 1], i32)
        self.e_i = kb.alloc([PMAX], i32)
        self.e_f = kb.alloc([PMAX], f32)
        self.x = kb.alloc([PMAX, g.H], io, what="the gathered hidden rows")
        self.x4v = kb.expand(self.x, [[PMAX], [4, self.kt4, PMAX]])  # h = q H/4 + t 128 + p
        self.tp = kb.alloc([PMAX, PMAX], io, S.PSUM)
        self.xsrc = kb.alloc([PMAX, 4 * PMAX], bf16)  # [p, token, q] of one token tile
        self.xsrc3 = kb.expand(self.xsrc, [[PMAX], [PMAX, 4]])
        self.xq = kb.alloc(
            [PMAX, self.sets, self.kt4, g.Bc], nisa.float8_e4m3fn_x4, what="the MXFP8 hidden states"
        )
        self.xs = kb.alloc(
            [PMAX, self.sets, self.kt4, g.Bc], ui8, what="the hidden states' E8M0 scales"
        )
        self.wq = kb.alloc([PMAX, 2, self.kt4, g.chunk], x4, what="the gate/up weight chunk")
        self.wsc = kb.alloc([PMAX, 2, self.kt4, g.chunk], ui8, what="the gate/up weight scales")
        self.wdq = kb.alloc([PMAX, self.nt, PSUM_FMAX], x4, what="the down-projection weights")
        self.wds = kb.alloc(
            [PMAX, self.nt, PSUM_FMAX], ui8, what="the down-projection weight scales"
        )
        self.pg = kb.alloc([PMAX, g.Bm], f32, S.PSUM)
        self.pu = kb.alloc([PMAX, g.Bm], f32, S.PSUM)
        self.gs = kb.alloc([PMAX, g.Bm], f32)
        self.us = kb.alloc([PMAX, g.Bm], f32) if self.up_leaves_psum else None
        # [p, t, token, q]
        self.isrc = kb.alloc(
            [PMAX, self.nt, 4 * g.Bc], bf16, what="the intermediate act(gate) * up"
        )
        if self.last_lanes:  # the missing lanes of the partial tile: never written
            kb.emit(nisa.MemsetOp(self.isrc, 0.0))
        self.isrc4 = kb.expand(self.isrc, [[PMAX], [self.nt], [g.Bc, 4]])
        self.iq = kb.alloc(
            [PMAX, self.nt, g.Bc], nisa.float8_e4m3fn_x4, what="the MXFP8 intermediate"
        )
        self.isc = kb.alloc([PMAX, self.nt, g.Bc], ui8)
        self.pd = [kb.alloc([PMAX, PSUM_FMAX], f32, S.PSUM) for _ in range(self.down_group)]
        self._allocate_down_chunk()
        if self.bias:
            self.gb = kb.alloc([PMAX, 2 * self.gate_up_pair], f32)
        if self.aff_on_i:
            self.ones = kb.alloc([1, PMAX], f32)
            kb.emit(nisa.MemsetOp(self.ones, 1.0))
            self.arow1 = kb.alloc([1, g.Bc], f32)
            self.tp1 = kb.alloc([1, PMAX], f32, S.PSUM)
            self.prow = kb.alloc([PMAX, g.Bm], f32, S.PSUM)
            self.arow = kb.alloc([PMAX, g.Bc], f32)

    def _collapse_rows(self, source: SSAValue, rows: int) -> SSAValue:
        """``[E, 16, ...]`` -> ``[E * 16, ...]`` (memref.collapse_shape of dims 0 and 1)."""
        t = source.type
        assert isinstance(t, MemRefType)
        shape = list(t.get_shape())
        groups = [[0, 1]] + [[d] for d in range(2, len(shape))]
        result = MemRefType(t.element_type, [rows, *shape[2:]], NoneAttr(), t.memory_space)
        op = memref.CollapseShapeOp.create(
            operands=[source],
            result_types=[result],
            properties={
                "reassociation": ArrayAttr(
                    [ArrayAttr([IntegerAttr(d, i64) for d in grp]) for grp in groups]
                )
            },
        )
        return self.kb.emit(op).results[0]

    # ------------------------------------------------------- block expert

    @property
    def needs_expert_column(self) -> bool:
        return True  # the scale gather index is built from it

    def expert_of_block(self, b: Index) -> SSAValue:
        """``e = block_to_expert[b]`` as a register, in e_i / e_f, and the block's scale
        gather index ``sidx`` (valid rows ``16 e + 4 (p >> 5) + (p & 3)``, -1 in holes)."""
        e = super().expert_of_block(b)
        self.kb.emit(
            nisa.TensorScalarOp(
                self.sidx, self.valid16, AluOp.MULTIPLY, self.e_f, AluOp.ADD, self.base
            )
        )
        return e

    def core_columns(self, core: SSAValue) -> Index:
        """:meth:`BlockFFN.core_columns`, and the core's first 512-row I tile ``tile0``."""
        i0 = super().core_columns(core)
        self.tile0 = self.kb.mul(core, self.nt)
        return i0

    # --------------------------------------------------- 1. load tokens

    def load_tokens(self, s: Index, row0: Index) -> None:
        """:meth:`BlockFFN.load_tokens` with whole-H rows (the MX geometry reads
        ``h = q H/4 + t 128 + p`` across all of H): ids and affinities, the rows, then
        :meth:`stage_token_tile`."""
        kb = self.kb
        with kb.loop(0, self.g.nbt) as j:
            j0 = self.gather_token_ids(s, row0, j)
            self.gather_rows(s, j, self.x, 0, self.g.H)
            self.stage_token_tile(s, j0)
        if self.aff_on_i:
            self._affinity_rows(s)

    def stage_token_tile(self, s: Index, j0: Index) -> None:
        """The gathered rows transposed into ``[p, token, q]`` per 512-row H tile and
        quantized to float8_e4m3fn_x4."""
        kb = self.kb
        with kb.loop(0, self.kt4) as t:
            for q in range(4):
                xk = kb.view(self.x4v, [0, q, t, 0], [PMAX, 1, 1, PMAX], drop=[1, 2])
                kb.emit(nisa.NcTransposeOp(self.tp, xk))
                dst = kb.view(self.xsrc3, [0, 0, q], [PMAX, PMAX, 1], drop=[2])
                kb.emit(nisa.TensorCopyOp(dst, self.tp))
            xq = kb.view(self.xq, [0, s, t, j0], [PMAX, 1, 1, PMAX], drop=[1, 2])
            xs = kb.view(self.xs, [0, s, t, j0], [PMAX, 1, 1, PMAX], drop=[1, 2])
            kb.emit(nisa.QuantizeMxOp(xq, xs, self.xsrc))

    # ------------------------------------------------- 2. gate/up + act

    def gate_up(self, s: Index, e: Index, i0: Index, b: Index, col0: Index = 0) -> None:
        """``inter = act(gate) * up`` for I columns ``[i0, i0 + Ic)`` of expert ``e``
        (``sidx`` must hold e's scale index), then quantized to float8_e4m3fn_x4."""
        kb, g = self.kb, self.g
        E = g.E
        per_chunk = g.chunk // MX_TILE  # whole 512-row I tiles per chunk
        with kb.loop(0, g.Ic // g.chunk) as c:
            ci = kb.add(i0, kb.mul(c, g.chunk))
            src = kb.view(self.w_gu, [e, 0, 0, 0, ci], [1, PMAX, 2, self.kt4, g.chunk], drop=[0])
            kb.emit(nisa.DmaCopyOp(self.wq, src))
            rows = kb.view(self.s_gu, [0, 0, 0, ci], [E * SCALE_ROWS, 2, self.kt4, g.chunk])
            kb.emit(nisa.DmaCopyOp(self.wsc, rows, src_index=self.sidx, oob_mode=OobMode.SKIP))
            if per_chunk:
                with kb.loop(0, per_chunk) as tl:
                    self._gate_up_tile(s, e, b, col0, ci, kb.mul(c, per_chunk), tl, 4)
            if self.last_lanes:  # the partial last tile (its chunk is the core's whole I)
                self._gate_up_tile(s, e, b, col0, ci, 0, per_chunk, self.last_lanes)
        with kb.loop(0, self.nt) as t:  # quantize the intermediate, one I tile at a time
            kb.emit(
                nisa.QuantizeMxOp(
                    kb.view(self.iq, [0, t, 0], [PMAX, 1, g.Bc], drop=[1]),
                    kb.view(self.isc, [0, t, 0], [PMAX, 1, g.Bc], drop=[1]),
                    kb.view(self.isrc, [0, t, 0], [PMAX, 1, 4 * g.Bc], drop=[1]),
                )
            )

    def _gate_up_tile(
        self, s: Index, e: Index, b: Index, col0: Index, ci: Index, t0: Index, tl: Index, lanes: int
    ) -> None:
        """The first ``lanes`` 128-column lanes of 512-row I tile ``tl`` of the weight
        chunk at ``ci`` (I tile ``t0 + tl`` of this core): gate, up and ``act(gate) * up``
        into lane ``q`` of the intermediate."""
        kb, g = self.kb, self.g
        t = kb.add(t0, tl)
        pair = self.gate_up_pair
        for q0 in range(0, lanes, pair):
            tiles: list[ITile] = []
            for q in range(q0, min(q0 + pair, lanes)):
                local = kb.add(kb.mul(tl, MX_TILE), q * PMAX)

                def inter_tile(m0: Index, t: Index = t, q: int = q) -> SSAValue:
                    at, size = [0, t, m0, q], [PMAX, 1, g.Bm, 1]
                    return kb.view(self.isrc4, at, size, drop=[1, 3])

                tiles.append(ITile(kb.add(ci, local), local, inter_tile))
            self._gate_up_columns(s, e, tiles, b, col0)

    @property
    def gate_up_k_tiles(self) -> int:
        """PE passes over H per gate/up tile: 512-row H tiles (128 partitions x 4)."""
        return self.kt4

    def _gate_up_k(
        self, s: Index, k: Index, m0: Index, locals_: Sequence[Index], accumulate: bool
    ) -> None:
        """H tile ``k`` of the gate and up nc_matmul_mx of the I tiles at ``locals_`` in
        the weight chunk; they all share the MXFP8 token tile."""
        kb, g = self.kb, self.g
        moving = kb.view(self.xq, [0, s, k, m0], [PMAX, 1, 1, g.Bm], drop=[1, 2])
        mscale = kb.view(self.xs, [0, s, k, m0], [PMAX, 1, 1, g.Bm], drop=[1, 2])
        for local, psums in zip(locals_, self.gate_up_psums, strict=True):
            for gi, psum in enumerate(psums):
                at, size = [0, gi, k, local], [PMAX, 1, 1, PMAX]
                weights = kb.view(self.wq, at, size, drop=[1, 2])
                scales = kb.view(self.wsc, at, size, drop=[1, 2])
                kb.emit(
                    nisa.NcMatmulMxOp(psum, weights, scales, moving, mscale, accumulate=accumulate)
                )

    # ------------------------------------------------------------ 3. down

    @property
    def down_k_tiles(self) -> int:
        """PE passes over I per down tile: the core's 512-row I tiles."""
        return self.nt

    def _load_down_weights(self, e: Index, i0: Index, h0: Index) -> None:
        """The x4 ``Wd`` rows of this core's I tiles (``tile0`` = i0 / 512, set by the
        builder: no index division on chip) for H columns ``h0 .. h0 + 512``, and their
        E8M0 scales (``sidx`` holds e's scale index)."""
        kb, g = self.kb, self.g
        t0 = self.tile0
        src = kb.view(self.w_d, [e, 0, t0, h0], [1, PMAX, self.nt, PSUM_FMAX], drop=[0])
        kb.emit(nisa.DmaCopyOp(self.wdq, src))
        rows = kb.view(self.s_d, [0, t0, h0], [g.E * SCALE_ROWS, self.nt, PSUM_FMAX])
        kb.emit(nisa.DmaCopyOp(self.wds, rows, src_index=self.sidx, oob_mode=OobMode.SKIP))

    def _down_passes(
        self, psums: list[SSAValue], t: Index, rows: list[Index], accumulate: bool
    ) -> None:
        """512-row I tile ``t`` of the down nc_matmul_mx of the token tiles at ``rows``;
        they share the x4 Wd tile and its scales (the moving operand)."""
        kb = self.kb
        weights = kb.view(self.wdq, [0, t, 0], [PMAX, 1, PSUM_FMAX], drop=[1])
        scales = kb.view(self.wds, [0, t, 0], [PMAX, 1, PSUM_FMAX], drop=[1])
        for psum, b0 in zip(psums, rows, strict=True):
            data = kb.view(self.iq, [0, t, b0], [PMAX, 1, PMAX], drop=[1])
            data_scale = kb.view(self.isc, [0, t, b0], [PMAX, 1, PMAX], drop=[1])
            kb.emit(
                nisa.NcMatmulMxOp(psum, data, data_scale, weights, scales, accumulate=accumulate)
            )


# ------------------------------------------------------------------ builders


def build_shard_on_block_mx(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    quantization: QuantizationConfig | None,
) -> tuple[ModuleOp, BlockFFN]:
    """shard_on_block_mx: PING_PONG blocks, 3-block load/compute groups over the static
    prefix ``[0, n_static)``, then a data-dependent loop over ``[n_static, live)`` with
    ``live = min(sum(conditions), n_static + n_dynamic_blocks)`` (core c takes blocks
    ``n_static + c, n_static + c + 2, ...``); per-core output planes ``[2, T+1, H]``
    summed into plane 0 at the end (TopK > 1)."""
    sets = options.block_sets or BLOCK_PARALLEL_FACTOR  # blocks loaded ahead per group
    ffn = MxBlockFFN(spec, sizes, options, quantization, "main", sets=sets)
    kb, g = ffn.kb, ffn.g
    out = ffn.arg["output"]
    core = kb.emit(nisa.ProgramIdOp()).results[0]
    planes = len(out.type.get_shape()) == 3  # pyright: ignore[reportAttributeAccessIssue]
    zeros = ffn.zero_rows()

    def plane_rows(p: Index, r: Index, n: int) -> SSAValue:
        if planes:
            return kb.view(out, [p, r, 0], [1, n, g.H], drop=[0])
        return kb.view(out, [r, 0], [n, g.H])

    def zero(r: Index, n: int) -> None:
        for p in range(2 if planes else 1):

            def dst(h0: Index, p: int = p) -> SSAValue:
                return kb.view(plane_rows(p, r, n), [0, h0], [n, PSUM_FMAX])

            ffn.copy_zero_rows(zeros, dst, n)

    ffn.for_core_row_tiles(core, g.T + 1, zero)
    kb.emit(nisa.CoreBarrierOp(out))
    plane = plane_rows(core, 0, g.T + 1)

    cfg = spec.shard_on_block
    assert cfg is not None
    n_static = static_blocks(spec, sizes)

    def compute(s: Index, b: Index) -> None:
        e = ffn.expert_of_block(b)
        ffn.gate_up(s, e, 0, b)

        def finish(h0: Index) -> None:
            with kb.loop(0, g.nbt) as bt:
                ffn.finish_tile(s, bt, ffn.acc_tile(bt), plane, b, 0, h0)

        ffn.down(e, 0, finish)

    per_core = -(-n_static // 2)
    groups = -(-per_core // sets)

    def block_of(o: Index, s: Index) -> Index:
        return kb.add(kb.mul(kb.add(kb.mul(o, sets), s), 2), core)

    if groups:
        with kb.loop(0, groups) as o:  # the static prefix
            with kb.loop(0, sets) as s:  # phase 1: token loads
                b = block_of(o, s)
                with kb.when(kb.lt(b, n_static)):
                    if ffn.needs_affinity:
                        ffn.load_expert_column(b)
                    ffn.load_tokens(s, kb.mul(b, g.B))
            with kb.loop(0, sets) as s:  # phase 2: weights and matmuls
                b = block_of(o, s)
                with kb.when(kb.lt(b, n_static)):
                    compute(s, b)
    # the dynamic loop: its bound is read from `conditions` at run time
    conditions = kb.alloc([1, g.N + 1], i32)
    count = kb.alloc([1, 1], i32)
    kb.emit(nisa.DmaCopyOp(conditions, ffn.arg["conditions"]))
    kb.emit(nisa.TensorReduceOp(count, AluOp.ADD, conditions, [1]))
    limit = kb.f32(n_static + cfg.n_dynamic_blocks)  # at most n_dynamic_blocks more
    kb.emit(nisa.TensorScalarOp(count, count, AluOp.MINIMUM, limit))
    live = kb.emit(nisa.RegisterLoadOp(count)).results[0]
    with kb.loop(kb.add(core, n_static), live, 2) as b:
        if ffn.needs_affinity:
            ffn.load_expert_column(b)
        ffn.load_tokens(0, kb.mul(b, g.B))
        compute(0, b)

    if planes:  # the two-plane epilogue reduce
        kb.emit(nisa.CoreBarrierOp(out))
        zeros = ffn.zero_rows()

        def reduce(r: Index, n: int) -> None:
            p0, p1 = plane_rows(0, r, n), plane_rows(1, r, n)
            kb.emit(nisa.DmaComputeOp(p0, [p0, p1]))
            ffn.copy_zero_rows(zeros, lambda h0: kb.view(p1, [0, h0], [n, PSUM_FMAX]), n)

        ffn.for_core_row_tiles(core, g.T + 1, reduce)
    return kb.finish(), ffn


def static_blocks(spec: MoECTESpec, sizes: MoECTESizes) -> int:
    """The static prefix of shard_on_block_mx (-1: N - E, at least 0)."""
    cfg = spec.shard_on_block
    n = cfg.n_static_blocks if cfg is not None else -1
    return max(sizes.blocks - sizes.experts, 0) if n < 0 else n


__all__ = [
    "MxBlockFFN",
    "build_shard_on_block_mx",
    "static_blocks",
]
