"""mx-run's stablehlo interpreter on the files JAX wrote (examples/stablehlo), checked
against references computed without mxdsl: plain numpy / ml_dtypes dequantization with
an exact float64 dot, and JAX's own CPU run of its MXFP8 quantization."""

from __future__ import annotations

import pathlib
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from xdsl.passes import ModulePass

from mxdsl import remarks
from mxdsl.interpreters import make_interpreter
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
from mxdsl.transforms.import_stablehlo import ImportStableHloPass
from mxdsl.transforms.legalize_quantize_mx import LegalizeQuantizeMXPass
from mxdsl.transforms.legalize_scaled_matmul import LegalizeScaledMatmulPass

EXAMPLES = pathlib.Path(__file__).parents[2] / "examples" / "stablehlo"
F32, BF16 = np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16)
FP8 = {"e4m3fn": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}


def run_file(name: str, inputs: list[np.ndarray], passes: Sequence[ModulePass] = ()) -> Any:
    ctx = _context()
    path = EXAMPLES / f"{name}.mlir"
    module, _ = parse_located(ctx, path.read_text(), str(path))
    for p in passes:
        p.apply(ctx, module)
        module.verify()
    interpreter = make_interpreter(module, ctx)
    (result,) = interpreter.call_op("main", tuple(inputs))
    return result


def load_inputs(name: str, dtypes: list) -> list[np.ndarray]:
    stored = np.load(EXAMPLES / f"{name}.inputs.npz")
    return [stored[f"arg{i}"].view(d) for i, d in enumerate(dtypes)]


def exact_block_dot(lhs, rhs, lhs_scale, rhs_scale, batch: bool, k_tile: int = 512):
    """lhs [B, M, K], rhs [B, N, K] with E8M0 scales per 32 along K: each K tile of 512
    summed exactly (float64 holds these sums exactly), rounded to fp32, tiles added in
    fp32 — docs/numerics.md's PE semantics, written out independently."""

    def values(data, scale):
        factor = np.exp2(scale.view(np.uint8).astype(np.float64) - 127)
        return data.astype(np.float64) * np.repeat(factor, 32, axis=-1)

    a, b = values(lhs, lhs_scale), values(rhs, rhs_scale)
    k = a.shape[-1]
    out = np.zeros((*a.shape[:-1], b.shape[-2]), dtype=np.float32)
    for k0 in range(0, k, k_tile):
        part = np.einsum("bmk,bnk->bmn", a[..., k0 : k0 + k_tile], b[..., k0 : k0 + k_tile])
        out = out + part.astype(np.float32)
    return out


@pytest.mark.parametrize(
    ("name", "fp8", "out"),
    [
        ("scaled_matmul_cuda_e4m3fn_f32", "e4m3fn", F32),
        ("scaled_matmul_rocm_e4m3fn_f32", "e4m3fn", F32),
        ("scaled_matmul_cuda_e5m2_bf16", "e5m2", BF16),
        ("scaled_matmul_rocm_e5m2_bf16", "e5m2", BF16),
        ("scaled_matmul_cuda_e4m3fn_f32_k1024", "e4m3fn", F32),
    ],
)
def test_scaled_matmul_bit_exact(name: str, fp8: str, out: np.dtype) -> None:
    e8m0 = ml_dtypes.float8_e8m0fnu
    inputs = load_inputs(name, [FP8[fp8], FP8[fp8], e8m0, e8m0])
    result = run_file(name, inputs)
    expected = exact_block_dot(*inputs, batch=True).astype(out)
    assert result.dtype == out
    np.testing.assert_array_equal(result.view(np.uint8), expected.view(np.uint8))
    imported = run_file(name, inputs, [ImportStableHloPass(), LegalizeScaledMatmulPass()])
    np.testing.assert_array_equal(imported.view(np.uint8), expected.view(np.uint8))


