"""Numeric tests of the bir interpreter (the simulator twin): every instruction against
plain numpy written here, through byte-addressed SBUF / PSUM and HBM tensors."""
# ruff: noqa: E501  (IR text of the kernels under test)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.bir import machine
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]

BF16 = ml_dtypes.bfloat16
F32, BF, I32, U8, E4, E5, E4X4, E5X4, F4X4 = 16, 10, 17, 1, 5, 7, 8, 9, 2
RNG = np.random.default_rng(7)


def run(body: str, args: str, *inputs: np.ndarray):
    """Run ``func.func @main(args)`` with ``body``; returns the interpreter."""
    ctx = _context()
    module, _ = parse_located(ctx, f"func.func @main({args}) {{\n{body}\n  func.return\n}}", "t")
    module.verify()
    interpreter = make_interpreter(module, ctx)
    interpreter.call_op("main", inputs)
    return interpreter


def sb(np_: int, pairs: str, dtype: int, off: int = 0, p0: int = 0, mem: str = "sbuf") -> str:
    return f"#bir.ap<{mem}, p0 = {p0}, np = {np_}, {pairs}, off = {off}, dtype = {dtype}>"


def ps(np_: int, pairs: str, dtype: int, off: int = 0, p0: int = 0) -> str:
    return sb(np_, pairs, dtype, off, p0, mem="psum")


def hb(pairs: str, dtype: int, off: int = 0) -> str:
    return f"#bir.ap<hbm, {pairs}, off = {off}, dtype = {dtype}>"


def mt(shape: str, t: str) -> str:
    return f"memref<{shape}x{t}, #nisa.mem<hbm>>"


def load(dst: str, src: str, tensor: str, ty: str) -> str:
    return f"  bir.dma {dst}, {src} of %{tensor} : {ty}\n"


def store(dst: str, tensor: str, ty: str, src: str) -> str:
    return f"  bir.dma {dst} of %{tensor} : {ty}, {src}\n"


def test_dma_round_trip_with_strides_conversion_and_partition_offset():
    x = RNG.standard_normal((8, 16)).astype(np.float32)
    out = np.zeros((16, 8), np.float32)
    tx, to = mt("8x16", "f32"), mt("16x8", "f32")
    body = (
        # rows 0..7 of x -> partitions 4..11, as bf16 (DMA converts through f32)
        load(sb(8, "[[1, 16]]", BF, off=64, p0=4), hb("[[16, 8], [1, 16]]", F32), "x", tx)
        # transpose on the way out: partition p, column c -> out[c, p]
        + store(hb("[[1, 8], [8, 16]]", F32), "out", to, sb(8, "[[1, 16]]", BF, off=64, p0=4))
    )
    interp = run(body, f"%x: {tx}, %out: {to}", x, out)
    np.testing.assert_array_equal(out, x.astype(BF16).astype(np.float32).T)
    sbuf = machine(interp).sbuf
    assert (sbuf[:4] == 0xFF).all()
    assert (sbuf[4:12, :64] == 0xFF).all()
    np.testing.assert_array_equal(
        sbuf[4:12, 64:96].view(BF16).astype(np.float32), x.astype(BF16).astype(np.float32)
    )


def test_dma_dynamic_offset_and_run_time_bounds():
    x = np.arange(64, dtype=np.float32).reshape(4, 16)
    out = np.zeros((2, 4, 4), np.float32)
    tx, to = mt("4x16", "f32"), mt("2x4x4", "f32")
    body = (
        "  %c16 = arith.constant 16 : index\n"
        "  %c64 = arith.constant 64 : index\n"
        # columns 4..7 of every row (dynamic +16 bytes) -> out[1] (dynamic +64 bytes)
        + load(sb(4, "[[1, 4]]", F32), hb("[[16, 4], [1, 4]]", F32), "x", tx).rstrip("\n")
        + " offset %c16\n"
        + f"  bir.dma {hb('[[4, 4], [1, 4]]', F32)} of %out : {to} offset %c64, {sb(4, '[[1, 4]]', F32)}\n"
    )
    run(body, f"%x: {tx}, %out: {to}", x, out)
    np.testing.assert_array_equal(out[1], x[:, 4:8])
    np.testing.assert_array_equal(out[0], 0)

    bad = (
        "  %c256 = arith.constant 256 : index\n"
        + load(sb(4, "[[1, 4]]", F32), hb("[[16, 4], [1, 4]]", F32), "x", tx).rstrip("\n")
        + " offset %c256\n"
    )
    with pytest.raises(
        Exception,
        match=r"src touches bytes \[256, 464\) with its run-time offset, outside the 256 bytes of its hbm tensor",
    ):
        run(bad, f"%x: {tx}", x)


def test_dma_x4_containers_are_bytes():
    words = RNG.integers(0, 2**32, size=(32, 4), dtype=np.uint32)
    out = np.zeros_like(words)
    t = mt("32x4", "!nisa.float8_e4m3fn_x4")
    body = load(sb(32, "[[1, 4]]", E4X4), hb("[[4, 32], [1, 4]]", E4X4), "w", t) + store(
        hb("[[4, 32], [1, 4]]", E4X4), "out", t, sb(32, "[[1, 4]]", E4X4)
    )
    interp = run(body, f"%w: {t}, %out: {t}", words, out)
    np.testing.assert_array_equal(out, words)
    # lane q of container j is byte 4j + q of the partition
    np.testing.assert_array_equal(machine(interp).sbuf[:32, :16], words.view(np.uint8))


