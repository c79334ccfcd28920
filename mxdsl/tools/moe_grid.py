"""``mx-moe grid`` on Dask, and nkilib's LNC2 MoE-CTE test grid (``grid --nkilib``)
(docs/moe-cte.md, "The grid on Dask" and "nkilib's grid").

Every case of a grid is a :class:`GridCase` run by :func:`execute_case` as a Dask task
(:func:`run_grid_cases`: an embedded local cluster, or ``--scheduler``'s), its memory
estimate asked for as the Dask resource ``MEMORY``; each finished case is a row of the
``--results`` SQLite table (:class:`ResultsStore`), which a second run resumes from.

nkilib's grid: per variant, every size of H in {3072, 4096, 7168} x B in {256, 512}
(and 1024 for the bf16/fp8 variants) x I in {1024, 2048} (and 384, 3072 for the block
shards, 384 being a partial MX I tile for shard_on_block_mx), TopK 8, E 64, T 10240, is
built with every option combination the variant supports (biases x fp8 weights, or
biases x the three MX weight formats) on its target (trn2 for the bf16/fp8 variants,
trn3 for MX); one row per size gives the largest footprint over the combinations. With
``--sample-tokens T`` each size also runs once (biases on, E 2, TopK 2, T tokens: the
same tiling at a size that runs quickly) against its golden.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import logging
import signal
import sqlite3
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, Any

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from mxdsl.dialects.nisa import MemorySpace
from mxdsl.kernels.moe_cte import (
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEKernel,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    QuantizationConfig,
    build_moe_cte,
)
from mxdsl.kernels.moe_cte.dispatch import clock_text
from mxdsl.kernels.moe_cte.mx_formats import MX_WEIGHT_FORMATS
from mxdsl.kernels.moe_cte.reference import golden_for, make_inputs, relative_error
from mxdsl.kernels.moe_cte.reference.mx import make_mx_inputs, mx_golden_for
from mxdsl.numerics.fast import available_cpus
from mxdsl.targets import TRN2, TRN3, Target
from mxdsl.tools import moe_case
from mxdsl.tools.diagnostics import write_atomically
from mxdsl.tools.mx_run import available_memory

HIDDEN = (3072, 4096, 7168)
TOLERANCE = {"bf16": 1e-2, "mx": 1e-2}


def grid_sizes(impl: MoECTEImplementation) -> Iterator[MoECTESizes]:
    """nkilib's grid for ``impl`` (module docstring)."""
    blocks = (256, 512) if impl.is_mx else (256, 512, 1024)
    inter = [1024, 2048] + ([384, 3072] if impl.shards_on_block else [])
    n = 64 if impl == MoECTEImplementation.shard_on_i_dropping else None
    for h, b, i in itertools.product(HIDDEN, blocks, sorted(inter)):
        yield MoECTESizes(h, i, 64, 10240, b, 8, n_blocks=n)


def option_sets(
    impl: MoECTEImplementation,
) -> list[tuple[str, MoECTEOptions, QuantizationConfig | None]]:
    """Every option combination that changes the kernel's buffers, with a short label."""
    if impl.is_mx:
        return [
            (f"{'bias ' if bias else ''}{fmt}", MoECTEOptions(bias=bias, mx_weights=fmt), None)
            for bias in (False, True)
            for fmt in MX_WEIGHT_FORMATS
        ]
    fp8 = QuantizationConfig(True, True)
    return [
        (label, MoECTEOptions(bias=bias), quant)
        for bias in (False, True)
        for label, quant in ((f"{'bias ' if bias else ''}bf16", None), ("fp8", fp8))
    ]


def target_of(impl: MoECTEImplementation) -> Target:
    return TRN3 if impl.is_mx else TRN2


