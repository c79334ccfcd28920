"""Reference side of the MX kernels: packing dense weights into their MX layouts, the
MX-aware golden and the MX inputs (see ``docs/moe-cte-mx.md``; the format table and
layout constants the builders use are :mod:`mxdsl.kernels.moe_cte.mx_formats`).

HBM layouts (nkilib's MX layouts), ``kt4 = H / 512`` and
``nt = ceil(I / 512)``; ``c`` is the x4 container (uint32 for FP8, uint16 for FP4), lane ``q``
(0..3) of a container holds one logical element:

* ``gate_up_proj_weight [E, 128, 2, kt4, I]`` c, element ``(e, p, g, t, i)`` lane ``q``
  = ``W[e, h, g, i]`` with ``h = q * (H / 4) + t * 128 + p``;
  ``gate_up_proj_scale [E, 16, 2, kt4, I]`` uint8 E8M0: scale ``(e, r, g, t, i)`` covers
  the 32 elements ``p = 8r .. 8r + 7`` x ``q = 0..3``.
* ``down_proj_weight [E, 128, nt, H]`` c, element ``(e, p, t, h)`` lane ``q`` =
  ``Wd[e, i, h]`` with ``i = t * 512 + q * 128 + p``, zero for ``i >= I`` (``nt =
  ceil(I / 512)``: a partial last tile's missing lanes are zero codes);
  ``down_proj_scale [E, 16, nt, H]`` uint8: scale ``(e, r, t, h)`` covers
  ``p = 8r .. 8r + 7`` x ``q = 0..3``.

The activations are quantized on chip in the same geometry: hidden row ``x[h]`` is read
as ``[4 (q), kt4 (t), 128 (p)]`` and the intermediate ``inter[i]`` as ``[nt (t), 4 (q),
128 (p)]``; one E8M0 scale per 8 partitions x 4 lanes (the physical quantize_mx block).
Everything MX here (quantize / dequantize, x4 packing) goes through
:mod:`mxdsl.kernels.moe_cte.independent_mx`, written from the spec with ml_dtypes apart
from the :mod:`mxdsl.numerics` the kernels' interpreters run, so a bug in either shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import ml_dtypes
import numpy as np

from mxdsl.kernels.moe_cte.interface import DTYPES, kernel_arguments
from mxdsl.kernels.moe_cte.mx import static_blocks
from mxdsl.kernels.moe_cte.mx_formats import (
    BLOCK,
    MX_TILE,
    PMAX,
    MxWeightFormat,
    weight_format,
)
from mxdsl.kernels.moe_cte.reference.golden import (
    GoldenExperts,
    PerExpert,
    moe_cte_block_values,
    moe_cte_golden,
)

# independent_mx, not mxdsl.numerics: see its docstring
from mxdsl.kernels.moe_cte.reference.independent_mx import (
    dequantize_mx,
    pack_fp4_x4,
    pack_fp8_x4,
    quantize_mx,
    unpack_fp4_x4,
    unpack_fp8_x4,
)
from mxdsl.kernels.moe_cte.reference.inputs import (
    MoECTEInputs,
    expert_down,
    expert_gate_up,
    golden_options,
    make_inputs,
)
from mxdsl.kernels.moe_cte.reference.parallel import for_each_expert
from mxdsl.kernels.moe_cte.spec import (
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
)
from mxdsl.numerics import MxFormat

# ------------------------------------------------------------------ index maps


def gate_up_h_index(p: int, t: int, q: int, hidden: int) -> int:
    """Dense H row of gate/up element ``(p, t)`` lane ``q``."""
    return q * (hidden // 4) + t * PMAX + p


def down_i_index(p: int, t: int, q: int) -> int:
    """Dense I row of down element ``(p, t)`` lane ``q``."""
    return t * MX_TILE + q * PMAX + p


# ------------------------------------------------------------------ packing

# An MX block (``BLOCK``: 8 partitions x 4 lanes) in the dense layouts the weights and
# activations are quantized in, lane axis q first, partition axis p third:
# ``[4 (q), t, 128 (p), columns]`` (gate/up's H rows, the hidden states' [q, t, p]) and
# ``[4 (q), 128 (p), columns]`` (down's I tile, the intermediate's [q, p]).
_P_BLOCK, _Q_BLOCK = BLOCK
_QTP_BLOCK = (_Q_BLOCK, 1, _P_BLOCK, 1)
_QP_BLOCK = (_Q_BLOCK, _P_BLOCK, 1)


def _quantize_pack(
    x: np.ndarray, wf: MxWeightFormat, block: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """``x[4 (q), ...]`` float32 with ``block`` = one E8M0 per 4 q x 8 p -> (containers
    ``[...]``, lane q of each holding ``x[q, ...]``; scales ``[...]`` per block, the
    lane axis dropped). The values are quantized where they lie (no transposed copy):
    only the code bytes move, into their containers."""
    codes, scale = quantize_mx(x, wf.fmt, block)
    pack = pack_fp8_x4 if wf.fmt.is_fp8 else pack_fp4_x4
    return pack(codes, axis=0)[0].astype(wf.container), scale[0]


def _lanes(words: np.ndarray, wf: MxWeightFormat) -> np.ndarray:
    """Containers ``[...]`` -> their code bytes ``[..., 4]`` (lane q last)."""
    if wf.fmt.is_fp8:
        return unpack_fp8_x4(np.asarray(words, np.uint32)[..., None])
    return unpack_fp4_x4(np.asarray(words, np.uint16)[..., None])


def pack_gate_up_expert(w: np.ndarray, wf: MxWeightFormat) -> tuple[np.ndarray, np.ndarray]:
    """One expert's dense ``[H, 2, I]`` -> (``[128, 2, kt4, I]`` containers,
    ``[16, 2, kt4, I]`` uint8 scales), quantized 512 I columns of gate or up at a time
    (the quantize temporaries stay small; MX blocks never span columns)."""
    H, _, I = w.shape  # noqa: E741
    kt4 = H // MX_TILE
    words = np.empty((PMAX, 2, kt4, I), np.dtype(wf.container))
    scales = np.empty((PMAX // 8, 2, kt4, I), np.uint8)
    for g in range(2):
        for i0 in range(0, I, MX_TILE):
            i1 = min(i0 + MX_TILE, I)
            x = np.asarray(w[:, g, i0:i1], dtype=np.float32).reshape(4, kt4, PMAX, i1 - i0)
            wd, sc = _quantize_pack(x, wf, _QTP_BLOCK)  # [t, p, i], [t, 16, i]
            words[:, g, :, i0:i1] = wd.transpose(1, 0, 2)
            scales[:, g, :, i0:i1] = sc.transpose(1, 0, 2)
    return words, scales


def pack_gate_up(w: np.ndarray, wf: MxWeightFormat) -> tuple[np.ndarray, np.ndarray]:
    """Dense ``[E, H, 2, I]`` -> (``[E, 128, 2, kt4, I]`` containers, ``[E, 16, 2, kt4, I]``
    uint8 scales), one expert at a time."""
    packed = [pack_gate_up_expert(w[e], wf) for e in range(w.shape[0])]
    return (
        np.ascontiguousarray(np.stack([p[0] for p in packed])),
        np.ascontiguousarray(np.stack([p[1] for p in packed])),
    )


def unpack_gate_up_expert(words: np.ndarray, scales: np.ndarray, wf: MxWeightFormat) -> np.ndarray:
    """One expert's ``[128, 2, kt4, I]`` containers and ``[16, 2, kt4, I]`` scales back to
    dense float32 ``[H, 2, I]`` (dequantized), 512 I columns of gate or up at a time (the
    unpack temporaries stay small)."""
    _, _, kt4, I = words.shape  # noqa: E741
    H = kt4 * MX_TILE
    out = np.empty((H, 2, I), np.float32)
    for g in range(2):
        for i0 in range(0, I, MX_TILE):
            i1 = min(i0 + MX_TILE, I)
            codes = _lanes(words[:, g, :, i0:i1], wf).transpose(3, 1, 0, 2)  # q t p i
            scale = scales[None, :, g, :, i0:i1].transpose(0, 2, 1, 3)  # 1 t r i
            v = dequantize_mx(codes, scale, wf.fmt, _QTP_BLOCK)
            out[:, g, i0:i1] = v.reshape(H, i1 - i0)
    return out


def unpack_gate_up(words: np.ndarray, scales: np.ndarray, wf: MxWeightFormat) -> np.ndarray:
    """MX gate/up weights back to dense float32 ``[E, H, 2, I]`` (dequantized)."""
    return np.stack([unpack_gate_up_expert(words[e], scales[e], wf) for e in range(len(words))])


def pack_down_expert(w: np.ndarray, wf: MxWeightFormat) -> tuple[np.ndarray, np.ndarray]:
    """One expert's dense ``[I, H]`` -> (``[128, nt, H]`` containers, ``[16, nt, H]``),
    quantized one 512-row I tile at a time; the rows of a partial last tile past ``I``
    are zeros."""
    I, H = w.shape  # noqa: E741
    nt = -(-I // MX_TILE)
    words = np.empty((PMAX, nt, H), np.dtype(wf.container))
    scales = np.empty((PMAX // 8, nt, H), np.uint8)
    for t in range(nt):
        rows = np.asarray(w[t * MX_TILE : (t + 1) * MX_TILE], dtype=np.float32)
        if len(rows) < MX_TILE:
            x = np.zeros((MX_TILE, H), np.float32)
            x[: len(rows)] = rows
            rows = x
        words[:, t], scales[:, t] = _quantize_pack(rows.reshape(4, PMAX, H), wf, _QP_BLOCK)
    return words, scales


def pack_down(w: np.ndarray, wf: MxWeightFormat) -> tuple[np.ndarray, np.ndarray]:
    """Dense ``[E, I, H]`` -> (``[E, 128, nt, H]`` containers, ``[E, 16, nt, H]`` scales)."""
    packed = [pack_down_expert(w[e], wf) for e in range(w.shape[0])]
    return (
        np.ascontiguousarray(np.stack([p[0] for p in packed])),
        np.ascontiguousarray(np.stack([p[1] for p in packed])),
    )


def unpack_down_expert(
    words: np.ndarray, scales: np.ndarray, wf: MxWeightFormat, rows: int | None = None
) -> np.ndarray:
    """One expert's ``[128, nt, H]`` containers and ``[16, nt, H]`` scales back to dense
    float32 ``[I, H]`` (its first ``rows`` = I rows; all ``nt * 512`` when None), one
    512-row I tile at a time."""
    _, nt, H = words.shape
    out = np.empty((nt * MX_TILE, H), np.float32)
    for t in range(nt):
        codes = _lanes(words[:, t], wf).transpose(2, 0, 1)  # q p h
        v = dequantize_mx(codes, scales[None, :, t], wf.fmt, _QP_BLOCK)
        out[t * MX_TILE : (t + 1) * MX_TILE] = v.reshape(MX_TILE, H)
    return out if rows is None else out[:rows]


def unpack_down(
    words: np.ndarray, scales: np.ndarray, wf: MxWeightFormat, rows: int | None = None
) -> np.ndarray:
    """MX down weights back to dense float32 ``[E, I, H]`` (``rows`` = I as above)."""
    return np.stack([unpack_down_expert(words[e], scales[e], wf, rows) for e in range(len(words))])


# ------------------------------------------------------------ activations


def _bf16(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16)


def _fake_quantize(v: np.ndarray, block: tuple[int, ...]) -> np.ndarray:
    """``v`` MX-quantized to float8_e4m3fn per ``block`` and dequantized, in place of
    its layout."""
    codes, scale = quantize_mx(v, MxFormat.E4M3FN, block)
    return dequantize_mx(codes, scale, MxFormat.E4M3FN, block)


def fake_quantize_hidden(x: np.ndarray) -> np.ndarray:
    """``x [R, H]`` rounded to bf16, MX-quantized to float8_e4m3fn in the kernel's
    geometry (``h = q * H/4 + t * 128 + p``, blocks of 8 p x 4 q) and dequantized."""
    R, H = x.shape
    kt4 = H // MX_TILE
    v = _bf16(x).reshape(R, 4, kt4, PMAX)  # r q t p
    return _fake_quantize(v, (1, *_QTP_BLOCK[:3])).reshape(R, H)


def fake_quantize_intermediate(x: np.ndarray) -> np.ndarray:
    """``x [R, I]`` (``i = t * 512 + q * 128 + p``) through bf16 and MXFP8 e4m3fn; a
    partial last 512-row tile is quantized with zeros in its missing lanes, as the
    kernel holds it."""
    R, I = x.shape  # noqa: E741
    nt = -(-I // MX_TILE)
    padded = np.zeros((R, nt * MX_TILE), ml_dtypes.bfloat16)
    padded[:, :I] = _bf16(x)
    v = padded.reshape(R, nt, 4, PMAX)  # r t q p
    return _fake_quantize(v, (1, 1, *_QP_BLOCK[:2])).reshape(R, nt * MX_TILE)[:, :I]


# ------------------------------------------------------------------ golden


def _mx_golden_arguments(
    arrays: Mapping[str, np.ndarray],
    options: MoECTEOptions,
    active_blocks: Sequence[bool] | None,
    affinity_on_intermediate: bool,
) -> dict[str, Any]:
    """``moe_cte_golden``'s arguments for the MX-aware golden, by name: the weights
    dequantized from their MX form one expert at a time (:class:`PerExpert`), the
    kernel's quantization points."""
    wf = weight_format(options.mx_weights)
    w_gu, s_gu = arrays["gate_up_proj_weight"], arrays["gate_up_proj_scale"]
    w_d, s_d = arrays["down_proj_weight"], arrays["down_proj_scale"]
    E, _, _, kt4, I = w_gu.shape  # noqa: E741
    H = kt4 * MX_TILE
    return {
        "hidden_states": arrays["hidden_states"],
        "expert_affinities_masked": arrays["expert_affinities_masked"],
        "gate_up_proj_weight": PerExpert(
            (E, H, 2, I), lambda e: unpack_gate_up_expert(w_gu[e], s_gu[e], wf)
        ),
        "down_proj_weight": PerExpert(
            (E, I, H), lambda e: unpack_down_expert(w_d[e], s_d[e], wf, I)
        ),
        "token_position_to_id": arrays["token_position_to_id"],
        "block_to_expert": arrays["block_to_expert"],
        "quantize_hidden": fake_quantize_hidden,
        "quantize_intermediate": fake_quantize_intermediate,
        **golden_options(arrays, options, active_blocks, affinity_on_intermediate),
    }


