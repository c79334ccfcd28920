"""mx-opt in-process: ``mxdsl.tools.mx_opt.main`` returns the exit code, writes IR to
stdout and one diagnostic paragraph to stderr, and never lets a traceback out."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.utils.exceptions import VerifyException

import mxdsl
from mxdsl.tools import mx_opt
from mxdsl.tools.mx_opt import main

EXAMPLE = str(Path(__file__).parents[2] / "examples" / "mx_matmul.mlir")

QUANTIZE = (
    "func.func @f(%x: tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>> {{\n"
    '  %q = hlo.custom_call @QuantizeMX(%x) {{backend_config = "{config}"}} : '
    "(tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>\n"
    "  func.return %q : tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>\n"
    "}}\n"
)
GOOD_CONFIG = (
    r"{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22block_size\22: 32, "
    r"\22scale_method\22: \22EMAX\22}"
)
BAD_BLOCK_CONFIG = GOOD_CONFIG.replace("32", "16")
NO_BLOCK_CONFIG = (
    r"{\22dtype\22: \22float8_e4m3fn\22, \22dim\22: -1, \22scale_method\22: \22EMAX\22}"
)
TWO_BATCH_DIMS = (
    "func.func @f(%l: tensor<2x3x4x8xui32>, %r: tensor<2x3x8x16xui32>, "
    "%ls: tensor<2x3x4x1xf8E8M0FNU>, %rs: tensor<2x3x1x16xf8E8M0FNU>) {\n"
    '  %y = hlo.custom_call @__op$block_scaled_dot(%l, %r, %ls, %rs) {backend_config = "'
    r"{\22scaled_dot_backend_config\22: {\22lhs_batch_dimensions\22: [0, 1], "
    r"\22rhs_batch_dimensions\22: [0, 1], \22lhs_contracting_dimensions\22: [3], "
    r"\22rhs_contracting_dimensions\22: [2], \22element_dtype\22: \22float8_e5m2\22}}"
    '"} : (tensor<2x3x4x8xui32>, tensor<2x3x8x16xui32>, tensor<2x3x4x1xf8E8M0FNU>, '
    "tensor<2x3x1x16xf8E8M0FNU>) -> tensor<2x3x4x16xf32>\n"
    "  func.return\n"
    "}\n"
)


def write(tmp_path: Path, text: str, name: str = "input.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error(code: int, out: str, err: str, *fragments: str) -> None:
    """Exit 1, nothing on stdout, one paragraph (no blank line) on stderr, no traceback."""
    assert code == 1
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("\n")
    assert "\n\n" not in err.strip("\n")
    assert "error:" in err.splitlines()[0]
    for fragment in fragments:
        assert fragment in err


# --------------------------------------------------------------------------- success


def test_version(capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, "--version")
    assert (code, out, err) == (0, f"mx-opt {mxdsl.__version__} (xdsl 0.75.0)\n", "")


def test_legalizes_the_example(capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, EXAMPLE, "-p", "legalize-quantize-mx,legalize-scaled-matmul")
    assert (code, err) == (0, "")
    assert out.count("@QuantizeMX_bf16_e4m3fn(") == 2
    assert "@ScaledMatmul_e4m3fn_e4m3fn_f32(%x_data, %w_data, %x_scale, %w_scale, %" in out


def test_upstream_passes(capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, EXAMPLE, "-p", "canonicalize,cse")
    assert (code, err) == (0, "")
    assert "@QuantizeMX(%x)" in out


def test_reads_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    source = QUANTIZE.format(config=GOOD_CONFIG).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source)))
    code, out, err = run(capsys, "-p", "legalize-quantize-mx")
    assert (code, err) == (0, "")
    assert "@QuantizeMX_bf16_e4m3fn(" in out


def test_output_file_written_on_success(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    target = tmp_path / "out.mlir"
    code, out, err = run(capsys, EXAMPLE, "-p", "legalize-quantize-mx", "-o", str(target))
    assert (code, out, err) == (0, "", "")
    _, stdout_text, _ = run(capsys, EXAMPLE, "-p", "legalize-quantize-mx")
    assert target.read_text() == stdout_text


# ------------------------------------------------------------------------ bad input


def test_unknown_pass(capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, EXAMPLE, "-p", "cse,legalize-everything")
    assert_one_error(
        code,
        out,
        err,
        "mx-opt: error: unknown pass 'legalize-everything'",
        "legalize-quantize-mx, legalize-scaled-matmul",
    )


def test_unknown_pass_option(capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, EXAMPLE, "-p", "legalize-scaled-matmul{batch=2}")
    assert_one_error(
        code,
        out,
        err,
        "mx-opt: error: pass 'legalize-scaled-matmul' has no option 'batch' (it takes no options)",
    )


def test_pass_option_of_the_wrong_type(capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, EXAMPLE, "-p", "approximate-math-with-bitcast{log=3}")
    assert_one_error(code, out, err, "invalid options for pass 'approximate-math-with-bitcast'")


def test_pipeline_syntax_error(capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, EXAMPLE, "-p", "cse{")
    assert_one_error(code, out, err, "mx-opt: error: invalid pass pipeline")


def test_missing_input_file(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    missing = str(tmp_path / "missing.mlir")
    code, out, err = run(capsys, missing)
    assert_one_error(code, out, err, f"mx-opt: error: cannot open '{missing}'", "No such file")


def test_malformed_ir(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = write(tmp_path, "func.func @f(%a: tensor<2xf32>) {\n  %t = hlo.tuple %a, %a\n")
    code, out, err = run(capsys, path)
    assert_one_error(code, out, err, f"{path}:3:1: error:")


def test_malformed_ir_points_at_the_token(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = write(
        tmp_path,
        "func.func @f(%a: tensor<2xf32>) {\n"
        "  %t = hlo.tuple %a, %a : tuple<tensor<2xf32>>\n"
        "  func.return\n"
        "}\n",
    )
    code, out, err = run(capsys, path)
    assert_one_error(
        code,
        out,
        err,
        f"{path}:2:27: error: hlo.tuple has 2 operands but its type",
    )
    assert err.splitlines()[2] == " " * 26 + "^"


def test_verifier_failure(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = write(tmp_path, QUANTIZE.format(config=BAD_BLOCK_CONFIG))
    code, out, err = run(capsys, path)
    assert_one_error(
        code,
        out,
        err,
        f"{path}:2:3: error: 'hlo.custom_call' op [MXQ05] QuantizeMX: block_size is 16",
        "cause:",
        "resolution:",
    )


def test_pass_failure(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = write(tmp_path, TWO_BATCH_DIMS)
    code, out, err = run(capsys, path, "-p", "legalize-scaled-matmul")
    assert_one_error(
        code,
        out,
        err,
        f"{path}:2:3: error: 'hlo.custom_call' op legalize-scaled-matmul: the ScaledMatmul "
        "metadata holds at most one batch dimension",
    )


@pytest.mark.parametrize(
    ("source", "passes"),
    [
        ("func.func @f( {\n", "cse"),
        (QUANTIZE.format(config=BAD_BLOCK_CONFIG), "cse"),
        (TWO_BATCH_DIMS, "legalize-scaled-matmul"),
    ],
    ids=["malformed", "verifier", "pass"],
)
def test_output_file_not_written_on_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str, passes: str
):
    path = write(tmp_path, source)
    fresh = tmp_path / "fresh.mlir"
    kept = tmp_path / "kept.mlir"
    kept.write_text("kept")
    for target in (fresh, kept):
        code, out, err = run(capsys, path, "-p", passes, "-o", str(target))
        assert_one_error(code, out, err)
    assert not fresh.exists()
    assert kept.read_text() == "kept"


def test_unknown_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, EXAMPLE, "--frobnicate")
    assert code == 2
    assert out == ""
    assert "mx-opt: error: unrecognized arguments: --frobnicate" in err
    assert err.startswith("usage: mx-opt ")


# -------------------------------------------------------------- diagnostics modes


def test_verify_diagnostics_prints_and_succeeds(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = write(tmp_path, QUANTIZE.format(config=BAD_BLOCK_CONFIG))
    code, out, err = run(capsys, path, "--verify-diagnostics", "--located-diagnostics")
    assert (code, err) == (0, "")
    assert out.startswith(f"{path}:2:3: error: 'hlo.custom_call' op [MXQ05]")


def test_parsing_diagnostics_prints_located_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    path = write(tmp_path, "%c = hlo.constant 5 : i64\n// -----\n%d = hlo.constant 6 : i64\n")
    code, out, err = run(
        capsys, path, "--split-input-file", "--parsing-diagnostics", "--located-diagnostics"
    )
    assert (code, err) == (0, "")
    assert f"{path}:1:19: error: a constant literal is a dense<...> tensor" in out
    assert f"{path}:3:19: error: a constant literal is a dense<...> tensor" in out


@pytest.mark.parametrize(
    ("text", "flags"),
    [
        (QUANTIZE.format(config=BAD_BLOCK_CONFIG), ["--verify-diagnostics"]),
        (
            "%c = hlo.constant 5 : i64\n// -----\n%d = hlo.constant 6 : i64\n",
            ["--split-input-file", "--parsing-diagnostics"],
        ),
        ("func.func @f() {\n^bb0:\n}\n", ["--verify-diagnostics"]),
        ('"test.op"() : () -> ()\n', ["--allow-unregistered-dialect", "--print-debuginfo"]),
    ],
)
def test_under_xdsl_opt_flags_mx_opt_answers_as_xdsl_opt(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, flags: list[str]
):
    """Byte for byte what the xdsl-opt of this environment prints (a subprocess)."""
    import subprocess

    path = write(tmp_path, text)
    upstream = subprocess.run(
        ["xdsl-opt", path, *flags], capture_output=True, text=True, check=False
    )
    code, out, err = run(capsys, path, *flags)
    assert (code, out, err) == (upstream.returncode, upstream.stdout, upstream.stderr)


def test_disable_verify_does_not_leak_into_the_process(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    path = write(tmp_path, QUANTIZE.format(config=NO_BLOCK_CONFIG))
    code, out, err = run(capsys, path, "--disable-verify", "-p", "legalize-quantize-mx")
    assert (code, err) == (0, "")
    assert "dense<32> : tensor<i64>" in out  # the pass's block_size default
    # xDSLOptMain turns attribute verification off process-wide for --disable-verify;
    # main() turns it back on.
    with pytest.raises(VerifyException, match="out of range for type i32"):
        IntegerAttr(1 << 40, i32)


def test_internal_error_is_reported_without_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    def explode(self: mx_opt.MxOptMain, prog: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(mx_opt.MxOptMain, "apply_passes", explode)
    monkeypatch.delenv("MXDSL_TRACEBACK", raising=False)
    code, out, err = run(capsys, EXAMPLE)
    assert code == 2
    assert "Traceback" not in err
    assert "mx-opt: error: internal error: RuntimeError: boom" in err
    monkeypatch.setenv("MXDSL_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="boom"):
        main([EXAMPLE])
