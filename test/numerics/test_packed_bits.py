"""The quick per-column figures (``docs/numerics.md``, "How it is computed") as
``quick_column_bits``, ``BufferOperands`` and ``ColumnBits.concatenate`` give them packed
(``top``, ``low``, ``count`` and ``width`` rows of one array, ``width`` and ``log`` known
rather than computed): every figure equals what the definitions give, computed here from
the elements' values with ``np.frexp`` and ``math`` (no bit reading shared with the code),
on tiles without a zero (the short path), with +-0 beside nonzeros, all-zero columns,
infinities, NaNs and subnormals; and a deliberately wrong figure fails the check."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics.exact import EMPTY_LOW, EMPTY_TOP, NARROW, ColumnBits, quick_column_bits
from mxdsl.numerics.matmul import BufferOperands, _row_bits

BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(20261202)

# dtype: (significand bits, smallest normal exponent, exponent standing for inf / NaN)
_FORMAT = {
    BF16: (8, -126, 128),
    np.dtype(np.float16): (11, -14, 16),
    np.dtype(np.float32): (24, -126, 128),
    np.dtype(np.float64): (53, -1022, 1024),
}


def _expected(tile: np.ndarray, precision: int | None = None) -> dict[str, object]:
    """The quick figures of ``tile [K, F]`` from its values: ``top`` the largest nonzero
    magnitude's exponent (a subnormal's the smallest normal one, an infinity's or NaN's
    the all-ones field's), ``low`` the smallest's less ``precision - 1``, ``count`` K for a
    column holding a nonzero (0 otherwise), ``width`` ``top - low`` where ``count > 1``
    else NARROW, ``log`` ``ceil(log2)`` of the largest count."""
    own, smallest_normal, special = _FORMAT[tile.dtype]
    precision = own if precision is None else precision
    values = tile.astype(np.float64)
    k, width = values.shape
    exponent = np.frexp(np.where(np.isfinite(values), values, 1.0))[1] - 1
    exponent = np.where(np.isfinite(values), np.maximum(exponent, smallest_normal), special)
    nonzero = values != 0  # NaN counts
    top = np.where(nonzero, exponent, -(10**9)).max(axis=0)
    low = np.where(nonzero, exponent, 10**9).min(axis=0) - (precision - 1)
    filled = nonzero.any(axis=0)
    top = np.where(filled, top, EMPTY_TOP)
    low = np.where(filled, low, EMPTY_LOW)
    count = np.where(filled, k, 0)
    spread = np.where(count > 1, top - low, NARROW)
    largest = int(count.max(initial=0))
    log = math.ceil(math.log2(largest)) if largest > 1 else 0
    return {"top": top, "low": low, "count": count, "width": spread, "log": log}


def _assert_figures(bits: ColumnBits, want: dict[str, object]) -> None:
    for field in ("top", "low", "count", "width"):
        got = getattr(bits, field)
        assert got.dtype == np.int64, field
        assert np.array_equal(got, want[field]), field
    assert bits.log == want["log"]
    packed = bits.__dict__.get("_packed")
    if packed is not None:  # the rows are the figures themselves
        assert np.array_equal(packed, np.stack([want[f] for f in ("top", "low", "count", "width")]))


def _tile(dtype: np.dtype, kind: str, k: int = 12, width: int = 9) -> np.ndarray:
    spread = 6 if dtype == np.float16 else 20  # within float16's range
    values = RNG.standard_normal((k, width)) * np.exp2(RNG.integers(-spread, spread, (k, width)))
    if kind == "zeros" and k == 1:
        values[0, 2:5] = [0.0, -0.0, 0.0]
    elif kind == "zeros":
        values[3, 1] = 0.0
        values[5, 4] = -0.0
        values[:, 6] = 0.0  # an all-zero column
        values[1:, 7] = -0.0  # one nonzero only
    if kind == "specials":
        values[2, 0] = np.inf
        values[4, 2] = -np.inf
        values[:, 3] = np.nan
        values[0, 5] = 0.0
    if kind == "subnormal":  # the smallest subnormal and a few above it
        tiny = {BF16: 2.0**-133, np.dtype(np.float16): 2.0**-24}.get(dtype, 2.0**-149)
        values[:, 1] = tiny * np.arange(1, k + 1)
    if kind == "empty":
        values[...] = 0.0
    return values.astype(dtype)


@pytest.mark.parametrize("kind", ["dense", "zeros", "specials", "subnormal", "empty"])
@pytest.mark.parametrize("dtype", [BF16, np.dtype(np.float16), np.dtype(np.float32)])
def test_quick_bits_are_the_defined_figures(dtype: np.dtype, kind: str) -> None:
    tile = _tile(dtype, kind)
    bits = quick_column_bits(tile)
    assert bits is not None
    _assert_figures(bits, _expected(tile))
    strided = _tile(dtype, kind, width=20)[:, 3:17]  # a view with a row stride
    bits = quick_column_bits(strided)
    assert bits is not None
    _assert_figures(bits, _expected(strided))


@pytest.mark.parametrize("kind", ["dense", "zeros"])
def test_quick_bits_with_fewer_significand_bits_and_one_row(kind: str) -> None:
    """float64 holding 4-bit values (an MX element format's precision), and K = 1 (every
    column at most one nonzero: width NARROW, log 0)."""
    tile = np.ldexp(RNG.integers(1, 16, (10, 6)), RNG.integers(-30, 30, (10, 6))).astype(float)
    if kind == "zeros":
        tile[2, :3] = 0.0
    bits = quick_column_bits(tile, 4)
    assert bits is not None
    _assert_figures(bits, _expected(tile, 4))
    row = _tile(BF16, kind, k=1)
    bits = quick_column_bits(row)
    assert bits is not None
    want = _expected(row)
    assert (want["width"] == NARROW).all()
    assert want["log"] == 0
    _assert_figures(bits, want)


@pytest.mark.parametrize("field", ["top", "low", "count", "width", "log"])
def test_a_wrong_figure_fails_the_check(field: str) -> None:
    """Mutation check of the checks above: each figure off by one is caught."""
    tile = _tile(BF16, "zeros")
    bits = quick_column_bits(tile)
    assert bits is not None
    want = _expected(tile)
    wrong = dict(want)
    if field == "log":
        wrong["log"] = want["log"] + 1
    else:
        figure = np.array(want[field])
        figure[0] += 1
        wrong[field] = figure
    with pytest.raises(AssertionError):
        _assert_figures(bits, wrong)


def test_concatenated_bits_carry_their_figures() -> None:
    """Packed parts concatenate into packed bits (width and log carried over); a part
    without packed rows makes the figures computed from top, low and count: both equal the
    figures of the columns side by side."""
    parts = [_tile(BF16, kind) for kind in ("dense", "zeros", "specials")]
    parts.append(_tile(BF16, "empty", width=3))
    quick = [quick_column_bits(p) for p in parts]
    assert all(q is not None and "_packed" in q.__dict__ for q in quick)
    whole = np.concatenate(parts, axis=1)
    joined = ColumnBits.concatenate(quick)  # type: ignore[arg-type]
    assert "_packed" in joined.__dict__
    _assert_figures(joined, _expected(whole))
    q0 = quick[0]
    assert q0 is not None
    plain = ColumnBits(q0.top.copy(), q0.low.copy(), q0.count.copy())  # no packed rows
    mixed = ColumnBits.concatenate([plain, *quick[1:]])  # type: ignore[list-item]
    assert "_packed" not in mixed.__dict__
    _assert_figures(mixed, _expected(whole))
    empty_only = ColumnBits.concatenate([quick[3], quick[3]])  # type: ignore[list-item]
    assert empty_only.log == 0
    assert (empty_only.width == NARROW).all()


@pytest.mark.parametrize("plain", [True, False])
def test_buffer_operand_figures_are_the_tiles_own(plain: bool) -> None:
    """A tile within plain chunks (a view of the buffer's figures) and one with zero
    columns and specials (its nonzero columns' figures gathered): each operand's quick
    bits, finiteness and zero columns are the tile's own; a batch of them has the figures
    of its stationaries' nonzero columns side by side (one concatenation)."""
    values = RNG.standard_normal((16, 4, 32)) * np.exp2(RNG.integers(-12, 12, (16, 4, 32)))
    if not plain:
        values[:, :, 28:] = 0.0  # padding columns
        values[:, 1, 5] = 0.0
        values[3, 2, 9] = np.inf
    buffer = values.astype(BF16)
    operands = BufferOperands(buffer, lambda a: a.astype(np.float64))
    tiles = [buffer[:, j, :] for j in range(4)]
    got = []
    for tile in tiles:
        columns = operands.columns_of(tile)
        assert columns is not None
        got.append(operands.operand(tile, columns))
    for tile, operand in zip(tiles, got, strict=True):
        values64 = tile.astype(np.float64)
        nonzero = (values64 != 0).any(axis=0) | np.isnan(values64).any(axis=0)
        assert np.array_equal(np.arange(32)[operand.columns], np.flatnonzero(nonzero))
        assert np.array_equal(np.arange(32)[operand.zero_columns], np.flatnonzero(~nonzero))
        assert operand.finite == bool(np.isfinite(values64).all())
        _assert_figures(operand.quick_bits, _expected(tile[:, nonzero]))
    rows, _ = _row_bits(got)
    side_by_side = np.concatenate([t[:, o.columns] for t, o in zip(tiles, got, strict=True)], 1)
    _assert_figures(rows, _expected(side_by_side))


def test_packed_bits_are_views_of_the_block_rows() -> None:
    """ColumnBits.packed: top, low, count and width are rows 0..3 of the block (views, no
    copies), log as given; concatenating packed parts joins the blocks column-wise."""
    block = np.arange(4 * 6, dtype=np.int64).reshape(4, 6)
    bits = ColumnBits.packed(block, 3)
    for row, name in enumerate(("top", "low", "count", "width")):
        figure = getattr(bits, name)
        np.testing.assert_array_equal(figure, block[row])
        assert np.shares_memory(figure, block)
    assert bits.log == 3
    other = ColumnBits.packed(-np.ones((4, 2), np.int64), 5)
    joined = ColumnBits.concatenate([bits, other])
    np.testing.assert_array_equal(joined.top, [0, 1, 2, 3, 4, 5, -1, -1])
    np.testing.assert_array_equal(joined.width, [18, 19, 20, 21, 22, 23, -1, -1])
    assert joined.log == 5
