"""Whole layers as JAX 0.10.2 writes them (examples/stablehlo/layer_*.mlir, written by
generate.py there) run at the StableHLO level within 1e-3 * max|JAX| of JAX's own CPU
output (``*.jax-outputs.npz``) for f32 layers. bf16 layers are held to two bf16 ulps of
the largest output (2^-7 * max|JAX|): XLA's CPU backend computes a chain of bf16
elementwise ops in f32 and rounds once at the end, while the StableHLO program (and
mxdsl) rounds every op to bf16 as written. The MXFP8 layers have no JAX output (JAX runs
the block-scaled dot on GPUs only); the cuda custom call and the rocm composite of the
same layer agree bit for bit (K <= 128)."""

from __future__ import annotations

import pathlib
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context, input_value  # pyright: ignore[reportPrivateUsage]

EXAMPLES = pathlib.Path(__file__).parents[2] / "examples" / "stablehlo"
BF16 = np.dtype(ml_dtypes.bfloat16)

WITH_JAX_OUTPUT = sorted(
    p.name[: -len(".jax-outputs.npz")] for p in EXAMPLES.glob("layer_*.jax-outputs.npz")
)
MXFP8 = sorted(p.stem for p in EXAMPLES.glob("layer_*mxfp8*.mlir"))


def run_layer(name: str) -> Any:
    ctx = _context()
    path = EXAMPLES / f"{name}.mlir"
    module, _ = parse_located(ctx, path.read_text(), str(path))
    main = next(
        op for op in module.walk() if getattr(op, "sym_name", None) and op.sym_name.data == "main"
    )
    arg_types = main.function_type.inputs.data
    stored = np.load(EXAMPLES / f"{name}.inputs.npz")
    args = tuple(input_value(stored[f"arg{i}"], t, f"arg{i}") for i, t in enumerate(arg_types))
    (result,) = make_interpreter(module, ctx).call_op("main", args)
    return result


def test_the_corpus_is_there() -> None:
    assert len(WITH_JAX_OUTPUT) >= 12
    assert len(MXFP8) >= 4


@pytest.mark.parametrize("name", WITH_JAX_OUTPUT)
def test_layer_matches_jax(name: str) -> None:
    got = run_layer(name)
    jax_out = np.load(EXAMPLES / f"{name}.jax-outputs.npz")["result0"]
    if got.dtype == BF16:
        jax_out = jax_out.view(BF16)
    assert got.shape == jax_out.shape
    assert got.dtype == jax_out.dtype
    ours, theirs = got.astype(np.float64), jax_out.astype(np.float64)
    scale = np.abs(theirs).max()
    bound = 2.0**-7 if got.dtype == BF16 else 1e-3
    assert np.abs(ours - theirs).max() <= bound * scale


@pytest.mark.parametrize("layer", ["layer_ffn_swiglu_mxfp8"])
def test_mxfp8_custom_call_and_composite_agree(layer: str) -> None:
    cuda, rocm = run_layer(f"{layer}_cuda"), run_layer(f"{layer}_rocm")
    assert cuda.tobytes() == rocm.tobytes()


@pytest.mark.parametrize("name", MXFP8)
def test_mxfp8_layers_run(name: str) -> None:
    out = run_layer(name)
    assert out.dtype == np.float32
    assert np.isfinite(out).all()
    assert np.abs(out).max() > 0.1
