"""A test helper: a matmul run as one batch of PE passes (``pe_passes_into``) sharing
the moving operand, the stationary cut into passes of a few rows each."""

from __future__ import annotations

import numpy as np

from mxdsl.numerics.matmul import PePass, pe_operand, pe_passes_into


def batched_passes(lhs: np.ndarray, rhs: np.ndarray, rows: int) -> np.ndarray:
    """``lhs [M, K] @ rhs [K, N]`` as one :func:`pe_passes_into` call: one pass (its
    stationary C-contiguous ``[K, rows]``) per ``rows`` rows of ``lhs``, each into its rows
    of a fresh f32 PSUM tile ``[M, N]``, which is returned."""
    m = lhs.shape[0]
    dst = np.empty((m, rhs.shape[1]), dtype=np.float32)
    passes = [
        PePass(dst[r : r + rows], pe_operand(np.ascontiguousarray(lhs[r : r + rows].T)), False)
        for r in range(0, m, rows)
    ]
    pe_passes_into(pe_operand(rhs), passes)
    return dst
