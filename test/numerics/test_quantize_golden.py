"""Quantize golden vectors, each worked out by hand from spec ``mx-quantize-numerics.txt``:

* exponent byte  = (uint8)(fp32_bits >> 23)    (sign dropped, denormals 0, Inf/NaN 255)
* E8M0           = max(1, max(0, maxExp - emaxBias)),  emaxBias = emax (2 / 8 / 15),
                   or emax - 1 with the alternative mode
* multiplier     = bit_cast<float>((254 - E8M0) << 23) = 2**(127 - E8M0)
* code           = RNE-saturating narrow of (x * multiplier)

A block is 32 elements; each vector lists its first elements, the rest are +0.0 (exponent
byte 0: no effect on the max, code 0). Every vector runs in three block geometries (32
along the last axis, 32 along the first axis, one 8 x 4 physical tile) and through both
the fast and the reference path.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics import (
    MxFormat,
    block_scales,
    dequantize_mx,
    quantize_mx,
    quantize_mx_reference,
)

E4, E5, E2 = MxFormat.E4M3FN, MxFormat.E5M2, MxFormat.E2M1


def bf16(*bits: int) -> np.ndarray:
    return np.array(bits, np.uint16).view(ml_dtypes.bfloat16)


# (name, format, alternative_emax, leading inputs, expected E8M0, expected leading codes)
GOLDEN = [
    # All-zero block: maxExp = 0; 0 - 8 = -8 -> CLAMP-LOW 0 -> ZERO-FLOOR 1. 0 * 2**126
    # keeps the sign: +0 -> 0x00, -0 -> 0x80 (0x8 for the e2m1 nibble).
    ("all zero", E4, False, bf16(0x0000, 0x8000), 1, [0x00, 0x80]),
    ("all zero", E5, False, bf16(0x0000, 0x8000), 1, [0x00, 0x80]),
    ("all zero", E2, False, bf16(0x0000, 0x8000), 1, [0x0, 0x8]),
    # Denormal-only block: bf16 0x0001 = 2**-133, 0x8040 = -2**-127, 0x007F = 127 * 2**-133.
    # Exponent bytes all 0 -> E8M0 = 1, multiplier 2**126:
    #   2**-7      e4m3fn subnormal 4 * 2**-9 -> 0x04 | e5m2 normal, exp -7+15=8 -> 0x20
    #   -0.5       e4m3fn exp -1+7=6 -> 0xB0     | e5m2 exp 14 -> 0xB8 | e2m1 0x9
    #   0.9921875  = 1.984375 * 2**-1; 3 mantissa bits: 7.875 -> 8 carries to 1.0 -> 0x38;
    #              e5m2: 3.9375 -> 4 carries to 1.0, exp 15 -> 0x3C; e2m1: nearest 1.0 -> 0x2
    ("denormals", E4, False, bf16(0x0001, 0x8040, 0x007F), 1, [0x04, 0xB0, 0x38]),
    ("denormals", E5, False, bf16(0x0001, 0x8040, 0x007F), 1, [0x20, 0xB8, 0x3C]),
    ("denormals", E2, False, bf16(0x0001, 0x8040, 0x007F), 1, [0x0, 0x9, 0x2]),
    # Clamp-low: max 2**-122 has exponent byte 5; 5 - 8 = -3 -> 0 -> 1; 2**-122 * 2**126
    # = 16 = 2**4, exp 11 -> 0x58. e5m2: 5 - 15 < 0 -> 1 as well; 16 -> exp 19 -> 0x4C.
    ("clamp low", E4, False, bf16(0x0280), 1, [0x58]),
    ("clamp low", E5, False, bf16(0x0280), 1, [0x4C]),
    # Zero-floor alone: 2**-119, exponent byte 8; 8 - 8 = 0 -> 1; 2**-119 * 2**126 = 128
    # -> exp 14 -> 0x70. One more binade, 2**-118 (byte 9): 9 - 8 = 1, no clamp; 256 ->
    # 0x78. 1.5 * 2**-117 (byte 10): E8M0 2, multiplier 2**125, 384 = 1.5 * 2**8 -> 0x7C.
    ("zero floor", E4, False, bf16(0x0400), 1, [0x70]),
    ("no clamp", E4, False, bf16(0x0480), 1, [0x78]),
    ("no clamp", E4, False, bf16(0x0540), 2, [0x7C]),
    # Largest finite bf16: 0x7F7F = (2 - 2**-7) * 2**127, byte 254.
    # e4m3fn: E8M0 = 246, multiplier (254-246) << 23 = 2**-119:
    #   max -> 510 > 448 saturates 0x7E; 0x7F60 = 1.75 * 2**127 -> 448 exactly 0x7E;
    #   0x7F40 -> 384 = 0x7C; 0x7F00 -> 256 = 0x78; -max -> 0xFE; 2**-133 -> 0.
    (
        "bf16 max",
        E4,
        False,
        bf16(0x7F7F, 0x7F60, 0x7F40, 0x7F00, 0xFF7F, 0x0001),
        246,
        [0x7E, 0x7E, 0x7C, 0x78, 0xFE, 0x00],
    ),
    # e5m2: E8M0 = 254 - 15 = 239, multiplier 2**-112: max -> 65280 > 57344 -> 0x7B;
    #   57344 exactly -> 0x7B; 49152 = 1.5 * 2**15 -> exp 30 mant 2 -> 0x7A; 2**15 -> 0x78.
    (
        "bf16 max",
        E5,
        False,
        bf16(0x7F7F, 0x7F60, 0x7F40, 0x7F00, 0xFF7F, 0x0001),
        239,
        [0x7B, 0x7B, 0x7A, 0x78, 0xFB, 0x00],
    ),
    # e2m1: E8M0 = 254 - 2 = 252, multiplier 2**-125: max -> 7.97 -> 6 (0x7); 7.0 is the
    #   6/8 tie, rounds to 8 and saturates 0x7; 6.0 -> 0x7; 4.0 -> 0x6.
    (
        "bf16 max",
        E2,
        False,
        bf16(0x7F7F, 0x7F60, 0x7F40, 0x7F00, 0xFF7F, 0x0001),
        252,
        [0x7, 0x7, 0x7, 0x6, 0xF, 0x0],
    ),
    # Mixed signs: -3.0, 2.0, -0.0, 1.5, bf16(0.3) = 0x3E9A = 1.203125 * 2**-2.
    # maxExp = byte of 3.0 = 128.
    # e4m3fn: E8M0 = 120, x * 2**7: -384 -> 0xFC; 256 -> 0x78; -0 -> 0x80; 192 -> 0x74;
    #   38.5 = 1.203125 * 2**5: mantissa 1.625 eighths -> 2 -> 40, exp 12 -> 0x62.
    (
        "mixed signs",
        E4,
        False,
        bf16(0xC040, 0x4000, 0x8000, 0x3FC0, 0x3E9A),
        120,
        [0xFC, 0x78, 0x80, 0x74, 0x62],
    ),
    # alternative emax 7: E8M0 = 121, x * 2**6: -192 -> 0xF4; 128 -> 0x70; 96 -> 0x6C;
    #   19.25 = 1.203125 * 2**4 -> 1.25 * 2**4, exp 11 -> 0x5A.
    (
        "mixed signs",
        E4,
        True,
        bf16(0xC040, 0x4000, 0x8000, 0x3FC0, 0x3E9A),
        121,
        [0xF4, 0x70, 0x80, 0x6C, 0x5A],
    ),
    # e5m2: E8M0 = 113, x * 2**14: -1.5 * 2**15 -> 0xFA; 2**15 -> 0x78; 1.5 * 2**14 ->
    #   exp 29 -> 0x76; 1.203125 * 2**12: 0.8125 quarters -> 1, exp 27 -> 0x6D.
    (
        "mixed signs",
        E5,
        False,
        bf16(0xC040, 0x4000, 0x8000, 0x3FC0, 0x3E9A),
        113,
        [0xFA, 0x78, 0x80, 0x76, 0x6D],
    ),
    # e5m2, alternative emax 14: E8M0 = 114, x * 2**13: 0xF6, 0x74, 0x80, 0x72, 0x69.
    (
        "mixed signs",
        E5,
        True,
        bf16(0xC040, 0x4000, 0x8000, 0x3FC0, 0x3E9A),
        114,
        [0xF6, 0x74, 0x80, 0x72, 0x69],
    ),
    # e2m1: E8M0 = 126, x * 2: -6 -> 0xF; 4 -> 0x6; -0 -> 0x8; 3 -> 0x5; 0.6015625 -> 0.5.
    (
        "mixed signs",
        E2,
        False,
        bf16(0xC040, 0x4000, 0x8000, 0x3FC0, 0x3E9A),
        126,
        [0xF, 0x6, 0x8, 0x5, 0x1],
    ),
    # e2m1, alternative emax 1: E8M0 = 127, x * 1: -3 -> 0xD; 2 -> 0x4; 1.5 -> 0x3;
    #   0.30078125 is nearer 0.5 than 0 -> 0x1.
    (
        "mixed signs",
        E2,
        True,
        bf16(0xC040, 0x4000, 0x8000, 0x3FC0, 0x3E9A),
        127,
        [0xD, 0x4, 0x8, 0x3, 0x1],
    ),
    # Inf / NaN read exponent byte 255: +Inf, 1.0, +NaN, -Inf, -NaN.
    # e4m3fn: E8M0 = 247, x * 2**-120: Inf stays Inf -> saturates 0x7E; 1.0 -> 2**-120
    #   -> 0; NaN -> 0x7F; -Inf -> 0xFE; -NaN -> 0xFF.
    (
        "inf nan",
        E4,
        False,
        bf16(0x7F80, 0x3F80, 0x7FC0, 0xFF80, 0xFFC1),
        247,
        [0x7E, 0x00, 0x7F, 0xFE, 0xFF],
    ),
    (
        "inf nan",
        E4,
        True,
        bf16(0x7F80, 0x3F80, 0x7FC0, 0xFF80, 0xFFC1),
        248,
        [0x7E, 0x00, 0x7F, 0xFE, 0xFF],
    ),
    # e5m2: E8M0 = 240: 0x7B, 0, 0x7E (canonical NaN), 0xFB, 0xFE.
    (
        "inf nan",
        E5,
        False,
        bf16(0x7F80, 0x3F80, 0x7FC0, 0xFF80, 0xFFC1),
        240,
        [0x7B, 0x00, 0x7E, 0xFB, 0xFE],
    ),
    # e2m1: E8M0 = 253: Inf -> 6 (0x7); NaN -> signed zero nibble (0x0 / 0x8).
    (
        "inf nan",
        E2,
        False,
        bf16(0x7F80, 0x3F80, 0x7FC0, 0xFF80, 0xFFC1),
        253,
        [0x7, 0x0, 0x0, 0xF, 0x8],
    ),
]

GEOMETRIES: dict[str, tuple[Callable[[np.ndarray], np.ndarray], tuple[int, int]]] = {
    "32 along the last axis": (lambda block: block.reshape(1, 32), (1, 32)),
    "32 along the first axis": (lambda block: block.reshape(32, 1), (32, 1)),
    "8 x 4 physical tile": (lambda block: block.reshape(8, 4), (8, 4)),
}
PATHS = {"fast": quantize_mx, "reference": quantize_mx_reference}


def padded(leading: np.ndarray) -> np.ndarray:
    block = np.zeros(32, ml_dtypes.bfloat16)
    block[: leading.size] = leading
    return block


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize(
    ("name", "fmt", "alternative", "leading", "e8m0", "codes"),
    GOLDEN,
    ids=[f"{g[0]}-{g[1].spec_name}{'-alt' if g[2] else ''}" for g in GOLDEN],
)
def test_golden(path, geometry, name, fmt, alternative, leading, e8m0, codes):
    shape_block, block_shape = GEOMETRIES[geometry]
    x = shape_block(padded(leading))
    got_codes, got_scale = PATHS[path](x, fmt, block_shape, alternative_emax=alternative)
    assert got_scale.shape == (1, 1)
    assert int(got_scale[0, 0]) == e8m0, name
    flat = got_codes.reshape(-1)
    np.testing.assert_array_equal(flat[: len(codes)], codes)
    np.testing.assert_array_equal(flat[len(codes) :], 0)


def test_f16_max():
    """f16 max 65504 = (2 - 2**-10) * 2**15 widens to fp32 exponent byte 142.
    e4m3fn: E8M0 = 134, x * 2**-7: 511.75 saturates 0x7E; 57344 -> 448 = 0x7E;
    32768 -> 256 = 0x78; -65504 -> 0xFE; f16 min denormal 2**-24 (fp32 byte 103) -> 0.
    e5m2: E8M0 = 127 (multiplier 1): 65504 > 57344 saturates 0x7B; 57344 -> 0x7B;
    2**15 -> exp 30 -> 0x78; -65504 -> 0xFB; 2**-24 < half of 2**-16 -> 0."""
    x = np.zeros(32, np.float16)
    x[:5] = [65504, 57344, 32768, -65504, 2.0**-24]
    codes, scale = quantize_mx(x.reshape(1, 32), E4, (1, 32))
    assert int(scale[0, 0]) == 134
    np.testing.assert_array_equal(codes[0, :5], [0x7E, 0x7E, 0x78, 0xFE, 0x00])
    codes, scale = quantize_mx(x.reshape(8, 4), E5, (8, 4))
    assert int(scale[0, 0]) == 127
    np.testing.assert_array_equal(codes.reshape(-1)[:5], [0x7B, 0x7B, 0x78, 0xFB, 0x00])


def test_e2m1_alternative_mode_inf_block_has_a_zero_multiplier():
    """e2m1 with emax - 1 = 1 and an Inf in the block: E8M0 = 255 - 1 = 254, the largest
    byte the quantizer emits, and the multiplier bit pattern (254 - 254) << 23 is +0.0:
    every element becomes 0 or (Inf * 0) NaN, and both narrow to a zero nibble. The
    sign of that NaN is the platform's default NaN, so only the magnitude is checked."""
    x = padded(bf16(0x7F80, 0x3F80, 0xFF80, 0x7FC0))
    for path in PATHS.values():
        codes, scale = path(x.reshape(1, 32), E2, (1, 32), alternative_emax=True)
        assert int(scale[0, 0]) == 254
        np.testing.assert_array_equal(codes & 0x7, 0)


