"""The memoized scalar ``arith`` ops of ``mxdsl.interpreters.index`` against upstream
xDSL's own implementations (``xdsl.interpreters.register_implementations``), run on the
same parsed program: every op, index and fixed-width integer types, signed and unsigned
extremes, every ``cmpi`` predicate; division by zero is a located error."""

from __future__ import annotations

import itertools

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, Signedness
from xdsl.interpreter import Interpreter
from xdsl.interpreters import register_implementations
from xdsl.interpreters.builtin import scalar_attr

from mxdsl.interpreters import OpInterpretationError, make_interpreter
from mxdsl.interpreters.index import IndexFunctions, _integer_attr, int_attr  # pyright: ignore[reportPrivateUsage]
from mxdsl.interpreters.nisa import NisaFunctions
from mxdsl.tools.diagnostics import parse_located
from mxdsl.tools.mx_run import _context

BINARY = (
    "andi",
    "ori",
    "xori",
    "shli",
    "shrsi",
    "divsi",
    "remsi",
    "floordivsi",
    "addi",
    "subi",
    "muli",
)
PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def program(element: str) -> str:
    body = [f"  %{name} = arith.{name} %a, %b : {element}" for name in BINARY]
    body += [f"  %{p} = arith.cmpi {p}, %a, %b : {element}" for p in PREDICATES]
    body += [f"  %k = arith.constant 42 : {element}"]
    names = [*BINARY, *PREDICATES, "k"]
    types = [element] * len(BINARY) + ["i1"] * len(PREDICATES) + [element]
    results = ", ".join(f"%{n}" for n in names)
    signature = ", ".join(types)
    return (
        f"func.func @main(%a: {element}, %b: {element}) -> ({signature}) {{\n"
        + "\n".join(body)
        + f"\n  func.return {results} : {signature}\n}}\n"
    )


def upstream(module) -> Interpreter:
    interpreter = Interpreter(module)
    register_implementations(interpreter, Context())
    return interpreter


def test_the_nisa_functions_inherit_the_index_ops():
    inherited = {op for op, _ in IndexFunctions._impls()}  # pyright: ignore[reportPrivateUsage]
    nisa = {op for op, _ in NisaFunctions._impls()}  # pyright: ignore[reportPrivateUsage]
    assert inherited <= nisa


@pytest.mark.parametrize(("element", "width"), [("index", 64), ("i64", 64), ("i32", 32), ("i8", 8)])
def test_every_op_matches_upstream(element: str, width: int):
    module, _ = parse_located(_context(), program(element), "index.mlir")
    ours, theirs = make_interpreter(module), upstream(module)
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    values = sorted({0, 1, 2, 3, 7, -1, -2, -7, 100, -100, low, high, low + 1, high - 1})
    kind = IntegerType(width)
    checked = 0
    for a, b in itertools.product(values, repeat=2):
        if b == 0 or (a == low and b == -1) or not 0 <= b < width:
            continue  # division by zero / overflow (upstream asserts) and shifts out of range
        args = (scalar_attr(a, kind, 64), scalar_attr(b, kind, 64))
        mine, reference = ours.call_op("main", args), theirs.call_op("main", args)
        assert mine == reference, (element, a, b)
        checked += 1
    assert checked > 50
    # the results are shared attributes, equal to freshly built ones
    first = ours.call_op("main", (scalar_attr(3, kind, 64), scalar_attr(2, kind, 64)))
    again = ours.call_op("main", (scalar_attr(3, kind, 64), scalar_attr(2, kind, 64)))
    assert all(x is y for x, y in zip(first, again, strict=True))
    assert first[BINARY.index("addi")] == IntegerAttr(5, kind)
    assert first[len(BINARY) + PREDICATES.index("sgt")] == IntegerAttr.from_bool(True)


@pytest.mark.parametrize("name", ["divsi", "remsi", "floordivsi"])
def test_division_by_zero_is_an_error_at_the_op(name: str):
    text = (
        "func.func @main(%a: index, %b: index) -> index {\n"
        f"  %q = arith.{name} %a, %b : index\n  func.return %q : index\n}}\n"
    )
    module, _ = parse_located(_context(), text, "div.mlir")
    kind = IntegerType(64)
    with pytest.raises(OpInterpretationError, match="division by zero"):
        make_interpreter(module).call_op(
            "main", (scalar_attr(7, kind, 64), scalar_attr(0, kind, 64))
        )


@pytest.mark.parametrize(
    "value_type",
    [IndexType(), IntegerType(64), IntegerType(32), IntegerType(8), IntegerType(1)],
    ids=str,
)
def test_int_attr_equals_scalar_attr(value_type):
    """The attributes built without the verifier are the ones ``scalar_attr`` builds
    (equal, same hash, same printed form) and pass the verifier, wrap-around included."""
    for bitwidth in (32, 64):
        for value in (
            0,
            1,
            -1,
            2,
            127,
            128,
            255,
            256,
            -129,
            2**31 - 1,
            2**31,
            -(2**31) - 1,
            2**32 + 5,
            2**63 - 1,
            2**63,
            -(2**63),
            2**64 + 3,
            -(2**70) + 11,
        ):
            mine = _integer_attr(value, value_type, bitwidth)
            reference = scalar_attr(value, value_type, bitwidth)
            assert mine == reference, (value, bitwidth)
            assert hash(mine) == hash(reference)
            assert str(mine) == str(reference)
            mine.verify()
            assert int_attr(value, value_type, bitwidth) == reference


def test_other_signedness_goes_through_scalar_attr():
    unsigned = IntegerType(8, Signedness.UNSIGNED)
    assert int_attr(300, unsigned, 64) == scalar_attr(300, unsigned, 64)