@pytest.mark.parametrize("skip", [False, True])
def test_dma_indirect_gather_and_scatter(skip: bool):
    table = RNG.standard_normal((10, 8)).astype(np.float32)
    idx = np.array([[3], [9], [0], [-1], [7], [3]], np.int32)
    gathered = np.full((6, 8), 5.0, np.float32)
    scattered = np.zeros((10, 8), np.float32)
    tt, ti, tg = mt("10x8", "f32"), mt("6x1", "i32"), mt("6x8", "f32")
    mode = " oob_mode skip" if skip else ""
    body = (
        load(sb(6, "[[1, 1]]", I32), hb("[[1, 6], [1, 1]]", I32), "idx", ti)
        + load(sb(6, "[[1, 8]]", F32, off=64), hb("[[8, 6], [1, 8]]", F32), "g", tg)
        + f"  bir.dma_indirect {sb(6, '[[1, 8]]', F32, off=64)}, {hb('[[8, 6], [1, 8]]', F32)} of %table : {tt} index {sb(6, '[[1, 1]]', I32)} dim 0 bound 10{mode}\n"
        + store(hb("[[8, 6], [1, 8]]", F32), "g", tg, sb(6, "[[1, 8]]", F32, off=64))
        + f"  bir.dma_indirect {hb('[[8, 6], [1, 8]]', F32)} of %s : {tt}, {sb(6, '[[1, 8]]', F32, off=64)} index {sb(6, '[[1, 1]]', I32)} dim 0 bound 10 scatter{mode}\n"
    )
    args = f"%table: {tt}, %idx: {ti}, %g: {tg}, %s: {tt}"
    if not skip:
        with pytest.raises(
            Exception, match=r"indirect DMA index -1 at position 3 is outside \[0, 10\)"
        ):
            run(body, args, table, idx, gathered, scattered)
        return
    run(body, args, table, idx, gathered, scattered)
    expected = np.full((6, 8), 5.0, np.float32)
    for i, j in enumerate(idx[:, 0]):
        if 0 <= j < 10:
            expected[i] = table[j]
    np.testing.assert_array_equal(gathered, expected)
    expected_scatter = np.zeros((10, 8), np.float32)
    for i, j in enumerate(idx[:, 0]):
        if 0 <= j < 10:
            expected_scatter[j] = expected[i]
    np.testing.assert_array_equal(scattered, expected_scatter)


def test_dma_indirect_rows_convert_dtype_with_strided_rows():
    """Whole-row gathers and scatters (the MoE kernels' form) that also convert: bf16
    rows of a column window (row step 16, 8 elements from column 4) to f32 partitions
    2..6 and back, checked against numpy fancy indexing."""
    table = RNG.standard_normal((10, 16)).astype(BF16)
    idx = np.array([[7], [2], [9], [2], [0]], np.int32)
    out = np.zeros((5, 8), np.float32)
    back = np.zeros((10, 16), BF16)
    tt, ti, to = mt("10x16", "bf16"), mt("5x1", "i32"), mt("5x8", "f32")
    rows = hb("[[16, 5], [1, 8]]", BF, off=8)
    body = (
        load(sb(5, "[[1, 1]]", I32), hb("[[1, 5], [1, 1]]", I32), "idx", ti)
        + f"  bir.dma_indirect {sb(5, '[[1, 8]]', F32, off=64, p0=2)}, {rows} of %table : {tt} index {sb(5, '[[1, 1]]', I32)} dim 0 bound 10\n"
        + store(hb("[[8, 5], [1, 8]]", F32), "out", to, sb(5, "[[1, 8]]", F32, off=64, p0=2))
        + f"  bir.dma_indirect {rows} of %back : {tt}, {sb(5, '[[1, 8]]', F32, off=64, p0=2)} index {sb(5, '[[1, 1]]', I32)} dim 0 bound 10 scatter\n"
    )
    run(body, f"%table: {tt}, %idx: {ti}, %out: {to}, %back: {tt}", table, idx, out, back)
    picked = table[idx[:, 0], 4:12]
    np.testing.assert_array_equal(out, picked.astype(np.float32))
    expected = np.zeros((10, 16), BF16)
    expected[idx[:, 0], 4:12] = picked  # index 2 twice: the same row, the last write kept
    np.testing.assert_array_equal(back.view(np.uint16), expected.view(np.uint16))


def test_dma_indirect_along_an_inner_pair():
    table = RNG.standard_normal((4, 16)).astype(np.float32)
    cols = np.array([15, 0, 3], np.int32)
    out = np.zeros((4, 3), np.float32)
    tt, tc, to = mt("4x16", "f32"), mt("3", "i32"), mt("4x3", "f32")
    body = (
        load(sb(3, "[[1, 1]]", I32, off=512), hb("[[1, 3], [1, 1]]", I32), "cols", tc)
        + f"  bir.dma_indirect {sb(4, '[[1, 3]]', F32)}, {hb('[[16, 4], [1, 3]]', F32)} of %table : {tt} index {sb(3, '[[1, 1]]', I32, off=512)} dim 1 bound 16\n"
        + store(hb("[[3, 4], [1, 3]]", F32), "out", to, sb(4, "[[1, 3]]", F32))
    )
    run(body, f"%table: {tt}, %cols: {tc}, %out: {to}", table, cols, out)
    np.testing.assert_array_equal(out, table[:, cols])


