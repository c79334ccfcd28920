"""The ``hlo`` dialect: the HLO instructions found around the MX path.

It models what an HLO graph that reaches the Neuron MX path contains (spec
"MX-FP8 Microscaling Legalization"): ``custom_call`` (the ``QuantizeMX`` /
``__op$block_scaled_dot`` frontend calls and the ``QuantizeMX_*`` / ``ScaledMatmul_*``
targets the legalizations emit), ``constant`` (dense literals and the tuple literals the
legalizations build as metadata), ``tuple``, ``get_tuple_element``, ``dot_general`` and
``convert``.

The custom syntax follows StableHLO's, so StableHLO text maps onto it by name::

    %q = hlo.custom_call @QuantizeMX(%x) {backend_config = "{...}", api_version = 1 : i32}
        : (tensor<128x256xbf16>) -> tuple<tensor<128x64xui32>, tensor<128x8xf8E8M0FNU>>

Deviation from StableHLO: ``hlo.constant`` also accepts HLO tuple literals, written
``hlo.constant (dense<...> : tensor<...>, ...)``; the result type is the tuple of the
element types. The MX contract (spec §4, §6) is checked by the verifier of
``hlo.custom_call`` through :mod:`mxdsl.contract`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    TupleType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mxdsl.contract import CustomCallSignature, verify_custom_call

ConstantValue = DenseIntOrFPElementsAttr | ArrayAttr[Attribute]


def constant_value_type(value: Attribute) -> TensorType | TupleType:
    """The type of a constant literal: a tensor for a dense literal, a tuple for a list.

    Raises a VerifyException when ``value`` is not a literal ``hlo.constant`` holds."""
    if isinstance(value, DenseIntOrFPElementsAttr):
        literal_type = value.get_type()
        if not isinstance(literal_type, TensorType):
            raise VerifyException(f"a dense constant literal is a tensor, got {literal_type}")
        return literal_type
    if isinstance(value, ArrayAttr):
        return TupleType(tuple(constant_value_type(element) for element in value.data))
    raise VerifyException(
        f"a constant literal is a dense<...> tensor or a tuple of literals, got {value}"
    )


def _parse_constant_value(parser: Parser) -> Attribute:
    """``dense<...> : tensor<...>``, or a parenthesized, comma-separated tuple of literals."""
    start = parser.pos
    if parser.parse_optional_punctuation("(") is None:
        value = parser.parse_attribute()
        try:
            constant_value_type(value)
        except VerifyException as err:
            parser.raise_error(str(err), start)
        return value
    if parser.parse_optional_punctuation(")") is not None:
        return ArrayAttr(())
    elements = [_parse_constant_value(parser)]
    while parser.parse_optional_punctuation(",") is not None:
        elements.append(_parse_constant_value(parser))
    parser.parse_punctuation(")")
    return ArrayAttr(elements)


def _print_constant_value(printer: Printer, value: Attribute) -> None:
    if not isinstance(value, ArrayAttr):
        printer.print_attribute(value)
        return
    with printer.in_parens():
        printer.print_list(value.data, lambda v: _print_constant_value(printer, v))


def _parse_function_type(
    parser: Parser, op_name: str, num_inputs: int | None, expected: str
) -> tuple[tuple[Attribute, ...], Attribute]:
    """``(inputs) -> result``: exactly one result, and ``num_inputs`` inputs when given."""
    start = parser.pos
    function_type = parser.parse_function_type()
    inputs = function_type.inputs.data
    outputs = function_type.outputs.data
    if len(outputs) != 1 or (num_inputs is not None and len(inputs) != num_inputs):
        parser.raise_error(f"{op_name} has type {expected}, got {function_type}", start)
    return inputs, outputs[0]


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A literal: ``hlo.constant dense<[128, 256]> : tensor<2xi64>``, or an HLO tuple
    literal ``hlo.constant (dense<...> : tensor<2xi64>, dense<1> : tensor<i64>)``."""

    name = "hlo.constant"
    value = prop_def(ConstantValue)
    output = result_def(TensorType | TupleType)
    traits = traits_def(Pure())

    def __init__(self, value: Attribute):
        super().__init__(properties={"value": value}, result_types=[constant_value_type(value)])

    def verify_(self) -> None:
        expected = constant_value_type(self.value)
        if self.output.type != expected:
            raise VerifyException(
                f"result type {self.output.type} does not match the literal's type {expected}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attributes = parser.parse_optional_attr_dict()
        op = cls(_parse_constant_value(parser))
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        _print_constant_value(printer, self.value)


@irdl_op_definition
class TupleOp(IRDLOperation):
    """Bundle values into a tuple: ``hlo.tuple %a, %b : tuple<tensor<..>, tensor<..>>``."""

    name = "hlo.tuple"
    val = var_operand_def(TensorType | TupleType)
    result = result_def(TupleType)
    traits = traits_def(Pure())

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[values], result_types=[TupleType(tuple(v.type for v in values))])

    def verify_(self) -> None:
        assert isinstance(self.result.type, TupleType)
        expected = TupleType(tuple(v.type for v in self.val))
        if self.result.type != expected:
            raise VerifyException(
                f"result type {self.result.type} does not match the operand types {expected}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> TupleOp:
        unresolved = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_start = parser.pos
        result_type = parser.parse_type()
        if not isinstance(result_type, TupleType):
            parser.raise_error(f"hlo.tuple produces a tuple type, got {result_type}", type_start)
        element_types = result_type.types.data
        if len(element_types) != len(unresolved):
            parser.raise_error(
                f"hlo.tuple has {len(unresolved)} operands but its type "
                f"{result_type} has {len(element_types)} elements",
                type_start,
            )
        values = parser.resolve_operands(unresolved, element_types, type_start)
        op = cls(values)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        if self.val:
            printer.print_string(" ")
            printer.print_list(self.val, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class GetTupleElementOp(IRDLOperation):
    """Element ``index`` of a tuple: ``hlo.get_tuple_element %t[0] : (tuple<..>) -> ..``."""

    name = "hlo.get_tuple_element"
    operand = operand_def(TupleType)
    index = prop_def(IntegerAttr[I32])
    result = result_def(TensorType | TupleType)
    traits = traits_def(Pure())

    def __init__(self, operand: SSAValue, index: int):
        assert isinstance(operand.type, TupleType)
        super().__init__(
            operands=[operand],
            properties={"index": IntegerAttr(index, i32)},
            result_types=[operand.type.types.data[index]],
        )

    def verify_(self) -> None:
        assert isinstance(self.operand.type, TupleType)
        elements = self.operand.type.types.data
        index = self.index.value.data
        if not 0 <= index < len(elements):
            raise VerifyException(
                f"index {index} is out of range for a tuple of {len(elements)} elements"
            )
        if self.result.type != elements[index]:
            raise VerifyException(
                f"result type {self.result.type} does not match tuple element {index} "
                f"of type {elements[index]}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> GetTupleElementOp:
        unresolved = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        index = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation("]")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_start = parser.pos
        inputs, result_type = _parse_function_type(
            parser, cls.name, 1, "(tuple<...>) -> element type"
        )
        (operand,) = parser.resolve_operands([unresolved], inputs, type_start)
        return cls.create(
            operands=[operand],
            properties={"index": IntegerAttr(index, i32)},
            result_types=[result_type],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_string(f"[{self.index.value.data}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_attribute(self.operand.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class CustomCallOp(IRDLOperation):
    """A call to a named backend target: ``hlo.custom_call @Target(%a, %b)
    {backend_config = "...", api_version = 1 : i32} : (types) -> type``.

    Its verifier enforces the contract registered for ``call_target_name`` in
    :mod:`mxdsl.contract` (spec §4, §6: the MX contract is checked where the custom
    call is built, not in the legalization passes)."""

    name = "hlo.custom_call"
    inputs = var_operand_def(TensorType | TupleType)
    result = result_def(TensorType | TupleType)
    call_target_name = prop_def(StringAttr)
    backend_config = prop_def(StringAttr, default_value=StringAttr(""))
    api_version = prop_def(IntegerAttr[I32], default_value=IntegerAttr(1, i32))

    _PRINTED_PROPERTIES: ClassVar = ("backend_config", "api_version")

    def __init__(
        self,
        call_target_name: str,
        inputs: Sequence[SSAValue],
        result_type: Attribute,
        backend_config: str = "",
        api_version: int = 1,
    ):
        super().__init__(
            operands=[inputs],
            result_types=[result_type],
            properties={
                "call_target_name": StringAttr(call_target_name),
                "backend_config": StringAttr(backend_config),
                "api_version": IntegerAttr(api_version, i32),
            },
        )

    @property
    def target(self) -> str:
        return self.call_target_name.data

    def signature(self) -> CustomCallSignature:
        """The neutral view of this call that the contract registry checks."""
        return CustomCallSignature(
            target=self.target,
            operand_types=tuple(v.type for v in self.inputs),
            result_type=self.result.type,
            backend_config=self.backend_config.data,
            api_version=self.api_version.value.data,
            operand_literals=tuple(
                v.owner.value if isinstance(v.owner, ConstantOp) else None for v in self.inputs
            ),
        )

    def verify_(self) -> None:
        verify_custom_call(self.signature())

    @classmethod
    def parse(cls, parser: Parser) -> CustomCallOp:
        target = parser.parse_symbol_name()
        unresolved = parser.parse_op_args_list()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_start = parser.pos
        inputs, result_type = _parse_function_type(
            parser, cls.name, None, "(operand types) -> one result type (which may be a tuple)"
        )
        operands = parser.resolve_operands(unresolved, inputs, type_start)
        properties: dict[str, Attribute] = {"call_target_name": target}
        for name in cls._PRINTED_PROPERTIES:
            if name in attributes:
                properties[name] = attributes.pop(name)
        return cls.create(
            operands=operands,
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.target)
        printer.print_string("(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(")")
        shown = {name: self.properties[name] for name in self._PRINTED_PROPERTIES}
        printer.print_string(" ")
        printer.print_attr_dict({**shown, **self.attributes})
        printer.print_string(" : (")
        printer.print_list((v.type for v in self.inputs), printer.print_attribute)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)


def _dims(value: DenseArrayBase[I64]) -> tuple[int, ...]:
    return value.get_values()


@irdl_op_definition
class DotGeneralOp(IRDLOperation):
    """A general dot product (StableHLO ``dot_general``): batch dims of lhs and rhs pair
    up, contracting dims are summed over; the result is batch dims, then lhs free dims,
    then rhs free dims::

        %r = hlo.dot_general %a, %b, batching_dims = [0] x [0],
            contracting_dims = [2] x [1] : (tensor<..>, tensor<..>) -> tensor<..>
    """

    name = "hlo.dot_general"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    lhs_batching_dimensions = prop_def(DenseArrayBase[I64])
    rhs_batching_dimensions = prop_def(DenseArrayBase[I64])
    lhs_contracting_dimensions = prop_def(DenseArrayBase[I64])
    rhs_contracting_dimensions = prop_def(DenseArrayBase[I64])
    traits = traits_def(Pure())

    def __init__(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        result_type: Attribute,
        batching_dims: tuple[Sequence[int], Sequence[int]],
        contracting_dims: tuple[Sequence[int], Sequence[int]],
    ):
        super().__init__(
            operands=[lhs, rhs],
            result_types=[result_type],
            properties=_dot_dimension_properties(batching_dims, contracting_dims),
        )

    @property
    def batching_dims(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return _dims(self.lhs_batching_dimensions), _dims(self.rhs_batching_dimensions)

    @property
    def contracting_dims(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return (
            _dims(self.lhs_contracting_dimensions),
            _dims(self.rhs_contracting_dimensions),
        )

    def verify_(self) -> None:
        assert isinstance(self.lhs.type, TensorType)
        assert isinstance(self.rhs.type, TensorType)
        assert isinstance(self.result.type, TensorType)
        expected = dot_general_result_shape(
            self.lhs.type.get_shape(),
            self.rhs.type.get_shape(),
            self.batching_dims,
            self.contracting_dims,
        )
        if tuple(self.result.type.get_shape()) != expected:
            raise VerifyException(
                f"result shape {list(self.result.type.get_shape())} does not match the "
                f"dot_general shape {list(expected)}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> DotGeneralOp:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        dims: dict[str, tuple[list[int], list[int]]] = {}
        while parser.parse_optional_punctuation(",") is not None:
            key_start = parser.pos
            key = parser.parse_identifier()
            if key not in ("batching_dims", "contracting_dims") or key in dims:
                parser.raise_error(
                    f"expected batching_dims or contracting_dims (once each), got {key}",
                    key_start,
                )
            parser.parse_punctuation("=")
            lhs_dims = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_integer
            )
            parser.parse_keyword("x")
            rhs_dims = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_integer
            )
            dims[key] = (lhs_dims, rhs_dims)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_start = parser.pos
        inputs, result_type = _parse_function_type(parser, cls.name, 2, "(lhs, rhs) -> result")
        operands = parser.resolve_operands([lhs, rhs], inputs, type_start)
        empty: tuple[list[int], list[int]] = ([], [])
        return cls.create(
            operands=operands,
            result_types=[result_type],
            properties=_dot_dimension_properties(
                dims.get("batching_dims", empty), dims.get("contracting_dims", empty)
            ),
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
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_list((self.lhs.type, self.rhs.type), printer.print_attribute)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)


def _dot_dimension_properties(
    batching_dims: tuple[Sequence[int], Sequence[int]],
    contracting_dims: tuple[Sequence[int], Sequence[int]],
) -> dict[str, Attribute]:
    return {
        "lhs_batching_dimensions": DenseArrayBase.from_list(i64, batching_dims[0]),
        "rhs_batching_dimensions": DenseArrayBase.from_list(i64, batching_dims[1]),
        "lhs_contracting_dimensions": DenseArrayBase.from_list(i64, contracting_dims[0]),
        "rhs_contracting_dimensions": DenseArrayBase.from_list(i64, contracting_dims[1]),
    }


def dot_general_result_shape(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    batching_dims: tuple[Sequence[int], Sequence[int]],
    contracting_dims: tuple[Sequence[int], Sequence[int]],
) -> tuple[int, ...]:
    """The result shape of a dot_general, or a VerifyException naming the bad dim."""
    (lhs_batch, rhs_batch), (lhs_contract, rhs_contract) = batching_dims, contracting_dims
    if len(lhs_batch) != len(rhs_batch):
        raise VerifyException(
            f"lhs has {len(lhs_batch)} batching dims but rhs has {len(rhs_batch)}"
        )
    if len(lhs_contract) != len(rhs_contract):
        raise VerifyException(
            f"lhs has {len(lhs_contract)} contracting dims but rhs has {len(rhs_contract)}"
        )
    for side, shape, dims in (
        ("lhs", lhs_shape, (*lhs_batch, *lhs_contract)),
        ("rhs", rhs_shape, (*rhs_batch, *rhs_contract)),
    ):
        if bad := [d for d in dims if not 0 <= d < len(shape)]:
            raise VerifyException(
                f"{side} dimension {bad[0]} is out of range for a rank-{len(shape)} operand"
            )
        if repeated := sorted({d for d in dims if dims.count(d) > 1}):
            raise VerifyException(
                f"{side} dimension {repeated[0]} appears more than once in the batching "
                f"and contracting dims {list(dims)}"
            )
    for kind, lhs_dims, rhs_dims in (
        ("batching", lhs_batch, rhs_batch),
        ("contracting", lhs_contract, rhs_contract),
    ):
        for lhs_dim, rhs_dim in zip(lhs_dims, rhs_dims, strict=True):
            if lhs_shape[lhs_dim] != rhs_shape[rhs_dim]:
                raise VerifyException(
                    f"{kind} dim sizes differ: lhs dim {lhs_dim} has "
                    f"{lhs_shape[lhs_dim]}, rhs dim {rhs_dim} has {rhs_shape[rhs_dim]}"
                )
    lhs_free = [s for d, s in enumerate(lhs_shape) if d not in (*lhs_batch, *lhs_contract)]
    rhs_free = [s for d, s in enumerate(rhs_shape) if d not in (*rhs_batch, *rhs_contract)]
    return (*(lhs_shape[d] for d in lhs_batch), *lhs_free, *rhs_free)


@irdl_op_definition
class ConvertOp(IRDLOperation):
    """Element type conversion with the same shape (round to nearest even):
    ``hlo.convert %x : (tensor<4xf32>) -> tensor<4xbf16>``."""

    name = "hlo.convert"
    operand = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$operand attr-dict `:` functional-type($operand, $result)"

    def __init__(self, operand: SSAValue, result_type: Attribute):
        super().__init__(operands=[operand], result_types=[result_type])

    def verify_(self) -> None:
        assert isinstance(self.operand.type, TensorType)
        assert isinstance(self.result.type, TensorType)
        if self.operand.type.get_shape() != self.result.type.get_shape():
            raise VerifyException(
                f"result shape {list(self.result.type.get_shape())} differs from the operand "
                f"shape {list(self.operand.type.get_shape())}; convert only changes the "
                "element type"
            )


Hlo = Dialect(
    "hlo",
    [ConstantOp, TupleOp, GetTupleElementOp, CustomCallOp, DotGeneralOp, ConvertOp],
    [],
)
