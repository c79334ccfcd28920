"""The fast path's switch and write tracking (``mxdsl.interpreters.fast_path``), the PSUM
NaN rule (``docs/numerics.md``, "NaN in PSUM") and the matmul input types every level
runs."""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.parser import Parser

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.fast_path import (
    NO_FAST_PATH_ENV,
    fast_path,
    fast_path_option,
    written_operands,
)
from mxdsl.numerics.matmul import psum_add
from mxdsl.tools import mx_moe, mx_run
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
from mxdsl.transforms.lower_nisa_to_bir import LowerNisaToBirPass

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _module(text: str):  # noqa: ANN202
    module = Parser(_context(), text).parse_module()
    module.verify()
    return module


# ----------------------------------------------------------------------- the switch


def test_environment_sets_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _module("func.func @main() {\n  func.return\n}\n")
    monkeypatch.delenv(NO_FAST_PATH_ENV, raising=False)
    assert fast_path(make_interpreter(module))
    assert not fast_path(make_interpreter(module, fast_path=False))
    monkeypatch.setenv(NO_FAST_PATH_ENV, "1")
    assert not fast_path(make_interpreter(module))
    assert fast_path(make_interpreter(module, fast_path=True))


@pytest.mark.parametrize(
    ("value", "flag", "expected"),
    [("", False, True), ("0", False, True), ("1", False, False), ("", True, False)],
)
def test_fast_path_option(
    monkeypatch: pytest.MonkeyPatch, value: str, flag: bool, expected: bool
) -> None:
    monkeypatch.setenv(NO_FAST_PATH_ENV, value)
    assert fast_path_option(flag) is expected


@pytest.mark.parametrize("tool", ["mx-run", "mx-moe"])
def test_a_bad_environment_value_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tool: str
) -> None:
    monkeypatch.setenv(NO_FAST_PATH_ENV, "yes")
    if tool == "mx-run":
        code = mx_run.main([str(EXAMPLES / "nisa_matmul_tiled.mlir"), "--random-inputs", "0"])
    else:
        code = mx_moe.main(["run", "--implementation", "shard_on_i"], stdout=io.StringIO())
    error = capsys.readouterr().err
    assert code == 1
    assert error.strip().splitlines() == [
        f"{tool}: error: {NO_FAST_PATH_ENV}='yes' is not 0 or 1: set it to 1 for the reference "
        "mode, or unset it"
    ]


# --------------------------------------------------------------------- what ops write

_OPS = """
func.func private @external(memref<4xf32, #nisa.mem<hbm>>)
func.func @callee() {
  func.return
}
func.func @main(%h: memref<4xf32, #nisa.mem<hbm>>, %s: memref<128x8xbf16, #nisa.mem<sbuf>>,
                %p: memref<128x8xf32, #nisa.mem<psum>>, %w: memref<128x128xbf16, #nisa.mem<sbuf>>) {
  %c0 = arith.constant 0 : index
  nisa.nc_matmul %p, %w, %s : memref<128x8xf32, #nisa.mem<psum>>,
      memref<128x128xbf16, #nisa.mem<sbuf>>, memref<128x8xbf16, #nisa.mem<sbuf>>
  nisa.tensor_copy %s, %p : memref<128x8xbf16, #nisa.mem<sbuf>>, memref<128x8xf32, #nisa.mem<psum>>
  func.call @callee() : () -> ()
  func.call @external(%h) : (memref<4xf32, #nisa.mem<hbm>>) -> ()
  func.return
}
"""


def test_written_operands() -> None:
    main = list(_module(_OPS).ops)[-1]
    ops = {op.name + str(i): op for i, op in enumerate(main.body.block.ops)}
    assert written_operands(ops["arith.constant0"]) == ()
    assert written_operands(ops["nisa.nc_matmul1"]) == (0,)  # dst, not the tiles it reads
    assert written_operands(ops["nisa.tensor_copy2"]) == (0,)
    assert written_operands(ops["func.call3"]) == ()  # the callee's ops are seen one by one
    assert written_operands(ops["func.call4"]) is None  # an external function: anything
    assert written_operands(ops["func.return5"]) == ()


# -------------------------------------------------------------------- NaN in PSUM


def _f32(*words: int) -> np.ndarray:
    return np.array(words, np.uint32).view(np.float32)


