"""The fp32 -> FP8 / FP4 narrows and the FP4 decoder, checked against expectations that
do not use the code under test: ml_dtypes' own casts and a brute-force nearest-grid-point
search (spec ``mx-quantize-numerics.txt``, "Round-to-Grid: FP4 and FP8")."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics import MxFormat, decode, decode_e2m1, encode_e2m1, narrow, narrow_fp8

FP8_FORMATS = [MxFormat.E4M3FN, MxFormat.E5M2]
FP4_GRID = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
"""Magnitudes of the e2m1 codes 0..7 (the spec's grid)."""


def every_pattern(dtype: type) -> np.ndarray:
    """Every 16-bit pattern of ``dtype`` (bfloat16 or float16), widened to fp32."""
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype).astype(np.float32)


def sign_bit(x: np.ndarray) -> np.ndarray:
    return (x.view(np.uint32) >> 31).astype(np.uint8)


@pytest.mark.parametrize("fmt", FP8_FORMATS, ids=lambda f: f.spec_name)
@pytest.mark.parametrize("source", [ml_dtypes.bfloat16, np.float16], ids=["bf16", "f16"])
def test_fp8_narrow_matches_ml_dtypes_on_every_16_bit_pattern(fmt: MxFormat, source: type):
    x = every_pattern(source)
    got = narrow_fp8(x, fmt)
    in_range = np.isfinite(x) & (np.abs(x) <= fmt.max_finite)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = x.astype(fmt.dtype).view(np.uint8)
    assert in_range.sum() > 10_000
    np.testing.assert_array_equal(got[in_range], expected[in_range])


@pytest.mark.parametrize("fmt", FP8_FORMATS, ids=lambda f: f.spec_name)
@pytest.mark.parametrize("source", [ml_dtypes.bfloat16, np.float16], ids=["bf16", "f16"])
def test_fp8_narrow_saturates_everything_else(fmt: MxFormat, source: type):
    x = every_pattern(source)
    got = narrow_fp8(x, fmt)
    max_code = fmt.info.max_code
    beyond = ~np.isnan(x) & (np.abs(x) > fmt.max_finite)  # +-Inf included
    assert beyond.any()
    np.testing.assert_array_equal(got[beyond], (sign_bit(x[beyond]) << 7) | max_code)
    nan = np.isnan(x)
    assert nan.sum() > 100
    assert np.isnan(decode(got[nan], fmt)).all()
    np.testing.assert_array_equal(got[nan] >> 7, sign_bit(x[nan]))


@pytest.mark.parametrize("fmt", FP8_FORMATS, ids=lambda f: f.spec_name)
def test_fp8_narrow_matches_ml_dtypes_on_random_fp32(fmt: MxFormat):
    """fp32 inputs with bits below the bf16 / f16 precision exercise the sticky bits."""
    rng = np.random.default_rng(7)
    x = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.concatenate([x, (rng.standard_normal(200_000) * fmt.max_finite / 3).astype(np.float32)])
    in_range = np.isfinite(x) & (np.abs(x) <= fmt.max_finite)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = x.astype(fmt.dtype).view(np.uint8)
    np.testing.assert_array_equal(narrow_fp8(x, fmt)[in_range], expected[in_range])


def test_fp8_narrow_round_up_past_max_saturates():
    """464 is the e4m3fn midpoint between 448 and 480 (no 480: that code is NaN); RNE
    goes to the even 448. 465 rounds up past the maximum and saturates (ml_dtypes
    gives NaN there). e5m2: 61440 is the midpoint of 57344 and Inf."""
    x = np.array([448, 464, 465, 479.9, -1e30, np.inf], np.float32)
    np.testing.assert_array_equal(
        narrow_fp8(x, MxFormat.E4M3FN), [0x7E, 0x7E, 0x7E, 0x7E, 0xFE, 0x7E]
    )
    y = np.array([57344, 61439, 61440, 65504, -np.inf], np.float32)
    np.testing.assert_array_equal(narrow_fp8(y, MxFormat.E5M2), [0x7B, 0x7B, 0x7B, 0x7B, 0xFB])


