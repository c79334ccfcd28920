"""Matmuls: ``ScaledMatmul_*`` (``nisa.nc_matmul_mx``, contraction index ``k = 4 p + q``:
partition p, x4 lane q) and ``dot_general`` on bf16 / f16 / f32 (``nisa.nc_matmul``, K <=
128 per step), per output tile accumulating over the K tiles in PSUM, then copied out
(``tensor_copy`` PSUM -> SBUF in the result type, DMA to HBM)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    TensorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from mxdsl.builder import Offset, element_type_of, shape_of
from mxdsl.contract.mx import (
    SCALED_MATMUL_TARGETS,
    ScaledDotConfig,
)
from mxdsl.dialects import nisa
from mxdsl.dialects.hlo import CustomCallOp, DotGeneralOp
from mxdsl.lowerings import Lowerings
from mxdsl.transforms.hlo_to_nisa.common import (
    E8M0,
    F32,
    MX_PARTITION_QUANTUM,
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


def lower_scaled_matmul(lowering: FunctionLowering, op: CustomCallOp) -> None:
    element_dtype, _ = SCALED_MATMUL_TARGETS[op.target]
    try:
        config = ScaledDotConfig.parse(op.backend_config.data, op.target)
    except VerifyException as err:
        raise Refusal(str(err)) from None
    if len(config.lhs_contracting_dimensions) != 1 or len(config.rhs_contracting_dimensions) != 1:
        raise Refusal("exactly one contracting dim per side is lowered")
    if lowering.options.matmul_k_tile % MX_PARTITION_QUANTUM:
        raise Refusal(
            f"matmul_k_tile {lowering.options.matmul_k_tile} is not a multiple of "
            f"{MX_PARTITION_QUANTUM}, the partition quantum of nc_matmul_mx"
        )
    x4 = x4_type(element_dtype)
    lhs, rhs, lhs_scale, rhs_scale = (lowering.value(v) for v in op.inputs[:4])
    matmul = _Matmul(
        lowering,
        op,
        lhs=_Operand.make(
            lowering,
            "lhs",
            lowering.builder.cast(lhs, x4),
            config.lhs_batch_dimensions,
            config.lhs_contracting_dimensions[0],
            lhs_scale,
        ),
        rhs=_Operand.make(
            lowering,
            "rhs",
            lowering.builder.cast(rhs, x4),
            config.rhs_batch_dimensions,
            config.rhs_contracting_dimensions[0],
            rhs_scale,
        ),
        mx=True,
    )
    matmul.run()


def lower_dot_general(lowering: FunctionLowering, op: DotGeneralOp) -> None:
    (lhs_batch, rhs_batch), (lhs_contract, rhs_contract) = op.batching_dims, op.contracting_dims
    for side, dims in (("lhs", lhs_contract), ("rhs", rhs_contract)):
        if len(dims) != 1:
            raise Refusal(
                f"{side} contracting dims {list(dims)}: exactly one contracting dim per "
                "side is lowered (it is mapped onto the partitions); reshape them into one"
            )
    lhs, rhs = lowering.value(op.lhs), lowering.value(op.rhs)
    types = (element_type_of(lhs), element_type_of(rhs))
    for side, t in zip(("lhs", "rhs"), types, strict=True):
        if not isinstance(t, BFloat16Type | Float16Type | Float32Type):
            raise Refusal(f"{side} element type {t}: nc_matmul lowering takes bf16, f16 or f32")
    if any(isinstance(t, Float32Type) for t in types) and not all(
        isinstance(t, Float32Type) for t in types
    ):
        raise Refusal(
            f"lhs is {types[0]} and rhs is {types[1]}: nc_matmul pairs an f32 operand only "
            "with f32; convert one side first"
        )
    result = op.result.type
    assert isinstance(result, TensorType)
    if not isinstance(result.get_element_type(), BFloat16Type | Float16Type | Float32Type):
        raise Refusal(f"result element type {result.get_element_type()}: bf16, f16 or f32 only")
    _Matmul(
        lowering,
        op,
        lhs=_Operand.make(lowering, "lhs", lhs, lhs_batch, lhs_contract[0], None),
        rhs=_Operand.make(lowering, "rhs", rhs, rhs_batch, rhs_contract[0], None),
        mx=False,
    ).run()


@dataclass
class _Operand:
    """One side of a matmul: its HBM data (and MX scale), dims, and whether the
    contraction dim comes before its free dim (K-major: rows of K load directly onto
    partitions) or after (K-minor: a transposing load, one strided DMA per tile through
    a ``nisa.permute`` view)."""

    side: str
    data: SSAValue
    scale: SSAValue | None
    batch: tuple[int, ...]
    contract: int
    free: int
    rank: int

    @staticmethod
    def make(
        lowering: FunctionLowering,
        side: str,
        data: SSAValue,
        batch: Sequence[int],
        contract: int,
        scale: SSAValue | None,
    ) -> _Operand:
        """The operand with its free dims as one: adjacent free dims merge (a view of
        the row-major buffer, as ``[b, s, h]`` activations are ``[b s, h]``), and an
        operand without a free dim (a matrix-vector product) gets a unit free dim after
        its last dim. Free dims that are not adjacent are refused."""
        shape = shape_of(data)
        rank = len(shape)
        free = [d for d in range(rank) if d not in (*batch, contract)]
        if free and free != list(range(free[0], free[-1] + 1)):
            raise Refusal(
                f"{side} free dims {free} (rank {rank}, batch dims {list(batch)}, "
                f"contracting dim {contract}) are not adjacent: the lowering merges "
                "adjacent free dims into the "
                f"{'stationary' if side == 'lhs' else 'moving'} free axis; transpose the "
                "free dims next to each other first"
            )
        if len(free) == 1:
            return _Operand(side, data, scale, tuple(batch), contract, free[0], rank)
        # new dim of each old dim: the free dims become one dim (or a unit dim at the end)
        first = free[0] if free else rank
        position = [d if d <= first else d - len(free) + 1 for d in range(rank)]
        groups: list[list[int]] = []
        for d in range(rank):
            if d not in free[1:]:
                groups.append([])
            groups[-1].append(d)
        new_rank = rank - len(free) + 1

        def view(value: SSAValue) -> SSAValue:
            old = shape_of(value)
            new = [math.prod(old[d] for d in g) for g in groups]
            if not free:
                new.append(1)
            return lowering.builder.reshaped(value, new)

        return _Operand(
            side,
            view(data),
            None if scale is None else view(scale),
            tuple(position[d] for d in batch),
            position[contract],
            position[first] if free else rank,
            new_rank,
        )

    @property
    def k_major(self) -> bool:
        return self.contract < self.free

    @property
    def free_size(self) -> int:
        return shape_of(self.data)[self.free]


class _Matmul:
    """``result[batch..., M, N] = lhs . rhs`` as tiles: for every batch index, M tile and
    N tile, a PSUM accumulator that the first K tile's matmul initialises and the others
    accumulate into, copied out."""

    def __init__(
        self, lowering: FunctionLowering, op: Operation, lhs: _Operand, rhs: _Operand, mx: bool
    ):
        self.lowering = lowering
        self.e = lowering.e
        self.lhs = lhs
        self.rhs = rhs
        self.mx = mx
        self.options = lowering.options
        result = op.results[0]
        self.result_tensor = result
        result_type = result.type
        assert isinstance(result_type, TensorType)
        self.result_element = result_type.get_element_type()

    def run(self) -> None:
        e, lhs, rhs, options = self.e, self.lhs, self.rhs, self.options
        m_total, n_total = lhs.free_size, rhs.free_size
        k_total = shape_of(lhs.data)[lhs.contract]  # elements (dot) or x4 words (MX)
        if any(s == 0 for s in (m_total, n_total, k_total)):
            raise Refusal("empty operands are not lowered")
        m_tile, n_tile, k_tile = options.matmul_m_tile, options.matmul_n_tile, options.matmul_k_tile
        if self.mx:
            if m_tile % 2:
                raise Refusal(
                    f"matmul_m_tile {m_tile} is odd; nc_matmul_mx needs an even stationary "
                    "free size"
                )
            # K runs in scale rows (8 x4 words, 32 elements each) inside the kernel
            k_rows = [k_total // WORDS_PER_BLOCK, WORDS_PER_BLOCK]
            self.lhs_blocks = e.split_dim(lhs.data, lhs.contract, k_rows, "lhs_blocks")
            self.rhs_blocks = e.split_dim(rhs.data, rhs.contract, k_rows, "rhs_blocks")
        out = self.lowering.result_buffer(self.result_tensor)
        self.lowering.values[self.result_tensor] = out
        # the result as [batch..., M, N]: merged free dims, unit dims of a vector side
        batch_sizes = [shape_of(lhs.data)[d] for d in lhs.batch]
        if shape_of(out):
            self.out = e.reshaped(out, [*batch_sizes, m_total, n_total])
        else:  # a dot of two vectors: written as [1, 1], then copied into the scalar
            self.out = e.alloc([1, 1], self.result_element, nisa.MemorySpace.HBM, "dot")
        m_alloc = min(m_tile, round_up(m_total, 2) if self.mx else m_total)
        n_alloc = min(n_tile, n_total)
        k_alloc = min(k_tile, round_up(k_total, MX_PARTITION_QUANTUM) if self.mx else k_total)
        if self.mx:
            x4 = element_type_of(lhs.data)
            self.s_tile = e.alloc([k_alloc, m_alloc], x4, nisa.MemorySpace.SBUF, "stat")
            self.v_tile = e.alloc([k_alloc, n_alloc], x4, nisa.MemorySpace.SBUF, "mov")
            self.s_scale = e.alloc([PMAX, m_alloc], E8M0, nisa.MemorySpace.SBUF, "stat_scl")
            self.v_scale = e.alloc([PMAX, n_alloc], E8M0, nisa.MemorySpace.SBUF, "mov_scl")
            quads = [QUADRANT_ROWS, QUADRANT]
            self.s_quads = e.split_dim(self.s_scale, 0, quads, "stat_scl_quads")
            self.v_quads = e.split_dim(self.v_scale, 0, quads, "mov_scl_quads")
        else:
            self.s_tile = e.alloc(
                [k_alloc, m_alloc], element_type_of(lhs.data), nisa.MemorySpace.SBUF, "stat"
            )
            self.v_tile = e.alloc(
                [k_alloc, n_alloc], element_type_of(rhs.data), nisa.MemorySpace.SBUF, "mov"
            )
        self.acc = e.alloc([m_alloc, n_alloc], F32, nisa.MemorySpace.PSUM, "acc")
        self.res = e.alloc(
            [min(m_tile, m_total), n_alloc], self.result_element, nisa.MemorySpace.SBUF, "res"
        )
        self.k_total = k_total
        self.batch_loops(batch_sizes, [])
        if not shape_of(out):
            e.dma(out, self.out)

    def batch_loops(self, sizes: list[int], ivs: list[Offset]) -> None:
        if len(ivs) == len(sizes):
            self.tiles(ivs)
            return
        self.e.loop(0, sizes[len(ivs)], 1, "b", lambda iv: self.batch_loops(sizes, [*ivs, iv]))

    def tiles(self, batch: list[Offset]) -> None:
        e, options = self.e, self.options
        e.tiled(
            self.lhs.free_size,
            options.matmul_m_tile,
            "m",
            lambda m0, mt: e.tiled(
                self.rhs.free_size,
                options.matmul_n_tile,
                "n",
                lambda n0, nt: self.output_tile(batch, m0, mt, n0, nt),
            ),
        )

    def output_tile(self, batch: list[Offset], m0: Offset, mt: int, n0: Offset, nt: int) -> None:
        e = self.e
        m_pad = round_up(mt, 2) if self.mx else mt
        acc = e.rows(self.acc, m_pad, nt)
        if self.mx:
            k_rows = self.k_total // WORDS_PER_BLOCK
            e.chained(
                k_rows,
                self.options.matmul_k_tile // WORDS_PER_BLOCK,
                "k",
                lambda k0, kr, more: self.mx_step(batch, acc, m0, mt, m_pad, n0, nt, k0, kr, more),
            )
        else:
            e.chained(
                self.k_total,
                self.options.matmul_k_tile,
                "k",
                lambda k0, kt, more: self.dot_step(batch, acc, m0, mt, n0, nt, k0, kt, more),
            )
        res = e.rows(self.res, mt, nt)
        e.emit(nisa.TensorCopyOp(res, e.rows(self.acc, mt, nt)))
        dims: list[tuple[Offset, int, int, bool]] = [(b, 1, 1, False) for b in batch]
        dims += [(m0, mt, 1, True), (n0, nt, 1, True)]
        e.dma(e.view(self.out, dims), res)

    # -- one K step

    def dot_step(
        self,
        batch: list[Offset],
        acc: SSAValue,
        m0: Offset,
        mt: int,
        n0: Offset,
        nt: int,
        k0: Offset,
        kt: int,
        accumulate: bool,
    ) -> None:
        e = self.e
        s = e.rows(self.s_tile, kt, mt)
        v = e.rows(self.v_tile, kt, nt)
        self.load(self.lhs, self.lhs.data, batch, self.s_tile, None, m0, mt, k0, kt)
        self.load(self.rhs, self.rhs.data, batch, self.v_tile, None, n0, nt, k0, kt)
        e.emit(nisa.NcMatmulOp(acc, s, v, accumulate=accumulate))

    def mx_step(
        self,
        batch: list[Offset],
        acc: SSAValue,
        m0: Offset,
        mt: int,
        m_pad: int,
        n0: Offset,
        nt: int,
        k0: Offset,
        kr: int,
        accumulate: bool,
    ) -> None:
        """One K tile of ``kr`` scale rows (8 kr x4 words = 32 kr elements), padded to a
        multiple of 32 partitions with zero data (and unit scales)."""
        e = self.e
        p_valid = WORDS_PER_BLOCK * kr
        p_pad = round_up(p_valid, MX_PARTITION_QUANTUM)
        s = e.rows(self.s_tile, p_pad, m_pad)
        v = e.rows(self.v_tile, p_pad, nt)
        s_scale = e.rows(self.s_scale, PMAX, m_pad)
        v_scale = e.rows(self.v_scale, PMAX, nt)
        if p_pad > p_valid or m_pad > mt:
            # padding lanes contribute exactly 0: zero data, finite (unit) scales
            e.memset(s_scale, 1.0)
            e.memset(v_scale, 1.0)
        if p_pad > p_valid:
            e.memset(e.rows(self.s_tile, p_pad - p_valid, m_pad, p_valid), 0.0)
            e.memset(e.rows(self.v_tile, p_pad - p_valid, nt, p_valid), 0.0)
        if m_pad > mt:
            e.memset(e.rows(self.s_tile, p_pad, m_pad - mt, 0, mt), 0.0)
        self.load(self.lhs, self.lhs_blocks, batch, self.s_tile, self.s_quads, m0, mt, k0, kr)
        self.load(self.rhs, self.rhs_blocks, batch, self.v_tile, self.v_quads, n0, nt, k0, kr)
        e.emit(nisa.NcMatmulMxOp(acc, s, s_scale, v, v_scale, accumulate=accumulate))

    # -- loads

    def _dims(
        self,
        side: _Operand,
        batch: list[Offset],
        free: tuple[Offset, int, bool],
        k: list[tuple[Offset, int]],
    ) -> list[tuple[Offset, int, int, bool]]:
        """Subview dims of ``side``'s data (MX: with K split into [rows, 8]): batch dims
        fixed, the free dim ``free = (offset, size, keep)``, the K dims ``k``."""
        dims: list[tuple[Offset, int, int, bool]] = []
        for d in range(side.rank):
            if d in side.batch:
                dims.append((batch[side.batch.index(d)], 1, 1, False))
            elif d == side.free:
                dims.append((free[0], free[1], 1, free[2]))
            else:
                dims.extend((o, n, 1, True) for o, n in k)
        return dims

    def load(
        self,
        side: _Operand,
        data: SSAValue,
        batch: list[Offset],
        tile: SSAValue,
        quadrants: SSAValue | None,
        f0: Offset,
        ft: int,
        k0: Offset,
        kt: int,
    ) -> None:
        """DMA ``side``'s K tile x free tile into ``tile`` [K partitions, free] (and for
        MX its scale rows into the quadrant-layout scale tile ``quadrants``); ``k0``, ``kt``
        count scale rows of 8 x4 words for MX, elements otherwise. One DMA (per scale
        run); a K-minor side reads a permuted view of its tile (``[K, free]``, strided)."""
        e = self.e
        k_dims = [(k0, kt), (0, WORDS_PER_BLOCK)] if self.mx else [(k0, kt)]
        partitions = kt * (WORDS_PER_BLOCK if self.mx else 1)
        runs = scale_runs(kt) if quadrants is not None else []

        def k_first(view: SSAValue) -> SSAValue:
            """A K-minor view ``[free, K..]`` as ``[K.., free]`` (nisa.permute): one
            strided DMA moves the whole transposed tile."""
            if side.k_major:
                return view
            rank = len(shape_of(view))
            return e.emit(nisa.PermuteOp(view, [*range(1, rank), 0])).results[0]

        free = (f0, ft, True)
        dst = e.view(tile, [(0, partitions, 1, True), (0, ft, 1, True)])
        e.dma(dst, k_first(e.view(data, self._dims(side, batch, free, k_dims))))
        for first, count, per in runs:
            assert quadrants is not None
            assert side.scale is not None
            rows = [(e.add(k0, first), count * per)]
            slots = scale_slots(e, quadrants, first, count, per, 0, ft)
            e.dma(slots, k_first(e.view(side.scale, self._dims(side, batch, free, rows))))


def register(lowerings: Lowerings) -> None:
    for target in SCALED_MATMUL_TARGETS:
        lowerings.custom_call(target, lower_scaled_matmul)
    lowerings.op(DotGeneralOp, lower_dot_general)
