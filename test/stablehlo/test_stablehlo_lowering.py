"""lower-hlo-to-nisa on the StableHLO ops import-stablehlo keeps (JAX's MXFP8 quantization
and layout ops): every op, run by the stablehlo interpreter, after lower-hlo-to-nisa (nisa
interpreter) and after lower-nisa-to-bir (bir interpreter), gives the same bytes on
inputs with the edge values (signed zeros, infinities, NaN, subnormals, the integer
extremes). Integer and exact float ops are also checked against plain numpy."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np
import pytest

from mxdsl.interpreters import make_interpreter
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
from mxdsl.transforms.import_stablehlo import ImportStableHloPass
from mxdsl.transforms.lower_hlo_to_nisa import LowerHloToNisaPass
from mxdsl.transforms.lower_nisa_to_bir import LowerNisaToBirPass

RNG = np.random.default_rng(18)
DTYPES = {
    "f32": np.dtype(np.float32),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "ui32": np.dtype(np.uint32),
    "si32": np.dtype(np.int32),
    "ui8": np.dtype(np.uint8),
}
FLOAT_EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -3e38, 448.0, 1.5, -2.5]


def values(element: str, shape: tuple[int, ...]) -> np.ndarray:
    dtype = DTYPES[element]
    n = int(np.prod(shape))
    if element in ("f32", "bf16"):
        x = RNG.standard_normal(n) * np.exp2(RNG.integers(-20, 20, size=n))
        x[: len(FLOAT_EDGES)] = FLOAT_EDGES[:n]
        return x.astype(np.float32).astype(dtype).reshape(shape)
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, int(info.max) + 1, size=n, dtype=np.int64)
    edges = [0, 1, info.min, info.max, (1 << 24) + 1 if info.bits == 32 else 7]
    x[: min(n, len(edges))] = edges[:n]
    return x.astype(dtype).reshape(shape)


def three_levels(src: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The stablehlo results; asserts nisa and bir give the same bytes."""
    ctx = _context()
    module, _ = parse_located(ctx, src, "case.mlir")
    results: list[list[np.ndarray]] = []
    for passes in ([], [ImportStableHloPass(), LowerHloToNisaPass()], [LowerNisaToBirPass()]):
        for p in passes:
            p.apply(ctx, module)
            module.verify()
        out = make_interpreter(module, ctx).call_op("main", tuple(a.copy() for a in inputs))
        results.append([np.asarray(r) for r in out])
    for level, got in zip(("nisa", "bir"), results[1:], strict=True):
        for expected, actual in zip(results[0], got, strict=True):
            assert expected.shape == actual.shape
            assert expected.tobytes() == actual.tobytes(), f"{level} differs:\n{src}"
    return results[0]


def program(args: list[str], body: str, result: str) -> str:
    params = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(args))
    return f"func.func @main({params}) -> {result} {{\n{body}\n  return %r : {result}\n}}\n"


def tensor(shape: str, element: str) -> str:
    return f"tensor<{shape}x{element}>"


BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray] | None] = {
    "add": None,
    "subtract": None,
    "multiply": None,
    "divide": None,
    "maximum": None,
    "minimum": None,
}


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize(("element", "shape"), [("f32", "3x5"), ("bf16", "130x7")])
def test_float_binary(op: str, element: str, shape: str) -> None:
    t = tensor(shape, element)
    dims = tuple(int(d) for d in shape.split("x"))
    a, b = values(element, dims), values(element, dims)
    three_levels(program([t, t], f"  %r = stablehlo.{op} %arg0, %arg1 : {t}", t), [a, b])


INT_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}


@pytest.mark.parametrize("op", list(INT_BINARY))
@pytest.mark.parametrize("element", ["ui32", "si32", "ui8"])
def test_integer_binary(op: str, element: str) -> None:
    t = tensor("4x6", element)
    a, b = values(element, (4, 6)), values(element, (4, 6))
    (r,) = three_levels(program([t, t], f"  %r = stablehlo.{op} %arg0, %arg1 : {t}", t), [a, b])
    with np.errstate(over="ignore"):
        assert np.array_equal(r, INT_BINARY[op](a, b))  # numpy wraps like StableHLO


