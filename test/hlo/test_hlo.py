"""The hlo dialect through its Python API: build each op, verify it, print it, parse the
printed text back; and the dot_general shape helper."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects import test as xdsl_test
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    DenseIntOrFPElementsAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
    TupleType,
    bf16,
    f16,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from mxdsl.dialects.hlo import (
    ConstantOp,
    ConvertOp,
    CustomCallOp,
    DotGeneralOp,
    GetTupleElementOp,
    Hlo,
    TupleOp,
    dot_general_result_shape,
)

ui32 = IntegerType(32, Signedness.UNSIGNED)
F8E4M3FN, F8E5M2, F8E8M0FNU = Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType

ELEMENT_TYPES: list[Attribute] = [
    bf16,
    f16,
    f32,
    F8E4M3FN(),
    F8E5M2(),
    F8E8M0FNU(),
    ui32,
    i64,
]


def values(*types: Attribute) -> tuple[xdsl_test.TestOp, list[SSAValue]]:
    """A test.op that produces one SSA value of each type."""
    producer = xdsl_test.TestOp(result_types=list(types))
    return producer, list(producer.results)


def print_generic(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def reparse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, xdsl_test.Test, Hlo):
        ctx.load_dialect(dialect)
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def roundtrips(*ops: Operation) -> str:
    """Verify the ops in a module; its custom and its generic text parse back to the same
    custom text, which is returned."""
    module = ModuleOp(list(ops))
    module.verify()
    text = str(module)
    assert str(reparse(text)) == text
    assert str(reparse(print_generic(module))) == text
    return text


def i64_literal(values: list[int] | int) -> DenseIntOrFPElementsAttr:
    if isinstance(values, int):
        return DenseIntOrFPElementsAttr.from_list(TensorType(i64, []), [values])
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), values)


# ------------------------------------------------------------------------- constant


def test_dense_constant():
    op = ConstantOp(i64_literal([128, 256]))
    assert op.output.type == TensorType(i64, [2])
    text = roundtrips(op)
    assert "hlo.constant dense<[128, 256]> : tensor<2xi64>" in text


def test_tuple_constant_type_equals_the_parsed_type():
    literal = ArrayAttr([i64_literal([2, 64]), i64_literal(1), i64_literal(32), i64_literal(0)])
    op = ConstantOp(literal)
    parsed = TupleType(
        (TensorType(i64, [2]), TensorType(i64, []), TensorType(i64, []), TensorType(i64, []))
    )
    # A list-backed TupleType never equals the parser's tuple-backed one; this broke the
    # re-parse of every legalized module.
    assert op.output.type == parsed
    text = roundtrips(op)
    assert (
        "hlo.constant (dense<[2, 64]> : tensor<2xi64>, dense<1> : tensor<i64>, "
        "dense<32> : tensor<i64>, dense<0> : tensor<i64>)"
    ) in text


def test_nested_and_empty_tuple_constants():
    nested = ConstantOp(ArrayAttr([i64_literal(1), ArrayAttr([i64_literal([1, 2])])]))
    empty = ConstantOp(ArrayAttr([]))
    assert nested.output.type == TupleType(
        (TensorType(i64, []), TupleType((TensorType(i64, [2]),)))
    )
    assert empty.output.type == TupleType(())
    text = roundtrips(nested, empty)
    assert "hlo.constant (dense<1> : tensor<i64>, (dense<[1, 2]> : tensor<2xi64>))" in text
    assert "hlo.constant ()" in text


@pytest.mark.parametrize(
    "literal",
    [
        DenseIntOrFPElementsAttr.from_list(TensorType(bf16, [2]), [1.5, 2.0]),
        DenseIntOrFPElementsAttr.from_list(TensorType(f16, [2]), [1.5, 2.0]),
        DenseIntOrFPElementsAttr.from_list(TensorType(f32, [2]), [1.5, 2.0]),
        DenseIntOrFPElementsAttr.from_list(TensorType(i64, [2]), [1, 2]),
        DenseIntOrFPElementsAttr.from_list(TensorType(ui32, [2]), [1, 2]),
    ],
)
def test_constant_element_types(literal: DenseIntOrFPElementsAttr):
    op = ConstantOp(literal)
    assert op.output.type == literal.get_type()
    roundtrips(op)


def test_constant_result_type_mismatch():
    op = ConstantOp.create(properties={"value": i64_literal(1)}, result_types=[TensorType(i32, [])])
    with pytest.raises(VerifyException, match="does not match the literal's type tensor<i64>"):
        op.verify()


def test_constant_rejects_a_non_literal():
    with pytest.raises(VerifyException, match="a constant literal is a dense"):
        ConstantOp(ArrayAttr([IntegerAttr(5, i64)]))


# ---------------------------------------------------------------------------- tuple


def test_tuple_and_get_tuple_element():
    producer, (data, scale) = values(TensorType(ui32, [2, 8]), TensorType(F8E8M0FNU(), [2, 1]))
    bundle = TupleOp([data, scale])
    assert bundle.result.type == TupleType((data.type, scale.type))
    first = GetTupleElementOp(bundle.result, 0)
    second = GetTupleElementOp(bundle.result, 1)
    assert first.result.type == data.type
    assert second.result.type == scale.type
    text = roundtrips(producer, bundle, first, second)
    assert "hlo.tuple %0, %1 : tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>" in text
    assert "hlo.get_tuple_element %2[1] : (tuple<" in text


def test_empty_tuple():
    text = roundtrips(TupleOp([]))
    assert "hlo.tuple : tuple<>" in text


def test_tuple_type_mismatch():
    producer, (a,) = values(TensorType(f32, [2]))
    op = TupleOp.create(operands=[a], result_types=[TupleType((TensorType(bf16, [2]),))])
    with pytest.raises(VerifyException, match="does not match the operand types"):
        ModuleOp([producer, op]).verify()


@pytest.mark.parametrize("index", [2, -1])
def test_get_tuple_element_index_out_of_range(index: int):
    producer, (t,) = values(TupleType((TensorType(f32, [2]), TensorType(f16, [2]))))
    op = GetTupleElementOp.create(
        operands=[t],
        properties={"index": IntegerAttr(index, i32)},
        result_types=[TensorType(f32, [2])],
    )
    with pytest.raises(VerifyException, match=f"index {index} is out of range for a tuple of 2"):
        ModuleOp([producer, op]).verify()


def test_get_tuple_element_wrong_result_type():
    producer, (t,) = values(TupleType((TensorType(f32, [2]), TensorType(f16, [2]))))
    op = GetTupleElementOp.create(
        operands=[t],
        properties={"index": IntegerAttr(1, i32)},
        result_types=[TensorType(f32, [2])],
    )
    with pytest.raises(VerifyException, match="does not match tuple element 1"):
        ModuleOp([producer, op]).verify()


# ---------------------------------------------------------------------- custom_call


def test_custom_call_defaults_and_tuple_result():
    producer, (x,) = values(TensorType(bf16, [2, 32]))
    result = TupleType((TensorType(ui32, [2, 8]), TensorType(F8E8M0FNU(), [2, 1])))
    op = CustomCallOp("my.target", [x], result)
    assert op.target == "my.target"
    assert op.backend_config.data == ""
    assert op.api_version.value.data == 1
    text = roundtrips(producer, op)
    assert (
        'hlo.custom_call @my.target(%0) {backend_config = "", api_version = 1 : i32} '
        ": (tensor<2x32xbf16>) -> tuple<tensor<2x8xui32>, tensor<2x1xf8E8M0FNU>>"
    ) in text


def test_custom_call_variadic_operands_and_config():
    producer, inputs = values(TensorType(F8E4M3FN(), [4]), TensorType(F8E5M2(), [4]))
    op = CustomCallOp("t", inputs, TensorType(f32, [4]), backend_config="cfg", api_version=4)
    nullary = CustomCallOp("quoted target", [], TensorType(f32, []))
    text = roundtrips(producer, op, nullary)
    assert 'hlo.custom_call @t(%0, %1) {backend_config = "cfg", api_version = 4 : i32}' in text
    assert 'hlo.custom_call @"quoted target"()' in text


def test_custom_call_checks_the_registered_contract():
    producer, (x,) = values(TensorType(bf16, [2, 32]))
    op = CustomCallOp(
        "QuantizeMX",
        [x],
        TupleType((TensorType(ui32, [2, 8]), TensorType(F8E8M0FNU(), [2, 1]))),
        backend_config='{"dtype": "float8_e5m2", "dim": -1, "block_size": 16, '
        '"scale_method": "EMAX"}',
    )
    with pytest.raises(VerifyException, match=r"\[MXQ05\] QuantizeMX: block_size is 16"):
        ModuleOp([producer, op]).verify()


# ---------------------------------------------------------------------- dot_general


def test_dot_general_batched():
    producer, (a, b) = values(TensorType(f32, [2, 3, 4]), TensorType(f32, [2, 4, 5]))
    op = DotGeneralOp(a, b, TensorType(f32, [2, 3, 5]), ([0], [0]), ([2], [1]))
    assert op.batching_dims == ((0,), (0,))
    assert op.contracting_dims == ((2,), (1,))
    text = roundtrips(producer, op)
    assert "batching_dims = [0] x [0], contracting_dims = [2] x [1]" in text


def test_dot_general_without_batch_dims_prints_none():
    producer, (a, b) = values(TensorType(bf16, [3, 4]), TensorType(bf16, [4, 5]))
    op = DotGeneralOp(a, b, TensorType(bf16, [3, 5]), ([], []), ([1], [0]))
    text = roundtrips(producer, op)
    assert "hlo.dot_general %0, %1, contracting_dims = [1] x [0] : (" in text
    assert "batching_dims" not in text


def test_dot_general_result_shape_mismatch():
    producer, (a, b) = values(TensorType(f32, [3, 4]), TensorType(f32, [4, 5]))
    op = DotGeneralOp(a, b, TensorType(f32, [5, 3]), ([], []), ([1], [0]))
    with pytest.raises(VerifyException, match=r"result shape \[5, 3\] does not match .* \[3, 5\]"):
        ModuleOp([producer, op]).verify()


@pytest.mark.parametrize(
    ("lhs", "rhs", "batching", "contracting", "expected"),
    [
        ((3, 4), (4, 5), ((), ()), ((1,), (0,)), (3, 5)),
        ((3, 4), (5, 4), ((), ()), ((1,), (1,)), (3, 5)),
        ((2, 3, 4), (2, 4, 5), ((0,), (0,)), ((2,), (1,)), (2, 3, 5)),
        ((4, 2, 3), (3, 5, 2), ((1,), (2,)), ((2,), (0,)), (2, 4, 5)),
        ((3, 4), (5, 6), ((), ()), ((), ()), (3, 4, 5, 6)),
        ((2, 3, 4, 8), (2, 3, 8, 6), ((0, 1), (0, 1)), ((3,), (2,)), (2, 3, 4, 6)),
        ((4,), (4,), ((), ()), ((0,), (0,)), ()),
    ],
)
def test_dot_general_result_shape(
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    batching: tuple[tuple[int, ...], tuple[int, ...]],
    contracting: tuple[tuple[int, ...], tuple[int, ...]],
    expected: tuple[int, ...],
):
    assert dot_general_result_shape(lhs, rhs, batching, contracting) == expected


@pytest.mark.parametrize(
    ("lhs", "rhs", "batching", "contracting", "message"),
    [
        ((2, 3), (2, 3), ((0,), ()), ((1,), (1,)), "lhs has 1 batching dims but rhs has 0"),
        ((3, 4), (4, 5), ((), ()), ((1, 0), (0,)), "lhs has 2 contracting dims but rhs has 1"),
        ((3, 4), (4, 5), ((), ()), ((2,), (0,)), "lhs dimension 2 is out of range"),
        ((3, 4), (4, 5), ((), ()), ((1,), (-1,)), "rhs dimension -1 is out of range"),
        ((2, 4), (2, 4), ((1,), (0,)), ((1,), (1,)), "lhs dimension 1 appears more than once"),
        ((3, 4), (8, 5), ((), ()), ((1,), (0,)), "contracting dim sizes differ"),
        ((2, 3, 4), (6, 4, 5), ((0,), (0,)), ((2,), (1,)), "batching dim sizes differ"),
    ],
)
def test_dot_general_result_shape_errors(
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    batching: tuple[tuple[int, ...], tuple[int, ...]],
    contracting: tuple[tuple[int, ...], tuple[int, ...]],
    message: str,
):
    with pytest.raises(VerifyException, match=message):
        dot_general_result_shape(lhs, rhs, batching, contracting)


# -------------------------------------------------------------------------- convert


@pytest.mark.parametrize("target", ELEMENT_TYPES)
def test_convert_to_every_element_type(target: Attribute):
    producer, (x,) = values(TensorType(f32, [2, 32]))
    op = ConvertOp(x, TensorType(target, [2, 32]))
    text = roundtrips(producer, op)
    assert f"hlo.convert %0 : (tensor<2x32xf32>) -> tensor<2x32x{target}>" in text


def test_convert_keeps_the_shape():
    producer, (x,) = values(TensorType(f32, [2, 32]))
    op = ConvertOp(x, TensorType(bf16, [64]))
    with pytest.raises(VerifyException, match=r"result shape \[64\] differs .* \[2, 32\]"):
        ModuleOp([producer, op]).verify()
