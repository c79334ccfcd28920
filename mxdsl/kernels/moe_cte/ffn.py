"""The per-block expert FFN shared by the MoE-CTE variants, written as nisa IR.

For one block (or a chunk of a block's rows) routed to expert ``e``, over the part
``[i0, i0 + Ic)`` of the intermediate dim this core computes:

1. ``load_tokens``: read the token ids, gather the hidden rows (indirect DMA), gather
   the affinities at ``token * E + e``, apply PRE_SCALE, and transpose the hidden rows
   on the PE into ``xT[h, token]`` (H on partitions, the gate/up contraction dim);
2. ``gate_up``: ``gate/up[i, token] = W[e][h, g, i]^T @ xT`` accumulated in PSUM over
   128-row H tiles (two I tiles at a time where they fit: ``gate_up_pair``), then fp8
   dequant scale and bias (one ``activation(copy)``), clamps, ``act(gate) * up`` into
   the intermediate ``inter[i, token]`` (the down contraction dim on partitions);
3. ``down``: one 512-column H chunk at a time (one PSUM bank of f32), ``h[token, h0 :
   h0 + 512] = inter^T @ Wd[e][:, h0 : h0 + 512]`` accumulated over I tiles, times the fp8
   down scale, into the f32 chunk ``acc[token, 512]`` of every token tile, then
4. ``finish_tile`` on that chunk: down bias, checkpoint, POST_SCALE affinity, and the
   scatter into the output rows' columns (read-modify-write add when accumulating, else
   overwrite) — so nothing H-wide but the hidden states is held (nkilib's tiling).

Loops stay ``scf.for`` loops; tiles are the hardware's: K <= 128 partitions, stationary
free <= 128, moving free <= 512 (one PSUM bank).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType, f32, i32
from xdsl.ir import Attribute, Operation, SSAValue

from mxdsl.dialects import nisa
from mxdsl.dialects.nisa import ActivationFunction, AluOp, MemorySpace, OobMode
from mxdsl.kernels.moe_cte.interface import DTYPES, accumulates, checkpoints, kernel_arguments
from mxdsl.kernels.moe_cte.ir import Index, KernelBuilder, in_region
from mxdsl.kernels.moe_cte.spec import (
    PMAX,
    ActFnType,
    ExpertAffinityScaleMode,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
    core_intermediate,
    gate_up_chunk,
    i_tile,
    token_chunk,
)

ACTIVATIONS = {
    ActFnType.SiLU: ActivationFunction.SILU,
    ActFnType.GELU: ActivationFunction.GELU,
    ActFnType.GELU_Tanh_Approx: ActivationFunction.GELU_APPRX_TANH,
    ActFnType.Swish: ActivationFunction.GELU_APPRX_SIGMOID,
}

PSUM_FMAX = 512  # moving free size of one matmul (one PSUM bank of f32)
DOWN_GROUP_MAX = 4  # token tiles sharing each Wd tile in the down projection (PSUM tiles)


@dataclass
class Geometry:
    """Static tile counts of one kernel."""

    H: int
    I: int  # noqa: E741
    E: int
    T: int
    B: int
    N: int
    Ic: int  # I columns this core computes
    it: int  # I tile (partitions of gate/up output, down contraction)
    n_it: int  # I tiles per core
    chunk: int  # I columns per gate/up weight load
    n_chunk: int
    Bc: int  # token rows processed together (a block, or a dropping tile)
    nbt: int  # 128-row token tiles in Bc
    Bm: int  # gate/up moving free size (token columns per matmul)
    nbm: int
    kt: int  # 128-row H tiles (gate/up contraction)
    nhc: int  # 512-column H tiles (down moving free size)


@dataclass(frozen=True)
class ITile:
    """One I tile of a gate/up pass group: its first column in I, its column in the
    weight chunk, and where its intermediate goes per token column block."""

    col: Index
    local: Index
    inter: Callable[[Index], SSAValue]


class BlockFFN:
    """Emits the per-block FFN into a :class:`KernelBuilder` (see the module docstring)."""

    def __init__(
        self,
        spec: MoECTESpec,
        sizes: MoECTESizes,
        options: MoECTEOptions,
        quantization: QuantizationConfig | None,
        name: str,
        sets: int = 1,
    ) -> None:
        impl = spec.implementation
        self.spec, self.sizes, self.options = spec, sizes, options
        self.arg_specs = kernel_arguments(spec, sizes, options, quantization)
        self.kb = KernelBuilder(name, [a.memref_type for a in self.arg_specs])
        self.arg: dict[str, SSAValue] = {
            a.name: v for a, v in zip(self.arg_specs, self.kb.args, strict=True)
        }
        self.io: Attribute = DTYPES[options.dtype][0]
        self.fp8 = "gate_up_proj_scale" in self.arg
        self.bias = options.bias
        self.accumulate = accumulates(sizes, options)
        self.ckpt = checkpoints(spec)
        self.probes = "probe_down" in self.arg  # block_probes (mx-moe run --trace)
        scaling = options.scaling
        self.pre_scale = scaling in (
            ExpertAffinityScaleMode.PRE_SCALE,
            ExpertAffinityScaleMode.PRE_SCALE_DELAYED,
        )
        self.post_scale = scaling == ExpertAffinityScaleMode.POST_SCALE
        self.aff_on_i = spec.affinity_on_intermediate
        if self.aff_on_i and self.post_scale:
            self.post_scale = False  # the affinity multiplies the intermediate instead
        else:
            self.aff_on_i = False
        self.needs_affinity = self.pre_scale or self.post_scale or self.aff_on_i
        H, Ic = sizes.hidden, core_intermediate(impl, sizes)
        it = i_tile(Ic)
        chunk = gate_up_chunk(impl, sizes, options)
        Bc = token_chunk(impl, sizes)
        Bm = next(m for m in (512, 256, 128) if Bc % m == 0)
        self.g = Geometry(
            H=H,
            I=sizes.intermediate,
            E=sizes.experts,
            T=sizes.tokens,
            B=sizes.block_size,
            N=sizes.blocks,
            Ic=Ic,
            it=it,
            n_it=Ic // it,
            chunk=chunk,
            n_chunk=Ic // chunk,
            Bc=Bc,
            nbt=Bc // PMAX,
            Bm=Bm,
            nbm=Bc // Bm,
            kt=H // PMAX,
            nhc=H // PSUM_FMAX,
        )
        self.sets = sets
        self.progress_ops: list[Operation] = []
        self._allocate()
        self.gate_up_psums = self._gate_up_psums()

    # ------------------------------------------------------------ buffers

    def _allocate(self) -> None:
        kb, g, io = self.kb, self.g, self.io
        S = MemorySpace
        self.zidx = kb.alloc([PMAX, 1], i32)  # all-zero index: broadcast gathers
        kb.emit(nisa.MemsetOp(self.zidx, 0.0))
        self.ids = kb.alloc([PMAX, self.sets, g.nbt], i32)
        self.affc = kb.alloc([PMAX, self.sets, g.nbt], f32)
        self.aidx = kb.alloc([PMAX, 1], i32)
        self.e_i = kb.alloc([PMAX], i32)
        self.e_f = kb.alloc([PMAX], f32)
        # one 512-column H chunk of a token tile's gathered rows, in 128-column tiles
        self.x = kb.alloc([PMAX, PSUM_FMAX], io, what="the gathered hidden rows (H chunk)")
        self.x3 = kb.expand(self.x, [[PMAX], [PSUM_FMAX // PMAX, PMAX]])
        self.tp = kb.alloc([PMAX, PMAX], io, S.PSUM)
        self.xT = kb.alloc([PMAX, self.sets, g.kt, g.Bc], io, what="the transposed hidden states")
        self.wgu = kb.alloc([PMAX, g.kt, 2, g.chunk], io, what="the gate/up weight chunk")
        # Wd[one I tile, one 512-column H tile], streamed per pass
        self.wd = kb.alloc([g.it, PSUM_FMAX], io, what="the down-projection weight tile")
        self.pg = kb.alloc([g.it, g.Bm], f32, S.PSUM)
        self.pu = kb.alloc([g.it, g.Bm], f32, S.PSUM)
        self.gs = kb.alloc([g.it, g.Bm], f32)
        if "probe_gate_up" in self.arg:  # a PSUM gate / up tile's copy on its way to HBM
            self.probe = kb.alloc([g.it, g.Bm], f32)
        self.us = kb.alloc([g.it, g.Bm], f32) if self.up_leaves_psum else None
        self.inter = kb.alloc([g.it, g.n_it, g.Bc], io, what="the intermediate act(gate) * up")
        self.pd = [kb.alloc([PMAX, PSUM_FMAX], f32, S.PSUM) for _ in range(self.down_group)]
        self._allocate_down_chunk()
        if self.fp8:
            self.gsc = kb.alloc([g.it, 2 * self.gate_up_pair], f32)
            self.dsc = kb.alloc([PMAX, PSUM_FMAX], f32, what="the down fp8 scales (H chunk)")
        if self.bias:
            self.gb = kb.alloc([g.it, 2 * self.gate_up_pair], f32)
        if self.aff_on_i:
            self.ones = kb.alloc([1, g.it], f32)
            kb.emit(nisa.MemsetOp(self.ones, 1.0))
            self.arow1 = kb.alloc([1, g.Bc], f32)
            self.tp1 = kb.alloc([1, PMAX], f32, S.PSUM)
            self.prow = kb.alloc([g.it, g.Bm], f32, S.PSUM)
            self.arow = kb.alloc([g.it, g.Bc], f32)

    def _allocate_down_chunk(self) -> None:
        """The buffers of one 512-column H chunk of the down projection and output."""
        kb, g, io = self.kb, self.g, self.io
        self.acc = kb.alloc([PMAX, g.nbt, PSUM_FMAX], f32, what="the down-projection H chunk")
        self.otile = kb.alloc([PMAX, PSUM_FMAX], io, what="the output rows (H chunk)")
        if self.bias:  # the bias rows in the io dtype they arrive in (engines add in f32)
            self.db = kb.alloc([PMAX, PSUM_FMAX], io, what="the down bias (H chunk)")

    # ------------------------------------------------------- block expert

    def expert_of_block(self, b: Index) -> SSAValue:
        """``e = block_to_expert[b]`` as a register (index), also broadcast into the
        ``e_i`` / ``e_f`` columns when :attr:`needs_expert_column`."""
        kb = self.kb
        cell = kb.view(self.arg["block_to_expert"], [b], [1])
        op = nisa.RegisterLoadOp(cell)
        kb.emit(op)
        self.progress_ops.append(op)
        if self.needs_expert_column:
            self._broadcast_expert(cell)
        return op.results[0]

    @property
    def needs_expert_column(self) -> bool:
        """The affinity gather addresses ``token * E + e`` on chip."""
        return self.needs_affinity

    def load_expert_column(self, b: Index) -> None:
        """``block_to_expert[b]`` on every partition of ``e_i`` (i32) and ``e_f`` (f32)."""
        self._broadcast_expert(self.kb.view(self.arg["block_to_expert"], [b], [1]))

    def _broadcast_expert(self, cell: SSAValue) -> None:
        self.kb.emit(nisa.DmaCopyOp(self.e_i, cell, src_index=self.zidx))
        self.kb.emit(nisa.TensorCopyOp(self.e_f, self.e_i))

    def core_columns(self, core: SSAValue) -> Index:
        """The first I column an I-sharded core computes: ``core * Ic``."""
        return self.kb.mul(core, self.g.Ic)

    # --------------------------------------------------- 1. load tokens

    def load_tokens(self, s: Index, row0: Index) -> None:
        """Token ids ``token_position_to_id[row0 : row0 + Bc]``, affinities, and the
        hidden rows into buffer set ``s`` (needs ``e_f`` for affinities), one 128-row
        token tile at a time: ids and affinities by :meth:`gather_token_ids`, then per
        512-column H chunk the rows gathered (:meth:`gather_rows`) and transposed into
        ``xT`` (:meth:`stage_token_chunk`), so only one chunk of rows is held."""
        kb = self.kb
        with kb.loop(0, self.g.nbt) as j:
            j0 = self.gather_token_ids(s, row0, j)
            with kb.loop(0, self.g.nhc) as hc:
                h0 = kb.mul(hc, PSUM_FMAX)
                self.gather_rows(s, j, self.x, h0, PSUM_FMAX)
                self.stage_token_chunk(s, j0, hc)
        if self.aff_on_i:
            self._affinity_rows(s)

    def gather_token_ids(self, s: Index, row0: Index, j: Index) -> Index:
        """Token tile ``j``: its ids and its affinities; returns its first row ``j * 128``."""
        kb, g = self.kb, self.g
        ids = kb.view(self.ids, [0, s, j], [PMAX, 1, 1], drop=[1])
        j0 = kb.mul(j, PMAX)
        src = kb.view(self.arg["token_position_to_id"], [kb.add(row0, j0)], [PMAX])
        kb.emit(nisa.DmaCopyOp(ids, src))
        if not self.needs_affinity:
            return j0
        affc = kb.view(self.affc, [0, s, j], [PMAX, 1, 1], drop=[1])
        kb.emit(
            nisa.TensorScalarOp(self.aidx, ids, AluOp.MULTIPLY, kb.f32(g.E), AluOp.ADD, self.e_f)
        )
        kb.emit(nisa.DmaCopyOp(affc, self.arg["expert_affinities_masked"], src_index=self.aidx))
        return j0

    def gather_rows(self, s: Index, j: Index, dst: SSAValue, h0: Index, width: int) -> None:
        """Columns ``h0 .. h0 + width`` of token tile ``j``'s hidden rows into ``dst``
        (indirect DMA by its ids), times the affinity under PRE_SCALE."""
        kb, g = self.kb, self.g
        ids = kb.view(self.ids, [0, s, j], [PMAX, 1, 1], drop=[1])
        src = self.arg["hidden_states"]
        if width != g.H:
            src = kb.view(src, [0, h0], [g.T + 1, width])
        kb.emit(nisa.DmaCopyOp(dst, src, src_index=ids))
        if self.pre_scale:
            affc = kb.view(self.affc, [0, s, j], [PMAX, 1, 1], drop=[1])
            kb.emit(nisa.TensorScalarOp(dst, dst, AluOp.MULTIPLY, affc))

    def stage_token_chunk(self, s: Index, j0: Index, hc: Index) -> None:
        """The gathered chunk ``x`` (H chunk ``hc``) transposed, H onto partitions, into
        its 4 H tiles of ``xT``."""
        kb = self.kb
        per_chunk = PSUM_FMAX // PMAX
        with kb.loop(0, per_chunk) as kk:
            xk = kb.view(self.x3, [0, kk, 0], [PMAX, 1, PMAX], drop=[1])
            kb.emit(nisa.NcTransposeOp(self.tp, xk))
            k = kb.add(kb.mul(hc, per_chunk), kk)
            dst = kb.view(self.xT, [0, s, k, j0], [PMAX, 1, 1, PMAX], drop=[1, 2])
            kb.emit(nisa.TensorCopyOp(dst, self.tp))

    def _affinity_rows(self, s: Index) -> None:
        """``arow[i, token] = affinity[token]`` on every I partition (PE transpose of the
        affinity column, then a K = 1 matmul against ones)."""
        kb, g = self.kb, self.g
        with kb.loop(0, g.nbt) as j:
            col = kb.view(self.affc, [0, s, j], [PMAX, 1, 1], drop=[1])
            kb.emit(nisa.NcTransposeOp(self.tp1, col))
            dst = kb.view(self.arow1, [0, kb.mul(j, PMAX)], [1, PMAX])
            kb.emit(nisa.TensorCopyOp(dst, self.tp1))
        with kb.loop(0, g.nbm) as m:
            moving = kb.view(self.arow1, [0, kb.mul(m, g.Bm)], [1, g.Bm])
            kb.emit(nisa.NcMatmulOp(self.prow, self.ones, moving))
            kb.emit(
                nisa.TensorCopyOp(kb.view(self.arow, [0, kb.mul(m, g.Bm)], [g.it, g.Bm]), self.prow)
            )

    # ------------------------------------------------- 2. gate/up + act

    def gate_up(self, s: Index, e: Index, i0: Index, b: Index, col0: Index = 0) -> None:
        """``inter = act(gate) * up`` for I columns ``[i0, i0 + Ic)`` of expert ``e``."""
        kb, g = self.kb, self.g
        w = self.arg["gate_up_proj_weight"]
        pair = self.gate_up_pair
        with kb.loop(0, g.n_chunk) as c:
            ci = kb.add(i0, kb.mul(c, g.chunk))
            with kb.loop(0, g.kt) as k:
                dst = kb.view(self.wgu, [0, k, 0, 0], [PMAX, 1, 2, g.chunk], drop=[1])
                src = kb.view(w, [e, kb.mul(k, PMAX), 0, ci], [1, PMAX, 2, g.chunk], drop=[0])
                kb.emit(nisa.DmaCopyOp(dst, src))
            with kb.loop(0, g.chunk // (pair * g.it)) as t:
                tiles: list[ITile] = []
                for p in range(pair):
                    local = kb.add(kb.mul(t, pair * g.it), p * g.it)  # column in the chunk
                    tile = kb.add(kb.mul(c, g.chunk // g.it), kb.add(kb.mul(t, pair), p))

                    def inter_tile(m0: Index, tile: Index = tile) -> SSAValue:
                        return kb.view(self.inter, [0, tile, m0], [g.it, 1, g.Bm], drop=[1])

                    tiles.append(ITile(kb.add(ci, local), local, inter_tile))
                self._gate_up_columns(s, e, tiles, b, col0)

    @property
    def up_leaves_psum(self) -> bool:
        """Up is rewritten in SBUF (``us``) before the multiply: :meth:`_leaves_psum`, or
        the affinity row multiplies it."""
        return self._leaves_psum(1) or self.aff_on_i

    @property
    def gate_up_pair(self) -> int:
        """I tiles whose gate and up passes run together, sharing each moving (token)
        tile: 2 when a chunk holds an even number of I tiles and the down projection has
        two PSUM tiles for the second pair (the phases never overlap), else 1. Each
        token tile then feeds four passes in a row instead of two."""
        tiles_per_chunk = self.g.chunk // self.g.it
        return 2 if tiles_per_chunk % 2 == 0 and self.down_group >= 2 else 1

    def _gate_up_psums(self) -> list[tuple[SSAValue, SSAValue]]:
        """The (gate, up) PSUM tiles of each I tile of a :attr:`gate_up_pair`: ``pg`` and
        ``pu``, then (views of) the first two down-projection PSUM tiles."""
        psums = [(self.pg, self.pu)]
        if self.gate_up_pair == 2:
            shape = _shape(self.pg)
            gate, up = (
                pd if _shape(pd) == shape else self.kb.view(pd, [0, 0], shape) for pd in self.pd[:2]
            )
            psums.append((gate, up))
        return psums

    def _gate_up_columns(
        self, s: Index, e: Index, tiles: Sequence[ITile], b: Index, col0: Index
    ) -> None:
        """The I tiles ``tiles`` (one or a :attr:`gate_up_pair`) of gate and up for each
        token column block ``m0``: the K loop of PE passes (:meth:`_gate_up_k`; the first
        H tile overwrites PSUM, the others accumulate), then per I tile scale, bias,
        clamp, ``act(gate) * up`` into its ``inter(m0)``."""
        kb, g = self.kb, self.g
        for p, tile in enumerate(tiles):
            self._load_gate_up_columns(e, p, tile.col)
        psums = self.gate_up_psums
        with kb.loop(0, g.nbm) as m:
            m0 = kb.mul(m, g.Bm)
            k_tiles = self.gate_up_k_tiles
            for k0, k1, accumulate in ((0, 1, False), (1, k_tiles, True)):
                if k1 <= k0:
                    continue
                with kb.loop(k0, k1) as k:
                    self._gate_up_k(s, k, m0, [t.local for t in tiles], accumulate)
            for p, (tile, (pg, pu)) in enumerate(zip(tiles, psums, strict=True)):
                self._activate(p, tile, pg, pu, b, col0, m0)

    def _load_gate_up_columns(self, e: Index, p: int, col: Index) -> None:
        """The fp8 dequant scales and the biases of gate and up for the I tile at
        ``col`` into columns ``2p`` (gate) and ``2p + 1`` (up) of ``gsc`` / ``gb``."""
        kb, g = self.kb, self.g
        for gi in (0, 1):
            if self.fp8:
                src = self.arg["gate_up_proj_scale"]
                src = kb.view(src, [e, 0, kb.add(col, gi * g.I)], [1, 1, g.it])
                kb.emit(nisa.DmaCopyOp(kb.view(self.gsc, [0, 2 * p + gi], [g.it, 1]), src))
            if self.bias:
                src = kb.view(self.arg["gate_and_up_proj_bias"], [e, gi, col], [1, 1, g.it])
                kb.emit(nisa.DmaCopyOp(kb.view(self.gb, [0, 2 * p + gi], [g.it, 1]), src))

    def _activate(
        self, p: int, tile: ITile, pg: SSAValue, pu: SSAValue, b: Index, col0: Index, m0: Index
    ) -> None:
        """Tile ``p`` of a pair: its gate and up PSUM tiles evacuated, ``act(gate) * up``
        (times the affinity row when it applies to the intermediate) into ``tile.inter``."""
        kb = self.kb
        with kb.region("gate"):
            gate = self._evacuate(0, p, pg, b, tile.col, col0, m0)
        with kb.region("act"):
            kb.emit(nisa.ActivationOp(self.gs, ACTIVATIONS[self.options.activation], gate))
        with kb.region("up"):
            up = self._evacuate(1, p, pu, b, tile.col, col0, m0)
        self._times_up(tile, up, m0)
        if "probe_act" in self.arg:
            g = self.g
            at = [b, tile.col, kb.add(col0, m0)]
            dst = kb.view(self.arg["probe_act"], at, [1, g.it, g.Bm])
            kb.emit(nisa.DmaCopyOp(dst, tile.inter(m0)))

    @in_region("act")
    def _times_up(self, tile: ITile, up: SSAValue, m0: Index) -> None:
        """``act(gate) * up`` (the affinity row first, when it applies) into the tile."""
        kb, g = self.kb, self.g
        if self.aff_on_i:
            assert self.us is not None  # allocated whenever aff_on_i
            kb.emit(
                nisa.TensorTensorOp(
                    self.us, AluOp.MULTIPLY, up, kb.view(self.arow, [0, m0], [g.it, g.Bm])
                )
            )
            up = self.us
        kb.emit(nisa.TensorTensorOp(tile.inter(m0), AluOp.MULTIPLY, self.gs, up))

    @property
    def gate_up_k_tiles(self) -> int:
        """PE passes over H per gate/up tile: 128-row H tiles."""
        return self.g.kt

    def _gate_up_k(
        self, s: Index, k: Index, m0: Index, locals_: Sequence[Index], accumulate: bool
    ) -> None:
        """H tile ``k`` of the gate and up matmuls of the I tiles at ``locals_`` in the
        weight chunk; they all share the moving tile (the tokens' hidden^T)."""
        kb, g = self.kb, self.g
        moving = kb.view(self.xT, [0, s, k, m0], [PMAX, 1, 1, g.Bm], drop=[1, 2])
        for local, psums in zip(locals_, self.gate_up_psums, strict=True):
            for gi, psum in enumerate(psums):
                at = [0, k, gi, local]
                stationary = kb.view(self.wgu, at, [PMAX, 1, 1, g.it], drop=[1, 2])
                with kb.region(("gate", "up")[gi]):
                    kb.emit(nisa.NcMatmulOp(psum, stationary, moving, accumulate=accumulate))

    def _leaves_psum(self, gi: int) -> bool:
        """Whether the gate (``gi`` 0) or up tile is rewritten in SBUF before its use: an
        fp8 scale, a bias, a clamp or a checkpoint applies to it."""
        clamp = (self.options.gate_clamp, self.options.up_clamp)[gi]
        return self.fp8 or self.bias or self.ckpt or clamp != (None, None)

    def _evacuate(
        self, gi: int, p: int, psum: SSAValue, b: Index, col: Index, col0: Index, m0: Index
    ) -> SSAValue:
        """Scale, bias, clamp (and checkpoint) the gate (``gi`` 0, into ``gs``) or up
        (into ``us``) PSUM tile of tile ``p`` of a pair; returns where the value now lives
        (the PSUM tile itself when nothing applies to it)."""
        if not self._leaves_psum(gi):
            self._probe_gate_up(gi, psum, psum, b, col, col0, m0)
            return psum
        kb, g = self.kb, self.g
        sbuf = (self.gs, self.us)[gi]
        assert sbuf is not None  # allocated whenever _leaves_psum
        clamp = (self.options.gate_clamp, self.options.up_clamp)[gi]
        value = psum
        if self.fp8 or self.bias:
            scale = kb.view(self.gsc, [0, 2 * p + gi], [g.it, 1]) if self.fp8 else None
            bias = kb.view(self.gb, [0, 2 * p + gi], [g.it, 1]) if self.bias else None
            kb.emit(nisa.ActivationOp(sbuf, ActivationFunction.COPY, value, scale=scale, bias=bias))
            value = sbuf
        lo, hi = clamp
        if lo is not None and hi is not None:
            kb.emit(
                nisa.TensorScalarOp(
                    sbuf, value, AluOp.MAXIMUM, kb.f32(lo), AluOp.MINIMUM, kb.f32(hi)
                )
            )
            value = sbuf
        elif lo is not None:
            kb.emit(nisa.TensorScalarOp(sbuf, value, AluOp.MAXIMUM, kb.f32(lo)))
            value = sbuf
        elif hi is not None:
            kb.emit(nisa.TensorScalarOp(sbuf, value, AluOp.MINIMUM, kb.f32(hi)))
            value = sbuf
        if self.ckpt:
            if value is psum:
                kb.emit(nisa.TensorCopyOp(sbuf, psum))
                value = sbuf
            dst = kb.view(
                self.arg["gate_up_activations_T"],
                [b, gi, col, kb.add(col0, m0)],
                [1, 1, g.it, g.Bm],
            )
            kb.emit(nisa.DmaCopyOp(dst, value))
        self._probe_gate_up(gi, value, psum, b, col, col0, m0)
        return value

    def _probe_gate_up(
        self,
        gi: int,
        value: SSAValue,
        psum: SSAValue,
        b: Index,
        col: Index,
        col0: Index,
        m0: Index,
    ) -> None:
        """With block probes: the gate (``gi`` 0) or up tile ``value`` into
        ``probe_gate_up[b, gi, col :, col0 + m0 :]`` (a PSUM tile through a copy of its
        own: the value the next ops read is left as it is)."""
        if "probe_gate_up" not in self.arg:
            return
        kb, g = self.kb, self.g
        if value is psum:
            kb.emit(nisa.TensorCopyOp(self.probe, psum))
            value = self.probe
        at = [b, gi, col, kb.add(col0, m0)]
        dst = kb.view(self.arg["probe_gate_up"], at, [1, 1, g.it, g.Bm])
        kb.emit(nisa.DmaCopyOp(dst, value))

    # ------------------------------------------------------------ 3. down

    @in_region("down")
    def down(self, e: Index, i0: Index, finish: Callable[[Index], None]) -> None:
        """Per 512-column H chunk ``h0`` (one PSUM bank of f32): ``acc[token, :] =
        inter^T @ Wd[e][i0 : i0 + Ic, h0 : h0 + 512]`` (times the fp8 down scale) for
        every token tile, then ``finish(h0)`` takes the chunk to the output. K passes
        over I tiles (:meth:`_down_passes`) per 128-row token tile, :attr:`down_group`
        token tiles at a time (one PSUM tile each) so that each Wd tile feeds that many
        passes in a row. Only the chunk's Wd columns, scales and bias are loaded."""
        kb, g = self.kb, self.g
        group = self.down_group
        psums = self.pd
        with kb.loop(0, g.nhc) as hc:  # 512-column H tiles: stream that slice of Wd
            h0 = kb.mul(hc, PSUM_FMAX)
            self._load_down_weights(e, i0, h0)
            if self.fp8:
                row = kb.view(self.arg["down_proj_scale"], [e, 0, h0], [1, 1, PSUM_FMAX], drop=[0])
                kb.emit(nisa.DmaCopyOp(self.dsc, row, src_index=self.zidx))
            if self.bias:
                row = kb.view(self.arg["down_proj_bias"], [e, h0], [1, PSUM_FMAX])
                kb.emit(nisa.DmaCopyOp(self.db, row, src_index=self.zidx))
            with kb.loop(0, g.nbt // group) as tg:  # `group` token tiles share each Wd tile
                tiles = [kb.add(kb.mul(tg, group), j) for j in range(group)]
                rows = [kb.mul(bt, PMAX) for bt in tiles]
                for t0, t1, accumulate in ((0, 1, False), (1, self.down_k_tiles, True)):
                    if t1 <= t0:
                        continue
                    with kb.loop(t0, t1) as t:
                        self._down_passes(psums, t, rows, accumulate)
                for bt, psum in zip(tiles, psums, strict=True):
                    dst = self.acc_tile(bt)
                    if self.fp8:
                        kb.emit(nisa.TensorTensorOp(dst, AluOp.MULTIPLY, psum, self.dsc))
                    else:
                        kb.emit(nisa.TensorCopyOp(dst, psum))
            finish(h0)

    @property
    def down_group(self) -> int:
        """Token tiles whose down passes interleave, one PSUM tile each (at most 4: 8 KiB
        of the 16 KiB PSUM partition): each Wd tile then feeds that many passes in a row."""
        return max(d for d in range(1, DOWN_GROUP_MAX + 1) if self.g.nbt % d == 0)

    @property
    def down_k_tiles(self) -> int:
        """PE passes over I per down tile: the core's I tiles."""
        return self.g.n_it

    def _load_down_weights(self, e: Index, i0: Index, h0: Index) -> None:
        """Nothing per H chunk: :meth:`_down_passes` streams one Wd tile per pass group."""
        self._down_weights = (e, i0, h0)

    def _down_passes(
        self, psums: list[SSAValue], t: Index, rows: list[Index], accumulate: bool
    ) -> None:
        """I tile ``t`` of the down projection of the token tiles at ``rows``, one PSUM
        tile each; they share the Wd tile ``Wd[e][i0 + t * it, h0 : h0 + 512]`` (the
        moving operand), loaded here."""
        kb, g = self.kb, self.g
        e, i0, h0 = self._down_weights
        src = kb.view(
            self.arg["down_proj_weight"], [e, kb.add(i0, kb.mul(t, g.it)), h0], [1, g.it, PSUM_FMAX]
        )
        kb.emit(nisa.DmaCopyOp(self.wd, kb.view(src, [0, 0, 0], [1, g.it, PSUM_FMAX], drop=[0])))
        for psum, b0 in zip(psums, rows, strict=True):
            stationary = kb.view(self.inter, [0, t, b0], [g.it, 1, PMAX], drop=[1])
            kb.emit(nisa.NcMatmulOp(psum, stationary, self.wd, accumulate=accumulate))

    # ------------------------------------------------------ 4. finish

    def acc_tile(self, bt: Index) -> SSAValue:
        """Token tile ``bt`` of the current H chunk: f32 ``[128, 512]``."""
        return self.kb.view(self.acc, [0, bt, 0], [PMAX, 1, PSUM_FMAX], drop=[1])

    @in_region("scatter")
    def finish_tile(
        self, s: Index, bt: Index, h: SSAValue, plane: SSAValue, b: Index, row0: Index, h0: Index
    ) -> None:
        """Bias, checkpoint, POST_SCALE and the scatter of token tile ``bt`` (its values
        ``h``, f32 [128, 512], the H chunk at column ``h0``) into the output ``plane``
        ([T + 1, H]), columns ``h0 .. h0 + 512`` of the tile's rows. The scatter (and
        the read of an accumulating one) indexes rows ``[0, T)`` with ``oob_mode skip``:
        padding slots (id T) move nothing, so no core touches the padding row T after
        it is zeroed and the cores' scatters never meet there."""
        kb, g = self.kb, self.g
        if self.bias:
            kb.emit(nisa.TensorTensorOp(h, AluOp.ADD, h, self.db))
        if self.ckpt:
            dst = kb.view(
                self.arg["down_activations"],
                [b, kb.add(row0, kb.mul(bt, PMAX)), h0],
                [1, PMAX, PSUM_FMAX],
            )
            kb.emit(nisa.DmaCopyOp(dst, h))
        probe: list[Index] = []
        if self.probes:
            probe = [b, kb.add(row0, kb.mul(bt, PMAX)), h0]
            dst = kb.view(self.arg["probe_down"], probe, [1, PMAX, PSUM_FMAX])
            kb.emit(nisa.DmaCopyOp(dst, h))
        ids = kb.view(self.ids, [0, s, bt], [PMAX, 1, 1], drop=[1])
        if self.post_scale:
            affc = kb.view(self.affc, [0, s, bt], [PMAX, 1, 1], drop=[1])
            kb.emit(nisa.TensorScalarOp(h, h, AluOp.MULTIPLY, affc))
        if self.probes:
            dst = kb.view(self.arg["probe_rows"], probe, [1, PMAX, PSUM_FMAX])
            kb.emit(nisa.DmaCopyOp(dst, h))
        # the T real rows only: a padding slot's id T is out of range, so its row is
        # skipped (neither read nor written) and the padding row keeps its zeros
        columns = kb.view(plane, [0, h0], [g.T, PSUM_FMAX])
        if self.accumulate:
            kb.emit(nisa.DmaCopyOp(self.otile, columns, src_index=ids, oob_mode=OobMode.SKIP))
            kb.emit(nisa.TensorTensorOp(self.otile, AluOp.ADD, self.otile, h))
            kb.emit(nisa.DmaCopyOp(columns, self.otile, dst_index=ids, oob_mode=OobMode.SKIP))
        else:
            kb.emit(nisa.DmaCopyOp(columns, h, dst_index=ids, oob_mode=OobMode.SKIP))

    # ------------------------------------------------- output helpers

    def for_core_row_tiles(
        self, core: SSAValue, rows: int, body: Callable[[Index, int], None]
    ) -> None:
        """Row tiles of 128 over ``rows`` rows, dealt round-robin to the 2 cores:
        ``body(row_offset, n_rows)``."""
        kb = self.kb
        full, tail = divmod(rows, PMAX)
        if full:
            with kb.loop(core, full, 2) as r:
                body(kb.mul(r, PMAX), PMAX)
        if tail:
            with kb.when(kb.eq(core, full % 2)):
                body(full * PMAX, tail)

    def zero_rows(self) -> SSAValue:
        """The output-row tile cleared, as a source of zero rows for clearing the output
        (before the blocks or after them: no block's rows are in it then)."""
        self.kb.emit(nisa.MemsetOp(self.otile, 0.0))
        return self.otile

    def copy_zero_rows(self, zeros: SSAValue, dst: Callable[[Index], SSAValue], n: int) -> None:
        """Zero ``n`` output rows one 512-column chunk at a time: ``dst(h0)`` is the
        ``[n, 512]`` destination of the chunk at column ``h0``."""
        kb = self.kb
        with kb.loop(0, self.g.nhc) as hc:
            src = kb.view(zeros, [0, 0], [n, PSUM_FMAX])
            kb.emit(nisa.DmaCopyOp(dst(kb.mul(hc, PSUM_FMAX)), src))

    def zero_output(self, core: SSAValue) -> None:
        """Each core zeroes its row tiles of the output (every plane)."""
        kb, g = self.kb, self.g
        out = self.arg["output"]
        zeros = self.zero_rows()
        shape = out.type.get_shape()  # pyright: ignore[reportAttributeAccessIssue]
        planes = shape[1] if len(shape) == 3 else 1

        def body(r: Index, n: int) -> None:
            for p in range(planes):

                def dst(h0: Index, p: int = p) -> SSAValue:
                    if planes == 1:
                        return kb.view(out, [r, h0], [n, PSUM_FMAX])
                    return kb.view(out, [r, p, h0], [n, 1, PSUM_FMAX], drop=[1])

                self.copy_zero_rows(zeros, dst, n)

        self.for_core_row_tiles(core, g.T + 1, body)


def _shape(buffer: SSAValue) -> list[int]:
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    return list(buffer_type.get_shape())


__all__ = ["ACTIVATIONS", "BlockFFN", "Geometry", "ITile"]
