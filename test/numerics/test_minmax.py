"""IEEE 754 maximum / minimum (mxdsl.numerics.minmax) against a reference written from
the standard's definition with integer keys: NaN if either operand is NaN, otherwise the
operand larger (smaller) in the order where -0 < +0. Exhaustive over every pair of fp8
values; all pairs of edge values plus random pairs for f16, bf16 and f32."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics import minmax

UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def order_key(x: np.ndarray) -> np.ndarray:
    """Sign-magnitude bits -> an integer order where -0 sits just below +0."""
    bits = x.view(UINT[x.dtype.itemsize]).astype(np.int64)
    top = 1 << (8 * x.dtype.itemsize - 1)
    return np.where(bits & top, -(bits & (top - 1)) - 1, bits)


def reference(a: np.ndarray, b: np.ndarray, largest: bool) -> np.ndarray:
    ka, kb = order_key(a), order_key(b)
    pick_a = ka >= kb if largest else ka <= kb
    out = np.where(pick_a, a, b)
    nan = np.isnan(a.astype(np.float32)) | np.isnan(b.astype(np.float32))
    return np.where(nan, np.array(np.nan, a.dtype), out)


def same(x: np.ndarray, y: np.ndarray) -> bool:
    """Equal bits, NaNs counting as equal whatever their payload."""
    nx, ny = np.isnan(x.astype(np.float32)), np.isnan(y.astype(np.float32))
    u = UINT[x.dtype.itemsize]
    return bool((nx == ny).all() and (x.view(u)[~nx] == y.view(u)[~ny]).all())


FP8 = [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]


@pytest.mark.parametrize("dtype", FP8)
def test_every_fp8_pair(dtype) -> None:
    codes = np.arange(256, dtype=np.uint8).view(dtype)
    a, b = (g.ravel() for g in np.meshgrid(codes, codes))
    assert same(minmax.maximum(a, b), reference(a, b, True))
    assert same(minmax.minimum(a, b), reference(a, b, False))


def _edges(dtype) -> np.ndarray:
    info = ml_dtypes.finfo(dtype)
    values = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, float(info.max), -float(info.max)]
    values += [float(info.smallest_subnormal), -float(info.smallest_subnormal)]
    return np.array(values, np.float64).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32])
def test_edge_and_random_pairs(dtype) -> None:
    edges = _edges(dtype)
    pairs = np.array(list(itertools.product(range(edges.size), repeat=2)))
    a, b = edges[pairs[:, 0]], edges[pairs[:, 1]]
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2 ** (8 * np.dtype(dtype).itemsize), (2, 20000), dtype=np.uint64)
    rand = bits.astype(UINT[np.dtype(dtype).itemsize]).view(dtype)
    a, b = np.concatenate([a, rand[0]]), np.concatenate([b, rand[1]])
    assert same(minmax.maximum(a, b), reference(a, b, True))
    assert same(minmax.minimum(a, b), reference(a, b, False))


def test_signed_zeros_by_hand() -> None:
    pz, nz = np.float32(0.0), np.float32(-0.0)
    for x, y in ((pz, nz), (nz, pz)):
        assert not np.signbit(minmax.maximum(x, y))
        assert np.signbit(minmax.minimum(x, y))
    assert np.signbit(minmax.maximum(nz, nz))
    assert not np.signbit(minmax.minimum(pz, pz))
    assert minmax.maximum(np.int32(3), np.int32(-4)) == 3  # integers: plain max


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, *FP8])
def test_reductions_fold_the_pairwise_rule(dtype) -> None:
    rng = np.random.default_rng(5)
    pool = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.0], np.float64).astype(dtype)
    x = pool[rng.integers(0, pool.size, (500, 3))]
    x[7, 1] = np.nan
    for largest, reduce in ((True, minmax.reduce_maximum), (False, minmax.reduce_minimum)):
        folded = reference(reference(x[:, 0], x[:, 1], largest), x[:, 2], largest)
        assert same(reduce(x, (1,)), folded)