def sample_run(impl: MoECTEImplementation, sizes: MoECTESizes, tokens: int) -> float:
    """The relative error of one run at ``sizes`` with E 2, TopK 2, ``tokens`` tokens."""
    n = 2 if impl == MoECTEImplementation.shard_on_i_dropping else None
    small = MoECTESizes(sizes.hidden, sizes.intermediate, 2, tokens, sizes.block_size, 2, n)
    spec = MoECTESpec(impl)
    options = MoECTEOptions(bias=True)
    kernel = build_moe_cte(spec, small, options, target=target_of(impl))
    if impl.is_mx:
        inputs = make_mx_inputs(spec, small, options, seed=0)
        golden = mx_golden_for(spec, small, options, inputs)
    else:
        inputs = make_inputs(spec, small, options, seed=0)
        golden = golden_for(spec, small, options, inputs)
    out = kernel.run(inputs.arrays)["output"]
    if out.ndim == 3:
        out = out[0] if impl.is_mx else out[:, 0, :]
    return relative_error(out[:tokens].astype(np.float32), golden)


# ------------------------------------------------------------------ cases and their rows

RUN, NKILIB = "run", "nkilib"
"""The two kinds of case: a run against the golden (``mx-moe grid``), and one size of
nkilib's grid built with every option combination (``mx-moe grid --nkilib``)."""

OK, FAILED, ERROR = "ok", "failed", "error"
"""A row's status: within tolerance; over it; no verdict (the case raised, ran out of
memory, or its worker was lost). A resumed grid runs ``error`` rows again."""

COLUMNS: tuple[tuple[str, str], ...] = (
    ("key", "TEXT PRIMARY KEY"),
    ("number", "INTEGER"),
    ("kind", "TEXT"),
    ("variant", "TEXT"),
    ("activation", "TEXT"),
    ("scaling", "TEXT"),
    ("top_k", "INTEGER"),
    ("dtype", "TEXT"),
    ("hidden", "INTEGER"),
    ("intermediate", "INTEGER"),
    ("experts", "INTEGER"),
    ("tokens", "INTEGER"),
    ("block_size", "INTEGER"),
    ("blocks", "INTEGER"),
    ("options", "TEXT"),
    ("target", "TEXT"),
    ("level", "TEXT"),
    ("seed", "INTEGER"),
    ("status", "TEXT"),
    ("rel_error", "REAL"),
    ("tolerance", "REAL"),
    ("kernel_s", "REAL"),
    ("golden_s", "REAL"),
    ("peak_bytes", "INTEGER"),
    ("memory_estimate", "INTEGER"),
    ("output_hash", "TEXT"),
    ("builds", "INTEGER"),
    ("sbuf_bytes", "INTEGER"),
    ("psum_bytes", "INTEGER"),
    ("block_sets", "INTEGER"),
    ("gate_up_chunk", "INTEGER"),
    ("error", "TEXT"),
    ("worker", "TEXT"),
    ("finished", "TEXT"),
)
"""The columns of the ``--results`` table ``cases``, one row per case."""

COLUMN_NAMES = tuple(name for name, _ in COLUMNS)


@dataclass(frozen=True)
class GridCase:
    """One case as sent to a Dask worker. ``key`` is its whole configuration as text (a
    results file with a finished row of the same key skips it), ``config`` the row's
    configuration columns, ``memory`` the bytes a run needs (the estimate ``--max-memory``
    checks), ``args`` the ``mx-moe`` options of a run case."""

    number: int
    kind: str
    key: str
    config: dict[str, Any]
    memory: int
    args: argparse.Namespace | None = None
    sample_tokens: int = 0


def case_key(config: dict[str, Any]) -> str:
    """The canonical text of a configuration (sorted JSON)."""
    return json.dumps(config, sort_keys=True, default=str)


