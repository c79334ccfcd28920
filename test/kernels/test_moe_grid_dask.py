"""``mx-moe grid`` on Dask (mxdsl/tools/moe_grid.py): the embedded local cluster and an
external one give the same rows as the same cases run one by one in this process; a case
that raises and a case whose worker dies are recorded and the others finish; a second run
with the same ``--results`` skips the cases that have a verdict and reruns the others.

Small cases (H 512, I 256, E 4, T 40): each grid is mostly the cluster's start-up."""

from __future__ import annotations

import io
import json
import math
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import dask
import distributed  # noqa: F401  # its config defaults loaded before any dask.config.set
import pytest

from mxdsl.tools import mx_moe
from mxdsl.tools.moe_grid import COLUMN_NAMES, execute_case

GRID = [
    "grid",
    "--implementations",
    "shard_on_i",
    "--activations",
    "silu",
    "--scalings",
    "post_scale",
    "--dtypes",
    "bf16",
    "--tokens",
    "40",
    "--no-progress",
]

COMPARED = ("key", "variant", "top_k", "status", "output_hash", "error")
"""Compared exactly: the kernel's output bits (``output_hash``) do not depend on where a
case runs. ``rel_error`` is compared to 1e-4 relative: it is measured against the
float32 golden, whose BLAS matmuls sum in an order that depends on the BLAS thread count
(a Dask worker process runs one BLAS thread, this process may run several). A golden
element moved by a few float32 ulps (2^-24 relative) moves an error of about 3e-3 by
about 2^-24 / 3e-3 = 2e-5 of itself."""


def stored(path: Path) -> dict[str, dict]:
    """The rows of a results file, read with plain sqlite3."""
    with sqlite3.connect(path) as db:
        cursor = db.execute("SELECT * FROM cases")
        names = [column[0] for column in cursor.description]
        return {row[0]: dict(zip(names, row, strict=True)) for row in cursor}


def one_by_one(argv: list[str]) -> dict[str, dict]:
    """The same cases, each run in this process (no Dask)."""
    args = mx_moe.build_arg_parser().parse_args(argv)
    cases, _ = mx_moe.grid_cases(args)
    return {case.key: execute_case(case) for case in cases}