def moe_cte_mx_golden(
    arrays: dict[str, np.ndarray],
    options: MoECTEOptions,
    *,
    active_blocks: Sequence[bool] | None = None,
    affinity_on_intermediate: bool = False,
    threads: int | None = None,
) -> np.ndarray:
    """The MX-aware golden ``[T, H]`` float32: the dense math of ``moe_cte_golden`` with
    the weights dequantized from their MX form and the hidden states (after PRE_SCALE)
    and ``act(gate) * up`` rounded to bf16 and MXFP8-quantized where the kernel does it
    (its experts on ``threads`` threads, the same bits for any count)."""
    return moe_cte_golden(
        **_mx_golden_arguments(arrays, options, active_blocks, affinity_on_intermediate),
        threads=threads,
    )


def _dense_golden_arguments(
    arrays: Mapping[str, np.ndarray],
    options: MoECTEOptions,
    active_blocks: Sequence[bool] | None,
    affinity_on_intermediate: bool,
    dense_gate_up: PerExpert,
    dense_down: PerExpert,
) -> dict[str, Any]:
    """``moe_cte_golden``'s arguments for the fp32 dense golden of MX inputs: the
    unquantized (IO-dtype) weights, no quantization points."""
    return {
        "hidden_states": arrays["hidden_states"],
        "expert_affinities_masked": arrays["expert_affinities_masked"],
        "gate_up_proj_weight": dense_gate_up,
        "down_proj_weight": dense_down,
        "token_position_to_id": arrays["token_position_to_id"],
        "block_to_expert": arrays["block_to_expert"],
        **golden_options(arrays, options, active_blocks, affinity_on_intermediate),
    }


