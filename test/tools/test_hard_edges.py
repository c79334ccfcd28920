"""Issue 19, "Hard edges": each user mistake the issue lists ends in a diagnostic (no
traceback, no internal error, a non-zero exit), and every output is whole. One test per
item, named after it; items 4 and 8 (extension contracts and faults) are issue 21's."""

from __future__ import annotations

import io
import itertools
import os
import re
import shlex
import stat
import subprocess
import sys
import threading
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest
import tomllib
from xdsl.utils.exceptions import ParseError

from mxdsl.tools import mx_moe, mx_opt, mx_run
from mxdsl.tools.diagnostics import LineTable, check_string_literals, write_atomically

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
EXCHANGE = EXAMPLES / "nisa_exchange_2core.mlir"
MATMUL = EXAMPLES / "mx_matmul.mlir"


def tool(capsys: pytest.CaptureFixture[str], main, *argv: str | Path) -> tuple[int, str, str]:  # noqa: ANN001
    """Run a tool's ``main`` in process: (exit code, stdout, stderr)."""
    stdout = io.StringIO()
    if main is mx_opt.main:
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    code = main([str(a) for a in argv], stdout)
    return code, stdout.getvalue(), capsys.readouterr().err


def assert_diagnostic(code: int, err: str, *fragments: str) -> None:
    """Exit 1, no traceback or internal error, and every fragment in the message."""
    assert code == 1, err
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def command(*argv: str, stdin: bytes | None = None, timeout: float = 120) -> tuple[int, str]:
    """A tool as a subprocess: (exit code, stderr)."""
    done = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout)
    return done.returncode, done.stderr.decode("utf-8", "replace")


# ------------------------------------------------------- silently doing something else


def test_01_an_explicit_intermediate_equal_to_the_default_is_honoured(capsys) -> None:
    code, _, err = tool(
        capsys, mx_moe.main, "emit", "--implementation", "shard_on_i_mx", "--intermediate", "256"
    )
    assert_diagnostic(code, err, "intermediate size I = 256 is not allowed")
    # shard_on_block_mx takes it (a partial MX I tile): built as given, not its default 512
    code, out, _ = tool(
        capsys,
        mx_moe.main,
        "emit",
        "--implementation",
        "shard_on_block_mx",
        "--intermediate",
        "256",
    )
    assert code == 0
    assert " I=256 " in out.splitlines()[0]
    code, _, err = tool(
        capsys, mx_moe.main, "grid", "--implementations", "shard_on_i_mx", "--intermediate", "256"
    )
    assert_diagnostic(code, err, "I = 256 is not allowed")
    # not given: the variant's own default (the header says which I was built)
    code, out, _ = tool(capsys, mx_moe.main, "emit", "--implementation", "shard_on_block_mx")
    assert code == 0
    assert " I=512 " in out.splitlines()[0]
    code, out, _ = tool(capsys, mx_moe.main, "emit", "--implementation", "shard_on_block")
    assert code == 0
    assert " I=256 " in out.splitlines()[0]


def test_02_mx_weights_on_a_bf16_variant_is_refused(capsys) -> None:
    code, _, err = tool(capsys, mx_moe.main, "run", "--mx-weights", "fp4_e2m1")
    assert_diagnostic(code, err, "--mx-weights applies to the MX variants only")
    code, _, err = tool(
        capsys, mx_moe.main, "grid", "--implementations", "shard_on_i", "--mx-weights", "fp8_e5m2"
    )
    assert_diagnostic(code, err, "the grid has none")


