"""The MX golden's independent path (mxdsl/kernels/moe_cte/independent_mx.py) and
mxdsl.numerics agree bit for bit: quantize (codes and E8M0), dequantize, FP8 / FP4 x4
packing, the scale-row interleave, on random and adversarial data in every format.
Also pins the independent path to values derived by hand from the spec, so agreement is
not agreement on a shared mistake."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mxdsl import numerics
from mxdsl.kernels.moe_cte.reference import independent_mx as ind
from mxdsl.numerics import MxFormat

RNG = np.random.default_rng(1515)
FORMATS = [MxFormat.E4M3FN, MxFormat.E5M2, MxFormat.E2M1]
BLOCKS = [(8, 4), (1, 32), (32, 1)]


def adversarial(shape: tuple[int, int]) -> np.ndarray:
    """fp32 blocks of every kind: wide exponents, zeros, -0, fp32 subnormals, Inf, NaN,
    values at the narrows' saturation and tie points."""
    x = RNG.standard_normal(shape) * np.exp2(RNG.integers(-140, 128, shape))
    with np.errstate(over="ignore"):
        x = x.astype(np.float32)  # the largest overflow to Inf: more specials
    flat = x.reshape(-1)
    n = flat.size
    specials = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 2.0**-126, 448.0,
         464.0, 465.0, 57344.0, 61440.0, 6.0, 7.0, 8.0, 0.25, 0.75, 3.4e38, -3.4e38],
        np.float32,
    )  # fmt: skip
    where = RNG.choice(n, n // 8, replace=False)
    flat[where] = RNG.choice(specials, where.size)
    x[:8, :4] = 0.0  # an all-zero block
    x[8:16, :4] = -0.0
    x[16:24, :4] = np.float32(1e-40)  # subnormal-only block
    x[24:32, :4] = RNG.choice(specials, (8, 4))
    return x


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Bit-identical except a NaN's sign and payload (IEEE 754 leaves them to the
    implementation in a product, and numpy's SIMD loops differ): NaN where NaN."""
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got.view(np.uint32)[~nan], want.view(np.uint32)[~nan])


def bf16_all_patterns() -> np.ndarray:
    """Every bf16 bit pattern, as fp32, in 8 x 4 blocks."""
    bits = np.arange(2**16, dtype=np.uint32) << 16
    return bits.view(np.float32).reshape(-1, 4 * 64).reshape(-1, 256)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.spec_name)
@pytest.mark.parametrize("block", BLOCKS)
def test_quantize_dequantize_agree(fmt, block):
    for x in (adversarial((64, 128)), RNG.standard_normal((64, 128)).astype(np.float32)):
        codes, scale = ind.quantize_mx(x, fmt, block)
        want_codes, want_scale = numerics.quantize_mx(x, fmt, block)
        assert np.array_equal(scale, want_scale)
        assert np.array_equal(codes, want_codes)
        same_bits(
            ind.dequantize_mx(codes, scale, fmt, block),
            numerics.dequantize_mx(codes, scale, fmt, block),
        )


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.spec_name)
def test_every_bf16_pattern_agrees(fmt):
    x = bf16_all_patterns()
    with np.errstate(invalid="ignore"):
        as_bf16 = x.astype(ml_dtypes.bfloat16)  # exact: every value is a bf16
    for source in (x, as_bf16):
        codes, scale = ind.quantize_mx(source, fmt, (8, 4))
        want_codes, want_scale = numerics.quantize_mx(source, fmt, (8, 4))
        assert np.array_equal(scale, want_scale)
        assert np.array_equal(codes, want_codes)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.spec_name)
