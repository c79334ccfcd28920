"""The kernel's interface: its HBM arguments in the spec's order, and their dtypes.

Inputs first, in nkilib ``moe_cte``'s order (hidden_states, expert_affinities_masked,
gate_up_proj_weight, down_proj_weight, token_position_to_id, block_to_expert, then
conditions, gate_and_up_proj_bias, down_proj_bias, gate_up_proj_scale, down_proj_scale
where the options ask for them), then the outputs the kernel writes (output, then the
activation checkpoints gate_up_activations_T and down_activations where asked for).
nisa kernels return nothing: outputs are HBM arguments (``mx-run`` writes them back as
``argI``).
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    Float8E4M3FNType,
    IntegerType,
    MemRefType,
    Signedness,
    bf16,
    f32,
    i32,
)
from xdsl.ir import Attribute

from mxdsl.dialects.nisa import MemorySpace, tile_type
from mxdsl.kernels.moe_cte.mx_formats import weight_format
from mxdsl.kernels.moe_cte.spec import (
    BLOCK_FAMILY,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
)

f8e4m3fn = Float8E4M3FNType()

DTYPES: dict[str, tuple[Attribute, np.dtype]] = {
    "bf16": (bf16, np.dtype(ml_dtypes.bfloat16)),
    "f32": (f32, np.dtype(np.float32)),
    "f8E4M3FN": (f8e4m3fn, np.dtype(ml_dtypes.float8_e4m3fn)),
    "i32": (i32, np.dtype(np.int32)),
    # MX weights travel as integer alternates (viewed as x4 types in the kernel)
    "ui32": (IntegerType(32, Signedness.UNSIGNED), np.dtype(np.uint32)),
    "ui16": (IntegerType(16, Signedness.UNSIGNED), np.dtype(np.uint16)),
    "ui8": (IntegerType(8, Signedness.UNSIGNED), np.dtype(np.uint8)),
}


@dataclass(frozen=True)
class ArgSpec:
    name: str
    shape: tuple[int, ...]
    dtype: str  # a key of DTYPES
    output: bool = False

    @property
    def memref_type(self) -> MemRefType[Attribute]:
        return tile_type(list(self.shape), DTYPES[self.dtype][0], MemorySpace.HBM)

    @property
    def numpy_dtype(self) -> np.dtype:
        return DTYPES[self.dtype][1]


def accumulates(sizes: MoECTESizes, options: MoECTEOptions) -> bool:
    """Read-modify-write accumulation into the output (TopK > 1) vs overwrite."""
    if options.is_tensor_update_accumulating is not None:
        return options.is_tensor_update_accumulating
    return sizes.top_k > 1


def checkpoints(spec: MoECTESpec) -> bool:
    """Whether the kernel writes the activation checkpoints."""
    if spec.implementation == MoECTEImplementation.shard_on_i_dropping:
        return True  # always on (training layer)
    return spec.implementation not in BLOCK_FAMILY and bool(
        spec.shard_on_I and spec.shard_on_I.checkpoint_activation
    )


def output_planes(spec: MoECTESpec, sizes: MoECTESizes, options: MoECTEOptions) -> int:
    """2 per-core output planes for block sharding with accumulation, else 1."""
    return 2 if spec.implementation in BLOCK_FAMILY and accumulates(sizes, options) else 1


def kernel_arguments(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    quantization: QuantizationConfig | None = None,
) -> list[ArgSpec]:
    H, I, E, T, B, N = (  # noqa: E741
        sizes.hidden,
        sizes.intermediate,
        sizes.experts,
        sizes.tokens,
        sizes.block_size,
        sizes.blocks,
    )
    if spec.implementation.is_mx:
        return mx_kernel_arguments(spec, sizes, options)
    io = options.dtype
    w = "f8E4M3FN" if quantization is not None and quantization.enabled else io
    args = [
        ArgSpec("hidden_states", (T + 1, H), io),
        ArgSpec("expert_affinities_masked", ((T + 1) * E, 1), io),
        ArgSpec("gate_up_proj_weight", (E, H, 2, I), w),
        ArgSpec("down_proj_weight", (E, I, H), w),
        ArgSpec("token_position_to_id", (N * B,), "i32"),
        ArgSpec("block_to_expert", (N,), "i32"),
    ]
    if spec.implementation == MoECTEImplementation.shard_on_i_hybrid:
        args.append(ArgSpec("conditions", (N + 1,), "i32"))
    if options.bias:
        args.append(ArgSpec("gate_and_up_proj_bias", (E, 2, I), io))
        args.append(ArgSpec("down_proj_bias", (E, H), io))
    if w != io:
        args.append(ArgSpec("gate_up_proj_scale", (E, 1, 2 * I), "f32"))
        args.append(ArgSpec("down_proj_scale", (E, 1, H), "f32"))
    if output_planes(spec, sizes, options) == 2:
        args.append(ArgSpec("output", (T + 1, 2, H), io, output=True))
    else:
        args.append(ArgSpec("output", (T + 1, H), io, output=True))
    if checkpoints(spec):
        args.append(ArgSpec("gate_up_activations_T", (N, 2, I, B), io, output=True))
        args.append(ArgSpec("down_activations", (N, B, H), io, output=True))
    if options.block_probes:
        args += probe_arguments(sizes, mx=False)
    return args


def mx_kernel_arguments(
    spec: MoECTESpec, sizes: MoECTESizes, options: MoECTEOptions
) -> list[ArgSpec]:
    """The MX variants' arguments: x4 weights as integer alternates in nkilib's HBM
    layouts with their E8M0 (uint8) scales (``docs/moe-cte-mx.md``); conditions for
    shard_on_block_mx and shard_on_i_mx_hybrid; block-shard output planes ``[2, T+1, H]``."""
    H, I, E, T, B, N = (  # noqa: E741
        sizes.hidden,
        sizes.intermediate,
        sizes.experts,
        sizes.tokens,
        sizes.block_size,
        sizes.blocks,
    )
    io = options.dtype
    c = "ui32" if weight_format(options.mx_weights).fmt.is_fp8 else "ui16"
    kt4, nt = H // 512, -(-I // 512)  # a partial last I tile is padded with zero lanes
    impl = spec.implementation
    args = [
        ArgSpec("hidden_states", (T + 1, H), io),
        ArgSpec("expert_affinities_masked", ((T + 1) * E, 1), io),
        ArgSpec("gate_up_proj_weight", (E, 128, 2, kt4, I), c),
        ArgSpec("down_proj_weight", (E, 128, nt, H), c),
        ArgSpec("token_position_to_id", (N * B,), "i32"),
        ArgSpec("block_to_expert", (N,), "i32"),
    ]
    if impl in (MoECTEImplementation.shard_on_block_mx, MoECTEImplementation.shard_on_i_mx_hybrid):
        args.append(ArgSpec("conditions", (N + 1,), "i32"))
    if options.bias:
        args.append(ArgSpec("gate_and_up_proj_bias", (E, 2, I), io))
        args.append(ArgSpec("down_proj_bias", (E, H), io))
    args.append(ArgSpec("gate_up_proj_scale", (E, 16, 2, kt4, I), "ui8"))
    args.append(ArgSpec("down_proj_scale", (E, 16, nt, H), "ui8"))
    if output_planes(spec, sizes, options) == 2:
        args.append(ArgSpec("output", (2, T + 1, H), io, output=True))
    else:
        args.append(ArgSpec("output", (T + 1, H), io, output=True))
    if checkpoints(spec):
        args.append(ArgSpec("gate_up_activations_T", (N, 2, I, B), io, output=True))
        args.append(ArgSpec("down_activations", (N, B, H), io, output=True))
    if options.block_probes:
        args += probe_arguments(sizes, mx=True)
    return args


PROBES = ("probe_gate_up", "probe_act", "probe_down", "probe_rows")
"""The outputs of a kernel built with ``block_probes`` (``MoECTEOptions``)."""


def probe_arguments(sizes: MoECTESizes, mx: bool) -> list[ArgSpec]:
    """The float32 probe outputs: per block, ``gate`` and ``up`` (``[N, 2, I, B]``, after
    the dequant scale, bias and clamp), ``act(gate) * up`` (``[N, I, B]``), ``down`` (after
    its scale and bias, before the affinity) and the rows scattered (after the affinity),
    both ``[N, B, H]``, as the dense golden's block values (``moe_cte_block_values``). The
    MX variants probe ``down`` and ``rows`` only: their gate / up / act live in the
    MX pipeline's own tiles (``docs/debugging.md``)."""
    H, I, B, N = sizes.hidden, sizes.intermediate, sizes.block_size, sizes.blocks  # noqa: E741
    gate_up = (
        []
        if mx
        else [
            ArgSpec("probe_gate_up", (N, 2, I, B), "f32", output=True),
            ArgSpec("probe_act", (N, I, B), "f32", output=True),
        ]
    )
    return [
        *gate_up,
        ArgSpec("probe_down", (N, B, H), "f32", output=True),
        ArgSpec("probe_rows", (N, B, H), "f32", output=True),
    ]


def signature_text(args: list[ArgSpec]) -> str:
    """One line per argument: ``argI name [shape] dtype (in|out)``."""
    return "\n".join(
        f"arg{i} {a.name} {list(a.shape)} {a.dtype} {'out' if a.output else 'in'}"
        for i, a in enumerate(args)
    )


__all__ = [
    "ArgSpec",
    "accumulates",
    "checkpoints",
    "kernel_arguments",
    "mx_kernel_arguments",
    "output_planes",
    "PROBES",
    "probe_arguments",
    "signature_text",
]