@pytest.mark.parametrize(
    ("dtype", "code", "value"),
    [(np.float32, F32, -2.5), (BF16, BF, 3.0), (np.int32, I32, 7.0), (np.uint32, E4X4, 0.0)],
)
def test_memset(dtype, code, value):
    out = np.zeros((4, 6), dtype)
    t = mt("4x6", {F32: "f32", BF: "bf16", I32: "i32", E4X4: "!nisa.float8_e4m3fn_x4"}[code])
    body = f"  bir.memset {sb(4, '[[1, 6]]', code)}, {value!r}\n" + store(
        hb("[[6, 4], [1, 6]]", code), "out", t, sb(4, "[[1, 6]]", code)
    )
    run(body, f"%out: {t}", out)
    np.testing.assert_array_equal(out, np.full((4, 6), value, np.float64).astype(dtype))


def test_uninitialized_sbuf_reads_nan():
    out = np.zeros((2, 3), np.float32)
    t = mt("2x3", "f32")
    run(
        store(hb("[[3, 2], [1, 3]]", F32), "out", t, sb(2, "[[1, 3]]", F32, off=400)),
        f"%out: {t}",
        out,
    )
    assert np.isnan(out).all()


def test_tensor_copy_rounds_and_walks_strided_patterns():
    x = RNG.standard_normal((4, 8)).astype(np.float32) * 100
    out = np.zeros((4, 4), BF16)
    tx, to = mt("4x8", "f32"), mt("4x4", "bf16")
    body = (
        load(ps(4, "[[1, 8]]", F32), hb("[[8, 4], [1, 8]]", F32), "x", tx).replace("psum", "sbuf")
        + f"  bir.tensor_copy {sb(4, '[[1, 4]]', BF, off=1024)}, {sb(4, '[[2, 4]]', F32, off=4)}\n"
        + store(hb("[[4, 4], [1, 4]]", BF), "out", to, sb(4, "[[1, 4]]", BF, off=1024))
    )
    run(body, f"%x: {tx}, %out: {to}", x, out)
    np.testing.assert_array_equal(out.view(np.uint16), x[:, 1::2].astype(BF16).view(np.uint16))


def test_tensor_copy_reverses_with_a_negative_step():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.zeros((3, 4), np.float32)
    t = mt("3x4", "f32")
    body = (
        load(sb(3, "[[1, 4]]", F32), hb("[[4, 3], [1, 4]]", F32), "x", t)
        + f"  bir.tensor_copy {sb(3, '[[1, 4]]', F32, off=64)}, {sb(3, '[[-1, 4]]', F32, off=12)}\n"
        + store(hb("[[4, 3], [1, 4]]", F32), "out", t, sb(3, "[[1, 4]]", F32, off=64))
    )
    run(body, f"%x: {t}, %out: {t}", x, out)
    np.testing.assert_array_equal(out, x[:, ::-1])


def _elementwise(
    body: str, *tiles: tuple[str, np.ndarray, int, str], out: np.ndarray, out_code: int, out_t: str
):
    """Load each (name, array, code, type) into sbuf at 1 KiB slots, run body, store out."""
    text, args = "", []
    for i, (name, array, code, t) in enumerate(tiles):
        p, f = array.shape
        text += load(
            sb(p, f"[[1, {f}]]", code, off=1024 * i),
            hb(f"[[{f}, {p}], [1, {f}]]", code),
            name,
            mt(f"{p}x{f}", t),
        )
        args.append(f"%{name}: {mt(f'{p}x{f}', t)}")
    p, f = out.shape
    text += body + store(
        hb(f"[[{f}, {p}], [1, {f}]]", out_code),
        "out",
        mt(f"{p}x{f}", out_t),
        sb(p, f"[[1, {f}]]", out_code, off=8192),
    )
    args.append(f"%out: {mt(f'{p}x{f}', out_t)}")
    run(text, ", ".join(args), *(a for _, a, _, _ in tiles), out)


def test_tensor_tensor_f32_add_into_bf16_and_psum_operand():
    a = RNG.standard_normal((8, 16)).astype(np.float32)
    b = RNG.standard_normal((8, 16)).astype(BF16)
    out = np.zeros((8, 16), BF16)
    body = (
        f"  bir.tensor_copy {ps(8, '[[1, 16]]', F32)}, {sb(8, '[[1, 16]]', F32)}\n"
        f"  bir.tensor_tensor {sb(8, '[[1, 16]]', BF, off=8192)}, add {ps(8, '[[1, 16]]', F32)}, {sb(8, '[[1, 16]]', BF, off=1024)}\n"
    )
    _elementwise(
        body, ("a", a, F32, "f32"), ("b", b, BF, "bf16"), out=out, out_code=BF, out_t="bf16"
    )
    expected = (a + b.astype(np.float32)).astype(BF16)
    np.testing.assert_array_equal(out.view(np.uint16), expected.view(np.uint16))


