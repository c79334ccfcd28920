"""Numeric tests of the bir instructions beyond the MX matmul path (iota,
scalar_tensor_tensor, tensor_copy_predicated, dma_compute, register_load, run-time keys
on compute instructions, indirect DMAs with run-time offsets, sendrecv / core_barrier on
2 cores), each against plain numpy written here."""
# ruff: noqa: E501  (IR text of the kernels under test)

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import InterpretationError

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.spmd import SpmdError, run_spmd
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]


def _helpers():
    path = Path(__file__).parent / "test_bir_ops.py"
    spec = importlib.util.spec_from_file_location("_bir_op_helpers", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


h = _helpers()
sb, ps, hb, mt, run = h.sb, h.ps, h.hb, h.mt, h.run
F32, BF, I32 = 16, 10, 17
RNG = np.random.default_rng(11)


def store(src: str, tensor: str, ty: str, pairs: str, dtype: int = F32, off: int = 0) -> str:
    return f"  bir.dma {hb(pairs, dtype, off)} of %{tensor} : {ty}, {src}\n"


def test_iota_offset_channel_multiplier_and_cast():
    out = np.zeros((4, 6), np.float32)
    to = mt("4x6", "f32")
    body = (
        f"  bir.iota {sb(4, '[[1, 6]]', I32)}, [[3, 2], [-1, 3]] offset 5 channel_multiplier 10\n"
        f"  bir.tensor_copy {sb(4, '[[1, 6]]', F32, off=64)}, {sb(4, '[[1, 6]]', I32)}\n"
        + store(sb(4, "[[1, 6]]", F32, off=64), "out", to, "[[6, 4], [1, 6]]")
    )
    run(body, f"%out: {to}", out)
    p = np.arange(4)[:, None, None]
    i, j = np.arange(2)[None, :, None], np.arange(3)[None, None, :]
    expected = (5 + 10 * p + 3 * i - j).reshape(4, 6)
    np.testing.assert_array_equal(out, expected.astype(np.float32))


def test_scalar_tensor_tensor_reverse_and_one_rounding():
    a = RNG.standard_normal((4, 8)).astype(np.float32)
    b = RNG.standard_normal((4, 8)).astype(np.float32)
    out = np.zeros((4, 8), ml_bf16 := h.BF16)
    ta, tb, to = mt("4x8", "f32"), mt("4x8", "f32"), mt("4x8", "bf16")
    body = (
        f"  bir.dma {sb(4, '[[1, 8]]', F32)}, {hb('[[8, 4], [1, 8]]', F32)} of %a : {ta}\n"
        f"  bir.dma {sb(4, '[[1, 8]]', F32, off=64)}, {hb('[[8, 4], [1, 8]]', F32)} of %b : {tb}\n"
        # dst = b * (3 - a), in f32, rounded once to bf16
        f"  bir.scalar_tensor_tensor {sb(4, '[[1, 8]]', BF, off=128)}, {sb(4, '[[1, 8]]', F32)}, reverse subtract 3.000000e+00 : f32, multiply {sb(4, '[[1, 8]]', F32, off=64)}\n"
        + store(sb(4, "[[1, 8]]", BF, off=128), "out", to, "[[8, 4], [1, 8]]", BF)
    )
    run(body, f"%a: {ta}, %b: {tb}, %out: {to}", a, b, out)
    expected = ((np.float32(3) - a) * b).astype(np.float32).astype(ml_bf16)
    assert out.tobytes() == expected.tobytes()


def test_tensor_copy_predicated_tile_immediate_and_not():
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    pred = RNG.integers(-2, 3, size=(4, 8)).astype(np.int32)
    out = np.full((2, 4, 8), 7.0, np.float32)
    tx, tp, to = mt("4x8", "f32"), mt("4x8", "i32"), mt("2x4x8", "f32")
    tile, other = sb(4, "[[1, 8]]", F32), sb(4, "[[1, 8]]", F32, off=64)
    p = sb(4, "[[1, 8]]", I32, off=128)
    body = (
        f"  bir.dma {tile}, {hb('[[8, 4], [1, 8]]', F32)} of %x : {tx}\n"
        f"  bir.dma {p}, {hb('[[8, 4], [1, 8]]', I32)} of %p : {tp}\n"
        f"  bir.memset {other}, 1.000000e+00\n"
        f"  bir.tensor_copy_predicated {other}, {tile} where {p}\n"
        + store(other, "out", to, "[[8, 4], [1, 8]]")
        + f"  bir.tensor_copy_predicated {tile}, -5.000000e-01 : f32 where not {p}\n"
        + store(tile, "out", to, "[[8, 4], [1, 8]]", off=128)
    )
    run(body, f"%x: {tx}, %p: {tp}, %out: {to}", x, pred, out)
    np.testing.assert_array_equal(out[0], np.where(pred != 0, x, np.float32(1)))
    np.testing.assert_array_equal(out[1], np.where(pred == 0, np.float32(-0.5), x))


def test_dma_compute_sums_in_f32_and_rounds_once():
    # three bf16 sources whose f32 sum differs from summing in bf16 step by step
    a = np.full((2, 4), 1.0, h.BF16)
    b = np.full((2, 4), 2.0**-8, h.BF16)
    c = np.full((2, 4), 2.0**-8, h.BF16)
    out = np.zeros((2, 4), h.BF16)
    t = mt("2x4", "bf16")
    whole = hb("[[1, 8]]", BF)
    body = (
        f"  bir.dma {sb(2, '[[1, 4]]', BF)}, {whole} of %c : {t}\n"
        f"  bir.dma_compute {whole} of %out : {t}, [{whole}, {whole}, {sb(2, '[[1, 4]]', BF)}] of %a, %b : {t}, {t}\n"
    )
    run(body, f"%a: {t}, %b: {t}, %c: {t}, %out: {t}", a, b, c, out)
    f32 = a.astype(np.float32) + b.astype(np.float32) + c.astype(np.float32)
    assert out.tobytes() == f32.astype(h.BF16).tobytes()
    assert out.astype(np.float32)[0, 0] == np.float32(1.0078125)  # bf16 steps would give 1.0


def test_register_load_drives_a_loop_and_run_time_keys_move_compute_patterns():
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    n = np.array([3], np.int32)
    out = np.zeros((4, 8), np.float32)
    tx, tn, to = mt("4x8", "f32"), mt("1", "i32"), mt("4x8", "f32")
    body = (
        (
            "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c8 = arith.constant 8 : index\n"
            f"  bir.dma {sb(4, '[[1, 8]]', F32)}, {hb('[[8, 4], [1, 8]]', F32)} of %x : {tx}\n"
            f"  bir.memset {sb(4, '[[1, 8]]', F32, off=64)}, 0.000000e+00\n"
            f"  %n = bir.register_load {hb('[[1, 1]]', I32)} of %nt : {tn} : index\n"
            "  scf.for %i = %c0 to %n step %c1 {\n"
            "    %b = arith.muli %i, %c8 : index\n"
            # column i (4 bytes each) of x, times 2, into column i of the second tile
            f'    bir.tensor_scalar {sb(4, "[[1, 1]]", F32, off=64)}, {sb(4, "[[1, 1]]", F32)}, multiply 2.000000e+00 : f32 runtime ["dst", "src"](%i4, %i4)\n'
            "  }\n" + store(sb(4, "[[1, 8]]", F32, off=64), "out", to, "[[8, 4], [1, 8]]")
        )
        .replace("%i4, %i4", "%b4, %b4")
        .replace(
            "    %b = arith.muli %i, %c8 : index\n",
            "    %c4 = arith.constant 4 : index\n    %b4 = arith.muli %i, %c4 : index\n",
        )
    )
    run(body, f"%x: {tx}, %nt: {tn}, %out: {to}", x, n, out)
    expected = np.zeros_like(x)
    expected[:, :3] = x[:, :3] * np.float32(2)
    np.testing.assert_array_equal(out, expected)


def test_run_time_partition_key_and_bounds():
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    out = np.zeros((8,), np.float32)
    tx, to = mt("4x8", "f32"), mt("8", "f32")
    body = (
        "  %c2 = arith.constant 2 : index\n"
        f"  bir.dma {sb(4, '[[1, 8]]', F32)}, {hb('[[8, 4], [1, 8]]', F32)} of %x : {tx}\n"
        # partition 0 of the pattern moves to partition 2
        f'  bir.tensor_copy {sb(1, "[[1, 8]]", F32, off=64)}, {sb(1, "[[1, 8]]", F32)} runtime ["src:partition"](%c2)\n'
        + store(sb(1, "[[1, 8]]", F32, off=64), "out", to, "[[1, 8]]")
    )
    run(body, f"%x: {tx}, %out: {to}", x, out)
    np.testing.assert_array_equal(out, x[2])
    bad = body.replace("(%c2)", "(%c200)").replace(
        "%c2 = arith.constant 2", "%c200 = arith.constant 200"
    )
    with pytest.raises(InterpretationError, match="outside the 128 partitions"):
        run(bad, f"%x: {tx}, %out: {to}", x, out)


def test_indirect_gather_with_run_time_offsets_and_skip():
    table = np.arange(40, dtype=np.float32).reshape(10, 4)
    ids = np.array([[3], [-1], [0], [6]], np.int32)
    out = np.full((2, 4, 4), -1.0, np.float32)
    tt, ti, to = mt("10x4", "f32"), mt("4x1", "i32"), mt("2x4x4", "f32")
    body = (
        "  %c16 = arith.constant 16 : index\n  %c64 = arith.constant 64 : index\n"
        f"  bir.dma {sb(4, '[[1, 1]]', I32)}, {hb('[[1, 4], [1, 1]]', I32)} of %ids : {ti}\n"
        f"  bir.memset {sb(4, '[[1, 8]]', F32, off=64)}, 9.000000e+00\n"
        # rows 1 + ids of the table (a view starting at row 1, bound 6) into columns 4..7
        f'  bir.dma_indirect {sb(4, "[[1, 4]]", F32, off=64)}, {hb("[[4, 4], [1, 4]]", F32)} of %table : {tt} index {sb(4, "[[1, 1]]", I32)} dim 0 bound 6 oob_mode skip runtime ["dst", "src"](%c16, %c16)\n'
        + store(sb(4, "[[1, 8]]", F32, off=64), "out", to, "[[4, 8], [1, 4]]").replace(
            hb("[[4, 8], [1, 4]]", F32), hb("[[4, 4], [16, 2], [1, 4]]", F32)
        )
    )
    run(body, f"%table: {tt}, %ids: {ti}, %out: {to}", table, ids, out)
    got = out.transpose(1, 0, 2).reshape(4, 8)
    expected = np.full((4, 8), 9.0, np.float32)
    for p, i in enumerate(ids[:, 0]):
        if 0 <= i < 6:
            expected[p, 4:] = table[1 + i]
    np.testing.assert_array_equal(got, expected)


EXCHANGE = """
func.func @main(%x: memref<2x4xf32, #nisa.mem<hbm>>, %out: memref<2x4xf32, #nisa.mem<hbm>>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r = nisa.program_id
  %peer = arith.subi %c1, %r : index
  %o = arith.muli %r, %c16 : index
  bir.dma #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 0, dtype = 16>, #bir.ap<hbm, [[1, 4]], off = 0, dtype = 16> of %x : memref<2x4xf32, #nisa.mem<hbm>> offset %o
  bir.sendrecv #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 64, dtype = 16>, #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 0, dtype = 16> to %peer from %peer pipe 0
  bir.core_barrier %out : memref<2x4xf32, #nisa.mem<hbm>>
  bir.dma #bir.ap<hbm, [[1, 4]], off = 0, dtype = 16> of %out : memref<2x4xf32, #nisa.mem<hbm>> offset %o, #bir.ap<sbuf, p0 = 0, np = 1, [[1, 4]], off = 64, dtype = 16>
  func.return
}
"""


def _spmd(text: str, inputs: tuple[np.ndarray, ...], cores: int) -> None:
    ctx = _context()
    module, _ = parse_located(ctx, text, "spmd.mlir")
    module.verify()
    run_spmd(lambda ls: make_interpreter(module, ctx, listeners=ls), "main", inputs, cores)


def test_sendrecv_swaps_the_cores_private_sbuf():
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    out = np.zeros((2, 4), np.float32)
    _spmd(EXCHANGE, (x, out), 2)
    np.testing.assert_array_equal(out, x[::-1])


def test_deadlock_names_each_core_and_its_instruction():
    """Every core sends to core 0 and waits for core 0: core 0 exchanges with itself and
    finishes, core 1 waits forever; the report names its bir.sendrecv and location."""
    x, out = np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32)
    text = EXCHANGE.replace(
        "%peer = arith.subi %c1, %r : index", "%peer = arith.subi %r, %r : index"
    ).replace("  bir.core_barrier %out : memref<2x4xf32, #nisa.mem<hbm>>\n", "")
    with pytest.raises(SpmdError) as info:
        _spmd(text, (x, out), 2)
    lines = str(info.value).splitlines()
    assert lines[0] == "deadlock: no core of 2 can make progress"
    assert lines[1] == "  core 0: done"
    assert lines[2].startswith(
        "  core 1: blocked in bir.sendrecv at spmd.mlir:9:3, waiting for a message from core 0"
    )
