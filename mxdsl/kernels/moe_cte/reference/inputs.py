"""Seeded random MoE-CTE inputs, routed the way a router would.

Each token picks ``top_k`` distinct experts; its masked affinities are a softmax over
the picked experts (zero elsewhere; the padding row T is zero). Tokens are sorted by
expert, each expert gets ``ceil(count / B)`` blocks, and the padding blocks that fill N
are appended to the last expert; empty slots hold the padding id T. ``conditions``
(hybrid) is 1 for the first ``live`` blocks and 0 after (length N + 1). The dropping
layout (N == E) gives every expert one block of capacity B; tokens beyond an expert's
capacity are dropped by the router (their affinity for that expert is masked to 0).
Weights are N(0, 1/fan_in), drawn per expert from their own stream (seed, kind, e)
(:func:`expert_weights`) and written into the kernel-dtype arrays one expert at a time,
so a large problem never holds a float64 (or more than one) copy of all experts; the
reference side can draw any expert again without storing the dense weights. With fp8
weights they are stored as float8_e4m3fn values with a per-output-channel scale
(``max |w| / 448``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

from mxdsl.kernels.moe_cte.interface import ArgSpec, kernel_arguments
from mxdsl.kernels.moe_cte.reference.golden import moe_cte_block_values, moe_cte_golden
from mxdsl.kernels.moe_cte.reference.parallel import for_each_expert
from mxdsl.kernels.moe_cte.spec import (
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
)
from mxdsl.numerics import elementary


def expert_gate_up(seed: int, e: int, hidden: int, inter: int) -> np.ndarray:
    """Expert ``e``'s dense float32 gate/up weights ``[H, 2, I]`` ~ N(0, 1/H), from the
    seeded stream ``(seed, 1, e)``."""
    gu = np.random.default_rng((seed, 1, e)).standard_normal((hidden, 2, inter), np.float32)
    gu *= np.float32(1.0 / np.sqrt(hidden))
    return gu


def expert_down(seed: int, e: int, hidden: int, inter: int) -> np.ndarray:
    """Expert ``e``'s dense float32 down weights ``[I, H]`` ~ N(0, 1/I), from the seeded
    stream ``(seed, 2, e)``."""
    d = np.random.default_rng((seed, 2, e)).standard_normal((inter, hidden), np.float32)
    d *= np.float32(1.0 / np.sqrt(inter))
    return d


def expert_weights(seed: int, e: int, hidden: int, inter: int) -> tuple[np.ndarray, np.ndarray]:
    """Expert ``e``'s dense float32 weights: :func:`expert_gate_up` and
    :func:`expert_down`, each from its own seeded stream (either can be drawn alone)."""
    return expert_gate_up(seed, e, hidden, inter), expert_down(seed, e, hidden, inter)


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
    with_weights: bool = True,
    threads: int | None = None,
) -> MoECTEInputs:
    """Inputs for the kernel ``build_moe_cte(spec, sizes, options, quantization)``
    (without the gate/up and down weights and their scales if not ``with_weights``: the MX
    inputs pack their own from :func:`expert_weights`). The experts' weights are made on
    ``threads`` threads (default: every CPU), each from its own stream: the same bytes
    for any thread count."""
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
    weights = elementary.exp(picked - picked.max(axis=1, keepdims=True))
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
    hidden = rng.standard_normal((T + 1, H), np.float32)
    hidden[T] = 0.0
    arrays["hidden_states"] = _cast(hidden, io)
    del hidden
    arrays["expert_affinities_masked"] = _cast(affinity.reshape(-1, 1), io)
    if with_weights:
        arrays.update(_weights(args, seed, E, H, I, threads))
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


def _weights(
    args: Mapping[str, ArgSpec],
    seed: int,
    E: int,
    H: int,
    I: int,  # noqa: E741
    threads: int | None = None,
) -> dict[str, np.ndarray]:
    """The weight arrays (and fp8 scales) in the kernel's dtypes, one expert at a time
    per thread (:func:`.parallel.for_each_expert`), each written into its own slice."""
    fp8 = "gate_up_proj_scale" in args
    f8 = ml_dtypes.float8_e4m3fn
    gu_dtype = f8 if fp8 else args["gate_up_proj_weight"].numpy_dtype
    d_dtype = f8 if fp8 else args["down_proj_weight"].numpy_dtype
    out = {
        "gate_up_proj_weight": np.empty((E, H, 2, I), gu_dtype),
        "down_proj_weight": np.empty((E, I, H), d_dtype),
    }
    if fp8:
        out["gate_up_proj_scale"] = np.empty((E, 1, 2 * I), np.float32)
        out["down_proj_scale"] = np.empty((E, 1, H), np.float32)

    def expert(e: int) -> None:
        w_gu, w_d = expert_weights(seed, e, H, I)
        if fp8:
            s_gu = np.abs(w_gu).max(axis=0, keepdims=True) / np.float32(448.0)  # [1, 2, I]
            s_d = np.abs(w_d).max(axis=0, keepdims=True) / np.float32(448.0)  # [1, H]
            w_gu, w_d = w_gu / s_gu, w_d / s_d
            out["gate_up_proj_scale"][e] = s_gu.reshape(1, 2 * I)
            out["down_proj_scale"][e] = s_d
        out["gate_up_proj_weight"][e] = w_gu.astype(gu_dtype)
        out["down_proj_weight"][e] = w_d.astype(d_dtype)

    for_each_expert(expert, range(E), threads=threads)
    return out


def golden_for(
    kernel_spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    inputs: MoECTEInputs,
    threads: int | None = None,
) -> np.ndarray:
    """The dense golden ``[T, H]`` float32 for these inputs and options (its experts on
    ``threads`` threads, the same bits for any count)."""
    del sizes
    return moe_cte_golden(**_golden_arguments(kernel_spec, options, inputs), threads=threads)


def block_values_for(
    kernel_spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    inputs: MoECTEInputs,
) -> dict[str, np.ndarray]:
    """The dense golden's values block by block (``moe_cte_block_values``)."""
    del sizes
    return moe_cte_block_values(**_golden_arguments(kernel_spec, options, inputs))


def _golden_arguments(
    kernel_spec: MoECTESpec, options: MoECTEOptions, inputs: MoECTEInputs
) -> dict[str, Any]:
    """Every argument of ``moe_cte_golden`` / ``moe_cte_block_values`` for these inputs
    (the kernel's weight arrays and fp8 scales as they are), by name."""
    a = inputs.arrays
    return {
        "hidden_states": a["hidden_states"],
        "expert_affinities_masked": a["expert_affinities_masked"],
        "gate_up_proj_weight": a["gate_up_proj_weight"],
        "down_proj_weight": a["down_proj_weight"],
        "token_position_to_id": a["token_position_to_id"],
        "block_to_expert": a["block_to_expert"],
        "gate_up_proj_scale": a.get("gate_up_proj_scale"),
        "down_proj_scale": a.get("down_proj_scale"),
        **golden_options(a, options, inputs.active_blocks, kernel_spec.affinity_on_intermediate),
    }


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


__all__ = [
    "MoECTEInputs",
    "block_values_for",
    "expert_down",
    "expert_gate_up",
    "expert_weights",
    "golden_for",
    "golden_options",
    "make_inputs",
]