# ------------------------------------------------------------------ inputs

_TWIN = {
    "shard_on_block_mx": "shard_on_block",
    "shard_on_i_mx": "shard_on_i",
    "shard_on_i_mx_hybrid": "shard_on_i_hybrid",
}


def make_mx_inputs(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    seed: int = 0,
    live_blocks: int | None = None,
    *,
    dense_golden: bool = False,
    threads: int | None = None,
) -> MoECTEInputs:
    """Routed random inputs for an MX kernel: the bf16 twin's inputs (same routing,
    hidden states, affinities, biases for the same seed) with the twin's dense weights
    (:func:`expert_gate_up`, :func:`expert_down` in the IO dtype) packed into the MX
    layouts one expert at a time (:func:`pack_gate_up_expert`, :func:`pack_down_expert`)
    straight into the kernel's arrays, the experts on ``threads`` threads (default: every
    CPU; each expert from its own stream, so the same bytes for any count). The dense
    weights are not kept: ``extra["dense_gate_up"]`` / ``extra["dense_down"]`` are
    :class:`PerExpert` views that draw an expert again from its seed, for the fp32
    golden. With ``dense_golden`` that golden is computed here instead, from each
    expert's dense weights while they are drawn (``extra["dense_golden"]``, which
    :func:`dense_golden_for` returns): the same bits, without drawing every expert
    twice."""
    impl = spec.implementation
    twin = MoECTESpec(
        MoECTEImplementation[_TWIN[impl.name]],
        shard_on_I=spec.shard_on_I if not impl.shards_on_block else None,
    )
    twin_options = replace(options, mx_weights="fp8_e4m3fn")
    base = make_inputs(twin, sizes, twin_options, None, seed, live_blocks, with_weights=False)
    wf = weight_format(options.mx_weights)
    args = {a.name: a for a in kernel_arguments(spec, sizes, options)}
    arrays = {k: v for k, v in base.arrays.items() if k in args}
    for name in ("gate_up_proj_weight", "gate_up_proj_scale", "down_proj_weight"):
        arrays[name] = np.empty(args[name].shape, args[name].numpy_dtype)
    arrays["down_proj_scale"] = np.empty(args["down_proj_scale"].shape, np.uint8)
    H, I, E = sizes.hidden, sizes.intermediate, sizes.experts  # noqa: E741
    io = DTYPES[options.dtype][1]
    active = base.active_blocks
    N = sizes.blocks
    if impl == MoECTEImplementation.shard_on_block_mx:
        live = base.real_blocks if live_blocks is None else live_blocks
        conditions = np.zeros(N + 1, dtype=np.int32)
        conditions[:live] = 1
        if "conditions" in args:
            arrays["conditions"] = conditions
        cfg = spec.shard_on_block
        n_static = static_blocks(spec, sizes)
        n_dyn = cfg.n_dynamic_blocks if cfg is not None else 55
        active = [b < n_static or b < min(live, n_static + n_dyn) for b in range(N)]

    def rounded(w: np.ndarray) -> np.ndarray:
        """``w`` rounded to the IO dtype, in place (no second float32 copy)."""
        w[...] = w.astype(io)
        return w

    def dense_gate_up(e: int) -> np.ndarray:
        return rounded(expert_gate_up(seed, e, H, I))

    def dense_down(e: int) -> np.ndarray:
        return rounded(expert_down(seed, e, H, I))

    dense_weights = {
        "dense_gate_up": PerExpert((E, H, 2, I), dense_gate_up),
        "dense_down": PerExpert((E, I, H), dense_down),
    }
    golden = None
    if dense_golden:
        golden = GoldenExperts(
            **_dense_golden_arguments(
                arrays, options, active, spec.affinity_on_intermediate, **dense_weights
            )
        )
    routed = set() if golden is None else set(golden.routed_experts())

    def expert(e: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Expert ``e``'s weights drawn, rounded and packed into its slices of the
        kernel's arrays, one tensor at a time (and its fp32 golden rows, if asked)."""
        gate_up = dense_gate_up(e)
        arrays["gate_up_proj_weight"][e], arrays["gate_up_proj_scale"][e] = pack_gate_up_expert(
            gate_up, wf
        )
        kept = gate_up if golden is not None and e in routed else None
        del gate_up  # one dense tensor at a time unless the fp32 golden needs both
        down = dense_down(e)
        arrays["down_proj_weight"][e], arrays["down_proj_scale"][e] = pack_down_expert(down, wf)
        if golden is None or kept is None:
            return None
        return golden.rows(e, kept, down)

    def finish(e: int, rows: tuple[np.ndarray, np.ndarray] | None) -> None:
        if golden is not None and rows is not None:
            golden.add(e, rows)

    for_each_expert(expert, range(E), finish, threads)
    extra: dict[str, object] = dict(dense_weights)
    if golden is not None:
        extra["dense_golden"] = golden.out
    return MoECTEInputs(arrays, base.real_blocks, active, extra)


def mx_golden_for(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    inputs: MoECTEInputs,
    threads: int | None = None,
) -> np.ndarray:
    """The MX-aware golden for these inputs (its experts on ``threads`` threads)."""
    del sizes
    return moe_cte_mx_golden(
        inputs.arrays,
        options,
        active_blocks=inputs.active_blocks,
        affinity_on_intermediate=spec.affinity_on_intermediate,
        threads=threads,
    )


def mx_block_values_for(
    spec: MoECTESpec, sizes: MoECTESizes, options: MoECTEOptions, inputs: MoECTEInputs
) -> dict[str, np.ndarray]:
    """The MX-aware golden's values block by block (``moe_cte_block_values`` with the
    weights dequantized from their MX form and the kernel's quantization points)."""
    del sizes
    return moe_cte_block_values(
        **_mx_golden_arguments(
            inputs.arrays, options, inputs.active_blocks, spec.affinity_on_intermediate
        )
    )


def dense_golden_for(
    spec: MoECTESpec,
    sizes: MoECTESizes,
    options: MoECTEOptions,
    inputs: MoECTEInputs,
    threads: int | None = None,
) -> np.ndarray:
    """The plain fp32 dense golden with the unquantized weights (what MX costs): the one
    :func:`make_mx_inputs` computed with ``dense_golden``, else computed now (its experts
    on ``threads`` threads), the weights drawn again from the seed."""
    del sizes
    made = inputs.extra.get("dense_golden")
    if made is not None:
        assert isinstance(made, np.ndarray)
        return made
    gu = inputs.extra["dense_gate_up"]
    d = inputs.extra["dense_down"]
    assert isinstance(gu, PerExpert)
    assert isinstance(d, PerExpert)
    arguments = _dense_golden_arguments(
        inputs.arrays, options, inputs.active_blocks, spec.affinity_on_intermediate, gu, d
    )
    return moe_cte_golden(**arguments, threads=threads)


__all__ = [
    "dense_golden_for",
    "down_i_index",
    "fake_quantize_hidden",
    "fake_quantize_intermediate",
    "gate_up_h_index",
    "make_mx_inputs",
    "moe_cte_mx_golden",
    "mx_block_values_for",
    "mx_golden_for",
    "pack_down",
    "pack_down_expert",
    "pack_gate_up",
    "pack_gate_up_expert",
    "unpack_down",
    "unpack_down_expert",
    "unpack_gate_up",
    "unpack_gate_up_expert",
]
