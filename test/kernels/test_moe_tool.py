"""mx-moe in process: the emitted kernel under mx-run gives the golden's answer, and bad
sizes/options are refused before any work."""

from __future__ import annotations

import io
import re

import dask
import ml_dtypes
import numpy as np
import pytest

from mxdsl.kernels.moe_cte import (
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
)
from mxdsl.kernels.moe_cte.reference import (
    golden_for,
    make_inputs,
    relative_error,
)
from mxdsl.tools import mx_moe, mx_run


def test_emitted_kernel_runs_under_mx_run(tmp_path, capsys):
    """An I-shard kernel run directly by mx-run (every HBM element race-checked, no
    exception for the padding row T: the scatters skip it, docs/moe-cte.md) gives
    ``mx-moe run``'s output bits, row T zero, and the golden's answer."""
    kernel_file, inputs_file, out_file = (tmp_path / n for n in ("k.mlir", "in.npz", "out.npz"))
    argv = ["emit", "--implementation", "shard_on_i", "--bias", "--seed", "3"]
    assert mx_moe.main([*argv, "-o", str(kernel_file), "--write-inputs", str(inputs_file)]) == 0
    assert kernel_file.read_text().count("oob_mode skip") >= 1
    capsys.readouterr()
    stdout = io.StringIO()
    code = mx_run.main(
        [str(kernel_file), "--cores", "2", "--inputs", str(inputs_file), "-o", str(out_file)],
        stdout,
    )
    assert code == 0, capsys.readouterr().err
    direct = np.load(out_file)["arg8"]  # the output [T+1, H]
    out_npz = tmp_path / "run.npz"
    run = ["run", "--implementation", "shard_on_i", "--bias", "--seed", "3", "--no-progress"]
    assert mx_moe.main([*run, "-o", str(out_npz)], io.StringIO()) == 0
    raw = np.load(out_npz)["output"]
    output = (raw.view(ml_dtypes.bfloat16) if raw.dtype == np.uint16 else raw).astype(np.float32)
    as_f32 = (direct.view(ml_dtypes.bfloat16) if direct.dtype == np.uint16 else direct).astype(
        np.float32
    )
    assert np.array_equal(as_f32.view(np.uint32), output.view(np.uint32))
    assert not output[100].any()  # the padding row: zeroed, never written after
    spec = MoECTESpec(MoECTEImplementation.shard_on_i)
    sizes = MoECTESizes(512, 256, 4, 100, 256, 2)
    options = MoECTEOptions(bias=True)
    golden = golden_for(spec, sizes, options, make_inputs(spec, sizes, options, seed=3))
    assert relative_error(output[:100], golden) < 1e-2


def test_run_reports_error_and_times():
    stdout = io.StringIO()
    assert mx_moe.main(["run", "--no-progress", "--top-k", "1"], stdout) == 0
    text = stdout.getvalue()
    assert "tolerance 0.01: ok" in text
    assert "kernel time" in text
    assert "golden time" in text
    # the run's totals: peak resident memory against the HBM arguments, ratio consistent
    found = re.search(
        r"peak resident memory ([0-9.e+-]+) GiB, ([0-9.]+) x "
        r"the HBM arguments \(([0-9.e+-]+) GiB\)",
        text,
    )
    assert found is not None
    peak, ratio, arguments = (float(g) for g in found.groups())
    assert peak > 0.05  # at least the interpreter and numpy are resident
    assert ratio == pytest.approx(peak / arguments, rel=1e-2)


def test_errors_before_work(capsys):
    assert mx_moe.main(["run", "--intermediate", "100"]) == 1
    assert "I = 100 must be a positive multiple of 16" in capsys.readouterr().err
    # issue 7 built the MX members; an MX-only size limit is still reported before work
    args = ["run", "--implementation", "shard_on_i_mx_hybrid", "--intermediate", "512"]
    assert mx_moe.main(args) == 1
    assert "multiple of 1024" in capsys.readouterr().err
    assert mx_moe.main(["run", "--clamp-up", "x,1"]) == 2
    assert mx_moe.main(["run", "--live-blocks", "2"]) == 1
    assert "shard_on_block_mx only" in capsys.readouterr().err


def test_a_negative_low_clamp_is_a_value_not_an_option():
    parser = mx_moe.build_arg_parser()
    argv = ["run", "--clamp-gate", "-7,7", "--clamp-up", "-0.5,", "--top-k", "1"]
    args = parser.parse_args(mx_moe.attach_clamp_values(argv))
    assert args.clamp_gate == (-7.0, 7.0)
    assert args.clamp_up == (-0.5, None)
    assert args.top_k == 1
    # only a clamp's own value is joined; a following option stays an option
    assert mx_moe.attach_clamp_values(["--clamp-gate", "--bias"]) == ["--clamp-gate", "--bias"]
    assert mx_moe.attach_clamp_values(["--", "--clamp-up", "-1,1"]) == ["--", "--clamp-up", "-1,1"]


def test_grid_fails_when_a_case_disagrees_with_its_golden(tmp_path, capsys):
    # a tolerance no bf16 kernel can meet, set in the grid's Dask workers (a worker
    # preload): every case is reported, then the grid fails
    preload = tmp_path / "strict_tolerance.py"
    preload.write_text(
        "from mxdsl.tools import moe_case\n"
        "moe_case.TOLERANCE = {'bf16': 1e-9, 'f32': 1e-5, 'mx': 1e-2}\n"
    )
    stdout = io.StringIO()
    argv = ["grid", "--implementations", "shard_on_i", "--activations", "silu"]
    argv += ["--scalings", "no_scale", "--top-ks", "1,2", "--dtypes", "bf16,f32"]
    with dask.config.set({"distributed.worker.preload": [str(preload)]}):
        assert mx_moe.main(argv, stdout) == 1
    rows = stdout.getvalue().splitlines()
    assert sum("FAILED" in row for row in rows) == 2  # the two bf16 cases
    assert sum(" ok " in row for row in rows) == 2  # the two f32 cases
    assert rows[-1] == "4 cases: 2 ok, 2 failed"
    assert "2 of 4 cases disagree with their golden or raised" in capsys.readouterr().err
