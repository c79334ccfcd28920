"""Numeric tests of the nisa interpreter: every op against plain numpy written here."""
# ruff: noqa: E501  (IR text of the kernels under test)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
)

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.nisa import uninitialized
from mxdsl.interpreters.spmd import SpmdError, run_spmd
from mxdsl.numerics.blocks import logical_block_shape
from mxdsl.numerics.formats import MxFormat
from mxdsl.numerics.reference import dequantize_mx_reference, quantize_mx_reference
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context

BF16 = ml_dtypes.bfloat16


def run(body: str, args: str, *inputs: np.ndarray, cores: int = 1) -> tuple[np.ndarray, ...]:
    ctx = _context()
    module, _ = parse_located(ctx, f"func.func @main({args}) {{\n{body}\n  func.return\n}}", "t")
    module.verify()
    run_spmd(lambda ls: make_interpreter(module, ctx, listeners=ls), "main", inputs, cores)
    return inputs


def sb(shape: str, t: str = "f32") -> str:
    return f"memref<{shape}x{t}, #nisa.mem<sbuf>>"


def hbm(shape: str, t: str = "f32") -> str:
    return f"memref<{shape}x{t}, #nisa.mem<hbm>>"


def load(name: str, shape: str, t: str = "f32", space: str = "sbuf") -> str:
    ty = f"memref<{shape}x{t}, #nisa.mem<{space}>>"
    return (
        f"  %{name} = memref.alloc() : {ty}\n"
        f"  nisa.dma_copy %{name}, %{name}_h : {ty}, {hbm(shape, t)}\n"
    )


def store(name: str, shape: str, t: str = "f32") -> str:
    return f"  nisa.dma_copy %out, %{name} : {hbm(shape, t)}, {sb(shape, t)}\n"


RNG = np.random.default_rng(0)


def test_alloc_reads_nan_and_subview_writes_land_in_parent():
    body = (
        f"  %t = memref.alloc() : {sb('4x4')}\n"
        f"  %v = memref.subview %t[1, 0] [2, 4] [1, 1] : {sb('4x4')} to "
        "memref<2x4xf32, strided<[4, 1], offset: 4>, #nisa.mem<sbuf>>\n"
        "  nisa.memset %v, 3.000000e+00 : memref<2x4xf32, strided<[4, 1], offset: 4>, "
        "#nisa.mem<sbuf>>\n" + store("t", "4x4")
    )
    (out,) = run(body, f"%out: {hbm('4x4')}", np.zeros((4, 4), np.float32))
    assert np.isnan(out[[0, 3]]).all()
    assert (out[1:3] == 3).all()


@pytest.mark.parametrize(
    "dtype",
    [np.float32, np.float64, np.float16, BF16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2],
)
def test_uninitialized_float_buffers_hold_the_converted_nan(dtype):
    element = {
        np.dtype(np.float32): Float32Type(),
        np.dtype(np.float64): Float64Type(),
        np.dtype(np.float16): Float16Type(),
        np.dtype(BF16): BFloat16Type(),
        np.dtype(ml_dtypes.float8_e4m3fn): Float8E4M3FNType(),
        np.dtype(ml_dtypes.float8_e5m2): Float8E5M2Type(),
    }[np.dtype(dtype)]
    buffer = uninitialized((4, 3, 2), element)
    assert buffer.dtype == np.dtype(dtype)
    assert buffer.shape == (4, 3, 2)
    assert np.isnan(buffer.astype(np.float32)).all()
    nan = np.full((4, 3, 2), np.float32(np.nan)).astype(dtype)  # what a cast gives
    unsigned = f"u{buffer.dtype.itemsize}"
    assert np.array_equal(buffer.view(unsigned), nan.view(unsigned))


def test_dma_copy_converts_through_f32_rne():
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    body = f"  %t = memref.alloc() : {sb('4x8', 'bf16')}\n" + (
        f"  nisa.dma_copy %t, %x : {sb('4x8', 'bf16')}, {hbm('4x8')}\n"
        f"  nisa.dma_copy %out, %t : {hbm('4x8', 'bf16')}, {sb('4x8', 'bf16')}\n"
    )
    _, out = run(body, f"%x: {hbm('4x8')}, %out: {hbm('4x8', 'bf16')}", x, np.zeros((4, 8), BF16))
    assert (out == x.astype(BF16)).all()