@pytest.mark.parametrize(
    ("op", "element", "amount"),
    [
        ("shift_left", "ui32", 23),
        ("shift_left", "ui32", 40),
        ("shift_right_logical", "ui32", 23),
        ("shift_right_logical", "ui32", 32),
        ("shift_right_arithmetic", "si32", 5),
        ("shift_right_arithmetic", "si32", 33),
    ],
)
def test_shift_by_constant(op: str, element: str, amount: int) -> None:
    t = tensor("2x600", element)
    a = values(element, (2, 600))
    body = (
        f"  %c = stablehlo.constant dense<{amount}> : tensor<{element}>\n"
        f"  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<{element}>) -> {t}\n"
        f"  %r = stablehlo.{op} %arg0, %b : {t}"
    )
    (r,) = three_levels(program([t], body, t), [a])
    wide = a.astype(np.int64)
    if op == "shift_left":
        expected = (wide << amount) & 0xFFFFFFFF if amount < 32 else np.zeros_like(wide)
    elif op == "shift_right_logical":
        expected = wide >> amount if amount < 32 else np.zeros_like(wide)
    else:
        expected = wide >> min(amount, 31)
    assert np.array_equal(r.astype(np.int64) & 0xFFFFFFFF, expected & 0xFFFFFFFF)


@pytest.mark.parametrize(
    ("op", "element"),
    [("abs", "bf16"), ("abs", "si32"), ("negate", "f32"), ("negate", "si32"), ("not", "ui32")],
)
def test_unary(op: str, element: str) -> None:
    t = tensor("3x5", element)
    a = values(element, (3, 5))
    (r,) = three_levels(program([t], f"  %r = stablehlo.{op} %arg0 : {t}", t), [a])
    with np.errstate(over="ignore"):
        expected = {"abs": np.abs, "negate": np.negative, "not": np.invert}[op](a)
    assert r.tobytes() == expected.tobytes()


@pytest.mark.parametrize("direction", ["EQ", "NE", "GE", "GT", "LE", "LT"])
@pytest.mark.parametrize(("element", "kind"), [("f32", "FLOAT"), ("ui32", "UNSIGNED")])
def test_compare_and_not(direction: str, element: str, kind: str) -> None:
    """compare into i1 (ui8 0 / 1 below hlo), and its logical not."""
    t, p = tensor("3x5", element), tensor("3x5", "i1")
    a = values(element, (3, 5))
    b = a.copy()
    b[1] = values(element, (5,))  # equal in row 0 and 2, different in row 1
    body = (
        f"  %c = stablehlo.compare {direction}, %arg0, %arg1, {kind} : ({t}, {t}) -> {p}\n"
        f"  %r = stablehlo.not %c : {p}"
    )
    (r,) = three_levels(program([t, t], body, p), [a, b])
    fn = {
        "EQ": np.equal,
        "NE": np.not_equal,
        "GE": np.greater_equal,
        "GT": np.greater,
        "LE": np.less_equal,
        "LT": np.less,
    }[direction]
    with np.errstate(invalid="ignore"):
        assert np.array_equal(r.astype(bool), ~fn(a, b))


