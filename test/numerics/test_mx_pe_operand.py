"""``mx_pe_operand``: the PE operand of an x4 tile with K lane-major (``k' = qP + p``).

Its values are checked against ``code * 2**(E8M0 - 127)`` worked out here in float64 and
rounded once to fp32 (E8M0 255 is NaN); its all-zero columns and quick bounds, which on
the FP8 integer-decode path come from the codes and scale bytes, against
``column_split`` / ``quick_column_bits`` of the float64 tile; and PE passes between such
operands against ``pe_pass`` of the ``4p + q`` forms (the pass is an exact sum: no order
of K is part of it)."""

import numpy as np
import pytest

from mxdsl.numerics import MxFormat, pack_fp4_x4, pack_fp8_x4
from mxdsl.numerics import matmul as mm
from mxdsl.numerics.exact import quick_column_bits
from mxdsl.numerics.matmul import (
    PePass,
    column_split,
    mx_matmul_operand,
    mx_pe_operand,
    pe_pass,
    pe_passes_into,
)

RNG = np.random.default_rng(20261202)
FORMATS = [MxFormat.E4M3FN, MxFormat.E5M2, MxFormat.E2M1]
E2M1_GRID = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


def _code_values(codes: np.ndarray, fmt: MxFormat) -> np.ndarray:
    if fmt is MxFormat.E2M1:
        return E2M1_GRID[codes & 0x0F]
    return codes.view(fmt.dtype).astype(np.float64)


def _containers(codes: np.ndarray, fmt: MxFormat) -> np.ndarray:
    return pack_fp4_x4(codes) if fmt is MxFormat.E2M1 else pack_fp8_x4(codes)


def _expected(codes: np.ndarray, scales: np.ndarray, fmt: MxFormat) -> np.ndarray:
    """Float64 ``[4P, F]``, row ``qP + p``: the exact product rounded once to fp32."""
    partitions = codes.shape[0]
    factor = np.exp2(scales.astype(np.float64) - 127)
    factor[scales == 255] = np.nan
    factor = np.repeat(np.repeat(factor, 8, 0), 4, 1)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = (_code_values(codes, fmt) * factor).astype(np.float32)  # [P, 4F]
    by_lane = rounded.reshape(partitions, -1, 4).transpose(2, 0, 1)  # [q, p, f]
    return by_lane.reshape(4 * partitions, -1).astype(np.float64)


def _finite_codes(fmt: MxFormat) -> np.ndarray:
    if fmt is MxFormat.E2M1:
        return np.arange(16, dtype=np.uint8)
    codes = np.arange(256, dtype=np.uint8)
    return codes[np.isfinite(codes.view(fmt.dtype).astype(np.float32))]


def _special_codes(fmt: MxFormat) -> np.ndarray:
    codes = np.arange(256, dtype=np.uint8)
    return codes[~np.isfinite(codes.view(fmt.dtype).astype(np.float32))]


