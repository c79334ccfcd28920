"""The nisa interpreter's per-op shortcuts: an indirect ``dma_copy``'s plan and bounds
check, ``memref.subview`` indices cached per dynamic offsets (one, two and three of
them), ``to_f32`` of bfloat16 and ``_compute_domain``, each against values worked out
here with plain numpy."""
# ruff: noqa: E501  (IR text of the kernels under test)

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.nisa import F32, _compute_domain, to_f32
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context

BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(7)


def run(text: str, *inputs: np.ndarray) -> None:
    ctx = _context()
    module, _ = parse_located(ctx, text, "t")
    module.verify()
    make_interpreter(module, ctx).call_op("main", inputs)


def hbm(shape: str, t: str = "f32") -> str:
    return f"memref<{shape}x{t}, #nisa.mem<hbm>>"


def sb(shape: str, t: str = "f32") -> str:
    return f"memref<{shape}x{t}, #nisa.mem<sbuf>>"


def gather_program(n: int, mode: str) -> str:
    return f"""
func.func @main(%table: {hbm("6x4", "bf16")}, %i_h: {hbm(f"{n}x1", "i32")}, %out: {hbm(f"{n}x4")}) {{
  %i = memref.alloc() : {sb(f"{n}x1", "i32")}
  nisa.dma_copy %i, %i_h : {sb(f"{n}x1", "i32")}, {hbm(f"{n}x1", "i32")}
  %g = memref.alloc() : {sb(f"{n}x4")}
  nisa.memset %g, 3.000000e+00 : {sb(f"{n}x4")}
  nisa.dma_copy %g, %table[%i : {sb(f"{n}x1", "i32")}]{mode} : {sb(f"{n}x4")}, {hbm("6x4", "bf16")}
  nisa.dma_copy %out, %g : {hbm(f"{n}x4")}, {sb(f"{n}x4")}
  func.return
}}
"""


@pytest.mark.parametrize("repeat", [1, 3])
def test_gather_at_both_ends_of_the_range(repeat: int) -> None:
    """Indices 0 and size - 1 are in range (the min / max check), run once or several
    times (the op's plan reused)."""
    table = RNG.standard_normal((6, 4)).astype(BF16)
    idx = np.array([[5], [0], [5], [2]], np.int32)
    for _ in range(repeat):
        out = np.zeros((4, 4), np.float32)
        run(gather_program(4, ""), table, idx, out)
        expected = np.stack([table[5], table[0], table[5], table[2]]).astype(np.float32)
        assert np.array_equal(out, expected)


@pytest.mark.parametrize("bad", [6, 1000, -1, -(2**31)])
def test_gather_index_past_either_end_is_an_error_or_skipped(bad: int) -> None:
    table = RNG.standard_normal((6, 4)).astype(BF16)
    idx = np.array([[1], [bad], [4]], np.int32)
    out = np.zeros((3, 4), np.float32)
    with pytest.raises(Exception, match=f"index {bad} at position 1 is outside \\[0, 6\\)"):
        run(gather_program(3, ""), table, idx, out)
    run(gather_program(3, " oob_mode skip"), table, idx, out)
    expected = np.full((3, 4), 3.0, np.float32)
    expected[0], expected[2] = table[1].astype(np.float32), table[4].astype(np.float32)
    assert np.array_equal(out, expected)


def test_scatter_plan_reads_the_dst_index() -> None:
    """A scatter and a gather op in one program: each op's plan is its own."""
    src = RNG.standard_normal((3, 4)).astype(np.float32)
    idx = np.array([[2], [0], [5]], np.int32)
    text = f"""
func.func @main(%s_h: {hbm("3x4")}, %i_h: {hbm("3x1", "i32")}, %table: {hbm("6x4", "bf16")}, %out: {hbm("3x4")}) {{
  %i = memref.alloc() : {sb("3x1", "i32")}
  nisa.dma_copy %i, %i_h : {sb("3x1", "i32")}, {hbm("3x1", "i32")}
  %s = memref.alloc() : {sb("3x4")}
  nisa.dma_copy %s, %s_h : {sb("3x4")}, {hbm("3x4")}
  nisa.dma_copy %table[%i : {sb("3x1", "i32")}], %s : {hbm("6x4", "bf16")}, {sb("3x4")}
  %g = memref.alloc() : {sb("3x4")}
  nisa.dma_copy %g, %table[%i : {sb("3x1", "i32")}] : {sb("3x4")}, {hbm("6x4", "bf16")}
  nisa.dma_copy %out, %g : {hbm("3x4")}, {sb("3x4")}
  func.return
}}
"""
    table = np.zeros((6, 4), BF16)
    out = np.zeros((3, 4), np.float32)
    run(text, src, idx, table, out)
    rounded = src.astype(BF16)
    expected_table = np.zeros((6, 4), BF16)
    expected_table[[2, 0, 5]] = rounded
    assert np.array_equal(table.view(np.uint16), expected_table.view(np.uint16))
    assert np.array_equal(out, rounded.astype(np.float32))


