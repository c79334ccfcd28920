"""``benchmarks/blas_order.py``: its sequential fold is the K-order fp32 sum (checked on a
sum whose rounding depends on the order, worked out by hand), and it runs from a clean
checkout."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np

PROBE = Path(__file__).resolve().parents[2] / "benchmarks" / "blas_order.py"


def _probe():
    spec = importlib.util.spec_from_file_location("blas_order", PROBE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fold_sums_in_k_order_rounding_each_step():
    fold = _probe().sequential_fold
    tiny = 2.0**-24  # half an ulp of 1 in fp32
    ones = np.ones((3, 1), dtype=np.float32)
    # 1 + 2^-24 rounds (to even) to 1, twice: 1
    first = fold(np.array([[1.0, tiny, tiny]], dtype=np.float32), ones)
    assert first.dtype == np.float32
    assert first[0, 0] == np.float32(1.0)
    # the two halves first: 2^-23, then 1 + 2^-23 is exact
    last = fold(np.array([[tiny, tiny, 1.0]], dtype=np.float32), ones)
    assert last[0, 0] == np.float32(1.0 + 2.0**-23)
    # one step rounds once (an FMA): 3 * (1/3 in fp32) is not rounded twice
    third = np.float32(1 / 3)
    got = fold(np.array([[third]], dtype=np.float32), np.array([[3.0]], dtype=np.float32))
    assert got[0, 0] == np.float32(float(third) * 3.0)


def test_the_probe_prints_a_row_per_k():
    result = subprocess.run(
        [sys.executable, str(PROBE), "--k", "8,16"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    rows = result.stdout.splitlines()
    assert rows[2].split()[0] == "8"
    assert rows[3].split()[0] == "16"
    assert all(cell in ("same", "DIFFERS") for row in rows[2:] for cell in row.split()[1:])
    bad = subprocess.run(
        [sys.executable, str(PROBE), "--k", "x"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2
    assert "comma-separated integers" in bad.stderr
