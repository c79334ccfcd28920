"""pe_pass_into (the nisa interpreter's PE pass: in place into an f32 PSUM tile, skipping
all-zero operand columns) agrees bit for bit with pe_pass written / added in fp32,
pe_passes_into (a batch sharing the moving operand, one float64 matmul) with the passes
one by one, and mx_matmul_operand(dtype=float64) is the f32 operand widened."""

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics import MxFormat, pack_fp8_x4
from mxdsl.numerics.matmul import (
    PePass,
    column_split,
    mx_matmul_operand,
    nonzero_columns,
    pe_operand,
    pe_pass,
    pe_pass_into,
    pe_passes_into,
)

RNG = np.random.default_rng(11)


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint32)


def _psum(shape: tuple[int, int]) -> np.ndarray:
    """A PSUM tile holding what an earlier pass may leave: values, -0, +0, NaN."""
    tile = RNG.standard_normal(shape).astype(np.float32)
    tile[::7] = -0.0
    tile[1::7] = 0.0
    tile[-1, ::5] = np.nan
    return tile


def _expected(dst: np.ndarray, stationary: np.ndarray, moving: np.ndarray, accumulate: bool):
    product = pe_pass(stationary.T, moving)
    return dst + product if accumulate else product


def _check(stationary: np.ndarray, moving: np.ndarray, accumulate: bool) -> np.ndarray:
    dst = _psum((stationary.shape[1], moving.shape[1]))
    want = _expected(dst, stationary, moving, accumulate)
    pe_pass_into(dst, pe_operand(stationary), pe_operand(moving), accumulate)
    assert dst.dtype == np.float32
    assert (_bits(dst) == _bits(want)).all()
    return dst


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("pattern", ["none", "prefix", "suffix", "scattered", "all"])
@pytest.mark.parametrize("side", ["stationary", "moving", "both"])
def test_zero_columns_are_skipped_bit_for_bit(pattern: str, side: str, accumulate: bool) -> None:
    stationary = RNG.standard_normal((128, 128)).astype(ml_dtypes.bfloat16)
    moving = RNG.standard_normal((128, 512)).astype(ml_dtypes.bfloat16)
    stationary[:5] = -abs(stationary[:5])  # -x * +0 is -0: the sum is still +0
    for name, array in (("stationary", stationary), ("moving", moving)):
        if side not in (name, "both"):
            continue
        n = array.shape[1]
        zero = {
            "none": np.zeros(n, bool),
            "prefix": np.arange(n) < n // 3,
            "suffix": np.arange(n) >= n // 3,
            "scattered": RNG.random(n) < 0.4,
            "all": np.ones(n, bool),
        }[pattern]
        array[:, zero] = 0.0
    _check(stationary, moving, accumulate)


@pytest.mark.parametrize("accumulate", [False, True])
def test_strided_views_as_a_subview_gives(accumulate: bool) -> None:
    sbuf = RNG.standard_normal((128, 4, 600)).astype(np.float32)
    sbuf[:, 1, 90:] = 0.0
    stationary = sbuf[:, 1, :96]  # [K, M], rows 90.. zero
    moving = sbuf[:, 2, ::3]
    moving[:, ::4] = 0.0
    _check(stationary, moving, accumulate)


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_operands_disable_the_skip(bad: float, accumulate: bool) -> None:
    stationary = RNG.standard_normal((32, 16))  # [K, M]
    moving = RNG.standard_normal((32, 24))
    moving[:, 3] = 0.0  # a zero column times an inf/NaN row is NaN, not +0
    stationary[7, 2] = bad
    stationary[:, 5] = 0.0  # a zero row times a finite moving stays +0
    dst = _check(stationary, moving, accumulate)
    assert np.isnan(dst[2, 3])
    moving[4, 9] = bad  # now the zero rows meet an inf/NaN column too
    dst = _check(stationary, moving, accumulate)
    assert np.isnan(dst[5, 9])


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_an_all_zero_operand_against_a_non_finite_one(bad: float) -> None:
    """Nothing is left to multiply, and the skip must still not hide 0 * inf."""
    stationary = np.zeros((16, 8), dtype=np.float32)
    moving = RNG.standard_normal((16, 12)).astype(np.float32)
    _check(stationary, moving, accumulate=False)
    moving[3, 4] = bad
    dst = _check(stationary, moving, accumulate=True)
    assert np.isnan(dst[:, 4]).all()


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.float16, np.float64])
@pytest.mark.parametrize("bad", [None, np.inf, -np.inf, np.nan])
def test_finiteness_read_off_the_bits_is_the_widened_tiles(dtype: type, bad: float | None) -> None:
    """An operand not widened yet answers `finite` from its exponent bits (f32 / bf16 /
    f16); that is np.isfinite of the float64 values, in a zero column or not."""
    tile = RNG.standard_normal((16, 12)).astype(dtype)
    tile[:, 4] = 0.0
    if bad is not None:
        tile[5, 7] = bad
    operand = pe_operand(tile)
    assert operand.finite == bool(np.isfinite(tile.astype(np.float64)).all())


