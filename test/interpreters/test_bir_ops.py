"""Numeric tests of the bir interpreter (the simulator twin): every instruction against
plain numpy written here, through byte-addressed SBUF / PSUM and HBM tensors."""
# ruff: noqa: E501  (IR text of the kernels under test)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.bir import BirFunctions, machine
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
    assert (sbuf[:4] == 0xFF).all() and (sbuf[4:12, :64] == 0xFF).all()
    np.testing.assert_array_equal(
        sbuf[4:12, 64:96].view(BF16).astype(np.float32), x.astype(BF16).astype(np.float32)
    )
