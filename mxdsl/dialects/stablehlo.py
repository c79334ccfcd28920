"""The ``stablehlo`` dialect: StableHLO as JAX writes it (``docs/stablehlo.md``).

xDSL 0.75 ships no ``stablehlo`` dialect, so mxdsl defines the ops JAX emits around the
MX path (``jax.nn.scaled_matmul``, ``jax.nn.scaled_dot_general`` with an MXFP8 config),
each with StableHLO's pretty syntax:

* ``custom_call`` (``@__op$block_scaled_dot`` on typed fp8 operands), ``composite``
  (``"xla.scaled_dot"`` with its ``decomposition``);
* JAX's MXFP8 quantization as plain ops: ``constant``, ``abs``, ``reduce``, ``maximum``,
  ``minimum``, ``divide``, ``multiply``, ``add``, ``compare``, ``select``, ``and``,
  ``not``, ``shift_left``, ``shift_right_logical``, ``bitcast_convert``, ``convert``,
  ``reshape``, ``broadcast_in_dim``, ``transpose``, ``clamp``, ``dot_general``;
* a few neighbours of those (``subtract``, ``or``, ``xor``, ``negate``, ``iota``, ...).

Deviations from MLIR's StableHLO, all in the generic form only: the comparison
direction and type and the dot precision are string properties (``"GT"``), not
``#stablehlo<...>`` attributes; a custom call's and a composite's attributes other than
the target / name are discardable attributes. The pretty forms are StableHLO's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from mxdsl.dialects.hex_floats import parse_dense_elements
from mxdsl.dialects.hlo import dot_general_result_shape

# ------------------------------------------------------------------ syntax helpers


def _parse_operands(parser: Parser) -> list[UnresolvedOperand]:
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)


def _parse_types(
    parser: Parser, count: int, op_name: str
) -> tuple[list[Attribute], Attribute, int]:
    """``: T`` (every operand and the result are T) or ``: (T1, ...) -> R``."""
    parser.parse_punctuation(":")
    start = parser.pos
    if (function_type := parser.parse_optional_function_type()) is not None:
        inputs, outputs = function_type.inputs.data, function_type.outputs.data
        if len(inputs) != count or len(outputs) != 1:
            parser.raise_error(
                f"{op_name} expects {count} operand types and one result type, got {function_type}",
                start,
            )
        return list(inputs), outputs[0], start
    single = parser.parse_type()
    return [single] * count, single, start


def _print_types(printer: Printer, operands: Sequence[SSAValue], result: Attribute) -> None:
    printer.print_string(" : ")
    if all(o.type == result for o in operands):
        printer.print_attribute(result)
        return
    printer.print_string("(")
    printer.print_list([o.type for o in operands], printer.print_attribute)
    printer.print_string(") -> ")
    printer.print_attribute(result)


def _print_functional(printer: Printer, operands: Sequence[SSAValue], results: Sequence) -> None:
    printer.print_string(" : (")
    printer.print_list([o.type for o in operands], printer.print_attribute)
    printer.print_string(") -> ")
    if len(results) == 1:
        printer.print_attribute(results[0].type)
        return
    printer.print_string("(")
    printer.print_list([r.type for r in results], printer.print_attribute)
    printer.print_string(")")


def _dims_list(parser: Parser) -> list[int]:
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def _array(values: Sequence[int]) -> DenseArrayBase[I64]:
    return DenseArrayBase.from_list(i64, list(values))


def tensor_shape(value: SSAValue | Attribute) -> tuple[int, ...]:
    t = value.type if isinstance(value, SSAValue) else value
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


# --------------------------------------------------------------- elementwise ops


class ElementwiseOp(IRDLOperation):
    """Shared syntax of the elementwise ops: ``stablehlo.add %a, %b : tensor<...>``
    (or a functional type when the types differ)."""

    ARITY: ClassVar[int] = 2
    args = var_operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, *operands: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[operands], result_types=[result_type or operands[-1].type])

    def verify_(self) -> None:
        if len(self.args) != self.ARITY:
            raise VerifyException(f"expects {self.ARITY} operands, got {len(self.args)}")
        shape = tensor_shape(self.result)
        for index, operand in enumerate(self.args):
            if tensor_shape(operand) != shape:
                raise VerifyException(
                    f"operand {index} has shape {list(tensor_shape(operand))}, the result "
                    f"{list(shape)}; elementwise ops do not broadcast (use broadcast_in_dim)"
                )

    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseOp:
        unresolved = _parse_operands(parser)
        attributes = parser.parse_optional_attr_dict()
        types, result_type, start = _parse_types(parser, len(unresolved), cls.name)
        operands = parser.resolve_operands(unresolved, types, start)
        return cls.create(operands=operands, result_types=[result_type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.args, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        _print_types(printer, self.args, self.result.type)


class _UnaryOp(ElementwiseOp):
    ARITY: ClassVar[int] = 1


def _unary(op_name: str, doc: str) -> type[_UnaryOp]:
    cls = type(op_name.split(".")[1].title().replace("_", "") + "Op", (_UnaryOp,), {})
    cls.name = op_name
    cls.__doc__ = doc
    return irdl_op_definition(cls)


def _binary(op_name: str, doc: str) -> type[ElementwiseOp]:
    cls = type(op_name.split(".")[1].title().replace("_", "") + "Op", (ElementwiseOp,), {})
    cls.name = op_name
    cls.__doc__ = doc
    return irdl_op_definition(cls)


AbsOp = _unary("stablehlo.abs", "|x| (integers wrap at the minimum).")
NegOp = _unary("stablehlo.negate", "-x.")
NotOp = _unary("stablehlo.not", "Logical not of i1, bitwise not of integers.")
ExpOp = _unary("stablehlo.exponential", "e^x.")
ExpM1Op = _unary("stablehlo.exponential_minus_one", "e^x - 1.")
LogOp = _unary("stablehlo.log", "Natural logarithm.")
Log1pOp = _unary("stablehlo.log_plus_one", "log(1 + x).")
LogisticOp = _unary("stablehlo.logistic", "1 / (1 + e^-x).")
SqrtOp = _unary("stablehlo.sqrt", "Square root.")
RsqrtOp = _unary("stablehlo.rsqrt", "1 / sqrt(x).")
TanhOp = _unary("stablehlo.tanh", "Hyperbolic tangent.")
FloorOp = _unary("stablehlo.floor", "Round toward -inf.")
CeilOp = _unary("stablehlo.ceil", "Round toward +inf.")
SignOp = _unary("stablehlo.sign", "-1, 0 or 1 (NaN stays NaN).")
RoundEvenOp = _unary("stablehlo.round_nearest_even", "Round to the nearest integer, ties to even.")

AddOp = _binary("stablehlo.add", "a + b (or for i1).")
SubOp = _binary("stablehlo.subtract", "a - b.")
MulOp = _binary("stablehlo.multiply", "a * b (and for i1).")
DivOp = _binary("stablehlo.divide", "a / b (integers truncate toward zero).")
RemOp = _binary("stablehlo.remainder", "a - b * trunc(a / b) (the sign of a).")
MaxOp = _binary("stablehlo.maximum", "max(a, b), NaN if either is NaN.")
MinOp = _binary("stablehlo.minimum", "min(a, b), NaN if either is NaN.")
PowOp = _binary("stablehlo.power", "a ** b.")
AndOp = _binary("stablehlo.and", "Logical / bitwise and.")
OrOp = _binary("stablehlo.or", "Logical / bitwise or.")
XorOp = _binary("stablehlo.xor", "Logical / bitwise xor.")
ShlOp = _binary("stablehlo.shift_left", "a << b; 0 when b >= the bit width.")
ShrLogicalOp = _binary(
    "stablehlo.shift_right_logical", "Unsigned a >> b; 0 when b >= the bit width."
)
ShrArithOp = _binary(
    "stablehlo.shift_right_arithmetic", "Signed a >> b; the sign bit when b >= the bit width."
)


@irdl_op_definition
class ClampOp(ElementwiseOp):
    """``min(max(x, lo), hi)``: ``stablehlo.clamp %lo, %x, %hi : ...``; ``lo`` and ``hi``
    may be scalar tensors."""

    name = "stablehlo.clamp"
    ARITY: ClassVar[int] = 3

    def verify_(self) -> None:
        if len(self.args) != 3:
            raise VerifyException(f"expects 3 operands, got {len(self.args)}")
        shape = tensor_shape(self.result)
        if tensor_shape(self.args[1]) != shape:
            raise VerifyException("the operand and the result have different shapes")
        for index in (0, 2):
            if tensor_shape(self.args[index]) not in ((), shape):
                raise VerifyException(f"operand {index} is neither a scalar nor {list(shape)}")


@irdl_op_definition
class SelectOp(IRDLOperation):
    """``pred ? on_true : on_false`` elementwise (``pred`` may be a scalar):
    ``stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>``."""

    name = "stablehlo.select"
    pred = operand_def(TensorType)
    on_true = operand_def(TensorType)
    on_false = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, pred: SSAValue, on_true: SSAValue, on_false: SSAValue):
        super().__init__(operands=[pred, on_true, on_false], result_types=[on_true.type])

    def verify_(self) -> None:
        pred = self.pred.type
        assert isinstance(pred, TensorType)
        if pred.get_element_type() != i1:
            raise VerifyException(f"the predicate is {pred}, not a tensor of i1")
        shape = tensor_shape(self.result)
        if tensor_shape(pred) not in ((), shape):
            raise VerifyException(f"the predicate is neither a scalar nor {list(shape)}")
        if self.on_true.type != self.result.type or self.on_false.type != self.result.type:
            raise VerifyException("on_true, on_false and the result must have one type")

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        unresolved = _parse_operands(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        start = parser.pos
        if (function_type := parser.parse_optional_function_type()) is not None:
            types = list(function_type.inputs.data)
            result_type = function_type.outputs.data[0]
        else:
            pred_type = parser.parse_type()
            parser.parse_punctuation(",")
            result_type = parser.parse_type()
            types = [pred_type, result_type, result_type]
        if len(unresolved) != 3 or len(types) != 3:
            parser.raise_error("stablehlo.select takes three operands", start)
        operands = parser.resolve_operands(unresolved, types, start)
        return cls.create(operands=operands, result_types=[result_type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.pred.type)
        printer.print_string(", ")
        printer.print_attribute(self.result.type)


COMPARISON_DIRECTIONS = ("EQ", "NE", "GE", "GT", "LE", "LT")
COMPARISON_TYPES = ("FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")


@irdl_op_definition
class CompareOp(IRDLOperation):
    """``stablehlo.compare GT, %a, %b, UNSIGNED : (T, T) -> tensor<...xi1>``."""

    name = "stablehlo.compare"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    comparison_direction = prop_def(StringAttr)
    compare_type = opt_prop_def(StringAttr)
    traits = traits_def(Pure())

    def __init__(self, direction: str, lhs: SSAValue, rhs: SSAValue, compare_type: str | None):
        shape = tensor_shape(lhs)
        properties: dict[str, Attribute] = {"comparison_direction": StringAttr(direction)}
        if compare_type is not None:
            properties["compare_type"] = StringAttr(compare_type)
        super().__init__(
            operands=[lhs, rhs], result_types=[TensorType(i1, shape)], properties=properties
        )

    def verify_(self) -> None:
        if self.comparison_direction.data not in COMPARISON_DIRECTIONS:
            raise VerifyException(
                f"comparison direction {self.comparison_direction.data!r} is not one of "
                f"{', '.join(COMPARISON_DIRECTIONS)}"
            )
        if self.compare_type and self.compare_type.data not in COMPARISON_TYPES:
            raise VerifyException(
                f"compare type {self.compare_type.data!r} is not one of "
                f"{', '.join(COMPARISON_TYPES)}"
            )
        if self.lhs.type != self.rhs.type:
            raise VerifyException("both operands must have one type")
        result = self.result.type
        assert isinstance(result, TensorType)
        if result.get_element_type() != i1 or tensor_shape(result) != tensor_shape(self.lhs):
            raise VerifyException(f"the result must be the operand shape of i1, got {result}")

    @classmethod
    def parse(cls, parser: Parser) -> CompareOp:
        start = parser.pos
        direction = parser.parse_identifier()
        if direction not in COMPARISON_DIRECTIONS:
            parser.raise_error(
                f"expected a comparison direction ({', '.join(COMPARISON_DIRECTIONS)})", start
            )
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        compare_type = None
        if parser.parse_optional_punctuation(",") is not None:
            start = parser.pos
            compare_type = parser.parse_identifier()
            if compare_type not in COMPARISON_TYPES:
                parser.raise_error(
                    f"expected a compare type ({', '.join(COMPARISON_TYPES)})", start
                )
        attributes = parser.parse_optional_attr_dict()
        types, result_type, start = _parse_types(parser, 2, cls.name)
        operands = parser.resolve_operands([lhs, rhs], types, start)
        properties: dict[str, Attribute] = {"comparison_direction": StringAttr(direction)}
        if compare_type is not None:
            properties["compare_type"] = StringAttr(compare_type)
        return cls.create(
            operands=operands,
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.comparison_direction.data}, ")
        printer.print_list((self.lhs, self.rhs), printer.print_operand)
        if self.compare_type:
            printer.print_string(f", {self.compare_type.data}")
        printer.print_op_attributes(self.attributes)
        _print_functional(printer, (self.lhs, self.rhs), (self.result,))


# ------------------------------------------------------------- type/shape changes


class _FunctionalUnaryOp(IRDLOperation):
    """``stablehlo.convert %x : (tensor<..>) -> tensor<..>``."""

    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, operand: SSAValue, result_type: Attribute):
        super().__init__(operands=[operand], result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> _FunctionalUnaryOp:
        operand = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        types, result_type, start = _parse_types(parser, 1, cls.name)
        operands = parser.resolve_operands([operand], types, start)
        return cls.create(operands=operands, result_types=[result_type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_op_attributes(self.attributes)
        _print_functional(printer, (self.operand,), (self.result,))


@irdl_op_definition
class ConvertOp(_FunctionalUnaryOp):
    """Element type conversion, same shape (``hlo.convert`` semantics)."""

    name = "stablehlo.convert"

    def verify_(self) -> None:
        if tensor_shape(self.operand) != tensor_shape(self.result):
            raise VerifyException("convert keeps the shape")


def element_bits(t: Attribute) -> int:
    """Bit width of a tensor's element type (i1 counts as 8: a byte)."""
    assert isinstance(t, TensorType)
    element = t.get_element_type()
    if isinstance(element, IntegerType):
        return max(8, element.width.data)
    bitwidth = getattr(element, "bitwidth", None)
    if not isinstance(bitwidth, int):
        raise VerifyException(f"element type {element} has no bit width")
    return bitwidth


