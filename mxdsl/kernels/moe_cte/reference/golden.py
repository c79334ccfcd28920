"""The MoE-CTE golden: plain dense numpy, independent of the kernels.

Per token t: ``out[t] = sum over the experts e routed for t of
    scale_post(t, e) * (down_e(act(clamp(gate_e(x'))) * clamp(up_e(x'))) + bias_down_e)``
with ``x' = a(t, e) * x[t]`` under PRE_SCALE, ``a(t, e)`` the masked router affinity
``expert_affinities_masked[t * E + e]``, ``gate_e(x) = (x @ Wg_e) * s_gate_e + b_gate_e``
(the fp8 dequant scale and the bias each optional; likewise up and down). With
``affinity_on_intermediate`` (ShardOnIConfig.expert_affinity_multiply_on_I) POST_SCALE
multiplies ``act(gate) * up`` instead, so the down bias is not scaled. Everything is
computed in float32 from the inputs' values; the result is float32 ``[T, H]`` (the
padding row T is not part of the answer).

Which (token, expert) pairs are routed is read off the block layout: a token appears in
a block of expert e. Blocks the kernel does not process (``active_blocks`` False, e.g.
the hybrid's blocks beyond the runtime count) contribute nothing; padding slots (id T)
are no token.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mxdsl.kernels.moe_cte.spec import ActFnType, ExpertAffinityScaleMode
from mxdsl.numerics import elementary

PRE = ExpertAffinityScaleMode.PRE_SCALE


@dataclass(frozen=True)
class PerExpert:
    """Weights of all experts, made one expert at a time when indexed (``w[e]``), so the
    golden never holds a float32 copy of every expert (e.g. MX weights dequantized, or
    dense weights drawn again from their seed)."""

    shape: tuple[int, ...]
    expert: Callable[[int], np.ndarray]

    def __getitem__(self, e: int) -> np.ndarray:
        return self.expert(e)


def activation(kind: ActFnType, x: np.ndarray) -> np.ndarray:
    """The four MoE activations (nkilib's test goldens), in float64 from
    :mod:`mxdsl.numerics.elementary` (the same bits on every machine)."""
    if kind == ActFnType.SiLU:
        return elementary.silu(x)
    if kind == ActFnType.GELU:
        return elementary.gelu(x)
    if kind == ActFnType.GELU_Tanh_Approx:
        return elementary.gelu_apprx_tanh(x)
    if kind == ActFnType.Swish:
        return elementary.gelu_apprx_sigmoid(x)
    raise ValueError(f"unknown activation {kind!r}")


def routed_pairs(
    token_position_to_id: np.ndarray,
    block_to_expert: np.ndarray,
    tokens: int,
    experts: int,
    active_blocks: Sequence[bool] | None = None,
) -> np.ndarray:
    """``routed[t, e]``: token t is in some (active) block of expert e."""
    n = len(block_to_expert)
    ids = np.asarray(token_position_to_id).reshape(n, -1)
    routed = np.zeros((tokens, experts), dtype=bool)
    for b in range(n):
        if active_blocks is not None and not active_blocks[b]:
            continue
        row = ids[b]
        row = row[(row >= 0) & (row < tokens)]
        routed[row, int(block_to_expert[b])] = True
    return routed


def moe_cte_golden(
    hidden_states: np.ndarray,
    expert_affinities_masked: np.ndarray,
    gate_up_proj_weight: np.ndarray | PerExpert,
    down_proj_weight: np.ndarray | PerExpert,
    token_position_to_id: np.ndarray,
    block_to_expert: np.ndarray,
    *,
    activation_function: ActFnType = ActFnType.SiLU,
    scaling: ExpertAffinityScaleMode = ExpertAffinityScaleMode.POST_SCALE,
    gate_and_up_proj_bias: np.ndarray | None = None,
    down_proj_bias: np.ndarray | None = None,
    gate_up_proj_scale: np.ndarray | None = None,
    down_proj_scale: np.ndarray | None = None,
    gate_clamp: tuple[float | None, float | None] = (None, None),
    up_clamp: tuple[float | None, float | None] = (None, None),
    active_blocks: Sequence[bool] | None = None,
    affinity_on_intermediate: bool = False,
    quantize_hidden: Callable[[np.ndarray], np.ndarray] | None = None,
    quantize_intermediate: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """The dense reference output ``[T, H]`` in float32 (see the module docstring).
    ``quantize_hidden`` / ``quantize_intermediate``, when given, round the (pre-scaled)
    hidden rows and ``act(gate) * up`` where an MX kernel quantizes them (the MX-aware
    golden of ``reference.mx``). The weights are read one expert at a time (converted to
    float32 per expert); they may be :class:`PerExpert`."""
    f32 = np.float32
    tokens = hidden_states.shape[0] - 1
    experts, hidden, _, inter = gate_up_proj_weight.shape
    aff = expert_affinities_masked.astype(f32).reshape(tokens + 1, experts)
    routed = routed_pairs(token_position_to_id, block_to_expert, tokens, experts, active_blocks)
    out = np.zeros((tokens, hidden), dtype=f32)
    for e in range(experts):
        toks = np.flatnonzero(routed[:, e])
        if toks.size == 0:
            continue
        x = hidden_states[toks].astype(f32)  # this expert's rows only, not a copy of all
        a = aff[toks, e][:, None]
        if scaling in (
            ExpertAffinityScaleMode.PRE_SCALE,
            ExpertAffinityScaleMode.PRE_SCALE_DELAYED,
        ):
            x = a * x
        if quantize_hidden is not None:
            x = quantize_hidden(x)
        w = np.asarray(gate_up_proj_weight[e], dtype=f32)  # a float32 PerExpert: no copy
        gate = x @ w[:, 0, :]
        up = x @ w[:, 1, :]
        del w  # one expert's float32 weights at a time: free before the next is made
        if gate_up_proj_scale is not None:
            s = gate_up_proj_scale[e].astype(f32).reshape(-1)
            gate = gate * s[:inter]
            up = up * s[inter:]
        if gate_and_up_proj_bias is not None:
            gate = gate + gate_and_up_proj_bias[e, 0].astype(f32)
            up = up + gate_and_up_proj_bias[e, 1].astype(f32)
        gate = _clamp(gate, gate_clamp)
        up = _clamp(up, up_clamp)
        inter_states = (activation(activation_function, gate.astype(np.float64)) * up).astype(f32)
        post = scaling == ExpertAffinityScaleMode.POST_SCALE
        if post and affinity_on_intermediate:  # ShardOnIConfig.expert_affinity_multiply_on_I
            inter_states = inter_states * a
            post = False
        if quantize_intermediate is not None:
            inter_states = quantize_intermediate(inter_states)
        h = inter_states @ np.asarray(down_proj_weight[e], dtype=f32)
        if down_proj_scale is not None:
            h = h * down_proj_scale[e].astype(f32).reshape(-1)
        if down_proj_bias is not None:
            h = h + down_proj_bias[e].astype(f32)
        if post:
            h = h * a
        out[toks] += h
    return out


def moe_cte_block_values(
    hidden_states: np.ndarray,
    expert_affinities_masked: np.ndarray,
    gate_up_proj_weight: np.ndarray | PerExpert,
    down_proj_weight: np.ndarray | PerExpert,
    token_position_to_id: np.ndarray,
    block_to_expert: np.ndarray,
    *,
    activation_function: ActFnType = ActFnType.SiLU,
    scaling: ExpertAffinityScaleMode = ExpertAffinityScaleMode.POST_SCALE,
    gate_and_up_proj_bias: np.ndarray | None = None,
    down_proj_bias: np.ndarray | None = None,
    gate_up_proj_scale: np.ndarray | None = None,
    down_proj_scale: np.ndarray | None = None,
    gate_clamp: tuple[float | None, float | None] = (None, None),
    up_clamp: tuple[float | None, float | None] = (None, None),
    active_blocks: Sequence[bool] | None = None,
    affinity_on_intermediate: bool = False,
    quantize_hidden: Callable[[np.ndarray], np.ndarray] | None = None,
    quantize_intermediate: Callable[[np.ndarray], np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """What :func:`moe_cte_golden` computes, block by block, float32, keyed
    ``block{b}.{value}`` for each active block ``b`` (every slot of the block, a padding
    slot reading the padding row T): ``gate`` and ``up`` ``[B, I]`` (after the dequant
    scale, the bias and the clamp), ``act`` = ``act(gate) * up`` (times the affinity with
    ``affinity_on_intermediate``), ``down`` ``[B, H]`` (after its scale and bias, before
    the affinity) and ``rows``, what the block adds to its tokens' output rows (zero for
    padding slots). ``quantize_hidden`` / ``quantize_intermediate`` as in
    :func:`moe_cte_golden` (``act`` is recorded before its quantization)."""
    f32 = np.float32
    tokens = hidden_states.shape[0] - 1
    experts = gate_up_proj_weight.shape[0]
    inter = gate_up_proj_weight.shape[3]
    aff = expert_affinities_masked.astype(f32).reshape(tokens + 1, experts)
    n = len(block_to_expert)
    ids = np.asarray(token_position_to_id).reshape(n, -1)
    values: dict[str, np.ndarray] = {}
    for b in range(n):
        if active_blocks is not None and not active_blocks[b]:
            continue
        e = int(block_to_expert[b])
        slots = np.where((ids[b] >= 0) & (ids[b] < tokens), ids[b], tokens)
        x = hidden_states[slots].astype(f32)
        a = aff[slots, e][:, None]
        if scaling in (PRE, ExpertAffinityScaleMode.PRE_SCALE_DELAYED):
            x = a * x
        if quantize_hidden is not None:
            x = quantize_hidden(x)
        w = np.asarray(gate_up_proj_weight[e], dtype=f32)
        gate, up = x @ w[:, 0, :], x @ w[:, 1, :]
        if gate_up_proj_scale is not None:
            s = gate_up_proj_scale[e].astype(f32).reshape(-1)
            gate, up = gate * s[:inter], up * s[inter:]
        if gate_and_up_proj_bias is not None:
            gate = gate + gate_and_up_proj_bias[e, 0].astype(f32)
            up = up + gate_and_up_proj_bias[e, 1].astype(f32)
        gate, up = _clamp(gate, gate_clamp), _clamp(up, up_clamp)
        act = (activation(activation_function, gate.astype(np.float64)) * up).astype(f32)
        post = scaling == ExpertAffinityScaleMode.POST_SCALE
        if post and affinity_on_intermediate:
            act, post = act * a, False
        down_in = act if quantize_intermediate is None else quantize_intermediate(act)
        h = down_in @ np.asarray(down_proj_weight[e], dtype=f32)
        if down_proj_scale is not None:
            h = h * down_proj_scale[e].astype(f32).reshape(-1)
        if down_proj_bias is not None:
            h = h + down_proj_bias[e].astype(f32)
        rows = h * a if post else h
        rows = np.where((slots < tokens)[:, None], rows, f32(0))
        for name, value in (("gate", gate), ("up", up), ("act", act), ("down", h), ("rows", rows)):
            values[f"block{b}.{name}"] = np.asarray(value, dtype=f32)
    return values


def _clamp(x: np.ndarray, limits: tuple[float | None, float | None]) -> np.ndarray:
    lo, hi = limits
    if lo is None and hi is None:
        return x
    return np.clip(x, lo, hi)


ERROR_CHUNK_ELEMENTS = 1 << 20
"""Elements per float64 chunk of :func:`relative_error` (8 MiB per temporary)."""


def relative_error(result: np.ndarray, reference: np.ndarray) -> float:
    """Relative Frobenius error ``||result - reference|| / ||reference||``, the sums of
    squares accumulated in float64 over chunks of the flattened arrays (no float64 copy
    of a whole ``[T, H]`` output)."""
    r = np.asarray(result).reshape(-1)
    g = np.asarray(reference).reshape(-1)
    if r.shape != g.shape:
        raise ValueError(f"shapes differ: {np.shape(result)} vs {np.shape(reference)}")
    diff_sq = ref_sq = 0.0
    for start in range(0, g.size, ERROR_CHUNK_ELEMENTS):
        gc = g[start : start + ERROR_CHUNK_ELEMENTS].astype(np.float64)
        dc = r[start : start + ERROR_CHUNK_ELEMENTS].astype(np.float64) - gc
        diff_sq += float(np.dot(dc, dc))
        ref_sq += float(np.dot(gc, gc))
    denom = float(np.sqrt(ref_sq))
    return float(np.sqrt(diff_sq)) / (denom if denom else 1.0)


__all__ = ["activation", "moe_cte_block_values", "moe_cte_golden", "relative_error", "routed_pairs"]