def test_dma_scatter_skip_and_oob_error():
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[4], [-1], [0]], np.int32)
    body = (
        load("s", "3x4")
        + load("i", "3x1", "i32")
        + (
            f"  nisa.dma_copy %out[%i : {sb('3x1', 'i32')}], %s oob_mode skip : {hbm('5x4')}, {sb('3x4')}\n"
        )
    )
    out = np.zeros((5, 4), np.float32)
    run(body, f"%s_h: {hbm('3x4')}, %i_h: {hbm('3x1', 'i32')}, %out: {hbm('5x4')}", src, idx, out)
    expected = np.zeros((5, 4), np.float32)
    expected[4], expected[0] = src[0], src[2]
    assert (out == expected).all()
    with pytest.raises(Exception, match="index -1 at position 1 is outside"):
        run(
            body.replace(" oob_mode skip", ""),
            f"%s_h: {hbm('3x4')}, %i_h: {hbm('3x1', 'i32')}, %out: {hbm('5x4')}",
            src,
            idx,
            out,
        )


@pytest.mark.parametrize("skip", [False, True])
@pytest.mark.parametrize("dim", [0, 1])
def test_dma_gather_and_scatter_convert_the_rows_moved(dim: int, skip: bool):
    """A bf16 table gathered into f32 (src -> f32 -> dst) and an f32 tile scattered
    into a bf16 table, along dim 0 or 1, every index in range or (skip) some not."""
    table = RNG.standard_normal((6, 6)).astype(BF16)
    n = 4
    idx = np.array([5, 0, -1, 3] if skip else [5, 0, 2, 3], np.int32).reshape(n, 1)
    tile_shape = (n, 6) if dim == 0 else (6, n)
    tile = RNG.standard_normal(tile_shape).astype(np.float32)
    t = "x".join(map(str, tile_shape))
    mode = " oob_mode skip" if skip else ""
    body = (
        load("i", f"{n}x1", "i32")
        + load("s", t)
        + f"  %g = memref.alloc() : {sb(t)}\n"
        + f"  nisa.memset %g, 7.000000e+00 : {sb(t)}\n"
        + f"  nisa.dma_copy %g, %table[%i : {sb(f'{n}x1', 'i32')}] dim {dim}{mode} : {sb(t)}, {hbm('6x6', 'bf16')}\n"
        + f"  nisa.dma_copy %gathered, %g : {hbm(t)}, {sb(t)}\n"
        + f"  nisa.dma_copy %back[%i : {sb(f'{n}x1', 'i32')}], %s dim {dim}{mode} : {hbm('6x6', 'bf16')}, {sb(t)}\n"
    )
    gathered = np.zeros(tile_shape, np.float32)
    back = np.zeros((6, 6), BF16)
    args = (
        f"%i_h: {hbm(f'{n}x1', 'i32')}, %table: {hbm('6x6', 'bf16')}, %s_h: {hbm(t)}, "
        f"%gathered: {hbm(t)}, %back: {hbm('6x6', 'bf16')}"
    )
    run(body, args, idx, table, tile, gathered, back)
    expected = np.full(tile_shape, 7.0, np.float32)
    expected_back = np.zeros((6, 6), BF16)
    for i, j in enumerate(idx.reshape(-1)):
        if j < 0:
            continue
        if dim == 0:
            expected[i] = table[j].astype(np.float32)
            expected_back[j] = tile[i].astype(BF16)
        else:
            expected[:, i] = table[:, j].astype(np.float32)
            expected_back[:, j] = tile[:, i].astype(BF16)
    assert np.array_equal(gathered, expected)
    assert np.array_equal(back.view(np.uint16), expected_back.view(np.uint16))


