"""lower-hlo-to-nisa on what JAX's attention is made of: ``stablehlo.iota``, constants
with special values (``-inf``, NaN, signed zeros; splat and not), a converted splat,
the causal mask (iota / compare / select) and ``dot_general`` with batch dims, merged
free dims and vector operands. The stablehlo, nisa and bir levels give the same bytes
(:func:`three_levels`); the values are checked against numpy (``arange``, bit patterns
of IEEE-754 / bfloat16 written as integers, ``np.where``, float64 matmuls)."""

from __future__ import annotations

import numpy as np
import pytest
from test_stablehlo_lowering import program, three_levels

F32_NEG_INF, F32_NAN_PAYLOAD, BF16_NEG_INF = 0xFF800000, 0x7FC00001, 0xFF80


@pytest.mark.parametrize(
    ("shape", "dim", "element"),
    [
        ("300", 0, "i32"),  # across partitions of one row, a partial free chunk
        ("5000", 0, "i32"),  # two free chunks of 4096
        ("3x200x5", 1, "f32"),  # a middle dim: over partitions, two chunks of 128
        ("2x7x300", 2, "bf16"),  # the last dim, rounded to bf16 (257 -> 256, 259 -> 260)
        ("4x3", 0, "i8"),
        ("130x600", 0, "ui16"),  # a partial partition chunk, free chunks of 512
    ],
)
def test_iota(shape: str, dim: int, element: str) -> None:
    sizes = tuple(int(s) for s in shape.split("x"))
    t = f"tensor<{shape}x{element}>"
    src = program([], f"  %r = stablehlo.iota dim = {dim} : {t}", t)
    (r,) = three_levels(src, [])
    index = np.arange(sizes[dim]).reshape([-1 if d == dim else 1 for d in range(len(sizes))])
    want = np.broadcast_to(index, sizes)
    if element == "bf16":  # 8 significant bits: ties to even above 256
        assert list(r.astype(np.float64)[0, 0, 256:260]) == [256, 256, 258, 260]
        assert (np.abs(r.astype(np.float64) - want) <= want / 256).all()
    else:
        assert (r.astype(np.int64) == want).all()


def test_special_constants() -> None:
    """Splats of -inf (f32, bf16), a NaN with a payload, -0, and a literal mixing them
    with ordinary values: the bit patterns as written."""
    f, b = "tensor<4x8xf32>", "tensor<3x5xbf16>"
    results = f"{f}, {b}, {f}, tensor<2x8xf32>, {f}, tensor<6xbf16>"
    row = "[0.0, 0x7FC00000, 0x7F800000, 0xFF800000, -0.0, 1.5, 0x7FC00001, 2.0]"
    src = f"""func.func @main(%x: {f}) -> ({results}) {{
  %ninf = stablehlo.constant dense<0xFF800000> : {f}
  %b = stablehlo.constant dense<0xFF80> : {b}
  %nan = stablehlo.constant dense<0x7FC00001> : {f}
  %nz = stablehlo.constant dense<-0.000000e+00> : tensor<2x8xf32>
  %row = stablehlo.constant dense<{row}> : tensor<8xf32>
  %rb = stablehlo.broadcast_in_dim %row, dims = [1] : (tensor<8xf32>) -> {f}
  %m = stablehlo.maximum %x, %rb : {f}
  %f = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %fc = stablehlo.convert %f : (tensor<f32>) -> tensor<bf16>
  %fb = stablehlo.broadcast_in_dim %fc, dims = [] : (tensor<bf16>) -> tensor<6xbf16>
  return %ninf, %b, %nan, %nz, %m, %fb : {results}
}}
"""
    x = np.linspace(-3, 3, 32, dtype=np.float32).reshape(4, 8)
    ninf, b, nan, nz, m, fb = three_levels(src, [x])
    assert (ninf.view(np.uint32) == F32_NEG_INF).all()
    assert (b.view(np.uint16) == BF16_NEG_INF).all()
    assert (nan.view(np.uint32) == F32_NAN_PAYLOAD).all()
    assert (nz.view(np.uint32) == 0x80000000).all()
    assert (fb.view(np.uint16) == BF16_NEG_INF).all()
    # max with the row: NaN columns are NaN, +inf column +inf, -inf column x itself
    assert np.isnan(m[:, [1, 6]]).all()
    assert (m[:, 2] == np.inf).all()
    assert (m[:, 3] == x[:, 3]).all()
    assert (m[:, 5] == np.maximum(x[:, 5], 1.5)).all()


