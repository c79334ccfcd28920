"""Seeded random MoE-CTE inputs, routed the way a router would.

Each token picks ``top_k`` distinct experts; its masked affinities are a softmax over
the picked experts (zero elsewhere; the padding row T is zero). Tokens are sorted by
expert, each expert gets ``ceil(count / B)`` blocks, and the padding blocks that fill N
are appended to the last expert; empty slots hold the padding id T. ``conditions``
(hybrid) is 1 for the first ``live`` blocks and 0 after (length N + 1). The dropping
layout (N == E) gives every expert one block of capacity B; tokens beyond an expert's
capacity are dropped by the router (their affinity for that expert is masked to 0).
Weights are N(0, 1/fan_in); with fp8 weights they are stored as float8_e4m3fn values
with a per-output-channel scale (``max |w| / 448``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

from mxdsl.kernels.moe_cte.interface import ArgSpec, kernel_arguments
from mxdsl.kernels.moe_cte.reference.golden import moe_cte_golden
from mxdsl.kernels.moe_cte.spec import (
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
)


@dataclass
class MoECTEInputs:
    arrays: dict[str, np.ndarray]  # every input argument, by name, in kernel dtypes
    real_blocks: int
    active_blocks: list[bool]  # blocks the kernel processes (the golden uses these)
    extra: dict[str, object] = field(default_factory=dict)


def _cast(values: np.ndarray, spec: ArgSpec) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).astype(spec.numpy_dtype)


def make_inputs(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    quantization: QuantizationConfig | None = None,
    seed: int = 0,
    live_blocks: int | None = None,
) -> MoECTEInputs:
    """Inputs for the kernel ``build_moe_cte(spec, sizes, options, quantization)``."""
    rng = np.random.default_rng(seed)
    H, I, E, T, B, K, N = (  # noqa: E741
        sizes.hidden,
        sizes.intermediate,
        sizes.experts,
        sizes.tokens,
        sizes.block_size,
        sizes.top_k,
        sizes.blocks,
    )
    args = {a.name: a for a in kernel_arguments(spec, sizes, options, quantization)}
    arrays: dict[str, np.ndarray] = {}

    # the router: top_k distinct experts per token, softmax affinities
    logits = rng.standard_normal((T, E))
    choice = np.argsort(-logits, axis=1)[:, :K]
    picked = np.take_along_axis(logits, choice, axis=1)
    weights = np.exp(picked - picked.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    affinity = np.zeros((T + 1, E))
    np.put_along_axis(affinity[:T], choice, weights, axis=1)

    dropping = spec.implementation == MoECTEImplementation.shard_on_i_dropping
    slots = np.full((N, B), T, dtype=np.int32)
    block_to_expert = np.zeros(N, dtype=np.int32)
    if dropping:
        for e in range(E):
            toks = np.flatnonzero(affinity[:T, e] != 0)
            kept, dropped = toks[:B], toks[B:]
            affinity[dropped, e] = 0.0
            slots[e, : kept.size] = kept
            block_to_expert[e] = e
        real = N
    else:
        b = 0
        for e in range(E):
            toks = np.flatnonzero(affinity[:T, e] != 0)
            n = -(-toks.size // B)
            if b + n > N:
                raise MoECTEConfigError(
                    f"the routing needs more than N = {N} blocks of B = {B} tokens "
                    f"(expert {e} alone needs {n}); pass more --blocks"
                )
            for k in range(n):
                chunk = toks[k * B : (k + 1) * B]
                slots[b + k, : chunk.size] = chunk
                block_to_expert[b + k] = e
            b += n
        real = b
        block_to_expert[b:] = E - 1  # padding blocks go to the last expert
    live = real if live_blocks is None else live_blocks
    if not 0 <= live <= N:
        raise MoECTEConfigError(f"live blocks {live} must be between 0 and N = {N}")

    io = args["hidden_states"]
    hidden = rng.standard_normal((T + 1, H))
    hidden[T] = 0.0
    arrays["hidden_states"] = _cast(hidden, io)
    arrays["expert_affinities_masked"] = _cast(affinity.reshape(-1, 1), io)
    w_gu = rng.standard_normal((E, H, 2, I)) / np.sqrt(H)
    w_d = rng.standard_normal((E, I, H)) / np.sqrt(I)
    if "gate_up_proj_scale" in args:
        s_gu = np.abs(w_gu).max(axis=1, keepdims=True) / 448.0  # [E, 1, 2, I]
        s_d = np.abs(w_d).max(axis=1, keepdims=True) / 448.0  # [E, 1, H]
        arrays["gate_up_proj_weight"] = (
            (w_gu / s_gu).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
        )
        arrays["down_proj_weight"] = (w_d / s_d).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
        arrays["gate_up_proj_scale"] = s_gu.reshape(E, 1, 2 * I).astype(np.float32)
        arrays["down_proj_scale"] = s_d.astype(np.float32)
    else:
        arrays["gate_up_proj_weight"] = _cast(w_gu, args["gate_up_proj_weight"])
        arrays["down_proj_weight"] = _cast(w_d, args["down_proj_weight"])
    arrays["token_position_to_id"] = slots.reshape(-1)
    arrays["block_to_expert"] = block_to_expert
    active = [True] * N
    if "conditions" in args:
        conditions = np.zeros(N + 1, dtype=np.int32)
        conditions[:live] = 1
        arrays["conditions"] = conditions
        cfg = spec.shard_on_I
        ns = cfg.num_static_block if cfg and cfg.num_static_block is not None else max(N - E, 0)
        active = [b < ns or b < live for b in range(N)]
    if options.bias:
        arrays["gate_and_up_proj_bias"] = _cast(
            0.1 * rng.standard_normal((E, 2, I)), args["gate_and_up_proj_bias"]
        )
        arrays["down_proj_bias"] = _cast(0.1 * rng.standard_normal((E, H)), args["down_proj_bias"])
    return MoECTEInputs(arrays, real, active)


def golden_for(
    kernel_spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    inputs: MoECTEInputs,
) -> np.ndarray:
    """The dense golden ``[T, H]`` float32 for these inputs and options."""
    del sizes
    a = inputs.arrays
    return moe_cte_golden(
        a["hidden_states"],
        a["expert_affinities_masked"],
        a["gate_up_proj_weight"],
        a["down_proj_weight"],
        a["token_position_to_id"],
        a["block_to_expert"],
        gate_up_proj_scale=a.get("gate_up_proj_scale"),
        down_proj_scale=a.get("down_proj_scale"),
        **golden_options(a, options, inputs.active_blocks, kernel_spec.affinity_on_intermediate),
    )


def golden_options(
    arrays: Mapping[str, np.ndarray],
    options: MoECTEOptions,
    active_blocks: Sequence[bool] | None,
    affinity_on_intermediate: bool,
) -> dict[str, Any]:
    """The keyword arguments of ``moe_cte_golden`` that the options and the routing
    decide (all but the weights and their fp8 scales), shared by every golden."""
    return {
        "activation_function": options.activation,
        "scaling": options.scaling,
        "gate_and_up_proj_bias": arrays.get("gate_and_up_proj_bias"),
        "down_proj_bias": arrays.get("down_proj_bias"),
        "gate_clamp": options.gate_clamp,
        "up_clamp": options.up_clamp,
        "active_blocks": active_blocks,
        "affinity_on_intermediate": affinity_on_intermediate,
    }


__all__ = ["MoECTEInputs", "golden_for", "golden_options", "make_inputs"]
