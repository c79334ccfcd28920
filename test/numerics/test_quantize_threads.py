"""The bf16 quantize in several threads: the same bytes as in one thread and as the
reference, whichever thread runs which chunk; bounded, configurable, errors raised in the
caller, small inputs kept in the calling thread."""

from __future__ import annotations

import os
import select
import signal
import threading

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics import MxFormat, fast, quantize_mx, quantize_mx_packed, quantize_mx_reference

QNAN, NEG_INF, POS_INF = 0x7FC0, 0xFF80, 0x7F80


def wide_rows(rows: int, cols: int, seed: int) -> np.ndarray:
    """Normal data with every row scaled by its own ``2**k`` (``k`` in [-140, 120]: rows
    of bf16 denormals up to rows near the top binade), plus NaN, +-Inf, bf16 denormals
    and zeros scattered over the rows and one all-zero row."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal((rows, cols)) * 2.0 ** rng.integers(-140, 121, (rows, 1))
    bits = values.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
    where = rng.random((rows, cols))
    bits[where < 0.002] = QNAN
    bits[(where >= 0.002) & (where < 0.004)] = POS_INF
    bits[(where >= 0.004) & (where < 0.006)] = NEG_INF
    denormal = (where >= 0.006) & (where < 0.02)
    bits[denormal] = rng.integers(1, 0x80, denormal.sum()) | (
        rng.integers(0, 2, denormal.sum()) << 15
    )
    bits[(where >= 0.02) & (where < 0.03)] = 0x8000
    bits[rows // 3] = 0
    return bits.view(ml_dtypes.bfloat16)


@pytest.fixture
def threads_seen(monkeypatch):
    """Small chunks, the threaded path at every size, and the kernel's ``run`` wrapped
    so that each thread waits at its first chunk until ``parties`` threads hold one (so
    every thread really takes a chunk), recording which threads ran chunks."""
    monkeypatch.setattr(fast, "CHUNK_ELEMENTS", 4096)
    monkeypatch.setattr(fast, "MIN_THREADED_ELEMENTS", 0)
    seen: set[int] = set()
    state = {"barrier": None}
    run = fast._Bf16Quantizer.run

    def wrapped(self, *args):
        ident = threading.get_ident()
        barrier = state["barrier"]
        if barrier is not None and ident not in seen:
            seen.add(ident)
            barrier.wait(timeout=30)
        seen.add(ident)
        return run(self, *args)

    monkeypatch.setattr(fast._Bf16Quantizer, "run", wrapped)

    def expect(parties: int) -> set[int]:
        seen.clear()
        state["barrier"] = threading.Barrier(parties) if parties > 1 else None
        return seen

    return expect


@pytest.mark.parametrize("alternative", [False, True], ids=["emax", "emax-1"])
@pytest.mark.parametrize("fmt", list(MxFormat), ids=lambda f: f.spec_name)
@pytest.mark.parametrize(
    ("shape", "block_shape", "chunks"),
    [((36, 512), (1, 32), 5), ((72, 256), (8, 4), 5), ((3, 12, 512), (1, 1, 32), 5)],
)
def test_threads_give_the_single_thread_bytes(
    threads_seen, shape, block_shape, chunks, fmt, alternative
):
    """Odd chunk counts (the last one short), rows 2**-140 .. 2**120 apart, NaN, Inf,
    denormals, zeros: 2 and 3 threads give the one-thread bytes, which are the
    reference's."""
    x = wide_rows(int(np.prod(shape[:-1])), shape[-1], seed=len(shape) + 7).reshape(shape)
    assert len(fast.ChunkPlan.of(shape, block_shape).flat_chunks()) == chunks
    one = quantize_mx(x, fmt, block_shape, alternative_emax=alternative, threads=1)
    want = quantize_mx_reference(x, fmt, block_shape, alternative_emax=alternative)
    np.testing.assert_array_equal(one[1], want[1])
    np.testing.assert_array_equal(one[0], want[0])
    for threads in (2, 3):
        seen = threads_seen(threads)
        got = quantize_mx(x, fmt, block_shape, alternative_emax=alternative, threads=threads)
        assert len(seen) == threads
        assert got[0].tobytes() == one[0].tobytes()
        assert got[1].tobytes() == one[1].tobytes()


def test_threaded_packed_quantize_equals_reference(threads_seen):
    """The HLO entry passes ``threads`` through: the packed words and scales of two
    threads are the single-thread ones."""
    x = wide_rows(36, 512, seed=3)
    seen = threads_seen(2)
    data, scale = quantize_mx_packed(x, MxFormat.E4M3FN, threads=2)
    assert len(seen) == 2
    codes, want_scale = quantize_mx_reference(x, MxFormat.E4M3FN, (1, 32))
    np.testing.assert_array_equal(scale, want_scale)
    np.testing.assert_array_equal(data.view(np.uint8).reshape(codes.shape), codes)