@irdl_op_definition
class BitcastConvertOp(_FunctionalUnaryOp):
    """Reinterpret the bits. Same width: same shape. Narrow -> wide (ratio r): the
    operand has an extra minor dim of size r, whose element ``j`` fills bits
    ``j*w .. j*w + w-1`` (little-endian). Wide -> narrow: the inverse. This is how four
    FP8 elements become one ``ui32`` lane word (``import-stablehlo`` packs with it)."""

    name = "stablehlo.bitcast_convert"

    def verify_(self) -> None:
        src, dst = element_bits(self.operand.type), element_bits(self.result.type)
        in_shape, out_shape = tensor_shape(self.operand), tensor_shape(self.result)
        if src == dst:
            expected = in_shape
        elif src < dst:
            expected = in_shape[:-1]
            if dst % src or in_shape[-1:] != (dst // src,):
                raise VerifyException(
                    f"a {src}-bit to {dst}-bit bitcast needs a minor dim of {dst // src}, "
                    f"got shape {list(in_shape)}"
                )
        else:
            expected = (*in_shape, src // dst)
        if out_shape != expected:
            raise VerifyException(
                f"result shape {list(out_shape)} should be {list(expected)} for a {src}-bit "
                f"to {dst}-bit bitcast"
            )


@irdl_op_definition
class ReshapeOp(_FunctionalUnaryOp):
    """Same elements in row-major order, another static shape."""

    name = "stablehlo.reshape"

    def verify_(self) -> None:
        a, b = self.operand.type, self.result.type
        assert isinstance(a, TensorType)
        assert isinstance(b, TensorType)
        if a.get_element_type() != b.get_element_type():
            raise VerifyException("reshape keeps the element type")
        if a.element_count() != b.element_count():
            raise VerifyException(
                f"cannot reshape {list(tensor_shape(a))} ({a.element_count()} elements) "
                f"to {list(tensor_shape(b))} ({b.element_count()} elements)"
            )


class _DimsOp(IRDLOperation):
    """``stablehlo.<op> %x, dims = [...] : (T) -> U``."""

    DIMS: ClassVar[str] = ""
    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @property
    def dims(self) -> tuple[int, ...]:
        value = self.properties[self.DIMS]
        assert isinstance(value, DenseArrayBase)
        return tuple(value.get_values())  # pyright: ignore[reportUnknownArgumentType]

    @classmethod
    def parse(cls, parser: Parser) -> _DimsOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("dims")
        parser.parse_punctuation("=")
        dims = _dims_list(parser)
        attributes = parser.parse_optional_attr_dict()
        types, result_type, start = _parse_types(parser, 1, cls.name)
        operands = parser.resolve_operands([operand], types, start)
        return cls.create(
            operands=operands,
            result_types=[result_type],
            properties={cls.DIMS: _array(dims)},
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_string(f", dims = {list(self.dims)}")
        printer.print_op_attributes(self.attributes)
        _print_functional(printer, (self.operand,), (self.result,))


@irdl_op_definition
class BroadcastInDimOp(_DimsOp):
    """Operand dim ``i`` becomes result dim ``dims[i]`` (size equal, or 1 and
    broadcast); the other result dims are broadcast."""

    name = "stablehlo.broadcast_in_dim"
    DIMS: ClassVar[str] = "broadcast_dimensions"
    broadcast_dimensions = prop_def(DenseArrayBase[I64])

    def __init__(self, operand: SSAValue, dims: Sequence[int], result_type: Attribute):
        super().__init__(
            operands=[operand],
            result_types=[result_type],
            properties={"broadcast_dimensions": _array(dims)},
        )

    def verify_(self) -> None:
        in_shape, out_shape = tensor_shape(self.operand), tensor_shape(self.result)
        dims = self.dims
        if len(dims) != len(in_shape):
            raise VerifyException(f"dims {list(dims)} must list one result dim per operand dim")
        if len(set(dims)) != len(dims):
            raise VerifyException(f"dims {list(dims)} repeat a result dim")
        for i, d in enumerate(dims):
            if not 0 <= d < len(out_shape):
                raise VerifyException(f"dim {d} is out of range for rank {len(out_shape)}")
            if in_shape[i] not in (1, out_shape[d]):
                raise VerifyException(
                    f"operand dim {i} of size {in_shape[i]} cannot broadcast to result dim "
                    f"{d} of size {out_shape[d]}"
                )


@irdl_op_definition
class TransposeOp(_DimsOp):
    """Result dim ``i`` is operand dim ``dims[i]``."""

    name = "stablehlo.transpose"
    DIMS: ClassVar[str] = "permutation"
    permutation = prop_def(DenseArrayBase[I64])

    def __init__(self, operand: SSAValue, permutation: Sequence[int], result_type: Attribute):
        super().__init__(
            operands=[operand],
            result_types=[result_type],
            properties={"permutation": _array(permutation)},
        )

    def verify_(self) -> None:
        in_shape, out_shape = tensor_shape(self.operand), tensor_shape(self.result)
        dims = self.dims
        if sorted(dims) != list(range(len(in_shape))):
            raise VerifyException(f"dims {list(dims)} are not a permutation of the operand dims")
        if out_shape != tuple(in_shape[d] for d in dims):
            raise VerifyException(f"result shape {list(out_shape)} is not the permuted shape")


@irdl_op_definition
class IotaOp(IRDLOperation):
    """``stablehlo.iota dim = 0 : tensor<4x8xi32>``: the index along ``dim``."""

    name = "stablehlo.iota"
    iota_dimension = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        dim = self.iota_dimension.value.data
        if not 0 <= dim < len(tensor_shape(self.result)):
            raise VerifyException(f"iota dim {dim} is out of range")

    @classmethod
    def parse(cls, parser: Parser) -> IotaOp:
        parser.parse_keyword("dim")
        parser.parse_punctuation("=")
        dim = parser.parse_integer()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        return cls.create(
            result_types=[result_type],
            properties={"iota_dimension": IntegerAttr(dim, i64)},
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" dim = {self.iota_dimension.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """``stablehlo.constant dense<...> : tensor<...>``; a hex element of a float literal
    is its bit pattern (``dense<[0x7FC00000, 1.0]> : tensor<2xf32>`` is NaN, 1), under
    any parser."""

    name = "stablehlo.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    def verify_(self) -> None:
        if self.value.type != self.output.type:
            raise VerifyException(
                f"result type {self.output.type} does not match the literal's {self.value.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attributes = parser.parse_optional_attr_dict()
        start = parser.pos
        if parser.parse_optional_keyword("dense") is not None:
            value = parse_dense_elements(parser)
        else:
            value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error(f"expected a dense<...> tensor literal, got {value}", start)
        op = cls(value)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)


# ------------------------------------------------------------------------- dots


@irdl_op_definition
class DotGeneralOp(IRDLOperation):
    """``stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims =
    [2] x [1], precision = [DEFAULT, DEFAULT] : (...) -> ...`` (``hlo.dot_general``'s
    shape rule)."""

    name = "stablehlo.dot_general"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    lhs_batching_dimensions = prop_def(DenseArrayBase[I64])
    rhs_batching_dimensions = prop_def(DenseArrayBase[I64])
    lhs_contracting_dimensions = prop_def(DenseArrayBase[I64])
    rhs_contracting_dimensions = prop_def(DenseArrayBase[I64])
    precision_config = opt_prop_def(ArrayAttr[StringAttr])
    traits = traits_def(Pure())

    @staticmethod
    def _values(value: DenseArrayBase[I64]) -> tuple[int, ...]:
        return tuple(value.get_values())  # pyright: ignore[reportUnknownArgumentType]

    @property
    def batching_dims(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return (
            self._values(self.lhs_batching_dimensions),
            self._values(self.rhs_batching_dimensions),
        )

    @property
    def contracting_dims(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return (
            self._values(self.lhs_contracting_dimensions),
            self._values(self.rhs_contracting_dimensions),
        )

    def verify_(self) -> None:
        expected = dot_general_result_shape(
            tensor_shape(self.lhs),
            tensor_shape(self.rhs),
            self.batching_dims,
            self.contracting_dims,
        )
        if tensor_shape(self.result) != expected:
            raise VerifyException(
                f"result shape {list(tensor_shape(self.result))} does not match the "
                f"dot_general shape {list(expected)}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> DotGeneralOp:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        dims: dict[str, tuple[list[int], list[int]]] = {}
        precision: list[str] | None = None
        while parser.parse_optional_punctuation(",") is not None:
            start = parser.pos
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            if key == "precision" and precision is None:
                precision = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, parser.parse_identifier
                )
                continue
            if key not in ("batching_dims", "contracting_dims") or key in dims:
                parser.raise_error(
                    f"expected batching_dims, contracting_dims or precision (once each), got {key}",
                    start,
                )
            lhs_dims = _dims_list(parser)
            parser.parse_keyword("x")
            dims[key] = (lhs_dims, _dims_list(parser))
        attributes = parser.parse_optional_attr_dict()
        types, result_type, start = _parse_types(parser, 2, cls.name)
        operands = parser.resolve_operands([lhs, rhs], types, start)
        empty: tuple[list[int], list[int]] = ([], [])
        batch, contract = dims.get("batching_dims", empty), dims.get("contracting_dims", empty)
        properties: dict[str, Attribute] = {
            "lhs_batching_dimensions": _array(batch[0]),
            "rhs_batching_dimensions": _array(batch[1]),
            "lhs_contracting_dimensions": _array(contract[0]),
            "rhs_contracting_dimensions": _array(contract[1]),
        }
        if precision is not None:
            properties["precision_config"] = ArrayAttr(StringAttr(p) for p in precision)
        return cls.create(
            operands=operands,
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list((self.lhs, self.rhs), printer.print_operand)
        for key, (lhs_dims, rhs_dims) in (
            ("batching_dims", self.batching_dims),
            ("contracting_dims", self.contracting_dims),
        ):
            if lhs_dims or rhs_dims:
                printer.print_string(f", {key} = {list(lhs_dims)} x {list(rhs_dims)}")
        if self.precision_config is not None:
            names = ", ".join(p.data for p in self.precision_config.data)
            printer.print_string(f", precision = [{names}]")
        printer.print_op_attributes(self.attributes)
        _print_functional(printer, (self.lhs, self.rhs), (self.result,))


# ------------------------------------------------------------------- reductions


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``stablehlo.return %v : tensor<f32>``: the result of a reducer body."""

    name = "stablehlo.return"
    returned = var_operand_def(TensorType)
    traits = traits_def(IsTerminator())
    assembly_format = "($returned^ `:` type($returned))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Reduce ``inputs`` over ``dimensions`` with the ``body`` (a reducer over scalar
    tensors). The compact form names a binary op as the body::

        %r = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across
            dimensions = [3] : (tensor<1x4x2x32xbf16>, tensor<bf16>) -> tensor<1x4x2xbf16>

    the long form writes it: ``... -> tensor<..> reducer(%a: T, %b: T) { ... }``."""

    name = "stablehlo.reduce"
    inputs = var_operand_def(TensorType)
    init_values = var_operand_def(TensorType)
    reduced = var_result_def(TensorType)
    dimensions = prop_def(DenseArrayBase[I64])
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(self.dimensions.get_values())  # pyright: ignore[reportUnknownArgumentType]

    def verify_(self) -> None:
        if len(self.inputs) != len(self.init_values) or len(self.inputs) != len(self.reduced):
            raise VerifyException("expects as many inputs, init values and results")
        for value, init, result in zip(self.inputs, self.init_values, self.reduced, strict=True):
            shape = tensor_shape(value)
            if bad := [d for d in self.dims if not 0 <= d < len(shape)]:
                raise VerifyException(f"dimension {bad[0]} is out of range for rank {len(shape)}")
            kept = tuple(s for d, s in enumerate(shape) if d not in self.dims)
            if tensor_shape(result) != kept:
                raise VerifyException(
                    f"result shape {list(tensor_shape(result))} should be {list(kept)}"
                )
            if tensor_shape(init) != ():
                raise VerifyException("init values are scalar tensors")

    def compact_body(self) -> str | None:
        """The name of the binary op the body applies, when the compact form fits."""
        block = self.body.block
        ops = list(block.ops)
        if len(self.inputs) != 1 or len(ops) != 2 or len(block.args) != 2:
            return None
        apply, ret = ops
        if not isinstance(apply, ElementwiseOp) or apply.ARITY != 2 or apply.attributes:
            return None
        if tuple(apply.operands) != tuple(block.args):
            return None
        if not isinstance(ret, ReturnOp) or tuple(ret.operands) != (apply.results[0],):
            return None
        if apply.result.type != block.args[0].type:
            return None
        return apply.name

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        pairs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: cls._parse_pair(parser)
        )
        applies: type[Operation] | None = None
        if parser.parse_optional_keyword("applies") is not None:
            start = parser.pos
            name = parser.parse_identifier()
            op_type = parser.ctx.get_optional_op(name)
            if op_type is None or not issubclass(op_type, ElementwiseOp) or op_type.ARITY != 2:
                parser.raise_error(f"{name} is not a binary stablehlo op", start)
            applies = op_type
        parser.parse_keyword("across")
        parser.parse_keyword("dimensions")
        parser.parse_punctuation("=")
        dims = _dims_list(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        start = parser.pos
        function_type = parser.parse_function_type()
        n = len(pairs)
        if len(function_type.inputs.data) != 2 * n or len(function_type.outputs.data) != n:
            parser.raise_error(f"expected {2 * n} operand types and {n} result types", start)
        types = function_type.inputs.data
        inputs = parser.resolve_operands([p[0] for p in pairs], types[:n], start)
        inits = parser.resolve_operands([p[1] for p in pairs], types[n:], start)
        if applies is not None:
            if n != 1:
                parser.raise_error("the compact form reduces one input", start)
            body = cls.binary_body(applies, types[n])
        else:
            parser.parse_keyword("reducer")
            arguments = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_argument
            )
            body = parser.parse_region(arguments)
        op = cls.create(
            operands=[*inputs, *inits],
            result_types=list(function_type.outputs.data),
            properties={
                "dimensions": _array(dims),
                "operandSegmentSizes": DenseArrayBase.from_list(IntegerType(32), [n, n]),
            },
            attributes=attributes,
            regions=[body],
        )
        return op

    @staticmethod
    def _parse_pair(parser: Parser) -> tuple[UnresolvedOperand, UnresolvedOperand]:
        value = parser.parse_unresolved_operand()
        parser.parse_keyword("init")
        parser.parse_punctuation(":")
        return value, parser.parse_unresolved_operand()

    @staticmethod
    def binary_body(op_type: type[Operation], scalar: Attribute) -> Region:
        block = Block(arg_types=[scalar, scalar])
        apply = op_type.create(operands=list(block.args), result_types=[scalar])
        block.add_ops([apply, ReturnOp(apply.results[0])])
        return Region(block)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        for index, (value, init) in enumerate(zip(self.inputs, self.init_values, strict=True)):
            if index:
                printer.print_string(", ")
            printer.print_operand(value)
            printer.print_string(" init: ")
            printer.print_operand(init)
        printer.print_string(")")
        compact = self.compact_body()
        if compact is not None:
            printer.print_string(f" applies {compact}")
        printer.print_string(f" across dimensions = {list(self.dims)}")
        printer.print_op_attributes(self.attributes)
        _print_functional(printer, [*self.inputs, *self.init_values], self.reduced)
        if compact is None:
            printer.print_string(" reducer(")
            printer.print_list(self.body.block.args, printer.print_block_argument)
            printer.print_string(") ")
            printer.print_region(self.body, print_entry_block_args=False)


# ---------------------------------------------------------- calls and composites


@irdl_op_definition
class CustomCallOp(IRDLOperation):
    """``stablehlo.custom_call @target(%a, ...) {api_version = 2 : i32, backend_config
    = "...", ...} : (...) -> ...``; every attribute but the target is kept as written."""

    name = "stablehlo.custom_call"
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    call_target_name = prop_def(StringAttr)

    @property
    def target(self) -> str:
        return self.call_target_name.data

    def backend_config(self) -> str | None:
        config = self.attributes.get("backend_config")
        return config.data if isinstance(config, StringAttr) else None

    @classmethod
    def parse(cls, parser: Parser) -> CustomCallOp:
        target = parser.parse_symbol_name()
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        start = parser.pos
        function_type = parser.parse_function_type()
        values = parser.resolve_operands(operands, function_type.inputs.data, start)
        return cls.create(
            operands=values,
            result_types=list(function_type.outputs.data),
            properties={"call_target_name": target},
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.target)
        printer.print_string("(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        _print_functional(printer, self.inputs, self.outputs)


@irdl_op_definition
class CompositeOp(IRDLOperation):
    """``stablehlo.composite "xla.scaled_dot" %a, ... {composite_attributes = {...},
    decomposition = @f} : (...) -> ...``: a named op whose meaning is the function
    ``decomposition`` (which is how mx-run runs it)."""

    name = "stablehlo.composite"
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    composite_name = prop_def(StringAttr, prop_name="name")

    def decomposition(self) -> str | None:
        attr = self.attributes.get("decomposition")
        root = getattr(attr, "root_reference", None)
        return root.data if isinstance(root, StringAttr) else None

    def verify_(self) -> None:
        if self.decomposition() is None:
            raise VerifyException("a composite needs a decomposition = @function attribute")

    @classmethod
    def parse(cls, parser: Parser) -> CompositeOp:
        name = parser.parse_str_literal()
        operands = _parse_operands(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        start = parser.pos
        function_type = parser.parse_function_type()
        values = parser.resolve_operands(operands, function_type.inputs.data, start)
        return cls.create(
            operands=values,
            result_types=list(function_type.outputs.data),
            properties={"name": StringAttr(name)},
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.composite_name.data)
        printer.print_string(" ")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        _print_functional(printer, self.inputs, self.outputs)


StableHLO = Dialect(
    "stablehlo",
    [
        AbsOp,
        NegOp,
        NotOp,
        ExpOp,
        ExpM1Op,
        LogOp,
        Log1pOp,
        LogisticOp,
        SqrtOp,
        RsqrtOp,
        TanhOp,
        FloorOp,
        CeilOp,
        SignOp,
        RoundEvenOp,
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        RemOp,
        MaxOp,
        MinOp,
        PowOp,
        AndOp,
        OrOp,
        XorOp,
        ShlOp,
        ShrLogicalOp,
        ShrArithOp,
        ClampOp,
        SelectOp,
        CompareOp,
        ConvertOp,
        BitcastConvertOp,
        ReshapeOp,
        BroadcastInDimOp,
        TransposeOp,
        IotaOp,
        ConstantOp,
        DotGeneralOp,
        ReturnOp,
        ReduceOp,
        CustomCallOp,
        CompositeOp,
    ],
    [],
)
