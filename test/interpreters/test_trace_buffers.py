"""Value traces record the whole buffer a run of one source location's ops completed
(``buffer`` records): a lowered op writes its value tile by tile, so its last write is a
part of it. The program below is a small nisa file whose ops carry source locations as
a lowering stamps them; the expected values are numpy's own (a transpose, row copies)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from mxdsl.extensions import load_multiverse
from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.trace import (
    BUFFER,
    Trace,
    TraceFilter,
    TraceRecord,
    bind_recorders,
    estimate_trace_bytes,
)
from mxdsl.tools import mx_diff, mx_run
from mxdsl.tools.diagnostics import parse_located

HBM = "#nisa.mem<hbm>"
SBUF = "#nisa.mem<sbuf>"
ROW = f"memref<4xf32, strided<[1], offset: ?>, {HBM}>"
COLUMN = f"memref<4xf32, strided<[8], offset: ?>, {HBM}>"
BLOCK = f"memref<1x4xf32, strided<[4, 1], offset: ?>, {HBM}>"

# model.py line 3: a transpose written one row per DMA into its own HBM buffer;
# line 4: whole-buffer writes, into an SBUF tile (no buffer record: not HBM) and into
# an HBM buffer of its own (a buffer record, the last of the run's records, so the run's
# scratch writes never stand for its value);
# line 5: a write through a view of a buffer allocated by another line (line 9);
# lines 6 and 7: a loop whose body alternates them (row i of line 6's buffer, then a
# line 7 copy of that row), so each iteration ends a run of line 6;
# line 8: the function's last run, one row of its own buffer (ended by the end of the run).
PROGRAM = f"""\
func.func @main(%a: memref<4x8xf32, {HBM}>) -> memref<8x4xf32, {HBM}> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %out = memref.alloc() : memref<8x4xf32, {HBM}> loc("model.py":3:5)
  scf.for %i = %c0 to %c8 step %c1 {{
    %row = memref.subview %out[%i, 0] [1, 4] [1, 1]
        : memref<8x4xf32, {HBM}> to {ROW} loc("model.py":3:5)
    %col = memref.subview %a[0, %i] [4, 1] [1, 1]
        : memref<4x8xf32, {HBM}> to {COLUMN} loc("model.py":3:5)
    nisa.dma_copy %row, %col : {ROW}, {COLUMN} loc("model.py":3:5)
  }} loc("model.py":3:5)
  %t = memref.alloc() : memref<8x4xf32, {SBUF}> loc("model.py":4:5)
  nisa.dma_copy %t, %out
      : memref<8x4xf32, {SBUF}>, memref<8x4xf32, {HBM}> loc("model.py":4:5)
  %whole = memref.alloc() : memref<8x4xf32, {HBM}> loc("model.py":4:5)
  nisa.dma_copy %whole, %t
      : memref<8x4xf32, {HBM}>, memref<8x4xf32, {SBUF}> loc("model.py":4:5)
  %other = memref.alloc() : memref<8x4xf32, {HBM}> loc("model.py":9:5)
  %part = memref.subview %other[0, 0] [1, 4] [1, 1]
      : memref<8x4xf32, {HBM}> to {ROW} loc("model.py":5:5)
  %src = memref.subview %a[0, 0] [4, 1] [1, 1]
      : memref<4x8xf32, {HBM}> to {COLUMN} loc("model.py":5:5)
  nisa.dma_copy %part, %src : {ROW}, {COLUMN} loc("model.py":5:5)
  %acc = memref.alloc() : memref<3x4xf32, {HBM}> loc("model.py":6:5)
  %tile = memref.alloc() : memref<1x4xf32, {SBUF}> loc("model.py":7:5)
  scf.for %j = %c0 to %c3 step %c1 {{
    %arow = memref.subview %acc[%j, 0] [1, 4] [1, 1]
        : memref<3x4xf32, {HBM}> to {ROW} loc("model.py":6:5)
    %asrc = memref.subview %a[0, %j] [4, 1] [1, 1]
        : memref<4x8xf32, {HBM}> to {COLUMN} loc("model.py":6:5)
    nisa.dma_copy %arow, %asrc : {ROW}, {COLUMN} loc("model.py":6:5)
    %ablock = memref.subview %acc[%j, 0] [1, 4] [1, 1]
        : memref<3x4xf32, {HBM}> to {BLOCK} loc("model.py":7:5)
    nisa.dma_copy %tile, %ablock : memref<1x4xf32, {SBUF}>, {BLOCK} loc("model.py":7:5)
  }} loc("model.py":6:5)
  %last = memref.alloc() : memref<2x4xf32, {HBM}> loc("model.py":8:5)
  %lrow = memref.subview %last[1, 0] [1, 4] [1, 1]
      : memref<2x4xf32, {HBM}> to {ROW} loc("model.py":8:5)
  %lsrc = memref.subview %a[0, 7] [4, 1] [1, 1]
      : memref<4x8xf32, {HBM}> to {COLUMN} loc("model.py":8:5)
  nisa.dma_copy %lrow, %lsrc : {ROW}, {COLUMN} loc("model.py":8:5)
  func.return %whole : memref<8x4xf32, {HBM}>
}}
"""

A = np.arange(32, dtype=np.float32).reshape(4, 8) * 0.5 - 3.0


def run_traced(tmp_path: Path, *extra: str) -> list[TraceRecord]:
    program, inputs, trace = tmp_path / "p.mlir", tmp_path / "in.npz", tmp_path / "t.npz"
    program.write_text(PROGRAM)
    np.savez(inputs, arg0=A)
    argv = [str(program), "--inputs", str(inputs), "--quiet", "--trace", str(trace), *extra]
    assert mx_run.main(argv, io.StringIO()) == 0
    return [r for r in mx_diff.read_side(str(trace)).records if not r.name]


def parsed() -> ModuleOp:
    ctx = Context()
    for name, factory in load_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    module, _ = parse_located(ctx, PROGRAM, "p.mlir")
    return module


def line(record: TraceRecord) -> int:
    return int(record.source.split(":")[1])


def test_a_run_ends_with_the_whole_buffer_it_completed(tmp_path: Path) -> None:
    records = run_traced(tmp_path)
    order = [(line(r), r.what) for r in records]
    assert order == [
        *[(3, "dst")] * 8,
        (3, BUFFER),  # the transpose, whole, after its last row
        (4, "dst"),  # into SBUF: no buffer record
        (4, "dst"),
        (4, BUFFER),  # %whole
        (5, "dst"),  # into a buffer line 9 allocated: no buffer record
        (6, "dst"),
        (7, "dst"),
        (6, "dst"),
        (7, "dst"),
        (6, "dst"),
        (6, BUFFER),  # the latest of the three runs of line 6 replaced the others
        (7, "dst"),
        (8, "dst"),
        (8, BUFFER),  # the last run, ended by the end of the run of the program
    ]
    transpose = records[8]
    assert (transpose.op, transpose.core) == ("nisa.dma_copy", 0)
    assert transpose.source == "model.py:3:5"
    assert transpose.location.endswith("p.mlir:12:5")  # its last write's place
    assert transpose.value.tobytes() == np.ascontiguousarray(A.T).tobytes()
    assert records[7].value.tobytes() == A[:, 7].tobytes()  # the last row write alone
    assert records[11].value.tobytes() == np.ascontiguousarray(A.T).tobytes()
    assert records[18].value.tobytes() == A[:, :3].T.copy().tobytes()
    last = records[-1].value
    assert last.shape == (2, 4)
    assert last[1].tobytes() == A[:, 7].tobytes()
    assert np.isnan(last[0]).all()  # never written: the read-before-write sentinel


def test_the_estimate_counts_each_buffer_record(tmp_path: Path) -> None:
    """Every loop bound is constant and each buffer is recorded once: the estimate is the
    trace's exact size."""
    records = run_traced(tmp_path)
    module = parsed()
    estimate, unknown = estimate_trace_bytes(module, TraceFilter())
    assert not unknown
    assert estimate == sum(r.value.nbytes for r in records)
    buffers = sum(r.value.nbytes for r in records if r.what == BUFFER)
    assert buffers == (32 + 32 + 12 + 8) * 4
    unfiltered_lines = estimate_trace_bytes(module, TraceFilter.parse(["4-9"]))[0]
    assert unfiltered_lines == estimate - (8 * 4 + 32) * 4  # line 3: rows and buffer