def test_subviews_with_one_two_and_three_dynamic_offsets() -> None:
    """Each tile of a 4x6x8 buffer read through subviews with 1, 2 and 3 dynamic
    offsets over a nest of loops (every view met several times: the cached indices),
    summed into a 2x8 accumulator per op: against numpy slices of the same buffer."""
    x = RNG.integers(-8, 8, (4, 6, 8)).astype(np.float32)
    X = hbm("4x6x8")
    XS = sb("4x6x8")
    T = "memref<1x1x8xf32, strided<[48, 8, 1], offset: ?>, #nisa.mem<sbuf>>"
    A = sb("1x1x8")
    text = f"""
func.func @main(%x_h: {X}, %o1: {hbm("1x1x8")}, %o2: {hbm("1x1x8")}, %o3: {hbm("1x1x8")}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %x = memref.alloc() : {XS}
  nisa.dma_copy %x, %x_h : {XS}, {X}
  %a1 = memref.alloc() : {A}
  %a2 = memref.alloc() : {A}
  %a3 = memref.alloc() : {A}
  nisa.memset %a1, 0.000000e+00 : {A}
  nisa.memset %a2, 0.000000e+00 : {A}
  nisa.memset %a3, 0.000000e+00 : {A}
  scf.for %r = %c0 to %c2 step %c1 {{
    scf.for %i = %c0 to %c3 step %c1 {{
      scf.for %j = %c0 to %c3 step %c1 {{
        %t1 = memref.subview %x[%i, 2, 0] [1, 1, 8] [1, 1, 1] : {XS} to {T}
        nisa.tensor_tensor %a1, add %a1, %t1 : {A}, {A}, {T}
        %t2 = memref.subview %x[%i, %j, 0] [1, 1, 8] [1, 1, 1] : {XS} to {T}
        nisa.tensor_tensor %a2, add %a2, %t2 : {A}, {A}, {T}
        %k = arith.addi %j, %c1 : index
        %t3 = memref.subview %x[%k, %j, %i] [1, 1, 5] [1, 1, 1] : {XS} to memref<1x1x5xf32, strided<[48, 8, 1], offset: ?>, #nisa.mem<sbuf>>
        %d3 = memref.subview %a3[0, 0, %i] [1, 1, 5] [1, 1, 1] : {A} to memref<1x1x5xf32, strided<[8, 8, 1], offset: ?>, #nisa.mem<sbuf>>
        nisa.tensor_tensor %d3, add %d3, %t3 : memref<1x1x5xf32, strided<[8, 8, 1], offset: ?>, #nisa.mem<sbuf>>, memref<1x1x5xf32, strided<[8, 8, 1], offset: ?>, #nisa.mem<sbuf>>, memref<1x1x5xf32, strided<[48, 8, 1], offset: ?>, #nisa.mem<sbuf>>
      }}
    }}
  }}
  nisa.dma_copy %o1, %a1 : {hbm("1x1x8")}, {A}
  nisa.dma_copy %o2, %a2 : {hbm("1x1x8")}, {A}
  nisa.dma_copy %o3, %a3 : {hbm("1x1x8")}, {A}
  func.return
}}
"""
    outs = [np.zeros((1, 1, 8), np.float32) for _ in range(3)]
    run(text, x, *outs)
    e1 = np.zeros(8, np.float32)
    e2 = np.zeros(8, np.float32)
    e3 = np.zeros(8, np.float32)
    for _ in range(2):
        for i in range(3):
            for j in range(3):
                e1 += x[i, 2]
                e2 += x[i, j]
                e3[i : i + 5] += x[j + 1, j, i : i + 5]
    for out, expected in zip(outs, (e1, e2, e3), strict=True):
        assert np.array_equal(out.reshape(8), expected)


def test_to_f32_of_every_bf16_word() -> None:
    """``to_f32`` of bfloat16 (the bf16_to_f32 shortcut) gives ml_dtypes' float32 of
    every bf16 word, bit for bit (NaN payloads, -0, infinities, subnormals), on a
    strided view too."""
    words = np.arange(2**16, dtype=np.uint32).astype(np.uint16)
    values = words.view(BF16)
    expected = values.astype(np.float32).view(np.uint32)
    assert np.array_equal(to_f32(values).view(np.uint32), expected)
    strided = values.reshape(256, 256)[:, ::3]
    assert np.array_equal(
        to_f32(strided).view(np.uint32), strided.astype(np.float32).view(np.uint32)
    )
    f = np.ones((2, 2), np.float32)
    assert to_f32(f) is f


@pytest.mark.parametrize(
    ("dtypes", "bitwise", "expected"),
    [
        ((np.float32, np.float32), False, F32),
        ((np.int32, np.float32, np.int32), False, F32),
        ((BF16, np.int32), False, F32),
        ((np.int32, np.int32, ml_dtypes.float8_e4m3fn), False, F32),
        ((np.float16, np.uint8), False, F32),
        ((np.int32, np.int32, np.uint8), False, np.int64),
        ((np.float32, np.float32), True, np.int64),
    ],
)
def test_compute_domain(dtypes: tuple, bitwise: bool, expected: object) -> None:
    tiles = [np.zeros((2, 2), d) for d in dtypes]
    assert _compute_domain(*tiles, bitwise=bitwise) == np.dtype(expected)