def test_dma_compute_sums_in_f32():
    a, b, c = (RNG.standard_normal((2, 8)).astype(BF16) for _ in range(3))
    t = hbm("2x8", "bf16")
    body = f"  nisa.dma_compute %out, (%a, %b, %c) : {t}, ({t}, {t}, {t})\n"
    *_, out = run(body, f"%a: {t}, %b: {t}, %c: {t}, %out: {t}", a, b, c, np.zeros((2, 8), BF16))
    f = np.float32
    assert (out == (a.astype(f) + b.astype(f) + c.astype(f)).astype(BF16)).all()


def test_iota():
    body = (
        f"  %t = memref.alloc() : {sb('3x2x4', 'i32')}\n"
        f"  nisa.iota %t, [[10, 2], [1, 4]] offset 5 channel_multiplier 100 : {sb('3x2x4', 'i32')}\n"
        f"  nisa.dma_copy %out, %t : {hbm('3x2x4', 'i32')}, {sb('3x2x4', 'i32')}\n"
    )
    (out,) = run(body, f"%out: {hbm('3x2x4', 'i32')}", np.zeros((3, 2, 4), np.int32))
    p, i, j = np.meshgrid(np.arange(3), np.arange(2), np.arange(4), indexing="ij")
    assert (out == 5 + 100 * p + 10 * i + j).all()


def test_tensor_copy_rounds_once_and_transpose():
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    body = load("x", "4x6") + (
        f"  %y = memref.alloc() : {sb('4x6', 'bf16')}\n"
        f"  nisa.tensor_copy %y, %x : {sb('4x6', 'bf16')}, {sb('4x6')}\n"
        "  %z = memref.alloc() : memref<6x4xbf16, #nisa.mem<psum>>\n"
        f"  nisa.nc_transpose %z, %y : memref<6x4xbf16, #nisa.mem<psum>>, {sb('4x6', 'bf16')}\n"
        f"  %w = memref.alloc() : {sb('6x4', 'bf16')}\n"
        f"  nisa.tensor_copy %w, %z : {sb('6x4', 'bf16')}, memref<6x4xbf16, #nisa.mem<psum>>\n"
        + store("w", "6x4", "bf16")
    )
    _, out = run(body, f"%x_h: {hbm('4x6')}, %out: {hbm('6x4', 'bf16')}", x, np.zeros((6, 4), BF16))
    assert (out == x.astype(BF16).T).all()


def test_nc_matmul_overwrite_then_accumulate_bf16_psum():
    s = RNG.standard_normal((16, 4)).astype(BF16)
    m = RNG.standard_normal((16, 8)).astype(BF16)
    ps = "memref<4x8xbf16, #nisa.mem<psum>>"
    body = (
        load("s", "16x4", "bf16")
        + load("m", "16x8", "bf16")
        + (
            f"  %d = memref.alloc() : {ps}\n"
            f"  nisa.nc_matmul %d, %s, %m : {ps}, {sb('16x4', 'bf16')}, {sb('16x8', 'bf16')}\n"
            f"  nisa.nc_matmul %d, %s, %m accumulate : {ps}, {sb('16x4', 'bf16')}, {sb('16x8', 'bf16')}\n"
            f"  %r = memref.alloc() : {sb('4x8', 'bf16')}\n"
            f"  nisa.tensor_copy %r, %d : {sb('4x8', 'bf16')}, {ps}\n" + store("r", "4x8", "bf16")
        )
    )
    *_, out = run(
        body,
        f"%s_h: {hbm('16x4', 'bf16')}, %m_h: {hbm('16x8', 'bf16')}, %out: {hbm('4x8', 'bf16')}",
        s,
        m,
        np.zeros((4, 8), BF16),
    )
    once = (s.astype(np.float32).T @ m.astype(np.float32)).astype(BF16)
    assert (
        out
        == (once.astype(np.float32) + s.astype(np.float32).T @ m.astype(np.float32)).astype(BF16)
    ).all()


