"""x4 packing, the FP4 lane remap and the E8M0 scale-row interleave (spec
``mx-quantize-numerics.txt``, "x4-Pack and Scale-Tensor Interleave")."""

from __future__ import annotations

import numpy as np
import pytest

from mxdsl.numerics import (
    DEFAULT_FP4_LANE_STRIDE,
    deinterleave_scale_rows,
    fp4_lane_remap,
    interleave_scale_rows,
    pack_fp4_x4,
    pack_fp8_x4,
    scale_buffer_rows,
    scale_row_slot,
    unpack_fp4_x4,
    unpack_fp8_x4,
)


def test_fp8_x4_is_little_endian_bytes_in_a_u32():
    """Element 4k + j sits in byte j (bits 8j..8j+7) of word k."""
    codes = np.arange(1, 9, dtype=np.uint8).reshape(1, 8)
    np.testing.assert_array_equal(pack_fp8_x4(codes), [[0x04030201, 0x08070605]])


def test_fp8_x4_along_a_leading_axis():
    codes = np.arange(16, dtype=np.uint8).reshape(8, 2)  # pack along axis 0
    words = pack_fp8_x4(codes, axis=0)
    assert words.shape == (2, 2)
    # Column 0 holds 0, 2, 4, 6 | 8, 10, 12, 14.
    assert words[0, 0] == 0x06040200
    assert words[1, 0] == 0x0E0C0A08
    np.testing.assert_array_equal(unpack_fp8_x4(words, axis=0), codes)


def test_fp8_x4_rejects_bad_input():
    with pytest.raises(ValueError, match="multiple of 4"):
        pack_fp8_x4(np.zeros((2, 6), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        pack_fp8_x4(np.zeros((2, 8), np.int32))
    with pytest.raises(ValueError, match="uint32"):
        unpack_fp8_x4(np.zeros((2, 8), np.uint8))
    with pytest.raises(ValueError, match="out of range"):
        pack_fp8_x4(np.zeros((2, 8), np.uint8), axis=2)


def test_lane_remap_literal_values():
    """The spec formula, worked by hand. Stride 1: w = 2, even r=0 -> 2-0-2 = 0, odd
    r=1 -> 2-1 = 1: the identity. Stride 2: w = 4, r=0 -> 4-0-2 = 2, 1 -> 3, 2 -> 0,
    3 -> 1: the two bytes of each 16-bit container swap. Stride 3: w = 6:
    [4, 5, 2, 3, 0, 1]."""
    np.testing.assert_array_equal(fp4_lane_remap(np.arange(8), 1), np.arange(8))
    np.testing.assert_array_equal(fp4_lane_remap(np.arange(8), 2), [2, 3, 0, 1, 6, 7, 4, 5])
    np.testing.assert_array_equal(fp4_lane_remap(np.arange(6), 3), [4, 5, 2, 3, 0, 1])
    np.testing.assert_array_equal(fp4_lane_remap(np.arange(4), 0), np.arange(4))


def test_lane_remap_leaves_a_partial_window():
    """n = 6 with stride 2: the last window [4, 8) is cut at 6 and indices 4, 5 map to
    6, 7, outside [0, 6): the literal formula is a permutation only of whole windows."""
    remapped = fp4_lane_remap(np.arange(6), 2)
    np.testing.assert_array_equal(remapped, [2, 3, 0, 1, 6, 7])
    with pytest.raises(ValueError, match="stride 4: axis length 12 is not a multiple of 8"):
        pack_fp4_x4(np.zeros((1, 12), np.uint8), stride=4)


def test_fp4_x4_default_layout():
    """Default stride 2, high-nibble parity 1: logical nibbles [a, b, c, d] land in
    slots [2, 3, 0, 1]; slot p is byte p >> 1, high nibble when p is odd; bytes are
    little-endian. So byte 0 = c | d << 4, byte 1 = a | b << 4: word = 0xBADC for
    nibbles [0xA, 0xB, 0xC, 0xD]."""
    assert DEFAULT_FP4_LANE_STRIDE == 2
    words = pack_fp4_x4(np.array([[0xA, 0xB, 0xC, 0xD, 1, 2, 3, 4]], np.uint8))
    np.testing.assert_array_equal(words, [[0xBADC, 0x2143]])
    plain = pack_fp4_x4(np.array([[0xA, 0xB, 0xC, 0xD]], np.uint8), stride=0)
    np.testing.assert_array_equal(plain, [[0xDCBA]])  # no remap: little-endian nibbles
    flipped = pack_fp4_x4(
        np.array([[0xA, 0xB, 0xC, 0xD]], np.uint8), stride=0, high_nibble_parity=0
    )
    np.testing.assert_array_equal(flipped, [[0xCDAB]])


def test_fp4_x4_unpack_inverts_the_layout():
    words = np.array([[0xBADC, 0x2143]], np.uint16)
    np.testing.assert_array_equal(unpack_fp4_x4(words), [[0xA, 0xB, 0xC, 0xD, 1, 2, 3, 4]])
    column = unpack_fp4_x4(words.T.copy(), axis=0)
    np.testing.assert_array_equal(column[:, 0], [0xA, 0xB, 0xC, 0xD, 1, 2, 3, 4])


def test_scale_row_slots():
    """(i & 3) + 32 * (i >> 2): groups of 4 rows stay together, each group 32 apart."""
    np.testing.assert_array_equal(
        scale_row_slot(np.arange(10)), [0, 1, 2, 3, 32, 33, 34, 35, 64, 65]
    )
    assert [scale_buffer_rows(n) for n in (0, 1, 4, 5, 16)] == [0, 32, 32, 64, 128]


def test_interleave_scale_rows_layout():
    scale = np.arange(1, 7, dtype=np.uint8).reshape(6, 1)
    buffer = interleave_scale_rows(scale, fill=0xEE)
    assert buffer.shape == (64, 1)
    np.testing.assert_array_equal(buffer[[0, 1, 2, 3, 32, 33], 0], [1, 2, 3, 4, 5, 6])
    assert (np.delete(buffer[:, 0], [0, 1, 2, 3, 32, 33]) == 0xEE).all()
    np.testing.assert_array_equal(deinterleave_scale_rows(buffer, 6), scale)


def test_deinterleave_needs_a_big_enough_buffer():
    with pytest.raises(ValueError, match="needs 34"):
        deinterleave_scale_rows(np.zeros((33, 2), np.uint8), 6)
