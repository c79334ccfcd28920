"""What the differential tests of the interpreters share: mx-run on a program, reduced to
its exit code and a digest of its outputs' bits, and the MoE variants at a small size."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
import pytest

from mxdsl.tools import mx_run

SMALL = {
    "shard_on_i": ["--hidden", "512", "--intermediate", "256", "--experts", "4"],
    "shard_on_block": ["--hidden", "512", "--intermediate", "256", "--experts", "4"],
    "shard_on_i_hybrid": ["--hidden", "512", "--intermediate", "256", "--experts", "4"],
    "shard_on_i_dropping": ["--hidden", "512", "--intermediate", "256", "--experts", "4"],
    "shard_on_i_mx": ["--hidden", "512", "--intermediate", "1024", "--experts", "2"],
    "shard_on_block_mx": ["--hidden", "512", "--intermediate", "512", "--experts", "2"],
    "shard_on_i_mx_hybrid": ["--hidden", "512", "--intermediate", "1024", "--experts", "2"],
}
"""mx-moe size options each MoE variant builds at, small enough for CI."""


def run_digest(
    tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """mx-run's exit code and, for a success, a digest of every output's bits (else its
    error text; nothing may be written then)."""
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}.npz"
    code = mx_run.main([*argv, "--quiet", "-o", str(out)], stdout=io.StringIO())
    error = capsys.readouterr().err
    if code:
        assert not out.exists()  # nothing written on failure
        return code, error
    with np.load(out) as outputs:
        digest = hashlib.sha256()
        for key in sorted(outputs.files):
            digest.update(key.encode())
            digest.update(np.ascontiguousarray(outputs[key]).view(np.uint8).tobytes())
    return code, digest.hexdigest()
