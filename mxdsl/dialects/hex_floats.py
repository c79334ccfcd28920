"""Hex float literals in ``dense<...>`` attributes are bit patterns, as in MLIR.

MLIR prints a float it cannot write in decimal (NaN, an infinity) by its bit pattern:
JAX's ``jnp.asarray([nan, inf])`` is ``dense<[0x7FC00000, 0x7F800000]> : tensor<2xf32>``
and its ``-inf`` reduce init ``dense<0xFF80> : tensor<bf16>``. xDSL 0.75's dense parser
reads such a literal as the integer *value* (``0xFF80`` becomes 65408.0).
:func:`parse_dense_elements` reads every hex element of a float literal as the bits of
that element (splat or not), and every other literal exactly as xDSL does;
:class:`HexFloatParser` uses it for every ``dense<...>`` it parses (the generic syntax
included). ``mx-opt`` and ``mx-run`` parse with it; ``stablehlo.constant`` uses the
function in its custom syntax under any parser, so plain ``xdsl-opt`` reads JAX's
constants right too (its generic syntax keeps xDSL's reading).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyDenseElement,
    AnyFloat,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    RankedStructure,
)
from xdsl.frontend.mlir import MLIRFrontend
from xdsl.parser import AttrParser, Parser
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind


def _is_hex(span: Span) -> bool:
    text = span.text.lstrip("-")
    return text[:2] in ("0x", "0X")


def parse_dense_elements(
    parser: AttrParser, type: RankedStructure[AnyDenseElement] | None = None
) -> DenseIntOrFPElementsAttr:
    """The rest of a ``dense<...>`` attribute after the ``dense`` keyword (and its type
    after ``:`` unless ``type`` is given), with hex elements of a float literal read as
    bit patterns. Anything else is xDSL's own reading."""
    start = parser.pos
    parser.parse_punctuation("<", " in dense attribute")
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    if token.kind not in (MLIRTokenKind.L_SQUARE, MLIRTokenKind.INTEGER_LIT):
        return _xdsl_reading(parser, start, type)
    elements, shape = parser._parse_tensor_literal()  # pyright: ignore[reportPrivateUsage]
    hex_at = [i for i, e in enumerate(elements) if _is_hex(e.span)]
    parser.parse_punctuation(">", " in dense attribute")
    given = type
    if type is None:
        parser.parse_punctuation(":", " in dense attribute")
        type = parser._parse_dense_literal_type()  # pyright: ignore[reportPrivateUsage]
    element = type.element_type
    if not hex_at or not isinstance(element, AnyFloat):
        return _xdsl_reading(parser, start, given)
    end = parser.pos
    count = type.element_count()
    width = element.bitwidth
    size = element.compile_time_size
    patterns: dict[int, bytes] = {}
    for index in hex_at:
        literal = elements[index]
        if literal.is_negative:
            parser.raise_error(
                f"hex float literal {literal.span.text} has a sign: a hex literal of a "
                f"float is its bit pattern (set the sign bit in the pattern)",
                at_position=literal.span,
            )
        bits = literal.to_int(parser)
        if bits.bit_length() > width:
            parser.raise_error(
                f"hex float literal {literal.span.text} does not fit in {element} ({width} bits)",
                at_position=literal.span,
            )
        patterns[index] = bits.to_bytes(size, "little")
    values = [0.0 if i in patterns else e.to_float(parser) for i, e in enumerate(elements)]
    if shape and shape != list(type.get_shape()):
        parser.raise_error(
            f"Shape mismatch in dense literal. Expected {list(type.get_shape())} shape "
            f"from the type, but got {shape} shape.",
            at_position=Span(start, end, elements[0].span.input),
        )
    if not shape:  # a splat
        values, patterns = values * count, {i: patterns[0] for i in range(count)}
    float_type = cast(RankedStructure[AnyFloat], type)
    decimal = DenseIntOrFPElementsAttr.from_list(float_type, values)
    raw = bytearray(decimal.data.data)
    for index, pattern in patterns.items():
        raw[index * size : (index + 1) * size] = pattern
    return DenseIntOrFPElementsAttr(float_type, BytesAttr(bytes(raw)))


def _xdsl_reading(
    parser: AttrParser, start: int, type: RankedStructure[AnyDenseElement] | None
) -> DenseIntOrFPElementsAttr:
    parser._resume_from(start)  # pyright: ignore[reportPrivateUsage]
    return AttrParser.parse_dense_int_or_fp_elements_attr(parser, type)


class HexFloatParser(Parser):
    """xDSL's parser, reading hex elements of float ``dense<...>`` literals as bit
    patterns (:func:`parse_dense_elements`) in every syntax."""

    def parse_dense_int_or_fp_elements_attr(
        self, type: RankedStructure[AnyDenseElement] | None
    ) -> DenseIntOrFPElementsAttr:
        return parse_dense_elements(self, type)


@dataclass(frozen=True)
class HexFloatMLIRFrontend(MLIRFrontend):
    """xDSL's MLIR frontend parsing with :class:`HexFloatParser` (mx-opt's ``mlir``
    frontend under xdsl-opt's diagnostic flags)."""

    def parse(self, ctx: Context, input: IO[bytes], input_name: str = "input") -> ModuleOp:
        parser = HexFloatParser(ctx, input.read(), input_name)
        return parser.parse_module(not self.no_implicit_module)
