"""``round_to`` between float32 and bfloat16 (its bit-level fast paths) against ml_dtypes'
own casts, over every bf16 word and every float32 word next to a bf16 rounding boundary."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np

from mxdsl.interpreters import f32_to_bf16_into, round_to

BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)


def _ml_dtypes_cast(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ml_dtypes warns on NaN / overflow casts
        return values.astype(dtype)


def test_bf16_to_f32_every_word():
    words = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(BF16)
    widened = round_to(words, F32)
    assert widened.dtype == F32
    assert np.array_equal(widened.view(np.uint32), _ml_dtypes_cast(words, F32).view(np.uint32))


def test_f32_to_bf16_around_every_rounding_boundary():
    """For each bf16 word w: w<<16 plus low halves 0, 1, just below / at / above the
    tie, and all ones (ties to even both ways, carries into the exponent, overflow to
    inf, subnormals, every NaN class and sign)."""
    high = np.arange(1 << 16, dtype=np.uint32) << 16
    low = np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF], dtype=np.uint32)
    values = (high[:, None] | low[None, :]).view(np.float32)
    rounded = round_to(values, BF16)
    assert rounded.dtype == BF16
    assert rounded.shape == values.shape
    expected = _ml_dtypes_cast(values, BF16)
    assert np.array_equal(rounded.view(np.uint16), expected.view(np.uint16))
    # the NaN rule spelled out: the quiet NaN of the input's sign
    nan = np.isnan(values)
    signs = values.view(np.uint32)[nan] >> 31
    assert np.array_equal(rounded.view(np.uint16)[nan], np.where(signs == 1, 0xFFC0, 0x7FC0))


def test_f32_bf16_strided_and_scalar_arrays():
    rng = np.random.default_rng(1)
    values = rng.standard_normal((6, 10)).astype(np.float32)[::2, 1::3]
    assert np.array_equal(
        round_to(values, BF16).view(np.uint16), values.astype(BF16).view(np.uint16)
    )
    narrow = values.astype(BF16)
    assert np.array_equal(round_to(narrow, F32), narrow.astype(F32))
    nan = round_to(np.array(-np.nan, dtype=np.float32), BF16)
    assert nan.shape == ()
    assert int(nan.view(np.uint16)) == 0xFFC0
    assert float(round_to(np.array(1.00390625, dtype=np.float32), BF16)) == 1.0  # tie: even


def test_f32_to_bf16_into_a_strided_view_and_over_its_own_source():
    """``f32_to_bf16_into`` writes ml_dtypes' rounding through a strided view (the rest
    of the buffer untouched), and reads all of its source before writing: an ``out``
    over the source's own bytes gets the source's rounding."""
    high = np.arange(0, 1 << 16, 7, dtype=np.uint32) << 16
    values = (high | np.uint32(0x8000)).view(np.float32)[:9000].reshape(90, 100)  # ties
    values[0, :4] = [np.nan, -np.nan, np.inf, 3e38]
    expected = _ml_dtypes_cast(values, BF16).view(np.uint16)
    buffer = np.full((90, 3, 100), 0x1234, dtype=np.uint16)
    f32_to_bf16_into(values, buffer[:, 1].view(BF16))
    assert np.array_equal(buffer[:, 1], expected)
    assert (buffer[:, [0, 2]] == 0x1234).all()
    shared = values.copy()
    f32_to_bf16_into(shared, shared.view(np.uint16)[:, ::2].view(BF16))  # over its own bytes
    assert np.array_equal(shared.view(np.uint16)[:, ::2], expected)


def test_f32_to_bf16_into_finds_a_lone_nan_anywhere():
    """One NaN (either sign, any payload) at each position of an otherwise finite tile,
    infinities and -0 beside it, and an empty tile: the NaN test reads max(values)."""
    rng = np.random.default_rng(3)
    base = rng.standard_normal((3, 5)).astype(np.float32)
    base[0, 0], base[2, 4], base[1, 1] = np.inf, -np.inf, -0.0
    for word in (0x7FC00000, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF):
        for position in np.ndindex(base.shape):
            values = base.copy()
            values.view(np.uint32)[position] = word
            out = np.zeros(values.shape, BF16)
            f32_to_bf16_into(values, out)
            expected = _ml_dtypes_cast(values, BF16).view(np.uint16)
            assert np.array_equal(out.view(np.uint16), expected)
            assert out.view(np.uint16)[position] == (0xFFC0 if word >> 31 else 0x7FC0)
    empty = np.zeros((0, 4), np.float32)
    out = np.zeros((0, 4), BF16)
    f32_to_bf16_into(empty, out)
    assert out.shape == (0, 4)
