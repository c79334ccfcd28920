"""Write the StableHLO files in this directory with real JAX (run by hand, not in CI).

    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax jaxlib
    /tmp/jaxenv/bin/python examples/stablehlo/generate.py

For every case: ``NAME.mlir``, the text of ``jax.jit(f).trace(...).lower(
lowering_platforms=(PLATFORM,)).as_text()`` as JAX wrote it (``cuda`` gives the
``__op$block_scaled_dot`` custom call, ``rocm`` the ``xla.scaled_dot`` composite; lowering
for either works on a CPU-only host); ``NAME.inputs.npz``, seeded inputs in mx-run's
convention (``arg0``, ...; fp8 / E8M0 / bf16 as uint8 / uint16 bit patterns); for the
``scaled_matmul`` cases ``NAME.packed-inputs.npz``, the same with the FP8 operands packed
four per little-endian ui32 along K (for ``import-stablehlo{packed-arguments=true}``); and
for the ``scaled_dot_general`` cases ``NAME.jax.npz``, JAX's own MXFP8 quantization of
those inputs computed on this host's CPU (``lhs_q``, ``lhs_scales``, ``rhs_q``,
``rhs_scales`` as uint8 bit patterns, over the (B, M, K) / (B, N, K) operands of the
block-scaled dot), an independent reference for mx-run. (JAX cannot run the block-scaled
dot itself on a CPU: ``scaled_matmul`` has no CPU lowering.)
``versions.txt`` records the JAX version that wrote them.
"""

from __future__ import annotations

import dataclasses
import pathlib

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

HERE = pathlib.Path(__file__).parent
RNG_SEED = 18


def _bits(array: np.ndarray) -> np.ndarray:
    """mx-run's .npz convention: narrow floats as their bit patterns."""
    if (
        array.dtype.itemsize == 1
        and array.dtype.kind == "V"
        or array.dtype
        in (
            np.dtype(ml_dtypes.float8_e4m3fn),
            np.dtype(ml_dtypes.float8_e5m2),
            np.dtype(ml_dtypes.float8_e8m0fnu),
        )
    ):
        return array.view(np.uint8)
    if array.dtype == np.dtype(ml_dtypes.bfloat16):
        return array.view(np.uint16)
    return array