def test_select_with_a_constant_branch() -> None:
    """JAX's _where: select between a broadcast constant (a subnormal f32) and a tensor."""
    t, p = tensor("9x4", "f32"), tensor("9x4", "i1")
    a, b = values("f32", (9, 4)), values("f32", (9, 4))
    body = (
        f"  %c = stablehlo.compare GT, %arg0, %arg1, FLOAT : ({t}, {t}) -> {p}\n"
        "  %k = stablehlo.constant dense<5.87747175E-39> : tensor<f32>\n"
        f"  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> {t}\n"
        f"  %r = stablehlo.select %c, %kb, %arg1 : {p}, {t}"
    )
    (r,) = three_levels(program([t, t], body, t), [a, b])
    expected = np.where(a > b, np.float32(2.0**-127), b)
    assert r.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("element", "applies", "init", "dims"),
    [
        ("bf16", "maximum", "0xFF80", "[2]"),
        ("f32", "maximum", "0xFF800000", "[1, 2]"),
        ("f32", "minimum", "5.000000e-01", "[2]"),
        ("ui32", "and", "4294967295", "[2]"),
    ],
)
def test_reduce(element: str, applies: str, init: str, dims: str) -> None:
    t = tensor("130x2x32", element)
    kept = "130" if dims == "[1, 2]" else "130x2"
    r_type = tensor(kept, element)
    a = values(element, (130, 2, 32))
    body = (
        f"  %i = stablehlo.constant dense<{init}> : tensor<{element}>\n"
        f"  %r = stablehlo.reduce(%arg0 init: %i) applies stablehlo.{applies} across "
        f"dimensions = {dims} : ({t}, tensor<{element}>) -> {r_type}"
    )
    (r,) = three_levels(program([t], body, r_type), [a])
    axes = (1, 2) if dims == "[1, 2]" else (2,)
    if applies == "and":
        expected = np.bitwise_and.reduce(a, axis=axes)
    else:
        fn = np.maximum if applies == "maximum" else np.minimum
        expected = fn.reduce(a.astype(np.float32), axis=axes)
        if applies == "minimum":
            expected = np.minimum(expected, np.float32(0.5))
        expected = expected.astype(DTYPES[element])
    assert r.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("bf16", "f32"),
        ("f32", "bf16"),
        ("bf16", "f8E4M3FN"),
        ("f32", "f8E5M2"),
        ("ui32", "ui8"),
        ("ui8", "ui32"),
        ("f32", "si32"),
        ("si32", "f32"),
    ],
)
def test_convert(source: str, target: str) -> None:
    s, t = tensor("3x5", source), tensor("3x5", target)
    a = values(source, (3, 5))
    three_levels(program([s], f"  %r = stablehlo.convert %arg0 : ({s}) -> {t}", t), [a])


def test_bitcasts_and_layout() -> None:
    """Same-width bitcasts, a transpose, a broadcast along a unit dim, reshapes."""
    a = values("f32", (3, 4, 5))
    b = values("ui8", (3, 1))
    body = (
        "  %u = stablehlo.bitcast_convert %arg0 : (tensor<3x4x5xf32>) -> tensor<3x4x5xui32>\n"
        "  %t = stablehlo.transpose %u, dims = [2, 0, 1] : (tensor<3x4x5xui32>) -> "
        "tensor<5x3x4xui32>\n"
        "  %s = stablehlo.reshape %t : (tensor<5x3x4xui32>) -> tensor<15x4xui32>\n"
        "  %e = stablehlo.bitcast_convert %arg1 : (tensor<3x1xui8>) -> tensor<3x1xf8E8M0FNU>\n"
        "  %x = stablehlo.broadcast_in_dim %e, dims = [0, 1] : (tensor<3x1xf8E8M0FNU>) -> "
        "tensor<3x4x5xf8E8M0FNU>\n"
        "  %r = stablehlo.reshape %x : (tensor<3x4x5xf8E8M0FNU>) -> tensor<60xf8E8M0FNU>"
    )
    src = (
        "func.func @main(%arg0: tensor<3x4x5xf32>, %arg1: tensor<3x1xui8>) -> "
        "(tensor<15x4xui32>, tensor<60xf8E8M0FNU>) {\n"
        f"{body}\n  return %s, %r : tensor<15x4xui32>, tensor<60xf8E8M0FNU>\n}}\n"
    )
    s, r = three_levels(src, [a, b])
    assert np.array_equal(s, a.view(np.uint32).transpose(2, 0, 1).reshape(15, 4))
    assert np.array_equal(r.view(np.uint8), np.broadcast_to(b[:, :, None], (3, 4, 5)).ravel())
