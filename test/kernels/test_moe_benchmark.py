"""``benchmarks/moe_cte.py`` runs from a clean checkout: at small sizes every requested
variant gets a row whose error is within the bf16 bound and whose times are consistent
with its ratios (the speed figures themselves live in docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "moe_cte.py"
SMALL = [
    "--hidden", "512", "--intermediate", "1024", "--experts", "4",
    "--tokens", "60", "--block-size", "256", "--top-k", "2",
]  # fmt: skip


def test_every_variant_reports_error_ratio_and_pe_floor() -> None:
    variants = ["shard_on_block", "shard_on_i_dropping", "shard_on_i_mx"]
    run = subprocess.run(
        [sys.executable, str(BENCHMARK), *SMALL, "--variants", ",".join(variants), "--reference"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "load average: " in lines[0]
    assert lines[1].split() == [
        "variant", "N", "B", "kernel_s", "floor_s", "kernel/floor", "in_turn_s",
        "par/in-turn", "cpu_par/in-turn", "race_check", "cpu_core/in-turn", "golden_s",
        "kernel/golden", "floor/golden", "cpu_kernel_s", "cpu_floor_s", "cpu_kernel/floor",
        "cpu_golden_s", "cpu_kernel/golden", "cpu_pe_s", "cpu_pe/floor", "rel_err",
        "exact-path/outputs", "ref_kernel_s", "ref/kernel", "same",
    ]  # fmt: skip
    rows = [line.split() for line in lines[2:-1]]
    assert lines[-1].startswith("load average at the end: ")
    assert [row[0] for row in rows] == variants
    for row in rows:
        name, _, _, kernel, floor, over_floor, in_turn, par_ratio, _, check, core, *times = row
        assert 0 < float(core) < 1.5, name  # the busier core's share of the in-turn CPU time
        golden, ratio, floor_ratio, *cpu = times
        assert float(in_turn) > 0, name
        assert check.endswith("%"), name
        assert _printed_ratio(par_ratio, float(kernel), 0.005, float(in_turn), 0.005), name
        cpu_kernel, cpu_floor, cpu_over_floor, cpu_golden, cpu_ratio, *rest = cpu
        cpu_pe, pe_over_floor, error, exact, reference, _, same = rest
        assert float(reference) > 0, name
        assert same == "yes", name  # the reference mode's output bits are the fast path's
        assert float(error) < 1e-2, name
        exact_outputs, pe_outputs = (int(n) for n in exact.split("/"))
        assert 0 <= exact_outputs <= pe_outputs, name
        assert pe_outputs > 0, name
        k, g, f = float(kernel), float(golden), float(floor)
        assert min(k, g, f) > 0, name
        assert _printed_ratio(over_floor, k, 0.005, f, 0.0005), name
        assert _printed_ratio(ratio, k, 0.005, g, 0.0005), name
        assert _printed_ratio(floor_ratio, f, 0.0005, g, 0.0005), name
        k, g, f = float(cpu_kernel), float(cpu_golden), float(cpu_floor)
        assert min(k, g, f) > 0, name
        assert _printed_ratio(cpu_over_floor, k, 0.005, f, 0.0005), name
        assert _printed_ratio(cpu_ratio, k, 0.005, g, 0.0005), name
        # the PE passes run inside the kernel run: a part of its CPU time
        assert 0 < float(cpu_pe) <= k + 0.01, name
        assert _printed_ratio(pe_over_floor, float(cpu_pe), 0.005, f, 0.0005), name


def _printed_ratio(printed: str, num: float, num_error: float, den: float, den_error: float):
    """Whether ``printed`` (2 decimals) is num / den for some values within the rounding
    errors of the printed num and den."""
    low = (num - num_error) / (den + den_error)
    high = (num + num_error) / max(den - den_error, 1e-9)
    return low - 0.005 <= float(printed) <= high + 0.005


def test_an_unknown_variant_is_a_usage_error_before_any_work():
    run = subprocess.run(
        [sys.executable, str(BENCHMARK), *SMALL, "--variants", "shard_on_block,nope"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 2
    assert "unknown variant(s) nope; choose from shard_on_block" in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout == ""