def test_psum_add_keeps_a_nan_the_pass_does_not_make() -> None:
    """Element by element (docs/numerics.md, "NaN in PSUM"): a NaN already in PSUM plus
    a non-NaN keeps its bits; a NaN pass result, or inf + -inf, is 0x7FC00000."""
    accumulator = _f32(0xFFC00000, 0x7FC00001, 0x3F800000, 0x7F800000, 0x7FC00002)
    value = _f32(0x3F800000, 0xFF800000, 0xFFC00000, 0xFF800000, 0x7FC00003)
    psum_add(accumulator, value)  # value holds non-finite elements: the explicit path
    assert accumulator.view(np.uint32).tolist() == [
        0xFFC00000,  # NaN + 1: kept
        0x7FC00001,  # NaN + -inf: kept
        0x7FC00000,  # 1 + NaN: the pass's NaN is canonical
        0x7FC00000,  # inf + -inf
        0x7FC00000,  # NaN + NaN: canonical
    ]
    finite = _f32(0xFFC00000, 0x7FC00001, 0x3F800000)
    psum_add(finite, np.ones(3, np.float32))  # an all-finite pass: the ufunc alone
    assert finite.view(np.uint32).tolist() == [0xFFC00000, 0x7FC00001, 0x40000000]


# ---------------------------------------------------------- matmul input types run

_F8_MATMUL = (EXAMPLES / "nisa_matmul_tiled.mlir").read_text().replace("xbf16", "xf8E4M3")


def test_legacy_e4m3_matmul_runs_at_nisa_and_bir() -> None:
    """f8E4M3 (max 240, with infinities) operands, two K tiles: each pass the exact sum
    rounded once (Fraction), added in fp32; nisa and bir, both modes."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((256, 4)).astype(ml_dtypes.float8_e4m3) * 16
    b = rng.standard_normal((256, 8)).astype(ml_dtypes.float8_e4m3) * 8
    expected = np.zeros((4, 8), np.float32)
    for k in (0, 128):
        tile = [
            [
                float(
                    sum(
                        Fraction(float(a[r, i])) * Fraction(float(b[r, j]))
                        for r in range(k, k + 128)
                    )
                )
                for j in range(8)
            ]
            for i in range(4)
        ]
        expected = (expected + np.array(tile, np.float32)).astype(np.float32)
    ctx = _context()
    for lower in (False, True):
        module = Parser(ctx, _F8_MATMUL).parse_module()
        if lower:
            LowerNisaToBirPass().apply(ctx, module)
        for fast in (True, False):
            out = np.zeros((4, 8), np.float32)
            make_interpreter(module, ctx, fast_path=fast).call_op("main", (a, b, out))
            assert out.view(np.uint32).tolist() == expected.view(np.uint32).tolist(), (lower, fast)


# ------------------------------------------------- every element type a tile may hold

_COPY = """
func.func @main(%a: memref<4x8xT, #nisa.mem<hbm>>, %out: memref<4x8xT, #nisa.mem<hbm>>) {
  %s = memref.alloc() : memref<4x8xT, #nisa.mem<sbuf>>
  %d = memref.alloc() : memref<4x8xT, #nisa.mem<sbuf>>
  nisa.dma_copy %s, %a : memref<4x8xT, #nisa.mem<sbuf>>, memref<4x8xT, #nisa.mem<hbm>>
  nisa.tensor_copy %d, %s : memref<4x8xT, #nisa.mem<sbuf>>, memref<4x8xT, #nisa.mem<sbuf>>
  nisa.dma_copy %out, %d : memref<4x8xT, #nisa.mem<hbm>>, memref<4x8xT, #nisa.mem<sbuf>>
  func.return
}
"""

_ELEMENTS = ["f64", "f32", "f16", "bf16", "f8E4M3FN", "f8E4M3", "f8E5M2", "f8E3M4"]
_ELEMENTS += ["f8E8M0FNU", "f4E2M1FN", "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32"]
_ELEMENTS += ["tf32", "f8E5M2FNUZ", "f8E4M3FNUZ"]


@pytest.mark.parametrize("element", _ELEMENTS)
def test_what_verifies_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], element: str
) -> None:
    """A tile of each element type, copied through SBUF: the nisa verifier refuses it,
    or nisa runs it, and then lower-nisa-to-bir runs it with the same bits or refuses it
    at the op with a located message (never an internal error)."""
    source = tmp_path / "copy.mlir"
    source.write_text(_COPY.replace("xT,", f"x{element},"))
    runs = []
    for pipeline in ([], ["-p", "lower-nisa-to-bir"]):
        out = tmp_path / f"out{len(runs)}.npz"
        argv = [str(source), "--random-inputs", "0", "--quiet", "-o", str(out), *pipeline]
        code = mx_run.main(argv, stdout=io.StringIO())
        error = capsys.readouterr().err
        assert "internal error" not in error, error
        assert "Traceback" not in error, error
        if code:
            assert code == 1
            assert f"{source}:" in error, error  # located
            runs.append(None)
            continue
        with np.load(out) as outputs:
            runs.append({k: outputs[k].tobytes() for k in outputs.files})
    nisa, bir = runs
    if nisa is None:  # refused where it is first checked: parse or verify at nisa
        assert bir is None
        return
    assert bir is None or bir == nisa
