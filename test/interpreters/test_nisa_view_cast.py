"""nisa.view_cast in the interpreter: a zero-copy reinterpretation of integer HBM
weights as x4 types (reads see the integer bits, writes land in the source), and an
nc_matmul_mx on viewed weights equals the numerics' MX matmul operand decode; lowered
to bir, the views fold into the patterns' dtypes and the bits stay."""
# ruff: noqa: E501  (IR text of the kernels under test)

from __future__ import annotations

import numpy as np

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.spmd import run_spmd
from mxdsl.numerics import MxFormat, pack_fp4_x4, pack_fp8_x4, quantize_mx
from mxdsl.numerics.matmul import mx_matmul_operand, pe_pass
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context
from mxdsl.transforms.lower_nisa_to_bir import LowerNisaToBirPass


def run(text: str, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
    ctx = _context()
    module, _ = parse_located(ctx, text, "t")
    module.verify()
    run_spmd(lambda ls: make_interpreter(module, ctx, listeners=ls), "main", inputs, 1)
    return inputs


def test_view_cast_reads_and_writes_the_source_bits():
    x4 = "!nisa.float8_e4m3fn_x4"
    text = f"""
func.func @main(%w: memref<32x4xui32, #nisa.mem<hbm>>, %o: memref<32x4xsi32, #nisa.mem<hbm>>) {{
  %wv = nisa.view_cast %w : memref<32x4xui32, #nisa.mem<hbm>> to memref<32x4x{x4}, #nisa.mem<hbm>>
  %ov = nisa.view_cast %o : memref<32x4xsi32, #nisa.mem<hbm>> to memref<32x4x{x4}, #nisa.mem<hbm>>
  %t = memref.alloc() : memref<32x4x{x4}, #nisa.mem<sbuf>>
  nisa.dma_copy %t, %wv : memref<32x4x{x4}, #nisa.mem<sbuf>>, memref<32x4x{x4}, #nisa.mem<hbm>>
  nisa.dma_copy %ov, %t : memref<32x4x{x4}, #nisa.mem<hbm>>, memref<32x4x{x4}, #nisa.mem<sbuf>>
  func.return
}}"""
    rng = np.random.default_rng(0)
    w = rng.integers(0, 2**32, size=(32, 4), dtype=np.uint32)
    out = np.zeros((32, 4), np.int32)
    run(text, w, out)
    assert np.array_equal(out.view(np.uint32), w)


def _mx_weights(fmt: MxFormat, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """[32 partitions, 8 columns, 4 lanes] values quantized in 8 x 4 physical blocks:
    (x4 containers [32, 8], scale rows [4, 8])."""
    x = rng.standard_normal((4, 8, 8, 4)).astype(np.float32)  # [row, p in row, col, q]
    codes, scale = quantize_mx(x, fmt, (1, 8, 1, 4))  # one scale per 8 partitions x 4 lanes
    codes = codes.reshape(32, 8, 4)
    pack = pack_fp8_x4 if fmt.is_fp8 else pack_fp4_x4
    return pack(codes).reshape(32, 8), scale.reshape(4, 8)


def test_nc_matmul_mx_on_viewed_integer_weights():
    rng = np.random.default_rng(1)
    for fmt, (x4, int_t, np_t) in {
        MxFormat.E4M3FN: ("!nisa.float8_e4m3fn_x4", "ui32", np.uint32),
        MxFormat.E5M2: ("!nisa.float8_e5m2_x4", "i32", np.int32),
        MxFormat.E2M1: ("!nisa.float4_e2m1fn_x4", "ui16", np.uint16),
    }.items():
        w, ws = _mx_weights(fmt, rng)
        a, as_ = _mx_weights(MxFormat.E4M3FN, rng)
        text = f"""
func.func @main(%w: memref<32x8x{int_t}, #nisa.mem<hbm>>, %ws: memref<4x8xui8, #nisa.mem<hbm>>,
                %a: memref<32x8xui32, #nisa.mem<hbm>>, %as: memref<4x8xui8, #nisa.mem<hbm>>,
                %o: memref<8x8xf32, #nisa.mem<hbm>>) {{
  %wv = nisa.view_cast %w : memref<32x8x{int_t}, #nisa.mem<hbm>> to memref<32x8x{x4}, #nisa.mem<hbm>>
  %av = nisa.view_cast %a : memref<32x8xui32, #nisa.mem<hbm>> to memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  %wt = memref.alloc() : memref<32x8x{x4}, #nisa.mem<sbuf>>
  %at = memref.alloc() : memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  %wst = memref.alloc() : memref<32x8xui8, #nisa.mem<sbuf>>
  %ast = memref.alloc() : memref<32x8xui8, #nisa.mem<sbuf>>
  %p = memref.alloc() : memref<8x8xf32, #nisa.mem<psum>>
  %s = memref.alloc() : memref<8x8xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %wt, %wv : memref<32x8x{x4}, #nisa.mem<sbuf>>, memref<32x8x{x4}, #nisa.mem<hbm>>
  nisa.dma_copy %at, %av : memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  %wsv = memref.subview %wst[0, 0] [4, 8] [1, 1] : memref<32x8xui8, #nisa.mem<sbuf>> to memref<4x8xui8, strided<[8, 1]>, #nisa.mem<sbuf>>
  %asv = memref.subview %ast[0, 0] [4, 8] [1, 1] : memref<32x8xui8, #nisa.mem<sbuf>> to memref<4x8xui8, strided<[8, 1]>, #nisa.mem<sbuf>>
  nisa.dma_copy %wsv, %ws : memref<4x8xui8, strided<[8, 1]>, #nisa.mem<sbuf>>, memref<4x8xui8, #nisa.mem<hbm>>
  nisa.dma_copy %asv, %as : memref<4x8xui8, strided<[8, 1]>, #nisa.mem<sbuf>>, memref<4x8xui8, #nisa.mem<hbm>>
  nisa.nc_matmul_mx %p, %wt scale %wst, %at scale %ast : memref<8x8xf32, #nisa.mem<psum>>, memref<32x8x{x4}, #nisa.mem<sbuf>>, memref<32x8xui8, #nisa.mem<sbuf>>, memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<32x8xui8, #nisa.mem<sbuf>>
  nisa.tensor_copy %s, %p : memref<8x8xf32, #nisa.mem<sbuf>>, memref<8x8xf32, #nisa.mem<psum>>
  nisa.dma_copy %o, %s : memref<8x8xf32, #nisa.mem<hbm>>, memref<8x8xf32, #nisa.mem<sbuf>>
  func.return
}}"""
        out = np.zeros((8, 8), np.float32)
        run(text, w.view(np_t), ws, a, as_, out)
        lhs = mx_matmul_operand(w, ws, fmt)
        rhs = mx_matmul_operand(a, as_, MxFormat.E4M3FN)
        assert np.array_equal(out, pe_pass(lhs, rhs.T)), fmt
        assert np.abs(out).max() > 0


def two_formats_kernel() -> str:
    """Two nc_matmul_mx in a loop read one SBUF tile as float8_e4m3fn_x4 and float8_e5m2_x4."""
    e4, e5 = "!nisa.float8_e4m3fn_x4", "!nisa.float8_e5m2_x4"
    sb = "#nisa.mem<sbuf>"
    return f"""
func.func @main(%w: memref<32x8xui32, #nisa.mem<hbm>>, %ws: memref<4x8xui8, #nisa.mem<hbm>>,
                %a: memref<32x8xui32, #nisa.mem<hbm>>, %as: memref<4x8xui8, #nisa.mem<hbm>>,
                %o: memref<2x8x8xf32, #nisa.mem<hbm>>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %wraw = memref.alloc() : memref<32x8xui32, {sb}>
  %araw = memref.alloc() : memref<32x8xui32, {sb}>
  nisa.dma_copy %wraw, %w : memref<32x8xui32, {sb}>, memref<32x8xui32, #nisa.mem<hbm>>
  nisa.dma_copy %araw, %a : memref<32x8xui32, {sb}>, memref<32x8xui32, #nisa.mem<hbm>>
  %wt = nisa.view_cast %wraw : memref<32x8xui32, {sb}> to memref<32x8x{e4}, {sb}>
  %a4 = nisa.view_cast %araw : memref<32x8xui32, {sb}> to memref<32x8x{e4}, {sb}>
  %a5 = nisa.view_cast %araw : memref<32x8xui32, {sb}> to memref<32x8x{e5}, {sb}>
  %wst = memref.alloc() : memref<32x8xui8, {sb}>
  %ast = memref.alloc() : memref<32x8xui8, {sb}>
  %wsv = memref.subview %wst[0, 0] [4, 8] [1, 1] : memref<32x8xui8, {sb}> to memref<4x8xui8, strided<[8, 1]>, {sb}>
  %asv = memref.subview %ast[0, 0] [4, 8] [1, 1] : memref<32x8xui8, {sb}> to memref<4x8xui8, strided<[8, 1]>, {sb}>
  nisa.dma_copy %wsv, %ws : memref<4x8xui8, strided<[8, 1]>, {sb}>, memref<4x8xui8, #nisa.mem<hbm>>
  nisa.dma_copy %asv, %as : memref<4x8xui8, strided<[8, 1]>, {sb}>, memref<4x8xui8, #nisa.mem<hbm>>
  %p4 = memref.alloc() : memref<8x8xf32, #nisa.mem<psum>>
  %p5 = memref.alloc() : memref<8x8xf32, #nisa.mem<psum>>
  scf.for %i = %c0 to %c2 step %c1 {{
    nisa.nc_matmul_mx %p4, %wt scale %wst, %a4 scale %ast : memref<8x8xf32, #nisa.mem<psum>>, memref<32x8x{e4}, {sb}>, memref<32x8xui8, {sb}>, memref<32x8x{e4}, {sb}>, memref<32x8xui8, {sb}>
    nisa.nc_matmul_mx %p5, %wt scale %wst, %a5 scale %ast : memref<8x8xf32, #nisa.mem<psum>>, memref<32x8x{e4}, {sb}>, memref<32x8xui8, {sb}>, memref<32x8x{e5}, {sb}>, memref<32x8xui8, {sb}>
  }}
  %s4 = memref.alloc() : memref<8x8xf32, {sb}>
  %s5 = memref.alloc() : memref<8x8xf32, {sb}>
  nisa.tensor_copy %s4, %p4 : memref<8x8xf32, {sb}>, memref<8x8xf32, #nisa.mem<psum>>
  nisa.tensor_copy %s5, %p5 : memref<8x8xf32, {sb}>, memref<8x8xf32, #nisa.mem<psum>>
  %o4 = memref.subview %o[0, 0, 0] [1, 8, 8] [1, 1, 1] : memref<2x8x8xf32, #nisa.mem<hbm>> to memref<8x8xf32, strided<[8, 1]>, #nisa.mem<hbm>>
  %o5 = memref.subview %o[1, 0, 0] [1, 8, 8] [1, 1, 1] : memref<2x8x8xf32, #nisa.mem<hbm>> to memref<8x8xf32, strided<[8, 1], offset: 64>, #nisa.mem<hbm>>
  nisa.dma_copy %o4, %s4 : memref<8x8xf32, strided<[8, 1]>, #nisa.mem<hbm>>, memref<8x8xf32, {sb}>
  nisa.dma_copy %o5, %s5 : memref<8x8xf32, strided<[8, 1], offset: 64>, #nisa.mem<hbm>>, memref<8x8xf32, {sb}>
  func.return
}}"""


def test_one_tile_read_as_two_x4_types_in_one_loop():
    """Two nc_matmul_mx in a loop body read the same SBUF words as float8_e4m3fn_x4 and as
    float8_e5m2_x4: each decodes them in its own format (an operand analysed for one
    matmul is reused by the next only for the same memory read as the same type)."""
    rng = np.random.default_rng(4)
    w, ws = _mx_weights(MxFormat.E4M3FN, rng)
    a, as_ = _mx_weights(MxFormat.E4M3FN, rng)
    a[(a & 0x7F7F7F7F) == 0x7F7F7F7F] = 0  # no word whose lanes are all e5m2 NaN/inf codes
    text = two_formats_kernel()
    out = np.zeros((2, 8, 8), np.float32)
    run(text, w, ws, a, as_, out)
    lhs = mx_matmul_operand(w, ws, MxFormat.E4M3FN)
    for index, fmt in enumerate((MxFormat.E4M3FN, MxFormat.E5M2)):
        rhs = mx_matmul_operand(a, as_, fmt)
        want = pe_pass(lhs, rhs.T)
        assert np.array_equal(out[index].view(np.uint32), want.view(np.uint32)), fmt
    assert not np.array_equal(out[0], out[1])


def test_lowered_to_bir_the_views_become_pattern_dtypes_with_the_same_bits():
    """lower-nisa-to-bir folds each view_cast into the patterns that read through it
    (the e4m3 and e5m2 views of one SBUF tile: dtype codes 8 and 9); the bir kernel
    computes the nisa kernel's bits."""
    rng = np.random.default_rng(6)
    w, ws = _mx_weights(MxFormat.E4M3FN, rng)
    a, as_ = _mx_weights(MxFormat.E4M3FN, rng)
    a[(a & 0x7F7F7F7F) == 0x7F7F7F7F] = 0
    ctx = _context()
    module, _ = parse_located(ctx, two_formats_kernel(), "t")
    LowerNisaToBirPass().apply(ctx, module)
    module.verify()
    text = str(module)
    assert "nisa.view_cast" not in text
    assert "dtype = 8>" in text
    assert "dtype = 9>" in text
    expected = run(two_formats_kernel(), w, ws, a, as_, np.zeros((2, 8, 8), np.float32))[-1]
    got = np.zeros((2, 8, 8), np.float32)
    run_spmd(
        lambda ls: make_interpreter(module, ctx, listeners=ls), "main", (w, ws, a, as_, got), 1
    )
    assert got.tobytes() == expected.tobytes()
