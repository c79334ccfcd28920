"""What the lowering families share: the ISA's tile constants, element-type helpers,
the refusal a lowering raises, constant tensors (splats) and the MX scale layout."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    IntegerType,
    MemRefType,
    Signedness,
    TensorType,
    i1,
)
from xdsl.ir import Attribute, SSAValue

from mxdsl.builder import NisaBuilder, Offset
from mxdsl.contract.mx import MX_BLOCK_SIZE, X4_PACK
from mxdsl.dialects import nisa

PASS_NAME = "lower-hlo-to-nisa"


PMAX = nisa.PMAX
"""Partitions of SBUF / PSUM."""


BLOCK_ROWS = nisa.MX_BLOCK_PARTITIONS
"""Partitions of one MX block (8); x4 words per block row: 32 / 4 = 8 as well."""


QUADRANT = 32
"""The quadrant stride of the scale layout (scale row i at (i & 3) + 32 (i >> 2))."""


QUADRANT_ROWS = 4


MX_PARTITION_QUANTUM = nisa.MX_PARTITION_QUANTUM


BLOCKS_PER_TILE = PMAX // BLOCK_ROWS
"""Logical 32-element blocks stacked on the partitions of one quantize tile (16)."""


WORDS_PER_BLOCK = MX_BLOCK_SIZE // X4_PACK
"""x4 words per 32-element block (8): one scale row covers 8 partitions of MX data."""


UI32 = IntegerType(32, Signedness.UNSIGNED)


F32 = Float32Type()


E8M0 = Float8E8M0FNUType()


UI8 = IntegerType(8, Signedness.UNSIGNED)


ELEMENTWISE_FREE_TILE = 512
"""Free elements per partition of one elementwise tile."""


class Refusal(Exception):
    """Raised by a lowering for an op the mapping cannot express: the driver turns it
    into a located diagnostic on the op (``lower-hlo-to-nisa: <message>``, exit 1)."""


@dataclass(frozen=True)
class Splat:
    """A tensor that holds one constant (of the buffer element type: i1 is ui8)."""

    value: Any
    element: Attribute


def x4_type(fp8_dtype: str) -> nisa.X4Type:
    return nisa.float8_e5m2_x4 if fp8_dtype == "float8_e5m2" else nisa.float8_e4m3fn_x4


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def hbm_type(tensor: TensorType[Attribute]) -> MemRefType[Attribute]:
    return nisa.tile_type(tensor.get_shape(), tensor.get_element_type(), nisa.MemorySpace.HBM)


def buffer_element(element: Attribute) -> Attribute:
    """The buffer element type of a tensor element type: i1 is a ui8 0 / 1."""
    return UI8 if element == i1 else element


def element_kind(element: Attribute) -> str:
    """float (at most 32 bits) / signed / unsigned (8, 16, 32 bits) / i1 / other."""
    if element == i1:
        return "i1"
    if isinstance(element, IntegerType):
        if element.width.data not in (8, 16, 32):
            return "other"
        return "unsigned" if element.signedness.data == Signedness.UNSIGNED else "signed"
    if isinstance(element, BFloat16Type | Float16Type | Float32Type):
        return "float"
    return "other"


def rows_cols(shape: Sequence[int]) -> tuple[int, int]:
    """A tensor as [rows, last dim] (rank 0: [1, 1])."""
    cols = shape[-1] if shape else 1
    return math.prod(shape) // max(cols, 1), cols


def scale_runs(rows: int) -> list[tuple[int, int, int]]:
    """Runs ``(first row, quadrants, rows per quadrant)`` covering scale rows 0..rows-1 of
    a scale tile in the quadrant layout: whole quadrants of 4 rows, then the rest."""
    runs: list[tuple[int, int, int]] = []
    if rows >= QUADRANT_ROWS:
        runs.append((0, rows // QUADRANT_ROWS, QUADRANT_ROWS))
    if rows % QUADRANT_ROWS:
        runs.append((rows - rows % QUADRANT_ROWS, 1, rows % QUADRANT_ROWS))
    return runs


def scale_slots(
    e: NisaBuilder,
    quadrants: SSAValue,
    first: int,
    count: int,
    per: int,
    col: Offset,
    cols: int,
) -> SSAValue:
    """Scale rows ``first .. first + count * per`` of a quadrant-layout scale tile viewed
    as ``[4, 32, F]``: partitions ``32 j + s`` for ``j`` in ``first / 4 ..``, ``s < per``."""
    return e.view(
        quadrants,
        [
            (first // QUADRANT_ROWS, count, 1, True),
            (0, per, 1, True),
            (col, cols, 1, True),
        ],
    )
