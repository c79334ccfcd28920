"""The bir MX instructions (quantize_mx, matmult_mx) bit for bit: against mxdsl.numerics'
physical-geometry quantize, against plain numpy, and against the nisa interpreter on the
same tiles (so the two levels agree)."""
# ruff: noqa: E501  (IR text of the kernels under test)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.bir import Machine, machine
from mxdsl.numerics.blocks import PHYSICAL_BLOCK_SHAPE
from mxdsl.numerics.formats import MxFormat
from mxdsl.numerics.packing import interleave_scale_rows, pack_fp4_x4, pack_fp8_x4
from mxdsl.numerics.quantize import quantize_mx
from mxdsl.numerics.reference import quantize_mx_reference
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]

BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(11)
SRC_CODES = {
    np.dtype(BF16): (10, "bf16"),
    np.dtype(np.float16): (11, "f16"),
    np.dtype(np.float32): (16, "f32"),
}
X4 = {
    8: ("!nisa.float8_e4m3fn_x4", MxFormat.E4M3FN),
    9: ("!nisa.float8_e5m2_x4", MxFormat.E5M2),
    2: ("!nisa.float4_e2m1fn_x4", MxFormat.E2M1),
}


def run(text: str, symbol: str, *inputs: np.ndarray):
    ctx = _context()
    module, _ = parse_located(ctx, text, "t")
    module.verify()
    interpreter = make_interpreter(module, ctx)
    interpreter.call_op(symbol, inputs)
    return interpreter


def ap(mem: str, np_: int, f: int, dtype: int, off: int = 0) -> str:
    return f"#bir.ap<{mem}, p0 = 0, np = {np_}, [[1, {f}]], off = {off}, dtype = {dtype}>"


def hb(p: int, f: int, dtype: int) -> str:
    return f"#bir.ap<hbm, [[{f}, {p}], [1, {f}]], off = 0, dtype = {dtype}>"


def mt(p: int, f: int, t: str, space: str = "hbm") -> str:
    return f"memref<{p}x{f}x{t}, #nisa.mem<{space}>>"


