"""The nisa interpreter's block-by-block paths (``mxdsl/interpreters/nisa.py``): an
activation into a float32 / float64 tile evaluated a block of rows at a time
(``_activate_blockwise``) gives the bits of the whole-tile evaluation, and the cases it
does not apply to (aliasing, a tile not viewable as ``[P, F]``, other dtypes) take the
whole-tile path."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters import nisa as N
from mxdsl.numerics import elementary as E
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context

RNG = np.random.default_rng(20)
BF16 = ml_dtypes.bfloat16


def _tile(rows: int, cols: int) -> np.ndarray:
    x = (RNG.standard_normal((rows, cols)) * 4).astype(np.float32)
    x.reshape(-1)[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40]
    return x


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blocks_give_the_whole_tile_bits(monkeypatch, block, dtype):
    """Blocks of 1 row, of several rows with a short last one, and one block; the
    expected value is the whole tile widened, evaluated and cast at once."""
    monkeypatch.setattr(N, "_ACTIVATION_BLOCK", block)
    x = _tile(37, 16)
    out = np.full(x.shape, 7, dtype)
    N._activate_blockwise(E.silu, x, out)
    want = E.silu(x.astype(np.float64)).astype(dtype)
    assert np.array_equal(out.view(f"u{out.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("name", ["silu", "sigmoid", "exp"])
def test_default_blocks_give_the_whole_tile_bits(name):
    """The default blocks (``elementary.block_elements``: 4 chunks of 8192 for SiLU and
    sigmoid, 2 blocks here; one chunk, 5 blocks, for exp) on an [80, 512] tile."""
    function = getattr(E, name)
    x = _tile(80, 512)
    out = np.full(x.shape, 7, np.float32)
    N._activate_blockwise(function, x, out)
    want = function(x.astype(np.float64)).astype(np.float32)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))


def test_target_is_a_view_of_dst_or_none():
    x = _tile(4, 8)
    dst = np.zeros((4, 2, 4), np.float32)
    view = N._blockwise_target(dst, x)
    assert view is not None
    assert view.shape == (4, 8)
    assert np.shares_memory(view, dst)
    assert N._blockwise_target(np.zeros((4, 8), np.float32), x) is not None
    # same-shape f64 dst
    assert N._blockwise_target(np.zeros((4, 8), np.float64), x) is not None
    # rounding to bf16 / integers is round_to's: not this path
    assert N._blockwise_target(np.zeros((4, 8), BF16), x) is None
    assert N._blockwise_target(np.zeros((4, 8), np.int32), x) is None
    # a strided view that cannot be seen as [4, 8] without a copy
    parent = np.zeros((4, 4, 4), np.float32)
    assert N._blockwise_target(parent[:, :, :2], x) is None
    # size mismatch: the general path reports it
    assert N._blockwise_target(np.zeros((4, 4), np.float32), x) is None
    # in place (or overlapping): the general path
    assert N._blockwise_target(x, x) is None


SB = "#nisa.mem<sbuf>"


def _run_activation(program: str, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    ctx = _context()
    module, _ = parse_located(ctx, program, "act.mlir")
    module.verify()
    make_interpreter(module, ctx).call_op("main", (x, out))
    return out


@pytest.mark.parametrize("in_place", [False, True])
def test_activation_in_place_and_into_a_strided_tile(monkeypatch, in_place):
    """A program-level check: silu of a [64, 24] tile written to a [64, 2, 24] tile's
    second half (a strided view: the block path writes through it) or in place (the
    whole-tile path); both equal the whole-tile evaluation."""
    monkeypatch.setattr(N, "_ACTIVATION_BLOCK", 100)  # 4 rows a block
    calls: list[int] = []
    blockwise = N._activate_blockwise
    monkeypatch.setattr(
        N, "_activate_blockwise", lambda f, x, out: calls.append(1) or blockwise(f, x, out)
    )
    x = _tile(64, 24)
    t = f"memref<64x24xf32, {SB}>"
    half = f"memref<64x24xf32, strided<[48, 1], offset: 24>, {SB}>"
    hbm = "memref<64x24xf32, #nisa.mem<hbm>>"
    if in_place:
        body = f"  nisa.activation %x, silu %x : {t}, {t}\n  nisa.dma_copy %out, %x : {hbm}, {t}\n"
    else:
        body = (
            f"  %d = memref.alloc() : memref<64x2x24xf32, {SB}>\n"
            f"  %h = memref.subview %d[0, 1, 0] [64, 1, 24] [1, 1, 1] : "
            f"memref<64x2x24xf32, {SB}> to {half}\n"
            f"  nisa.activation %h, silu %x : {half}, {t}\n"
            f"  nisa.dma_copy %out, %h : {hbm}, {half}\n"
        )
    program = (
        f"func.func @main(%x_h: {hbm}, %out: {hbm}) {{\n"
        f"  %x = memref.alloc() : {t}\n"
        f"  nisa.dma_copy %x, %x_h : {t}, {hbm}\n" + body + "  func.return\n}\n"
    )
    out = _run_activation(program, x, np.zeros_like(x))
    want = E.silu(x.astype(np.float64)).astype(np.float32)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    assert len(calls) == (0 if in_place else 1)