def test_rocm_composite_runs_its_decomposition() -> None:
    """The composite's decomposition multiplies in bf16 and dots bf16 x bf16 -> f32; for
    these inputs every product is exact in bf16 and K = 64 is one PE pass, so it equals
    the custom call's MX dot bit for bit (and the decomposition really ran: a wrong
    decomposition symbol would fail)."""
    e8m0 = ml_dtypes.float8_e8m0fnu
    name = "scaled_matmul_rocm_e4m3fn_f32"
    text = (EXAMPLES / f"{name}.mlir").read_text()
    assert 'stablehlo.composite "xla.scaled_dot"' in text
    inputs = load_inputs(name, [FP8["e4m3fn"], FP8["e4m3fn"], e8m0, e8m0])
    np.testing.assert_array_equal(run_file(name, inputs), exact_block_dot(*inputs, batch=True))


def test_composite_and_custom_call_for_k_above_128() -> None:
    """JAX's two lowerings of one scaled_matmul with K = 1024 (same inputs): the cuda
    custom call is the MX dot (PE passes of 512 K elements, each exact sum rounded to fp32
    once), the rocm composite runs its decomposition, a bf16 dot_general (passes of 128).
    Each equals its own exact numpy reference, the two differ in the last bits, and
    import-stablehlo maps both onto the same MX dot, saying so for the composite in a
    remark (docs/stablehlo.md, "The composite and the custom call")."""
    e8m0 = ml_dtypes.float8_e8m0fnu
    cuda, rocm = "scaled_matmul_cuda_e4m3fn_f32_k1024", "scaled_matmul_rocm_e4m3fn_f32_k1024"
    inputs = load_inputs(cuda, [FP8["e4m3fn"], FP8["e4m3fn"], e8m0, e8m0])
    same = load_inputs(rocm, [FP8["e4m3fn"], FP8["e4m3fn"], e8m0, e8m0])
    for a, b in zip(inputs, same, strict=True):
        assert a.tobytes() == b.tobytes()
    per_512 = exact_block_dot(*inputs, batch=True, k_tile=512)
    per_128 = exact_block_dot(*inputs, batch=True, k_tile=128)
    differ = per_512 != per_128
    assert 0 < differ.sum() < differ.size  # last-bit differences, in about half the outputs
    assert np.abs(per_512 - per_128).max() <= 1e-5 * np.abs(per_512).max()
    np.testing.assert_array_equal(run_file(cuda, inputs), per_512)
    np.testing.assert_array_equal(run_file(rocm, inputs), per_128)
    notes: list[str] = []
    with remarks.capture(lambda op, severity, message: notes.append(message)):
        imported = run_file(rocm, inputs, [ImportStableHloPass(), LegalizeScaledMatmulPass()])
    np.testing.assert_array_equal(imported, per_512)
    assert len(notes) == 1
    assert "xla.scaled_dot composite (K = 1024)" in notes[0]


@pytest.mark.parametrize(
    ("name", "fp8", "out", "lhs_to_bmk", "rhs_to_bnk"),
    [
        (
            "scaled_dot_general_mxfp8_unbatched_f32",
            "e4m3fn",
            F32,
            lambda x: x[None],
            lambda x: x.T[None],
        ),
        (
            "scaled_dot_general_mxfp8_rocm_f32",
            "e4m3fn",
            F32,
            lambda x: x[None],
            lambda x: x.T[None],
        ),
        (
            "scaled_dot_general_mxfp8_batched_e5m2_bf16",
            "e5m2",
            BF16,
            lambda x: x,
            lambda x: np.swapaxes(x, 1, 2),
        ),
    ],
)
def test_scaled_dot_general_matches_jax_quantization(name, fp8, out, lhs_to_bmk, rhs_to_bnk):
    """JAX's MXFP8 quantization as plain StableHLO ops, run by mx-run: the result is the
    exact dot of what JAX's CPU run quantized to (examples/stablehlo/*.jax.npz), and
    quantizing with numpy the way JAX documents it (round the block scale up) gives the
    same codes."""
    inputs = load_inputs(name, [BF16, BF16])
    jax_q = np.load(EXAMPLES / f"{name}.jax.npz")
    e8m0 = ml_dtypes.float8_e8m0fnu
    lq, ls = jax_q["lhs_q"].view(FP8[fp8]), jax_q["lhs_scales"].view(e8m0)
    rq, rs = jax_q["rhs_q"].view(FP8[fp8]), jax_q["rhs_scales"].view(e8m0)
    expected = exact_block_dot(lq, rq, ls, rs, batch=True).astype(out)
    result = run_file(name, inputs)
    np.testing.assert_array_equal(result.reshape(expected.shape), expected)
    imported = run_file(name, inputs, [ImportStableHloPass(), LegalizeScaledMatmulPass()])
    np.testing.assert_array_equal(imported.reshape(expected.shape), expected)
    # the stored JAX quantization is the inputs' (not some other data)
    lhs = lhs_to_bmk(inputs[0].astype(np.float64))
    assert lq.shape == lhs.shape
    deq = lq.astype(np.float64) * np.repeat(np.exp2(ls.view(np.uint8) - 127.0), 32, axis=-1)
    assert np.max(np.abs(deq - lhs)) <= np.max(np.abs(lhs)) * 2.0**-3
    assert rq.shape == rhs_to_bnk(inputs[1]).shape


