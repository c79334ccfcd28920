"""Differential test of the interpreters' fast path on random nisa programs.

Each program (``random_nisa.py``: loops of zero, one and more trips, calls inside loops,
subviews of one buffer, DMAs overwriting matmul operands between passes, PSUM chains,
shared moving tiles, NaN payloads, +-Inf, -0) runs four ways: the nisa interpreter with
its fast path and in the reference mode, and after lower-nisa-to-bir the bir interpreter
in both modes. All four must give the same bits (``docs/interpreter.md``, "The fast path
and the reference mode").

CI runs a fixed, derandomized set (``MXDSL_RANDOM_PROGRAMS``, default 200 examples). A
longer search, with fresh random programs each time::

    MXDSL_RANDOM_PROGRAMS=20000 MXDSL_RANDOM_PROGRAMS_SEARCH=1 \\
        python -m pytest test/interpreters/test_random_programs.py -q

A counterexample hypothesis finds is shrunk; add it below as a regression test.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import random_nisa as gen
from hypothesis import HealthCheck, given, settings
from xdsl.context import Context

from mxdsl.interpreters import make_interpreter
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
from mxdsl.transforms.lower_nisa_to_bir import LowerNisaToBirPass

EXAMPLES = int(os.environ.get("MXDSL_RANDOM_PROGRAMS", "200"))
SEARCH = os.environ.get("MXDSL_RANDOM_PROGRAMS_SEARCH", "") == "1"


def _parse(ctx: Context, text: str):  # noqa: ANN202
    from xdsl.parser import Parser

    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def run_all_ways(program: gen.Program, arrays: tuple[np.ndarray, ...]) -> dict[str, np.ndarray]:
    """``%out`` after running ``program`` four ways, by name."""
    text = gen.render(program)
    ctx = _context()
    results: dict[str, np.ndarray] = {}
    nisa_module = _parse(ctx, text)
    bir_module = _parse(ctx, text)
    LowerNisaToBirPass().apply(ctx, bir_module)
    bir_module.verify()
    for level, module in (("nisa", nisa_module), ("bir", bir_module)):
        for fast in (True, False):
            args = tuple(a.copy() for a in arrays)
            interpreter = make_interpreter(module, ctx, fast_path=fast)
            interpreter.call_op("main", args)
            results[f"{level} {'fast' if fast else 'reference'}"] = args[2]
    return results


def assert_same_bits(program: gen.Program, arrays: tuple[np.ndarray, ...]) -> None:
    results = run_all_ways(program, arrays)
    reference = results["nisa reference"].view(np.uint32)
    for name, out in results.items():
        words = out.view(np.uint32)
        differ = np.argwhere(words != reference)
        assert differ.size == 0, (
            f"{name} differs from the nisa reference at {differ[:4].tolist()}: "
            f"{[hex(w) for w in words[tuple(differ[0])].ravel()]} vs "
            f"{[hex(w) for w in reference[tuple(differ[0])].ravel()]}\n{gen.render(program)}"
        )


@settings(
    max_examples=EXAMPLES,
    derandomize=not SEARCH,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(gen.programs(), gen.inputs())
def test_random_programs_agree(program: gen.Program, arrays: tuple[np.ndarray, ...]) -> None:
    assert_same_bits(program, arrays)


# ----------------------------------------------------------- shrunk regressions


def _inputs(a: np.ndarray, seed: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    seeds = np.zeros((gen.M, gen.SEED_COLUMNS), np.float32) if seed is None else seed
    return a, seeds, np.zeros((gen.M, gen.SLOTS * gen.N), np.float32)


def test_reload_in_a_called_function_inside_a_loop() -> None:
    """A helper runs a pass, reloads its operand's buffer and runs the same pass again,
    called from a one-trip loop: the second pass reads the new tile (a stale analysis
    of the first gave the first tile's result)."""
    first = gen.Matmul("p0", "s0", gen.Column(0), "s1", gen.Column(0), accumulate=False)
    helper = (
        first,
        gen.Emit("p0", 0),
        gen.Load("s1", gen.Column(0), 8, 40),
        first,
        gen.Emit("p0", 1),
    )
    program = gen.Program((gen.Loop(1, (gen.Call(0),)),), (helper,))
    a = np.ones((gen.K, gen.A_COLUMNS), gen.BF16)
    a[:, 40:48] = 2
    results = run_all_ways(program, _inputs(a))
    for name, out in results.items():
        # K products of 1 x 1, then of 1 x 2: worked out by hand
        assert (out[:, 0 : gen.N] == gen.K).all(), name
        assert (out[:, gen.N : 2 * gen.N] == 2 * gen.K).all(), name


@pytest.mark.parametrize("in_loop", [False, True])
def test_seeded_nan_keeps_its_bits_whatever_shares_the_batch(in_loop: bool) -> None:
    """PSUM seeded with NaN payloads, a small accumulating pass into it, then an
    overflowing pass into another tile with the same moving tile (the two may run as one
    batch): the seeded NaNs keep their bits and the other tile is +inf
    (``docs/numerics.md``, "NaN in PSUM")."""
    seed = np.zeros((gen.M, gen.SEED_COLUMNS), np.float32)
    seed[0, 0:2] = np.array([0xFFC00000, 0x7FC00001], np.uint32).view(np.float32)
    a = np.ones((gen.K, gen.A_COLUMNS), gen.BF16)
    a[:, 0:4] = 2.0**-30  # s0's stationary: small products
    a[:, 8:16] = 2.0**20  # s0's moving tile, shared by both passes
    a[:, 32:36] = 2.0**105  # s1's stationary: K products of 2**125 overflow fp32
    small = gen.Matmul("p0", "s0", gen.Column(0), "s0", gen.Column(8), accumulate=True)
    large = gen.Matmul("p1", "s1", gen.Column(0), "s0", gen.Column(8), accumulate=False)
    body = (gen.Seed("p0", 0), small, large)
    main = (gen.Loop(1, body),) if in_loop else body
    results = run_all_ways(gen.Program(main), _inputs(a, seed))
    for name, out in results.items():
        p0 = out[:, (gen.SLOTS - 1) * gen.N :].view(np.uint32)  # emitted last
        p1 = out[:, (gen.SLOTS - 2) * gen.N : (gen.SLOTS - 1) * gen.N]
        assert p0[0, 0] == 0xFFC00000, (name, hex(p0[0, 0]))
        assert p0[0, 1] == 0x7FC00001, (name, hex(p0[0, 1]))
        assert np.isposinf(p1).all(), name