def test_a_pass_with_nothing_to_multiply_widens_nothing() -> None:
    """A padding-only moving tile against finite weights: +0 written, the weights never
    converted to float64."""
    stationary = pe_operand(RNG.standard_normal((64, 32)).astype(ml_dtypes.bfloat16))
    moving = pe_operand(np.zeros((64, 48), dtype=ml_dtypes.bfloat16))
    dst = _psum((32, 48))
    pe_pass_into(dst, stationary, moving, accumulate=False)
    assert (_bits(dst) == 0).all()
    assert "widened" not in vars(stationary)
    assert "widened" not in vars(moving)


def test_overflow_to_inf_in_fp32_is_the_modelled_result() -> None:
    stationary = np.full((4, 2), 3e38, dtype=np.float32)
    moving = np.full((4, 3), 2.0, dtype=np.float32)
    moving[:, 1] = 0.0
    dst = _check(stationary, moving, accumulate=False)
    assert np.isinf(dst[:, 0]).all()
    assert (dst[:, 1] == 0).all()


def _stationaries() -> list[np.ndarray]:
    """[K, M] stationaries: dense, zero columns at the end / scattered, all zero."""
    tiles = [RNG.standard_normal((64, m)).astype(ml_dtypes.bfloat16) for m in (32, 32, 20, 32, 8)]
    tiles[1][:, 25:] = 0.0
    tiles[2][:, ::3] = 0.0
    tiles[3][...] = 0.0
    return tiles


