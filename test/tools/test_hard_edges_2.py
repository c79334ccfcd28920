"""Hard edges, round 2: nothing lost, nothing unbounded, a clean Ctrl-C. One test per
numbered case of the issue, each through the tool itself: the exit code, a one-line
message, no traceback, and the files before and after. What could take the machine
down on a regression (an archive bomb, an endless read) runs as a subprocess under a
cap on its address space."""

from __future__ import annotations

import io
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from numpy.lib import format as npy_format
from xdsl.dialects.builtin import Float32Type, TensorType

from mxdsl.tools import mx_moe, mx_opt, mx_run
from mxdsl.tools.mx_run import RunFailure, load_inputs
from mxdsl.tools.steps import estimate_steps

ROOT = Path(__file__).resolve().parents[2]
EXCHANGE = ROOT / "examples" / "nisa_exchange_2core.mlir"
MEMORY_CAP = 768 << 20
"""The address space a capped subprocess may use: the tools need about 400 MiB; the
bombs below claim 1 GiB and more."""

IDENTITY = (
    "func.func @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
    "  func.return %a : tensor<4x4xf32>\n}\n"
)
BF16_IDENTITY = IDENTITY.replace("f32", "bf16")


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def capped(*argv: str | Path, timeout: float = 120) -> tuple[int, str]:
    """A tool as a subprocess whose address space is capped: (exit code, stderr)."""
    done = subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        timeout=timeout,
        preexec_fn=_cap_memory,
    )
    return done.returncode, done.stderr.decode("utf-8", "replace")


def tool(capsys: pytest.CaptureFixture[str], main, *argv: str | Path) -> tuple[int, str]:  # noqa: ANN001
    """A tool's ``main`` in process: (exit code, stderr)."""
    if main is mx_opt.main:
        code = main([str(a) for a in argv])
    else:
        code = main([str(a) for a in argv], io.StringIO())
    return code, capsys.readouterr().err


def one_line(code: int, err: str, expected_code: int, *fragments: str) -> None:
    """``expected_code``, one line on stderr (a located diagnostic adds its source line
    and caret), no traceback, no internal error, and every fragment in it."""
    assert code == expected_code, err
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    lines = err.rstrip("\n").split("\n")
    assert len(lines) == 1 or (len(lines) == 3 and lines[2].strip() == "^"), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def listing(directory: Path) -> dict[str, bytes]:
    """Every file of ``directory`` with its bytes (hidden temporary files included)."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def write_npy_member(
    archive: zipfile.ZipFile, key: str, shape: tuple[int, ...], dtype: str, data: bytes
) -> None:
    """One ``KEY.npy`` member, deflated: a header saying ``shape`` / ``dtype``, then
    ``data`` (which need not be what the header says)."""
    with archive.open(f"{key}.npy", "w", force_zip64=True) as stream:
        header = {"descr": dtype, "fortran_order": False, "shape": shape}
        npy_format.write_array_header_1_0(stream, header)
        stream.write(data)


def bomb(path: Path, shape: tuple[int, ...], data_bytes: int) -> None:
    """An ``.npz`` whose ``arg0`` header says ``shape`` of float32, with ``data_bytes``
    zero bytes of data, compressed."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        write_npy_member(archive, "arg0", shape, "<f4", b"")
    if not data_bytes:
        return
    with (
        zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive,
        archive.open("arg0.npy", "w", force_zip64=True) as stream,
    ):
        header = {"descr": "<f4", "fortran_order": False, "shape": shape}
        npy_format.write_array_header_1_0(stream, header)
        zeros = bytes(1 << 20)
        left = data_bytes
        while left > 0:
            stream.write(zeros[: min(left, len(zeros))])
            left -= len(zeros)


# ------------------------------------------------ 1. sizes before bytes (.npz inputs)


def test_01_a_compressed_npz_bomb_is_refused_from_its_header(tmp_path: Path) -> None:
    program = tmp_path / "add.mlir"
    program.write_text(IDENTITY)
    # ~1 MB on disk, its header says 16384 x 16384 float32 (1 GiB), all of it there
    gib = tmp_path / "bomb.npz"
    bomb(gib, (16384, 16384), 16384 * 16384 * 4)
    assert gib.stat().st_size < 2 << 20
    # a 219-byte file whose header claims 4 TiB (the data is not there at all)
    tib = tmp_path / "tib.npz"
    bomb(tib, (1 << 20, 1 << 20), 1000)
    before = listing(tmp_path)
    for npz, shape in ((gib, "(16384, 16384)"), (tib, "(1048576, 1048576)")):
        for extra in ([], ["--max-memory", "256M"]):
            code, err = capped("mx-run", program, "--inputs", npz, *extra)
            one_line(code, err, 1, f"{program}:1:1: error:", f"got shape {shape} (float32)")
    assert listing(tmp_path) == before