def test_tensor_tensor_integer_ops_are_exact():
    a = RNG.integers(-(2**30), 2**30, size=(4, 8), dtype=np.int32)
    b = RNG.integers(-(2**30), 2**30, size=(4, 8), dtype=np.int32)
    for op, expected in (
        ("add", a + b),
        ("bitwise_xor", a ^ b),
        ("multiply", (a.astype(np.int64) * b).astype(np.int32)),
    ):
        out = np.zeros((4, 8), np.int32)
        body = f"  bir.tensor_tensor {sb(4, '[[1, 8]]', I32, off=8192)}, {op} {sb(4, '[[1, 8]]', I32)}, {sb(4, '[[1, 8]]', I32, off=1024)}\n"
        _elementwise(
            body, ("a", a, I32, "i32"), ("b", b, I32, "i32"), out=out, out_code=I32, out_t="i32"
        )
        np.testing.assert_array_equal(out, expected)


def test_tensor_scalar_immediates_reverse_and_column():
    x = RNG.standard_normal((8, 16)).astype(np.float32)
    col = RNG.standard_normal((8, 1)).astype(np.float32)
    out = np.zeros((8, 16), np.float32)
    body = (
        f"  bir.tensor_scalar {sb(8, '[[1, 16]]', F32, off=8192)}, {sb(8, '[[1, 16]]', F32)}, "
        f"multiply 3.0 : f32, reverse subtract {sb(8, '[[1, 1]]', F32, off=1024)}\n"
    )
    _elementwise(
        body, ("x", x, F32, "f32"), ("c", col, F32, "f32"), out=out, out_code=F32, out_t="f32"
    )
    np.testing.assert_array_equal(out, col - x * np.float32(3.0))


def test_tensor_scalar_bitwise_immediate():
    x = RNG.integers(0, 2**31, size=(4, 8), dtype=np.int32)
    out = np.zeros((4, 8), np.int32)
    body = (
        f"  bir.tensor_scalar {sb(4, '[[1, 8]]', I32, off=8192)}, {sb(4, '[[1, 8]]', I32)}, "
        "right_shift 3 : i32, bitwise_and 255 : i32\n"
    )
    _elementwise(body, ("x", x, I32, "i32"), out=out, out_code=I32, out_t="i32")
    np.testing.assert_array_equal(out, (x >> 3) & 255)


def test_activation_silu_with_scale_and_bias_column():
    x = RNG.standard_normal((8, 16)).astype(np.float32)
    bias = RNG.standard_normal((8, 1)).astype(np.float32)
    out = np.zeros((8, 16), BF16)
    body = (
        f"  bir.activation {sb(8, '[[1, 16]]', BF, off=8192)}, silu {sb(8, '[[1, 16]]', F32)} "
        f"scale 0.5 : f32 bias {sb(8, '[[1, 1]]', F32, off=1024)}\n"
    )
    _elementwise(
        body, ("x", x, F32, "f32"), ("b", bias, F32, "f32"), out=out, out_code=BF, out_t="bf16"
    )
    z = (x * np.float32(0.5) + bias).astype(np.float64)
    expected = (z / (1.0 + np.exp(-z))).astype(np.float32).astype(BF16)
    np.testing.assert_array_equal(out.view(np.uint16), expected.view(np.uint16))


@pytest.mark.parametrize(
    ("dst_code", "dst_t", "dst_np"), [(F32, "f32", np.float32), (BF, "bf16", BF16)]
)
def test_matmult_overwrite_then_accumulate(dst_code, dst_t, dst_np):
    k, m, n = 64, 32, 48
    s1 = RNG.standard_normal((k, m)).astype(BF16)
    v1 = RNG.standard_normal((k, n)).astype(BF16)
    s2 = RNG.standard_normal((k, m)).astype(BF16)
    v2 = RNG.standard_normal((k, n)).astype(BF16)
    out = np.zeros((m, n), dst_np)
    dst = ps(m, f"[[1, {n}]]", dst_code, off=2048)
    body = (
        f"  bir.matmult {dst}, {sb(k, f'[[1, {m}]]', BF)}, {sb(k, f'[[1, {n}]]', BF, off=1024)}\n"
        f"  bir.matmult {dst}, {sb(k, f'[[1, {m}]]', BF, off=2048)}, {sb(k, f'[[1, {n}]]', BF, off=3072)} accumulate\n"
        f"  bir.tensor_copy {sb(m, f'[[1, {n}]]', dst_code, off=8192)}, {dst}\n"
    )
    _elementwise(
        body,
        ("s1", s1, BF, "bf16"),
        ("v1", v1, BF, "bf16"),
        ("s2", s2, BF, "bf16"),
        ("v2", v2, BF, "bf16"),
        out=out,
        out_code=dst_code,
        out_t=dst_t,
    )
    # one PE pass: the K products (exact in f64 for bf16) summed in f64, rounded once to
    # f32; PSUM then accumulates in f32 and the dst dtype rounds once more
    first = (s1.astype(np.float64).T @ v1.astype(np.float64)).astype(np.float32).astype(dst_np)
    second = (s2.astype(np.float64).T @ v2.astype(np.float64)).astype(np.float32)
    expected = (first.astype(np.float32) + second).astype(dst_np)
    np.testing.assert_array_equal(out.astype(np.float32), expected.astype(np.float32))