@pytest.mark.parametrize("moving_zeros", ["none", "suffix", "scattered", "all"])
def test_a_batch_sharing_the_moving_operand_is_the_passes_one_by_one(moving_zeros: str) -> None:
    """Each pass of the batch as pe_pass, written / added in order: two passes into one
    PSUM tile (overwrite, then accumulate) see each other's result."""
    moving = RNG.standard_normal((64, 48)).astype(ml_dtypes.bfloat16)
    zero = {
        "none": np.zeros(48, bool),
        "suffix": np.arange(48) >= 30,
        "scattered": RNG.random(48) < 0.4,
        "all": np.ones(48, bool),
    }[moving_zeros]
    moving[:, zero] = 0.0
    tiles = _stationaries()
    dsts = [_psum((t.shape[1], 48)) for t in tiles]
    shared = dsts[0]
    plan = [(dsts[0], tiles[0], False), (shared, tiles[1], True)] + [
        (d, t, i % 2 == 0) for i, (d, t) in enumerate(zip(dsts[2:], tiles[2:], strict=True))
    ]
    want = [d.copy() for d in dsts]
    index = {id(d): i for i, d in enumerate(dsts)}
    for dst, tile, accumulate in plan:
        i = index[id(dst)]
        want[i] = _expected(want[i], tile, moving, accumulate)
    batch = [PePass(dst, pe_operand(tile), accumulate) for dst, tile, accumulate in plan]
    pe_passes_into(pe_operand(moving), batch)
    for got, expected in zip(dsts, want, strict=True):
        assert (_bits(got) == _bits(expected)).all()


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_a_non_finite_operand_in_a_batch_disables_the_skip(bad: float) -> None:
    """One stationary with an infinity / NaN: the moving operand's zero columns are NaN
    in that pass, +0 in the others."""
    moving = RNG.standard_normal((64, 48)).astype(np.float32)
    moving[:, 40:] = 0.0
    tiles = [t.astype(np.float32) for t in _stationaries()]
    tiles[2][5, 1] = bad
    dsts = [_psum((t.shape[1], 48)) for t in tiles]
    want = [_expected(d, t, moving, True) for d, t in zip(dsts, tiles, strict=True)]
    batch = [PePass(d, pe_operand(t), True) for d, t in zip(dsts, tiles, strict=True)]
    pe_passes_into(pe_operand(moving), batch)
    for got, expected in zip(dsts, want, strict=True):
        assert (_bits(got) == _bits(expected)).all()
    assert np.isnan(dsts[2][1, 40:]).all()


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.float16, np.float64])
def test_nonzero_columns_match_a_float_reduction(dtype: type) -> None:
    tile = RNG.standard_normal((16, 40)).astype(dtype)
    tile[:, 3] = 0.0
    tile[:, 5] = -0.0
    tile[:, 7] = 0.0
    tile[4, 7] = np.nan
    tile[:, 9] = 0.0
    tile[2, 9] = -np.inf
    tile[0, 11] = 0.0  # decided beyond row 0
    view = tile[:, ::2]  # a strided view, as a subview gives
    dense = np.where(np.arange(40) % 2 == 0, tile[0], 1.0).astype(dtype)
    tokens = RNG.standard_normal((16, 40)).astype(dtype)  # real tokens, then padding
    tokens[:, 24:] = 0.0
    tokens[3, 30] = -0.0
    padding_with_values = tokens.copy()
    padding_with_values[5, 27] = 1.0
    padding_with_values[9, 33] = np.nan
    for t in (tile, view, tile[:1], dense[None, :], tokens, padding_with_values):
        want = t.astype(np.float64).any(axis=0)
        assert np.array_equal(nonzero_columns(t), want)
        columns, zero_columns = column_split(t)
        assert np.array_equal(np.flatnonzero(want), np.arange(t.shape[1])[columns])
        assert np.array_equal(np.flatnonzero(~want), np.arange(t.shape[1])[zero_columns])
    assert column_split(tokens) == (slice(0, 24), slice(24, 40))


def test_mx_operand_in_float64_is_the_f32_operand_widened() -> None:
    codes = RNG.integers(0, 256, size=(64, 40 * 4), dtype=np.uint8)
    codes[(codes & 0x7F) == 0x7F] = 0  # no NaN codes
    words = pack_fp8_x4(codes)
    scales = RNG.integers(120, 134, size=(8, 40), dtype=np.uint8)
    f32 = mx_matmul_operand(words, scales, MxFormat.E4M3FN)
    f64 = mx_matmul_operand(words, scales, MxFormat.E4M3FN, dtype=np.float64)
    assert f32.dtype == np.float32
    assert f64.dtype == np.float64
    assert f64.shape == f32.shape
    assert np.array_equal(f64.astype(np.float32).view(np.uint32), f32.view(np.uint32))


def test_each_pass_is_rounded_to_fp32_before_its_psum_add() -> None:
    """``dst += pass`` adds the pass's own fp32 rounding: for the sum 2**-24 + 2**-50
    (fp32: 2**-24) onto 1, the tie 1 + 2**-24 goes to the even 1 (adding the float64 sum
    would round up to 1 + 2**-23); for 2**-24 - 2**-50 (fp32: 2**-24) onto 1 + 2**-23,
    the tie goes to the even 1 + 2**-22 (the float64 sum would stay at 1 + 2**-23). Both
    passes in one batch, so through its one rounding of the stacked products."""
    moving = np.array([[2.0**-24], [2.0**-50]], dtype=ml_dtypes.bfloat16)  # [K, N]
    up = np.array([[1.0], [1.0]], dtype=ml_dtypes.bfloat16)  # [K, M]
    down = np.array([[1.0], [-1.0]], dtype=ml_dtypes.bfloat16)
    first = np.array([[1.0]], dtype=np.float32)
    second = np.array([[1.0 + 2.0**-23]], dtype=np.float32)
    passes = [PePass(first, pe_operand(up), True), PePass(second, pe_operand(down), True)]
    pe_passes_into(pe_operand(moving), passes)
    assert first[0, 0] == np.float32(1.0)
    assert second[0, 0] == np.float32(1.0 + 2.0**-22)
