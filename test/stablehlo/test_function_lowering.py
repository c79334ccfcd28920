"""lower-hlo-to-nisa on StableHLO's elementwise functions: each op, run by the stablehlo
interpreter, as ``nisa.activation`` (or the ALU's ``power``) after lower-hlo-to-nisa and
as ``bir.activation`` after lower-nisa-to-bir, gives the same bytes on f32, bf16 and f16
inputs over a wide range with the edge values (signed zeros, infinities, NaN,
subnormals, the overflow thresholds). That the stablehlo level is the correctly rounded
function is checked against decimal in ``test_stablehlo_elementary.py``; here the
lowered ops are also checked to be the engine ops named, and a few values against
``math`` directly."""

from __future__ import annotations

import math
import re

import ml_dtypes
import numpy as np
import pytest
from test_stablehlo_lowering import program, three_levels  # pyright: ignore

from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
from mxdsl.transforms.import_stablehlo import ImportStableHloPass
from mxdsl.transforms.lower_hlo_to_nisa import LowerHloToNisaPass

RNG = np.random.default_rng(36)
DTYPES = {
    "f32": np.dtype(np.float32),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f16": np.dtype(np.float16),
}
EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 88.72, 88.73, -103.9, -1.0, 1.0]
EDGES += [0.5, -0.5, 3e38, -3e38, 9.0, -9.0, 27.0, 1e-8, -0.99999994]

UNARY = {
    "stablehlo.exponential": "exp",
    "stablehlo.exponential_minus_one": "expm1",
    "stablehlo.log": "log",
    "stablehlo.log_plus_one": "log1p",
    "stablehlo.logistic": "sigmoid",
    "stablehlo.tanh": "tanh",
    "stablehlo.sqrt": "sqrt",
    "stablehlo.rsqrt": "rsqrt",
    "chlo.erf": "erf",
    "chlo.erfc": "erfc",
    "chlo.square": "square",
}


def wide_values(element: str, shape: tuple[int, int]) -> np.ndarray:
    """Normal samples scaled by 2^-24 .. 2^7 (the functions' interesting range and
    beyond), both signs, the edge values first."""
    n = shape[0] * shape[1]
    x = RNG.standard_normal(n) * np.exp2(RNG.integers(-24, 8, size=n))
    x[: len(EDGES)] = EDGES
    with np.errstate(over="ignore"):
        return x.astype(np.float32).astype(DTYPES[element]).reshape(shape)


def unary_program(op: str, element: str, shape: str) -> str:
    t = f"tensor<{shape}x{element}>"
    if op.startswith("chlo."):
        body = f"  %r = {op} %arg0 : {t} -> {t}"
    else:
        body = f"  %r = {op} %arg0 : {t}"
    return program([t], body, t)


def lowered(src: str) -> str:
    ctx = _context()
    module, _ = parse_located(ctx, src, "case.mlir")
    for p in (ImportStableHloPass(), LowerHloToNisaPass()):
        p.apply(ctx, module)
    return str(module)


@pytest.mark.parametrize("element", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_function_three_levels(op: str, element: str) -> None:
    src = unary_program(op, element, "130x600")  # a partial row tile and column tile
    x = wide_values(element, (130, 600))
    (out,) = three_levels(src, [x])
    assert out.dtype == x.dtype
    text = lowered(src)
    assert re.search(rf"nisa\.activation %\w+, {UNARY[op]} %", text)
    assert "tensor_tensor" not in text


def test_lowered_op_is_the_activation() -> None:
    text = lowered(unary_program("stablehlo.exponential", "f32", "4x8"))
    assert text.count("nisa.activation") == 1
    assert ", exp %" in text


@pytest.mark.parametrize(
    ("element", "exponent"),
    [
        ("f32", 3),
        ("f32", -2),
        ("f32", 0),
        ("f32", 5),
        ("f32", 1),
        ("f32", 2),
        ("bf16", 2),
        ("f16", 2),
    ],
)
def test_power_by_a_constant_integer(element: str, exponent: int) -> None:
    t = f"tensor<8x40x{element}>"
    body = (
        f"  %n = stablehlo.constant dense<{float(exponent)}> : {t}\n"
        f"  %r = stablehlo.power %arg0, %n : {t}"
    )
    src = program([t], body, t)
    x = wide_values(element, (320, 1)).reshape(8, 40)
    (out,) = three_levels(src, [x])
    # the correctly rounded power (math.pow is exact-then-rounded for these in float64
    # when the result is exact in float64; compare where it is)
    wide = x.astype(np.float64)
    with np.errstate(all="ignore"):
        exact = wide**exponent
    ok = np.isfinite(exact) & (np.abs(exact) < 1e30) & (np.abs(exact) > 1e-30)
    if exponent in (0, 1, 2):  # exact in float64 for every input of these types
        with np.errstate(over="ignore"):
            want = exact.astype(x.dtype).astype(np.float64)
        assert np.array_equal(out.astype(np.float64)[ok], want[ok])
    text = lowered(src)
    assert ("square" in text) == (exponent == 2)


def test_a_few_values_against_math() -> None:
    x = np.array([[0.5, -2.0, 3.0, 1e-3]], dtype=np.float32)
    checks = {
        "stablehlo.exponential": math.exp,
        "stablehlo.tanh": math.tanh,
        "stablehlo.sqrt": lambda v: math.sqrt(v) if v >= 0 else math.nan,
        "chlo.erf": math.erf,
        "chlo.erfc": math.erfc,
    }
    for op, fn in checks.items():
        (out,) = three_levels(unary_program(op, "f32", "1x4"), [x])
        want = np.array([fn(float(v)) for v in x[0]], dtype=np.float32)
        # math's libm is within an ulp of float64: its f32 rounding agrees but for ties
        assert np.allclose(out[0], want, rtol=2**-23, atol=0, equal_nan=True), op


@pytest.mark.parametrize(
    ("shape", "view"),
    [
        ("4096", "128x32"),  # rank 1: folded onto the partitions
        ("3x5x64", "15x64"),  # 960 elements do not fill 128 rows: leading dims merged
        ("2x4x8x64", "128x32"),  # rank 4, 4096 elements
        ("2x130x40", "260x40"),  # more than 128 rows: two row tiles
        ("1x1x1000", "1x1000"),  # one row, two free tiles
        ("4x128x32", "128x128"),  # MX-block-wide last dim: wider free tiles
        ("64x256x32", "1024x512"),  # 1024 rows of 512 instead of 16384 rows of 32
        ("3x256x600", "768x600"),  # wide rows already: as written
    ],
)
def test_functions_of_any_rank(shape: str, view: str) -> None:
    dims = tuple(int(d) for d in shape.split("x"))
    src = unary_program("stablehlo.logistic", "f32", shape)
    x = wide_values("f32", (1, int(np.prod(dims)))).reshape(dims)
    (out,) = three_levels(src, [x])
    assert out.shape == dims
    rows, cols = (int(d) for d in view.split("x"))
    text = lowered(src)
    tile = f"memref<{min(rows, 128)}x{min(cols, 512)}xf32, #nisa.mem<sbuf>>"
    assert re.search(rf"nisa\.activation %\w+, sigmoid %\w+ : {re.escape(tile)}", text), text
