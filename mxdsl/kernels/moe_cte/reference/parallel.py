"""The reference side's per-expert work on every CPU, the same bytes for any thread count.

Input generation and the goldens go expert by expert: each expert's weights come from
their own seeded stream (``reference.inputs``) and each expert's contribution to the
output is computed alone. :func:`for_each_expert` runs that per-expert work on up to
``threads`` Python threads (numpy's random fills, casts, ufuncs and BLAS calls release
the GIL) and hands each result to the caller's ``finish`` in expert order, in the
calling thread. So every order-dependent step (a golden's float32 sums into its output
rows) happens in the sequential order, and a result never depends on the thread count
or on which thread finished first. At most ``threads`` experts are in flight, so the
memory stays a few experts' worth.

The BLAS library runs one thread per call here, whatever the thread count
(:func:`one_blas_thread`): a float32 GEMM's bits depend on how many threads OpenBLAS
splits it over (measured: up to a few ulps apart between 1 and 2 threads), so a golden
whose GEMMs followed the CPU count would differ from machine to machine. The experts are
the parallelism instead.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

from threadpoolctl import threadpool_limits

from mxdsl.numerics.fast import available_cpus

R = TypeVar("R")


def reference_threads(threads: int | None = None) -> int:
    """``threads`` if given (a positive integer, else ValueError), else every CPU this
    process may use."""
    if threads is None:
        return available_cpus()
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer (1 = no threads), got {threads!r}")
    return threads


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """One BLAS thread per call while inside (the reference side's GEMMs: the same bits
    on every machine; see the module docstring)."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def for_each_expert(
    work: Callable[[int], R],
    experts: Iterable[int],
    finish: Callable[[int, R], None] | None = None,
    threads: int | None = None,
) -> None:
    """``work(e)`` for every ``e`` of ``experts``, on up to ``threads`` threads (default:
    every CPU), and ``finish(e, work(e))`` in the calling thread in the order of
    ``experts``. At most ``threads`` calls of ``work`` run at once and at most one
    finished result waits beyond them; BLAS runs one thread per call. The first
    exception raised by ``work`` or ``finish`` is raised here after the running calls
    end (the rest are not started)."""
    count = reference_threads(threads)
    items = list(experts)
    if count == 1 or len(items) <= 1:
        with one_blas_thread():
            for e in items:
                result = work(e)
                if finish is not None:
                    finish(e, result)
        return
    queue = iter(items)
    pending: deque[tuple[int, Future[R]]] = deque()
    with one_blas_thread(), ThreadPoolExecutor(count) as pool:
        try:
            for e in queue:
                pending.append((e, pool.submit(work, e)))
                if len(pending) == count:
                    break
            while pending:
                e, future = pending.popleft()
                result = future.result()
                following = next(queue, None)
                if following is not None:  # keep every thread busy during finish
                    pending.append((following, pool.submit(work, following)))
                if finish is not None:
                    finish(e, result)
                del result
        finally:
            for _, future in pending:
                future.cancel()


__all__ = ["for_each_expert", "one_blas_thread", "reference_threads"]