def test_a_filtered_out_writer_completes_no_buffer(tmp_path: Path) -> None:
    records = run_traced(tmp_path, "--trace-filter", "4-9")
    assert 3 not in {line(r) for r in records}
    assert [line(r) for r in records if r.what == BUFFER] == [4, 6, 8]


def test_the_last_run_ends_at_finish() -> None:
    """From Python: the run going on when the program returns is ended by
    ``Trace.finish()`` (mx-run calls it, ``save()`` too); a second call adds nothing."""
    trace = Trace()
    interpreter = bind_recorders(
        make_interpreter(parsed(), listeners=[trace.recorder()], fast_path=False)
    )
    interpreter.call_op("main", (A.copy(),))
    assert [r.what for r in trace.records[-2:]] == ["dst", "dst"]  # lines 7 and 8
    trace.finish()
    assert (trace.records[-1].what, trace.records[-1].source) == (BUFFER, "model.py:8:5")
    count = len(trace.records)
    trace.finish()
    trace.save(io.BytesIO())
    assert len(trace.records) == count


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ((128, 4, 32), (128, 128), True),  # a nisa tile and a bir pattern
        ((1, 8, 1, 32), (8, 32), True),  # unit dims
        ((1, 8, 1, 32), (1, 256), True),  # a bir HBM pattern: one flat row
        ((64, 32), (32, 64), False),  # dims cut elsewhere: a real shape difference
        ((8, 32), (128, 2), False),
        ((64, 32), (64, 16), False),  # another element count
    ],
)
def test_same_layout(a: tuple[int, ...], b: tuple[int, ...], same: bool) -> None:
    ra = TraceRecord("x", "", "m.py:1:1", 0, "dst", np.zeros(a, np.float32))
    rb = TraceRecord("x", "", "m.py:1:1", 0, "dst", np.zeros(b, np.float32))
    assert mx_diff.same_layout(ra, rb) is same
    assert mx_diff.same_layout(rb, ra) is same
    finding, _ = mx_diff.first_difference([ra], [rb], "source")
    if same:
        assert finding is None
    else:
        assert finding is not None
        assert finding.difference is None  # shapes differ