def test_cast_fp8_saturate_versus_plain_rne():
    row = np.array([1.0, -500.0, 1e6, np.inf, -np.inf, np.nan, 0.3, 448.0], np.float32)
    x = np.repeat(row[None], 2, axis=0)
    sat = np.zeros((2, 8), np.uint8)
    plain = np.zeros((2, 8), np.uint8)
    t8, tx = mt("2x8", "ui8"), mt("2x8", "f32")
    body = (
        load(sb(2, "[[1, 8]]", F32), hb("[[8, 2], [1, 8]]", F32), "x", tx)
        + f"  bir.cast {sb(2, '[[1, 8]]', E4, off=4096)}, {sb(2, '[[1, 8]]', F32)} saturate nan_suppress\n"
        + f"  bir.cast {sb(2, '[[1, 8]]', E4, off=5120)}, {sb(2, '[[1, 8]]', F32)}\n"
        + store(hb("[[8, 2], [1, 8]]", U8), "sat", t8, sb(2, "[[1, 8]]", U8, off=4096))
        + store(hb("[[8, 2], [1, 8]]", U8), "plain", t8, sb(2, "[[1, 8]]", U8, off=5120))
    )
    run(body, f"%x: {tx}, %sat: {t8}, %plain: {t8}", x, sat, plain)
    e4 = ml_dtypes.float8_e4m3fn
    with np.errstate(invalid="ignore", over="ignore"):
        np.testing.assert_array_equal(plain, x.astype(e4).view(np.uint8))  # overflow -> NaN
    # saturate: overflow and +-Inf -> +-448 (0x7E / 0xFE), NaN -> the canonical NaN
    point3 = int(np.float32(0.3).astype(e4).view(np.uint8))
    expected = np.array([0x38, 0xFE, 0x7E, 0x7E, 0xFE, 0x7F, point3, 0x7E], np.uint8)
    np.testing.assert_array_equal(sat, np.repeat(expected[None], 2, axis=0))


@pytest.mark.parametrize(
    ("code", "t", "fmt"),
    [
        (E4X4, "!nisa.float8_e4m3fn_x4", ml_dtypes.float8_e4m3fn),
        (E5X4, "!nisa.float8_e5m2_x4", ml_dtypes.float8_e5m2),
    ],
)
def test_cast_packs_and_unpacks_fp8_x4(code, t, fmt):
    x = RNG.standard_normal((4, 16)).astype(np.float32) * 8
    packed = np.zeros((4, 4), np.uint32)
    back = np.zeros((4, 16), np.float32)
    body = (
        load(sb(4, "[[1, 16]]", F32), hb("[[16, 4], [1, 16]]", F32), "x", mt("4x16", "f32"))
        + f"  bir.cast {sb(4, '[[1, 4]]', code, off=1024)}, {sb(4, '[[1, 16]]', F32)} saturate\n"
        + f"  bir.cast {sb(4, '[[1, 16]]', F32, off=2048)}, {sb(4, '[[1, 4]]', code, off=1024)}\n"
        + store(hb("[[4, 4], [1, 4]]", code), "p", mt("4x4", t), sb(4, "[[1, 4]]", code, off=1024))
        + store(
            hb("[[16, 4], [1, 16]]", F32), "b", mt("4x16", "f32"), sb(4, "[[1, 16]]", F32, off=2048)
        )
    )
    run(
        body,
        f"%x: {mt('4x16', 'f32')}, %p: {mt('4x4', t)}, %b: {mt('4x16', 'f32')}",
        x,
        packed,
        back,
    )
    codes = x.astype(fmt)
    np.testing.assert_array_equal(packed.view(np.uint8).reshape(4, 16), codes.view(np.uint8))
    np.testing.assert_array_equal(back, codes.astype(np.float32))


def test_cast_fp4_x4_round_trip_through_the_lane_remap():
    from mxdsl.numerics.narrow import decode_e2m1, encode_e2m1
    from mxdsl.numerics.packing import pack_fp4_x4

    x = RNG.standard_normal((4, 16)).astype(np.float32) * 4
    packed = np.zeros((4, 4), np.uint16)
    back = np.zeros((4, 16), np.float32)
    t = "!nisa.float4_e2m1fn_x4"
    body = (
        load(sb(4, "[[1, 16]]", F32), hb("[[16, 4], [1, 16]]", F32), "x", mt("4x16", "f32"))
        + f"  bir.cast {sb(4, '[[1, 4]]', F4X4, off=1024)}, {sb(4, '[[1, 16]]', F32)}\n"
        + f"  bir.cast {sb(4, '[[1, 16]]', F32, off=2048)}, {sb(4, '[[1, 4]]', F4X4, off=1024)}\n"
        + store(hb("[[4, 4], [1, 4]]", F4X4), "p", mt("4x4", t), sb(4, "[[1, 4]]", F4X4, off=1024))
        + store(
            hb("[[16, 4], [1, 16]]", F32), "b", mt("4x16", "f32"), sb(4, "[[1, 16]]", F32, off=2048)
        )
    )
    run(
        body,
        f"%x: {mt('4x16', 'f32')}, %p: {mt('4x4', t)}, %b: {mt('4x16', 'f32')}",
        x,
        packed,
        back,
    )
    nibbles = encode_e2m1(x)
    np.testing.assert_array_equal(packed, pack_fp4_x4(nibbles))
    np.testing.assert_array_equal(back, decode_e2m1(nibbles))


