"""Write the random-program corpus in ``random/`` with real JAX (run by hand, not in CI).

    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax==0.10.2 jaxlib==0.10.2
    /tmp/jaxenv/bin/python examples/stablehlo/generate_random.py

Every case is a small jitted JAX function of one or two ``[4, 8]`` arrays (or a
reduction / shape op over them), its inputs drawn from a normal distribution mixed with
edge values (+-0, +-inf, NaN, subnormals, the largest finite value, values near a
rounding tie). For case ``NNN``: ``random/NNN.mlir`` (``as_text()`` of the lowering for the
CPU), and in ``random/cases.npz`` its inputs ``NNN.arg0``, ... and JAX's CPU output
``NNN.result`` (bf16 / fp8 as bit patterns); ``random/manifest.json`` lists each case's
op, element type and whether StableHLO fixes its result bits (``exact``).
``test/stablehlo/test_random_corpus.py`` reads the files; it never runs JAX.
"""

from __future__ import annotations

import json
import pathlib

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

HERE = pathlib.Path(__file__).parent / "random"
SHAPE = (4, 8)
CASES_PER_OP = 6

EXACT_UNARY = {
    "abs": jnp.abs,
    "negate": jnp.negative,
    "sqrt": jnp.sqrt,
    "floor": jnp.floor,
    "ceil": jnp.ceil,
    "round_nearest_even": lax.round_nearest_even if hasattr(lax, "round_nearest_even") else jnp.round,
    "sign": jnp.sign,
}
EXACT_BINARY = {
    "add": jnp.add,
    "subtract": jnp.subtract,
    "multiply": jnp.multiply,
    "divide": jnp.divide,
    "maximum": jnp.maximum,
    "minimum": jnp.minimum,
    "remainder": lax.rem,
    "select_gt": lambda a, b: jnp.where(a > b, a, b),
    "compare_lt": lambda a, b: (a < b).astype(a.dtype),
}
EXACT_OTHER = {
    "reduce_max": lambda a: jnp.max(a, axis=-1),
    "reduce_min": lambda a: jnp.min(a, axis=0),
    "transpose": lambda a: a.T,
    "clamp": lambda a: jnp.clip(a, -1.5, 2.25),
}
APPROX_UNARY = {
    "exponential": jnp.exp,
    "exponential_minus_one": jnp.expm1,
    "log": jnp.log,
    "log_plus_one": jnp.log1p,
    "logistic": jax.nn.sigmoid,
    "tanh": jnp.tanh,
    "rsqrt": lax.rsqrt,
    "erf": jax.scipy.special.erf,
    "erfc": jax.scipy.special.erfc,
    "silu": jax.nn.silu,
    "gelu_tanh": lambda a: jax.nn.gelu(a, approximate=True),
    "softmax": lambda a: jax.nn.softmax(a, axis=-1),
    "reduce_add": lambda a: jnp.sum(a, axis=-1),
}
FLOAT_TYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}


def _edges(dtype) -> np.ndarray:
    info = ml_dtypes.finfo(dtype)
    tiny = float(info.smallest_subnormal)
    return np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, float(info.max), -float(info.max), tiny, -tiny,
         3 * tiny, float(info.smallest_normal), 1.0, -1.0, 0.5, 2.5, -2.5],
        np.float64,
    )


def _operand(rng: np.random.Generator, dtype, edges: bool, positive: bool = False) -> np.ndarray:
    x = rng.standard_normal(SHAPE) * 3
    if edges:
        picks = _edges(dtype)
        mask = rng.random(SHAPE) < 0.4
        x = np.where(mask, picks[rng.integers(0, picks.size, SHAPE)], x)
    if positive:
        x = np.abs(x)
    return x.astype(dtype)


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype == np.dtype(ml_dtypes.bfloat16):
        return a.view(np.uint16)
    if a.dtype in (np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)):
        return a.view(np.uint8)
    return a


def cases():
    rng = np.random.default_rng(36)
    for table, arity, exact in (
        (EXACT_UNARY, 1, True),
        (EXACT_BINARY, 2, True),
        (EXACT_OTHER, 1, True),
        (APPROX_UNARY, 1, False),
    ):
        for op, fn in table.items():
            for index in range(CASES_PER_OP):
                type_name = list(FLOAT_TYPES)[index % len(FLOAT_TYPES)]
                dtype = FLOAT_TYPES[type_name]
                edges = index >= len(FLOAT_TYPES)
                positive = op in ("sqrt", "log", "rsqrt") and not edges
                args = tuple(_operand(rng, dtype, edges, positive) for _ in range(arity))
                yield op, type_name, exact, fn, args
    # XLA converts i32 -> bf16 through f32 (two roundings): a known departure
    for index in range(3):
        x = rng.integers(-(2**31), 2**31, SHAPE, dtype=np.int64).astype(np.int32)
        x[0, :4] = [2**24 + 2**16 + 1, -(2**24 + 2**16 + 1), 2**25 + 2**17 + 3, 7]
        yield "convert_i32_bf16", "i32", True, lambda a: a.astype(jnp.bfloat16), (x,)
    for type_name in ("bf16", "f16"):
        x = _operand(rng, np.float32, True)
        dtype = FLOAT_TYPES[type_name]
        yield f"convert_f32_{type_name}", "f32", True, lambda a, d=dtype: a.astype(d), (x,)
    # the fp8 types: maximum / minimum with signed zeros, and converts into them
    for type_name, dtype in (("f8E4M3FN", ml_dtypes.float8_e4m3fn), ("f8E5M2", ml_dtypes.float8_e5m2)):
        for op in ("maximum", "minimum"):
            a, b = (rng.choice([0.0, -0.0, 1.5, -2.0, 0.25], SHAPE).astype(dtype) for _ in range(2))
            yield op, type_name, True, EXACT_BINARY[op], (a, b)
        x = (rng.standard_normal(SHAPE) * 8).astype(np.float32)
        yield f"convert_f32_{type_name}", "f32", True, lambda a, d=dtype: a.astype(d), (x,)


def main() -> None:
    HERE.mkdir(exist_ok=True)
    arrays: dict[str, np.ndarray] = {}
    manifest = []
    for number, (op, type_name, exact, fn, args) in enumerate(cases()):
        key = f"{number:03d}"
        lowered = jax.jit(fn).trace(*args).lower(lowering_platforms=("cpu",))
        (HERE / f"{key}.mlir").write_text(lowered.as_text())
        for i, a in enumerate(args):
            arrays[f"{key}.arg{i}"] = _bits(a)
        arrays[f"{key}.result"] = _bits(np.asarray(jax.jit(fn)(*args)))
        manifest.append({"case": key, "op": op, "type": type_name, "exact": exact})
    np.savez_compressed(HERE / "cases.npz", **arrays)
    (HERE / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest)} cases; jax {jax.__version__}")


if __name__ == "__main__":
    main()
