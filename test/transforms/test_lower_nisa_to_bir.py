# ruff: noqa: E501  (MLIR kernels are spelled one op per line)
"""lower-nisa-to-bir: the allocator (live ranges, reuse, loops, PSUM banks, capacity
diagnostics), instruction selection on hand-written nisa kernels (bit-identical to the
nisa interpreter), the run-time operands of bir.dma, refusals, idempotence."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mxdsl.dialects import bir
from mxdsl.interpreters import make_interpreter
from mxdsl.targets import TRN2, TRN3
from mxdsl.tools.diagnostics import OpDiagnostic, parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
from mxdsl.transforms.lower_nisa_to_bir import (
    Allocation,
    LowerNisaToBirPass,
    _split_inner,  # pyright: ignore[reportPrivateUsage]
    allocate,
)

RNG = np.random.default_rng(11)


def parse(src: str) -> ModuleOp:
    module, _ = parse_located(_context(), src, "kernel.mlir")
    module.verify()
    return module


def main_of(module: ModuleOp) -> func.FuncOp:
    return next(o for o in module.walk() if isinstance(o, func.FuncOp))


def plan(src: str) -> dict[str, Allocation]:
    return {v.name_hint or "?": a for v, a in allocate(main_of(parse(src))).items()}


def lower(src: str) -> ModuleOp:
    module = parse(src)
    LowerNisaToBirPass().apply(_context(), module)
    module.verify()
    return module


def overlap(a: Allocation, b: Allocation) -> bool:
    same = a.memory == b.memory
    return same and a.address < b.address + b.size and b.address < a.address + a.size


def sbuf(shape: str) -> str:
    return f"memref<{shape}, #nisa.mem<sbuf>>"


def hbm(shape: str) -> str:
    return f"memref<{shape}, #nisa.mem<hbm>>"


# ---------------------------------------------------------------- allocation


def test_disjoint_live_ranges_share_bytes_overlapping_ones_do_not():
    t, h = sbuf("128x64xf32"), hbm("128x64xf32")
    src = f"""
func.func @main(%x: {h}, %y: {h}) {{
  %a = memref.alloc() : {t}
  %b = memref.alloc() : {t}
  nisa.dma_copy %a, %x : {t}, {h}
  nisa.dma_copy %b, %a : {t}, {t}
  nisa.dma_copy %y, %b : {h}, {t}
  %c = memref.alloc() : {t}
  nisa.dma_copy %c, %x : {t}, {h}
  nisa.dma_copy %y, %c : {h}, {t}
  func.return
}}"""
    p = plan(src)
    assert p["a"].address == 0
    assert not overlap(p["a"], p["b"])
    assert p["c"].address == 0  # a is dead by then
    assert all(a.size == 256 for a in p.values())
    assert all(a.address % 64 == 0 for a in p.values())


def test_a_buffer_used_in_a_loop_lives_through_the_whole_loop():
    t, h = sbuf("128x16xf32"), hbm("128x16xf32")
    src = f"""
func.func @main(%x: {h}, %y: {h}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : {t}
  nisa.dma_copy %a, %x : {t}, {h}
  scf.for %i = %c0 to %c4 step %c1 {{
    nisa.dma_copy %y, %a : {h}, {t}
    %b = memref.alloc() : {t}
    nisa.dma_copy %b, %x : {t}, {h}
    nisa.dma_copy %y, %b : {h}, {t}
  }}
  func.return
}}"""
    p = plan(src)
    # %b comes after %a's last textual use, but %a is read again in the next iteration
    assert not overlap(p["a"], p["b"])


def test_psum_buffers_stay_inside_a_bank():
    src = """
