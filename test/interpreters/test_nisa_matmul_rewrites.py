"""nc_matmul in nisa loop bodies reads its operand tiles as they are now: after a write
(direct, through a subview, in a nested loop, by a DMA) and when zero columns appear in
a tile whose earlier runs had none (guards against caching a tile's float64 widening or
its zero-column scan across writes). Every result is checked bit for bit against a
plain-numpy replay of the same PE passes."""
# ruff: noqa: E501  (IR text of the kernels under test)

from __future__ import annotations

import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.spmd import run_spmd
from mxdsl.numerics.matmul import pe_pass
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context

RNG = np.random.default_rng(5)
SB_S = "memref<16x4xf32, #nisa.mem<sbuf>>"
SB_M = "memref<16x8xf32, #nisa.mem<sbuf>>"
SB_ROW = "memref<1x8xf32, strided<[8, 1], offset: 24>, #nisa.mem<sbuf>>"
SB_R = "memref<4x8xf32, #nisa.mem<sbuf>>"
PS = "memref<4x8xf32, #nisa.mem<psum>>"
HBM_S = "memref<16x4xf32, #nisa.mem<hbm>>"
HBM_M = "memref<16x8xf32, #nisa.mem<hbm>>"
HBM_OUT = "memref<3x4x8xf32, #nisa.mem<hbm>>"

WRITES = {
    # the moving tile written by a dst-writing op, directly
    "direct": f"      nisa.tensor_scalar %m, %m, add %one : {SB_M}, {SB_M}, f32\n",
    # ... through a subview of its buffer
    "subview": (
        f"      %row = memref.subview %m[3, 0] [1, 8] [1, 1] : {SB_M} to {SB_ROW}\n"
        f"      nisa.tensor_scalar %row, %row, add %one : {SB_ROW}, {SB_ROW}, f32\n"
    ),
    # ... inside a nested loop
    "nested": (
        "      scf.for %j = %c0 to %c1 step %c1 {\n"
        f"        nisa.tensor_scalar %m, %m, add %one : {SB_M}, {SB_M}, f32\n"
        "      }\n"
    ),
    # ... by a DMA from HBM (every iteration reloads different data)
    "dma": f"      nisa.dma_copy %m, %m2_h : {SB_M}, {HBM_M}\n",
    # ... by a DMA bringing zero columns into a tile that had none
    "zeros_later": f"      nisa.dma_copy %m, %m2_h : {SB_M}, {HBM_M}\n",
    # not written
    "none": "",
}


def _replay(kind: str, s: np.ndarray, m: np.ndarray, m2: np.ndarray) -> np.ndarray:
    m = m.copy()
    out = np.zeros((3, 4, 8), np.float32)
    for i in range(3):
        d = pe_pass(s.T, m)
        d += pe_pass(s.T, m)
        out[i] = d
        if kind in ("direct", "nested"):
            m = m + np.float32(1)
        elif kind == "subview":
            m[3] = m[3] + np.float32(1)
        elif kind in ("dma", "zeros_later"):
            m = m2.copy()
        out[i] += pe_pass(s.T, m)  # after the write
    return out


@pytest.mark.parametrize("kind", list(WRITES))
def test_a_written_tile_is_widened_again(kind: str) -> None:
    s = RNG.standard_normal((16, 4)).astype(np.float32)
    m = RNG.standard_normal((16, 8)).astype(np.float32)
    m[:, 5:] = 0.0  # zero columns: skipped by the PE pass
    m2 = RNG.standard_normal((16, 8)).astype(np.float32)
    if kind == "zeros_later":
        m, m2 = m2, m
    body = (
        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
        "  %c3 = arith.constant 3 : index\n  %one = arith.constant 1.0 : f32\n"
        f"  %s = memref.alloc() : {SB_S}\n  nisa.dma_copy %s, %s_h : {SB_S}, {HBM_S}\n"
        f"  %m = memref.alloc() : {SB_M}\n  nisa.dma_copy %m, %m_h : {SB_M}, {HBM_M}\n"
        f"  %d = memref.alloc() : {PS}\n  %r = memref.alloc() : {SB_R}\n"
        "  scf.for %i = %c0 to %c3 step %c1 {\n"
        f"      nisa.nc_matmul %d, %s, %m : {PS}, {SB_S}, {SB_M}\n"
        f"      nisa.nc_matmul %d, %s, %m accumulate : {PS}, {SB_S}, {SB_M}\n"
        + WRITES[kind]
        + f"      nisa.nc_matmul %d, %s, %m accumulate : {PS}, {SB_S}, {SB_M}\n"
        f"      nisa.tensor_copy %r, %d : {SB_R}, {PS}\n"
        "      %o = memref.subview %out[%i, 0, 0] [1, 4, 8] [1, 1, 1] : "
        f"{HBM_OUT} to memref<4x8xf32, strided<[8, 1], offset: ?>, #nisa.mem<hbm>>\n"
        "      nisa.dma_copy %o, %r : memref<4x8xf32, strided<[8, 1], offset: ?>, "
        f"#nisa.mem<hbm>>, {SB_R}\n"
        "  }\n"
    )
    args = f"%s_h: {HBM_S}, %m_h: {HBM_M}, %m2_h: {HBM_M}, %out: {HBM_OUT}"
    ctx = _context()
    module, _ = parse_located(ctx, f"func.func @main({args}) {{\n{body}\n  func.return\n}}", "t")
    module.verify()
    out = np.zeros((3, 4, 8), np.float32)
    run_spmd(lambda ls: make_interpreter(module, ctx, listeners=ls), "main", (s, m, m2, out), 1)
    want = _replay(kind, s, m, m2)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