def test_each_core_has_its_own_on_chip_memory():
    from mxdsl.interpreters.spmd import run_spmd

    out = np.zeros((2, 4), np.float32)
    t = mt("2x4", "f32")
    body = (
        "  %id = nisa.program_id\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %c16 = arith.constant 16 : index\n"
        "  %o = arith.muli %id, %c16 : index\n"
        "  %second = arith.cmpi eq, %id, %c1 : index\n"
        f"  bir.memset {sb(1, '[[1, 4]]', F32)}, 1.0\n"
        "  scf.if %second {\n"
        f"    bir.memset {sb(1, '[[1, 4]]', F32)}, 2.0\n"
        "  }\n"
        f"  bir.dma {hb('[[1, 4]]', F32)} of %out : {t} offset %o, {sb(1, '[[1, 4]]', F32)}\n"
    )
    ctx = _context()
    module, _ = parse_located(ctx, f"func.func @main(%out: {t}) {{\n{body}\n  func.return\n}}", "t")
    module.verify()
    run_spmd(lambda ls: make_interpreter(module, ctx, listeners=ls), "main", (out,), 2)
    np.testing.assert_array_equal(out, [[1.0] * 4, [2.0] * 4])


def test_python_builders_make_a_runnable_kernel():
    """The Python API (what lowerings call): patterns, ops, dtype codes of MLIR types."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import FloatAttr, ModuleOp, f32, i32

    from mxdsl.dialects import bir, nisa

    assert bir.dtype_of_element_type(f32) == bir.Dtype.FLOAT32
    assert bir.dtype_of_element_type(nisa.float8_e4m3fn_x4) == bir.Dtype.FLOAT8_E4M3FN_X4
    assert bir.dtype_of_element_type(i32) == bir.Dtype.INT32
    with pytest.raises(ValueError, match="an hbm access pattern has no partitions"):
        bir.AccessPatternAttr(bir.Memory.HBM, [(1, 4)], dtype=16, num_partitions=4)

    t = nisa.tile_type([4, 8], f32, nisa.MemorySpace.HBM)
    kernel = func.FuncOp("main", ((t, t), ()))
    x, out = kernel.body.block.args
    tile = bir.sbuf_ap(0, 4, [(1, 8)], bir.Dtype.FLOAT32)
    whole = bir.hbm_ap([(8, 4), (1, 8)], bir.Dtype.FLOAT32)
    kernel.body.block.add_ops(
        [
            bir.DmaOp(tile, whole, src_tensor=x),
            bir.TensorScalarOp(tile, tile, bir.AluOp.MULTIPLY, FloatAttr(2.0, f32), reverse0=True),
            bir.ActivationOp(tile, bir.ActivationFunction.RELU, tile),
            bir.DmaOp(whole, tile, dst_tensor=out),
            func.ReturnOp(),
        ]
    )
    module = ModuleOp([kernel])
    module.verify()
    assert "bir.tensor_scalar #bir.ap<sbuf, p0 = 0, np = 4, [[1, 8]], off = 0, dtype = 16>" in str(
        module
    )
    values = RNG.standard_normal((4, 8)).astype(np.float32)
    result = np.zeros((4, 8), np.float32)
    make_interpreter(module).call_op("main", (values, result))
    np.testing.assert_array_equal(result, np.maximum(values * np.float32(2.0), 0))


@pytest.mark.parametrize(("p", "f", "dst_mem"), [(128, 64, "psum"), (16, 8, "sbuf")])
def test_transpose_tensor_and_vector_engine(p: int, f: int, dst_mem: str):
    x = RNG.standard_normal((p, f)).astype(BF16)
    out = np.zeros((f, p), BF16)
    dst = sb(f, f"[[1, {p}]]", BF, off=4096, mem=dst_mem)
    body = (
        load(
            sb(p, f"[[1, {f}]]", BF), hb(f"[[{f}, {p}], [1, {f}]]", BF), "x", mt(f"{p}x{f}", "bf16")
        )
        + f"  bir.transpose {dst}, {sb(p, f'[[1, {f}]]', BF)}\n"
        + f"  bir.tensor_copy {sb(f, f'[[1, {p}]]', BF, off=8192)}, {dst}\n"
        + store(
            hb(f"[[{p}, {f}], [1, {p}]]", BF),
            "out",
            mt(f"{f}x{p}", "bf16"),
            sb(f, f"[[1, {p}]]", BF, off=8192),
        )
    )
    run(body, f"%x: {mt(f'{p}x{f}', 'bf16')}, %out: {mt(f'{f}x{p}', 'bf16')}", x, out)
    np.testing.assert_array_equal(out.view(np.uint16), x.T.view(np.uint16))


def test_tensor_reduce_inner_pairs_negate_and_integers():
    x = RNG.standard_normal((8, 24)).astype(np.float32)
    out = np.zeros((8, 6), np.float32)
    body = f"  bir.tensor_reduce {sb(8, '[[1, 6]]', F32, off=8192)}, add {sb(8, '[[4, 6], [1, 4]]', F32)} inner 1\n"
    _elementwise(body, ("x", x, F32, "f32"), out=out, out_code=F32, out_t="f32")
    # the exact sum rounded once: four normal f32 terms sum exactly in float64
    exact = x.astype(np.float64).reshape(8, 6, 4).sum(axis=2)
    np.testing.assert_array_equal(out, exact.astype(np.float32))

    out = np.zeros((8, 1), np.float32)
    body = f"  bir.tensor_reduce {sb(8, '[[1, 1]]', F32, off=8192)}, maximum {sb(8, '[[12, 2], [1, 12]]', F32)} inner 2 negate\n"
    _elementwise(body, ("x", x, F32, "f32"), out=out, out_code=F32, out_t="f32")
    np.testing.assert_array_equal(out, -x.max(axis=1, keepdims=True))

    bits = RNG.integers(0, 2**20, size=(4, 8), dtype=np.int32)
    out_i = np.zeros((4, 1), np.int32)
    body = f"  bir.tensor_reduce {sb(4, '[[1, 1]]', I32, off=8192)}, bitwise_or {sb(4, '[[1, 8]]', I32)} inner 1\n"
    _elementwise(body, ("x", bits, I32, "i32"), out=out_i, out_code=I32, out_t="i32")
    np.testing.assert_array_equal(out_i[:, 0], np.bitwise_or.reduce(bits, axis=1))


def test_dma_loop_with_partition_step_and_run_time_partition():
    """The shape lower-hlo-to-nisa emits for a quantize source: for r in 0..8, rows
    [16 r-blocks] of x go to partitions r, r + 8, ..., r + 120 (``subview [%r, 0] [16, 32]
    [8, 1]``): a partition step of 8 and a run-time partition ``%r``."""
    x = RNG.standard_normal((128, 32)).astype(BF16)
    out = np.zeros((128, 32), BF16)
    tx = mt("128x32", "bf16")
    body = (
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %c8 = arith.constant 8 : index\n"
        "  %c64 = arith.constant 64 : index\n"
        "  scf.for %r = %c0 to %c8 step %c1 {\n"
        "    %bytes = arith.muli %r, %c64 : index\n"
        f"    bir.dma {sb(16, '[[1, 32]]', BF).replace('np = 16,', 'np = 16, ps = 8,')} partition %r, "
        f"{hb('[[256, 16], [1, 32]]', BF)} of %x : {tx} offset %bytes\n"
        "  }\n" + store(hb("[[32, 128], [1, 32]]", BF), "out", tx, sb(128, "[[1, 32]]", BF))
    )
    run(body, f"%x: {tx}, %out: {tx}", x, out)
    # partition 8 i + r holds x row 8 i + r: hbm row r + 8 i (byte offset 64 r + 512 i)
    np.testing.assert_array_equal(out.view(np.uint16), x.view(np.uint16))

    bad = (
        "  %c1 = arith.constant 1 : index\n"
        f"  bir.dma {sb(16, '[[1, 32]]', BF).replace('np = 16,', 'np = 16, ps = 8,')} partition %c1, "
        f"{hb('[[256, 16], [1, 32]]', BF)} of %x : {tx}\n"
        f"  bir.dma {sb(16, '[[1, 32]]', BF).replace('np = 16,', 'np = 16, ps = 8,')} partition %c8, "
        f"{hb('[[256, 16], [1, 32]]', BF)} of %x : {tx}\n"
    ).replace("%c8,", "%c8x,")
    bad = "  %c8x = arith.constant 8 : index\n" + bad
    with pytest.raises(
        Exception,
        match=r"dst partitions 8 \.\. 128 \(with its run-time partition\) are outside the 128 partitions of sbuf",
    ):
        run(bad, f"%x: {tx}", x)


def test_deferred_matmuls_batch_see_sbuf_writes_and_flush_for_psum_readers():
    """Matmuls are deferred and batched by moving operand (docs/bir.md, "The MoE-CTE
    kernels at bir"); what any other reader sees must be as if each ran at once: two
    passes sharing the moving tile accumulate into one dst; a DMA that rewrites the
    moving tile between two matmuls is seen by the second; the last matmul's result is in
    ``machine(...).psum`` after the run. Small integers, so numpy's products are exact."""
    k, m, n = 16, 8, 4
    a, b, c = (RNG.integers(-8, 8, (k, w)).astype(np.float32) for w in (m, m, n))
    c2 = RNG.integers(-8, 8, (k, n)).astype(np.float32)
    out = np.zeros((m, n), np.float32)
    ta, tc, to = mt(f"{k}x{m}", "f32"), mt(f"{k}x{n}", "f32"), mt(f"{m}x{n}", "f32")
    sa, sb_, sc = (
        sb(k, f"[[1, {m}]]", F32),
        sb(k, f"[[1, {m}]]", F32, off=64),
        sb(k, f"[[1, {n}]]", F32, off=128),
    )
    dst, dst2 = ps(m, f"[[1, {n}]]", F32), ps(m, f"[[1, {n}]]", F32, off=2048)
    res = sb(m, f"[[1, {n}]]", F32, off=256)
    body = (
        load(sa, hb(f"[[{m}, {k}], [1, {m}]]", F32), "a", ta)
        + load(sb_, hb(f"[[{m}, {k}], [1, {m}]]", F32), "b", ta)
        + load(sc, hb(f"[[{n}, {k}], [1, {n}]]", F32), "c", tc)
        + f"  bir.matmult {dst}, {sa}, {sc}\n"  # one batch: the same moving tile
        + f"  bir.matmult {dst}, {sb_}, {sc} accumulate\n"
        + load(sc, hb(f"[[{n}, {k}], [1, {n}]]", F32), "c2", tc)  # rewrites the moving tile
        + f"  bir.tensor_copy {res}, {dst}\n"
        + store(hb(f"[[{n}, {m}], [1, {n}]]", F32), "out", to, res)
        + f"  bir.matmult {dst2}, {sa}, {sc}\n"  # the last instruction
    )
    interp = run(body, f"%a: {ta}, %b: {ta}, %c: {tc}, %c2: {tc}, %out: {to}", a, b, c, c2, out)
    np.testing.assert_array_equal(out, a.T @ c + b.T @ c)
    psum = machine(interp).psum
    second = psum[:m, 2048 : 2048 + 4 * n].copy().view(np.float32)
    np.testing.assert_array_equal(second, a.T @ c2)


def test_analysed_operands_kept_until_their_sbuf_bytes_are_touched(monkeypatch):
    """A matmul operand is analysed once and kept while other instructions touch other
    SBUF bytes (a write elsewhere, PSUM reads) and analysed anew once one touches its own
    bytes, even a single column: the second matmul sees the new stationary and the kept
    moving tile. Small integers, so numpy's products are exact."""
    import mxdsl.interpreters.bir as bir_interp

    analysed: list[tuple[int, ...]] = []
    pe_operand = bir_interp.pe_operand

    def counting(tile, *rest):
        analysed.append(tile.shape)
        return pe_operand(tile, *rest)

    monkeypatch.setattr(bir_interp, "pe_operand", counting)
    k, m, n = 16, 8, 4
    a = RNG.integers(-8, 8, (k, m)).astype(np.float32)
    c = RNG.integers(-8, 8, (k, n)).astype(np.float32)
    out = np.zeros((2, m, n), np.float32)
    ta, tc, to = mt(f"{k}x{m}", "f32"), mt(f"{k}x{n}", "f32"), mt(f"2x{m}x{n}", "f32")
    sa, sc = sb(k, f"[[1, {m}]]", F32), sb(k, f"[[1, {n}]]", F32, off=128)
    column = sb(k, "[[1, 1]]", F32, off=12)  # column 3 of the stationary tile
    dst, dst2 = ps(m, f"[[1, {n}]]", F32), ps(m, f"[[1, {n}]]", F32, off=2048)
    res, res2 = sb(m, f"[[1, {n}]]", F32, off=512), sb(m, f"[[1, {n}]]", F32, off=576)
    body = (
        load(sa, hb(f"[[{m}, {k}], [1, {m}]]", F32), "a", ta)
        + load(sc, hb(f"[[{n}, {k}], [1, {n}]]", F32), "c", tc)
        + f"  bir.matmult {dst}, {sa}, {sc}\n"
        + f"  bir.tensor_copy {res}, {dst}\n"  # reads psum, writes other sbuf bytes
        + f"  bir.memset {column}, 2.0\n"  # the stationary's bytes: analysed anew
        + f"  bir.matmult {dst2}, {sa}, {sc}\n"  # the moving tile kept
        + f"  bir.tensor_copy {res2}, {dst2}\n"
        + store(hb(f"[[{n}, {m}], [1, {n}]]", F32), "out", to, res)
        + store(hb(f"[[{n}, {m}], [1, {n}]]", F32, off=4 * m * n), "out", to, res2)
    )
    run(body, f"%a: {ta}, %c: {tc}, %out: {to}", a, c, out)
    a2 = a.copy()
    a2[:, 3] = 2.0
    np.testing.assert_array_equal(out[0], a.T @ c)
    np.testing.assert_array_equal(out[1], a2.T @ c)
    assert analysed == [(k, m), (k, n), (k, m)]


def test_machine_forgets_operands_by_granule():
    """``Machine.memory``: an SBUF access forgets the operands read from the granules
    (64 bytes of a partition) it touches, a PSUM access none, ``sbuf`` all."""
    from mxdsl.dialects.bir import Memory
    from mxdsl.interpreters.bir import Machine, _granules  # pyright: ignore[reportPrivateUsage]
    from mxdsl.numerics.matmul import pe_operand

    assert _granules(0, 64) == 0b1
    assert _granules(63, 65) == 0b11
    assert _granules(128, 320) == 0b11100
    assert _granules(5, 5) == 0
    core = Machine()
    calls: list[str] = []

    def analyse(name: str):
        def run():
            calls.append(name)
            return pe_operand(np.ones((2, 2), np.float32))

        return run

    def both():
        core.operand(("a",), analyse("a"), ((0, 32), (1024, 1040)))  # granules 0 and 16
        core.operand(("b",), analyse("b"), ((256, 512),))  # granules 4..7

    both()
    both()
    assert calls == ["a", "b"]
    core.memory(Memory.SBUF, span=(64, 256))  # granules 1..3: neither
    core.memory(Memory.PSUM, span=(0, 4096))
    both()
    assert calls == ["a", "b"]
    core.memory(Memory.SBUF, span=(1060, 1061))  # granule 16 (not a's bytes): a
    both()
    assert calls == ["a", "b", "a"]
    core.memory(Memory.SBUF, span=(500, 600))  # b
    both()
    assert calls == ["a", "b", "a", "b"]
    core.sbuf  # noqa: B018 (the property's access forgets every operand)
    both()
    assert calls == ["a", "b", "a", "b", "a", "b"]