def test_threads_never_exceed_the_chunks(threads_seen):
    """More threads than chunks: one thread per chunk at most."""
    x = wide_rows(16, 512, seed=4)  # 2 chunks of 4096 elements
    seen = threads_seen(2)
    got = quantize_mx(x, MxFormat.E5M2, (1, 32), threads=8)
    assert len(seen) == 2
    want = quantize_mx_reference(x, MxFormat.E5M2, (1, 32))
    np.testing.assert_array_equal(got[0], want[0])


def test_small_inputs_stay_in_the_calling_thread(monkeypatch):
    """Below MIN_THREADED_ELEMENTS the pool is not used, whatever ``threads`` says."""
    monkeypatch.setattr(fast, "CHUNK_ELEMENTS", 4096)

    def no_pool(*args):
        raise AssertionError("the pool was used for a small input")

    monkeypatch.setattr(fast._POOL, "start", no_pool)
    x = wide_rows(36, 512, seed=5)
    assert x.size < fast.MIN_THREADED_ELEMENTS
    got = quantize_mx(x, MxFormat.E4M3FN, (1, 32), threads=2)
    want = quantize_mx_reference(x, MxFormat.E4M3FN, (1, 32))
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("in_worker", [True, False], ids=["worker", "caller"])
def test_an_error_in_a_thread_is_raised_in_the_caller(monkeypatch, in_worker):
    """An exception in a pool thread (or the caller) comes out of the call, after every
    thread has stopped; the pool keeps working for the next call."""
    monkeypatch.setattr(fast, "CHUNK_ELEMENTS", 4096)
    monkeypatch.setattr(fast, "MIN_THREADED_ELEMENTS", 0)
    caller = threading.get_ident()
    run = fast._Bf16Quantizer.run
    barrier, waited = threading.Barrier(2), set()

    def failing(self, *args):
        if threading.get_ident() not in waited:  # both threads hold a chunk before one fails
            waited.add(threading.get_ident())
            barrier.wait(timeout=30)
        if (threading.get_ident() != caller) == in_worker:
            raise RuntimeError("chunk failed")
        return run(self, *args)

    x = wide_rows(36, 512, seed=6)
    monkeypatch.setattr(fast._Bf16Quantizer, "run", failing)
    with pytest.raises(RuntimeError, match="chunk failed"):
        quantize_mx(x, MxFormat.E4M3FN, (1, 32), threads=2)
    monkeypatch.setattr(fast._Bf16Quantizer, "run", run)
    got = quantize_mx(x, MxFormat.E4M3FN, (1, 32), threads=2)
    want = quantize_mx_reference(x, MxFormat.E4M3FN, (1, 32))
    np.testing.assert_array_equal(got[0], want[0])


def test_thread_count_setting(monkeypatch):
    """``threads`` wins, then $MXDSL_QUANTIZE_THREADS, then the available CPUs; a bad
    ``threads`` is a ValueError, a bad setting a warning naming the variable (once per
    value) and the available CPUs."""
    monkeypatch.delenv(fast.THREADS_ENV, raising=False)
    assert fast.quantize_threads() == fast.available_cpus() >= 1
    monkeypatch.setenv(fast.THREADS_ENV, "3")
    assert fast.quantize_threads() == 3
    assert fast.quantize_threads(1) == 1
    monkeypatch.setattr(fast, "_WARNED", set())
    x = wide_rows(1, 64, seed=8)
    want = quantize_mx_reference(x, MxFormat.E4M3FN, (1, 32))
    for bad in ("0", "two", "-1", "1.5"):
        monkeypatch.setenv(fast.THREADS_ENV, bad)
        with pytest.warns(RuntimeWarning, match=r"\$MXDSL_QUANTIZE_THREADS=.* not a positive"):
            got = quantize_mx(x, MxFormat.E4M3FN, (1, 32))
        np.testing.assert_array_equal(got[0], want[0])
        assert fast.quantize_threads() == fast.available_cpus()  # warned once: no warning
    monkeypatch.delenv(fast.THREADS_ENV)
    for bad in (0, -2, True, 1.0):
        with pytest.raises(ValueError, match="threads must be a positive integer"):
            fast.quantize_threads(bad)
    with pytest.raises(ValueError, match="threads must be a positive integer"):
        quantize_mx_packed(x, MxFormat.E4M3FN, threads=0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_threads_work_in_a_forked_child(threads_seen):
    """A child forked after the pool started builds its own pool (the parent's threads
    do not exist there) and gets the reference bytes in two threads."""
    x = wide_rows(36, 512, seed=9)
    want = quantize_mx_reference(x, MxFormat.E4M3FN, (1, 32))
    threads_seen(2)
    quantize_mx(x, MxFormat.E4M3FN, (1, 32), threads=2)  # the parent's pool is running
    seen = threads_seen(2)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report by exit status, never return into pytest
        status = 1
        try:
            got = quantize_mx(x, MxFormat.E4M3FN, (1, 32), threads=2)
            same = np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
            status = 0 if same and len(seen) == 2 else 2
        finally:
            os.write(write, b"x")
            os._exit(status)
    os.close(write)
    ready, _, _ = select.select([read], [], [], 60)
    os.close(read)
    if not ready:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    assert ready, "the forked child hung"
    assert os.waitstatus_to_exitcode(status) == 0
