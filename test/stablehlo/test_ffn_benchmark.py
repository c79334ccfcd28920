"""``benchmarks/ffn_layer.py --small`` runs from a clean checkout: it lowers the JAX-written
SwiGLU MXFP8 FFN, runs it at nisa, bir and the StableHLO level (the same bits), and
reports the times beside the PE floor and the dense golden with consistent ratios; the
kernel is near the unquantized golden (MXFP8's error, well under 20 %). The speed
figures themselves are not asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "ffn_layer.py"


def test_small_ffn_reports_times_floor_and_golden() -> None:
    run = subprocess.run(
        [sys.executable, str(BENCHMARK), "--small", "--bir", "--stablehlo"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("load average: ")
    assert lines[-1].startswith("load average at the end: ")
    head, values = lines[1].split(), lines[2].split()
    row = dict(zip(head, values, strict=True))
    assert (row["T"], row["H"], row["I"]) == ("8", "32", "64")
    assert row["bir_same"] == "True"
    assert row["shlo_same"] == "True"  # the StableHLO level's bits
    assert 0 < int(row["ops"]) < 10_000  # interpreted ops: the small layer's tiles
    assert lines[-2].startswith("output sha256: ")
    assert len(lines[-2].split()[-1]) == 64
    nisa, floor, golden = (float(row[k]) for k in ("nisa_s", "floor_s", "golden_s"))
    assert abs(float(row["nisa/floor"]) - nisa / floor) <= 1e-3 * nisa / floor
    assert abs(float(row["nisa/golden"]) - nisa / golden) <= 1e-3 * nisa / golden
    assert float(row["lower_s"]) > 0
    assert 0 < float(row["rel_err"]) < 0.2