@pytest.mark.parametrize(
    ("alu", "fn"),
    [
        ("add", np.add),
        ("subtract", np.subtract),
        ("multiply", np.multiply),
        ("divide", np.divide),
        ("maximum", np.maximum),
        ("greater", lambda a, b: (a > b).astype(np.float32)),
        ("abs_max", lambda a, b: np.maximum(abs(a), abs(b))),
    ],
)
def test_tensor_tensor(alu, fn):
    a = RNG.standard_normal((4, 8)).astype(BF16)
    b = RNG.standard_normal((4, 8)).astype(BF16)
    body = (
        load("a", "4x8", "bf16")
        + load("b", "4x8", "bf16")
        + (
            f"  %d = memref.alloc() : {sb('4x8', 'bf16')}\n"
            f"  nisa.tensor_tensor %d, {alu} %a, %b : {sb('4x8', 'bf16')}, {sb('4x8', 'bf16')}, {sb('4x8', 'bf16')}\n"
            + store("d", "4x8", "bf16")
        )
    )
    *_, out = run(
        body,
        f"%a_h: {hbm('4x8', 'bf16')}, %b_h: {hbm('4x8', 'bf16')}, %out: {hbm('4x8', 'bf16')}",
        a,
        b,
        np.zeros((4, 8), BF16),
    )
    expected = fn(a.astype(np.float32), b.astype(np.float32)).astype(np.float32).astype(BF16)
    assert (out.view(np.uint16) == expected.view(np.uint16)).all()


def test_tensor_tensor_bitwise_int():
    a = RNG.integers(0, 1000, (2, 4)).astype(np.int32)
    b = RNG.integers(0, 1000, (2, 4)).astype(np.int32)
    t = sb("2x4", "i32")
    body = (
        load("a", "2x4", "i32")
        + load("b", "2x4", "i32")
        + (
            f"  %d = memref.alloc() : {t}\n  nisa.tensor_tensor %d, bitwise_xor %a, %b : {t}, {t}, {t}\n"
            + store("d", "2x4", "i32")
        )
    )
    h = hbm("2x4", "i32")
    *_, out = run(body, f"%a_h: {h}, %b_h: {h}, %out: {h}", a, b, np.zeros((2, 4), np.int32))
    assert (out == a ^ b).all()


def test_tensor_scalar_reverse_and_column():
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    col = RNG.standard_normal((4, 1)).astype(np.float32)
    body = (
        load("x", "4x8")
        + load("c", "4x1")
        + (
            "  %s = arith.constant 2.0 : f32\n"
            f"  %d = memref.alloc() : {sb('4x8')}\n"
            f"  nisa.tensor_scalar %d, %x, reverse subtract %s, multiply %c : {sb('4x8')}, {sb('4x8')}, f32, {sb('4x1')}\n"
            + store("d", "4x8")
        )
    )
    *_, out = run(
        body,
        f"%x_h: {hbm('4x8')}, %c_h: {hbm('4x1')}, %out: {hbm('4x8')}",
        x,
        col,
        np.zeros((4, 8), np.float32),
    )
    assert (out == (np.float32(2) - x) * col).all()


def test_scalar_tensor_tensor():
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    y = RNG.standard_normal((4, 8)).astype(np.float32)
    body = (
        load("x", "4x8")
        + load("y", "4x8")
        + (
            "  %s = arith.constant 3.0 : f32\n"
            f"  %d = memref.alloc() : {sb('4x8')}\n"
            f"  nisa.scalar_tensor_tensor %d, %x, multiply %s, add %y : {sb('4x8')}, {sb('4x8')}, f32, {sb('4x8')}\n"
            + store("d", "4x8")
        )
    )
    *_, out = run(
        body,
        f"%x_h: {hbm('4x8')}, %y_h: {hbm('4x8')}, %out: {hbm('4x8')}",
        x,
        y,
        np.zeros((4, 8), np.float32),
    )
    assert (out == x * np.float32(3) + y).all()