def output_hash(outputs: dict[str, np.ndarray]) -> str:
    """SHA-256 (first 16 hex digits) over every output's name, dtype, shape and bytes."""
    digest = hashlib.sha256()
    for name in sorted(outputs):
        array = np.ascontiguousarray(outputs[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        digest.update(array.view(np.uint8).reshape(-1).data)
    return digest.hexdigest()[:16]


def reset_peak_memory() -> None:
    """Restart this process's peak resident set (Linux ``clear_refs``), so the peak read
    after a case is that case's."""
    try:
        with open("/proc/self/clear_refs", "w") as stream:
            stream.write("5")
    except OSError:
        pass


def peak_memory() -> int:
    """This process's peak resident bytes since :func:`reset_peak_memory` (``VmHWM``),
    or since it started where that is not available."""
    try:
        with open("/proc/self/status") as stream:
            for line in stream:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return moe_case.peak_resident_bytes()


def worker_address() -> str:
    """The Dask worker running this task, or ``in-process``."""
    from distributed import get_worker

    try:
        return str(get_worker().address)
    except ValueError:
        return "in-process"


def execute_case(case: GridCase) -> dict[str, Any]:
    """Run ``case`` in this process and return its row. Nothing escapes: an exception
    (an out-of-memory included) is the row's ``error``."""
    row: dict[str, Any] = dict.fromkeys(COLUMN_NAMES)
    row.update(case.config)
    row.update(key=case.key, number=case.number, kind=case.kind, memory_estimate=case.memory)
    row["worker"] = worker_address()
    reset_peak_memory()
    try:
        with interpreter_threads():
            row.update(run_case(case) if case.kind == RUN else nkilib_case(case))
    except MemoryError as err:
        row.update(status=ERROR, error=f"out of memory{f' ({err})' if str(err) else ''}")
    except Exception as err:  # the case's failure, recorded; the grid goes on
        row.update(status=ERROR, error=error_text(err))
    row["peak_bytes"] = peak_memory()
    row["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return row


def error_text(err: BaseException) -> str:
    if isinstance(err, moe_case.ToolError | MoECTEConfigError):
        return str(err)
    return f"{type(err).__name__}: {err}"


@contextmanager
def interpreter_threads() -> Iterator[None]:
    """One BLAS thread for the interpreter (as ``mx-moe`` sets before numpy loads; a
    ``dask worker`` started elsewhere did not), unless the user chose a count."""
    if moe_case.USER_CHOSE_BLAS_THREADS:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def run_case(case: GridCase) -> dict[str, Any]:
    """A run case: build, seeded inputs, the kernel against its golden (``mx-moe run``)."""
    assert case.args is not None
    kernel = moe_case.build(case.args)
    inputs = moe_case.seeded_inputs(kernel, case.args)
    checked = moe_case.check(kernel, inputs, None, moe_case.fast_path_setting(case.args))
    over = f"error {checked.error:.3e} above the tolerance {checked.tolerance:g}"
    return {
        "status": OK if checked.ok else FAILED,
        "rel_error": checked.error,
        "tolerance": checked.tolerance,
        "kernel_s": checked.kernel_time,
        "golden_s": checked.golden_time,
        "output_hash": output_hash(checked.outputs),
        "error": None if checked.ok else over,
    }


def nkilib_case(case: GridCase) -> dict[str, Any]:
    """One size of nkilib's grid: built with every option combination on the variant's
    target (the largest footprint kept), and with ``sample_tokens`` one sample run."""
    config = case.config
    impl = MoECTEImplementation[config["variant"]]
    sizes = MoECTESizes(
        config["hidden"],
        config["intermediate"],
        config["experts"],
        config["tokens"],
        config["block_size"],
        config["top_k"],
        n_blocks=config["blocks"],
    )
    built: list[MoECTEKernel] = []
    problem = ""
    for label, options, quant in option_sets(impl):
        try:
            built.append(build_moe_cte(MoECTESpec(impl), sizes, options, quant, target_of(impl)))
        except MoECTEConfigError as err:
            problem = f"{label}: {err}"
            break
    row: dict[str, Any] = {"builds": len(built), "status": ERROR if problem else OK}
    row["error"] = problem or None
    if built:
        worst = max(built, key=lambda k: k.footprint[MemorySpace.SBUF])
        row.update(
            sbuf_bytes=worst.footprint[MemorySpace.SBUF],
            psum_bytes=worst.footprint[MemorySpace.PSUM],
            block_sets=worst.options.block_sets or None,
            gate_up_chunk=worst.options.gate_up_chunk,
        )
    if problem or not case.sample_tokens:
        return row
    tolerance = TOLERANCE["mx" if impl.is_mx else "bf16"]
    start = time.perf_counter()
    err = sample_run(impl, sizes, case.sample_tokens)
    row.update(rel_error=err, tolerance=tolerance, kernel_s=time.perf_counter() - start)
    if err > tolerance:
        row.update(status=FAILED, error=f"error {err:.2e} above the tolerance")
    return row


def nkilib_cases(implementations: list[str], sample_tokens: int) -> list[GridCase]:
    """Every (variant, size) of nkilib's grid as a case."""
    cases = []
    for name in implementations:
        impl = MoECTEImplementation[name]
        for sizes in grid_sizes(impl):
            config = {
                "variant": name,
                "hidden": sizes.hidden,
                "intermediate": sizes.intermediate,
                "experts": sizes.experts,
                "tokens": sizes.tokens,
                "block_size": sizes.block_size,
                "top_k": sizes.top_k,
                "blocks": sizes.n_blocks,
                "target": target_of(impl).name,
            }
            key = case_key({"kind": NKILIB, "sample_tokens": sample_tokens, **config})
            memory = 2 * moe_case.FIXED_MEMORY  # the IR of the builds, and a small sample run
            cases.append(GridCase(len(cases), NKILIB, key, config, memory, None, sample_tokens))
    return cases


def failure_row(case: GridCase, reason: str) -> dict[str, Any]:
    """The row of a case that gave no row of its own (its worker was lost, or none can
    hold it)."""
    row: dict[str, Any] = dict.fromkeys(COLUMN_NAMES)
    row.update(case.config)
    row.update(key=case.key, number=case.number, kind=case.kind, memory_estimate=case.memory)
    row.update(status=ERROR, error=reason)
    row["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return row


# ------------------------------------------------------------------ the results file


class ResultsStore:
    """The ``--results`` file: an SQLite database whose table ``cases`` holds one row per
    case (:data:`COLUMNS`), committed as each case finishes, so an interrupted grid keeps
    every finished row. ``pandas.read_sql("SELECT * FROM cases", sqlite3.connect(FILE))``
    reads it. Without a file the rows are kept in memory."""

    def __init__(self, path: str | None):
        self.path = path
        where = f"--results {path!r}"
        try:
            self.db = sqlite3.connect(path or ":memory:")
            columns = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
            self.db.execute(f"CREATE TABLE IF NOT EXISTS cases ({columns})")
            found = [r[1] for r in self.db.execute("PRAGMA table_info(cases)")]
        except sqlite3.Error as err:
            raise moe_case.ToolError(
                f"{where}: not a results database of mx-moe grid ({err}); name a new file "
                "or one an earlier mx-moe grid wrote"
            ) from None
        if tuple(found) != COLUMN_NAMES:
            self.db.close()
            raise moe_case.ToolError(
                f"{where}: its table 'cases' has other columns than mx-moe grid writes; "
                "name a new file"
            )

    def rows(self) -> dict[str, dict[str, Any]]:
        """Every stored row, by key."""
        cursor = self.db.execute(f"SELECT {', '.join(COLUMN_NAMES)} FROM cases")
        return {row[0]: dict(zip(COLUMN_NAMES, row, strict=True)) for row in cursor}

    def add(self, row: dict[str, Any]) -> None:
        marks = ", ".join("?" for _ in COLUMN_NAMES)
        values = [to_sql(row.get(name)) for name in COLUMN_NAMES]
        self.db.execute(f"INSERT OR REPLACE INTO cases VALUES ({marks})", values)
        self.db.commit()

    def close(self) -> None:
        self.db.close()


def to_sql(value: Any) -> Any:
    """A value SQLite stores (numpy scalars as Python numbers)."""
    return value.item() if isinstance(value, np.generic) else value


# ------------------------------------------------------------------ running on Dask


@dataclass(frozen=True)
class DaskSettings:
    """Where the cases run: ``scheduler`` (a ``tcp://`` address) or, when None, a local
    cluster of ``workers`` processes (None: sized to this machine)."""

    scheduler: str | None = None
    workers: int | None = None
    connect_timeout: float = 10.0


MEMORY = "MEMORY"
"""The Dask resource a case asks for: its memory estimate in bytes. The local cluster's
workers each declare their memory limit; workers of an external cluster declare it with
``dask worker --resources MEMORY=BYTES``."""

CASES = "CASES"
"""The local cluster's workers hold one case at a time (they declare 1 of this resource,
each case asks for 1): none waits on a worker behind another, so a worker that dies
takes only its own case with it (the scheduler then records that case as lost rather
than running it again on the next worker)."""

POLL = 1.0
"""Seconds between looks at the running cases (the progress line's ``running``)."""

WAIT = 0.1
"""Seconds between looks for finished cases."""


@dataclass
class Placement:
    """What the cluster can hold: ``capacity`` (the most memory any worker has, None if
    unknown), and the resources its workers declare (``MEMORY``, ``CASES``)."""

    capacity: int | None
    resources: frozenset[str]

    def asks(self, case: GridCase) -> dict[str, float] | None:
        """The resources ``case`` asks for on this cluster."""
        wanted = {MEMORY: float(case.memory), CASES: 1.0}
        asked = {name: amount for name, amount in wanted.items() if name in self.resources}
        return asked or None


def local_cluster_size(requested: int | None, cases: list[GridCase]) -> tuple[int, int]:
    """(workers, bytes each) of the local cluster: one single-threaded worker process per
    CPU, fewer when the largest case would not fit in an equal share of the available
    memory, and no more than there are cases."""
    memory = available_memory() or (4 << 30)
    largest = max(case.memory for case in cases)
    if requested:
        return requested, memory // requested
    workers = max(1, min(available_cpus(), len(cases), memory // max(largest, 1)))
    return workers, memory // workers


@contextmanager
def dask_client(settings: DaskSettings, cases: list[GridCase]) -> Iterator[tuple[Any, Placement]]:
    """A Dask client on the external scheduler, or on a local cluster started here (and
    closed on the way out)."""
    from dask import config as dask_config
    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    if settings.scheduler is None:
        workers, memory = local_cluster_size(settings.workers, cases)
        # a case whose worker dies is not sent to a second one: recorded as lost instead
        with dask_config.set({"distributed.scheduler.allowed-failures": 0}):
            preload = [*dask_config.get("distributed.worker.preload", []), __name__]
            cluster = LocalCluster(
                preload=preload,  # dask_setup below, in each worker process
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                memory_limit=memory,
                resources={MEMORY: memory, CASES: 1},
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                silence_logs=logging.CRITICAL,
            )
        client = Client(cluster, set_as_default=False)
        try:
            yield client, Placement(memory, frozenset({MEMORY, CASES}))
        finally:
            client.close()
            cluster.close()
        return
    client = connect(settings)
    try:
        yield client, placement(client)
    finally:
        client.close()


def dask_setup(worker: Any) -> None:
    """Run by each worker process of the local cluster as it starts (a Dask preload):
    Ctrl-C at the terminal reaches the whole process group, and the workers leave it to
    ``mx-moe``, which cancels the pending cases and closes the cluster."""
    del worker
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def connect(settings: DaskSettings) -> Any:
    """A client of the scheduler at ``settings.scheduler`` with at least one worker, or
    one line saying why not within ``connect_timeout`` seconds."""
    from distributed import Client

    address, timeout = settings.scheduler, settings.connect_timeout
    try:
        client = Client(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise moe_case.ToolError(
            f"cannot reach the Dask scheduler at {address} within {timeout:g} s "
            f"({' '.join(str(err).split())}); give the tcp://HOST:PORT address that "
            "`dask scheduler` prints, and check that it is running"
        ) from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError):
        client.close()
        raise moe_case.ToolError(
            f"the Dask scheduler at {address} has no worker after {timeout:g} s; start "
            f"one with `dask worker {address}`"
        ) from None
    return client


def placement(client: Any) -> Placement:
    """Cases ask for a resource (``MEMORY``, ``CASES``) that every worker declares; when
    not all declare ``MEMORY``, only a case larger than every worker's memory limit is
    refused."""
    workers = list(client.scheduler_info(n_workers=-1)["workers"].values())
    declared = frozenset(
        name for name in (MEMORY, CASES) if all(w.get("resources", {}).get(name) for w in workers)
    )
    if MEMORY in declared:
        return Placement(int(max(w["resources"][MEMORY] for w in workers)), declared)
    limits = [w.get("memory_limit") or 0 for w in workers]
    return Placement(int(max(limits)) if all(limits) else None, declared)


def dashboard_link(client: Any) -> str | None:
    """The Dask dashboard's address, when the scheduler serves one."""
    info = client.scheduler_info(n_workers=0)
    if "dashboard" not in info.get("services", {}):
        return None
    return str(client.dashboard_link)


def run_on_dask(
    cases: list[GridCase],
    settings: DaskSettings,
    on_row: Callable[[dict[str, Any]], None],
    progress: GridProgress,
    on_start: Callable[[], None] = lambda: None,
) -> None:
    """Every case as a Dask task (asking for its memory estimate as the ``MEMORY``
    resource); ``on_row`` gets each row as its case finishes. A case no worker can hold,
    a lost worker or a task error is that case's row. On the way out (the end, Ctrl-C,
    a closed stdout) the cases still pending are cancelled. ``on_start`` is called once
    the cluster is reached."""
    from distributed import as_completed

    with dask_client(settings, cases) as (client, room):
        on_start()
        progress.dashboard(dashboard_link(client))
        futures: dict[Any, GridCase] = {}
        for case in cases:
            if room.capacity is not None and case.memory > room.capacity:
                on_row(failure_row(case, too_large(case, room.capacity)))
                continue
            resources = room.asks(case)
            future = client.submit(
                execute_case,
                case,
                key=f"mx-moe-case-{case.number}-{uuid.uuid4().hex[:8]}",
                pure=False,
                resources=resources,
            )
            futures[future] = case
        pending = set(futures)
        finished = as_completed(futures, loop=client.loop)
        try:
            last = 0.0
            while pending:
                done = finished.next_batch(block=False) if finished.has_ready() else []
                for future in done:
                    pending.discard(future)
                    on_row(row_of(future, futures[future]))
                if time.monotonic() - last >= POLL:
                    last = time.monotonic()
                    progress.running(running_count(client, pending))
                if not done:
                    time.sleep(WAIT)
        finally:
            if pending:
                client.cancel(list(pending))


def too_large(case: GridCase, capacity: int) -> str:
    return (
        f"needs about {gib(case.memory)} of memory but no worker holds more than "
        f"{gib(capacity)}; fewer --workers (each gets a larger share) or larger workers"
    )


def row_of(future: Any, case: GridCase) -> dict[str, Any]:
    """The row a finished task returned, or the reason it returned none."""
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker:
        return failure_row(
            case,
            "lost worker: the worker running this case died (over its memory limit, or "
            "killed); run the grid again with the same --results to retry it",
        )
    except Exception as err:
        return failure_row(case, f"{type(err).__name__}: {err}")


def running_count(client: Any, pending: set[Any]) -> int:
    """How many of the ``pending`` tasks are running now: those the workers hold, at
    most one per worker thread (a worker also holds the tasks it will run next)."""
    keys = {future.key for future in pending}
    try:
        processing = client.processing()
        threads = client.nthreads()
    except (OSError, TimeoutError):
        return 0
    return sum(
        min(threads.get(worker, 1), sum(key in keys for key in tasks))
        for worker, tasks in processing.items()
    )


def gib(size: int) -> str:
    return f"{size / (1 << 30):.3g} GiB"


# ------------------------------------------------------------------ progress


class GridProgress:
    """Done / running / failed cases and the time left on stderr: a tqdm bar on a
    terminal, otherwise a plain line every PROGRESS_INTERVAL seconds and one at the end.
    ``enabled`` False prints nothing."""

    def __init__(self, total: int, resumed: int, stream: IO[str], enabled: bool = True):
        self.total, self.resumed, self.stream, self.enabled = total, resumed, stream, enabled
        self.done = self.failed = self.now_running = 0
        self.start = self.last = time.monotonic()
        self.bar: tqdm | None = None
        if enabled and stream.isatty():
            self.bar = tqdm(
                total=total,
                initial=resumed,
                file=stream,
                unit="case",
                desc="cases",
                dynamic_ncols=True,
            )

    def dashboard(self, link: str | None) -> None:
        if self.enabled and link:
            self.say(f"Dask dashboard: {link}")

    def say(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def finished(self, row: dict[str, Any]) -> None:
        self.done += 1
        self.failed += row["status"] != OK
        if self.resumed + self.done >= self.total:
            self.now_running = 0
        if self.bar is not None:
            self.bar.set_postfix_str(self.postfix(), refresh=False)
            self.bar.update(1)
        self.plain(self.resumed + self.done >= self.total)

    def running(self, count: int) -> None:
        self.now_running = count
        if self.bar is not None:
            self.bar.set_postfix_str(self.postfix())
        self.plain(False)

    def postfix(self) -> str:
        return f"{self.now_running} running, {self.failed} failed"

    def plain(self, final: bool) -> None:
        if not self.enabled or self.bar is not None:
            return
        now = time.monotonic()
        if not final and now - self.last < moe_case.PROGRESS_INTERVAL:
            return
        self.last = now
        elapsed = now - self.start
        left = self.total - self.resumed - self.done
        eta = f", ETA {clock_text(elapsed / self.done * left)}" if self.done and left else ""
        self.say(
            f"cases {self.resumed + self.done}/{self.total} done, {self.postfix()} after "
            f"{elapsed:.1f} s{eta}"
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ------------------------------------------------------------------ the grid


class InOrder:
    """Prints rows in case order as they become available (cases finish in any order)."""

    def __init__(self, write: Callable[[dict[str, Any]], None]):
        self.write = write
        self.next = 0
        self.waiting: dict[int, dict[str, Any]] = {}

    def __call__(self, row: dict[str, Any]) -> None:
        self.waiting[row["number"]] = row
        while self.next in self.waiting:
            self.write(self.waiting.pop(self.next))
            self.next += 1


def run_grid_cases(
    cases: list[GridCase],
    settings: DaskSettings,
    results: str | None,
    write_row: Callable[[dict[str, Any]], None],
    show_progress: bool,
    header: Callable[[], None] = lambda: None,
    stderr: IO[str] | None = None,
) -> list[dict[str, Any]]:
    """Run ``cases`` on Dask (:func:`run_on_dask`), each row stored in ``results`` as it
    finishes and written (``write_row``) in case order after ``header`` (once the cluster
    is reached: an unreachable scheduler prints no table). Cases with a verdict (``ok`` or
    ``failed``) already in ``results`` are not run again. Returns the rows in case order.
    Ctrl-C cancels what is pending and keeps the finished rows."""
    stream = sys.stderr if stderr is None else stderr
    store = ResultsStore(results)
    printer = InOrder(write_row)
    rows: dict[int, dict[str, Any]] = {}
    try:
        stored = store.rows()
        todo = []
        for case in cases:
            row = stored.get(case.key)
            if row is not None and row["status"] in (OK, FAILED):
                rows[case.number] = {**row, "number": case.number}
            else:
                todo.append(case)
        progress = GridProgress(len(cases), len(cases) - len(todo), stream, show_progress)
        if len(todo) < len(cases):
            progress.say(f"resuming: {len(cases) - len(todo)} of {len(cases)} cases in {results}")

        def start() -> None:
            header()
            for number in sorted(rows):
                printer(rows[number])

        def finished(row: dict[str, Any]) -> None:
            store.add(row)
            rows[row["number"]] = row
            progress.finished(row)
            printer(row)

        try:
            if todo:
                run_on_dask(todo, settings, finished, progress, start)
            else:
                start()
        except KeyboardInterrupt:
            kept = (
                f"kept in {results}: run the same command to resume"
                if results
                else ("not kept (--results FILE keeps them)")
            )
            raise moe_case.ToolError(
                f"interrupted: {len(rows)} of {len(cases)} cases finished, {kept}"
            ) from None
        finally:
            progress.close()
    finally:
        store.close()
    return [rows[number] for number in sorted(rows)]


# ------------------------------------------------------------------ --summary


def summary_table(rows: list[dict[str, Any]]) -> str:
    """Per variant: cases, ok, failed, errors, the largest relative error, the total and
    the largest kernel time."""
    lines = [
        f"{'variant':22s} {'cases':>5s} {'ok':>4s} {'failed':>6s} {'error':>5s} "
        f"{'max rel err':>11s} {'kernel s':>9s} {'max s':>7s}"
    ]
    for variant in sorted({row["variant"] for row in rows}):
        mine = [row for row in rows if row["variant"] == variant]
        errors = [row["rel_error"] for row in mine if row["rel_error"] is not None]
        times = [row["kernel_s"] for row in mine if row["kernel_s"] is not None]
        count = {
            status: sum(row["status"] == status for row in mine) for status in (OK, FAILED, ERROR)
        }
        worst = f"{max(errors):11.2e}" if errors else f"{'-':>11s}"
        lines.append(
            f"{variant:22s} {len(mine):5d} {count[OK]:4d} {count[FAILED]:6d} {count[ERROR]:5d} "
            f"{worst} {sum(times):9.2f} {max(times, default=0.0):7.2f}"
        )
    return "\n".join(lines)


def summary_png(rows: list[dict[str, Any]], path: str) -> None:
    """Two panels, one point per case coloured by variant: the relative error (log scale,
    with each tolerance) and the kernel and golden times."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (errors, times) = pyplot.subplots(2, 1, figsize=(10, 7), sharex=True)
    for variant in sorted({row["variant"] for row in rows}):
        mine = [row for row in rows if row["variant"] == variant]
        numbers = [row["number"] for row in mine]
        rel = [row["rel_error"] if row["rel_error"] else np.nan for row in mine]
        errors.scatter(numbers, rel, label=variant, s=18)
        kernel = [row["kernel_s"] if row["kernel_s"] is not None else np.nan for row in mine]
        golden = [row["golden_s"] if row["golden_s"] is not None else np.nan for row in mine]
        (line,) = times.plot(numbers, kernel, "o", markersize=4, label=f"{variant} kernel")
        times.plot(numbers, golden, "x", color=line.get_color(), label=f"{variant} golden")
    for tolerance in sorted({row["tolerance"] for row in rows if row["tolerance"]}):
        errors.axhline(tolerance, color="red", linewidth=0.8, linestyle="--")
    failed = [row for row in rows if row["status"] == ERROR]
    for row in failed:
        errors.axvline(row["number"], color="grey", linewidth=0.5, linestyle=":")
    if any(row["rel_error"] for row in rows):
        errors.set_yscale("log")
    errors.set_ylabel("relative error vs golden")
    errors.set_title("mx-moe grid: per case (dashed: tolerance; dotted: a case with no verdict)")
    errors.legend(fontsize=7, loc="best")
    times.set_ylabel("seconds")
    times.set_xlabel("case")
    times.legend(fontsize=6, loc="best", ncol=2)
    figure.tight_layout()
    write_atomically(path, lambda stream: figure.savefig(stream, format="png", dpi=100))
    pyplot.close(figure)


__all__ = [
    "COLUMNS",
    "DaskSettings",
    "GridCase",
    "ResultsStore",
    "execute_case",
    "grid_sizes",
    "nkilib_cases",
    "option_sets",
    "output_hash",
    "run_grid_cases",
    "sample_run",
    "summary_png",
    "summary_table",
]
