"""The MoE-CTE dispatch: the spec, its configs, the problem description and its checks.

``MoECTESpec`` / ``MoECTEImplementation`` / ``ShardOnBlockConfig`` / ``ShardOnIConfig`` /
``QuantizationConfig`` follow nkilib's ``moe_cte`` (spec "MoE Context/Prefill (CTE):
Dispatch and the bwmm Shard Variants"), with its defects fixed: every implementation
dispatches (a variant not built raises :class:`NotBuiltYetError`, never returns None),
an unknown implementation raises, the MX members get their family's default config too, and nothing
prints. The sizes and numeric options of one kernel are :class:`MoECTESizes` and
:class:`MoECTEOptions`; :func:`check_problem` refuses what a variant cannot do with a
:class:`MoECTEConfigError` before any IR is built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any

from mxdsl.kernels.moe_cte.mx_formats import MX_WEIGHT_FORMATS, weight_format


class MoECTEConfigError(ValueError):
    """An invalid size, option or combination, reported before any work is done."""


class NotBuiltYetError(NotImplementedError):
    """A declared implementation whose kernel does not exist yet."""


class MoECTEImplementation(Enum):
    shard_on_block = 0
    shard_on_i = 1
    shard_on_i_hybrid = 2
    shard_on_i_dropping = 3
    shard_on_block_mx = 4
    shard_on_i_mx = 5
    shard_on_i_mx_hybrid = 6

    @property
    def is_mx(self) -> bool:
        return self.value >= 4

    @property
    def shards_on_block(self) -> bool:
        return self in (MoECTEImplementation.shard_on_block, MoECTEImplementation.shard_on_block_mx)


BLOCK_FAMILY = (MoECTEImplementation.shard_on_block, MoECTEImplementation.shard_on_block_mx)
I_FAMILY = (
    MoECTEImplementation.shard_on_i,
    MoECTEImplementation.shard_on_i_hybrid,
    MoECTEImplementation.shard_on_i_dropping,
    MoECTEImplementation.shard_on_i_mx,
    MoECTEImplementation.shard_on_i_mx_hybrid,
)


class BlockShardStrategy(Enum):
    HI_LO = 0
    PING_PONG = 1


class ActFnType(Enum):
    SiLU = 0
    GELU = 1
    GELU_Tanh_Approx = 2
    Swish = 3  # x * sigmoid(1.702 x), nkilib's "Swish" (nl.gelu_apprx_sigmoid)


class ExpertAffinityScaleMode(Enum):
    NO_SCALE = 0
    POST_SCALE = 1
    PRE_SCALE = 2
    PRE_SCALE_DELAYED = 3  # treated as PRE_SCALE (as nkilib's I-shard kernels do)


@dataclass
class ShardOnBlockConfig:
    n_block_per_iter: int = 1
    block_sharding_strategy: BlockShardStrategy = BlockShardStrategy.PING_PONG
    n_static_blocks: int = -1  # shard_on_block_mx
    n_dynamic_blocks: int = 55  # shard_on_block_mx


@dataclass
class ShardOnIConfig:
    checkpoint_activation: bool = False
    expert_affinity_multiply_on_I: bool = False
    num_static_block: int | None = None  # hybrid: None => N - E


@dataclass
class QuantizationConfig:
    """FP8 weight dequant scales (per expert, per output channel: ``[E, 1, 2I]`` and
    ``[E, 1, H]``). For a builder only their presence matters: give ``True`` or the
    arrays (whose shapes are checked); both or neither."""

    gate_up_proj_scale: Any = None
    down_proj_scale: Any = None

    @property
    def enabled(self) -> bool:
        return self.gate_up_proj_scale is not None or self.down_proj_scale is not None


@dataclass
class MoECTESpec:
    implementation: MoECTEImplementation
    shard_on_block: ShardOnBlockConfig | None = None
    shard_on_I: ShardOnIConfig | None = None

    def __post_init__(self) -> None:
        impl = self.implementation
        if isinstance(impl, str):  # a member's name
            impl = MoECTEImplementation.__members__.get(impl, impl)
        if not isinstance(impl, MoECTEImplementation):
            raise MoECTEConfigError(
                f"unknown MoE-CTE implementation {impl!r}; choose one of "
                f"{', '.join(m.name for m in MoECTEImplementation)}"
            )
        self.implementation = impl
        if impl in BLOCK_FAMILY:
            if self.shard_on_block is None:
                self.shard_on_block = ShardOnBlockConfig()
        elif self.shard_on_I is None:
            self.shard_on_I = ShardOnIConfig()

    @property
    def affinity_on_intermediate(self) -> bool:
        """``ShardOnIConfig.expert_affinity_multiply_on_I`` (False for the block shards)."""
        return bool(self.shard_on_I and self.shard_on_I.expert_affinity_multiply_on_I)


@dataclass(frozen=True)
class MoECTESizes:
    hidden: int  # H
    intermediate: int  # I (I_TP)
    experts: int  # E
    tokens: int  # T (real tokens; hidden_states has T + 1 rows)
    block_size: int  # B
    top_k: int = 1
    n_blocks: int | None = None  # N; None => ceil((T*TopK - (E-1)) / B) + E - 1

    @property
    def blocks(self) -> int:
        if self.n_blocks is not None:
            return self.n_blocks
        return default_n_blocks(self.tokens, self.top_k, self.experts, self.block_size)


def default_n_blocks(tokens: int, top_k: int, experts: int, block_size: int) -> int:
    """N = ceil((T * TopK - (E - 1)) / B) + E - 1 (the router's upper bound)."""
    return max(math.ceil((tokens * top_k - (experts - 1)) / block_size), 0) + experts - 1


@dataclass(frozen=True)
class MoECTEOptions:
    dtype: str = "bf16"  # IO dtype: "bf16" or "f32"
    activation: ActFnType = ActFnType.SiLU
    scaling: ExpertAffinityScaleMode = ExpertAffinityScaleMode.POST_SCALE
    bias: bool = False
    gate_clamp: tuple[float | None, float | None] = (None, None)  # (lower, upper)
    up_clamp: tuple[float | None, float | None] = (None, None)
    is_tensor_update_accumulating: bool | None = None  # None => top_k > 1
    mx_weights: str = "fp8_e4m3fn"  # MX variants: fp8_e4m3fn, fp8_e5m2 or fp4_e2m1
    gate_up_chunk: int | None = None  # I columns per gate/up weight load (None: see docs)
    # block shard: blocks whose tokens are loaded ahead per group (nkilib's
    # BLOCK_PARALLEL_FACTOR = 3); None: the most of 3, 2, 1 whose buffers fit
    block_sets: int | None = None
    # debugging (mx-moe run --trace): also write what the golden computes per block,
    # float32, into the outputs probe_gate_up [N, 2, I, B], probe_act [N, I, B],
    # probe_down and probe_rows [N, B, H] (bf16 / fp8 variants; MX: down and rows);
    # the other outputs' bits are unchanged (docs/debugging.md)
    block_probes: bool = False


PMAX = 128
BLOCK_SETS = (3, 2, 1)  # block shard: token sets loaded ahead, preferred first
H_TILE = 512  # H must be a multiple of this (one PSUM bank of f32 per down-proj tile)
GATE_UP_BUDGET = 64 * 1024  # bytes per partition of one gate/up weight chunk (if possible)
MX_I_TILE = 512  # I rows of one MX down-projection pass (128 partitions x 4 lanes)


def check_problem(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    quantization: QuantizationConfig | None = None,
) -> None:
    """Raise :class:`MoECTEConfigError` for anything the variant cannot build."""
    impl = spec.implementation
    H, I, E, T, B, K = (  # noqa: E741
        sizes.hidden,
        sizes.intermediate,
        sizes.experts,
        sizes.tokens,
        sizes.block_size,
        sizes.top_k,
    )
    errors: list[str] = []
    if H < H_TILE or H % H_TILE:
        errors.append(f"hidden size H = {H} must be a positive multiple of {H_TILE}")
    if I < 16 or I % 16:
        errors.append(f"intermediate size I = {I} must be a positive multiple of 16")
    if E < 1:
        errors.append(f"experts E = {E} must be at least 1")
    if T < 1:
        errors.append(f"tokens T = {T} must be at least 1")
    if not 1 <= K <= max(E, 1):
        errors.append(f"top-k = {K} must be between 1 and E = {E}")
    if options.dtype not in ("bf16", "f32"):
        errors.append(f"dtype {options.dtype!r} must be 'bf16' or 'f32'")
    for name, (lo, hi) in (("gate", options.gate_clamp), ("up", options.up_clamp)):
        if lo is not None and hi is not None and lo > hi:
            errors.append(f"{name} clamp lower limit {lo} exceeds its upper limit {hi}")
    if quantization is not None and quantization.enabled:
        if quantization.gate_up_proj_scale is None or quantization.down_proj_scale is None:
            errors.append(
                "fp8 weights need both gate_up_proj_scale and down_proj_scale "
                "(QuantizationConfig); one of them is missing"
            )
        for name, value, shape in (
            ("gate_up_proj_scale", quantization.gate_up_proj_scale, (E, 1, 2 * I)),
            ("down_proj_scale", quantization.down_proj_scale, (E, 1, H)),
        ):
            got = getattr(value, "shape", None)
            if got is not None and tuple(got) != shape:
                errors.append(f"{name} has shape {tuple(got)}, expected {shape}")
    if errors:
        raise MoECTEConfigError("; ".join(errors))

    N = sizes.blocks
    if N < 1:
        raise MoECTEConfigError(f"number of blocks N = {N} must be at least 1")
    if impl in BLOCK_FAMILY:
        cfg = spec.shard_on_block
        assert cfg is not None
        if B < PMAX or B % PMAX:
            raise MoECTEConfigError(
                f"block size B = {B} is not allowed for {impl.name}: it must be a positive "
                f"multiple of {PMAX} (one partition tile of tokens)"
            )
        if cfg.block_sharding_strategy != BlockShardStrategy.PING_PONG:
            raise MoECTEConfigError(
                f"block_sharding_strategy {cfg.block_sharding_strategy.name} is not supported: "
                "only PING_PONG (core c takes blocks 2j + c) is built (HI_LO is dead code in "
                "nkilib too)"
            )
        if cfg.n_block_per_iter != 1:
            raise MoECTEConfigError(
                f"n_block_per_iter = {cfg.n_block_per_iter} is not supported: the block-shard "
                "kernel groups blocks by BLOCK_PARALLEL_FACTOR = 3 and reads no other factor "
                "(nkilib accepts and ignores it); use 1"
            )
    else:
        cfg_i = spec.shard_on_I
        assert cfg_i is not None
        if B < 2 * PMAX or B % (2 * PMAX):
            raise MoECTEConfigError(
                f"block size B = {B} is not allowed for {impl.name}: it must be a positive "
                f"multiple of {2 * PMAX} (each core owns half of the 128-row B tiles)"
            )
        if impl == MoECTEImplementation.shard_on_i_dropping:
            if N != E:
                raise MoECTEConfigError(
                    f"shard_on_i_dropping needs the N == E layout (one block per expert): "
                    f"got N = {N} blocks for E = {E} experts (pass --blocks {E})"
                )
            if B > 1024 and B % 1024:
                raise MoECTEConfigError(
                    f"block size B = {B} is not allowed for shard_on_i_dropping: above 1024 it "
                    "must be a multiple of 1024 (the block is processed in 1024-row tiles)"
                )
        if impl == MoECTEImplementation.shard_on_i_hybrid:
            ns = cfg_i.num_static_block
            if ns is not None and not 0 <= ns <= N:
                raise MoECTEConfigError(f"num_static_block = {ns} must be between 0 and N = {N}")
    if options.block_sets is not None and (
        not impl.shards_on_block or options.block_sets not in BLOCK_SETS
    ):
        raise MoECTEConfigError(
            f"block_sets = {options.block_sets} is not allowed for {impl.name}: it applies to "
            f"the block shards only and must be one of {', '.join(map(str, BLOCK_SETS))}"
        )
    if impl.is_mx:
        _check_mx(spec, sizes, options, quantization)
        _check_gate_up_chunk(impl, sizes, options)
        return
    _check_gate_up_chunk(impl, sizes, options)


def _check_gate_up_chunk(
    impl: MoECTEImplementation, sizes: MoECTESizes, options: MoECTEOptions
) -> None:
    if options.gate_up_chunk is None:
        return
    chunks = gate_up_chunks(impl, sizes, options)
    if options.gate_up_chunk not in chunks:
        raise MoECTEConfigError(
            f"gate_up_chunk = {options.gate_up_chunk} is not allowed for {impl.name} at "
            f"I = {sizes.intermediate}: choose one of {', '.join(map(str, chunks))} "
            "(whole I tiles dividing the I a core computes)"
        )


def _check_mx(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    quantization: QuantizationConfig | None,
) -> None:
    """The MX variants' own limits (``docs/moe-cte-mx.md``)."""
    impl = spec.implementation
    I, N = sizes.intermediate, sizes.blocks  # noqa: E741
    if options.mx_weights not in MX_WEIGHT_FORMATS:
        raise MoECTEConfigError(
            f"MX weight format {options.mx_weights!r} must be one of {', '.join(MX_WEIGHT_FORMATS)}"
        )
    if quantization is not None and quantization.enabled:
        raise MoECTEConfigError(
            f"{impl.name} takes no per-channel fp8 QuantizationConfig: its E8M0 block "
            "scales are the gate_up_proj_scale / down_proj_scale arguments of the MX layouts"
        )
    # block shard: whole 128-row lanes (a partial last 512-row tile has its missing
    # lanes zero); I shard: whole 512-row tiles per core
    quantum = PMAX if impl in BLOCK_FAMILY else 2 * MX_I_TILE
    if I % quantum:
        what = (
            "whole 128-row lanes of the 512-row MX I tiles"
            if quantum == PMAX
            else ("whole 512-row MX I tiles per core")
        )
        raise MoECTEConfigError(
            f"intermediate size I = {I} is not allowed for {impl.name}: it must be a "
            f"multiple of {quantum} ({what})"
        )
    if impl == MoECTEImplementation.shard_on_block_mx:
        cfg = spec.shard_on_block
        assert cfg is not None
        if cfg.n_static_blocks > N:
            raise MoECTEConfigError(
                f"n_static_blocks = {cfg.n_static_blocks} must be at most N = {N} (-1: N - E)"
            )
        if cfg.n_dynamic_blocks < 0:
            raise MoECTEConfigError(f"n_dynamic_blocks = {cfg.n_dynamic_blocks} must be >= 0")
    if impl == MoECTEImplementation.shard_on_i_mx_hybrid:
        cfg_i = spec.shard_on_I
        assert cfg_i is not None
        ns = cfg_i.num_static_block
        if ns is not None and not 0 <= ns <= N:
            raise MoECTEConfigError(f"num_static_block = {ns} must be between 0 and N = {N}")


def io_bytes(options: MoECTEOptions) -> int:
    return 2 if options.dtype == "bf16" else 4


def i_tile(ic: int) -> int:
    """The largest divisor of ``ic`` that fits the partition dim (the I tile)."""
    return max(d for d in range(1, PMAX + 1) if ic % d == 0)


def core_intermediate(impl: MoECTEImplementation, sizes: MoECTESizes) -> int:
    """The part of I one core computes: all of it (block shard) or half (I shard)."""
    return sizes.intermediate if impl in BLOCK_FAMILY else sizes.intermediate // 2


def token_chunk(impl: MoECTEImplementation, sizes: MoECTESizes) -> int:
    """Rows of a block processed together (dropping: at most 1024)."""
    if impl == MoECTEImplementation.shard_on_i_dropping:
        return min(sizes.block_size, 1024)
    return sizes.block_size


def gate_up_chunks(
    impl: MoECTEImplementation, sizes: MoECTESizes, options: MoECTEOptions
) -> list[int]:
    """The I columns a gate/up weight load may cover, largest first: whole I tiles (512
    for MX) dividing the core's I; all of it when its last MX tile is partial."""
    ic = core_intermediate(impl, sizes)
    if impl.is_mx and ic % MX_I_TILE:
        return [ic]  # a partial last 512-row tile: one load of every column
    tile = MX_I_TILE if impl.is_mx else i_tile(ic)
    return [c for c in range(ic, 0, -tile) if ic % c == 0 and c % tile == 0]


def gate_up_chunk(impl: MoECTEImplementation, sizes: MoECTESizes, options: MoECTEOptions) -> int:
    """Columns of I per gate/up weight load: ``options.gate_up_chunk`` if given, else
    the largest of :func:`gate_up_chunks` whose weights (and MX scales) take at most
    :data:`GATE_UP_BUDGET` bytes per partition. (``build_moe_cte`` then shrinks it while
    the whole kernel does not fit the SBUF.)"""
    if options.gate_up_chunk is not None:
        return options.gate_up_chunk
    chunks = gate_up_chunks(impl, sizes, options)
    per_col = _gate_up_bytes_per_column(impl, sizes, options)
    return next((c for c in chunks if c * per_col <= GATE_UP_BUDGET), chunks[-1])


def _gate_up_bytes_per_column(
    impl: MoECTEImplementation, sizes: MoECTESizes, options: MoECTEOptions
) -> int:
    if not impl.is_mx:
        return (sizes.hidden // PMAX) * 2 * io_bytes(options)
    container = 4 if weight_format(options.mx_weights).fmt.is_fp8 else 2
    return 2 * (sizes.hidden // MX_I_TILE) * (container + 1)  # x4 words + E8M0 scales