def test_tensor_reduce_negate():
    x = RNG.standard_normal((4, 2, 8)).astype(np.float32)
    body = load("x", "4x2x8") + (
        f"  %d = memref.alloc() : {sb('4x1')}\n"
        f"  nisa.tensor_reduce %d, maximum %x axes [1, 2] negate : {sb('4x1')}, {sb('4x2x8')}\n"
        + store("d", "4x1")
    )
    _, out = run(body, f"%x_h: {hbm('4x2x8')}, %out: {hbm('4x1')}", x, np.zeros((4, 1), np.float32))
    assert (out[:, 0] == -x.max(axis=(1, 2))).all()


def test_tensor_reduce_add_is_the_exact_sum_rounded_once():
    """docs/numerics.md, "Float sums": each row is [1, 2^-24 x 15], exactly
    1 + 15 * 2^-24 = 1 + 7.5 ulp, rounded once (a tie, to even) to 1 + 2^-20; a
    left-to-right f32 fold would give 1 (every 1 + 2^-24 ties back to 1). More cases
    against fractions: test_tensor_reduce_sums.py."""
    x = np.full((4, 2, 8), 2.0**-24, np.float32)
    x[:, 0, 0] = 1.0
    body = load("x", "4x2x8") + (
        f"  %d = memref.alloc() : {sb('4x1')}\n"
        f"  nisa.tensor_reduce %d, add %x axes [1, 2] : {sb('4x1')}, {sb('4x2x8')}\n"
        + store("d", "4x1")
    )
    _, out = run(body, f"%x_h: {hbm('4x2x8')}, %out: {hbm('4x1')}", x, np.zeros((4, 1), np.float32))
    assert out[:, 0].tolist() == [1.0 + 2.0**-20] * 4


@pytest.mark.parametrize(
    ("act", "fn"),
    [
        ("silu", lambda x: x / (1 + np.exp(-x))),
        ("gelu_apprx_sigmoid", lambda x: x / (1 + np.exp(-1.702 * x))),
        ("tanh", np.tanh),
        ("exp", np.exp),
        ("relu", lambda x: np.maximum(x, 0)),
    ],
)
def test_activation_scale_bias(act, fn):
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    bias = RNG.standard_normal((4, 1)).astype(np.float32)
    body = (
        load("x", "4x8")
        + load("b", "4x1")
        + (
            "  %s = arith.constant 0.5 : f32\n"
            f"  %d = memref.alloc() : {sb('4x8', 'bf16')}\n"
            f"  nisa.activation %d, {act} %x scale(%s : f32) bias(%b : {sb('4x1')}) : {sb('4x8', 'bf16')}, {sb('4x8')}\n"
            + store("d", "4x8", "bf16")
        )
    )
    *_, out = run(
        body,
        f"%x_h: {hbm('4x8')}, %b_h: {hbm('4x1')}, %out: {hbm('4x8', 'bf16')}",
        x,
        bias,
        np.zeros((4, 8), BF16),
    )
    pre = (x * np.float32(0.5) + bias).astype(np.float64)
    assert (out == fn(pre).astype(np.float32).astype(BF16)).all()


def test_tensor_copy_predicated():
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    p = np.array([[1, 0, 2, 0], [0, 0, 1, 1]], np.uint8)
    body = (
        load("x", "2x4")
        + load("p", "2x4", "ui8")
        + (
            f"  %d = memref.alloc() : {sb('2x4')}\n"
            f"  nisa.memset %d, 7.000000e+00 : {sb('2x4')}\n"
            f"  nisa.tensor_copy_predicated %d, %x where %p : {sb('2x4')}, {sb('2x4')}, {sb('2x4', 'ui8')}\n"
            + store("d", "2x4")
        )
    )
    *_, out = run(
        body,
        f"%x_h: {hbm('2x4')}, %p_h: {hbm('2x4', 'ui8')}, %out: {hbm('2x4')}",
        x,
        p,
        np.zeros((2, 4), np.float32),
    )
    assert (out == np.where(p != 0, x, 7)).all()