func.func @main(%s: memref<128x128xbf16, #nisa.mem<hbm>>) {
  %st = memref.alloc() : memref<128x128xbf16, #nisa.mem<sbuf>>
  %big = memref.alloc() : memref<128x384xf32, #nisa.mem<psum>>
  %acc = memref.alloc() : memref<128x256xf32, #nisa.mem<psum>>
  %wide = memref.alloc() : memref<128x1024xf32, #nisa.mem<psum>>
  nisa.dma_copy %st, %s : memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x128xbf16, #nisa.mem<hbm>>
  nisa.memset %big, 0.0 : memref<128x384xf32, #nisa.mem<psum>>
  nisa.memset %wide, 0.0 : memref<128x1024xf32, #nisa.mem<psum>>
  nisa.memset %acc, 0.0 : memref<128x256xf32, #nisa.mem<psum>>
  func.return
}"""
    p = plan(src)
    bank = bir.PSUM_BANK_BYTES
    assert p["big"].address == 0  # 1536 bytes
    assert p["acc"].address == bank  # 1024 bytes would straddle bank 0 / 1 at 1536
    assert p["wide"].address % bank == 0  # 4 KiB: starts on a bank
    assert not overlap(p["wide"], p["acc"])
    assert not overlap(p["wide"], p["big"])


def fill(count: int, shape: str, space: str) -> str:
    t = f"memref<{shape}, #nisa.mem<{space}>>"
    allocs = "".join(f"  %b{i} = memref.alloc() : {t}\n" for i in range(count))
    uses = "".join(f"  nisa.memset %b{i}, 0.0 : {t}\n" for i in range(count))
    return f"func.func @main() {{\n{allocs}{uses}  func.return\n}}\n"


@pytest.mark.parametrize(
    ("src", "message"),
    [
        (
            fill(5, "128x16384xf32", "sbuf"),
            "sbuf buffer %b4 (memref<128x16384xf32, #nisa.mem<sbuf>>) needs 65536 bytes per "
            "partition, but only 0 contiguous bytes are available (0 free; 262144 held by 4 "
            "live buffer(s)) of the 262144-byte sbuf partition of trn3; live: %b0 65536 B at 0, "
            "%b1 65536 B at 65536, %b2 65536 B at 131072, %b3 65536 B at 196608",
        ),
        (
            fill(2, "128x33000xf32", "sbuf"),
            "sbuf buffer %b1 (memref<128x33000xf32, #nisa.mem<sbuf>>) needs 132032 bytes per "
            "partition, but only 130112 contiguous bytes are available (130112 free; 132032 held "
            "by 1 live buffer(s)) of the 262144-byte sbuf partition of trn3; live: %b0 132032 B "
            "at 0",
        ),
        (
            fill(9, "128x512xf32", "psum"),
            "psum buffer %b8 (memref<128x512xf32, #nisa.mem<psum>>) needs 2048 bytes per "
            "partition, but only 0 contiguous bytes are available (0 free; 16384 held by 8 live "
            "buffer(s)) of the 16384-byte psum partition of trn3; live: %b0 2048 B at 0, %b1 2048 "
            "B at 2048, %b2 2048 B at 4096, %b3 2048 B at 6144, %b4 2048 B at 8192, %b5 2048 B at "
            "10240, and 2 more",
        ),
    ],
)
def test_a_kernel_that_does_not_fit_gets_a_located_diagnostic(src: str, message: str):
    module = parse(src)
    with pytest.raises(OpDiagnostic) as info:
        LowerNisaToBirPass().apply(_context(), module)
    assert info.value.op.name == "memref.alloc"
    assert info.value.message == f"lower-nisa-to-bir: {message}"


def test_the_capacities_are_the_targets(capsys: pytest.CaptureFixture[str]):
    """trn3 (default) has 256 KiB of SBUF per partition, trn2 224 KiB; PSUM 8 banks."""
    halves = fill(2, "128x32768xf32", "sbuf")  # 2 x 128 KiB live together
    placed = plan(halves)
    assert placed["b1"].address + placed["b1"].size == TRN3.sbuf_partition_bytes
    assert plan(fill(8, "128x512xf32", "psum"))["b7"].address == 7 * TRN3.psum_bank_bytes
    with pytest.raises(OpDiagnostic, match="of the 229376-byte sbuf partition of trn2"):
        allocate(main_of(parse(halves)), TRN2)
    assert allocate(main_of(parse(fill(2, "128x28672xf32", "sbuf"))), TRN2)  # 2 x 112 KiB
    with pytest.raises(ValueError, match="unknown target 'trn9'"):
        LowerNisaToBirPass(target="trn9")
    module = parse(fill(3, "128x100xf32", "sbuf"))
    LowerNisaToBirPass(target="trn2", print_usage=True).apply(_context(), module)
    assert capsys.readouterr().err == (
        "lower-nisa-to-bir: @main on trn2: sbuf 1344 of 229376 bytes per partition "
        "(3 buffers), psum 0 of 16384 bytes per partition (0 buffers)\n"
    )


# ------------------------------------------------------------ instruction selection


ELEMENTWISE = """
func.func @main(%x: memref<64x32xf32, #nisa.mem<hbm>>, %y: memref<64x32xf32, #nisa.mem<hbm>>,
                %col: memref<64x1xf32, #nisa.mem<hbm>>, %out: memref<64x32xf32, #nisa.mem<hbm>>,
                %tr: memref<32x32xf32, #nisa.mem<hbm>>) {
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<64x32xf32, #nisa.mem<sbuf>>
  %b = memref.alloc() : memref<64x32xf32, #nisa.mem<sbuf>>
  %c = memref.alloc() : memref<64x1xf32, #nisa.mem<sbuf>>
  %s = memref.alloc() : memref<64x32xf32, #nisa.mem<sbuf>>
  %p = memref.alloc() : memref<32x32xf32, #nisa.mem<psum>>
  %t = memref.alloc() : memref<32x32xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %a, %x : memref<64x32xf32, #nisa.mem<sbuf>>, memref<64x32xf32, #nisa.mem<hbm>>
  nisa.dma_copy %b, %y : memref<64x32xf32, #nisa.mem<sbuf>>, memref<64x32xf32, #nisa.mem<hbm>>
  nisa.dma_copy %c, %col : memref<64x1xf32, #nisa.mem<sbuf>>, memref<64x1xf32, #nisa.mem<hbm>>
  nisa.tensor_tensor %s, multiply %a, %b : memref<64x32xf32, #nisa.mem<sbuf>>, memref<64x32xf32, #nisa.mem<sbuf>>, memref<64x32xf32, #nisa.mem<sbuf>>
  nisa.tensor_scalar %s, %s, add %c, reverse subtract %two : memref<64x32xf32, #nisa.mem<sbuf>>, memref<64x32xf32, #nisa.mem<sbuf>>, memref<64x1xf32, #nisa.mem<sbuf>>, f32
  nisa.activation %s, silu %s scale(%two : f32) bias(%c : memref<64x1xf32, #nisa.mem<sbuf>>) : memref<64x32xf32, #nisa.mem<sbuf>>, memref<64x32xf32, #nisa.mem<sbuf>>
  %top = memref.subview %s[32, 0] [32, 32] [1, 1] : memref<64x32xf32, #nisa.mem<sbuf>> to memref<32x32xf32, strided<[32, 1], offset: 1024>, #nisa.mem<sbuf>>
  nisa.nc_transpose %p, %top : memref<32x32xf32, #nisa.mem<psum>>, memref<32x32xf32, strided<[32, 1], offset: 1024>, #nisa.mem<sbuf>>
  nisa.tensor_copy %t, %p : memref<32x32xf32, #nisa.mem<sbuf>>, memref<32x32xf32, #nisa.mem<psum>>
  nisa.dma_copy %out, %s : memref<64x32xf32, #nisa.mem<hbm>>, memref<64x32xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %tr, %t : memref<32x32xf32, #nisa.mem<hbm>>, memref<32x32xf32, #nisa.mem<sbuf>>
  func.return
}
"""


def run_args(module: ModuleOp, args: list[np.ndarray]) -> list[np.ndarray]:
    copies = [a.copy() for a in args]
    make_interpreter(module, _context()).call_op("main", tuple(copies))
    return copies


def test_elementwise_kernel_gives_the_nisa_bits():
    """tensor_tensor, tensor_scalar (column and immediate operands), activation, a Tensor
    engine transpose of a partition-offset view, tensor_copy: the bir kernel writes the
    nisa kernel's bytes."""
    args = [
        RNG.standard_normal((64, 32)).astype(np.float32),
        RNG.standard_normal((64, 32)).astype(np.float32),
        RNG.standard_normal((64, 1)).astype(np.float32),
        np.zeros((64, 32), np.float32),
        np.zeros((32, 32), np.float32),
    ]
    expected = run_args(parse(ELEMENTWISE), args)
    kernel = lower(ELEMENTWISE)
    text = str(kernel)
    for name in ("tensor_tensor", "tensor_scalar", "activation", "transpose", "tensor_copy"):
        assert f"bir.{name} " in text
    assert "nisa.tensor" not in text
    assert "p0 = 32, np = 32" in text  # the transposed view starts at partition 32
    got = run_args(kernel, args)
    for a, b in zip(expected, got, strict=True):
        assert a.tobytes() == b.tobytes()


LOOP_DMA = """
func.func @main(%x: memref<4x32x16xbf16, #nisa.mem<hbm>>, %out: memref<4x32x16xf32, #nisa.mem<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() : memref<128x16xbf16, #nisa.mem<sbuf>>
  %f = memref.alloc() : memref<128x16xf32, #nisa.mem<sbuf>>
  scf.for %i = %c0 to %c4 step %c1 {
    %rows = memref.subview %t[%i, 0] [32, 16] [4, 1] : memref<128x16xbf16, #nisa.mem<sbuf>> to memref<32x16xbf16, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>
    %plane = memref.subview %x[%i, 0, 0] [1, 32, 16] [1, 1, 1] : memref<4x32x16xbf16, #nisa.mem<hbm>> to memref<32x16xbf16, strided<[16, 1], offset: ?>, #nisa.mem<hbm>>
    nisa.dma_copy %rows, %plane : memref<32x16xbf16, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>, memref<32x16xbf16, strided<[16, 1], offset: ?>, #nisa.mem<hbm>>
  }
  nisa.tensor_copy %f, %t : memref<128x16xf32, #nisa.mem<sbuf>>, memref<128x16xbf16, #nisa.mem<sbuf>>
  %v = memref.expand_shape %f [[0, 1], [2]] output_shape [32, 4, 16] : memref<128x16xf32, #nisa.mem<sbuf>> into memref<32x4x16xf32, #nisa.mem<sbuf>>
  scf.for %j = %c0 to %c4 step %c1 {
    %cols = memref.subview %v[0, %j, 0] [32, 1, 16] [1, 1, 1] : memref<32x4x16xf32, #nisa.mem<sbuf>> to memref<32x16xf32, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>
    %dst = memref.subview %out[%j, 0, 0] [1, 32, 16] [1, 1, 1] : memref<4x32x16xf32, #nisa.mem<hbm>> to memref<32x16xf32, strided<[16, 1], offset: ?>, #nisa.mem<hbm>>
    nisa.dma_copy %dst, %cols : memref<32x16xf32, strided<[16, 1], offset: ?>, #nisa.mem<hbm>>, memref<32x16xf32, strided<[64, 1], offset: ?>, #nisa.mem<sbuf>>
  }
  func.return
}
"""


def test_loop_dependent_views_become_run_time_dma_operands():
    """A strided-partition view with a loop-dependent start (``partition %i``, ps = 4)
    and a loop-dependent HBM plane (``offset``: 32 x 16 bf16 = 1024 bytes per i), and an
    expand_shape'd on-chip buffer read back the same way."""
    kernel = lower(LOOP_DMA)
    text = str(kernel)
    assert (
        "#bir.ap<sbuf, p0 = 0, np = 32, ps = 4, [[1, 16]], off = 0, dtype = 10> partition %i"
        in text
    )
    assert "arith.muli %i, %c1024 : index" in text
    x = RNG.standard_normal((4, 32, 16)).astype(np.float32).astype(np.dtype("bfloat16"))
    args = [x, np.zeros((4, 32, 16), np.float32)]
    expected = run_args(parse(LOOP_DMA), args)
    got = run_args(kernel, args)
    assert expected[1].tobytes() == got[1].tobytes()
    assert (got[1] == x.astype(np.float32)).all()


def test_the_function_keeps_its_name_arguments_and_results():
    src = """
func.func @kernel(%x: memref<32x8xui32, #nisa.mem<hbm>>) -> memref<32x8xui32, #nisa.mem<hbm>> {
  %c = "memref.cast"(%x) : (memref<32x8xui32, #nisa.mem<hbm>>) -> memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  %o = memref.alloc() : memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  %oc = "memref.cast"(%o) : (memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>) -> memref<32x8xui32, #nisa.mem<hbm>>
  %t = memref.alloc() : memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  nisa.dma_copy %t, %c : memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>, memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>
  nisa.dma_copy %o, %t : memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>, memref<32x8x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>
  func.return %oc : memref<32x8xui32, #nisa.mem<hbm>>
}"""
    before = main_of(parse(src))
    kernel = lower(src)
    after = main_of(kernel)
    assert after.sym_name.data == "kernel"
    assert after.function_type == before.function_type
    text = str(kernel)
    assert "memref.cast" not in text  # the x4 patterns read the ui32 bytes
    assert "%o = memref.alloc() : memref<32x8xui32, #nisa.mem<hbm>>" in text
    assert "dtype = 8> of %x : memref<32x8xui32" in text
    words = RNG.integers(0, 2**32, size=(32, 8), dtype=np.uint32)
    (result,) = make_interpreter(kernel, _context()).call_op("kernel", (words,))
    assert np.asarray(result).tobytes() == words.tobytes()


def test_the_pass_is_idempotent_on_bir():
    kernel = lower(ELEMENTWISE)
    text = str(kernel)
    LowerNisaToBirPass().apply(_context(), kernel)
    assert str(kernel) == text


SCATTER = """
func.func @main(%src: memref<2x3x4xf32, #nisa.mem<hbm>>, %ids: memref<3x1xi32, #nisa.mem<hbm>>, %out: memref<2x6x4xf32, #nisa.mem<hbm>>) {
  %sid = memref.alloc() : memref<3x1xi32, #nisa.mem<sbuf>>
  nisa.dma_copy %sid, %ids : memref<3x1xi32, #nisa.mem<sbuf>>, memref<3x1xi32, #nisa.mem<hbm>>
  %t = memref.alloc() : memref<2x3x4xf32, #nisa.mem<sbuf>>
  nisa.dma_copy %t, %src : memref<2x3x4xf32, #nisa.mem<sbuf>>, memref<2x3x4xf32, #nisa.mem<hbm>>
  nisa.dma_copy %out[%sid : memref<3x1xi32, #nisa.mem<sbuf>>], %t dim 1 oob_mode skip : memref<2x6x4xf32, #nisa.mem<hbm>>, memref<2x3x4xf32, #nisa.mem<sbuf>>
  func.return
}
"""


def test_indirect_dma_becomes_one_dma_indirect_with_the_same_bytes():
    """A scatter along dim 1 of a [2, 6, 4] tensor: the hbm pattern keeps dim 1 as its
    own pair (num 3 from the source, bound 6), the dims around it as pairs; an index
    out of range (7) is skipped. nisa, bir and a numpy assignment agree."""
    src = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    ids = np.array([[4], [7], [0]], np.int32)
    out = np.full((2, 6, 4), -1.0, np.float32)
    expected = out.copy()
    expected[:, [4, 0], :] = src[:, [0, 2], :]
    kernel = lower(SCATTER)
    text = str(kernel)
    assert "nisa.dma_copy" not in text
    assert (
        "bir.dma_indirect #bir.ap<hbm, [[24, 2], [4, 3], [1, 4]], off = 0, dtype = 16> of %out"
        in text
    )
    assert "dim 1 bound 6 scatter oob_mode skip" in text
    nisa_result = run_args(parse(SCATTER), [src, ids, out])
    bir_result = run_args(kernel, [src, ids, out])
    assert nisa_result[2].tobytes() == expected.tobytes()
    assert bir_result[2].tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("pairs", "reduced", "expected"),
    [
        ([(1, 32)], 8, ([(8, 4), (1, 8)], 1)),  # a merged pair split at the boundary
        ([(1, 32)], 32, ([(1, 32)], 1)),
        ([(8, 4), (1, 6)], 6, ([(8, 4), (1, 6)], 1)),
        ([(64, 3), (8, 4), (1, 6)], 24, ([(64, 3), (8, 4), (1, 6)], 2)),
        ([(64, 3), (1, 48)], 24, ([(64, 3), (24, 2), (1, 24)], 1)),
        ([(1, 8)], 1, ([(1, 8), (1, 1)], 1)),  # nothing reduced: a (1, 1) pair
        ([(8, 4), (1, 6)], 4, None),  # 4 is not a block of the inner 6
        ([(8, 4), (1, 6)], 12, ([(16, 2), (8, 2), (1, 6)], 2)),  # 6, then 2 of the 4
        ([(8, 4), (1, 6)], 9, None),  # 9 is no product of blocks of 6 and 4
        ([(1, 8)], 16, None),  # more than there is
    ],
)
def test_reduced_elements_become_the_innermost_pairs(pairs, reduced, expected):
    """tensor_reduce's src pattern: the innermost pairs enumerate exactly the reduced
    elements, in the same order (a pair straddling the boundary split in two)."""
    assert _split_inner(pairs, reduced) == expected