def grid(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = mx_moe.main(argv, out)
    return code, out.getvalue()


def same_rows(found: dict[str, dict], expected: dict[str, dict]) -> None:
    assert found.keys() == expected.keys()
    for key, row in expected.items():
        assert {c: found[key][c] for c in COMPARED} == {c: row[c] for c in COMPARED}
        if row["rel_error"] is None:
            assert found[key]["rel_error"] is None
        else:
            assert math.isclose(found[key]["rel_error"], row["rel_error"], rel_tol=1e-4)


def test_the_local_cluster_gives_the_rows_of_one_by_one_runs(tmp_path: Path) -> None:
    argv = [*GRID, "--top-ks", "1,2", "--results", str(tmp_path / "grid.db")]
    code, text = grid([*argv, "--summary", str(tmp_path / "summary.png")])
    assert code == 0, text
    rows = stored(tmp_path / "grid.db")
    assert tuple(next(iter(rows.values()))) == COLUMN_NAMES
    expected = one_by_one(argv)
    same_rows(rows, expected)
    assert {row["status"] for row in rows.values()} == {"ok"}
    assert len({row["output_hash"] for row in rows.values()}) == 2  # TopK changes the output
    for row in rows.values():
        assert row["worker"].startswith("tcp://127.0.0.1:")  # ran in a worker process
        assert row["peak_bytes"] > 0
        assert row["memory_estimate"] > 0
        assert row["kernel_s"] > 0
        assert row["golden_s"] > 0
    assert "2 cases: 2 ok, 0 failed" in text
    assert re.search(r"^shard_on_i +2 +2 +0 +0 ", text, re.M)  # the --summary table
    assert (tmp_path / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


INJECT = """
import os
import re
from mxdsl.tools import moe_case

original = getattr(moe_case.check, "original", moe_case.check)  # preloaded more than once


def check(kernel, inputs, progress, *settings, **named):
    if kernel.sizes.top_k == 2:
        raise RuntimeError("injected failure")
    if kernel.sizes.top_k == 3:
        os._exit(9)  # the worker process dies
    return original(kernel, inputs, progress, *settings, **named)


check.original = original
moe_case.check = check
"""


def test_failures_are_recorded_and_a_second_run_resumes(tmp_path: Path) -> None:
    results = tmp_path / "grid.db"
    argv = [*GRID, "--top-ks", "1,2,3", "--results", str(results)]
    inject = tmp_path / "inject_failures.py"
    inject.write_text(INJECT)
    # the workers (not this process) import the injection: Dask's worker preload
    with dask.config.set({"distributed.worker.preload": [str(inject)]}):
        code, text = grid(argv)
    assert code == 1
    rows = {row["top_k"]: row for row in stored(results).values()}
    assert rows[1]["status"] == "ok"
    assert rows[2]["status"] == "error"
    assert rows[2]["error"] == "RuntimeError: injected failure"
    assert rows[3]["status"] == "error"
    assert rows[3]["error"].startswith("lost worker:")
    assert "3 cases: 1 ok, 0 failed, 2 with no verdict" in text
    assert "ERROR" in text
    assert "injected failure" in text
    first = rows[1]

    # again, without the injection: the finished case is kept, the two others rerun
    code, text = grid(argv)
    assert code == 0, text
    again = {row["top_k"]: row for row in stored(results).values()}
    assert again[1] == first  # not run again: the same row, worker and time
    assert again[2]["status"] == again[3]["status"] == "ok"
    same_rows(stored(results), one_by_one(argv))


def start(command: list[str], log: Path) -> subprocess.Popen:
    """A process in its own session (so it and its children can be ended together)."""
    with open(log, "w") as stream:
        return subprocess.Popen(
            command, stdout=stream, stderr=subprocess.STDOUT, start_new_session=True
        )


def wait_for(path: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() or not path.read_text().strip():
        assert time.monotonic() < deadline, f"{path} not written in {seconds} s"
        time.sleep(0.2)


def test_an_external_cluster_gives_the_same_rows(tmp_path: Path) -> None:
    scheduler_file = tmp_path / "scheduler.json"
    dask_cli = [sys.executable, "-m", "dask"]
    processes = [
        start(
            [
                *dask_cli,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(scheduler_file),
            ],
            tmp_path / "scheduler.log",
        )
    ]
    try:
        wait_for(scheduler_file, 60)
        address = json.loads(scheduler_file.read_text())["address"]
        for n in range(2):
            worker = [
                *dask_cli,
                "worker",
                address,
                "--host",
                "127.0.0.1",
                "--nthreads",
                "1",
                "--no-dashboard",
                "--resources",
                "MEMORY=4e9,CASES=1",
                "--memory-limit",
                "4GB",
            ]
            processes.append(start(worker, tmp_path / f"worker{n}.log"))
        argv = [*GRID, "--top-ks", "1,2", "--results", str(tmp_path / "grid.db")]
        code, text = grid([*argv, "--scheduler", address, "--connect-timeout", "60"])
        assert code == 0, text
        rows = stored(tmp_path / "grid.db")
        same_rows(rows, one_by_one(argv))
        assert all(row["worker"].startswith("tcp://127.0.0.1:") for row in rows.values())
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=20)


def test_an_unreachable_scheduler_is_one_line_and_exit_1(capsys) -> None:
    # port 1 on the loopback: nothing listens there
    start_time = time.monotonic()
    code, text = grid([*GRID, "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "2"])
    assert code == 1
    assert time.monotonic() - start_time < 30
    assert text == ""  # no table before the cluster is reached
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("mx-moe: error: cannot reach the Dask scheduler at tcp://127.0.0.1:1")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--scheduler", "127.0.0.1:8786"], "expected an address such as tcp://HOST:8786"),
        (["--scheduler", "tcp://127.0.0.1:1", "--workers", "2"], "--workers sizes the local"),
    ],
)
def test_bad_cluster_options_are_refused_before_any_work(capsys, extra, message) -> None:
    code, text = grid([*GRID, *extra])
    assert code == 1
    assert text == ""
    assert message in capsys.readouterr().err


def test_a_results_file_of_another_kind_is_refused(tmp_path: Path, capsys) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE cases (name TEXT)")
    code, _ = grid([*GRID, "--results", str(other)])
    assert code == 1
    assert "has other columns than mx-moe grid writes" in capsys.readouterr().err
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a database\n" * 100)
    code, _ = grid([*GRID, "--results", str(text_file)])
    assert code == 1
    assert "not a results database of mx-moe grid" in capsys.readouterr().err


def test_a_closed_stdout_ends_the_grid_quietly_with_exit_0(tmp_path: Path) -> None:
    argv = [*GRID, "--top-ks", "1,2", "--workers", "1", "--results", str(tmp_path / "grid.db")]
    tool = Path(sys.executable).parent / "mx-moe"
    pipeline = f"{tool} {' '.join(argv)} | head -1"
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {pipeline}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("grid: H=512 E=4 T=40, 2 cases")
    assert "Traceback" not in done.stderr
    assert "error" not in done.stderr


def test_ctrl_c_stops_the_grid_and_keeps_the_finished_rows(tmp_path: Path) -> None:
    """SIGINT to the whole process group (as Ctrl-C at a terminal): the workers leave it
    to mx-moe, which cancels the rest and says how to resume; no traceback."""
    results = tmp_path / "grid.db"
    # the later --activations wins: 3 x 3 cases
    argv = [*GRID, "--activations", "silu,gelu,swish", "--top-ks", "1,2,3", "--results"]
    tool = Path(sys.executable).parent / "mx-moe"
    run = subprocess.Popen(
        [str(tool), *argv, str(results)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 240
        while not (results.exists() and stored(results)):
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "no case finished in 240 s"
            time.sleep(0.2)
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(timeout=20)
    assert run.returncode == 1
    assert "Traceback" not in err
    kept = stored(results)
    assert 1 <= len(kept) < 9
    assert err.rstrip().endswith(
        f"mx-moe: error: interrupted: {len(kept)} of 9 cases finished, kept in {results}: "
        "run the same command to resume"
    )
    assert out.startswith("grid: H=512 E=4 T=40, 9 cases")