def _to_physical(x: np.ndarray) -> np.ndarray:
    """HLO layout [G, 32 C] (blocks of 32 along the last dim) -> nisa tile [8 G, 4 C] with
    tile[8 g + r, 4 c + q] = x[g, 32 c + 4 r + q]: every 8 x 4 physical block holds
    exactly one logical block, in the same element order."""
    g, w = x.shape
    return x.reshape(g, w // 32, 8, 4).transpose(0, 2, 1, 3).reshape(8 * g, w // 8)


@pytest.mark.parametrize(
    ("fmt", "x4_name"),
    [(MxFormat.E4M3FN, "float8_e4m3fn_x4"), (MxFormat.E5M2, "float8_e5m2_x4")],
)
def test_quantize_mx_matches_hlo_geometry_bit_for_bit(fmt: MxFormat, x4_name: str):
    # wide magnitudes plus the edge cases a block can hold: +-inf, NaN, an all-zero
    # block, bf16 subnormals, a block whose max is the largest bf16
    x = (RNG.standard_normal((4, 64)) * np.exp2(RNG.integers(-20, 20, (4, 64)))).astype(BF16)
    x[0, 3], x[0, 40], x[1, 5] = np.inf, -np.inf, np.nan
    x[2, :32] = 0
    x[2, 32:48] = np.float32(2.0**-130)
    x[3, 0] = ml_dtypes.finfo(BF16).max
    tile = np.ascontiguousarray(_to_physical(x))  # [32, 8]
    x4 = f"memref<32x2x!nisa.{x4_name}, #nisa.mem<sbuf>>"
    body = load("s", "32x8", "bf16") + (
        f"  %q = memref.alloc() : {x4}\n"
        f"  %sc = memref.alloc() : {sb('4x2', 'f8E8M0FNU')}\n"
        f"  nisa.quantize_mx %q scale %sc, %s : {x4}, {sb('4x2', 'f8E8M0FNU')}, {sb('32x8', 'bf16')}\n"
        f"  nisa.dma_copy %sc_out, %sc : {hbm('4x2', 'f8E8M0FNU')}, {sb('4x2', 'f8E8M0FNU')}\n"
        f"  nisa.dma_copy %q_out, %q : memref<32x2x!nisa.{x4_name}, #nisa.mem<hbm>>, {x4}\n"
    )
    q_out = np.zeros((32, 2), np.uint32)
    sc_out = np.zeros((4, 2), ml_dtypes.float8_e8m0fnu)
    run(
        body,
        f"%s_h: {hbm('32x8', 'bf16')}, %sc_out: {hbm('4x2', 'f8E8M0FNU')}, "
        f"%q_out: memref<32x2x!nisa.{x4_name}, #nisa.mem<hbm>>",
        tile,
        sc_out,
        q_out,
    )
    codes, scale = quantize_mx_reference(x, fmt, logical_block_shape(2, 1))
    assert (sc_out.view(np.uint8) == scale).all()
    nisa_codes = q_out.astype("<u4").view(np.uint8).reshape(32, 8)
    assert (nisa_codes == _to_physical(codes)).all()


def test_nc_matmul_mx_matches_scaled_matmul():
    # HLO: lhs [M, K] and rhs [N, K] quantized along K (blocks of 32), dot in f32. nisa:
    # k = 4 p + q, so stationary[p, m] lane q = lhs[m, 4 p + q].
    m_, n_, p_ = 4, 6, 64
    lhs = RNG.standard_normal((m_, 4 * p_)).astype(BF16)
    rhs = RNG.standard_normal((n_, 4 * p_)).astype(BF16)
    fmt = MxFormat.E4M3FN
    lc, ls = quantize_mx_reference(lhs, fmt, logical_block_shape(2, 1))
    rc, rs = quantize_mx_reference(rhs, fmt, logical_block_shape(2, 1))
    # one PE pass (K = 256 <= 512): the products summed in float64, rounded once to fp32
    expected = (
        dequantize_mx_reference(lc, ls, fmt, (1, 32)).astype(np.float64)
        @ dequantize_mx_reference(rc, rs, fmt, (1, 32)).astype(np.float64).T
    ).astype(np.float32)

    def nisa_side(codes, scale, f):
        data = codes.reshape(f, p_, 4).transpose(1, 0, 2).copy().view("<u4")[..., 0]
        tile = np.full((p_, f), 0, ml_dtypes.float8_e8m0fnu)
        rows = [(i & 3) + 32 * (i >> 2) for i in range(p_ // 8)]
        tile_u8 = tile.view(np.uint8)
        tile_u8[rows] = scale.T  # scale row i = partitions 8i..8i+7 = K block i
        return data.astype(np.uint32), tile

    sd, ss = nisa_side(lc, ls, m_)
    md, ms = nisa_side(rc, rs, n_)
    x4 = lambda f: f"memref<{p_}x{f}x!nisa.float8_e4m3fn_x4, #nisa.mem<{{}}>>"  # noqa: E731
    sc = lambda f: f"memref<{p_}x{f}xf8E8M0FNU, #nisa.mem<{{}}>>"  # noqa: E731
    body = "".join(
        f"  %{n} = memref.alloc() : {t.format('sbuf')}\n"
        f"  nisa.dma_copy %{n}, %{n}_h : {t.format('sbuf')}, {t.format('hbm')}\n"
        for n, t in (("sd", x4(m_)), ("ss", sc(m_)), ("md", x4(n_)), ("ms", sc(n_)))
    ) + (
        f"  %acc = memref.alloc() : memref<{m_}x{n_}xf32, #nisa.mem<psum>>\n"
        f"  nisa.nc_matmul_mx %acc, %sd scale %ss, %md scale %ms : memref<{m_}x{n_}xf32, #nisa.mem<psum>>, "
        f"{x4(m_).format('sbuf')}, {sc(m_).format('sbuf')}, {x4(n_).format('sbuf')}, {sc(n_).format('sbuf')}\n"
        f"  %r = memref.alloc() : {sb(f'{m_}x{n_}')}\n"
        f"  nisa.tensor_copy %r, %acc : {sb(f'{m_}x{n_}')}, memref<{m_}x{n_}xf32, #nisa.mem<psum>>\n"
        + store("r", f"{m_}x{n_}")
    )
    args = (
        ", ".join(
            f"%{n}_h: {t.format('hbm')}"
            for n, t in (("sd", x4(m_)), ("ss", sc(m_)), ("md", x4(n_)), ("ms", sc(n_)))
        )
        + f", %out: {hbm(f'{m_}x{n_}')}"
    )
    *_, out = run(body, args, sd, ss, md, ms, np.zeros((m_, n_), np.float32))
    assert (out.view(np.uint32) == expected.astype(np.float32).view(np.uint32)).all()


def test_register_load_dynamic_for_and_while():
    body = load("n", "1x1", "i32") + (
        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
        f"  %n = nisa.register_load %n : {sb('1x1', 'i32')} -> index\n"
        f"  %acc = memref.alloc() : {sb('1x1')}\n"
        f"  nisa.memset %acc, 0.000000e+00 : {sb('1x1')}\n"
        "  %one = arith.constant 1.0 : f32\n"
        "  scf.for %i = %c0 to %n step %c1 {\n"
        f"    nisa.tensor_scalar %acc, %acc, add %one : {sb('1x1')}, {sb('1x1')}, f32\n"
        "  }\n" + store("acc", "1x1")
    )
    body = body.replace("%n = nisa.register_load %n", "%cnt = nisa.register_load %n").replace(
        "to %n step", "to %cnt step"
    )
    _, out = run(
        body,
        f"%n_h: {hbm('1x1', 'i32')}, %out: {hbm('1x1')}",
        np.array([[5]], np.int32),
        np.zeros((1, 1), np.float32),
    )
    assert out[0, 0] == 5


def test_spmd_program_id_barrier_and_determinism():
    body = (
        "  %r = nisa.program_id\n  %n = nisa.num_programs\n"
        f"  %t = memref.alloc() : {sb('1x4')}\n"
        f"  nisa.iota %t, [[1, 4]] : {sb('1x4')}\n"
        f"  %o = memref.subview %out[%r, 0] [1, 4] [1, 1] : {hbm('2x4')} to memref<1x4xf32, strided<[4, 1], offset: ?>, #nisa.mem<hbm>>\n"
        f"  nisa.dma_copy %o, %t : memref<1x4xf32, strided<[4, 1], offset: ?>, #nisa.mem<hbm>>, {sb('1x4')}\n"
        f"  nisa.core_barrier %out : {hbm('2x4')}\n"
    )
    outs = [
        run(body, f"%out: {hbm('2x4')}", np.zeros((2, 4), np.float32), cores=2)[0] for _ in range(3)
    ]
    for out in outs:
        assert (out == np.arange(4)).all()


def test_spmd_deadlock_names_each_core():
    body = f"  nisa.core_barrier %out cores [0, 1] : {hbm('2x4')}\n"
    with pytest.raises(SpmdError, match=r"core 0: blocked in nisa.core_barrier at t:\d+:\d+"):
        run(
            "  %r = nisa.program_id\n  %c0 = arith.constant 0 : index\n"
            "  %z = arith.cmpi eq, %r, %c0 : index\n  scf.if %z {\n" + body + "  }\n",
            f"%out: {hbm('2x4')}",
            np.zeros((2, 4), np.float32),
            cores=2,
        )


@pytest.mark.parametrize(
    ("element_type", "word", "bits"),
    [
        ("bf16", np.uint16, 0x7FC0),
        ("f16", np.uint16, 0x7E00),
        ("f32", np.uint32, 0x7FC0_0000),
    ],
)
def test_alloc_sentinel_is_the_quiet_nan_of_each_float_dtype(element_type, word, bits):
    """Every element of a fresh float buffer holds the default quiet NaN's bit pattern
    (what float32 NaN converts to in that format)."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type

    from mxdsl.interpreters.nisa import uninitialized

    types = {"bf16": BFloat16Type(), "f16": Float16Type(), "f32": Float32Type()}
    buffer = uninitialized((3, 5, 7), types[element_type])
    assert buffer.shape == (3, 5, 7)
    assert (buffer.view(word) == bits).all()


def test_alu_maximum_minimum_order_signed_zeros():
    """The ALU's maximum / minimum are IEEE 754's (docs/numerics.md): -0 < +0 whatever
    the operand order, NaN propagates; in tensor_tensor and in tensor_reduce."""
    a = np.array([[0.0, -0.0, -0.0, np.nan], [-0.0, 0.0, 0.0, 1.0]], np.float32)
    b = np.array([[-0.0, 0.0, -0.0, 1.0], [-0.0, -0.0, 0.0, np.nan]], np.float32)
    t = sb("2x4")
    signs = {}
    for alu in ("maximum", "minimum"):
        body = (
            load("a", "2x4")
            + load("b", "2x4")
            + f"  %d = memref.alloc() : {t}\n  nisa.tensor_tensor %d, {alu} %a, %b : {t}, {t}, {t}\n"
            + store("d", "2x4")
        )
        h = hbm("2x4")
        *_, out = run(body, f"%a_h: {h}, %b_h: {h}, %out: {h}", a, b, np.zeros((2, 4), np.float32))
        assert np.isnan(out[:, 3]).all()
        signs[alu] = np.signbit(out[:, :3]).tolist()
    assert signs["maximum"] == [[False, False, True], [True, False, False]]
    assert signs["minimum"] == [[True, True, True], [True, True, False]]
    x = np.array([[0.0, -0.0, -0.0, 0.0], [-0.0, -0.0, -0.0, -0.0]], np.float32)
    for alu, expected in (("maximum", [False, True]), ("minimum", [True, True])):
        body = load("x", "2x4") + (
            f"  %d = memref.alloc() : {sb('2x1')}\n"
            f"  nisa.tensor_reduce %d, {alu} %x axes [1] : {sb('2x1')}, {sb('2x4')}\n"
            + store("d", "2x1")
        )
        _, out = run(
            body, f"%x_h: {hbm('2x4')}, %out: {hbm('2x1')}", x, np.zeros((2, 1), np.float32)
        )
        assert np.signbit(out[:, 0]).tolist() == expected, alu
