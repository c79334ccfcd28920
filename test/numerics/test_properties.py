"""Property tests (hypothesis): the quantize error bound and the permutation pairs."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mxdsl.numerics import (
    MxFormat,
    deinterleave_scale_rows,
    dequantize_mx,
    fp4_lane_remap,
    interleave_scale_rows,
    pack_fp4_x4,
    pack_fp8_x4,
    quantize_mx,
    scale_buffer_rows,
    scale_row_slot,
    unpack_fp4_x4,
    unpack_fp8_x4,
)

FORMATS = st.sampled_from(list(MxFormat))
GEOMETRY = st.sampled_from([((1, 32), (3, 64)), ((32, 1), (64, 3)), ((8, 4), (16, 12))])
FINITE_BF16_BITS = st.integers(0, 0xFFFF).filter(lambda b: (b >> 7) & 0xFF != 0xFF)


def half_ulp_bound(prescaled: np.ndarray, fmt: MxFormat) -> np.ndarray:
    """Half a unit in the last place of the format at ``|prescaled|``: with
    ``e = max(floor(log2 |y|), 1 - bias)`` (the subnormal range has the fixed spacing of
    the smallest normal binade) the spacing is ``2**(e - mantissa_bits)``."""
    info = fmt.info
    magnitude = np.abs(prescaled)
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0)))
    exponent = np.maximum(exponent, 1 - info.bias)
    return np.ldexp(0.5, (exponent - info.mantissa_bits).astype(np.int64))


@settings(max_examples=150, deadline=None)
@given(fmt=FORMATS, geometry=GEOMETRY, data=st.data())
def test_round_trip_error_is_at_most_half_an_ulp_at_the_block_scale(fmt, geometry, data):
    """For every finite x whose prescaled value y = x * 2**(127 - E8M0) does not exceed
    the format's max finite (so it does not saturate):

        |dequantize(quantize(x)) - x| <= 2**(E8M0 - 127) * ulp_fmt(y) / 2

    the RNE error of one narrow, scaled back exactly (the dequant product is exact
    because quantized values times a power of two stay on the fp32 grid)."""
    block_shape, shape = geometry
    bits = data.draw(hnp.arrays(np.uint16, shape, elements=FINITE_BF16_BITS))
    scale_exponent = data.draw(st.integers(-60, 60))
    widened = bits.view(ml_dtypes.bfloat16).astype(np.float64) * 2.0**scale_exponent
    x = np.clip(widened, -3.3e38, 3.3e38).astype(ml_dtypes.bfloat16)  # stays finite
    codes, scale = quantize_mx(x, fmt, block_shape)
    back = dequantize_mx(codes, scale, fmt, block_shape).astype(np.float64)
    exact = x.astype(np.float64)
    block_factor = np.ldexp(
        1.0, np.kron(scale.astype(np.int64) - 127, np.ones(block_shape, np.int64))
    )
    prescaled = exact / block_factor
    fits = np.abs(prescaled) <= fmt.max_finite
    error = np.abs(back - exact)
    bound = block_factor * half_ulp_bound(prescaled, fmt)
    assert np.isfinite(exact).all()
    assert (error[fits] <= bound[fits]).all()


@settings(max_examples=100, deadline=None)
@given(
    codes=hnp.arrays(
        np.uint8, hnp.array_shapes(min_dims=1, max_dims=3, max_side=8), elements=st.integers(0, 255)
    ),
    data=st.data(),
)
def test_fp8_x4_pack_unpack_are_inverse(codes, data):
    axis = data.draw(st.integers(-codes.ndim, codes.ndim - 1))
    codes = np.concatenate([codes] * 4, axis=axis)  # the packed axis must divide by 4
    words = pack_fp8_x4(codes, axis)
    assert words.dtype == np.uint32
    assert words.shape[axis] * 4 == codes.shape[axis]
    np.testing.assert_array_equal(unpack_fp8_x4(words, axis), codes)
    np.testing.assert_array_equal(pack_fp8_x4(unpack_fp8_x4(words, axis), axis), words)


@settings(max_examples=100, deadline=None)
@given(stride=st.integers(0, 6), windows=st.integers(1, 6), rows=st.integers(1, 3), data=st.data())
def test_fp4_x4_pack_unpack_are_inverse(stride, windows, rows, data):
    length = 4 * windows * max(stride, 1)  # divides by 4 and by 2 * stride
    nibbles = data.draw(hnp.arrays(np.uint8, (rows, length), elements=st.integers(0, 15)))
    parity = data.draw(st.integers(0, 1))
    words = pack_fp4_x4(nibbles, stride=stride, high_nibble_parity=parity)
    assert words.dtype == np.uint16
    assert words.shape == (rows, length // 4)
    back = unpack_fp4_x4(words, stride=stride, high_nibble_parity=parity)
    np.testing.assert_array_equal(back, nibbles)
    np.testing.assert_array_equal(
        pack_fp4_x4(back, stride=stride, high_nibble_parity=parity), words
    )


@given(stride=st.integers(1, 16), windows=st.integers(1, 8))
def test_lane_remap_is_a_permutation_of_whole_windows(stride, windows):
    n = 2 * stride * windows
    remapped = fp4_lane_remap(np.arange(n), stride)
    np.testing.assert_array_equal(np.sort(remapped), np.arange(n))
    np.testing.assert_array_equal(remapped % 2, np.arange(n) % 2)  # parity is kept


@given(rows=st.integers(0, 70), cols=st.integers(1, 5), data=st.data())
def test_scale_row_interleave_and_its_inverse(rows, cols, data):
    scale = data.draw(hnp.arrays(np.uint8, (rows, cols), elements=st.integers(1, 254)))
    buffer = interleave_scale_rows(scale)
    assert buffer.shape == (scale_buffer_rows(rows), cols)
    np.testing.assert_array_equal(deinterleave_scale_rows(buffer, rows), scale)
    slots = scale_row_slot(np.arange(rows))
    assert len(set(slots.tolist())) == rows  # injective
    unused = np.setdiff1d(np.arange(buffer.shape[0]), slots)
    assert (buffer[unused] == 0).all()
    # On its image the interleave is undone exactly: re-interleaving restores the buffer.
    np.testing.assert_array_equal(
        interleave_scale_rows(deinterleave_scale_rows(buffer, rows)), buffer
    )
