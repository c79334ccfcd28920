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
from typing import Any

import numpy as np

from mxdsl.kernels.moe_cte.reference.parallel import for_each_expert, one_blas_thread
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


class GoldenExperts:
    """The golden's math for one expert at a time (what :func:`moe_cte_golden` and
    :func:`moe_cte_block_values` share): :meth:`values` for any hidden-state rows of an
    expert, :meth:`rows` for the tokens routed to it, and :meth:`add` to sum an expert's
    rows into :attr:`out` — in expert order, so the float32 sums are the sequential ones
    whatever computed the experts (:func:`.parallel.for_each_expert`). The arguments are
    :func:`moe_cte_golden`'s."""

    def __init__(
        self,
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
    ) -> None:
        self.hidden_states = hidden_states
        self.tokens = hidden_states.shape[0] - 1
        self.experts, self.hidden, _, self.inter = gate_up_proj_weight.shape
        self.aff = expert_affinities_masked.astype(np.float32).reshape(
            self.tokens + 1, self.experts
        )
        self.gate_up_proj_weight = gate_up_proj_weight
        self.down_proj_weight = down_proj_weight
        self.token_position_to_id = token_position_to_id
        self.block_to_expert = block_to_expert
        self.activation_function = activation_function
        self.scaling = scaling
        self.gate_and_up_proj_bias = gate_and_up_proj_bias
        self.down_proj_bias = down_proj_bias
        self.gate_up_proj_scale = gate_up_proj_scale
        self.down_proj_scale = down_proj_scale
        self.gate_clamp = gate_clamp
        self.up_clamp = up_clamp
        self.active_blocks = active_blocks
        self.affinity_on_intermediate = affinity_on_intermediate
        self.quantize_hidden = quantize_hidden
        self.quantize_intermediate = quantize_intermediate
        self.routed = routed_pairs(
            token_position_to_id, block_to_expert, self.tokens, self.experts, active_blocks
        )
        self.out = np.zeros((self.tokens, self.hidden), dtype=np.float32)

    def routed_experts(self) -> list[int]:
        """The experts some token is routed to (the others add nothing)."""
        return [int(e) for e in np.flatnonzero(self.routed.any(axis=0))]

    def values(
        self,
        e: int,
        rows: np.ndarray,
        gate_up: np.ndarray | None = None,
        down: np.ndarray | None = None,
    ) -> dict[str, np.ndarray]:
        """Expert ``e`` on the hidden-state rows ``rows``, float32: ``gate`` and ``up``
        (after the dequant scale, the bias and the clamp), ``act`` = ``act(gate) * up``
        (times the affinity with ``affinity_on_intermediate``; before its quantization),
        ``down`` (after its scale and bias, before the affinity) and ``rows`` (what is
        added to the output rows: ``down``, times the affinity under POST_SCALE).
        ``gate_up`` / ``down``: expert ``e``'s weights when the caller has them (else
        read, converted to float32, from the weight arrays)."""
        f32 = np.float32
        inter = self.inter
        x = self.hidden_states[rows].astype(f32)  # this expert's rows only, not a copy of all
        a = self.aff[rows, e][:, None]
        if self.scaling in (PRE, ExpertAffinityScaleMode.PRE_SCALE_DELAYED):
            x = a * x
        if self.quantize_hidden is not None:
            x = self.quantize_hidden(x)
        w = np.asarray(self.gate_up_proj_weight[e] if gate_up is None else gate_up, dtype=f32)
        gate, up = x @ w[:, 0, :], x @ w[:, 1, :]
        del w, x  # one expert's float32 weights at a time: free before the next is made
        if self.gate_up_proj_scale is not None:
            s = self.gate_up_proj_scale[e].astype(f32).reshape(-1)
            gate, up = gate * s[:inter], up * s[inter:]
        if self.gate_and_up_proj_bias is not None:
            gate = gate + self.gate_and_up_proj_bias[e, 0].astype(f32)
            up = up + self.gate_and_up_proj_bias[e, 1].astype(f32)
        gate, up = _clamp(gate, self.gate_clamp), _clamp(up, self.up_clamp)
        act = (activation(self.activation_function, gate.astype(np.float64)) * up).astype(f32)
        post = self.scaling == ExpertAffinityScaleMode.POST_SCALE
        if post and self.affinity_on_intermediate:  # ShardOnIConfig.expert_affinity_multiply_on_I
            act, post = act * a, False
        down_in = act if self.quantize_intermediate is None else self.quantize_intermediate(act)
        h = down_in @ np.asarray(self.down_proj_weight[e] if down is None else down, dtype=f32)
        del down_in
        if self.down_proj_scale is not None:
            h = h * self.down_proj_scale[e].astype(f32).reshape(-1)
        if self.down_proj_bias is not None:
            h = h + self.down_proj_bias[e].astype(f32)
        return {"gate": gate, "up": up, "act": act, "down": h, "rows": h * a if post else h}

    def rows(
        self, e: int, gate_up: np.ndarray | None = None, down: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(the tokens routed to expert ``e``, the rows it adds to their outputs)."""
        toks = np.flatnonzero(self.routed[:, e])
        return toks, self.values(e, toks, gate_up, down)["rows"]

    def add(self, e: int, rows: tuple[np.ndarray, np.ndarray]) -> None:
        """Sum :meth:`rows`' result for expert ``e`` into :attr:`out` (call in expert
        order)."""
        del e
        toks, values = rows
        self.out[toks] += values


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
    threads: int | None = None,
) -> np.ndarray:
    """The dense reference output ``[T, H]`` in float32 (see the module docstring).
    ``quantize_hidden`` / ``quantize_intermediate``, when given, round the (pre-scaled)
    hidden rows and ``act(gate) * up`` where an MX kernel quantizes them (the MX-aware
    golden of ``reference.mx``). The weights are read one expert at a time (converted to
    float32 per expert); they may be :class:`PerExpert`. The experts are computed on
    ``threads`` threads (default: every CPU; :func:`.parallel.for_each_expert`) and
    summed in expert order: the same bits for any thread count."""
    golden = GoldenExperts(
        hidden_states,
        expert_affinities_masked,
        gate_up_proj_weight,
        down_proj_weight,
        token_position_to_id,
        block_to_expert,
        activation_function=activation_function,
        scaling=scaling,
        gate_and_up_proj_bias=gate_and_up_proj_bias,
        down_proj_bias=down_proj_bias,
        gate_up_proj_scale=gate_up_proj_scale,
        down_proj_scale=down_proj_scale,
        gate_clamp=gate_clamp,
        up_clamp=up_clamp,
        active_blocks=active_blocks,
        affinity_on_intermediate=affinity_on_intermediate,
        quantize_hidden=quantize_hidden,
        quantize_intermediate=quantize_intermediate,
    )
    for_each_expert(golden.rows, golden.routed_experts(), golden.add, threads)
    return golden.out


def moe_cte_block_values(
    hidden_states: np.ndarray,
    expert_affinities_masked: np.ndarray,
    gate_up_proj_weight: np.ndarray | PerExpert,
    down_proj_weight: np.ndarray | PerExpert,
    token_position_to_id: np.ndarray,
    block_to_expert: np.ndarray,
    **options: Any,
) -> dict[str, np.ndarray]:
    """What :func:`moe_cte_golden` computes, block by block, float32, keyed
    ``block{b}.{value}`` for each active block ``b`` (every slot of the block, a padding
    slot reading the padding row T): ``gate`` and ``up`` ``[B, I]`` (after the dequant
    scale, the bias and the clamp), ``act`` = ``act(gate) * up`` (times the affinity with
    ``affinity_on_intermediate``), ``down`` ``[B, H]`` (after its scale and bias, before
    the affinity) and ``rows``, what the block adds to its tokens' output rows (zero for
    padding slots). The keyword options are :func:`moe_cte_golden`'s (``act`` is
    recorded before its quantization); the blocks are computed in turn."""
    golden = GoldenExperts(
        hidden_states,
        expert_affinities_masked,
        gate_up_proj_weight,
        down_proj_weight,
        token_position_to_id,
        block_to_expert,
        **options,
    )
    tokens = golden.tokens
    n = len(block_to_expert)
    ids = np.asarray(token_position_to_id).reshape(n, -1)
    values: dict[str, np.ndarray] = {}
    for b in range(n):
        if golden.active_blocks is not None and not golden.active_blocks[b]:
            continue
        slots = np.where((ids[b] >= 0) & (ids[b] < tokens), ids[b], tokens)
        with one_blas_thread():  # the golden's GEMM bits (reference.parallel)
            block = golden.values(int(block_to_expert[b]), slots)
        block["rows"] = np.where((slots < tokens)[:, None], block["rows"], np.float32(0))
        for name in ("gate", "up", "act", "down", "rows"):
            values[f"block{b}.{name}"] = np.asarray(block[name], dtype=np.float32)
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


__all__ = [
    "GoldenExperts",
    "activation",
    "moe_cte_block_values",
    "moe_cte_golden",
    "relative_error",
    "routed_pairs",
]