def test_physical_tile_with_four_blocks():
    """A [16, 8] tile is 2 x 2 physical blocks; the scale tensor is [16/8, 8/4] = [2, 2].
    Block (0, 0) all zero -> 1; block (0, 1) holds -3.0 -> 128 - 8 = 120;
    block (1, 0) holds +Inf -> 255 - 8 = 247; block (1, 1) holds 2**-122 -> 1."""
    x = np.zeros((16, 8), ml_dtypes.bfloat16)
    x[2, 5] = -3.0
    x[3, 4] = 1.5  # same block as -3.0: 1.5 * 2**7 = 192 -> 0x74
    x[9, 1] = np.inf
    x[8, 0] = 1.0  # Inf's block: 1.0 * 2**-120 -> 0
    x[15, 7] = bf16(0x0280)[0]  # 2**-122 * 2**126 = 16 -> 0x58
    for path in PATHS.values():
        codes, scale = path(x, E4, (8, 4))
        np.testing.assert_array_equal(scale, [[1, 120], [247, 1]])
        assert codes[2, 5] == 0xFC
        assert codes[3, 4] == 0x74
        assert codes[9, 1] == 0x7E
        assert codes[8, 0] == 0x00
        assert codes[15, 7] == 0x58
        assert np.count_nonzero(codes) == 4