def test_dequantize_every_code_under_every_scale(fmt):
    codes = np.tile(np.arange(16 if fmt == MxFormat.E2M1 else 256, dtype=np.uint8), 256)
    scale = np.repeat(np.arange(256, dtype=np.uint8), codes.size // 256)
    codes, scale = codes.reshape(-1, 1), scale.reshape(-1, 1)
    same_bits(
        ind.dequantize_mx(codes, scale, fmt, (1, 1)),
        numerics.dequantize_mx(codes, scale, fmt, (1, 1)),
    )


def test_packing_and_interleave_agree():
    codes = RNG.integers(0, 256, (6, 16, 32), dtype=np.uint8)
    nibbles = (codes & 0xF).astype(np.uint8)
    for axis in (-1, 1, 0):
        if codes.shape[axis] % 4:
            continue
        w8 = ind.pack_fp8_x4(codes, axis)
        assert np.array_equal(w8, numerics.pack_fp8_x4(codes, axis))
        assert np.array_equal(ind.unpack_fp8_x4(w8, axis), codes)
        w4 = ind.pack_fp4_x4(nibbles, axis)
        assert np.array_equal(w4, numerics.pack_fp4_x4(nibbles, axis))
        assert np.array_equal(ind.unpack_fp4_x4(w4, axis), nibbles)
        assert np.array_equal(numerics.unpack_fp4_x4(w4, axis), nibbles)
    for n in (1, 4, 5, 16):
        scale = RNG.integers(0, 256, (n, 3), dtype=np.uint8)
        assert np.array_equal(
            ind.interleave_scale_rows(scale), numerics.interleave_scale_rows(scale)
        )


def test_independent_path_against_the_spec_by_hand():
    """Values worked out from the spec's text, not from either implementation."""
    # lane_remap, stride 2 (docs/numerics.md table): 0..7 -> 2 3 0 1 6 7 4 5
    assert ind.lane_remap(np.arange(8), 2).tolist() == [2, 3, 0, 1, 6, 7, 4, 5]
    # nibbles A B C D: A -> slot 2 (byte 1 low), B -> 3 (byte 1 high), C -> 0, D -> 1
    assert ind.pack_fp4_x4(np.array([0xA, 0xB, 0xC, 0xD], np.uint8)).tolist() == [0xBADC]
    assert ind.pack_fp8_x4(np.array([1, 2, 3, 4], np.uint8)).tolist() == [0x04030201]
    # a block with max |x| = 1000 (fp32 exponent byte 136): E8M0 = 136 - 8 = 128, so the
    # prescale halves; 1000 / 2 = 500 saturates to 448 = e4m3fn 0x7E; -3 / 2 = -1.5 = 0xBC
    x = np.zeros((8, 4), np.float32)
    x[0, 0], x[1, 1] = 1000.0, -3.0
    codes, scale = ind.quantize_mx(x, "float8_e4m3fn", (8, 4))
    assert scale.tolist() == [[128]]
    assert codes[0, 0] == 0x7E
    assert codes[1, 1] == 0xBC
    assert codes[2, 2] == 0
    # all-zero block: ZERO-FLOOR gives 1; e2m1: 5 in a block whose max is 5 -> E8M0 =
    # 129 - 2 = 127, 5 -> RNE between 4 and 6 (tie to even mantissa) = 4 = nibble 0x6
    assert ind.block_scales(np.zeros((8, 4), np.float32), "float8_e5m2", (8, 4)).tolist() == [[1]]
    codes, scale = ind.quantize_mx(np.full((8, 4), 5.0, np.float32), "float4_e2m1fn", (8, 4))
    assert scale.tolist() == [[127]]
    assert set(codes.ravel().tolist()) == {0x6}
    # NaN -> signed zero nibble; Inf -> +-6 (0x7 / 0xF)
    x = np.array([[np.nan, -np.nan, np.inf, -np.inf]], np.float32)
    codes, scale = ind.quantize_mx(x, "float4_e2m1fn", (1, 4))
    assert codes.tolist() == [[0x0, 0x8, 0x7, 0xF]]
    assert scale.tolist() == [[253]]
    # dequantize: code 0x38 (e4m3fn 1.0) under E8M0 0 is 2**-127 (an fp32 subnormal)
    got = ind.dequantize_mx(
        np.array([[0x38]], np.uint8), np.array([[0]], np.uint8), "float8_e4m3fn", (1, 1)
    )
    assert got[0, 0] == np.float32(2.0**-127)
