"""lower-hlo-to-nisa on ``stablehlo.reduce`` add / max / min: over the trailing dims,
over the partition dim and over a middle dim, rank 2 and 3, across 128-row tiles, with a
zero and a nonzero init; the stablehlo, nisa and bir levels give the same bytes
(:func:`three_levels`), and float sums are the exact sum rounded once to the result
type (``exact_reference.exact_row_sums``, fractions), on inputs with NaN, infinities,
signed zeros, subnormals and wide exponent spreads."""

from __future__ import annotations

import numpy as np
import pytest
from exact_reference import exact_row_sums
from test_stablehlo_lowering import DTYPES, program, tensor, three_levels, values


def reduce_program(shape: str, element: str, applies: str, init: str, dims: list[int]) -> str:
    sizes = [int(s) for s in shape.split("x")]
    kept = "x".join(str(s) for d, s in enumerate(sizes) if d not in dims)
    r_type = tensor(kept, element) if kept else f"tensor<{element}>"
    t = tensor(shape, element)
    body = (
        f"  %i = stablehlo.constant dense<{init}> : tensor<{element}>\n"
        f"  %r = stablehlo.reduce(%arg0 init: %i) applies stablehlo.{applies} across "
        f"dimensions = {dims} : ({t}, tensor<{element}>) -> {r_type}"
    )
    return program([t], body, r_type)


def as_rows(a: np.ndarray, dims: list[int]) -> np.ndarray:
    """The reduced elements of each kept position as a row (kept dims row-major)."""
    kept = [d for d in range(a.ndim) if d not in dims]
    moved = np.moveaxis(a, dims, list(range(a.ndim - len(dims), a.ndim)))
    return moved.reshape(int(np.prod([a.shape[d] for d in kept])), -1)


def same(got: np.ndarray, want: np.ndarray) -> None:
    nan = np.isnan(want.astype(np.float64))
    assert (np.isnan(got.astype(np.float64)).ravel() == nan.ravel()).all()
    u = np.uint32 if got.dtype.itemsize == 4 else np.uint16
    assert (got.ravel()[~nan.ravel()].view(u) == want.ravel()[~nan.ravel()].view(u)).all()


@pytest.mark.parametrize(
    ("shape", "element", "init", "dims"),
    [
        ("130x2x32", "f32", "0.000000e+00", [2]),  # the minor dim, rows across 2 tiles
        ("130x2x32", "f32", "5.000000e-01", [1, 2]),  # a nonzero init is a term
        ("130x2x32", "bf16", "-0.000000e+00", [2]),  # rounded once to bf16
        ("130x40", "f32", "0.000000e+00", [0]),  # the partition dim
        ("3x130x5", "f32", "0.000000e+00", [1]),  # a middle dim
        ("300", "f32", "0.000000e+00", [0]),  # a rank-0 result
        ("4x40", "f32", "-1.500000e+00", [0, 1]),  # all dims, an init
    ],
)
def test_float_add(shape: str, element: str, init: str, dims: list[int]) -> None:
    sizes = tuple(int(s) for s in shape.split("x"))
    a = values(element, sizes)
    (r,) = three_levels(reduce_program(shape, element, "add", init, dims), [a])
    rows = as_rows(a, dims)
    rows = np.concatenate([rows, np.full((rows.shape[0], 1), float(init), rows.dtype)], axis=1)
    same(r, exact_row_sums(rows, DTYPES[element]))


def test_cancelling_rows() -> None:
    """x + (-x) + tiny, and spreads no float64 sum holds, rows of 4096 (an RMSNorm's)."""
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((6, 4096)) * np.exp2(rng.integers(-60, 60, (6, 4096)))).astype(
        np.float32
    )
    a[:3, 2048:] = -a[:3, :2048]
    a[0] = 0.0
    a[0, :3] = [2.0**60, 2.0**-100, -(2.0**60)]  # a float64 fold gives 0
    (r,) = three_levels(reduce_program("6x4096", "f32", "add", "0.000000e+00", [1]), [a])
    same(r, exact_row_sums(a, np.dtype(np.float32)))
    assert r[0] == np.float32(2.0**-100)


def test_integer_add_wraps() -> None:
    a = values("si32", (130, 16))
    (r,) = three_levels(reduce_program("130x16", "si32", "add", "0", [1]), [a])
    assert (r == a.astype(np.int64).sum(axis=1).astype(np.int32)).all()


@pytest.mark.parametrize("applies", ["maximum", "minimum"])
def test_max_min_over_the_partition_dim(applies: str) -> None:
    a = values("f32", (130, 40))
    init = "0xFF800000" if applies == "maximum" else "0x7F800000"
    (r,) = three_levels(reduce_program("130x40", "f32", applies, init, [0]), [a])
    fn = np.maximum if applies == "maximum" else np.minimum
    want = fn.reduce(a, axis=0)
    nan = np.isnan(want)
    assert (np.isnan(r) == nan).all()
    assert (r[~nan] == want[~nan]).all()
