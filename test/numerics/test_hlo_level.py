"""The HLO-level entry points and the format lookup (``hlo-mx-legalization.txt`` §4.1)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics import (
    MxFormat,
    dequantize_mx,
    dequantize_mx_packed,
    logical_block_shape,
    quantize_mx,
    quantize_mx_packed,
    unpack_fp8_x4,
)


def test_formats():
    e4, e5, e2 = MxFormat.E4M3FN, MxFormat.E5M2, MxFormat.E2M1
    assert [f.spec_name for f in (e4, e5, e2)] == ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"]
    assert [f.emax for f in (e4, e5, e2)] == [8, 15, 2]
    assert [f.max_finite for f in (e4, e5, e2)] == [448.0, 57344.0, 6.0]
    assert [f.bits for f in (e4, e5, e2)] == [8, 8, 4]
    for fmt in (e4, e5, e2):
        assert float(ml_dtypes.finfo(fmt.dtype).max) == fmt.max_finite
        max_code = np.array([fmt.info.max_code], np.uint8).view(fmt.dtype)
        assert float(max_code.astype(np.float32)[0]) == fmt.max_finite


def test_format_names():
    assert MxFormat.from_name("float8_e4m3fn") is MxFormat.E4M3FN
    assert MxFormat.from_name("float8_e5m2") is MxFormat.E5M2
    with pytest.raises(ValueError, match="only 'float8_e5m2' and 'float8_e4m3fn'"):
        MxFormat.from_name("float4_e2m1fn")
    with pytest.raises(ValueError, match="only 'float8_e5m2' and 'float8_e4m3fn'"):
        MxFormat.from_name("float8_e4m3")
    assert MxFormat.from_spec_name("float4_e2m1fn") is MxFormat.E2M1
    with pytest.raises(ValueError, match="unknown MX element format"):
        MxFormat.from_spec_name("int8")


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16])
@pytest.mark.parametrize("axis", [-1, -2, 0])
def test_quantize_mx_packed_shapes_and_content(fmt, dtype, axis):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((64, 96)) * 10).astype(dtype)
    data, scale = quantize_mx_packed(x, fmt, axis)
    dim = axis % 2
    expected_data = list(x.shape)
    expected_data[dim] //= 4
    expected_scale = list(x.shape)
    expected_scale[dim] //= 32
    assert data.dtype == np.uint32
    assert data.shape == tuple(expected_data)
    assert scale.dtype == np.uint8
    assert scale.shape == tuple(expected_scale)
    codes, want_scale = quantize_mx(x, fmt, logical_block_shape(2, axis))
    np.testing.assert_array_equal(scale, want_scale)
    np.testing.assert_array_equal(unpack_fp8_x4(data, axis), codes)
    back = dequantize_mx_packed(data, scale, fmt, axis)
    assert back.dtype == np.float32
    assert back.shape == x.shape
    np.testing.assert_array_equal(
        back, dequantize_mx(codes, scale, fmt, logical_block_shape(2, axis))
    )


def test_dequantize_mx_packed_accepts_e8m0_scales():
    x = np.linspace(-5, 5, 64, dtype=np.float32).astype(ml_dtypes.bfloat16).reshape(2, 32)
    data, scale = quantize_mx_packed(x, MxFormat.E4M3FN)
    as_e8m0 = dequantize_mx_packed(data, scale.view(ml_dtypes.float8_e8m0fnu), MxFormat.E4M3FN)
    np.testing.assert_array_equal(as_e8m0, dequantize_mx_packed(data, scale, MxFormat.E4M3FN))
    assert np.abs(as_e8m0 - x.astype(np.float32)).max() <= 0.25  # e4m3fn at 2**2: ulp 0.5


def test_hlo_level_rejects_fp4_and_bad_shapes():
    x = np.zeros((4, 64), ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match="not an HLO MX element dtype"):
        quantize_mx_packed(x, MxFormat.E2M1)
    with pytest.raises(ValueError, match="only 'float8_e5m2'"):
        quantize_mx_packed(x, "float4_e2m1fn")
    with pytest.raises(ValueError, match="not a multiple of the block size 32"):
        quantize_mx_packed(np.zeros((4, 48), np.float16), "float8_e5m2")
    with pytest.raises(ValueError, match="rank >= 1"):
        quantize_mx_packed(np.zeros((), np.float16), "float8_e5m2")
    with pytest.raises(ValueError, match="bfloat16, float16 or float32"):
        quantize_mx_packed(np.zeros((4, 64)), "float8_e5m2")
    data = np.zeros((4, 16), np.uint32)
    with pytest.raises(ValueError, match="scale shape"):
        dequantize_mx_packed(data, np.zeros((4, 1), np.uint8), "float8_e4m3fn")
    with pytest.raises(ValueError, match="not a multiple of 32"):
        dequantize_mx_packed(
            np.zeros((4, 6), np.uint32), np.zeros((4, 1), np.uint8), "float8_e4m3fn"
        )


def test_unpacked_level_validates_geometry():
    with pytest.raises(ValueError, match="not a multiple of the MX block extent 4"):
        quantize_mx(np.zeros((8, 6), np.float32), MxFormat.E2M1, (8, 4))
    with pytest.raises(ValueError, match="block shape"):
        quantize_mx(np.zeros((8, 8), np.float32), MxFormat.E2M1, (8,))
    with pytest.raises(ValueError, match="scale shape"):
        dequantize_mx(np.zeros((8, 8), np.uint8), np.zeros((2, 2), np.uint8), MxFormat.E2M1, (8, 4))
