"""nisa ``tensor_tensor ... power`` on floats: float64 ``elementary.power`` rounded to
f32 (then to the dst), checked against Decimal evaluated here; integer operands stay
numpy's exact integer power."""

from __future__ import annotations

import decimal
from decimal import Decimal

import numpy as np

from mxdsl.interpreters import make_interpreter
from mxdsl.interpreters.spmd import run_spmd
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context

RNG = np.random.default_rng(1515)


def run(body: str, args: str, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
    ctx = _context()
    module, _ = parse_located(ctx, f"func.func @main({args}) {{\n{body}\n  func.return\n}}", "t")
    module.verify()
    run_spmd(lambda ls: make_interpreter(module, ctx, listeners=ls), "main", inputs, 1)
    return inputs


def sb(shape: str) -> str:
    return f"memref<{shape}xf32, #nisa.mem<sbuf>>"


def hbm(shape: str) -> str:
    return f"memref<{shape}xf32, #nisa.mem<hbm>>"


def load(name: str, shape: str) -> str:
    alloc = f"  %{name} = memref.alloc() : {sb(shape)}\n"
    return alloc + f"  nisa.dma_copy %{name}, %{name}_h : {sb(shape)}, {hbm(shape)}\n"


def store(name: str, shape: str) -> str:
    return f"  nisa.dma_copy %out, %{name} : {hbm(shape)}, {sb(shape)}\n"


def test_tensor_tensor_power_f32_is_correctly_rounded():
    a = np.exp2(RNG.uniform(-4, 4, (4, 8))).astype(np.float32)
    b = RNG.uniform(-6, 6, (4, 8)).astype(np.float32)
    b[0, :4] = [0.0, 1.0, 2.0, -1.0]  # exact cases
    body = (
        load("a", "4x8")
        + load("b", "4x8")
        + f"  %d = memref.alloc() : {sb('4x8')}\n"
        + f"  nisa.tensor_tensor %d, power %a, %b : {sb('4x8')}, {sb('4x8')}, {sb('4x8')}\n"
        + store("d", "4x8")
    )
    *_, out = run(
        body,
        f"%a_h: {hbm('4x8')}, %b_h: {hbm('4x8')}, %out: {hbm('4x8')}",
        a,
        b,
        np.zeros((4, 8), np.float32),
    )
    with decimal.localcontext(decimal.Context(prec=60)):
        want = np.array(
            [
                [
                    float((Decimal(float(y)) * Decimal(float(x)).ln()).exp())
                    for x, y in zip(ra, rb, strict=True)
                ]
                for ra, rb in zip(a, b, strict=True)
            ]
        ).astype(np.float32)  # float64 nearest, then f32: correct but for 2**-29-close ties
    assert np.array_equal(out, want)
    assert out[0, :4].tolist() == [
        1.0,
        float(a[0, 1]),
        float(np.float32(float(a[0, 2]) ** 2)),
        float(np.float32(1 / a[0, 3])),
    ]
