"""The reference side on several threads (mxdsl/kernels/moe_cte/reference/parallel.py):
the inputs and goldens are byte-identical for any thread count and to plain sequential
numpy written here (the per-expert golden loop, the MX packing from the layout's index
map through ``mxdsl.numerics``), and the fp32 dense golden made with the MX inputs equals
the one that draws the weights again."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest
from threadpoolctl import threadpool_info

from mxdsl import numerics
from mxdsl.kernels.moe_cte import (
    ActFnType,
    ExpertAffinityScaleMode,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
)
from mxdsl.kernels.moe_cte.mx_formats import weight_format
from mxdsl.kernels.moe_cte.reference import golden_for, make_inputs
from mxdsl.kernels.moe_cte.reference.golden import activation
from mxdsl.kernels.moe_cte.reference.inputs import expert_down, expert_gate_up
from mxdsl.kernels.moe_cte.reference.mx import (
    dense_golden_for,
    fake_quantize_hidden,
    fake_quantize_intermediate,
    make_mx_inputs,
    mx_golden_for,
    unpack_down_expert,
    unpack_gate_up_expert,
)
from mxdsl.kernels.moe_cte.reference.parallel import (
    for_each_expert,
    one_blas_thread,
    reference_threads,
)
from mxdsl.numerics import MxFormat

THREADS = (1, 2, 3)


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# ------------------------------------------------------------- plain references


def plain_golden(
    a: dict[str, np.ndarray],
    options: MoECTEOptions,
    active: list[bool],
    gate_up,  # noqa: ANN001 - e -> float32 [H, 2, I]
    down,  # noqa: ANN001 - e -> float32 [I, H]
    quantize_hidden=None,  # noqa: ANN001
    quantize_intermediate=None,  # noqa: ANN001
    affinity_on_intermediate: bool = False,
) -> np.ndarray:
    """The golden as one sequential float32 loop over the experts (one BLAS thread)."""
    f32 = np.float32
    E = len(a["expert_affinities_masked"]) // len(a["hidden_states"])
    T = len(a["hidden_states"]) - 1
    aff = a["expert_affinities_masked"].astype(f32).reshape(T + 1, E)
    ids = a["token_position_to_id"].reshape(len(a["block_to_expert"]), -1)
    routed = np.zeros((T, E), bool)
    for b, e in enumerate(a["block_to_expert"]):
        if active[b]:
            row = ids[b][ids[b] < T]
            routed[row, e] = True
    out = np.zeros((T, a["hidden_states"].shape[1]), f32)
    with one_blas_thread():
        for e in range(E):
            toks = np.flatnonzero(routed[:, e])
            if toks.size == 0:
                continue
            x = a["hidden_states"][toks].astype(f32)
            s = aff[toks, e][:, None]
            if options.scaling == ExpertAffinityScaleMode.PRE_SCALE:
                x = s * x
            if quantize_hidden is not None:
                x = quantize_hidden(x)
            w = gate_up(e)
            g, u = x @ w[:, 0, :], x @ w[:, 1, :]
            inter = w.shape[2]
            if "gate_up_proj_scale" in a and a["gate_up_proj_scale"].dtype == f32:
                scale = a["gate_up_proj_scale"][e].reshape(-1)
                g, u = g * scale[:inter], u * scale[inter:]
            if "gate_and_up_proj_bias" in a:
                g = g + a["gate_and_up_proj_bias"][e, 0].astype(f32)
                u = u + a["gate_and_up_proj_bias"][e, 1].astype(f32)
            if options.gate_clamp != (None, None):
                g = np.clip(g, *options.gate_clamp)
            if options.up_clamp != (None, None):
                u = np.clip(u, *options.up_clamp)
            act = (activation(options.activation, g.astype(np.float64)) * u).astype(f32)
            post = options.scaling == ExpertAffinityScaleMode.POST_SCALE
            if post and affinity_on_intermediate:
                act, post = act * s, False
            if quantize_intermediate is not None:
                act = quantize_intermediate(act)
            h = act @ down(e)
            if "down_proj_scale" in a and a["down_proj_scale"].dtype == f32:
                h = h * a["down_proj_scale"][e].reshape(-1)
            if "down_proj_bias" in a:
                h = h + a["down_proj_bias"][e].astype(f32)
            out[toks] += h * s if post else h
    return out


def plain_pack(dense: np.ndarray, fmt: MxFormat, container: type) -> tuple[np.ndarray, ...]:
    """``dense [..., 128 (p), 4 (q)]`` -> (containers ``[..., 128]``, E8M0 ``[..., 16]``)
    through ``mxdsl.numerics`` (the interpreters' MX code, which
    test_independent_mx.py checks against the reference's own bit for bit)."""
    block = (1,) * (dense.ndim - 2) + (8, 4)
    codes, scale = numerics.quantize_mx(np.ascontiguousarray(dense), fmt, block)
    words = (numerics.pack_fp8_x4 if fmt.is_fp8 else numerics.pack_fp4_x4)(codes)
    return words.reshape(codes.shape[:-1]).astype(container), scale.reshape(scale.shape[:-1])


def plain_mx_weights(seed: int, sizes: MoECTESizes, mx_weights: str) -> dict[str, np.ndarray]:
    """The four MX weight arrays from the index maps of the layouts (docs/moe-cte-mx.md):
    gate/up element (p, t, i) lane q = W[q H/4 + 128 t + p, i]; down element (p, t, h)
    lane q = Wd[512 t + 128 q + p, h], zero past I."""
    wf = weight_format(mx_weights)
    H, I, E = sizes.hidden, sizes.intermediate, sizes.experts  # noqa: E741
    kt4, nt = H // 512, -(-I // 512)
    out = {
        "gate_up_proj_weight": np.empty((E, 128, 2, kt4, I), wf.container),
        "gate_up_proj_scale": np.empty((E, 16, 2, kt4, I), np.uint8),
        "down_proj_weight": np.empty((E, 128, nt, H), wf.container),
        "down_proj_scale": np.empty((E, 16, nt, H), np.uint8),
    }
    for e in range(E):
        w = expert_gate_up(seed, e, H, I).astype(ml_dtypes.bfloat16).astype(np.float32)
        x = w.reshape(4, kt4, 128, 2, I).transpose(3, 1, 4, 2, 0)  # g t i p q
        words, scale = plain_pack(x, wf.fmt, wf.container)  # [g, t, i, 128|16]
        out["gate_up_proj_weight"][e] = words.transpose(3, 0, 1, 2)
        out["gate_up_proj_scale"][e] = scale.transpose(3, 0, 1, 2)
        d = expert_down(seed, e, H, I).astype(ml_dtypes.bfloat16).astype(np.float32)
        padded = np.zeros((nt * 512, H), np.float32)
        padded[:I] = d
        x = padded.reshape(nt, 4, 128, H).transpose(0, 3, 2, 1)  # t h p q
        words, scale = plain_pack(x, wf.fmt, wf.container)  # [t, h, 128|16]
        out["down_proj_weight"][e] = words.transpose(2, 0, 1)
        out["down_proj_scale"][e] = scale.transpose(2, 0, 1)
    return out


def plain_fake_quantize(x: np.ndarray, lanes_first: bool) -> np.ndarray:
    """Rows through bf16 and MXFP8 e4m3fn in the kernel's geometry (hidden: h = q H/4 +
    128 t + p; intermediate: i = 512 t + 128 q + p, zero lanes past I), dequantized."""
    R, n = x.shape
    if lanes_first:
        v = x.astype(ml_dtypes.bfloat16).reshape(R, 4, n // 512, 128).transpose(0, 2, 3, 1)
    else:
        nt = -(-n // 512)
        padded = np.zeros((R, nt * 512), ml_dtypes.bfloat16)
        padded[:, :n] = x.astype(ml_dtypes.bfloat16)
        v = padded.reshape(R, nt, 4, 128).transpose(0, 1, 3, 2)
    v = np.ascontiguousarray(v)  # r t p q
    codes, scale = numerics.quantize_mx(v, MxFormat.E4M3FN, (1, 1, 8, 4))
    d = numerics.dequantize_mx(codes, scale, MxFormat.E4M3FN, (1, 1, 8, 4))
    if lanes_first:
        return d.transpose(0, 3, 1, 2).reshape(R, n)
    return d.transpose(0, 1, 3, 2).reshape(R, -1)[:, :n]


# ------------------------------------------------------------------ the cases

BF16_CASES = [
    (MoECTEImplementation.shard_on_i, MoECTEOptions(), None),
    (
        MoECTEImplementation.shard_on_block,
        MoECTEOptions(
            bias=True,
            scaling=ExpertAffinityScaleMode.PRE_SCALE,
            activation=ActFnType.GELU,
            gate_clamp=(-1.0, 1.0),
            up_clamp=(None, 0.5),
        ),
        QuantizationConfig(True, True),
    ),
    (MoECTEImplementation.shard_on_i, MoECTEOptions(dtype="f32"), None),
]
SIZES = MoECTESizes(hidden=512, intermediate=256, experts=5, tokens=60, block_size=256, top_k=2)


@pytest.mark.parametrize(("impl", "options", "quant"), BF16_CASES)
def test_bf16_inputs_and_golden_for_any_thread_count(impl, options, quant):
    spec = MoECTESpec(impl)
    made = [make_inputs(spec, SIZES, options, quant, seed=4, threads=n) for n in THREADS]
    first = made[0].arrays
    for other in made[1:]:
        assert list(other.arrays) == list(first)
        assert all(same_bytes(other.arrays[k], v) for k, v in first.items())
    goldens = [golden_for(spec, SIZES, options, made[0], threads=n) for n in THREADS]
    assert all(same_bytes(g, goldens[0]) for g in goldens[1:])
    plain = plain_golden(
        first,
        options,
        made[0].active_blocks,
        lambda e: first["gate_up_proj_weight"][e].astype(np.float32),
        lambda e: first["down_proj_weight"][e].astype(np.float32),
    )
    assert same_bytes(goldens[0], plain)
    assert np.count_nonzero(plain) > 0


MX_SIZES = MoECTESizes(
    hidden=1024, intermediate=1024, experts=4, tokens=40, block_size=256, top_k=2
)
MX_CASES = [
    (MoECTEImplementation.shard_on_i_mx, MX_SIZES, MoECTEOptions()),
    (
        MoECTEImplementation.shard_on_i_mx,
        MX_SIZES,
        MoECTEOptions(
            mx_weights="fp4_e2m1",
            bias=True,
            scaling=ExpertAffinityScaleMode.PRE_SCALE,
            activation=ActFnType.GELU_Tanh_Approx,
        ),
    ),
    (
        MoECTEImplementation.shard_on_block_mx,
        replace(MX_SIZES, intermediate=384, block_size=128),  # a partial down tile
        MoECTEOptions(mx_weights="fp8_e5m2", up_clamp=(-1.0, 1.0)),
    ),
]


@pytest.mark.parametrize(("impl", "sizes", "options"), MX_CASES)
def test_mx_inputs_and_goldens_for_any_thread_count(impl, sizes, options):
    spec = MoECTESpec(impl)
    made = [
        make_mx_inputs(spec, sizes, options, seed=6, dense_golden=True, threads=n) for n in THREADS
    ]
    first = made[0].arrays
    for other in made[1:]:
        assert list(other.arrays) == list(first)
        assert all(same_bytes(other.arrays[k], v) for k, v in first.items())
    plain_weights = plain_mx_weights(6, sizes, options.mx_weights)
    for name, value in plain_weights.items():
        assert same_bytes(first[name], value), name
    # the MX golden: the weights decoded from the arrays, the kernel's quantization points
    wf = weight_format(options.mx_weights)
    goldens = [mx_golden_for(spec, sizes, options, made[0], threads=n) for n in THREADS]
    assert all(same_bytes(g, goldens[0]) for g in goldens[1:])
    plain = plain_golden(
        first,
        options,
        made[0].active_blocks,
        lambda e: unpack_gate_up_expert(
            first["gate_up_proj_weight"][e], first["gate_up_proj_scale"][e], wf
        ),
        lambda e: unpack_down_expert(
            first["down_proj_weight"][e], first["down_proj_scale"][e], wf, sizes.intermediate
        ),
        lambda x: plain_fake_quantize(x, lanes_first=True),
        lambda x: plain_fake_quantize(x, lanes_first=False),
    )
    assert same_bytes(goldens[0], plain)
    # the fp32 dense golden made with the inputs = drawn again = plain
    fused = [m.extra["dense_golden"] for m in made]
    assert all(isinstance(f, np.ndarray) and same_bytes(f, fused[0]) for f in fused)
    again = make_mx_inputs(spec, sizes, options, seed=6)
    assert "dense_golden" not in again.extra
    redrawn = dense_golden_for(spec, sizes, options, again, threads=2)
    assert same_bytes(redrawn, fused[0])
    assert same_bytes(dense_golden_for(spec, sizes, options, made[1]), fused[0])

    def dense(draw):  # noqa: ANN001, ANN202
        return lambda e: (
            draw(6, e, sizes.hidden, sizes.intermediate)
            .astype(ml_dtypes.bfloat16)
            .astype(np.float32)
        )

    plain_dense = plain_golden(
        first, options, made[0].active_blocks, dense(expert_gate_up), dense(expert_down)
    )
    assert same_bytes(redrawn, plain_dense)


def test_fake_quantize_equals_the_interpreters_quantize_in_the_plain_layout():
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((7, 2048)) * np.exp2(rng.integers(-20, 20, (7, 2048)))).astype(
        np.float32
    )
    assert same_bytes(fake_quantize_hidden(x), plain_fake_quantize(x, lanes_first=True))
    for n in (1024, 1408):  # a partial last 512-row tile
        assert same_bytes(
            fake_quantize_intermediate(x[:, :n]), plain_fake_quantize(x[:, :n], lanes_first=False)
        )


# ------------------------------------------------------------ for_each_expert


def test_for_each_expert_finishes_in_order_with_bounded_work_in_flight():
    lock = threading.Lock()
    running, most = [0], [0]
    blas: list[set[int]] = []

    def work(e: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        blas.append({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"})
        time.sleep(0.02 * ((7 - e) % 3))  # later experts often finish first
        with lock:
            running[0] -= 1
        return e * e

    for threads in (1, 2, 3):
        finished: list[tuple[int, int]] = []
        most[0] = 0
        for_each_expert(work, range(7), lambda e, r, out=finished: out.append((e, r)), threads)
        assert finished == [(e, e * e) for e in range(7)]
        assert 1 <= most[0] <= threads
    assert all(counts <= {1} for counts in blas)  # one BLAS thread per call


def test_for_each_expert_raises_the_first_error_and_checks_its_count():
    def work(e: int) -> int:
        if e == 2:
            raise RuntimeError("expert 2")
        return e

    for threads in (1, 2):
        finished: list[int] = []
        with pytest.raises(RuntimeError, match="expert 2"):
            for_each_expert(work, range(6), lambda e, r, out=finished: out.append(e), threads)
        assert finished == [0, 1]
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="positive integer"):
            reference_threads(bad)  # type: ignore[arg-type]
    assert reference_threads(None) >= 1
