"""``tensor_reduce`` add at nisa and bir: the exact sum of the row rounded once to the
destination type (``docs/numerics.md``, "Float sums"), against ``fractions`` sums
rounded by integer arithmetic written here, on adversarial rows: wide exponent spread,
cancellation (x + (-x) + tiny), ties and near-ties, subnormal sums, overflow, NaN, the
infinities and signed zeros; f32 and bf16 destinations, with and without ``negate``
(the reference: ``exact_reference.exact_row_sums``)."""
# ruff: noqa: E501  (IR text of the kernels under test)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from exact_reference import exact_row_sums

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.spmd import run_spmd
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]

BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)
BIR_CODE = {F32: 16, BF16: 10}
TYPE = {F32: "f32", BF16: "bf16"}


def expected(rows: np.ndarray, dtype: np.dtype, negate: bool) -> np.ndarray:
    sums = exact_row_sums(rows, dtype)
    return -sums if negate else sums


def adversarial_rows() -> np.ndarray:
    """16 rows of 12 f32 values, each built to defeat a naive float sum."""
    big, tiny, sub = 2.0**100, 2.0**-100, 2.0**-149
    rows = np.zeros((16, 12), np.float64)
    rows[0, :4] = [big, 1.0, tiny, -big]  # wide spread: exactly 1 + 2^-100
    rows[1, :3] = [2.0**60, -(2.0**60), 2.0**-30]  # x + (-x) + tiny
    rows[2, :2] = [1.0, 2.0**-24]  # a tie in f32: to even, 1
    rows[3, :3] = [1.0, 2.0**-24, 2.0**-60]  # just above the tie: up
    rows[4, :3] = [1.0, 2.0**-24, -(2.0**-60)]  # just below: down
    rows[5, :] = -0.0  # -0 terms: the exact zero is +0
    rows[6, :4] = [3.0, -3.0, -0.0, 0.0]  # cancels to zero: +0
    rows[7, :3] = [sub, sub, -(2.0**-148) - sub]  # subnormal terms, sum -2^-149
    rows[8, :2] = [3e38, 3e38]  # finite terms past f32: inf
    rows[9, :2] = [np.inf, 1.0]
    rows[10, :2] = [np.inf, -np.inf]  # NaN
    rows[11, :2] = [np.nan, 1.0]
    rows[12, :] = [1.0] + [2.0**-24] * 11  # a left-to-right fold gives 1
    rows[13, :3] = [1.0 + 2.0**-8, 2.0**-9, 2.0**-40]  # a bf16 near-tie
    rng = np.random.default_rng(36)
    mags = np.ldexp(rng.uniform(1, 2, (2, 12)), rng.integers(-60, 60, (2, 12)))
    rows[14:] = mags * rng.choice([-1.0, 1.0], (2, 12))
    rows[15, 6:] = -rows[15, :6]  # exact cancellation of half the row
    rows[15, 0] += 2.0**-20
    return rows.astype(np.float32)


def run_nisa(x: np.ndarray, dtype: np.dtype, negate: bool) -> np.ndarray:
    p, f = x.shape
    t = TYPE[dtype]
    sb_x, sb_d = f"memref<{p}x{f}xf32, #nisa.mem<sbuf>>", f"memref<{p}x1x{t}, #nisa.mem<sbuf>>"
    hb_x, hb_d = f"memref<{p}x{f}xf32, #nisa.mem<hbm>>", f"memref<{p}x1x{t}, #nisa.mem<hbm>>"
    body = (
        f"  %x = memref.alloc() : {sb_x}\n"
        f"  nisa.dma_copy %x, %x_h : {sb_x}, {hb_x}\n"
        f"  %d = memref.alloc() : {sb_d}\n"
        f"  nisa.tensor_reduce %d, add %x axes [1]{' negate' if negate else ''} : {sb_d}, {sb_x}\n"
        f"  nisa.dma_copy %out, %d : {hb_d}, {sb_d}\n"
    )
    ctx = _context()
    text = f"func.func @main(%x_h: {hb_x}, %out: {hb_d}) {{\n{body}  func.return\n}}"
    module, _ = parse_located(ctx, text, "t")
    module.verify()
    out = np.zeros((p, 1), dtype)
    run_spmd(lambda ls: make_interpreter(module, ctx, listeners=ls), "main", (x, out), 1)
    return out[:, 0]


def run_bir(x: np.ndarray, dtype: np.dtype, negate: bool) -> np.ndarray:
    p, f = x.shape
    t, code = TYPE[dtype], BIR_CODE[dtype]
    hb_x, hb_d = f"memref<{p}x{f}xf32, #nisa.mem<hbm>>", f"memref<{p}x1x{t}, #nisa.mem<hbm>>"
    src = f"#bir.ap<sbuf, p0 = 0, np = {p}, [[1, {f}]], off = 0, dtype = 16>"
    dst = f"#bir.ap<sbuf, p0 = 0, np = {p}, [[1, 1]], off = 8192, dtype = {code}>"
    body = (
        f"  bir.dma {src}, #bir.ap<hbm, [[{f}, {p}], [1, {f}]], off = 0, dtype = 16> of %x : {hb_x}\n"
        f"  bir.tensor_reduce {dst}, add {src} inner 1{' negate' if negate else ''}\n"
        f"  bir.dma #bir.ap<hbm, [[1, {p}], [1, 1]], off = 0, dtype = {code}> of %out : {hb_d}, {dst}\n"
    )
    ctx = _context()
    text = f"func.func @main(%x: {hb_x}, %out: {hb_d}) {{\n{body}  func.return\n}}"
    module, _ = parse_located(ctx, text, "t")
    module.verify()
    out = np.zeros((p, 1), dtype)
    make_interpreter(module, ctx).call_op("main", (x, out))
    return out[:, 0]


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit, except that any NaN matches any NaN."""
    nan = np.isnan(want.astype(np.float64))
    assert (np.isnan(got.astype(np.float64)) == nan).all()
    u = np.uint32 if got.dtype.itemsize == 4 else np.uint16
    np.testing.assert_array_equal(got[~nan].view(u), want[~nan].view(u))


@pytest.mark.parametrize("level", ["nisa", "bir"])
@pytest.mark.parametrize("dtype", [F32, BF16], ids=["f32", "bf16"])
@pytest.mark.parametrize("negate", [False, True], ids=["", "negate"])
def test_add_is_the_exact_sum_rounded_once(level: str, dtype: np.dtype, negate: bool) -> None:
    x = adversarial_rows()
    got = (run_nisa if level == "nisa" else run_bir)(x, dtype, negate)
    same_bits(got, expected(x, dtype, negate))


def test_the_rows_are_adversarial() -> None:
    """The rows do separate the exact sum from a left-to-right f32 fold and from a
    float64 sum rounded to f32 (else the test above would prove less)."""
    x = adversarial_rows()
    want = expected(x, F32, False)
    with np.errstate(all="ignore"):
        fold = np.add.accumulate(x, axis=1)[:, -1]
        wide = x.astype(np.float64).sum(axis=1).astype(np.float32)
    finite = np.isfinite(want)
    assert (fold[finite] != want[finite]).sum() >= 3
    assert (wide[finite] != want[finite]).sum() >= 1
    assert not np.signbit(want[5]) and not np.signbit(want[6])  # noqa: PT018
    assert want[7] == -(2.0**-149)