def test_03_outputs_are_written_to_exactly_the_name_given(tmp_path: Path, capsys) -> None:
    inputs = tmp_path / "inputs"  # no .npz suffix: np.savez would have added one
    kernel = tmp_path / "kernel"
    code, _, err = tool(
        capsys, mx_moe.main, "emit", "-o", kernel, "--write-inputs", inputs, "--top-k", "1"
    )
    assert (code, err) == (0, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs", "kernel"]
    assert "arg0" in np.load(inputs).files
    result = tmp_path / "result"
    code, _, err = tool(capsys, mx_moe.main, "run", "--no-progress", "--top-k", "1", "-o", result)
    assert code == 0, err
    assert "golden" in np.load(result).files
    assert not (tmp_path / "result.npz").exists()
    # a directory is refused before any work, and nothing appears beside it
    before = sorted(tmp_path.iterdir())
    code, _, err = tool(capsys, mx_moe.main, "run", "--no-progress", "-o", tmp_path)
    assert_diagnostic(code, err, "is a directory")
    code, _, err = tool(capsys, mx_moe.main, "emit", "--write-inputs", tmp_path)
    assert_diagnostic(code, err, "is a directory")
    assert sorted(tmp_path.iterdir()) == before


# ----------------------------------------------------- internal errors for user mistakes


def test_05_mx_opt_reads_any_file_as_mlir_and_dash_as_stdin(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    text = "func.func @f() {\n  func.return\n}\n"
    other = tmp_path / "out.txt"
    other.write_text(text)
    for argv in ([other], [other, "-f", "mlir"]):
        code, out, err = tool(capsys, mx_opt.main, *argv)
        assert (code, err) == (0, "")
        assert "func.func @f()" in out
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code, out, err = tool(capsys, mx_opt.main, "-")
    assert (code, err) == (0, "")
    assert "func.func @f()" in out
    code, _, err = tool(capsys, mx_opt.main, "--help")
    assert code == 0


def test_06_input_that_is_not_utf8_is_named_at_its_byte(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_bytes(b"func.func @f() {\n  func.return \xff\n}\n")
    code, _, err = tool(capsys, mx_opt.main, bad)
    assert_diagnostic(code, err, f"{bad}:2:15: error: not UTF-8 text (byte 0xff")
    code, _, err = tool(capsys, mx_run.main, bad)
    assert_diagnostic(code, err, f"{bad}:2:15: error: not UTF-8 text")
    code, err = command("mx-run", "-", stdin=b"\x89PNG\r\n\x1a\n\xfe\xff")
    assert code == 1
    assert "<stdin>:1:1: error: not UTF-8 text (byte 0x89" in err
    assert "\\udc" not in err


def test_07_bad_numbers_are_usage_errors(capsys) -> None:
    for sub in ("run", "emit", "grid"):
        code, _, err = tool(capsys, mx_moe.main, sub, "--block-size", "0")
        assert code == 2
        assert "--block-size: expected an integer >= 1, got 0" in err
        code, _, err = tool(capsys, mx_moe.main, sub, "--seed", "-1")
        assert code == 2
        assert "--seed: expected an integer >= 0, got -1" in err
    code, _, err = tool(capsys, mx_run.main, MATMUL, "--random-inputs", "-1")
    assert code == 2
    assert "--random-inputs: expected an integer >= 0, got -1" in err


def test_07_sizes_beyond_the_sbuf_or_the_memory_are_refused_before_work(capsys) -> None:
    code, _, err = tool(capsys, mx_moe.main, "run", "--hidden", "65536", "--tokens", "10")
    assert_diagnostic(code, err, "needs", "KiB per SBUF partition", "reduce H or the block size")
    code, out, err = tool(capsys, mx_moe.main, "grid", "--experts", "100000", "--tokens", "10")
    assert_diagnostic(code, err, "needs about", "GiB", "--max-memory")
    assert out == ""  # refused before the grid's header


def test_07_a_huge_literal_is_a_located_error(tmp_path: Path, capsys) -> None:
    big = tmp_path / "big.mlir"
    big.write_text(
        "func.func @main() -> tensor<100000x100000xbf16> {\n"
        "  %c = hlo.constant dense<1.0> : tensor<100000x100000xbf16>\n"
        "  func.return %c : tensor<100000x100000xbf16>\n}\n"
    )
    code, _, err = tool(capsys, mx_opt.main, big)
    assert_diagnostic(code, err, f"{big}:2:3: error: out of memory while parsing this op")
    code, _, err = tool(capsys, mx_run.main, big)
    assert_diagnostic(code, err, f"{big}:2:3: error: out of memory")
    arg = tmp_path / "arg.mlir"
    arg.write_text(
        "func.func @main(%x: tensor<100000x100000xf32>) -> tensor<100000x100000xf32> {\n"
        "  func.return %x : tensor<100000x100000xf32>\n}\n"
    )
    code, _, err = tool(capsys, mx_run.main, arg, "--random-inputs", "0")
    assert_diagnostic(code, err, f"{arg}:1:1: error:", "the run needs at least", "--max-memory")


# ------------------------------------------------------------------------ resources


def test_09_cores_are_bounded_before_the_run(tmp_path: Path, capsys) -> None:
    code, _, err = tool(capsys, mx_run.main, EXCHANGE, "--cores", "100000")
    assert code == 2
    assert f"expected 1..{mx_run.MAX_CORES} cores" in err
    # a program that cannot tell its cores apart
    code, _, err = tool(capsys, mx_run.main, MATMUL, "--random-inputs", "0", "--cores", "4")
    assert_diagnostic(code, err, "every core would do the same work")


def test_09_memory_is_estimated_and_the_limit_can_be_set(tmp_path: Path, capsys) -> None:
    identity = tmp_path / "identity.mlir"
    identity.write_text(
        "func.func @main(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {\n"
        "  func.return %x : tensor<512x512xf32>\n}\n"
    )
    # 1 MiB argument + 1 MiB result > 1.5 MiB (the program text, 120 B, is far below)
    code, _, err = tool(
        capsys, mx_run.main, identity, "--random-inputs", "0", "--max-memory", "1.5M"
    )
    assert_diagnostic(code, err, f"{identity}:1:1: error:", "--max-memory allows 0.00146 GiB")
    argv = (EXCHANGE, "--cores", "2", "--random-inputs", "0")
    code, _, err = tool(capsys, mx_run.main, *argv, "--max-memory", "2K", "--quiet")
    assert (code, err) == (0, "")
    module, _ = mx_run.parse_located(mx_run._context(), EXCHANGE.read_text(), "x")
    func = next(op for op in module.walk() if op.name == "func.func")
    arg_types = list(func.function_type.inputs.data)  # pyright: ignore[reportAttributeAccessIssue]
    assert mx_run.estimate_memory(module, arg_types, [], 2) == 2 * 256 + 2 * 3 * 128
    code, _, err = tool(capsys, mx_moe.main, "run", "--max-memory", "1M")
    assert_diagnostic(code, err, "--max-memory 0.000977 GiB")


# -------------------------------------------------------------------------- outputs


def test_10_a_failing_run_keeps_every_existing_output(tmp_path: Path, capsys) -> None:
    keep = tmp_path / "keep.mlir"
    keep.write_text("precious\n")
    code, _, err = tool(capsys, mx_moe.main, "emit", "-o", keep, "--write-inputs", "/nodir/in.npz")
    assert_diagnostic(code, err, "no directory '/nodir'")
    assert keep.read_text() == "precious\n"
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  %x = arith.constant 1 : i32\n")
    code, _, err = tool(capsys, mx_opt.main, bad, "-o", keep)
    assert code == 1
    assert keep.read_text() == "precious\n"
    code, _, err = tool(capsys, mx_opt.main, bad, "-o", tmp_path / "no" / "x.mlir")
    assert_diagnostic(code, err, "cannot write output", "no directory")
    good = tmp_path / "good.mlir"
    good.write_text("func.func @f() {\n  func.return\n}\n")
    assert tool(capsys, mx_opt.main, good, "-o", keep)[0] == 0
    assert "func.func @f()" in keep.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir", "good.mlir", "keep.mlir"]


def test_11_outputs_follow_the_umask(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out.npz"
    out.write_bytes(b"old")
    out.chmod(0o644)
    mask = os.umask(0o022)
    try:
        code, _, err = tool(
            capsys, mx_run.main, MATMUL, "--random-inputs", "0", "-o", out, "--quiet"
        )
        assert (code, err) == (0, "")
        assert out.stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        code, _, _ = tool(capsys, mx_run.main, MATMUL, "--random-inputs", "0", "-o", out, "--quiet")
        assert code == 0
        assert out.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(mask)


def test_12_a_closed_stdout_ends_quietly() -> None:
    run = subprocess.Popen(
        ["mx-run", str(MATMUL), "--random-inputs", "0", "--print-values"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert run.stdout is not None
    assert run.stderr is not None
    first = run.stdout.readline()
    run.stdout.close()  # as `| head -1` does: the rest is more than a pipe holds
    err = run.stderr.read().decode()
    assert run.wait(timeout=120) == 0  # the reader took what it wanted
    assert first.startswith(b"result0:")
    assert err == ""


# ------------------------------------------------------------------------- messages


def test_13_an_unknown_pass_in_mx_run_is_said_as_mx_opt_says_it(capsys) -> None:
    code, _, run_err = tool(capsys, mx_run.main, MATMUL, "-p", "foo")
    code_opt, _, opt_err = tool(capsys, mx_opt.main, MATMUL, "-p", "foo")
    assert_diagnostic(code, run_err, "unknown pass 'foo'; mxdsl passes: ")
    assert "['foo']" not in run_err
    assert "lower-affine" not in run_err
    assert run_err.split("error: ", 1)[1] == opt_err.split("error: ", 1)[1]


def test_14_an_undefined_value_is_reported_at_its_use(tmp_path: Path, capsys) -> None:
    f = tmp_path / "u.mlir"
    f.write_text(
        "func.func @f(%x: i32) -> i32 {\n  %y = arith.addi %x, %x : i32\n"
        "  %w = arith.addi %z, %x : i32\n  func.return %w : i32\n}\n"
    )
    for main in (mx_opt.main, mx_run.main):
        code, _, err = tool(capsys, main, f)
        assert_diagnostic(code, err, f"{f}:3:19: error: use of undefined value %z")
        assert "%w = arith.addi %z, %x : i32\n" in err
        assert "missing?" not in err


def test_15_bytes_that_are_not_an_npz_are_named_so(tmp_path: Path, capsys) -> None:
    junk = tmp_path / "in.npz"
    junk.write_bytes(np.random.default_rng(0).bytes(300))
    code, _, err = tool(capsys, mx_run.main, MATMUL, "--inputs", junk)
    assert_diagnostic(code, err, "it is not an .npz file")
    assert "pickle" not in err


def test_16_the_examples_in_docs_mx_run_run(tmp_path: Path, capsys, monkeypatch) -> None:
    text = (ROOT / "docs" / "mx-run.md").read_text()
    block = text.split("## Examples", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [line.split("  #")[0].strip() for line in block.strip().splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]  # comment lines
    assert len(lines) >= 4
    monkeypatch.chdir(tmp_path)  # the examples' -o files land here
    mains = {"mx-run": mx_run.main, "mx-opt": mx_opt.main}
    for line in lines:
        line = line.replace("examples/", f"{EXAMPLES}/")
        if "|" in line:  # a pipeline: through the shell
            done = subprocess.run(line, shell=True, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, (line, done.stderr)
            continue
        name, *argv = shlex.split(line)
        code, _, err = tool(capsys, mains[name], *argv)
        assert (code, err) == (0, ""), line


# -------------------------------------------------------------------------- friction


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_17_progress_is_a_bar_on_a_terminal_and_plain_lines_otherwise(monkeypatch) -> None:
    log = io.StringIO()
    clock = itertools.chain([0.0, 1.0, 12.0, 13.0, 30.0], itertools.count(31.0))
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    progress = mx_moe.make_progress(4, log)
    for done in (1, 2, 3, 4):
        progress(done)
    # 1 s: too soon; 12 s: a line; 13 s: too soon; the end: a line
    assert log.getvalue() == (
        "blocks 2/4 (50%) after 12.0 s, ETA 0:12\nblocks 4/4 (100%) after 30.0 s\n"
    )
    assert "\r" not in log.getvalue()
    terminal = _Terminal()
    bar = mx_moe.make_progress(4, terminal)
    bar(2)
    bar(4)
    assert terminal.getvalue().count("\n") == 1  # one line, redrawn in place (tqdm)
    assert re.search(r"\rblocks \[#+\] 4/4 [0-9:]+, ETA [0-9:]+\n$", terminal.getvalue())
    for sub in ("run", "grid"):
        assert mx_moe.build_arg_parser().parse_args([sub, "--no-progress"]).no_progress


def test_18_help_shows_defaults_and_no_abbreviations(capsys) -> None:
    with pytest.raises(SystemExit):
        mx_moe.build_arg_parser().parse_args(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for fragment in (
        "H (multiple of 512) (default: 512)",
        "T (real tokens) (default: 100)",
        "TopK: experts per token (default: 2)",
        "IO dtype (default: bf16)",
        "the activation applied to gate (default: silu)",
        "(default: post_scale)",
    ):
        assert fragment in text, fragment
    code, _, err = tool(capsys, mx_moe.main, "grid", "--dtype", "bf16")
    assert code == 2
    assert "unrecognized arguments: --dtype" in err
    code, out, _ = tool(capsys, mx_opt.main, "--help")
    assert code == 0
    assert "stdin is read" in " ".join(out.split())
    names = re.findall(r"[a-z]+(?:-[a-z]+)+", " ".join(out.split()))
    wrapped = [line for line in out.splitlines() if line.rstrip().endswith("-")]
    assert "lower-nisa-to-bir" in names
    assert not wrapped, wrapped


def test_19_mx_runs_name_both_goldens() -> None:
    stdout = io.StringIO()
    argv = ["run", "--implementation", "shard_on_block_mx", "--no-progress", "--experts", "2"]
    assert mx_moe.main([*argv, "--tokens", "20"], stdout) == 0
    lines = stdout.getvalue().splitlines()
    dense = next(line for line in lines if "dense golden" in line)
    judged = next(line for line in lines if "tolerance" in line)
    assert "not judged" in dense
    assert "vs the MX golden (the same quantized weights)" in judged
    assert "ok" in judged


def test_20_readme_lists_every_doc_and_describes_the_default_grid() -> None:
    readme = (ROOT / "README.md").read_text()
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{doc.name}" in readme, doc.name
    grid_line = next(line for line in readme.splitlines() if line.startswith("mx-moe grid"))
    assert "every variant" not in grid_line
    # no --implementations: the bf16/fp8 family (all seven only with --nkilib)
    assert mx_moe.build_arg_parser().parse_args(["grid"]).implementations is None
    assert "bf16/fp8 variants" in grid_line


def test_21_the_tools_that_judge_ci_are_pinned_to_the_installed_versions() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = dict(
        requirement.split("==")
        for requirement in project["optional-dependencies"]["test"]
        if "==" in requirement
    )
    for judge in ("ruff", "pyright", "filecheck"):
        assert pins.get(judge) == version(judge), judge


# ------------------------------------------------------- found by mutating the examples


def test_22_an_unterminated_string_is_reported_at_once(tmp_path: Path, capsys) -> None:
    source = (EXAMPLES / "quantize_mx.mlir").read_text()
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "@QuantizeMX" in text)
    cut = source.replace('\\22EMAX\\22}", api_version', "\\22EMAX\\22}, api_version", 1)
    bad = tmp_path / "cut.mlir"
    bad.write_text(cut)
    for argv in (["mx-opt", str(bad)], ["mx-run", str(bad)]):
        start = time.perf_counter()
        code, err = command(*argv, timeout=60)
        assert code == 1
        assert time.perf_counter() - start < 60
        assert f"{bad}:{line}:" in err
        assert "string literal is not closed" in err
    # an invalid escape backtracks the same way; a closed string and comments are fine
    with pytest.raises(ParseError, match="invalid escape"):
        check_string_literals('"' + "a" * 40 + '\\q"', "x")
    check_string_literals('// "not a string\n"ok \\22 \\n" "" // "', "x")
    truncated = tmp_path / "truncated.mlir"
    truncated.write_text(source[: source.index("float8_e5m2")])
    code, _, err = tool(capsys, mx_opt.main, truncated)
    assert_diagnostic(code, err, "string literal is not closed")


VERIFY_AT_PARSE = {
    "api_version out of range": (
        "func.func @main(%x: tensor<4x32xbf16>) -> tensor<4x32xbf16> {\n"
        "  %y = hlo.custom_call @Foo(%x) {api_version = 1099511627776 : i32}"
        " : (tensor<4x32xbf16>) -> tensor<4x32xbf16>\n  func.return %y : tensor<4x32xbf16>\n}\n",
        "2:3: error: invalid op: Integer value 1099511627776 is out of range for type i32",
    ),
    "a type where an attribute is expected": (
        'func.func @main() -> tensor<2xf32> {\n  %c = "hlo.constant"() <{value = i32}>'
        " : () -> tensor<2xf32>\n  func.return %c : tensor<2xf32>\n}\n",
        "2:3: error: 'hlo.constant' op",
    ),
    "a tensor where a memref is required": (
        "func.func @main(%x: tensor<4x8xf32>) {\n  %s = memref.alloc() : memref<4x8xf32,"
        " #nisa.mem<sbuf>>\n  nisa.dma_copy %s, %x : memref<4x8xf32, #nisa.mem<sbuf>>,"
        " tensor<4x8xf32>\n  func.return\n}\n",
        "3:3: error: invalid op: tensor<4x8xf32> should be of base attribute memref",
    ),
    "a negative bir.ap partition": (
        "func.func @main() {\n  bir.memset #bir.ap<sbuf, p0 = -1, np = 4, [[1, 4]], off = 0,"
        " dtype = 16>, 0.0\n  func.return\n}\n",
        "2:3: error: invalid op: bir.ap: p0 must be >= 0",
    ),
    "a ragged dense literal": (
        "func.func @main() -> tensor<2x2xf32> {\n  %c = hlo.constant dense<[[1.0, 2.0], [3.0]]>"
        " : tensor<2x2xf32>\n  func.return %c : tensor<2x2xf32>\n}\n",
        "2:46: error: Tensor literal has inconsistent ranks between elements",
    ),
}


@pytest.mark.parametrize("case", sorted(VERIFY_AT_PARSE))
def test_23_verification_at_parse_time_is_a_located_error(
    case: str, tmp_path: Path, capsys
) -> None:
    text, expected = VERIFY_AT_PARSE[case]
    f = tmp_path / "v.mlir"
    f.write_text(text)
    for main in (mx_opt.main, mx_run.main):
        code, _, err = tool(capsys, main, f)
        assert_diagnostic(code, err, f"{f}:{expected}")


def test_24_static_subview_bounds_are_verified(tmp_path: Path, capsys) -> None:
    source = EXCHANGE.read_text()
    cases = {
        "[999999999999, 4, 8]": "dim 0: 999999999999 elements at stride 1 reach index",
        "[1, 4, 9]": "dim 2: 9 elements at stride 1 reach index 8",
    }
    for sizes, message in cases.items():
        f = tmp_path / "s.mlir"
        f.write_text(source.replace("[%r, 0, 0] [1, 4, 8]", f"[%r, 0, 0] {sizes}", 1))
        for argv in ([f], [f, "-p", "lower-nisa-to-bir"]):
            code, _, err = tool(capsys, mx_opt.main, *argv)
            assert_diagnostic(code, err, f"{f}:11:3: error: 'memref.subview' op {message}")
    f.write_text(source.replace("%x[%r, 0, 0]", "%x[3, 0, 0]", 1))
    code, _, err = tool(capsys, mx_opt.main, f)
    assert_diagnostic(code, err, "dim 0: offset 3 + 1 elements at stride 1 reach index 3")
    f.write_text(source.replace("[%r, 0, 0] [1, 4, 8]", "[%r, 0, 0] [2, 4, 4]", 1))
    code, _, err = tool(capsys, mx_opt.main, f)
    assert_diagnostic(code, err, "sizes [2, 4, 4] do not give the result shape [4, 8]")


# ----------------------------------------------------------------- issue 20: locations


def test_line_table_agrees_with_counting_newlines() -> None:
    text = "a\nbc\n\ndef\n"
    table = LineTable(text)
    for offset in range(len(text) + 1):
        line = text.count("\n", 0, offset) + 1
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        assert table.line_col(offset) == (line, col)


def test_the_benchmark_modules_parse(tmp_path: Path, capsys) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from mx_opt import addi_module, hlo_graph  # pyright: ignore[reportMissingImports]
    finally:
        sys.path.pop(0)
    f = tmp_path / "addi.mlir"
    f.write_text(addi_module(50))
    code, out, _ = tool(capsys, mx_opt.main, f)
    assert code == 0
    assert out.count("arith.addi") == 50
    f.write_text(hlo_graph(2))
    code, out, _ = tool(capsys, mx_opt.main, f)
    assert code == 0
    assert out.count("@QuantizeMX") == 4
    assert out.count("@__op$block_scaled_dot") == 2


def test_a_number_too_wide_for_its_array_is_located(tmp_path: Path, capsys) -> None:
    # found by the fuzz corpus: xDSL packs a dense array with struct, which raises
    f = tmp_path / "wide.mlir"
    f.write_text(
        "func.func @main() {\n  %a = memref.alloc() : memref<128x512xf32, #nisa.mem<sbuf>>\n"
        "  %r = memref.alloc() : memref<1x1xf32, #nisa.mem<sbuf>>\n"
        "  nisa.tensor_reduce %r, add %a axes [0, 9223372036854775808] : memref<1x1xf32,"
        " #nisa.mem<sbuf>>, memref<128x512xf32, #nisa.mem<sbuf>>\n  func.return\n}\n"
    )
    for main in (mx_opt.main, mx_run.main):
        code, _, err = tool(capsys, main, f)
        assert_diagnostic(code, err, f"{f}:4:3: error: cannot parse this op: argument out of range")


def test_10_a_device_or_pipe_is_written_in_place_and_a_link_followed(tmp_path: Path) -> None:
    # `-o /dev/null` must never replace the device with a regular file
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_atomically(str(fifo), lambda stream: stream.write(b"whole"))
    reader.join(timeout=30)
    assert received == [b"whole"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    target = tmp_path / "target.mlir"
    target.write_text("old")
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    write_atomically(str(link), lambda stream: stream.write(b"new"))
    assert link.is_symlink()
    assert target.read_text() == "new"
