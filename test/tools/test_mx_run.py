"""mx-run: inputs and outputs (.npz conventions, bit patterns, tuples, random inputs),
the per-result summary, -p pipelines, and every error path (a diagnostic, exit code 1,
no traceback, nothing written to -o)."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E8M0FNUType,
    Float32Type,
    IntegerType,
    Signedness,
    TensorType,
    i1,
)

from mxdsl.interpreters import round_to
from mxdsl.tools.mx_run import main, random_inputs, summary_line

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mx_matmul.mlir"
BF16 = np.dtype(ml_dtypes.bfloat16)
LEGALIZE = "legalize-quantize-mx,legalize-scaled-matmul"


def mx_run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    stdout = io.StringIO()
    code = main([str(a) for a in argv], stdout=stdout)
    return code, stdout.getvalue(), capsys.readouterr().err


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------ running


def test_example_runs_and_its_legalized_form_is_bit_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = mx_run(capsys, EXAMPLE, "--random-inputs", "0", "-o", tmp_path / "a.npz")
    assert (code, err) == (0, "")
    assert out.startswith("result0: tensor<128x64xf32> shape=(128, 64) dtype=float32 min=")
    assert out.rstrip().endswith("nan=0")
    code, _, err = mx_run(
        capsys, EXAMPLE, "--random-inputs", "0", "-p", LEGALIZE, "-o", tmp_path / "b.npz"
    )
    assert (code, err) == (0, "")
    a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
    assert a.files == b.files == ["result0"]
    assert a["result0"].dtype == np.float32
    assert a["result0"].shape == (128, 64)
    assert a["result0"].tobytes() == b["result0"].tobytes()


def test_inputs_as_bit_patterns_or_saved_ml_dtypes_arrays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((128, 256)).astype(np.float32).astype(BF16)
    w = rng.standard_normal((256, 64)).astype(np.float32).astype(BF16)
    np.savez(tmp_path / "bits.npz", arg0=x.view(np.uint16), arg1=w.view(np.uint16))
    np.savez(tmp_path / "ml.npz", arg0=x, arg1=w)  # numpy stores these as raw |V2 bytes
    results = []
    for name in ("bits", "ml"):
        out = tmp_path / f"{name}.out.npz"
        code, _, err = mx_run(capsys, EXAMPLE, "--inputs", tmp_path / f"{name}.npz", "-o", out)
        assert (code, err) == (0, "")
        results.append(np.load(out)["result0"])
    assert results[0].tobytes() == results[1].tobytes()
    assert np.isfinite(results[0]).all()


def test_random_inputs_follow_the_documented_distribution() -> None:
    types = [
        TensorType(BFloat16Type(), [1000]),
        TensorType(Float32Type(), [10]),
        TensorType(IntegerType(32), [1000]),
        TensorType(IntegerType(8, Signedness.UNSIGNED), [1000]),
        TensorType(Float8E8M0FNUType(), [1000]),
        TensorType(i1, [100]),
    ]
    values = random_inputs(42, types)
    again = random_inputs(42, types)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(values, again, strict=True))
    rng = np.random.default_rng(42)
    assert values[0].tobytes() == round_to(rng.standard_normal(1000), BF16).tobytes()
    assert values[1].tobytes() == round_to(rng.standard_normal(10), np.dtype(np.float32)).tobytes()
    assert values[2].dtype == np.int32
    assert (values[2].min(), values[2].max()) == (-8, 8)
    assert values[3].dtype == np.uint8
    assert (values[3].min(), values[3].max()) == (0, 16)
    e8m0 = values[4].view(np.uint8)
    assert (e8m0.min(), e8m0.max()) == (123, 131)
    assert values[5].dtype == np.bool_


CONSTANTS = """func.func @main() -> (tuple<tensor<2xbf16>, tensor<2xf4E2M1FN>>, tensor<2xf8E8M0FNU>,
                           tensor<2xf32>) {
  %a = hlo.constant dense<[1.5, -2.0]> : tensor<2xbf16>
  %b = hlo.constant dense<[1.0, -6.0]> : tensor<2xf4E2M1FN>
  %t = hlo.tuple %a, %b : tuple<tensor<2xbf16>, tensor<2xf4E2M1FN>>
  %s = hlo.constant dense<[1.0, 0.25]> : tensor<2xf8E8M0FNU>
  %h = hlo.constant dense<[500.0, 2.5]> : tensor<2xf32>
  %e = hlo.convert %h : (tensor<2xf32>) -> tensor<2xf8E4M3FN>
  %n = hlo.convert %e : (tensor<2xf8E4M3FN>) -> tensor<2xf32>
  func.return %t, %s, %n : tuple<tensor<2xbf16>, tensor<2xf4E2M1FN>>, tensor<2xf8E8M0FNU>,
                           tensor<2xf32>
}
"""


def test_tuple_results_and_bit_pattern_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.npz"
    code, text, err = mx_run(
        capsys, write(tmp_path, "c.mlir", CONSTANTS), "-o", out, "--print-values"
    )
    assert (code, err) == (0, "")
    saved = np.load(out)
    assert saved.files == ["result0.0", "result0.1", "result1", "result2"]
    assert saved["result0.0"].dtype == np.uint16
    assert saved["result0.0"].tolist() == [0x3FC0, 0xC000]
    assert saved["result0.1"].dtype == np.uint8
    assert saved["result0.1"].tolist() == [0x2, 0xF]  # fp4: one code per uint8
    assert saved["result1"].dtype == np.uint8
    assert saved["result1"].tolist() == [127, 125]  # E8M0 bytes
    lines = text.splitlines()
    assert lines[0] == (
        "result0.0: tensor<2xbf16> shape=(2,) dtype=bfloat16 min=-2 max=1.5 mean=-0.25 nan=0"
    )
    assert "result0.1 = [1.0, -6.0]" in lines
    assert "result1 = e8m0 bytes [127, 125]" in lines
    assert lines[-2] == (
        "result2: tensor<2xf32> shape=(2,) dtype=float32 min=2.5 max=2.5 mean=2.5 nan=1"
    )
    assert lines[-1] == "result2 = [nan, 2.5]"


def test_tuple_arguments_and_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    program = """func.func @f(%t: tuple<tensor<2xf32>, tensor<2xbf16>>) -> tensor<2xbf16> {
      %a = hlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>, tensor<2xbf16>>) -> tensor<2xf32>
      %c = hlo.convert %a : (tensor<2xf32>) -> tensor<2xbf16>
      func.return %c : tensor<2xbf16>
    }
    """
    np.savez(tmp_path / "in.npz", **{"arg0.0": np.array([1 + 2**-8, 3], np.float32)})
    monkeypatch.setattr("sys.stdin", io.StringIO(program))
    code, _, err = mx_run(capsys, "-", "--symbol", "f", "--inputs", tmp_path / "in.npz")
    assert code == 1
    assert "@f takes 1 argument(s) (arg0.0, arg0.1)" in err
    assert "has no arg0.1" in err
    np.savez(
        tmp_path / "in.npz",
        **{"arg0.0": np.array([1 + 2**-8, 3], np.float32), "arg0.1": np.zeros(2, np.uint16)},
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(program))
    code, out, err = mx_run(
        capsys, "-", "--symbol", "f", "--inputs", tmp_path / "in.npz", "--print-values"
    )
    assert (code, err) == (0, "")
    assert "result0 = [1.0, 3.0]" in out


def test_summary_line_counts_nans_and_handles_integers() -> None:
    values = np.array([np.nan, -1.0, 3.0, np.nan], np.float32)
    assert summary_line("r", values) == ("r: shape=(4,) dtype=float32 min=-1 max=3 mean=1 nan=2")
    assert summary_line("r", np.array([np.nan], np.float32)).endswith(
        "min=nan max=nan mean=nan nan=1"
    )
    assert summary_line("w", np.array([1, 4], np.uint32)) == (
        "w: shape=(2,) dtype=uint32 min=1 max=4 mean=2.5 nan=0"
    )


# ------------------------------------------------------------------ errors

QUANTIZE = """func.func @main(%x: tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>> {{
  %q = hlo.custom_call @QuantizeMX(%x) {{backend_config = "{{\\22dtype\\22: \\22float8_e4m3fn\\22, \\22dim\\22: -1, \\22block_size\\22: {block}, \\22scale_method\\22: \\22EMAX\\22}}", api_version = 1 : i32}}
      : (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
  func.return %q : tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>
}}
"""  # noqa: E501

NO_IMPL = """func.func @main() -> tensor<2xf32> {
  %x = hlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %y = math.absf %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
"""

UNKNOWN_TARGET = """func.func @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = hlo.custom_call @VendorThing(%x) {backend_config = ""} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
func.func @main() -> tensor<2xf32> {
  %x = hlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %y = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
"""

TWO_ARGS = """func.func @main(%a: tensor<2x3xbf16>, %b: tensor<3xf4E2M1FN>) -> tensor<2x3xbf16> {
  func.return %a : tensor<2x3xbf16>
}
"""


def _npz(path: Path, **arrays: np.ndarray) -> Path:
    np.savez(path, **arrays)
    return path


ERROR_CASES = {
    "missing file": (None, [], ["mx-run: error: cannot open", "No such file"]),
    "malformed IR": (
        "func.func @main() -> tensor<2xf32> {\n"
        "  %x = hlo.constant dense<[1.0> : tensor<2xf32>\n}\n",
        [],
        ["p.mlir:2:", "error:"],
    ),
    "verifier error": (
        QUANTIZE.format(block=16),
        ["--random-inputs", "0"],
        ["p.mlir:2:3: error: 'hlo.custom_call' op [MXQ05]", "block_size is 16", "^"],
    ),
    "missing symbol": (NO_IMPL, ["--symbol", "nope"], ["no function @nope in", "@main"]),
    "op without implementation": (
        NO_IMPL,
        [],
        ["p.mlir:3:3: error: 'math.absf' op no interpreter implementation for this op"],
    ),
    "unknown custom call target": (
        UNKNOWN_TARGET,
        [],
        [
            "p.mlir:2:3: error: 'hlo.custom_call' op no interpreter implementation for custom "
            "call target 'VendorThing'",
        ],
    ),
    "no inputs": (TWO_ARGS, [], ["p.mlir:1:1: error:", "give --inputs IN.npz or --random-inputs"]),
    "missing input file": (TWO_ARGS, ["--inputs", "{tmp}/none.npz"], ["cannot open inputs"]),
    "missing argument": (
        TWO_ARGS,
        ["--inputs", "{missing}"],
        ["@main takes 2 argument(s) (arg0, arg1)", "has no arg1"],
    ),
    "extra argument": (TWO_ARGS, ["--inputs", "{extra}"], ["has unexpected arg2"]),
    "wrong shape": (
        TWO_ARGS,
        ["--inputs", "{shape}"],
        ["arg0: expected bfloat16 values (or uint16 bit patterns) of shape (2, 3)", "(3, 2)"],
    ),
    "wrong dtype": (
        TWO_ARGS,
        ["--inputs", "{dtype}"],
        ["arg0: expected bfloat16 values (or uint16 bit patterns)", "got float32"],
    ),
    "fp4 bits out of range": (
        TWO_ARGS,
        ["--inputs", "{fp4}"],
        ["arg1: f4E2M1FN bit patterns are 0..15", "got 16"],
    ),
    "unknown pass": (NO_IMPL, ["-p", "legalize-everything"], ["unknown pass", "legalize-"]),
}


@pytest.mark.parametrize("case", list(ERROR_CASES), ids=list(ERROR_CASES))
def test_errors_are_diagnostics_and_write_nothing(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    program, extra, expected = ERROR_CASES[case]
    source = tmp_path / ("missing.mlir" if program is None else "p.mlir")
    if program is not None:
        source.write_text(program)
    monkeypatch.chdir(tmp_path)  # the diagnostics name the file as given: p.mlir
    a = np.zeros((2, 3), np.uint16)
    b = np.zeros(3, np.uint8)
    files = {
        "tmp": str(tmp_path),
        "missing": _npz(tmp_path / "m.npz", arg0=a),
        "extra": _npz(tmp_path / "e.npz", arg0=a, arg1=b, arg2=b),
        "shape": _npz(tmp_path / "s.npz", arg0=a.T, arg1=b),
        "dtype": _npz(tmp_path / "d.npz", arg0=a.astype(np.float32), arg1=b),
        "fp4": _npz(tmp_path / "f.npz", arg0=a, arg1=b + 16),
    }
    out = tmp_path / "out.npz"
    argv = [source.name, *(arg.format(**files) for arg in extra), "-o", out]
    code, stdout, err = mx_run(capsys, *argv)
    assert code == 1, err
    for fragment in expected:
        assert fragment in err
    assert "Traceback" not in err
    assert stdout == ""
    assert not out.exists()


def test_a_failed_run_leaves_an_existing_output_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _npz(tmp_path / "out.npz", keep=np.ones(1))
    before = out.read_bytes()
    code, _, _ = mx_run(capsys, write(tmp_path, "p.mlir", NO_IMPL), "-o", out)
    assert code == 1
    assert out.read_bytes() == before


def test_the_console_script(tmp_path: Path) -> None:
    exe = shutil.which("mx-run")
    assert exe is not None, "pip install -e . installs the mx-run script"
    done = subprocess.run(
        [exe, str(write(tmp_path, "p.mlir", UNKNOWN_TARGET))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "custom call target 'VendorThing'" in done.stderr
    assert "Traceback" not in done.stderr


ZERO_D = """
func.func @main(%a: tensor<bf16>, %b: tensor<f8E4M3FN>, %c: tensor<f8E5M2>)
    -> (tensor<bf16>, tensor<f8E4M3FN>, tensor<f8E5M2>) {
  %na = stablehlo.negate %a : tensor<bf16>
  func.return %na, %b, %c : tensor<bf16>, tensor<f8E4M3FN>, tensor<f8E5M2>
}
"""


@pytest.mark.parametrize("as_bits", [True, False])
def test_zero_d_narrow_floats_keep_shape_in_inputs_and_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], as_bits: bool
) -> None:
    """0-d bf16 / fp8 values stay 0-d, read as bit patterns or as saved ml_dtypes arrays,
    and written as 0-d bit patterns."""
    a = np.array(1.5, BF16)  # 0x3FC0
    b = np.array(-2.0, ml_dtypes.float8_e4m3fn)  # 0xC0
    c = np.array(0.5, ml_dtypes.float8_e5m2)  # 0x38
    c = c.view(np.uint8)  # numpy writes a saved e5m2 array's dtype as '<f1', unreadable
    if as_bits:
        a, b = a.view(np.uint16), b.view(np.uint8)
    np.savez(tmp_path / "in.npz", arg0=a, arg1=b, arg2=c)
    out = tmp_path / "out.npz"
    code, text, err = mx_run(
        capsys, write(tmp_path, "z.mlir", ZERO_D), "--inputs", tmp_path / "in.npz", "-o", out
    )
    assert (code, err) == (0, "")
    saved = np.load(out)
    assert [saved[k].shape for k in ("result0", "result1", "result2")] == [(), (), ()]
    assert int(saved["result0"]) == 0xBFC0
    assert saved["result0"].dtype == np.uint16
    assert (int(saved["result1"]), int(saved["result2"])) == (0xC0, 0x38)
    assert "result0: tensor<bf16> shape=() dtype=bfloat16" in text


I1_SELECT = """
func.func @main(%p: tensor<4x8xi1>, %a: tensor<4x8xf32>, %b: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = stablehlo.select %p, %a, %b : tensor<4x8xi1>, tensor<4x8xf32>
  %c = stablehlo.convert %p : (tensor<4x8xi1>) -> tensor<4x8xf32>
  func.return %r, %c : tensor<4x8xf32>, tensor<4x8xf32>
}
"""


def test_one_i1_convention_at_every_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An i1 argument is a bool or a 0 / 1 uint8 at stablehlo, nisa (where it is a ui8
    tile) and bir: one .npz of either runs at every level with the same results, which
    are select / convert of the truth values (numpy)."""
    program = write(tmp_path, "p.mlir", I1_SELECT)
    rng = np.random.default_rng(4)
    p = rng.integers(0, 2, (4, 8)).astype(bool)
    a = rng.standard_normal((4, 8)).astype(np.float32)
    b = rng.standard_normal((4, 8)).astype(np.float32)
    lower = "import-stablehlo,lower-hlo-to-nisa"
    for name, truth in (("bool", p), ("bytes", p.astype(np.uint8))):
        np.savez(tmp_path / f"{name}.npz", arg0=truth, arg1=a, arg2=b)
        for passes in ((), ("-p", lower), ("-p", lower + ",lower-nisa-to-bir")):
            out = tmp_path / "out.npz"
            code, _, err = mx_run(
                capsys, program, *passes, "--inputs", tmp_path / f"{name}.npz", "-o", out
            )
            assert (code, err) == (0, ""), (name, passes)
            saved = np.load(out)
            assert (saved["result0"] == np.where(p, a, b)).all(), (name, passes)
            assert (saved["result1"] == p.astype(np.float32)).all(), (name, passes)
    np.savez(tmp_path / "two.npz", arg0=p.astype(np.uint8) * 2, arg1=a, arg2=b)
    code, _, err = mx_run(capsys, program, "--inputs", tmp_path / "two.npz")
    assert code == 1
    assert "arg0: an i1 value given as uint8 is 0 or 1, got 2" in err