@pytest.mark.parametrize(
    ("name", "fp8", "out", "lhs_to_bmk", "rhs_to_bnk"),
    [
        (
            "scaled_dot_general_mxfp8_unbatched_f32",
            "float8_e4m3fn",
            F32,
            lambda x: x[None],
            lambda x: x.T[None],
        ),
        (
            "scaled_dot_general_mxfp8_batched_e5m2_bf16",
            "float8_e5m2",
            BF16,
            lambda x: x,
            lambda x: np.swapaxes(x, 1, 2),
        ),
    ],
)
def test_quantize_opt_in_follows_the_neuron_rule(name, fp8, out, lhs_to_bmk, rhs_to_bnk):
    """import-stablehlo{quantize-mx=true}: the program now quantizes with QuantizeMX, so
    its result is the exact dot of the Neuron EMAX quantization (mxdsl.numerics.reference,
    the spec's algorithm written plainly), not of JAX's; and the E8M0 scales differ
    from JAX's in exactly the blocks the two rules predict (amax significand above 1.75,
    computed here with numpy)."""
    from mxdsl.numerics.reference import quantize_mx_reference

    inputs = load_inputs(name, [BF16, BF16])
    lhs, rhs = lhs_to_bmk(inputs[0]), rhs_to_bnk(inputs[1])
    e8m0 = ml_dtypes.float8_e8m0fnu
    fp8_type = FP8[fp8.split("_")[1]]
    quantized = []
    for x in (lhs, rhs):
        codes, scales = quantize_mx_reference(np.ascontiguousarray(x), fp8, (1, 1, 32))
        quantized.append((codes.view(fp8_type), scales.view(e8m0)))
    (lq, ls), (rq, rs) = quantized
    expected = exact_block_dot(lq, rq, ls, rs, batch=True).astype(out)
    rewritten = ImportStableHloPass(quantize_mx=True)
    result = run_file(name, inputs, [rewritten])
    np.testing.assert_array_equal(result.reshape(expected.shape), expected)
    legalized = run_file(
        name, inputs, [rewritten, LegalizeQuantizeMXPass(), LegalizeScaledMatmulPass()]
    )
    np.testing.assert_array_equal(legalized, result)
    # where JAX's scales differ: amax / fmax rounds up past Neuron's floor(log2 amax) - emax
    jax_q = np.load(EXAMPLES / f"{name}.jax.npz")
    differ = 0
    for x, neuron, key in ((lhs, ls, "lhs_scales"), (rhs, rs, "rhs_scales")):
        amax = np.abs(x.astype(np.float64)).reshape(*x.shape[:-1], -1, 32).max(axis=-1)
        significand = amax / np.exp2(np.floor(np.log2(amax)))
        predicted = significand > 1.75
        jax_bytes = jax_q[key].astype(np.int64)
        neuron_bytes = neuron.view(np.uint8).astype(np.int64)
        np.testing.assert_array_equal(jax_bytes - neuron_bytes, predicted.astype(np.int64))
        differ += int(predicted.sum())
    assert differ > 0  # the inputs exercise the difference
