"""Random nisa programs for the differential tests of the interpreters' fast path.

A program is a tree of statements (:class:`Program`) drawn by hypothesis
(:func:`programs`) and printed as nisa IR (:func:`render`): loads of SBUF tiles
(whole buffers or subviews, static or moved by a loop's induction variable) that
overwrite matmul operands between passes, ``nc_matmul`` into f32 and bf16 PSUM tiles
(overwriting or accumulating, several tiles sharing one moving tile), PSUM tiles seeded
with NaN payloads, results copied out to HBM at any point, ``scf.for`` loops of zero,
one or more trips (nested), and calls of helper functions (each with buffers of its
own; lower-nisa-to-bir takes only HBM arguments) inside loops. The inputs
(:func:`inputs`) hold NaN payloads (quiet and signalling, both signs), +-Inf, -0,
subnormals and values 2**-130 .. 2**120 apart, so passes overflow and cancel.

Every buffer is written before it is read (PSUM by a memset or a seed; an
uninitialised tile's bits are each level's own sentinel), so the program's result is
fixed by the semantics, and every level and mode must give the same bits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

K = 16  # partitions of the SBUF tiles (the contraction of a pass)
M = 4  # stationary columns: the PSUM tiles' partitions
N = 8  # moving columns: the PSUM tiles' free size
SBUF_COLUMNS = 32
A_COLUMNS = 64
SEED_COLUMNS = 2 * N
SLOTS = 8  # output tiles of N columns in %out
SBUF = ("s0", "s1")
PSUM = ("p0", "p1", "pb")  # pb is bf16

BF16 = np.dtype(ml_dtypes.bfloat16)


@dataclass(frozen=True)
class Column:
    """A column offset: ``base`` plus 4 x the innermost loop's induction variable when
    ``moves`` (the generator keeps every trip in bounds)."""

    base: int
    moves: bool = False


@dataclass(frozen=True)
class Load:
    sbuf: str
    column: Column
    width: int
    source: int  # column of %a


@dataclass(frozen=True)
class Matmul:
    dst: str
    stationary: str
    stationary_column: Column
    moving: str
    moving_column: Column
    accumulate: bool


@dataclass(frozen=True)
class Seed:
    dst: str
    source: int  # column of %seed


@dataclass(frozen=True)
class Emit:
    src: str
    slot: int


@dataclass(frozen=True)
class Loop:
    trips: int
    body: tuple[object, ...]


@dataclass(frozen=True)
class Call:
    callee: int


@dataclass(frozen=True)
class Program:
    main: tuple[object, ...]
    helpers: tuple[tuple[object, ...], ...] = field(default=())


def _column(draw: st.DrawFn, width: int, columns: int, trips: int) -> Column:
    moves = trips > 1 and draw(st.booleans())
    reach = 4 * (trips - 1) if moves else 0
    limit = (columns - width - reach) // 4
    return Column(4 * draw(st.integers(0, limit)), moves)


@st.composite
def _statement(draw: st.DrawFn, depth: int, trips: int, helpers: int) -> object:
    kinds = ["load", "load", "matmul", "matmul", "matmul", "seed", "emit"]
    if depth < 2:
        kinds.append("loop")
    if helpers:
        kinds.append("call")
    kind = draw(st.sampled_from(kinds))
    if kind == "load":
        width = draw(st.sampled_from((4, 8, 16)))
        return Load(
            draw(st.sampled_from(SBUF)),
            _column(draw, width, SBUF_COLUMNS, trips),
            width,
            4 * draw(st.integers(0, (A_COLUMNS - width) // 4)),
        )
    if kind == "matmul":
        return Matmul(
            draw(st.sampled_from(PSUM)),
            draw(st.sampled_from(SBUF)),
            _column(draw, M, SBUF_COLUMNS, trips),
            draw(st.sampled_from(SBUF)),
            _column(draw, N, SBUF_COLUMNS, trips),
            draw(st.booleans()),
        )
    if kind == "seed":
        return Seed(draw(st.sampled_from(PSUM)), N * draw(st.integers(0, 1)))
    if kind == "emit":
        return Emit(draw(st.sampled_from(PSUM)), draw(st.integers(0, SLOTS - 1)))
    if kind == "loop":
        inner = draw(st.sampled_from((0, 1, 1, 2, 3)))
        return Loop(inner, draw(_body(depth + 1, inner, helpers)))
    return Call(draw(st.integers(0, helpers - 1)))


def _body(depth: int, trips: int, helpers: int) -> st.SearchStrategy[tuple[object, ...]]:
    return st.lists(_statement(depth, trips, helpers), min_size=1, max_size=6).map(tuple)


@st.composite
def programs(draw: st.DrawFn) -> Program:
    """A random program: up to two helpers (helper i may call helpers below i) and
    ``@main``."""
    count = draw(st.integers(0, 2))
    helpers = tuple(draw(_body(0, 1, index)) for index in range(count))
    return Program(draw(_body(0, 1, count)), helpers)


# ------------------------------------------------------------------------ printing

_HBM = "#nisa.mem<hbm>"
_A = f"memref<{K}x{A_COLUMNS}xbf16, {_HBM}>"
_SEEDS = f"memref<{M}x{SEED_COLUMNS}xf32, {_HBM}>"
_OUT = f"memref<{M}x{SLOTS * N}xf32, {_HBM}>"
_ARGS = f"%a: {_A}, %seed: {_SEEDS}, %out: {_OUT}"
_ARG_TYPES = f"{_A}, {_SEEDS}, {_OUT}"


def _buffer_type(name: str) -> str:
    if name in SBUF:
        return f"memref<{K}x{SBUF_COLUMNS}xbf16, #nisa.mem<sbuf>>"
    if name == "st":
        return f"memref<{M}x{N}xf32, #nisa.mem<sbuf>>"
    element = "bf16" if name == "pb" else "f32"
    return f"memref<{M}x{N}x{element}, #nisa.mem<psum>>"


class _Printer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.ivs: list[str] = []

    def fresh(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def emit(self, line: str) -> None:
        self.lines.append("  " * (len(self.ivs) + 1) + line)

    def index(self, column: Column) -> tuple[str, bool]:
        """The offset operand of a subview: a static number or an SSA index."""
        if not column.moves or not self.ivs:
            return str(column.base), False
        scaled, offset = self.fresh(), self.fresh()
        self.emit(f"{scaled} = arith.muli {self.ivs[-1]}, %c4 : index")
        self.emit(f"{offset} = arith.addi {scaled}, %c{column.base} : index")
        return offset, True

    def subview(
        self, source: str, source_type: str, rows: int, column: Column, width: int, stride: int
    ) -> tuple[str, str]:
        offset, dynamic = self.index(column)
        memory = source_type.rsplit(", ", 1)[1]
        element = source_type.split("x")[2].split(",")[0]
        shown = "?" if dynamic else str(column.base)
        view_type = (
            f"memref<{rows}x{width}x{element}, strided<[{stride}, 1], offset: {shown}>, {memory}"
        )
        name = self.fresh()
        self.emit(
            f"{name} = memref.subview %{source}[0, {offset}] [{rows}, {width}] [1, 1] "
            f": {source_type} to {view_type}"
        )
        return name, view_type

    def statement(self, s: object) -> None:
        if isinstance(s, Load):
            sbuf_type = _buffer_type(s.sbuf)
            dst, dst_type = self.subview(s.sbuf, sbuf_type, K, s.column, s.width, SBUF_COLUMNS)
            src, src_type = self.subview("a", _A, K, Column(s.source), s.width, A_COLUMNS)
            self.emit(f"nisa.dma_copy {dst}, {src} : {dst_type}, {src_type}")
        elif isinstance(s, Matmul):
            stat, stat_type = self.subview(
                s.stationary, _buffer_type(s.stationary), K, s.stationary_column, M, SBUF_COLUMNS
            )
            mov, mov_type = self.subview(
                s.moving, _buffer_type(s.moving), K, s.moving_column, N, SBUF_COLUMNS
            )
            acc = " accumulate" if s.accumulate else ""
            self.emit(
                f"nisa.nc_matmul %{s.dst}, {stat}, {mov}{acc} : {_buffer_type(s.dst)}, "
                f"{stat_type}, {mov_type}"
            )
        elif isinstance(s, Seed):
            src, src_type = self.subview("seed", _SEEDS, M, Column(s.source), N, SEED_COLUMNS)
            self.emit(f"nisa.dma_copy %st, {src} : {_buffer_type('st')}, {src_type}")
            self.emit(
                f"nisa.tensor_copy %{s.dst}, %st : {_buffer_type(s.dst)}, {_buffer_type('st')}"
            )
        elif isinstance(s, Emit):
            self.emit(
                f"nisa.tensor_copy %st, %{s.src} : {_buffer_type('st')}, {_buffer_type(s.src)}"
            )
            dst, dst_type = self.subview("out", _OUT, M, Column(N * s.slot), N, SLOTS * N)
            self.emit(f"nisa.dma_copy {dst}, %st : {dst_type}, {_buffer_type('st')}")
        elif isinstance(s, Loop):
            iv = f"%i{len(self.ivs)}"
            self.emit(f"scf.for {iv} = %c0 to %c{s.trips} step %c1 {{")
            self.ivs.append(iv)
            for inner in s.body:
                self.statement(inner)
            self.ivs.pop()
            self.emit("}")
        elif isinstance(s, Call):
            self.emit(f"func.call @helper{s.callee}(%a, %seed, %out) : ({_ARG_TYPES}) -> ()")
        else:
            raise TypeError(s)

    def function(self, name: str, body: tuple[object, ...], final: bool) -> str:
        self.lines, self.ivs = [], []
        constants = sorted({0, 1, 2, 3, 4, *range(0, A_COLUMNS + 1, 4)})
        for value in constants:
            self.emit(f"%c{value} = arith.constant {value} : index")
        for buffer in (*SBUF, "st", *PSUM):
            self.emit(f"%{buffer} = memref.alloc() : {_buffer_type(buffer)}")
        for index, buffer in enumerate(SBUF):  # every buffer written before it is read
            whole = Load(buffer, Column(0), SBUF_COLUMNS, SBUF_COLUMNS * index)
            self.statement(whole)
        for buffer in PSUM:
            self.emit(f"nisa.memset %{buffer}, 0.000000e+00 : {_buffer_type(buffer)}")
        for s in body:
            self.statement(s)
        if final:
            for slot, buffer in enumerate(PSUM):
                self.statement(Emit(buffer, SLOTS - 1 - slot))
        self.emit("func.return")
        return f"func.func @{name}({_ARGS}) {{\n" + "\n".join(self.lines) + "\n}"


def render(program: Program) -> str:
    """The program as nisa IR: the helpers, then ``@main``."""
    printer = _Printer()
    functions = [
        printer.function(f"helper{index}", body, final=False)
        for index, body in enumerate(program.helpers)
    ]
    functions.append(printer.function("main", program.main, final=True))
    return "\n".join(functions) + "\n"


# -------------------------------------------------------------------------- inputs

_BF16_SPECIALS = np.array(
    [0x7FC0, 0xFFC0, 0x7FC1, 0x7F81, 0x7F80, 0xFF80, 0x8000, 0x0000, 0x0001, 0x8001],
    np.uint16,
).view(BF16)
"""bf16 NaN payloads (quiet, signalling, both signs), +-Inf, +-0, subnormals."""

_F32_SEEDS = np.array(
    [0xFFC00000, 0x7FC00001, 0x7FC00000, 0x7F800001, 0xFF800000, 0x80000000],
    np.uint32,
).view(np.float32)
"""f32 PSUM seeds: NaN payloads (the canonical one too), a signalling NaN, -Inf, -0."""


@st.composite
def inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``%a`` (bf16 values over a wide exponent range, with opposite pairs for
    cancellation and a few specials), ``%seed`` (f32, some NaN payloads) and a zeroed
    ``%out``."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    spread = draw(st.sampled_from((4, 40, 120)))
    a = rng.standard_normal((K, A_COLUMNS)) * np.exp2(
        rng.integers(-spread, spread + 1, (K, A_COLUMNS))
    )
    if draw(st.booleans()):  # cancellation: a column and its negation side by side
        a[:, 1::2] = -a[:, 0::2]
    a = a.astype(BF16)
    specials = draw(st.integers(0, 3))
    for _ in range(specials):
        a[rng.integers(K), rng.integers(A_COLUMNS)] = rng.choice(_BF16_SPECIALS)
    seed = (rng.standard_normal((M, SEED_COLUMNS)) * 4).astype(np.float32)
    for _ in range(draw(st.integers(0, 4))):
        seed[rng.integers(M), rng.integers(SEED_COLUMNS)] = rng.choice(_F32_SEEDS)
    return a, seed, np.zeros((M, SLOTS * N), np.float32)