def _fp8(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    return (rng.standard_normal(shape) * 4).astype(dtype)


def _scales(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.integers(122, 133, size=shape, dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu)


def scaled_matmul_case(b: int, m: int, n: int, k: int, dtype: type, out: type, seed: int):
    def f(lhs, rhs, lhs_scales, rhs_scales):
        return jax.nn.scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=out)

    rng = np.random.default_rng(seed)
    args = (
        _fp8(rng, (b, m, k), dtype),
        _fp8(rng, (b, n, k), dtype),
        _scales(rng, (b, m, k // 32)),
        _scales(rng, (b, n, k // 32)),
    )
    return f, args, None


def jax_quantized(lhs, rhs, dimension_numbers, dtype) -> dict[str, np.ndarray]:
    """JAX's CPU run of the quantization scaled_dot_general applies to each side."""
    from jax._src.cudnn import scaled_matmul_stablehlo as sm

    config = dataclasses.replace(jax.nn.get_scaled_dot_general_config("mxfp8"), data_type=dtype)
    (lhs_c, rhs_c), (lhs_b, rhs_b) = dimension_numbers
    out = {}
    for side, x, dn in (("lhs", lhs, (lhs_c, lhs_b)), ("rhs", rhs, (rhs_c, rhs_b))):
        q, s = jax.jit(lambda v, dn=dn: sm.quantize(sm.shape_normalization(v, dn), config))(x)
        out[f"{side}_q"] = _bits(np.asarray(q))
        out[f"{side}_scales"] = _bits(np.asarray(s))
    return out


def scaled_dot_general_case(
    lhs_shape: tuple[int, ...],
    rhs_shape: tuple[int, ...],
    dimension_numbers,
    dtype: type,
    out: type,
    seed: int,
):
    config = dataclasses.replace(jax.nn.get_scaled_dot_general_config("mxfp8"), data_type=dtype)

    def f(lhs, rhs):
        return jax.nn.scaled_dot_general(
            lhs, rhs, dimension_numbers, preferred_element_type=out, configs=[config] * 3
        )

    rng = np.random.default_rng(seed)
    args = (
        rng.standard_normal(lhs_shape).astype(ml_dtypes.bfloat16),
        rng.standard_normal(rhs_shape).astype(ml_dtypes.bfloat16),
    )
    return f, args, jax_quantized(*args, dimension_numbers, dtype)


E4M3, E5M2 = jnp.float8_e4m3fn, jnp.float8_e5m2
UNBATCHED = (((1,), (0,)), ((), ()))
BATCHED = (((2,), (1,)), ((0,), (0,)))

CASES = {
    # name: (platform, (f, args))
    "scaled_matmul_cuda_e4m3fn_f32": (
        "cuda",
        scaled_matmul_case(1, 4, 8, 64, E4M3, jnp.float32, 1),
    ),
    "scaled_matmul_rocm_e4m3fn_f32": (
        "rocm",
        scaled_matmul_case(1, 4, 8, 64, E4M3, jnp.float32, 1),
    ),
    "scaled_matmul_cuda_e5m2_bf16": (
        "cuda",
        scaled_matmul_case(2, 16, 8, 128, E5M2, jnp.bfloat16, 2),
    ),
    "scaled_matmul_rocm_e5m2_bf16": (
        "rocm",
        scaled_matmul_case(2, 16, 8, 128, E5M2, jnp.bfloat16, 2),
    ),
    "scaled_matmul_cuda_e4m3fn_f32_k1024": (
        "cuda",
        scaled_matmul_case(1, 16, 8, 1024, E4M3, jnp.float32, 3),
    ),
    # the same inputs as the cuda K = 1024 file: JAX's composite against its custom call
    "scaled_matmul_rocm_e4m3fn_f32_k1024": (
        "rocm",
        scaled_matmul_case(1, 16, 8, 1024, E4M3, jnp.float32, 3),
    ),
    "scaled_dot_general_mxfp8_unbatched_f32": (
        "cuda",
        scaled_dot_general_case((4, 64), (64, 8), UNBATCHED, E4M3, jnp.float32, 4),
    ),
    "scaled_dot_general_mxfp8_batched_e5m2_bf16": (
        "cuda",
        scaled_dot_general_case((2, 8, 64), (2, 64, 16), BATCHED, E5M2, jnp.bfloat16, 5),
    ),
    "scaled_dot_general_mxfp8_rocm_f32": (
        "rocm",
        scaled_dot_general_case((4, 64), (64, 8), UNBATCHED, E4M3, jnp.float32, 4),
    ),
}


# ------------------------------------------------------------------ whole layers

T, HIDDEN, INTER = 8, 32, 64  # tokens, hidden, intermediate (multiples of 32: MXFP8)
SEQ, HEAD_DIM, HEADS = 16, 32, 4


def _normal(rng: np.random.Generator, shape: tuple[int, ...], scale: float, dtype) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _mx_dot(a, b):
    """``a @ b`` as jax.nn.scaled_dot_general with the MXFP8 config (e4m3fn, f32 out)."""
    config = jax.nn.get_scaled_dot_general_config("mxfp8")
    dims = (((a.ndim - 1,), (0,)), ((), ()))
    return jax.nn.scaled_dot_general(
        a, b, dims, preferred_element_type=jnp.float32, configs=[config] * 3
    )


def _plain_dot(a, b):
    return a @ b


ACTIVATIONS = {
    "swiglu": lambda g, u: jax.nn.silu(g) * u,
    "geglu_exact": lambda g, u: jax.nn.gelu(g, approximate=False) * u,
    "geglu_tanh": lambda g, u: jax.nn.gelu(g, approximate=True) * u,
}


def ffn_layer(kind: str, mx: bool):
    """A feed-forward layer ``[T, H] -> [T, H]``: gated (SwiGLU / GeGLU: act(x W1) *
    (x W3), then W2) or ReLU (relu(x W1) W2); plain dots, or MXFP8 scaled dots."""
    dot = _mx_dot if mx else _plain_dot
    if kind == "relu":
        return lambda x, w1, w2: dot(jax.nn.relu(dot(x, w1)), w2)
    act = ACTIVATIONS[kind]

    def f(x, w1, w3, w2):
        return dot(act(dot(x, w1), dot(x, w3)), w2)

    return f


def ffn_case(kind: str, dtype, mx: bool, seed: int):
    """:func:`ffn_layer` at T, HIDDEN, INTER with seeded inputs (x ~ N(0, 1), weights
    ~ N(0, 1 / fan-in))."""
    rng = np.random.default_rng(seed)
    x = _normal(rng, (T, HIDDEN), 1.0, dtype)
    w1 = _normal(rng, (HIDDEN, INTER), HIDDEN**-0.5, dtype)
    w2 = _normal(rng, (INTER, HIDDEN), INTER**-0.5, dtype)
    if kind == "relu":
        return ffn_layer(kind, mx), (x, w1, w2), None
    w3 = _normal(rng, (HIDDEN, INTER), HIDDEN**-0.5, dtype)
    return ffn_layer(kind, mx), (x, w1, w3, w2), None


LLAMA_FFN = "llama_ffn_swiglu_mxfp8_cuda"
LLAMA_T, LLAMA_H, LLAMA_I = 512, 4096, 14336


def write_llama_ffn() -> None:
    """The SwiGLU MXFP8 FFN at Llama-class sizes (T = 512, H = 4096, I = 14336): the
    program text only (its f32 inputs would be 700 MB; ``benchmarks/ffn_layer.py`` draws
    them with the same distributions as :func:`ffn_case`)."""
    shapes = ((LLAMA_T, LLAMA_H), (LLAMA_H, LLAMA_I), (LLAMA_H, LLAMA_I), (LLAMA_I, LLAMA_H))
    args = [jax.ShapeDtypeStruct(shape, jnp.float32) for shape in shapes]
    lowered = jax.jit(ffn_layer("swiglu", True)).trace(*args).lower(lowering_platforms=("cuda",))
    (HERE / f"{LLAMA_FFN}.mlir").write_text(lowered.as_text())
    print(f"{LLAMA_FFN}: cuda")


def rmsnorm_case(dtype, seed: int):
    rng = np.random.default_rng(seed)
    x = _normal(rng, (T, HIDDEN), 2.0, dtype)
    g = _normal(rng, (HIDDEN,), 1.0, dtype)

    def f(x, g):
        return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g

    return f, (x, g), None


def layernorm_case(dtype, seed: int):
    rng = np.random.default_rng(seed)
    x = _normal(rng, (T, HIDDEN), 2.0, dtype) + 0.5
    g = _normal(rng, (HIDDEN,), 1.0, dtype)
    b = _normal(rng, (HIDDEN,), 1.0, dtype)

    def f(x, g, b):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
        return (x - mean) / jnp.sqrt(var + 1e-5) * g + b

    return f, (x, g, b), None


def _causal_softmax(s):
    n = s.shape[-1]
    mask = jnp.arange(n)[:, None] >= jnp.arange(n)[None, :]  # iota, compare
    return jax.nn.softmax(jnp.where(mask, s, -jnp.inf), axis=-1)  # select with -inf


def attention_case(heads: int, dtype, seed: int):
    """Causal attention; one head ``[S, D]`` or multi-head ``[heads, S, D]`` (batched
    dot_general through einsum)."""
    rng = np.random.default_rng(seed)
    shape = (SEQ, HEAD_DIM) if heads == 1 else (heads, SEQ, HEAD_DIM)
    q, k, v = (_normal(rng, shape, 1.0, dtype) for _ in range(3))

    def f(q, k, v):
        if heads == 1:
            s = (q @ k.T) * (HEAD_DIM**-0.5)
            return _causal_softmax(s) @ v
        s = jnp.einsum("hsd,htd->hst", q, k) * (HEAD_DIM**-0.5)
        return jnp.einsum("hst,htd->hsd", _causal_softmax(s), v)

    return f, (q, k, v), None


def masked_softmax_case(seed: int):
    """``jax.nn.softmax(s + mask)`` with a constant ``-inf`` mask (JAX writes it as hex
    float literals)."""
    rng = np.random.default_rng(seed)
    s = _normal(rng, (4, 8), 2.0, np.float32)
    mask = np.where(np.arange(8) % 3 == 2, -np.inf, 0.0).astype(np.float32)
    return (lambda s: jax.nn.softmax(s + jnp.asarray(mask), axis=-1)), (s,), None


F32, BF16 = np.float32, ml_dtypes.bfloat16

LAYERS = {
    # name: (platform, (f, args, None)); JAX's CPU output is saved for the ones without
    # a block-scaled dot (NAME.jax-outputs.npz: result0, ...)
    "layer_ffn_swiglu_f32": ("cuda", ffn_case("swiglu", F32, False, 20)),
    "layer_ffn_swiglu_bf16": ("cuda", ffn_case("swiglu", BF16, False, 21)),
    "layer_ffn_geglu_exact_f32": ("cuda", ffn_case("geglu_exact", F32, False, 22)),
    "layer_ffn_geglu_tanh_f32": ("cuda", ffn_case("geglu_tanh", F32, False, 23)),
    "layer_ffn_relu_f32": ("cuda", ffn_case("relu", F32, False, 24)),
    "layer_ffn_swiglu_mxfp8_cuda": ("cuda", ffn_case("swiglu", F32, True, 25)),
    "layer_ffn_swiglu_mxfp8_rocm": ("rocm", ffn_case("swiglu", F32, True, 25)),
    "layer_ffn_geglu_exact_mxfp8_cuda": ("cuda", ffn_case("geglu_exact", F32, True, 26)),
    "layer_ffn_relu_mxfp8_cuda": ("cuda", ffn_case("relu", F32, True, 27)),
    "layer_rmsnorm_f32": ("cuda", rmsnorm_case(F32, 30)),
    "layer_rmsnorm_bf16": ("cuda", rmsnorm_case(BF16, 31)),
    "layer_layernorm_f32": ("cuda", layernorm_case(F32, 32)),
    "layer_attention_causal_1head_f32": ("cuda", attention_case(1, F32, 40)),
    "layer_attention_causal_mha_f32": ("cuda", attention_case(HEADS, F32, 41)),
    "layer_attention_causal_mha_bf16": ("cuda", attention_case(HEADS, BF16, 42)),
    "layer_softmax_masked_f32": ("cuda", masked_softmax_case(50)),
}


def write_layers() -> None:
    for name, (platform, (f, args, _)) in LAYERS.items():
        lowered = jax.jit(f).trace(*args).lower(lowering_platforms=(platform,))
        (HERE / f"{name}.mlir").write_text(lowered.as_text())
        np.savez(HERE / f"{name}.inputs.npz", **{f"arg{i}": _bits(a) for i, a in enumerate(args)})
        if "mxfp8" not in name:  # JAX runs the block-scaled dot on GPUs only
            out = jax.jit(f)(*args)
            outs = out if isinstance(out, tuple) else (out,)
            np.savez(
                HERE / f"{name}.jax-outputs.npz",
                **{f"result{i}": _bits(np.asarray(o)) for i, o in enumerate(outs)},
            )
        print(f"{name}: {platform}")


def main() -> None:
    write_layers()
    write_llama_ffn()
    for name, (platform, (f, args, quantized)) in CASES.items():
        lowered = jax.jit(f).trace(*args).lower(lowering_platforms=(platform,))
        (HERE / f"{name}.mlir").write_text(lowered.as_text())
        np.savez(HERE / f"{name}.inputs.npz", **{f"arg{i}": _bits(a) for i, a in enumerate(args)})
        if name.startswith("scaled_matmul"):
            # the same inputs with the FP8 operands as ui32 words, 4 codes per word along K
            # (little-endian, element 4k + j in byte j): for import-stablehlo{packed-arguments}
            packed = {f"arg{i}": _bits(a) for i, a in enumerate(args)}
            for key in ("arg0", "arg1"):
                packed[key] = np.ascontiguousarray(packed[key]).view("<u4")
            np.savez(HERE / f"{name}.packed-inputs.npz", **packed)
        if quantized is not None:
            np.savez(HERE / f"{name}.jax.npz", **quantized)
        print(f"{name}: {platform}")
    (HERE / "versions.txt").write_text(
        f"jax {jax.__version__}\njaxlib {jax.lib.__version__}\nml_dtypes {ml_dtypes.__version__}\n"
        f"numpy {np.__version__}\nCPU backend: {jax.default_backend()}\n"
    )


if __name__ == "__main__":
    main()