def mx_tile(p: int, f: int, dtype: np.dtype, specials: bool = True) -> np.ndarray:
    """Random values over a wide exponent range, with an all-zero block, an Inf, a NaN,
    denormal-only and tiny blocks when ``specials``."""
    x = RNG.standard_normal((p, f)) * np.exp2(RNG.integers(-20, 20, size=(p, f)))
    if specials:
        x[0:8, 0:4] = 0.0
        x[8:16, 0:4] = 1e-6 * RNG.standard_normal((8, 4))
        x[0, 4] = np.inf
        x[9, 8] = np.nan
        x[16:24, 4:8] = 2.0**-130
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def bir_quantize(
    x: np.ndarray, data_code: int, *, alt: bool = False
) -> tuple[np.ndarray, np.ndarray, Machine]:
    """Quantize x with bir: returns (data as HBM words / codes, the whole scale tile)."""
    p, f = x.shape
    src_code, src_t = SRC_CODES[x.dtype]
    lanes = 1 if data_code in (5, 7) else 4
    fd = f // lanes
    if data_code in (5, 7):
        data_t, data_np = ("f8E4M3FN" if data_code == 5 else "f8E5M2"), np.uint8
    else:
        data_t, data_np = X4[data_code][0], (np.uint16 if data_code == 2 else np.uint32)
    data = np.zeros((p, fd), data_np)
    scale = np.zeros((p, f // 4), np.uint8)
    tx, td, ts = mt(p, f, src_t), mt(p, fd, data_t), mt(p, f // 4, "ui8")
    text = (
        f"func.func @q(%x: {tx}, %d: {td}, %s: {ts}) {{\n"
        f"  bir.dma {ap('sbuf', p, f, src_code)}, {hb(p, f, src_code)} of %x : {tx}\n"
        f"  bir.quantize_mx {ap('sbuf', p, fd, data_code, 65536)} scale {ap('sbuf', p, f // 4, 1, 131072)}, "
        f"{ap('sbuf', p, f, src_code)}{' alternative_emax' if alt else ''}\n"
        f"  bir.dma {hb(p, fd, data_code)} of %d : {td}, {ap('sbuf', p, fd, data_code, 65536)}\n"
        f"  bir.dma {hb(p, f // 4, 1)} of %s : {ts}, {ap('sbuf', p, f // 4, 1, 131072)}\n"
        "  func.return\n}"
    )
    interp = run(text, "q", x, data, scale)
    return data, scale, machine(interp)


@pytest.mark.parametrize("data_code", [8, 9, 2, 5, 7])
@pytest.mark.parametrize("src", [BF16, np.float16, np.float32])
@pytest.mark.parametrize("alt", [False, True])
def test_quantize_mx_matches_numerics_physical_geometry(data_code, src, alt):
    p, f = 64, 32
    x = mx_tile(p, f, np.dtype(src))
    data, scale, _ = bir_quantize(x, data_code, alt=alt)
    fmt = {
        8: MxFormat.E4M3FN,
        5: MxFormat.E4M3FN,
        9: MxFormat.E5M2,
        7: MxFormat.E5M2,
        2: MxFormat.E2M1,
    }[data_code]
    codes, expected_scale = quantize_mx_reference(
        x, fmt, PHYSICAL_BLOCK_SHAPE, alternative_emax=alt
    )
    fast_codes, fast_scale = quantize_mx(x, fmt, PHYSICAL_BLOCK_SHAPE, alternative_emax=alt)
    np.testing.assert_array_equal(fast_codes, codes)  # the public entry point agrees
    np.testing.assert_array_equal(fast_scale, expected_scale)
    if data_code == 2:
        expected = pack_fp4_x4(codes)
    elif data_code in (8, 9):
        expected = pack_fp8_x4(codes)
    else:
        expected = codes
    np.testing.assert_array_equal(data, expected)
    rows = interleave_scale_rows(expected_scale)  # row i at (i & 3) + 32 * (i >> 2)
    slots = np.array([0, 1, 2, 3, 32, 33, 34, 35])
    np.testing.assert_array_equal(scale[slots], rows[slots])
    other = np.setdiff1d(np.arange(p), slots)
    assert (scale[other] == 0xFF).all(), "partitions that are no scale slot stay unwritten"


def test_quantize_mx_step_by_step_on_a_hand_block():
    """One 8 x 4 block by hand: max exponent byte, EMAX bias 8, clamps, 254 prescale."""
    x = np.zeros((32, 4), np.float32)
    x[:8] = 1.0
    x[3, 2] = -1000.0  # exponent byte 136 -> E8M0 136 - 8 = 128: prescale 2^(127 - 128)
    x[8:16] = 2.0**-140  # fp32 denormal: exponent byte 0 -> CLAMP-LOW 0 -> ZERO-FLOOR 1
    data, scale, _ = bir_quantize(x, 8)
    np.testing.assert_array_equal(scale[[0, 1, 2, 3], 0], [128, 1, 1, 1])
    codes = data.view(np.uint8).reshape(32, 4)
    e4 = ml_dtypes.float8_e4m3fn
    assert codes[0, 0] == np.float32(0.5).astype(e4).view(np.uint8)  # 1.0 * 2^(127 - 128)
    assert codes[3, 2] == 0xFE  # -500 saturates to -448 (forced saturate)
    # denormal block: prescale 2^126 of 2^-140 = 2^-14 -> below e4m3fn's smallest, 0
    assert (codes[8:16] == 0).all()


def nisa_quantize(x: np.ndarray, data_code: int) -> tuple[np.ndarray, np.ndarray]:
    p, f = x.shape
    _, src_t = SRC_CODES[x.dtype]
    data_t = X4[data_code][0]
    data = np.zeros((p, f // 4), np.uint32)
    scale = np.zeros((p, f // 4), np.uint8)
    text = (
        f"func.func @q(%x: {mt(p, f, src_t)}, %d: {mt(p, f // 4, data_t)}, %s: {mt(p, f // 4, 'ui8')}) {{\n"
        f"  %xs = memref.alloc() : {mt(p, f, src_t, 'sbuf')}\n"
        f"  %ds = memref.alloc() : {mt(p, f // 4, data_t, 'sbuf')}\n"
        f"  %ss = memref.alloc() : {mt(p, f // 4, 'ui8', 'sbuf')}\n"
        f"  nisa.dma_copy %xs, %x : {mt(p, f, src_t, 'sbuf')}, {mt(p, f, src_t)}\n"
        f"  nisa.quantize_mx %ds scale %ss, %xs : {mt(p, f // 4, data_t, 'sbuf')}, {mt(p, f // 4, 'ui8', 'sbuf')}, {mt(p, f, src_t, 'sbuf')}\n"
        f"  nisa.dma_copy %d, %ds : {mt(p, f // 4, data_t)}, {mt(p, f // 4, data_t, 'sbuf')}\n"
        f"  nisa.dma_copy %s, %ss : {mt(p, f // 4, 'ui8')}, {mt(p, f // 4, 'ui8', 'sbuf')}\n"
        "  func.return\n}"
    )
    run(text, "q", x, data, scale)
    return data, scale


@pytest.mark.parametrize("data_code", [8, 9])
@pytest.mark.parametrize("src", [BF16, np.float16])
@pytest.mark.parametrize("p", [32, 128])
def test_quantize_mx_agrees_with_the_nisa_interpreter(data_code, src, p):
    x = mx_tile(p, 64, np.dtype(src))
    bir_data, bir_scale, _ = bir_quantize(x, data_code)
    nisa_data, nisa_scale = nisa_quantize(x, data_code)
    np.testing.assert_array_equal(bir_data, nisa_data)
    slots = (np.arange(p // 8) & 3) + 32 * (np.arange(p // 8) >> 2)
    np.testing.assert_array_equal(bir_scale[slots], nisa_scale[slots])


# ------------------------------------------------------------------------- matmult_mx


def _matmult_mx_bir(
    s_data, s_scale, m_data, m_scale, code_s, code_m, dst_code=16, accumulate_twice=False
):
    """s_data [P, M] words, s_scale [P, M] (scale tile, rows at the slots), likewise moving."""
    p, m = s_data.shape
    n = m_data.shape[1]
    ts, tm = X4[code_s][0], X4[code_m][0]
    out_t, out_np = ("f32", np.float32) if dst_code == 16 else ("bf16", BF16)
    out = np.zeros((m, n), out_np)
    dst = ap("psum", m, n, dst_code, 2048)
    acc = f"  bir.matmult_mx {dst}, {ap('sbuf', p, m, code_s)} scale {ap('sbuf', p, m, 1, 8192)}, {ap('sbuf', p, n, code_m, 16384)} scale {ap('sbuf', p, n, 1, 32768)} accumulate\n"
    text = (
        f"func.func @mm(%sd: {mt(p, m, ts)}, %ss: {mt(p, m, 'ui8')}, %md: {mt(p, n, tm)}, %ms: {mt(p, n, 'ui8')}, %out: {mt(m, n, out_t)}) {{\n"
        f"  bir.dma {ap('sbuf', p, m, code_s)}, {hb(p, m, code_s)} of %sd : {mt(p, m, ts)}\n"
        f"  bir.dma {ap('sbuf', p, m, 1, 8192)}, {hb(p, m, 1)} of %ss : {mt(p, m, 'ui8')}\n"
        f"  bir.dma {ap('sbuf', p, n, code_m, 16384)}, {hb(p, n, code_m)} of %md : {mt(p, n, tm)}\n"
        f"  bir.dma {ap('sbuf', p, n, 1, 32768)}, {hb(p, n, 1)} of %ms : {mt(p, n, 'ui8')}\n"
        f"  bir.matmult_mx {dst}, {ap('sbuf', p, m, code_s)} scale {ap('sbuf', p, m, 1, 8192)}, {ap('sbuf', p, n, code_m, 16384)} scale {ap('sbuf', p, n, 1, 32768)}\n"
        + (acc if accumulate_twice else "")
        + f"  bir.tensor_copy {ap('sbuf', m, n, dst_code, 65536)}, {dst}\n"
        f"  bir.dma {hb(m, n, dst_code)} of %out : {mt(m, n, out_t)}, {ap('sbuf', m, n, dst_code, 65536)}\n"
        "  func.return\n}"
    )
    run(text, "mm", s_data, s_scale, m_data, m_scale, out)
    return out


def _random_mx(p: int, f: int, code: int) -> tuple[np.ndarray, np.ndarray]:
    """Random x4 data [P, F] (finite codes) and a scale tile [P, F] with small exponents."""
    if code == 2:
        words = RNG.integers(0, 2**16, size=(p, f), dtype=np.uint16)
    else:
        fmt = X4[code][1]
        codes = RNG.standard_normal((p, 4 * f)).astype(fmt.dtype).view(np.uint8)
        words = codes.view("<u4").reshape(p, f).astype(np.uint32)
    scale = np.full((p, f), 0xAA, np.uint8)  # junk in the non-slot partitions
    slots = (np.arange(p // 8) & 3) + 32 * (np.arange(p // 8) >> 2)
    scale[slots] = RNG.integers(120, 134, size=(p // 8, f), dtype=np.uint8)
    return words, scale


def _dequantize_numpy(words: np.ndarray, scale: np.ndarray, code: int) -> np.ndarray:
    """Plain numpy: [P, F] x4 words -> f64 values [P, F, 4] (lane q = byte q for FP8)."""
    p, f = words.shape
    if code == 2:
        from mxdsl.numerics.narrow import decode_e2m1
        from mxdsl.numerics.packing import unpack_fp4_x4

        values = decode_e2m1(unpack_fp4_x4(words)).astype(np.float64).reshape(p, f, 4)
    else:
        lanes = words.astype("<u4").view(np.uint8).reshape(p, f, 4)
        values = lanes.view(X4[code][1].dtype).astype(np.float64)
    slots = (np.arange(p // 8) & 3) + 32 * (np.arange(p // 8) >> 2)
    rows = np.repeat(scale[slots].astype(np.int64), 8, axis=0)  # [P, F]
    return values * np.exp2(rows - 127.0)[:, :, None]


@pytest.mark.parametrize(("code_s", "code_m"), [(8, 8), (9, 9), (8, 9), (2, 8), (2, 2)])
def test_matmult_mx_against_numpy(code_s, code_m):
    p, m, n = 64, 16, 24
    s_words, s_scale = _random_mx(p, m, code_s)
    m_words, m_scale = _random_mx(p, n, code_m)
    out = _matmult_mx_bir(s_words, s_scale, m_words, m_scale, code_s, code_m)
    s = _dequantize_numpy(s_words, s_scale, code_s)
    v = _dequantize_numpy(m_words, m_scale, code_m)
    expected = np.einsum("pmq,pnq->mn", s, v)
    magnitude = np.einsum("pmq,pnq->mn", np.abs(s), np.abs(v))  # f32 accumulation error bound
    assert (np.abs(out - expected) <= 1e-5 * magnitude).all()


def test_matmult_mx_exact_inputs_bit_for_bit_and_accumulate():
    """Small powers of two sum exactly in any order: bit-exact against numpy, and
    accumulate adds a second product onto the first."""
    p, m, n = 32, 8, 16
    fmt = MxFormat.E4M3FN
    s_vals = np.exp2(RNG.integers(-3, 3, size=(p, 4 * m))) * RNG.choice([-1, 1], size=(p, 4 * m))
    m_vals = np.exp2(RNG.integers(-3, 3, size=(p, 4 * n))) * RNG.choice([-1, 1], size=(p, 4 * n))
    s_words = s_vals.astype(fmt.dtype).view(np.uint8).view("<u4").astype(np.uint32)
    m_words = m_vals.astype(fmt.dtype).view(np.uint8).view("<u4").astype(np.uint32)
    s_scale = np.full((p, m), 127, np.uint8)
    m_scale = np.full((p, n), 128, np.uint8)
    out = _matmult_mx_bir(s_words, s_scale, m_words, m_scale, 8, 8, accumulate_twice=True)
    expected = 2 * 2 * np.einsum("pmq,pnq->mn", s_vals.reshape(p, m, 4), m_vals.reshape(p, n, 4))
    np.testing.assert_array_equal(out, expected.astype(np.float32))


def _matmult_mx_nisa(s_words, s_scale, m_words, m_scale, code_s, code_m, dst_t="f32"):
    p, m = s_words.shape
    n = m_words.shape[1]
    ts, tm = X4[code_s][0], X4[code_m][0]
    out = np.zeros((m, n), np.float32 if dst_t == "f32" else BF16)
    text = (
        f"func.func @mm(%sd: {mt(p, m, ts)}, %ss: {mt(p, m, 'ui8')}, %md: {mt(p, n, tm)}, %ms: {mt(p, n, 'ui8')}, %out: {mt(m, n, dst_t)}) {{\n"
        f"  %a = memref.alloc() : {mt(p, m, ts, 'sbuf')}\n"
        f"  %b = memref.alloc() : {mt(p, m, 'ui8', 'sbuf')}\n"
        f"  %c = memref.alloc() : {mt(p, n, tm, 'sbuf')}\n"
        f"  %d = memref.alloc() : {mt(p, n, 'ui8', 'sbuf')}\n"
        f"  %acc = memref.alloc() : {mt(m, n, dst_t, 'psum')}\n"
        f"  %o = memref.alloc() : {mt(m, n, dst_t, 'sbuf')}\n"
        f"  nisa.dma_copy %a, %sd : {mt(p, m, ts, 'sbuf')}, {mt(p, m, ts)}\n"
        f"  nisa.dma_copy %b, %ss : {mt(p, m, 'ui8', 'sbuf')}, {mt(p, m, 'ui8')}\n"
        f"  nisa.dma_copy %c, %md : {mt(p, n, tm, 'sbuf')}, {mt(p, n, tm)}\n"
        f"  nisa.dma_copy %d, %ms : {mt(p, n, 'ui8', 'sbuf')}, {mt(p, n, 'ui8')}\n"
        f"  nisa.nc_matmul_mx %acc, %a scale %b, %c scale %d : {mt(m, n, dst_t, 'psum')}, {mt(p, m, ts, 'sbuf')}, {mt(p, m, 'ui8', 'sbuf')}, {mt(p, n, tm, 'sbuf')}, {mt(p, n, 'ui8', 'sbuf')}\n"
        f"  nisa.tensor_copy %o, %acc : {mt(m, n, dst_t, 'sbuf')}, {mt(m, n, dst_t, 'psum')}\n"
        f"  nisa.dma_copy %out, %o : {mt(m, n, dst_t)}, {mt(m, n, dst_t, 'sbuf')}\n"
        "  func.return\n}"
    )
    run(text, "mm", s_words, s_scale, m_words, m_scale, out)
    return out


@pytest.mark.parametrize(("code_s", "code_m"), [(8, 8), (9, 8), (9, 9)])
@pytest.mark.parametrize("dst_code", [16, 10])
def test_matmult_mx_agrees_with_the_nisa_interpreter(code_s, code_m, dst_code):
    p, m, n = 128, 128, 512
    s_words, s_scale = _random_mx(p, m, code_s)
    m_words, m_scale = _random_mx(p, n, code_m)
    bir_out = _matmult_mx_bir(s_words, s_scale, m_words, m_scale, code_s, code_m, dst_code=dst_code)
    nisa_out = _matmult_mx_nisa(
        s_words, s_scale, m_words, m_scale, code_s, code_m, "f32" if dst_code == 16 else "bf16"
    )
    np.testing.assert_array_equal(bir_out.view(np.uint8), nisa_out.view(np.uint8))


def test_quantize_then_matmult_mx_agrees_with_nisa():
    """The MX matmul path end to end on one tile at both levels: quantize two bf16 tiles
    on chip, multiply, bit-identical."""
    p, m, n = 128, 64, 128
    a = mx_tile(p, 4 * m, np.dtype(BF16), specials=False)
    b = mx_tile(p, 4 * n, np.dtype(BF16), specials=False)
    a_data, a_scale, _ = bir_quantize(a, 8)
    b_data, b_scale, _ = bir_quantize(b, 8)
    na_data, na_scale = nisa_quantize(a, 8)
    nb_data, nb_scale = nisa_quantize(b, 8)
    bir_out = _matmult_mx_bir(a_data, a_scale, b_data, b_scale, 8, 8)
    nisa_out = _matmult_mx_nisa(na_data, na_scale, nb_data, nb_scale, 8, 8)
    np.testing.assert_array_equal(bir_out.view(np.uint32), nisa_out.view(np.uint32))


@pytest.mark.parametrize("code", [8, 9, 2])
@pytest.mark.parametrize("special", ["none", "nan_code", "scale_255"])
def test_mx_pe_operand_is_lane_major(code, special):
    """bir's MX PE operand: row ``qP + p`` is lane ``q`` of partition ``p`` dequantized
    (plain numpy), its all-zero columns found, with an Inf / NaN code or an E8M0 255 too
    (the numerics' tile path) and from a strided container array."""
    from mxdsl.dialects.bir import Dtype
    from mxdsl.interpreters.bir import mx_pe_operand

    p, f = 64, 12
    words, scale = _random_mx(p, 2 * f, code)
    words = words[:, ::2]  # strided, as a pattern read may give
    scale = scale[:, ::2]
    words[:, 3] = 0  # an all-zero column
    if special == "nan_code":
        words[5, 7] = (words[5, 7] | 0xFFFF) if code == 2 else (words[5, 7] | 0xFF)
    elif special == "scale_255":
        scale[32, 9] = 255  # scale row 4 (partitions 32..39)
    slots = (np.arange(p // 8) & 3) + 32 * (np.arange(p // 8) >> 2)
    dtype = {8: Dtype.FLOAT8_E4M3FN_X4, 9: Dtype.FLOAT8_E5M2_X4, 2: Dtype.FLOAT4_E2M1FN_X4}[code]
    data = words.astype(np.uint16) if code == 2 else words
    operand = mx_pe_operand(data, dtype, scale[slots])
    with np.errstate(invalid="ignore", over="ignore"):
        expected = _dequantize_numpy(np.ascontiguousarray(words), scale, code)  # [P, F, 4]
        if special == "scale_255":
            expected[32:40, 9, :] = np.nan
    lane_major = expected.transpose(2, 0, 1).reshape(4 * p, f)
    np.testing.assert_array_equal(operand.tile, lane_major)
    zero = np.zeros(f, bool)
    zero[operand.zero_columns] = True
    np.testing.assert_array_equal(zero, ~np.any(lane_major != 0, axis=0))
    assert operand.precision == X4[code][1].info.mantissa_bits + 1


def test_scale_rows_of_is_the_quadrant_layout_read_only():
    """Scale row i sits at partition (i & 3) + 32 * (i >> 2); the cached array is
    read-only (it is shared by every caller)."""
    from mxdsl.interpreters.bir import scale_rows_of

    np.testing.assert_array_equal(scale_rows_of(32), [0, 1, 2, 3])
    np.testing.assert_array_equal(
        scale_rows_of(128), [0, 1, 2, 3, 32, 33, 34, 35, 64, 65, 66, 67, 96, 97, 98, 99]
    )
    assert scale_rows_of(128) is scale_rows_of(128)
    assert not scale_rows_of(128).flags.writeable