def nearest_e2m1(x: np.ndarray) -> np.ndarray:
    """The expected e2m1 nibble, by brute force: the nearest grid magnitude, ties to the
    even code; beyond 6 (Inf included) the largest code; NaN the signed zero."""
    with np.errstate(invalid="ignore"):
        magnitude = np.abs(x.astype(np.float64))
    finite = np.isfinite(magnitude)
    distance = np.abs(np.where(finite, magnitude, 0.0)[:, None] - FP4_GRID[None, :])
    nearest = distance == distance.min(axis=1, keepdims=True)
    preference = nearest * (2 - (np.arange(8) % 2))  # among equals, the even code wins
    code = preference.argmax(axis=1).astype(np.uint8)
    code = np.where(magnitude >= 6.0, np.uint8(7), code)  # also +-Inf
    code = np.where(np.isnan(x), np.uint8(0), code)
    return code | (sign_bit(x) << 3)


def test_fp4_encoder_matches_the_grid_on_every_bf16_pattern():
    x = every_pattern(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(encode_e2m1(x), nearest_e2m1(x))


def test_fp4_encoder_matches_ml_dtypes_except_nan():
    """ml_dtypes' float4_e2m1fn cast also rounds to nearest even and saturates
    (there is no Inf code), so they agree everywhere but NaN: the spec's encoder gives
    the zero nibble with the input's sign, ml_dtypes a zero of the opposite sign."""
    x = every_pattern(ml_dtypes.bfloat16)
    got = encode_e2m1(x)
    with np.errstate(invalid="ignore", over="ignore"):
        theirs = x.astype(ml_dtypes.float4_e2m1fn).view(np.uint8)
    nan = np.isnan(x)
    np.testing.assert_array_equal(got[~nan], theirs[~nan])
    np.testing.assert_array_equal(got[nan], sign_bit(x[nan]) << 3)
    np.testing.assert_array_equal(theirs[nan], (1 - sign_bit(x[nan])) << 3)


def test_fp4_encoder_spec_cases():
    """Spec cases: 0.25 -> 0 (tie, even), 0.75 -> 1.0 (tie, even), 5 -> 4 (tie between
    4 and 6 goes to 4, code 6 even), 7 -> 6 (tie 6/8 rounds up to 8: saturates),
    |x| >= 8 and Inf -> 6, NaN -> signed zero, fp32 denormals -> 0."""
    x = np.array(
        [0.25, 0.2500001, 0.75, 5.0, 5.0001, 7.0, 8.0, 1e30, -np.inf, 1e-40, -1e-40],
        np.float32,
    )
    np.testing.assert_array_equal(
        encode_e2m1(x), [0x0, 0x1, 0x2, 0x6, 0x7, 0x7, 0x7, 0x7, 0xF, 0x0, 0x8]
    )
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001], np.uint32).view(np.float32)
    np.testing.assert_array_equal(encode_e2m1(nans), [0x0, 0x8, 0x0])


def test_fp4_decoder_gives_the_grid():
    nibbles = np.arange(16, dtype=np.uint8)
    expected = np.concatenate([FP4_GRID, -FP4_GRID]).astype(np.float32)
    got = decode_e2m1(nibbles)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), nibbles >= 8)  # -0.0 for nibble 8
    np.testing.assert_array_equal(got, nibbles.view(ml_dtypes.float4_e2m1fn).astype(np.float32))


def test_fp4_decode_encode_round_trip():
    nibbles = np.arange(16, dtype=np.uint8)
    np.testing.assert_array_equal(encode_e2m1(decode_e2m1(nibbles)), nibbles)


def test_narrow_dispatches_by_format():
    x = np.array([1.0, -3.0, 7.0], np.float32)
    np.testing.assert_array_equal(narrow(x, MxFormat.E2M1), [0x2, 0xD, 0x7])
    np.testing.assert_array_equal(narrow(x, "float8_e4m3fn"), [0x38, 0xC4, 0x4E])
    with pytest.raises(ValueError, match="FP8"):
        narrow_fp8(x, MxFormat.E2M1)
