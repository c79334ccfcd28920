"""The lowerings whose work scales with tiles, not rows (lit:
test/transforms/lower-hlo-to-nisa-tiles.mlir): a K-minor matmul operand loaded through a
``nisa.permute`` view (one strided DMA per tile), a transpose as strided DMAs per tile,
a broadcast by doubling DMAs, and a reduce over short rows with several rows per
partition. Each runs at the stablehlo, nisa and bir levels with the same bytes
(:func:`three_levels`) and equals an independent numpy / fractions reference, on
adversarial inputs: NaN and infinities, signed zeros, exponents spread over 2^+-60 and
sums that cancel."""

from __future__ import annotations

import numpy as np
import pytest
from exact_reference import exact_row_sums, k_tiled
from test_reduce_lowering import reduce_program, same
from test_stablehlo_lowering import DTYPES, program, tensor, three_levels, values

RNG = np.random.default_rng(36)


def spread(shape: tuple[int, ...], low: int = -60, high: int = 60) -> np.ndarray:
    """Normal values scaled by 2^[low, high): a wide exponent spread, all finite."""
    n = int(np.prod(shape))
    x = RNG.standard_normal(n) * np.exp2(RNG.integers(low, high, n))
    return x.astype(np.float32).reshape(shape)


def dot_program(lhs: str, rhs: str, contract: tuple[int, int], result: str) -> str:
    body = (
        f"  %r = stablehlo.dot_general %arg0, %arg1, contracting_dims = [{contract[0]}] x "
        f"[{contract[1]}] : ({lhs}, {rhs}) -> {result}"
    )
    return program([lhs, rhs], body, result)


@pytest.mark.parametrize("rhs_k_minor", [False, True])
def test_k_minor_operands(rhs_k_minor: bool) -> None:
    """``x @ W`` with x [M, K] (K-minor: its tiles load transposed) across two M tiles
    and two K tiles; with W given as [N, K] the moving side is K-minor too. Products
    spread over 2^+-40 and a column of x that cancels within each K tile."""
    m, k, n = 130, 160, 6
    x = spread((m, k), -20, 20)
    x[:, 64:128] = -x[:, 0:64]  # with equal W rows the first pass cancels to 0
    w = spread((k, n), -20, 20)
    w[64:128] = w[0:64]
    w[5, 0] = 2.0**-100  # a tiny product the cancellation leaves
    expected = k_tiled(x.astype(np.float64), w.astype(np.float64), 128)
    if rhs_k_minor:
        src = dot_program(
            tensor(f"{m}x{k}", "f32"), tensor(f"{n}x{k}", "f32"), (1, 1), tensor(f"{m}x{n}", "f32")
        )
        (r,) = three_levels(src, [x, np.ascontiguousarray(w.T)])
    else:
        src = dot_program(
            tensor(f"{m}x{k}", "f32"), tensor(f"{k}x{n}", "f32"), (1, 0), tensor(f"{m}x{n}", "f32")
        )
        (r,) = three_levels(src, [x, w])
    assert r.tobytes() == expected.astype(np.float32).tobytes()


@pytest.mark.parametrize(
    ("shape", "perm", "element"),
    [
        ((300, 600), (1, 0), "f32"),  # 128 x 512 tiles and partial ones
        ((130, 3, 600), (2, 0, 1), "f32"),  # a loop over the outer result dim
        ((4, 70, 33), (0, 2, 1), "bf16"),  # per head, as attention's k^T
    ],
)
def test_transpose(shape: tuple[int, ...], perm: tuple[int, ...], element: str) -> None:
    a = values(element, shape)  # NaN, infinities, -0: moved as bits
    out = tuple(shape[d] for d in perm)
    t_in, t_out = (
        tensor("x".join(map(str, shape)), element),
        tensor("x".join(map(str, out)), element),
    )
    body = f"  %r = stablehlo.transpose %arg0, dims = {list(perm)} : ({t_in}) -> {t_out}"
    (r,) = three_levels(program([t_in], body, t_out), [a])
    assert r.tobytes() == np.ascontiguousarray(np.transpose(a, perm)).tobytes()


@pytest.mark.parametrize(
    ("shape", "dims", "out"),
    [
        ((200, 1), (0, 1), (200, 48)),  # a per-row value along the free axis
        ((5,), (1,), (3, 5, 70)),  # two broadcast dims, one before and one after
        ((2, 1, 1, 1), (0, 1, 2, 3), (2, 8, 1, 32)),  # the MX block broadcast
    ],
)
def test_broadcast(shape: tuple[int, ...], dims: tuple[int, ...], out: tuple[int, ...]) -> None:
    a = values("f32", shape)
    t_in = tensor("x".join(map(str, shape)), "f32")
    t_out = tensor("x".join(map(str, out)), "f32")
    body = f"  %r = stablehlo.broadcast_in_dim %arg0, dims = {list(dims)} : ({t_in}) -> {t_out}"
    (r,) = three_levels(program([t_in], body, t_out), [a])
    expanded = a.reshape([shape[dims.index(d)] if d in dims else 1 for d in range(len(out))])
    assert r.tobytes() == np.ascontiguousarray(np.broadcast_to(expanded, out)).tobytes()


@pytest.mark.parametrize(
    ("shape", "element"),
    [
        ("1x256x4x32", "f32"),  # 1024 rows of an MX block: 8 per partition
        ("393x32", "f32"),  # 3 rows per partition, a partial tile of 3 lines
        ("512x16", "bf16"),
    ],
)
def test_short_rows_max(shape: str, element: str) -> None:
    sizes = tuple(int(s) for s in shape.split("x"))
    a = values(element, sizes)  # NaN, +-inf, +-0 among the values
    dims = [len(sizes) - 1]
    (r,) = three_levels(
        reduce_program(
            shape, element, "maximum", "0xFF800000" if element == "f32" else "0xFF80", dims
        ),
        [a],
    )
    wide = a.astype(np.float32).reshape(-1, sizes[-1])
    nan = np.isnan(wide).any(axis=1)
    want = np.where(nan, np.nan, np.max(np.where(np.isnan(wide), -np.inf, wide), axis=1))
    same(r, want.astype(DTYPES[element]).reshape(r.shape))


@pytest.mark.parametrize("element", ["f32", "bf16"])
def test_short_rows_exact_sums(element: str) -> None:
    """Sums of 32-element rows, 16 rows per partition: exponents over 2^+-60 and rows
    that cancel to what a float64 fold loses."""
    a = spread((2048, 32))
    a[::2, 16:] = -a[::2, :16]  # even rows cancel exactly
    a[0, :3] = [2.0**60, 2.0**-100, -(2.0**60)]
    a[0, 3:] = 0.0
    a = a.astype(DTYPES[element])
    (r,) = three_levels(reduce_program("2048x32", element, "add", "0.000000e+00", [1]), [a])
    same(r, exact_row_sums(a, DTYPES[element]))
    if element == "f32":
        assert r[0] == np.float32(2.0**-100)