def _random_case(fmt: MxFormat, partitions: int, free: int, scale_choices) -> tuple:
    """Codes ``[P, 4F]``: a third +-0, subnormal and largest codes over-represented, a
    few all-zero columns (leading, inner, trailing) and all-zero blocks; scales drawn
    from ``scale_choices``."""
    finite = _finite_codes(fmt)
    codes = RNG.choice(finite, (partitions, 4 * free))
    small = finite[(finite & 0x7F) < (8 if fmt.is_fp8 else 2)]
    large = finite[-4:]
    pick = RNG.random(codes.shape)
    codes[pick < 0.15] = RNG.choice(small, codes.shape)[pick < 0.15]
    codes[(pick >= 0.15) & (pick < 0.25)] = RNG.choice(large, codes.shape)[
        (pick >= 0.15) & (pick < 0.25)
    ]
    codes[(pick >= 0.25) & (pick < 0.55)] = 0
    codes[(pick >= 0.55) & (pick < 0.6)] = 0x80 if fmt.is_fp8 else 0x8  # -0
    for f in {0, free // 2, free - 1}:
        codes[:, 4 * f : 4 * f + 4] = 0
    codes[:8, 4:8] = 0  # an all-zero block in a nonzero column
    if free > 3:  # a column with a single nonzero element
        codes[:, 12:16] = 0
        codes[partitions - 1, 15] = large[-1]
    scales = RNG.choice(np.asarray(scale_choices, np.uint8), (partitions // 8, free))
    return codes.astype(np.uint8), scales.astype(np.uint8)


def _strided(words: np.ndarray) -> np.ndarray:
    wide = np.zeros((words.shape[0], 3 * words.shape[1]), words.dtype)
    wide[:, words.shape[1] : 2 * words.shape[1]] = words
    return wide[:, words.shape[1] : 2 * words.shape[1]]


def _same(a, b) -> bool:
    if isinstance(a, slice) or isinstance(b, slice):
        return a == b
    return a.dtype == b.dtype and np.array_equal(a, b)


def _check(codes: np.ndarray, scales: np.ndarray, fmt: MxFormat, from_codes: bool) -> None:
    """``mx_pe_operand`` of the case against its expected values and the analysis of
    its float64 tile; ``from_codes``: whether the bounds should come from the codes."""
    precision = fmt.info.mantissa_bits + 1
    for containers in (_containers(codes, fmt), _strided(_containers(codes, fmt))):
        operand = mx_pe_operand(containers, scales, fmt)
        assert ("quick_bits" in operand.__dict__) == from_codes
        tile = operand.tile
        want = _expected(codes, scales, fmt)
        assert tile.dtype == np.float64
        assert tile.shape == want.shape
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(tile), nan)
        assert np.array_equal(tile[~nan].view(np.uint64), want[~nan].view(np.uint64))
        assert operand.precision == precision
        columns, zero_columns = column_split(tile)
        assert _same(operand.columns, columns)
        assert _same(operand.zero_columns, zero_columns)
        bits = operand.quick_bits
        quick = quick_column_bits(tile[:, columns], precision)
        assert quick is not None
        for name in ("top", "low", "count", "width"):
            assert _same(getattr(bits, name), getattr(quick, name)), name
        assert bits.log == quick.log
        assert bits.widest == quick.widest
        assert bits.highest == quick.highest
        assert operand.finite == bool(np.isfinite(tile).all())


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.spec_name)
@pytest.mark.parametrize(
    "scale_choices",
    [[0], [0, 1, 2], [120, 127, 135], [0, 1, 127, 200, 253, 254], [254], list(range(255))],
    ids=["e8m0-0", "tiny", "moderate", "edges", "e8m0-254", "all"],
)
def test_values_columns_and_bounds(fmt: MxFormat, scale_choices: list[int]) -> None:
    """Random tiles over the E8M0 extremes: +-0, subnormal codes (fp32 denormals at
    E8M0 0), overflow to +-Inf (E8M0 254), all-zero columns and blocks, a column of one
    nonzero element. FP8 takes the bounds from the codes, FP4 from the tile."""
    for partitions, free in [(8, 4), (16, 8), (128, 33)]:
        codes, scales = _random_case(fmt, partitions, free, scale_choices)
        _check(codes, scales, fmt, from_codes=fmt.is_fp8)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.spec_name)
def test_every_code_under_every_scale(fmt: MxFormat) -> None:
    """Every finite code in every lane under every E8M0 byte 0 .. 254."""
    finite = _finite_codes(fmt)
    partitions, free = 8 * 255, 2 * finite.size
    lane = np.arange(4 * free)
    codes = finite[(lane[None, :] + np.arange(partitions)[:, None]) % finite.size]
    scales = np.repeat(np.arange(255, dtype=np.uint8)[:, None], free, axis=1)
    _check(codes.astype(np.uint8), scales, fmt, from_codes=fmt.is_fp8)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.spec_name)
