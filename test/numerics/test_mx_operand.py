"""The MX matmul operand of FP8 x4 tiles (``mx_matmul_operand``, fp32 and float64) on
its integer-decode path against values worked out here: each element is
``code * 2**(E8M0 - 127)`` computed exactly in float64 and rounded once to fp32
(``dequantize_mx_reference``'s ldexpf semantics: overflow to Inf, denormals kept)."""

import numpy as np
import pytest

from mxdsl.numerics import MxFormat, pack_fp8_x4
from mxdsl.numerics import matmul as mm
from mxdsl.numerics.matmul import mx_matmul_operand

FP8 = [MxFormat.E4M3FN, MxFormat.E5M2]
DTYPES = [np.float32, np.float64]


def _blocks_of_every_code(fmt: MxFormat, top_scale: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes ``[256, 256]`` (P = 256 partitions, F = 64 words) and scale rows ``[32, 64]``:
    block ``b`` (8 partitions x 4 lanes) holds codes ``32 * (b % 8) ..`` + 31 (Inf / NaN
    codes replaced by 0) under E8M0 ``min(b // 8, top_scale)``, so every finite code
    meets every E8M0 byte up to ``top_scale``."""
    p, lane = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    f, q = lane // 4, lane % 4
    block = (p // 8) * 64 + f
    codes = ((block % 8) * 32 + (p % 8) * 4 + q).astype(np.uint8)
    codes[~np.isfinite(codes.view(fmt.dtype).astype(np.float32))] = 0
    scales = np.minimum(np.arange(32 * 64).reshape(32, 64) // 8, top_scale).astype(np.uint8)
    return codes, scales


def _expected(codes: np.ndarray, scales: np.ndarray, fmt: MxFormat) -> np.ndarray:
    """``[F, 4P]`` fp32: the exact product in float64 rounded once (E8M0 255 is NaN)."""
    values = codes.view(fmt.dtype).astype(np.float64)
    factor = np.exp2(scales.astype(np.float64) - 127)
    factor[scales == 255] = np.nan
    factor = np.repeat(np.repeat(factor, 8, 0), 4, 1)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = (values * factor).astype(np.float32)
    partitions = codes.shape[0]
    return rounded.reshape(partitions, -1, 4).transpose(1, 0, 2).reshape(-1, 4 * partitions)


def _strided(words: np.ndarray) -> np.ndarray:
    """The words as a column slice of a wider buffer (as the kernels read weight tiles)."""
    wide = np.zeros((words.shape[0], 3 * words.shape[1]), words.dtype)
    wide[:, words.shape[1] : 2 * words.shape[1]] = words
    return wide[:, words.shape[1] : 2 * words.shape[1]]


def _bits(values: np.ndarray) -> np.ndarray:
    return values.view(np.uint64 if values.dtype == np.float64 else np.uint32)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("fmt", FP8, ids=lambda f: f.spec_name)
@pytest.mark.parametrize("above", [0, 1, None], ids=["one-multiply", "two-multiplies", "254"])
def test_every_finite_code_under_every_scale(fmt: MxFormat, dtype: type, above: int | None) -> None:
    """Every finite code under every E8M0 byte up to ``127 + bias + above`` (the largest
    whose ``2**(E8M0 - bias)`` is an fp32, and one more) or 254: fp32 denormals (E8M0 0
    with small codes), -0, and (254) products that overflow to +-Inf."""
    top_scale = 254 if above is None else 127 + fmt.info.bias + above
    codes, scales = _blocks_of_every_code(fmt, top_scale)
    words = _strided(pack_fp8_x4(codes))
    assert mm._fp8_operand(words, scales, fmt) is not None
    got = mx_matmul_operand(words, scales, fmt, dtype=dtype)
    want = _expected(codes, scales, fmt).astype(dtype)
    assert got.dtype == dtype
    assert got.shape == want.shape
    assert np.array_equal(_bits(got), _bits(want))
    assert (np.abs(want[want != 0]) < np.finfo(np.float32).tiny).any()
    assert (_bits(want) == _bits(np.array(-0.0, dtype))).any()
    assert np.isinf(want).any() == (top_scale == 254)


@pytest.mark.parametrize("fmt", FP8, ids=lambda f: f.spec_name)
def test_inf_nan_codes_and_nan_scales_take_the_table_path(fmt: MxFormat) -> None:
    """One Inf / NaN code or one E8M0 255 anywhere in the tile: the table path, whose
    float64 result is its fp32 one widened, NaN payloads included."""
    codes, scales = _blocks_of_every_code(fmt, 200)
    special = np.flatnonzero(~np.isfinite(np.arange(256, dtype=np.uint8).view(fmt.dtype)))
    cases = []
    for code in special:
        with_code = codes.copy()
        with_code[200, 37] = code
        cases.append((with_code, scales))
    with_scale = scales.copy()
    with_scale[31, 63] = 255
    cases.append((codes, with_scale))
    for case_codes, case_scales in cases:
        words = _strided(pack_fp8_x4(case_codes))
        assert mm._fp8_operand(words, case_scales, fmt) is None
        f64 = mx_matmul_operand(words, case_scales, fmt, dtype=np.float64)
        f32 = mx_matmul_operand(words, case_scales, fmt)
        with np.errstate(invalid="ignore"):
            widened = f32.astype(np.float64)
        assert np.array_equal(f64.view(np.uint64), widened.view(np.uint64))
        want = _expected(case_codes, case_scales, fmt)
        known = ~np.isnan(want)
        assert np.array_equal(np.isnan(f32), ~known)
        assert np.array_equal(f32[known].view(np.uint32), want[known].view(np.uint32))