# ----------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("body", "op_name", "message"),
    [
        (
            "%t = memref.alloc() : memref<128x8xi32, #nisa.mem<sbuf>>\n"
            "  %r = nisa.register_load %h : memref<1xi32, #nisa.mem<hbm>> -> i32\n"
            "  nisa.tensor_scalar %t, %t, bitwise_and %r : memref<128x8xi32, #nisa.mem<sbuf>>, "
            "memref<128x8xi32, #nisa.mem<sbuf>>, i32",
            "nisa.tensor_scalar",
            "operand0 is a run-time scalar; bir takes immediates",
        ),
        (
            "%acc = memref.alloc() : memref<128x1024xf32, #nisa.mem<psum>>\n"
            "  %s = memref.alloc() : memref<128x128xbf16, #nisa.mem<sbuf>>\n"
            "  %m = memref.alloc() : memref<128x256xbf16, #nisa.mem<sbuf>>\n"
            "  nisa.memset %s, 0.0 : memref<128x128xbf16, #nisa.mem<sbuf>>\n"
            "  nisa.memset %m, 0.0 : memref<128x256xbf16, #nisa.mem<sbuf>>\n"
            "  %v = memref.subview %acc[0, 384] [128, 256] [1, 1] : memref<128x1024xf32, "
            "#nisa.mem<psum>> to memref<128x256xf32, strided<[1024, 1], offset: 384>, "
            "#nisa.mem<psum>>\n"
            "  nisa.nc_matmul %v, %s, %m : memref<128x256xf32, strided<[1024, 1], offset: 384>,"
            " #nisa.mem<psum>>, memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x256xbf16, "
            "#nisa.mem<sbuf>>",
            "nisa.nc_matmul",
            "the accumulator %acc view touches bytes [1536, 2560) of each psum partition, across "
            "a 2048-byte bank boundary",
        ),
    ],
)
def test_refusals_are_located(body: str, op_name: str, message: str):
    module = parse(
        f"func.func @main(%h: memref<1xi32, #nisa.mem<hbm>>) {{\n  {body}\n  func.return\n}}\n"
    )
    with pytest.raises(OpDiagnostic) as info:
        LowerNisaToBirPass().apply(_context(), module)
    assert info.value.op.name == op_name
    assert message in info.value.message
    assert info.value.message.startswith("lower-nisa-to-bir: ")