def test_all_zero_tiles_and_overflowing_columns(fmt: MxFormat) -> None:
    """A tile of +-0 only (no nonzero column), and columns whose every nonzero element
    overflows (their smallest value is Inf) next to columns where only some do."""
    zeros = np.zeros((16, 16), np.uint8)
    zeros[::3, ::5] = 0x80 if fmt.is_fp8 else 0x8
    _check(zeros, np.full((2, 4), 254, np.uint8), fmt, from_codes=fmt.is_fp8)
    finite = _finite_codes(fmt)
    codes = np.zeros((16, 16), np.uint8)
    codes[:, :4] = finite[-1]  # all overflow at 254
    codes[:, 4:8] = finite[-2]
    codes[0, 8:12] = finite[1]  # the smallest code: no overflow
    codes[1, 8:12] = finite[-1]
    scales = np.full((2, 4), 254, np.uint8)
    scales[1, 3] = 0
    _check(codes, scales, fmt, from_codes=fmt.is_fp8)
    # at the threshold: 2.0 * 2**127 is Inf, 1.0 * 2**127 the largest finite power
    one, two = (int(finite[_code_values(finite, fmt) == v][0]) for v in (1.0, 2.0))
    edge = np.zeros((8, 16), np.uint8)
    edge[:, 0:4] = two  # every nonzero element Inf by one binade
    edge[:, 4:8] = one
    edge[0, 8:12] = one
    edge[1, 8:12] = two
    _check(edge, np.full((1, 4), 254, np.uint8), fmt, from_codes=fmt.is_fp8)


@pytest.mark.parametrize("fmt", [MxFormat.E4M3FN, MxFormat.E5M2], ids=lambda f: f.spec_name)
def test_inf_nan_codes_and_nan_scales_take_the_tile_path(fmt: MxFormat) -> None:
    """An Inf / NaN code or an E8M0 255 anywhere: the bounds come from the tile (the
    value path is the table one), the values and the layout stay the same."""
    codes, scales = _random_case(fmt, 16, 8, [0, 127, 254])
    for code in _special_codes(fmt):
        with_code = codes.copy()
        with_code[9, 17] = code
        _check(with_code, scales, fmt, from_codes=False)
    with_scale = scales.copy()
    with_scale[1, 6] = 255
    _check(codes, with_scale, fmt, from_codes=False)


def _pe_pass_4p_plus_q(stationary: tuple, moving: tuple, fmt: MxFormat) -> np.ndarray:
    """The pass on the documented ``k = 4p + q`` operands (``mx_matmul_operand``)."""
    lhs = mx_matmul_operand(*stationary, fmt)  # [M, 4P]
    rhs = mx_matmul_operand(*moving, fmt)  # [N, 4P]
    return pe_pass(lhs, rhs.T)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.spec_name)
@pytest.mark.parametrize(
    "scale_choices",
    [[120, 127, 135], [0, 60, 127, 200], [0, 1, 2, 3], [120, 254]],
    ids=["moderate", "wide", "denormal", "inf"],
)
def test_a_pass_of_lane_major_operands_is_the_pass_of_4p_plus_q(
    fmt: MxFormat, scale_choices: list[int]
) -> None:
    """``pe_passes_into`` between ``mx_pe_operand`` operands (a batch of two
    stationaries) gives the bits of ``pe_pass`` between the ``4p + q`` operands, with
    scales so far apart that the certificate fails and outputs take the exact path
    ("wide"), fp32 denormals, and Infs and NaNs (Inf - Inf) from E8M0 254."""
    partitions = 128
    moving = _random_case(fmt, partitions, 24, scale_choices)
    stationaries = [_random_case(fmt, partitions, m, scale_choices) for m in (16, 8)]
    moving_words = (_containers(moving[0], fmt), moving[1])
    moving_operand = mx_pe_operand(*moving_words, fmt)
    passes, want = [], []
    for codes, scales in stationaries:
        words = (_containers(codes, fmt), scales)
        dst = np.full((codes.shape[1] // 4, 24), np.float32(7.0))
        passes.append(PePass(dst, mx_pe_operand(*words, fmt), False))
        want.append(_pe_pass_4p_plus_q(words, moving_words, fmt))
    before = mm.EXACT_PATH.exact
    pe_passes_into(moving_operand, passes)
    for p, expected in zip(passes, want, strict=True):
        assert np.array_equal(p.dst.view(np.uint32), expected.view(np.uint32))
    if scale_choices == [0, 60, 127, 200]:
        assert mm.EXACT_PATH.exact > before  # some outputs took the exact path
    if scale_choices == [120, 254]:
        assert any(np.isnan(p.dst).any() for p in passes)