def test_block_scales_alone():
    x = np.zeros((2, 64), ml_dtypes.bfloat16)
    x[0, 40] = 3.0  # byte 128 -> e4m3fn 120, e5m2 113, e2m1 126
    x[1, 0] = -np.inf
    np.testing.assert_array_equal(block_scales(x, E4, (1, 32)), [[1, 120], [247, 1]])
    np.testing.assert_array_equal(block_scales(x, E5, (1, 32)), [[1, 113], [240, 1]])
    np.testing.assert_array_equal(
        block_scales(x, E2, (1, 32), alternative_emax=True), [[1, 127], [254, 1]]
    )


# Dequantize golden values: element * 2**(E8M0 - 127), checked against float64 ldexp
# rounded once to fp32 (independent of the code under test).
DEQUANT = [
    (E4, 0x7E, 246, 448.0 * 2.0**119),
    (E4, 0x38, 0, 2.0**-127),  # 1.0 * 2**-127: an fp32 denormal, exact
    (E4, 0x01, 0, 2.0**-136),  # smallest e4m3fn subnormal 2**-9 at the smallest scale
    (E4, 0xB0, 127, -0.5),
    (E4, 0x7E, 254, np.inf),  # 448 * 2**127 overflows fp32 like ldexpf
    (E5, 0x7B, 254, np.inf),
    (E5, 0x01, 1, 2.0**-142),  # e5m2 subnormal 2**-16 * 2**-126: exact denormal
    (E5, 0x7C, 127, np.inf),  # the e5m2 Inf code
    (E2, 0x7, 130, 48.0),
    (E2, 0x9, 126, -0.25),
]


@pytest.mark.parametrize(("fmt", "code", "e8m0", "value"), DEQUANT)
def test_dequantize_golden(fmt, code, e8m0, value):
    codes = np.full((1, 32), code, np.uint8)
    scale = np.array([[e8m0]], np.uint8)
    got = dequantize_mx(codes, scale, fmt, (1, 32))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.float32(value))


@pytest.mark.parametrize("fmt", [E4, E5, E2], ids=lambda f: f.spec_name)
def test_dequantize_e8m0_255_is_nan(fmt):
    codes = np.zeros((1, 32), np.uint8)
    codes[0, 1] = 0x1
    got = dequantize_mx(codes, np.array([[255]], np.uint8), fmt, (1, 32))
    assert np.isnan(got).all()