def test_causal_mask() -> None:
    """JAX's ``jnp.where(row >= col, s, -inf)`` over [heads, S, S], S across two
    partition tiles."""
    n, heads = 130, 2
    s3, m2 = f"tensor<{heads}x{n}x{n}xf32>", f"tensor<{n}x{n}x"
    src = f"""func.func @main(%s: {s3}) -> {s3} {{
  %i = stablehlo.iota dim = 0 : tensor<{n}xi32>
  %r = stablehlo.broadcast_in_dim %i, dims = [0] : (tensor<{n}xi32>) -> tensor<{n}x1xi32>
  %c = stablehlo.broadcast_in_dim %i, dims = [1] : (tensor<{n}xi32>) -> tensor<1x{n}xi32>
  %rr = stablehlo.broadcast_in_dim %r, dims = [0, 1] : (tensor<{n}x1xi32>) -> {m2}i32>
  %cc = stablehlo.broadcast_in_dim %c, dims = [0, 1] : (tensor<1x{n}xi32>) -> {m2}i32>
  %p = stablehlo.compare GE, %rr, %cc, SIGNED : ({m2}i32>, {m2}i32>) -> {m2}i1>
  %pb = stablehlo.broadcast_in_dim %p, dims = [1, 2] : ({m2}i1>) -> tensor<{heads}x{n}x{n}xi1>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %nb = stablehlo.broadcast_in_dim %ninf, dims = [] : (tensor<f32>) -> {s3}
  %out = stablehlo.select %pb, %s, %nb : tensor<{heads}x{n}x{n}xi1>, {s3}
  return %out : {s3}
}}
"""
    s = np.random.default_rng(3).standard_normal((heads, n, n)).astype(np.float32)
    (got,) = three_levels(src, [s])
    want = np.where(np.tril(np.ones((n, n), bool))[None], s, np.float32(-np.inf))
    assert got.tobytes() == want.tobytes()


DOTS = [
    # (lhs, rhs, batching, contracting, result, einsum): merged free dims, vectors, heads
    ("4x5x64", "64x48", "", "[2] x [0]", "4x5x48", "abk,kn->abn"),
    ("64", "64x48", "", "[0] x [0]", "48", "k,kn->n"),
    ("4x5x64", "64", "", "[2] x [0]", "4x5", "abk,k->ab"),
    ("200", "200", "", "[0] x [0]", "", "k,k->"),  # two K tiles into a scalar
    ("3x16x32", "3x16x32", "[0] x [0]", "[2] x [2]", "3x16x16", "hik,hjk->hij"),  # q k^T
    ("2x3x6x64", "2x64x7", "[0] x [0]", "[3] x [1]", "2x3x6x7", "zabk,zkn->zabn"),
    ("2x130x40", "2x40x3x5", "[0] x [0]", "[2] x [1]", "2x130x3x5", "zmk,zkab->zmab"),
]


@pytest.mark.parametrize(("lhs", "rhs", "batching", "contracting", "result", "einsum"), DOTS)
def test_dot_general_shapes(
    lhs: str, rhs: str, batching: str, contracting: str, result: str, einsum: str
) -> None:
    def t(shape: str) -> str:
        return f"tensor<{shape}xf32>" if shape else "tensor<f32>"

    batch = f"batching_dims = {batching}, " if batching else ""
    src = (
        f"func.func @main(%a: {t(lhs)}, %b: {t(rhs)}) -> {t(result)} {{\n"
        f"  %r = stablehlo.dot_general %a, %b, {batch}contracting_dims = {contracting} : "
        f"({t(lhs)}, {t(rhs)}) -> {t(result)}\n  return %r : {t(result)}\n}}\n"
    )
    rng = np.random.default_rng(11)
    shapes = [tuple(int(s) for s in x.split("x")) for x in (lhs, rhs)]
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    (got,) = three_levels(src, [a, b])
    want = np.einsum(einsum, a.astype(np.float64), b.astype(np.float64))
    bound = np.einsum(einsum, np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    assert got.shape == want.shape
    assert (np.abs(got - want) <= 2.0**-20 * bound).all()