def test_01_the_file_and_the_headers_are_checked_against_max_memory(tmp_path: Path) -> None:
    arg = TensorType(Float32Type(), [64, 64])
    plain, packed = tmp_path / "plain.npz", tmp_path / "packed.npz"
    np.savez(plain, arg0=np.ones((64, 64), np.float32))  # 16 KiB of data, a larger file
    np.savez_compressed(packed, arg0=np.ones((64, 64), np.float32))  # a small file
    assert packed.stat().st_size < 10_000 < 16 << 10 < plain.stat().st_size
    with pytest.raises(RunFailure, match=r"the file is 1.5\de-05 GiB, more than --max-memory"):
        load_inputs(str(plain), [arg], "main", budget=10_000)
    with pytest.raises(RunFailure, match=r"need 1.53e-05 GiB but --max-memory allows 9.31e-06"):
        load_inputs(str(packed), [arg], "main", budget=10_000)
    for npz in (plain, packed):
        (value,) = load_inputs(str(npz), [arg], "main", budget=20 << 10)
        np.testing.assert_array_equal(value, np.ones((64, 64), np.float32))


def test_01_member_data_is_read_exactly_as_its_header_says(tmp_path: Path, capsys) -> None:
    program = tmp_path / "add.mlir"
    program.write_text(IDENTITY)
    data = np.arange(16, dtype=np.float32).tobytes()
    cases = {
        "short": (data[:40], "arg0 is shorter than its header declares: 40 of 64 bytes"),
        "long": (data + data, "arg0 in"),
    }
    for name, (payload, message) in cases.items():
        npz = tmp_path / f"{name}.npz"
        with zipfile.ZipFile(npz, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            write_npy_member(archive, "arg0", (4, 4), "<f4", payload)
        code, err = tool(capsys, mx_run.main, program, "--inputs", npz)
        one_line(code, err, 1, message)
    code, err = tool(capsys, mx_run.main, program, "--inputs", tmp_path / "long.npz")
    assert "holds more data than its header declares" in err
    # compressed or not, big-endian or not, the same values
    out = tmp_path / "out.npz"
    value = np.arange(16, dtype=np.float32).reshape(4, 4)
    for saved in (
        lambda p: np.savez_compressed(p, arg0=value),
        lambda p: np.savez(p, arg0=value.astype(">f4")),
        lambda p: np.savez(p, arg0=np.asfortranarray(value)),
    ):
        npz = tmp_path / "good.npz"
        saved(npz)
        code, err = tool(capsys, mx_run.main, program, "--inputs", npz, "-o", out, "--quiet")
        assert (code, err) == (0, "")
        np.testing.assert_array_equal(np.load(out)["result0"], value)


# --------------------------------------------------------- 2. program text is bounded


def test_02_program_text_is_read_within_a_bound(tmp_path: Path) -> None:
    out = tmp_path / "z.mlir"
    code, err = capped("mx-run", "/dev/zero")
    one_line(code, err, 1, "cannot read '/dev/zero': it holds more than 256 MiB")
    code, err = capped("mx-opt", "/dev/zero", "-o", out)
    one_line(code, err, 1, "cannot read '/dev/zero': it holds more than 256 MiB")
    # a regular file is refused by its size, before a byte of it is read (sparse: no disk)
    big = tmp_path / "big.mlir"
    with open(big, "wb") as stream:
        stream.truncate(300 << 20)
    code, err = capped("mx-opt", big, "-o", out)
    one_line(code, err, 1, f"cannot read '{big}': it is 300 MiB, more than 256 MiB")
    code, err = capped("mx-run", big, "--max-memory", "1M")
    one_line(code, err, 1, "it is 300 MiB, more than --max-memory (1 MiB)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.mlir"]


# ------------------------------------------------------- 3. no output may name an input


def test_03_an_output_that_names_an_input_is_refused(tmp_path: Path, capsys) -> None:
    program = tmp_path / "x.mlir"
    program.write_text(IDENTITY)
    npz = tmp_path / "in.npz"
    np.savez(npz, arg0=np.ones((4, 4), np.float32))
    (tmp_path / "link.mlir").symlink_to(program)
    os.link(program, tmp_path / "hard.mlir")
    before = listing(tmp_path)
    for name in ("x.mlir", "link.mlir", "hard.mlir"):
        code, err = tool(
            capsys, mx_run.main, program, "--random-inputs", "0", "-o", tmp_path / name
        )
        one_line(code, err, 1, f"-o '{tmp_path / name}' names the input file '{program}'")
        code, err = tool(capsys, mx_opt.main, program, "-o", tmp_path / name)
        one_line(code, err, 1, "the output would overwrite the input; name another file")
    code, err = tool(capsys, mx_run.main, program, "--inputs", npz, "-o", npz)
    one_line(code, err, 1, f"-o '{npz}' names the --inputs '{npz}'")
    same = tmp_path / "same.npz"
    code, err = tool(capsys, mx_moe.main, "emit", "-o", same, "--write-inputs", same)
    one_line(code, err, 1, "-o", "--write-inputs", "name the same file")
    assert listing(tmp_path) == before


# ----------------------------------------------------------- 4 and 5. signals end cleanly


def _signal_when(argv: list[str], signum: int, ready: str, cwd: Path) -> tuple[int, str]:
    """Start ``argv``, wait for ``ready`` on its stderr or stdout (the run is under way),
    send ``signum``: (exit code, the rest of stderr)."""
    run = subprocess.Popen(
        argv,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert run.stdout is not None
    assert run.stderr is not None
    stream = run.stderr if ready.startswith("stderr:") else run.stdout
    line = stream.readline()
    assert ready.split(":", 1)[1] in line, line
    run.send_signal(signum)
    err = run.stderr.read()
    run.stdout.read()
    return run.wait(timeout=120), err


ENDLESS = textwrap.dedent(
    """\
    func.func @main() -> i64 {
      %lb = arith.constant 0 : index
      %ub = arith.constant 1000000000000 : index
      %st = arith.constant 1 : index
      %z = arith.constant 0 : i64
      %one = arith.constant 1 : i64
      %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %z) -> (i64) {
        %n = arith.addi %acc, %one : i64
        scf.yield %n : i64
      }
      func.return %r : i64
    }
    """
)


def test_04_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    endless = tmp_path / "endless.mlir"
    endless.write_text(ENDLESS)
    out = tmp_path / "out.npz"
    out.write_bytes(b"old")
    before = listing(tmp_path)
    argv = ["mx-run", str(endless), "--max-steps", "0", "-o", str(out)]
    code, err = _signal_when(argv, signal.SIGINT, "stderr:mx-run: note: the run will", tmp_path)
    assert (code, err) == (130, "mx-run: interrupted\n")
    argv = ["mx-moe", "run", "--tokens", "2000", "--no-progress", "-o", str(out)]
    code, err = _signal_when(argv, signal.SIGINT, "stdout:shard_on_block: H=512", tmp_path)
    assert (code, err) == (130, "mx-moe: interrupted\n")
    assert listing(tmp_path) == before


def handlers_installed(pid: int, timeout: float = 120) -> None:
    """Wait until process ``pid`` catches SIGTERM (``SigCgt`` in ``/proc``): the command
    has started running mxdsl's code (before that, Python itself is starting up, and a
    signal ends it as it ends any process that has run nothing yet)."""
    status = Path(f"/proc/{pid}/status")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        caught = next(
            (
                line.split()[1]
                for line in status.read_text().splitlines()
                if line.startswith("SigCgt:")
            ),
            "0",
        )
        if int(caught, 16) >> (signal.SIGTERM - 1) & 1:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} never installed its signal handlers")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_04_a_signal_at_any_moment_leaves_nothing(tmp_path: Path) -> None:
    """Whatever the command is doing when the signal comes (loading numpy and xDSL,
    parsing, verifying, printing, writing), the answer is the same: one line, 130 or
    143, the old output untouched, no temporary file."""
    program = tmp_path / "big.mlir"
    lines = [f"  %v{i} = arith.addi %v{i - 1}, %v{i - 1} : i32" for i in range(1, 20000)]
    program.write_text(
        "func.func @f(%v0: i32) -> i32 {\n"
        + "\n".join(lines)
        + "\n  func.return %v19999 : i32\n}\n"
    )
    out = tmp_path / "out.mlir"
    out.write_text("old")
    before = listing(tmp_path)
    for delay in (0.0, 0.3, 1.0, 2.5):
        for signum, code, what in (
            (signal.SIGINT, 130, "interrupted"),
            (signal.SIGTERM, 143, "terminated"),
        ):
            run = subprocess.Popen(
                ["mx-opt", str(program), "-o", str(out)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            handlers_installed(run.pid)
            try:
                run.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                run.send_signal(signum)
            _, err = run.communicate(timeout=120)
            if run.returncode == 0:  # finished before the signal: a whole output
                assert "func.func @f" in out.read_text()
                out.write_text("old")
                continue
            assert (run.returncode, err) == (code, f"mx-opt: {what}\n")
            assert listing(tmp_path) == before


SIGNAL_DURING_WRITE = """
import os, signal, sys
from mxdsl.tools import mx_moe, command

real = mx_moe.savez

def savez(stream, arrays):
    stream.write(b"partial")
    os.kill(os.getpid(), signal.{signal})
    real(stream, arrays)

mx_moe.savez = savez
sys.argv = ["mx-moe", "run", "--tokens", "20", "--top-k", "1", "--no-progress", "-o", {out!r}]
command.mx_moe()
"""


@pytest.mark.parametrize(
    ("name", "code", "what"), [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")]
)
def test_05_a_signal_during_the_write_leaves_no_temporary_file(
    name: str, code: int, what: str, tmp_path: Path
) -> None:
    out = tmp_path / "result.moe.npz"
    out.write_bytes(b"old")
    script = SIGNAL_DURING_WRITE.format(signal=name, out=str(out))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert (done.returncode, done.stderr) == (code, f"mx-moe: {what}\n")
    assert listing(tmp_path) == {"result.moe.npz": b"old"}


# ---------------------------------------------------------- 6. a bound on interpretation


WHILE_TRUE = textwrap.dedent(
    """\
    func.func @main() -> i64 {
      %z = arith.constant 0 : i64
      %one = arith.constant 1 : i64
      %t = arith.constant true
      %r = scf.while (%acc = %z) : (i64) -> i64 {
        scf.condition(%t) %acc : i64
      } do {
      ^bb0(%a: i64):
        %n = arith.addi %a, %one : i64
        scf.yield %n : i64
      }
      func.return %r : i64
    }
    """
)

COUNTED = textwrap.dedent(
    """\
    func.func @main() -> i64 {
      %lb = arith.constant 0 : index
      %c5 = arith.constant 5 : index
      %ub = arith.addi %c5, %c5 : index
      %st = arith.constant 1 : index
      %z = arith.constant 0 : i64
      %one = arith.constant 1 : i64
      %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %z) -> (i64) {
        %n = arith.addi %acc, %one : i64
        scf.yield %n : i64
      }
      func.return %r : i64
    }
    """
)


def test_06_max_steps_ends_an_endless_loop_at_its_op(tmp_path: Path, capsys) -> None:
    program = tmp_path / "while.mlir"
    program.write_text(WHILE_TRUE)
    code, err = tool(capsys, mx_run.main, program, "--max-steps", "1000", "-o", tmp_path / "o.npz")
    one_line(
        code,
        err,
        1,
        f"{program}:6:5: error: 'scf.condition' op --max-steps 1000: the run has interpreted "
        "1000 ops",
        f"inside the scf.while at {program}:5:3",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["while.mlir"]


def test_06_steps_are_counted_op_by_op(tmp_path: Path, capsys) -> None:
    """6 ops before the loop, the scf.for, 10 x (addi, yield), func.return: 28 steps,
    through the nisa loop engine (the loop's bound is not a constant: no estimate)."""
    program = tmp_path / "counted.mlir"
    program.write_text(COUNTED)
    code, err = tool(capsys, mx_run.main, program, "--max-steps", "28", "--quiet")
    assert (code, err) == (0, "")
    code, err = tool(capsys, mx_run.main, program, "--max-steps", "27")
    one_line(code, err, 1, f"{program}:12:3: error: 'func.return' op --max-steps 27")
    # step 22 is the 8th iteration's addi
    code, err = tool(capsys, mx_run.main, program, "--max-steps", "21")
    one_line(code, err, 1, f"{program}:9:5: error: 'arith.addi' op --max-steps 21")
    assert f"inside the scf.for at {program}:8:3" in err


def test_06_constant_loops_are_estimated_before_the_run(tmp_path: Path, capsys) -> None:
    program = tmp_path / "endless.mlir"
    program.write_text(ENDLESS)
    code, err = tool(capsys, mx_run.main, program)  # the default bound: 10^9
    one_line(
        code,
        err,
        1,
        f"{program}:7:3: error: 'scf.for' op the run would interpret at least "
        "2,000,000,000,007 ops; this scf.for runs 1,000,000,000,000 times, more than "
        "--max-steps 1,000,000,000",
    )
    counted = tmp_path / "constant.mlir"
    counted.write_text(
        COUNTED.replace("%ub = arith.addi %c5, %c5 : index", "%ub = arith.constant 10 : index")
    )
    module, _ = mx_run.parse_located(mx_run._context(), counted.read_text(), "x")  # pyright: ignore[reportPrivateUsage]
    function = next(op for op in module.walk() if op.name == "func.func")
    estimate = estimate_steps(module, function)
    assert (estimate.steps, estimate.trips) == (28, 10)  # exact here: no branches
    code, err = tool(capsys, mx_run.main, counted, "--max-steps", "27")
    one_line(code, err, 1, "'scf.for' op the run would interpret at least 28 ops")


def test_06_the_bound_counts_every_core(tmp_path: Path, capsys) -> None:
    argv = (EXCHANGE, "--cores", "2", "--random-inputs", "0", "--quiet")
    code, err = tool(capsys, mx_run.main, *argv)
    assert (code, err) == (0, "")
    module, _ = mx_run.parse_located(mx_run._context(), EXCHANGE.read_text(), "x")  # pyright: ignore[reportPrivateUsage]
    function = next(op for op in module.walk() if op.name == "func.func")
    per_core = estimate_steps(module, function).steps  # no loops: exact
    code, err = tool(capsys, mx_run.main, *argv, "--max-steps", str(2 * per_core))
    assert (code, err) == (0, "")
    code, err = tool(capsys, mx_run.main, *argv, "--max-steps", str(2 * per_core - 1))
    one_line(code, err, 1, f"the run would interpret at least {2 * per_core} ops")
    # at run time: per core 5 ops, the scf.for, 10 x scf.yield, func.return = 17
    program = tmp_path / "spmd.mlir"
    program.write_text(SPMD_LOOP)
    code, err = tool(capsys, mx_run.main, program, "--cores", "2", "--max-steps", "34", "--quiet")
    assert (code, err) == (0, "")
    code, err = tool(capsys, mx_run.main, program, "--cores", "2", "--max-steps", "33")
    one_line(code, err, 1, "error: 'func.return' op core ", ": --max-steps 33: the run has")


SPMD_LOOP = textwrap.dedent(
    """\
    func.func @main() -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      %r = nisa.program_id
      %ub = arith.addi %c5, %c5 : index
      scf.for %i = %c0 to %ub step %c1 {
        scf.yield
      }
      func.return %r : index
    }
    """
)


# ----------------------------------------------------------- 7. numbers beyond int64


def test_07_sizes_are_range_checked_before_use(capsys) -> None:
    for sub in ("run", "grid", "emit"):
        code, err = tool(capsys, mx_moe.main, sub, "--tokens", "99999999999999999999")
        assert code == 2
        assert "argument --tokens: expected an integer in 1..2147483647" in err
        assert "i64" not in err
    code, err = tool(capsys, mx_moe.main, "run", "--tokens", "2147483647")
    one_line(code, err, 1, "a run at these sizes needs about", "--max-memory")
    code, err = tool(capsys, mx_moe.main, "grid", "--top-ks", "1,99999999999999999999")
    assert code == 2
    assert "expected integers in 1..2147483647" in err


# ------------------------------------------------------------ 8. every message ours


def test_08_broken_npz_files_are_said_in_our_words(tmp_path: Path, capsys) -> None:
    program = tmp_path / "add.mlir"
    program.write_text(IDENTITY)
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    whole = tmp_path / "whole.npz"
    np.savez(whole, arg0=np.ones((4, 4), np.float32))
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(whole.read_bytes()[:200])
    objects = tmp_path / "objects.npz"
    np.savez(objects, arg0=np.array([[1, "a"]] * 4, dtype=object))
    tib = tmp_path / "tib.npz"
    bomb(tib, (1 << 20, 1 << 20), 0)
    cases = {
        empty: "cannot read inputs '{}': the file is empty",
        truncated: "cannot read inputs '{}': the archive is damaged or truncated",
        objects: "arg0 in '{}' holds Python objects (dtype object), which are not loaded",
        tib: "got shape (1048576, 1048576) (float32)",
    }
    for npz, message in cases.items():
        code, err = tool(capsys, mx_run.main, program, "--inputs", npz)
        one_line(code, err, 1, message.format(npz))
        for numpy_words in (
            "No data left",
            "File is not a zip file",
            "allow_pickle",
            "Unable to allocate",
        ):
            assert numpy_words not in err
    # a structured dtype of bf16's width is not bf16 bits
    bf16 = tmp_path / "bf16.mlir"
    bf16.write_text(BF16_IDENTITY)
    structured = tmp_path / "structured.npz"
    np.savez(structured, arg0=np.zeros((4, 4), [("x", "<u2")]))
    code, err = tool(capsys, mx_run.main, bf16, "--inputs", structured)
    one_line(code, err, 1, "arg0 in", "has the structured dtype [('x', '<u2')]")
    raw = tmp_path / "raw.npz"
    np.savez(raw, arg0=np.ones((4, 4), ml_dtypes.bfloat16))  # stored as |V2: accepted
    code, err = tool(capsys, mx_run.main, bf16, "--inputs", raw, "--quiet")
    assert (code, err) == (0, "")


RECURSIVE = (
    "func.func @main() -> i32 {\n  %r = func.call @main() : () -> i32\n  func.return %r : i32\n}\n"
)


EXTERNAL_CALL = (
    "func.func private @ext() -> i32\n"
    "func.func @main() -> i32 {\n  %r = func.call @ext() : () -> i32\n  func.return %r : i32\n}\n"
)
"""A program whose interpretation fails at once (the callee has no body): the variables
are read by the launched commands, so each case is a process; a fast failure keeps them
cheap (the deep-recursion diagnostic is tested in process, above)."""


def test_08_environment_variables_are_validated(tmp_path: Path) -> None:
    program = tmp_path / "ext.mlir"
    program.write_text(EXTERNAL_CALL)
    env = dict(os.environ)
    for setting in ("0", "", "false"):  # off: our one-line diagnostic
        done = subprocess.run(
            ["mx-run", str(program)],
            capture_output=True,
            text=True,
            env={**env, "MXDSL_TRACEBACK": setting},
        )
        one_line(done.returncode, done.stderr, 1, "Could not find external function")
    done = subprocess.run(
        ["mx-run", str(program)],
        capture_output=True,
        text=True,
        env={**env, "MXDSL_TRACEBACK": "1"},
    )
    assert "Traceback" in done.stderr  # on: the traceback
    for tool_argv in (["mx-run", str(program)], ["mx-opt", str(program)], ["mx-moe", "emit"]):
        for variable, value in (("MXDSL_TRACEBACK", "maybe"), ("MXDSL_QUANTIZE_THREADS", "abc")):
            done = subprocess.run(
                tool_argv, capture_output=True, text=True, env={**env, variable: value}
            )
            one_line(done.returncode, done.stderr, 2, f"{variable}={value!r}: expected")
            assert done.stdout == ""


def test_08_options_and_names_are_checked_before_use(tmp_path: Path, capsys) -> None:
    for clamp, message in (
        ("nan,inf", "expected finite limits LO,HI"),
        ("-inf,7", "expected finite limits LO,HI"),
        ("7,-7", "expected LO <= HI, got '7,-7'"),
    ):
        code, err = tool(capsys, mx_moe.main, "run", "--clamp-gate", clamp)
        assert code == 2
        assert message in err
    program = tmp_path / "x.mlir"
    program.write_text(IDENTITY)
    before = listing(tmp_path)
    for main, argv in (
        (mx_run.main, [program, "--random-inputs", "0", "-o", ""]),
        (mx_opt.main, [program, "-o", ""]),
        (mx_moe.main, ["emit", "-o", ""]),
        (mx_moe.main, ["emit", "--write-inputs", ""]),
        (mx_moe.main, ["run", "-o", ""]),
    ):
        code, err = tool(capsys, main, *argv)
        one_line(code, err, 1, "cannot write output '': an empty file name; name a file")
    assert listing(tmp_path) == before
    for size in ("inf", "nan", "-1"):
        code, err = tool(capsys, mx_run.main, program, "--max-memory", size)
        assert code == 2
        assert "expected a size >= 0 such as 8G or 512M" in err


def test_08_a_recursive_call_is_named_as_such(tmp_path: Path, capsys) -> None:
    program = tmp_path / "rec.mlir"
    program.write_text(RECURSIVE)
    code, err = tool(capsys, mx_run.main, program)
    one_line(
        code,
        err,
        1,
        f"{program}:2:3: error: 'func.call' op calls nest deeper",
        "@main calls itself",
    )
    assert "upstream" not in err
