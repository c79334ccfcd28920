"""The ``nisa`` dialect: the NKI ISA in destination-passing style.

Buffers are upstream ``memref`` values whose memory space is a ``#nisa.mem<...>``
attribute (hbm, sbuf or psum)::

    %t = memref.alloc() : memref<128x512xbf16, #nisa.mem<sbuf>>
    %v = memref.subview %t[0, %j] [128, 128] [1, 1]
        : memref<128x512xbf16, #nisa.mem<sbuf>>
        to memref<128x128xbf16, strided<[512, 1], offset: ?>, #nisa.mem<sbuf>>

HBM tensors are function arguments (or ``memref.alloc`` in hbm); on-chip buffers come
from ``memref.alloc`` in sbuf / psum, views from ``memref.subview`` / ``expand_shape`` /
``collapse_shape``. Dim 0 of an on-chip buffer is the partition dim (at most 128).
Functions, loops and index arithmetic come from ``func``, ``scf`` and ``arith``.

Every nisa op that moves or computes data writes its first operand, ``dst``, and returns
nothing; these ops carry read and write memory effects, so DCE and canonicalization
keep them. The verifiers enforce the documented NKI ISA limits (reference
the public NKI ISA documentation) of a gen4 (Trn3) NeuronCore, the generation that has the
MX ops, with the deviations listed in ``docs/nisa.md`` (moving free size <= 512: one PSUM
bank). Each limit violation raises a ``VerifyException`` naming the op, the operand, the
value and the limit.

The x4-packed MX element types are ``!nisa.float8_e4m3fn_x4``, ``!nisa.float8_e5m2_x4``
(32-bit containers) and ``!nisa.float4_e2m1fn_x4`` (16-bit); E8M0 scales are builtin
``f8E8M0FNU`` (or ``ui8``).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    AnyFloatConstr,
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    FixedBitwidthType,
    Float8E4M3FNType,
    Float8E4M3Type,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FloatTF32Type,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    Signedness,
    StridedLayoutAttr,
    UnitAttr,
    f4E2M1FN,
    f8E4M3FN,
    f8E5M2,
    i32,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    base,
    eq,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    MemoryEffect,
    MemoryEffectKind,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from mxdsl.targets import DEFAULT_TARGET, current_target

# ----------------------------------------------------------------------------- limits

PMAX = 128
"""Partitions of SBUF and PSUM: dim 0 of an on-chip buffer is at most this."""
PSUM_PARTITION_BYTES = DEFAULT_TARGET.psum_partition_bytes
"""The default target's PSUM per partition (trn3: 16 KiB, 8 banks x 2 KiB)."""
PSUM_BANK_BYTES = DEFAULT_TARGET.psum_bank_bytes
SBUF_PARTITION_BYTES = DEFAULT_TARGET.sbuf_partition_bytes
"""The default target's SBUF per partition (trn3: 256 KiB). The verifiers check the
current target's (:func:`mxdsl.targets.current_target`, ``--target`` on the tools)."""
MATMUL_STATIONARY_FMAX = 128
MATMUL_MOVING_FMAX = 512
"""One PSUM bank of f32 (``nl.tile_size.gemm_moving_fmax``)."""
MX_PARTITION_QUANTUM = 32
MX_BLOCK_PARTITIONS = 8
X4_LANES = 4
DMA_COMPUTE_MAX_SOURCES = 16
IOTA_MAX_DIMS = 4
TRANSPOSE_TENSOR_ENGINE_MAX = 128
TRANSPOSE_VECTOR_ENGINE_MAX = 32


# ----------------------------------------------------------------------------- attributes


class MemorySpace(StrEnum):
    HBM = "hbm"
    SBUF = "sbuf"
    PSUM = "psum"


@irdl_attr_definition
class MemorySpaceAttr(EnumAttribute[MemorySpace]):
    """The memory space of a memref: ``#nisa.mem<hbm>``, ``#nisa.mem<sbuf>``,
    ``#nisa.mem<psum>``."""

    name = "nisa.mem"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> MemorySpace:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)


HBM = MemorySpaceAttr(MemorySpace.HBM)
SBUF = MemorySpaceAttr(MemorySpace.SBUF)
PSUM = MemorySpaceAttr(MemorySpace.PSUM)


class AluOp(StrEnum):
    """The ALU operations of ``nki.language`` (``nki.api.shared`` ALU table)."""

    BYPASS = "bypass"
    ADD = "add"
    SUBTRACT = "subtract"
    MULTIPLY = "multiply"
    DIVIDE = "divide"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    EQUAL = "equal"
    NOT_EQUAL = "not_equal"
    GREATER = "greater"
    GREATER_EQUAL = "greater_equal"
    LESS = "less"
    LESS_EQUAL = "less_equal"
    LOGICAL_AND = "logical_and"
    LOGICAL_OR = "logical_or"
    LOGICAL_XOR = "logical_xor"
    POWER = "power"
    ABS_MAX = "abs_max"
    ABS_MIN = "abs_min"
    BITWISE_AND = "bitwise_and"
    BITWISE_OR = "bitwise_or"
    BITWISE_XOR = "bitwise_xor"
    LEFT_SHIFT = "left_shift"
    RIGHT_SHIFT = "right_shift"


BITWISE_ALU_OPS = frozenset(
    {
        AluOp.BITWISE_AND,
        AluOp.BITWISE_OR,
        AluOp.BITWISE_XOR,
        AluOp.LEFT_SHIFT,
        AluOp.RIGHT_SHIFT,
    }
)
"""Bit-vector ops: they work on the raw bits of integer operands."""
REDUCE_ALU_OPS = frozenset(
    {
        AluOp.ADD,
        AluOp.SUBTRACT,
        AluOp.MULTIPLY,
        AluOp.MAXIMUM,
        AluOp.MINIMUM,
        AluOp.LOGICAL_AND,
        AluOp.LOGICAL_OR,
        AluOp.LOGICAL_XOR,
        AluOp.BITWISE_AND,
        AluOp.BITWISE_OR,
        AluOp.BITWISE_XOR,
    }
)
"""The ops ``tensor_reduce`` accepts."""


@irdl_attr_definition
class AluOpAttr(EnumAttribute[AluOp], SpacedOpaqueSyntaxAttribute):
    """An ALU op: ``#nisa<alu add>`` (printed ``add`` inside an op)."""

    name = "nisa.alu"


class ActivationFunction(StrEnum):
    """The Scalar-engine activation functions modelled: a subset of NKI's, plus ``expm1``,
    ``log1p`` and ``erfc``, which NKI's public table does not list and this project models
    so that StableHLO's ``exponential_minus_one``, ``log_plus_one`` and ``chlo.erfc`` have
    a lowering with their bits (``docs/lowering.md``, "Elementwise functions")."""

    COPY = "copy"
    SQUARE = "square"
    SIGMOID = "sigmoid"
    RELU = "relu"
    GELU = "gelu"
    GELU_APPRX_TANH = "gelu_apprx_tanh"
    GELU_APPRX_SIGMOID = "gelu_apprx_sigmoid"
    SILU = "silu"
    TANH = "tanh"
    EXP = "exp"
    LOG = "log"
    SQRT = "sqrt"
    RSQRT = "rsqrt"
    RECIPROCAL = "reciprocal"
    SOFTPLUS = "softplus"
    ERF = "erf"
    ERFC = "erfc"
    EXPM1 = "expm1"
    LOG1P = "log1p"
    ABS = "abs"
    SIGN = "sign"


@irdl_attr_definition
class ActivationFunctionAttr(EnumAttribute[ActivationFunction], SpacedOpaqueSyntaxAttribute):
    """An activation function: ``#nisa<act silu>`` (printed ``silu`` inside an op)."""

    name = "nisa.act"


class OobMode(StrEnum):
    ERROR = "error"
    SKIP = "skip"


@irdl_attr_definition
class OobModeAttr(EnumAttribute[OobMode], SpacedOpaqueSyntaxAttribute):
    """What an indirect DMA does with an out-of-range index: ``#nisa<oob_mode skip>``."""

    name = "nisa.oob_mode"


class Engine(StrEnum):
    TENSOR = "tensor"
    VECTOR = "vector"
    SCALAR = "scalar"
    GPSIMD = "gpsimd"


@irdl_attr_definition
class EngineAttr(EnumAttribute[Engine], SpacedOpaqueSyntaxAttribute):
    """A compute engine: ``#nisa<engine vector>``."""

    name = "nisa.engine"


@irdl_attr_definition
class IotaPatternAttr(ParametrizedAttribute):
    """The free-dim access pattern of ``nisa.iota``: up to 4 ``[step, num]`` pairs,
    outermost first, written ``[[step, num], ...]`` (``#nisa.iota_pattern[[1, 512]]``
    outside an op)."""

    name = "nisa.iota_pattern"
    pairs: ArrayAttr[ArrayAttr[IntAttr]]

    def __init__(self, pairs: Sequence[tuple[int, int]]):
        super().__init__(ArrayAttr(ArrayAttr((IntAttr(s), IntAttr(n))) for s, n in pairs))

    def get_pairs(self) -> tuple[tuple[int, int], ...]:
        return tuple((p.data[0].data, p.data[1].data) for p in self.pairs.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def parse_pair() -> ArrayAttr[IntAttr]:
            pair = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
            return ArrayAttr(IntAttr(x) for x in pair)

        return (ArrayAttr(parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_pair)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            "[" + ", ".join(f"[{step}, {num}]" for step, num in self.get_pairs()) + "]"
        )

    def verify(self) -> None:
        for pair in self.pairs.data:
            values = [x.data for x in pair.data]
            if len(values) != 2:
                raise VerifyException(
                    f"nisa.iota_pattern: each entry is a [step, num] pair, got {values}"
                )
            if values[1] < 1:
                raise VerifyException(
                    f"nisa.iota_pattern: num must be at least 1, got [{values[0]}, {values[1]}]"
                )


# ----------------------------------------------------------------------------- x4 types


class X4Type(ParametrizedAttribute, FixedBitwidthType, ABC):
    """Four narrow floats packed into one container element along the innermost free
    dim: x4 element j holds logical elements 4j..4j+3, lane 0 first."""

    @property
    @abstractmethod
    def lane_type(self) -> AnyFloat:
        """The builtin type of one packed lane."""
        raise NotImplementedError()

    @property
    def lanes(self) -> int:
        return X4_LANES

    @property
    def bitwidth(self) -> int:
        return self.lane_type.bitwidth * X4_LANES

    @property
    def compile_time_size(self) -> int:
        return self.size


@irdl_attr_definition
class Float8E4M3FNx4Type(X4Type):
    """Four float8_e4m3fn in 32 bits: ``!nisa.float8_e4m3fn_x4``."""

    name = "nisa.float8_e4m3fn_x4"

    @property
    def lane_type(self) -> AnyFloat:
        return f8E4M3FN


@irdl_attr_definition
class Float8E5M2x4Type(X4Type):
    """Four float8_e5m2 in 32 bits: ``!nisa.float8_e5m2_x4``."""

    name = "nisa.float8_e5m2_x4"

    @property
    def lane_type(self) -> AnyFloat:
        return f8E5M2


@irdl_attr_definition
class Float4E2M1FNx4Type(X4Type):
    """Four float4_e2m1fn in 16 bits: ``!nisa.float4_e2m1fn_x4``."""

    name = "nisa.float4_e2m1fn_x4"

    @property
    def lane_type(self) -> AnyFloat:
        return f4E2M1FN


float8_e4m3fn_x4 = Float8E4M3FNx4Type()
float8_e5m2_x4 = Float8E5M2x4Type()
float4_e2m1fn_x4 = Float4E2M1FNx4Type()


def tile_type(
    shape: Sequence[int], element_type: Attribute, space: MemorySpace | MemorySpaceAttr
) -> MemRefType[Attribute]:
    """``memref<shape x element_type, #nisa.mem<space>>``."""
    if isinstance(space, MemorySpace):
        space = MemorySpaceAttr(space)
    return MemRefType(element_type, shape, NoneAttr(), space)


def memory_space_of(memref: MemRefType[Attribute]) -> MemorySpace | None:
    """The nisa memory space of a memref type, None if it has none."""
    space = memref.memory_space
    return space.data if isinstance(space, MemorySpaceAttr) else None


def mx_scale_partitions(data_partitions: int) -> int:
    """Partitions an E8M0 scale tile needs for MX data over ``data_partitions``.

    One scale row per 8 data partitions; scale row i lives at partition
    ``(i & 3) + 32 * (i >> 2)`` (the quadrant layout of spec mx-quantize-numerics,
    ``copy2DScaleVectorToArray``): 4 for 32 data partitions, 100 for 128."""
    last = data_partitions // MX_BLOCK_PARTITIONS - 1
    return 32 * (last >> 2) + (last & 3) + 1


# ----------------------------------------------------------------------------- verification helpers


def _fmt_spaces(spaces: Sequence[MemorySpace]) -> str:
    return " or ".join(s.value for s in spaces)


def _is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


def _is_x4(t: Attribute) -> bool:
    return isinstance(t, X4Type)


def _is_e8m0_scale(t: Attribute) -> bool:
    return isinstance(t, Float8E8M0FNUType) or t == IntegerType(8, Signedness.UNSIGNED)


@dataclass(frozen=True)
class _Tile:
    """A memref operand seen as a tile: partition dim 0, the rest free."""

    role: str
    type: MemRefType[Attribute]
    space: MemorySpace

    @property
    def shape(self) -> tuple[int, ...]:
        return self.type.get_shape()

    @property
    def dtype(self) -> Attribute:
        return self.type.element_type

    @property
    def partitions(self) -> int:
        return self.shape[0] if self.shape else 1

    @property
    def free_size(self) -> int:
        return math.prod(self.shape[1:])

    @property
    def num_elements(self) -> int:
        return math.prod(self.shape)


def _tile(op: IRDLOperation, role: str, value: SSAValue, spaces: Sequence[MemorySpace]) -> _Tile:
    """Check that ``value`` is a static memref in one of ``spaces`` that fits on chip."""
    memref = value.type
    assert isinstance(memref, MemRefType), "IRDL constraints admit only memref tiles here"
    space = memory_space_of(memref)
    if space is None:
        raise VerifyException(
            f"{role} must be a memref in a nisa memory space "
            f"(#nisa.mem<hbm|sbuf|psum>), got {memref}"
        )
    if space not in spaces:
        raise VerifyException(f"{role} must be in {_fmt_spaces(spaces)}, got {space.value}")
    shape = memref.get_shape()
    if any(d == DYNAMIC_INDEX for d in shape):
        raise VerifyException(
            f"{role} has a dynamic shape {memref}; nisa operands have static shapes"
        )
    tile = _Tile(role, memref, space)
    if space == MemorySpace.HBM:
        return tile
    if not shape:
        raise VerifyException(
            f"{role} is a rank-0 {space.value} buffer; on-chip buffers have a partition dim"
        )
    if tile.partitions > PMAX:
        raise VerifyException(
            f"{role} has {tile.partitions} partitions, "
            f"exceeding the {PMAX} partitions of {space.value}"
        )
    target = current_target()  # mxdsl/targets.py: the capacities of --target
    psum = space == MemorySpace.PSUM
    capacity = target.psum_partition_bytes if psum else target.sbuf_partition_bytes
    dtype = tile.dtype
    if isinstance(dtype, FixedBitwidthType) and tile.free_size * dtype.size > capacity:
        raise VerifyException(
            f"{role} uses {tile.free_size * dtype.size} bytes per partition, "
            f"exceeding the {capacity} bytes of one {target.name} {space.value} partition"
        )
    return tile


def _no_x4(op: IRDLOperation, *tiles: _Tile) -> None:
    for tile in tiles:
        if _is_x4(tile.dtype):
            raise VerifyException(
                f"{tile.role} has the x4-packed type {tile.dtype}; only "
                "dma_copy, tensor_copy, memset, quantize_mx and nc_matmul_mx take x4 types"
            )


def _same_partitions_and_free_size(op: IRDLOperation, a: _Tile, b: _Tile) -> None:
    if a.partitions != b.partitions:
        raise VerifyException(
            f"{a.role} has {a.partitions} partitions but {b.role} has {b.partitions}"
        )
    if a.free_size != b.free_size:
        raise VerifyException(
            f"{a.role} has {a.free_size} elements per partition but {b.role} has {b.free_size}"
        )


def _rank2(op: IRDLOperation, tile: _Tile) -> None:
    if len(tile.shape) != 2:
        raise VerifyException(
            f"{tile.role} must be 2-D [partition, free], got shape {list(tile.shape)}"
        )


def _x4_conversion(op: IRDLOperation, dst: _Tile, src: _Tile) -> None:
    if (_is_x4(dst.dtype) or _is_x4(src.dtype)) and dst.dtype != src.dtype:
        raise VerifyException(
            f"cannot convert {src.dtype} to {dst.dtype}; x4-packed types copy only to the same type"
        )


def _scalar_or_column(
    op: IRDLOperation, role: str, value: SSAValue, data: _Tile, bitwise: bool
) -> None:
    """An operand that is a scalar SSA value or a [P, 1] per-partition tile; f32 for
    arithmetic ops, an integer for bitwise ones."""
    if isinstance(value.type, MemRefType):
        column = _tile(op, role, value, (MemorySpace.SBUF, MemorySpace.PSUM))
        if column.partitions != data.partitions or column.free_size != 1:
            raise VerifyException(
                f"{role} must be a scalar or a [{data.partitions}, 1] "
                f"per-partition tile, got shape {list(column.shape)}"
            )
        dtype = column.dtype
    else:
        dtype = value.type
    if bitwise and not _is_int(dtype):
        raise VerifyException(f"{role} of a bitwise op must be an integer, got {dtype}")
    if not bitwise and not isinstance(dtype, Float32Type):
        raise VerifyException(f"{role} of an arithmetic op must be f32, got {dtype}")


def _check_alu_operands(op: IRDLOperation, alu: AluOp, *tiles: _Tile) -> None:
    if alu not in BITWISE_ALU_OPS:
        return
    for tile in tiles:
        if not _is_int(tile.dtype):
            raise VerifyException(
                f"bitwise op {alu.value} needs integer operands, {tile.role} is {tile.dtype}"
            )


ON_CHIP = (MemorySpace.SBUF, MemorySpace.PSUM)
DMA_SPACES = (MemorySpace.HBM, MemorySpace.SBUF)
SBUF_ONLY = (MemorySpace.SBUF,)
PSUM_ONLY = (MemorySpace.PSUM,)
HBM_ONLY = (MemorySpace.HBM,)

ScalarOrTile = AnyFloatConstr | base(IntegerType) | base(MemRefType)
"""A scalar SSA value (f32 / integer) or a memref tile."""


class OperandEffects(MemoryEffect):
    """Memory effects per operand, as MLIR's memref ops declare them: a write on each
    destination buffer (the op's ``DESTINATIONS``), a read on every other buffer operand,
    and a read on a destination the op also reads (``reads_destination``: an
    accumulating matmul, a predicated copy; or a buffer passed as a source too).
    Scalars and indices have no effect."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        names: tuple[str, ...] = getattr(op, "DESTINATIONS", ("dst",))
        written = [value for name in names if (value := getattr(op, name)) is not None]
        reads_destination = bool(getattr(op, "reads_destination", lambda: False)())
        effects: set[EffectInstance] = set()
        for value in dict.fromkeys(op.operands):
            if not isinstance(value.type, MemRefType):
                continue
            as_destination = sum(1 for w in written if w is value)
            if as_destination:
                effects.add(EffectInstance(MemoryEffectKind.WRITE, value))
            uses = sum(1 for operand in op.operands if operand is value)
            if uses > as_destination or (as_destination and reads_destination):
                effects.add(EffectInstance(MemoryEffectKind.READ, value))
        return effects


_EFFECTS = traits_def(OperandEffects())
"""Per-operand effects (:class:`OperandEffects`)."""
_UNKNOWN_EFFECTS = traits_def(MemoryReadEffect(), MemoryWriteEffect())
"""Reads and writes memory beyond its operands (another core's, a barrier)."""


def _alu(op: AluOp | AluOpAttr) -> AluOpAttr:
    return op if isinstance(op, AluOpAttr) else AluOpAttr(op)


# ----------------------------------------------------------------------------- data movement


@irdl_op_definition
class DmaCopyOp(IRDLOperation):
    """Copy ``src`` into ``dst`` through a DMA engine, converting the dtype (via f32).

    ``nisa.dma_copy %dst, %src : T_dst, T_src``. A direct copy moves equal element
    counts in row-major order (shapes may differ). An indirect copy indexes one side
    along dim ``d`` through an SBUF vector of 32-bit integers (one per position of dim
    ``d`` of the other side): a gather ``%dst, %src[%idx : T] dim d`` reads
    ``dst[.., i, ..] = src[.., idx[i], ..]``; a scatter ``%dst[%idx : T], %src`` writes
    ``dst[.., idx[i], ..] = src[.., i, ..]``. The indexed side is in HBM. An index
    outside ``[0, size of dim d)`` is an error (``oob_mode error``, the default) or is
    skipped, leaving that part of dst unchanged (``oob_mode skip``)."""

    name = "nisa.dma_copy"
    dst = operand_def(MemRefType)
    dst_index = opt_operand_def(MemRefType)
    src = operand_def(MemRefType)
    src_index = opt_operand_def(MemRefType)
    indirect_dim = prop_def(IntegerAttr.constr(type=eq(i64)), default_value=IntegerAttr(0, i64))
    oob_mode = prop_def(OobModeAttr, default_value=OobModeAttr(OobMode.ERROR))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = _EFFECTS
    assembly_format = (
        "$dst (`[` $dst_index^ `:` type($dst_index) `]`)? `,` "
        "$src (`[` $src_index^ `:` type($src_index) `]`)? "
        "(`dim` $indirect_dim^)? (`oob_mode` $oob_mode^)? attr-dict "
        "`:` type($dst) `,` type($src)"
    )

    def __init__(
        self,
        dst: SSAValue,
        src: SSAValue,
        *,
        dst_index: SSAValue | None = None,
        src_index: SSAValue | None = None,
        indirect_dim: int = 0,
        oob_mode: OobMode = OobMode.ERROR,
    ):
        super().__init__(
            operands=[dst, dst_index, src, src_index],
            properties={
                "indirect_dim": IntegerAttr(indirect_dim, i64),
                "oob_mode": OobModeAttr(oob_mode),
            },
        )

    def verify_(self) -> None:
        if self.dst_index is not None and self.src_index is not None:
            raise VerifyException("only one side of a copy may be indirect")
        index = self.dst_index or self.src_index
        dim = self.indirect_dim.value.data
        if index is None:
            if dim != 0:
                raise VerifyException(f"indirect_dim {dim} is set but neither side is indirect")
            if self.oob_mode.data != OobMode.ERROR:
                raise VerifyException(f"oob_mode {self.oob_mode.data.value} needs an indirect side")
        dst_spaces = HBM_ONLY if self.dst_index is not None else DMA_SPACES
        src_spaces = HBM_ONLY if self.src_index is not None else DMA_SPACES
        dst = _tile(self, "dst", self.dst, dst_spaces)
        src = _tile(self, "src", self.src, src_spaces)
        _x4_conversion(self, dst, src)
        if index is None:
            if dst.num_elements != src.num_elements:
                raise VerifyException(
                    f"dst has {dst.num_elements} elements but src has {src.num_elements}"
                )
            return
        indexed, direct = (dst, src) if self.dst_index is not None else (src, dst)
        self._verify_indirect(indexed, direct, index, dim)

    def _verify_indirect(self, indexed: _Tile, direct: _Tile, index: SSAValue, dim: int) -> None:
        if len(indexed.shape) != len(direct.shape):
            dst, src = (indexed, direct) if indexed.role == "dst" else (direct, indexed)
            raise VerifyException(
                f"an indirect copy keeps the rank: dst is {list(dst.shape)} "
                f"and src is {list(src.shape)}"
            )
        if not 0 <= dim < len(direct.shape):
            raise VerifyException(
                f"indirect_dim {dim} is out of range for rank {len(direct.shape)}"
            )
        for d, (a, b) in enumerate(zip(indexed.shape, direct.shape, strict=True)):
            if d != dim and a != b:
                raise VerifyException(
                    f"dim {d} differs between dst and src ({a} vs {b}); "
                    f"only the indirect dim {dim} may differ"
                )
        vector = _tile(self, "index", index, SBUF_ONLY)
        if not (isinstance(vector.dtype, IntegerType) and vector.dtype.width.data == 32):
            raise VerifyException(f"index must be a vector of 32-bit integers, got {vector.dtype}")
        if len(vector.shape) > 2 or vector.num_elements != vector.partitions:
            raise VerifyException(f"index must have shape [n] or [n, 1], got {list(vector.shape)}")
        if vector.partitions != direct.shape[dim]:
            raise VerifyException(
                f"index has {vector.partitions} entries but dim {dim} of "
                f"{direct.role} has {direct.shape[dim]}"
            )


@irdl_op_definition
class DmaComputeOp(IRDLOperation):
    """Sum up to 16 sources into dst through a DMA engine (f32 internally):
    ``nisa.dma_compute %dst, (%a, %b) : T_dst, (T_a, T_b)``. Every source has as many
    elements as dst; all are in HBM or SBUF."""

    name = "nisa.dma_compute"
    dst = operand_def(MemRefType)
    srcs = var_operand_def(MemRefType)
    traits = _EFFECTS
    assembly_format = "$dst `,` `(` $srcs `)` attr-dict `:` type($dst) `,` `(` type($srcs) `)`"

    def __init__(self, dst: SSAValue, srcs: Sequence[SSAValue]):
        super().__init__(operands=[dst, srcs])

    def verify_(self) -> None:
        if not 1 <= len(self.srcs) <= DMA_COMPUTE_MAX_SOURCES:
            raise VerifyException(
                f"takes 1 to {DMA_COMPUTE_MAX_SOURCES} sources, got {len(self.srcs)}"
            )
        dst = _tile(self, "dst", self.dst, DMA_SPACES)
        _no_x4(self, dst)
        for i, value in enumerate(self.srcs):
            src = _tile(self, f"source {i}", value, DMA_SPACES)
            _no_x4(self, src)
            if src.num_elements != dst.num_elements:
                raise VerifyException(
                    f"source {i} has {src.num_elements} elements but dst has {dst.num_elements}"
                )


@irdl_op_definition
class MemsetOp(IRDLOperation):
    """Fill an on-chip tile with a constant: ``nisa.memset %dst, 0.0 : T``. The value is
    cast to the dst dtype; x4 tiles can only be zeroed."""

    name = "nisa.memset"
    dst = operand_def(MemRefType)
    value = prop_def(FloatAttr.constr(type=eq(Float64Type())))
    traits = _EFFECTS
    assembly_format = "$dst `,` $value attr-dict `:` type($dst)"

    def __init__(self, dst: SSAValue, value: float):
        super().__init__(operands=[dst], properties={"value": FloatAttr(value, Float64Type())})

    def verify_(self) -> None:
        dst = _tile(self, "dst", self.dst, ON_CHIP)
        value = self.value.value.data
        if _is_x4(dst.dtype) and value != 0:
            raise VerifyException(f"an x4-packed tile can only be set to 0, got {value}")
        if _is_int(dst.dtype) and not float(value).is_integer():
            raise VerifyException(f"{value} is not an integer, but dst is {dst.dtype}")


@irdl_op_definition
class IotaOp(IRDLOperation):
    """Write an index pattern into an SBUF tile (GpSimd, int32 math, then a cast):
    ``nisa.iota %dst, [[step, num], ...] offset o channel_multiplier c : T``.
    The pairs (at most 4, outermost first) enumerate each partition's free elements in
    row-major order; element (p, i_0, ..., i_k) gets ``o + p * c + sum(i_j * step_j)``."""

    name = "nisa.iota"
    dst = operand_def(MemRefType)
    pattern = prop_def(IotaPatternAttr)
    offset = prop_def(IntegerAttr.constr(type=eq(i64)), default_value=IntegerAttr(0, i64))
    channel_multiplier = prop_def(
        IntegerAttr.constr(type=eq(i64)), default_value=IntegerAttr(0, i64)
    )
    traits = _EFFECTS
    assembly_format = (
        "$dst `,` $pattern (`offset` $offset^)? "
        "(`channel_multiplier` $channel_multiplier^)? attr-dict `:` type($dst)"
    )

    def __init__(
        self,
        dst: SSAValue,
        pattern: Sequence[tuple[int, int]],
        offset: int = 0,
        channel_multiplier: int = 0,
    ):
        super().__init__(
            operands=[dst],
            properties={
                "pattern": IotaPatternAttr(pattern),
                "offset": IntegerAttr(offset, i64),
                "channel_multiplier": IntegerAttr(channel_multiplier, i64),
            },
        )

    def verify_(self) -> None:
        dst = _tile(self, "dst", self.dst, SBUF_ONLY)
        _no_x4(self, dst)
        pairs = self.pattern.get_pairs()
        if not 1 <= len(pairs) <= IOTA_MAX_DIMS:
            raise VerifyException(
                f"pattern has {len(pairs)} [step, num] pairs; 1 to {IOTA_MAX_DIMS} are allowed"
            )
        covered = math.prod(num for _, num in pairs)
        if covered != dst.free_size:
            raise VerifyException(
                f"pattern covers {covered} elements per partition but dst has {dst.free_size}"
            )


@irdl_op_definition
class TensorCopyOp(IRDLOperation):
    """Copy an on-chip tile, converting the dtype (RNE):
    ``nisa.tensor_copy %dst, %src : T_dst, T_src``. Same partitions and elements per
    partition; x4-packed types copy only to the same type."""

    name = "nisa.tensor_copy"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    traits = _EFFECTS
    assembly_format = "$dst `,` $src attr-dict `:` type($dst) `,` type($src)"

    def __init__(self, dst: SSAValue, src: SSAValue):
        super().__init__(operands=[dst, src])

    def verify_(self) -> None:
        dst = _tile(self, "dst", self.dst, ON_CHIP)
        src = _tile(self, "src", self.src, ON_CHIP)
        _same_partitions_and_free_size(self, dst, src)
        _x4_conversion(self, dst, src)


# ----------------------------------------------------------------------------- matmul and MX

MATMUL_INPUT_TYPES = (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float8E4M3Type,
    Float8E4M3FNType,
    Float8E5M2Type,
)
"""What every level runs (tf32 is an ISA input type, but how the PE rounds an fp32
container to it is not public: it is refused, not guessed)."""
MATMUL_DST_TYPES = (Float32Type, BFloat16Type)


def _matmul_dst(op: IRDLOperation, value: SSAValue, m: int, n: int) -> None:
    dst = _tile(op, "dst", value, PSUM_ONLY)
    if not isinstance(dst.dtype, MATMUL_DST_TYPES):
        raise VerifyException(f"dst must be f32 or bf16, got {dst.dtype}")
    if dst.shape != (m, n):
        raise VerifyException(
            f"dst shape {list(dst.shape)} must be [stationary free, moving free] = [{m}, {n}]"
        )


@irdl_op_definition
class NcMatmulOp(IRDLOperation):
    """``dst[M, N] (= or +=) stationary[K, M]^T . moving[K, N]`` on the Tensor engine,
    f32 internally: ``nisa.nc_matmul %dst, %stationary, %moving accumulate : ...``.
    K (partitions) <= 128, M <= 128, N <= 512; inputs in SBUF, dst in PSUM (f32 or
    bf16). Without ``accumulate`` dst is overwritten."""

    name = "nisa.nc_matmul"
    dst = operand_def(MemRefType)
    stationary = operand_def(MemRefType)
    moving = operand_def(MemRefType)
    accumulate = opt_prop_def(UnitAttr)
    traits = _EFFECTS

    def reads_destination(self) -> bool:
        """Accumulating into dst reads it."""
        return self.accumulate is not None

    assembly_format = (
        "$dst `,` $stationary `,` $moving (`accumulate` $accumulate^)? attr-dict "
        "`:` type($dst) `,` type($stationary) `,` type($moving)"
    )

    def __init__(
        self, dst: SSAValue, stationary: SSAValue, moving: SSAValue, accumulate: bool = False
    ):
        super().__init__(
            operands=[dst, stationary, moving],
            properties={"accumulate": UnitAttr()} if accumulate else {},
        )

    def verify_(self) -> None:
        stationary = _tile(self, "stationary", self.stationary, SBUF_ONLY)
        moving = _tile(self, "moving", self.moving, SBUF_ONLY)
        for tile in (stationary, moving):
            _rank2(self, tile)
            if isinstance(tile.dtype, FloatTF32Type):
                raise VerifyException(
                    f"{tile.role} dtype tf32 is not modelled: how the PE reads an fp32 "
                    "container as tf32 is not public, so no level runs it; give f32 operands"
                )
            if not isinstance(tile.dtype, MATMUL_INPUT_TYPES):
                raise VerifyException(
                    f"{tile.role} dtype {tile.dtype} is not supported "
                    "(bf16, f16, f32, f8E4M3, f8E4M3FN, f8E5M2)"
                )
        kinds = {type(stationary.dtype), type(moving.dtype)}
        if Float32Type in kinds and kinds != {Float32Type}:
            raise VerifyException(
                f"an f32 operand pairs only with f32, got {stationary.dtype} and {moving.dtype}"
            )
        if {Float8E4M3Type, Float8E4M3FNType} <= kinds:
            raise VerifyException("f8E4M3 and f8E4M3FN cannot be mixed in one matmul")
        if stationary.partitions != moving.partitions:
            raise VerifyException(
                f"contraction mismatch: stationary has {stationary.partitions}"
                f" partitions but moving has {moving.partitions}"
            )
        m, n = stationary.shape[1], moving.shape[1]
        if m > MATMUL_STATIONARY_FMAX:
            raise VerifyException(f"stationary free size {m} exceeds {MATMUL_STATIONARY_FMAX}")
        if n > MATMUL_MOVING_FMAX:
            raise VerifyException(f"moving free size {n} exceeds {MATMUL_MOVING_FMAX}")
        _matmul_dst(self, self.dst, m, n)


def _needs_mx(op: IRDLOperation) -> None:
    """MX instructions exist on the MX targets only (``docs/targets.md``: trn3, not trn2)."""
    target = current_target()
    if not target.has_mx:
        raise VerifyException(
            f"{op.name} is an MX instruction, which {target.name} ({target.core}) does not "
            "have: select an MX target (--target trn3)"
        )


def _mx_data(op: IRDLOperation, role: str, value: SSAValue) -> _Tile:
    data = _tile(op, role, value, SBUF_ONLY)
    _rank2(op, data)
    if not _is_x4(data.dtype):
        raise VerifyException(
            f"{role} must be x4-packed (!nisa.float8_e4m3fn_x4, "
            f"!nisa.float8_e5m2_x4 or !nisa.float4_e2m1fn_x4), got {data.dtype}"
        )
    if data.partitions % MX_PARTITION_QUANTUM:
        raise VerifyException(
            f"{role} has {data.partitions} partitions; MX data needs a "
            f"multiple of {MX_PARTITION_QUANTUM}"
        )
    return data


def _mx_scale(op: IRDLOperation, role: str, value: SSAValue, data: _Tile) -> None:
    scale = _tile(op, role, value, SBUF_ONLY)
    _rank2(op, scale)
    if not _is_e8m0_scale(scale.dtype):
        raise VerifyException(f"{role} must be f8E8M0FNU or ui8, got {scale.dtype}")
    needed = mx_scale_partitions(data.partitions)
    if scale.partitions < needed:
        raise VerifyException(
            f"{role} has {scale.partitions} partitions; the quadrant layout "
            f"of {data.partitions} data partitions needs at least {needed}"
        )
    if scale.free_size != data.free_size:
        raise VerifyException(
            f"{role} free size {scale.free_size} must equal the x4 free size "
            f"{data.free_size} of {data.role}"
        )


@irdl_op_definition
class NcMatmulMxOp(IRDLOperation):
    """The MX matmul: dequantize x4-packed stationary and moving with their E8M0 block
    scales (one per 8 partitions x 1 x4 element) and contract over partitions x the 4
    packed lanes: ``dst[M, N] (= or +=) sum_{p,q} S[p, M, q] * V[p, N, q]``.

    ``nisa.nc_matmul_mx %dst, %stationary scale %s_scale, %moving scale %m_scale
    accumulate : T_dst, T_s, T_s_scale, T_m, T_m_scale``. Partitions a multiple of 32
    (<= 128, equal); stationary free <= 128 and even; moving free <= 512; scales in the
    quadrant layout; all inputs SBUF, dst PSUM (f32 or bf16)."""

    name = "nisa.nc_matmul_mx"
    dst = operand_def(MemRefType)
    stationary = operand_def(MemRefType)
    stationary_scale = operand_def(MemRefType)
    moving = operand_def(MemRefType)
    moving_scale = operand_def(MemRefType)
    accumulate = opt_prop_def(UnitAttr)
    traits = _EFFECTS

    def reads_destination(self) -> bool:
        """Accumulating into dst reads it."""
        return self.accumulate is not None

    assembly_format = (
        "$dst `,` $stationary `scale` $stationary_scale `,` $moving `scale` $moving_scale "
        "(`accumulate` $accumulate^)? attr-dict `:` type($dst) `,` type($stationary) `,` "
        "type($stationary_scale) `,` type($moving) `,` type($moving_scale)"
    )

    def __init__(
        self,
        dst: SSAValue,
        stationary: SSAValue,
        stationary_scale: SSAValue,
        moving: SSAValue,
        moving_scale: SSAValue,
        accumulate: bool = False,
    ):
        super().__init__(
            operands=[dst, stationary, stationary_scale, moving, moving_scale],
            properties={"accumulate": UnitAttr()} if accumulate else {},
        )

    def verify_(self) -> None:
        _needs_mx(self)
        stationary = _mx_data(self, "stationary", self.stationary)
        moving = _mx_data(self, "moving", self.moving)
        if stationary.partitions != moving.partitions:
            raise VerifyException(
                f"contraction mismatch: stationary has {stationary.partitions}"
                f" partitions but moving has {moving.partitions}"
            )
        m, n = stationary.shape[1], moving.shape[1]
        if m > MATMUL_STATIONARY_FMAX:
            raise VerifyException(f"stationary free size {m} exceeds {MATMUL_STATIONARY_FMAX}")
        if m % 2:
            raise VerifyException(f"stationary free size {m} must be even")
        if n > MATMUL_MOVING_FMAX:
            raise VerifyException(f"moving free size {n} exceeds {MATMUL_MOVING_FMAX}")
        _mx_scale(self, "stationary_scale", self.stationary_scale, stationary)
        _mx_scale(self, "moving_scale", self.moving_scale, moving)
        _matmul_dst(self, self.dst, m, n)


@irdl_op_definition
class QuantizeMxOp(IRDLOperation):
    """Quantize a bf16/f16 tile to x4-packed FP8 plus E8M0 block scales (EMAX method;
    one scale per 8 partitions x 4 free elements):
    ``nisa.quantize_mx %dst scale %dst_scale, %src : T_dst, T_scale, T_src``.

    src [P, F] (P a multiple of 32, F a multiple of 4) -> dst [P, F/4]
    float8_e4m3fn_x4 / float8_e5m2_x4, dst_scale [>= quadrant rows, F/4] f8E8M0FNU / ui8
    in the quadrant layout; all in SBUF."""

    name = "nisa.quantize_mx"
    dst = operand_def(MemRefType)
    dst_scale = operand_def(MemRefType)
    src = operand_def(MemRefType)
    DESTINATIONS: ClassVar[tuple[str, ...]] = ("dst", "dst_scale")
    traits = _EFFECTS
    assembly_format = (
        "$dst `scale` $dst_scale `,` $src attr-dict "
        "`:` type($dst) `,` type($dst_scale) `,` type($src)"
    )

    def __init__(self, dst: SSAValue, dst_scale: SSAValue, src: SSAValue):
        super().__init__(operands=[dst, dst_scale, src])

    def verify_(self) -> None:
        _needs_mx(self)
        src = _tile(self, "src", self.src, SBUF_ONLY)
        _rank2(self, src)
        if not isinstance(src.dtype, BFloat16Type | Float16Type):
            raise VerifyException(f"src must be bf16 or f16, got {src.dtype}")
        if src.partitions % MX_PARTITION_QUANTUM:
            raise VerifyException(
                f"src has {src.partitions} partitions; quantize_mx needs a "
                f"multiple of {MX_PARTITION_QUANTUM}"
            )
        if src.free_size % X4_LANES:
            raise VerifyException(f"src free size {src.free_size} must be a multiple of {X4_LANES}")
        dst = _tile(self, "dst", self.dst, SBUF_ONLY)
        _rank2(self, dst)
        if not isinstance(dst.dtype, Float8E4M3FNx4Type | Float8E5M2x4Type):
            raise VerifyException(
                f"dst must be !nisa.float8_e4m3fn_x4 or !nisa.float8_e5m2_x4, got {dst.dtype}"
            )
        expected = (src.partitions, src.free_size // X4_LANES)
        if dst.shape != expected:
            raise VerifyException(
                f"dst shape {list(dst.shape)} must be [P, F/4] = {list(expected)}"
            )
        _mx_scale(self, "dst_scale", self.dst_scale, dst)


@irdl_op_definition
class NcTransposeOp(IRDLOperation):
    """``dst[f, p] = data[p, f]``, bit-exact: ``nisa.nc_transpose %dst, %data engine
    vector : T_dst, T_data``. The Tensor engine reads SBUF and writes PSUM, up to
    [128, 128]; the Vector engine works in SBUF/PSUM either way, up to [32, 32]. Without
    ``engine``, SBUF -> PSUM means the Tensor engine and anything else the Vector engine."""

    name = "nisa.nc_transpose"
    dst = operand_def(MemRefType)
    data = operand_def(MemRefType)
    engine = opt_prop_def(EngineAttr)
    traits = _EFFECTS
    assembly_format = "$dst `,` $data (`engine` $engine^)? attr-dict `:` type($dst) `,` type($data)"

    def __init__(self, dst: SSAValue, data: SSAValue, engine: Engine | None = None):
        super().__init__(
            operands=[dst, data],
            properties={"engine": EngineAttr(engine)} if engine is not None else {},
        )

    def resolved_engine(self) -> Engine:
        """The engine this transpose runs on (explicit, or inferred from the spaces)."""
        if self.engine is not None:
            return self.engine.data
        assert isinstance(self.data.type, MemRefType)
        assert isinstance(self.dst.type, MemRefType)
        on_pe = (
            memory_space_of(self.data.type) == MemorySpace.SBUF
            and memory_space_of(self.dst.type) == MemorySpace.PSUM
        )
        return Engine.TENSOR if on_pe else Engine.VECTOR

    def verify_(self) -> None:
        engine = self.resolved_engine()
        if engine == Engine.TENSOR:
            data = _tile(self, "data", self.data, SBUF_ONLY)
            dst = _tile(self, "dst", self.dst, PSUM_ONLY)
            limit = TRANSPOSE_TENSOR_ENGINE_MAX
        elif engine == Engine.VECTOR:
            data = _tile(self, "data", self.data, ON_CHIP)
            dst = _tile(self, "dst", self.dst, ON_CHIP)
            limit = TRANSPOSE_VECTOR_ENGINE_MAX
        else:
            raise VerifyException(f"runs on the tensor or vector engine, got {engine.value}")
        _rank2(self, data)
        _rank2(self, dst)
        _no_x4(self, data)
        if dst.dtype != data.dtype:
            raise VerifyException(f"dst dtype {dst.dtype} must equal data dtype {data.dtype}")
        p, f = data.shape
        if p > limit or f > limit:
            raise VerifyException(
                f"a {engine.value}-engine transpose takes at most "
                f"[{limit}, {limit}], got [{p}, {f}]"
            )
        if dst.shape != (f, p):
            raise VerifyException(f"dst shape {list(dst.shape)} must be the transpose [{f}, {p}]")


# ----------------------------------------------------------------------------- elementwise


@irdl_op_definition
class TensorTensorOp(IRDLOperation):
    """``dst = op(data1, data2)`` elementwise (f32 internally):
    ``nisa.tensor_tensor %dst, add %data1, %data2 : T_dst, T_1, T_2``. Same partitions
    and elements per partition; data1 and data2 not both in PSUM; ``power`` runs on
    GpSimd, which cannot access PSUM."""

    name = "nisa.tensor_tensor"
    dst = operand_def(MemRefType)
    data1 = operand_def(MemRefType)
    data2 = operand_def(MemRefType)
    op = prop_def(AluOpAttr)
    traits = _EFFECTS
    assembly_format = (
        "$dst `,` $op $data1 `,` $data2 attr-dict `:` type($dst) `,` type($data1) `,` type($data2)"
    )

    def __init__(self, dst: SSAValue, op: AluOp | AluOpAttr, data1: SSAValue, data2: SSAValue):
        super().__init__(operands=[dst, data1, data2], properties={"op": _alu(op)})

    def verify_(self) -> None:
        alu = self.op.data
        spaces = SBUF_ONLY if alu == AluOp.POWER else ON_CHIP
        dst = _tile(self, "dst", self.dst, spaces)
        data1 = _tile(self, "data1", self.data1, spaces)
        data2 = _tile(self, "data2", self.data2, spaces)
        _no_x4(self, dst, data1, data2)
        if data1.space == data2.space == MemorySpace.PSUM:
            raise VerifyException("data1 and data2 cannot both be in psum")
        _same_partitions_and_free_size(self, data1, data2)
        _same_partitions_and_free_size(self, dst, data1)
        _check_alu_operands(self, alu, data1, data2)


@irdl_op_definition
class TensorScalarOp(IRDLOperation):
    """``dst = op1(op0(data, operand0), operand1)``, each operand a scalar or a [P, 1]
    per-partition tile; ``reverse`` swaps an op's operands (``op0(operand0, data)``):
    ``nisa.tensor_scalar %dst, %data, multiply %s, reverse subtract %t : T_dst, T_data,
    T_s, T_t``. ``op1`` is optional. Both ops are arithmetic (f32 operands) or both
    bitwise (integer operands)."""

    name = "nisa.tensor_scalar"
    dst = operand_def(MemRefType)
    data = operand_def(MemRefType)
    operand0 = operand_def(ScalarOrTile)
    operand1 = opt_operand_def(ScalarOrTile)
    op0 = prop_def(AluOpAttr)
    reverse0 = opt_prop_def(UnitAttr)
    op1 = opt_prop_def(AluOpAttr)
    reverse1 = opt_prop_def(UnitAttr)
    traits = _EFFECTS
    assembly_format = (
        "$dst `,` $data `,` (`reverse` $reverse0^)? $op0 $operand0 "
        "(`,` (`reverse` $reverse1^)? $op1^ $operand1)? attr-dict "
        "`:` type($dst) `,` type($data) `,` type($operand0) (`,` type($operand1)^)?"
    )

    def __init__(
        self,
        dst: SSAValue,
        data: SSAValue,
        op0: AluOp | AluOpAttr,
        operand0: SSAValue,
        op1: AluOp | AluOpAttr | None = None,
        operand1: SSAValue | None = None,
        reverse0: bool = False,
        reverse1: bool = False,
    ):
        properties: dict[str, Attribute] = {"op0": _alu(op0)}
        if op1 is not None:
            properties["op1"] = _alu(op1)
        if reverse0:
            properties["reverse0"] = UnitAttr()
        if reverse1:
            properties["reverse1"] = UnitAttr()
        super().__init__(operands=[dst, data, operand0, operand1], properties=properties)

    def verify_(self) -> None:
        if (self.op1 is None) != (self.operand1 is None):
            raise VerifyException("op1 and operand1 come together")
        if self.op1 is None and self.reverse1 is not None:
            raise VerifyException("reverse1 needs op1")
        dst = _tile(self, "dst", self.dst, ON_CHIP)
        data = _tile(self, "data", self.data, ON_CHIP)
        _no_x4(self, dst, data)
        _same_partitions_and_free_size(self, dst, data)
        bitwise = self.op0.data in BITWISE_ALU_OPS
        if self.op1 is not None and (self.op1.data in BITWISE_ALU_OPS) != bitwise:
            raise VerifyException(
                f"op0 {self.op0.data.value} and op1 {self.op1.data.value} must "
                "both be bitwise or both arithmetic"
            )
        _check_alu_operands(self, self.op0.data, data)
        _scalar_or_column(self, "operand0", self.operand0, data, bitwise)
        if self.operand1 is not None:
            _scalar_or_column(self, "operand1", self.operand1, data, bitwise)


@irdl_op_definition
class ScalarTensorTensorOp(IRDLOperation):
    """``dst = op1(op0(data, operand0), operand1)`` on the Vector engine; operand0 is a
    scalar or a [P, 1] tile, operand1 a tile like data; arithmetic ops only:
    ``nisa.scalar_tensor_tensor %dst, %data, multiply %s, add %t : T_dst, T_data, T_s,
    T_t``. ``reverse`` swaps an op's operands. data and operand1 not both in PSUM."""

    name = "nisa.scalar_tensor_tensor"
    dst = operand_def(MemRefType)
    data = operand_def(MemRefType)
    operand0 = operand_def(ScalarOrTile)
    operand1 = operand_def(MemRefType)
    op0 = prop_def(AluOpAttr)
    reverse0 = opt_prop_def(UnitAttr)
    op1 = prop_def(AluOpAttr)
    reverse1 = opt_prop_def(UnitAttr)
    traits = _EFFECTS
    assembly_format = (
        "$dst `,` $data `,` (`reverse` $reverse0^)? $op0 $operand0 `,` "
        "(`reverse` $reverse1^)? $op1 $operand1 attr-dict "
        "`:` type($dst) `,` type($data) `,` type($operand0) `,` type($operand1)"
    )

    def __init__(
        self,
        dst: SSAValue,
        data: SSAValue,
        op0: AluOp | AluOpAttr,
        operand0: SSAValue,
        op1: AluOp | AluOpAttr,
        operand1: SSAValue,
        reverse0: bool = False,
        reverse1: bool = False,
    ):
        properties: dict[str, Attribute] = {"op0": _alu(op0), "op1": _alu(op1)}
        if reverse0:
            properties["reverse0"] = UnitAttr()
        if reverse1:
            properties["reverse1"] = UnitAttr()
        super().__init__(operands=[dst, data, operand0, operand1], properties=properties)

    def verify_(self) -> None:
        for alu in (self.op0.data, self.op1.data):
            if alu in BITWISE_ALU_OPS:
                raise VerifyException(f"takes arithmetic ops only, got {alu.value}")
        dst = _tile(self, "dst", self.dst, ON_CHIP)
        data = _tile(self, "data", self.data, ON_CHIP)
        operand1 = _tile(self, "operand1", self.operand1, ON_CHIP)
        _no_x4(self, dst, data, operand1)
        if data.space == operand1.space == MemorySpace.PSUM:
            raise VerifyException("data and operand1 cannot both be in psum")
        _same_partitions_and_free_size(self, dst, data)
        _same_partitions_and_free_size(self, operand1, data)
        _scalar_or_column(self, "operand0", self.operand0, data, bitwise=False)


@irdl_op_definition
class TensorReduceOp(IRDLOperation):
    """Reduce the trailing free axes of data with op (f32; bitwise ops on the raw
    bits): ``nisa.tensor_reduce %dst, add %data axes [1] negate : T_dst, T_data``.
    ``negate`` multiplies the result by -1. A float add is the exact sum rounded once
    to dst's type (docs/numerics.md, "Float sums"). dst keeps the partitions and holds the
    product of the kept free dims per partition (its shape may keep reduced dims as 1)."""

    name = "nisa.tensor_reduce"
    dst = operand_def(MemRefType)
    data = operand_def(MemRefType)
    op = prop_def(AluOpAttr)
    axes = prop_def(DenseArrayBase.constr(i64))
    negate = opt_prop_def(UnitAttr)
    traits = _EFFECTS
    assembly_format = (
        "$dst `,` $op $data `axes` $axes (`negate` $negate^)? attr-dict "
        "`:` type($dst) `,` type($data)"
    )

    def __init__(
        self,
        dst: SSAValue,
        op: AluOp | AluOpAttr,
        data: SSAValue,
        axes: Sequence[int],
        negate: bool = False,
    ):
        properties: dict[str, Attribute] = {
            "op": _alu(op),
            "axes": DenseArrayBase.from_list(i64, axes),
        }
        if negate:
            properties["negate"] = UnitAttr()
        super().__init__(operands=[dst, data], properties=properties)

    def get_axes(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.axes.get_values())

    def verify_(self) -> None:
        alu = self.op.data
        if alu not in REDUCE_ALU_OPS:
            raise VerifyException(f"{alu.value} is not a reduction op")
        dst = _tile(self, "dst", self.dst, ON_CHIP)
        data = _tile(self, "data", self.data, ON_CHIP)
        _no_x4(self, dst, data)
        _check_alu_operands(self, alu, data)
        rank = len(data.shape)
        axes = self.get_axes()
        trailing = tuple(range(rank - len(axes), rank))
        if not axes or axes != trailing or 0 in axes:
            raise VerifyException(
                f"axes must be trailing free dims of the rank-{rank} data "
                f"(e.g. [{rank - 1}]), got {list(axes)}"
            )
        kept = math.prod(data.shape[1 : rank - len(axes)])
        if dst.partitions != data.partitions:
            raise VerifyException(
                f"dst has {dst.partitions} partitions but data has {data.partitions}"
            )
        if dst.free_size != kept:
            raise VerifyException(
                f"dst has {dst.free_size} elements per partition but reducing "
                f"axes {list(axes)} of {list(data.shape)} leaves {kept}"
            )


@irdl_op_definition
class ActivationOp(IRDLOperation):
    """``dst = op(data * scale + bias)`` on the Scalar engine (f32 internally):
    ``nisa.activation %dst, silu %data scale(%s : f32) bias(%b : T_b) : T_dst, T_data``.
    scale (default 1.0) and bias (default 0.0) are each an f32 scalar or an f32 [P, 1]
    per-partition tile."""

    name = "nisa.activation"
    dst = operand_def(MemRefType)
    data = operand_def(MemRefType)
    scale = opt_operand_def(ScalarOrTile)
    bias = opt_operand_def(ScalarOrTile)
    op = prop_def(ActivationFunctionAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = _EFFECTS
    assembly_format = (
        "$dst `,` $op $data (`scale` `(` $scale^ `:` type($scale) `)`)? "
        "(`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict `:` type($dst) `,` type($data)"
    )

    def __init__(
        self,
        dst: SSAValue,
        op: ActivationFunction | ActivationFunctionAttr,
        data: SSAValue,
        scale: SSAValue | None = None,
        bias: SSAValue | None = None,
    ):
        if isinstance(op, ActivationFunction):
            op = ActivationFunctionAttr(op)
        super().__init__(operands=[dst, data, scale, bias], properties={"op": op})

    def verify_(self) -> None:
        dst = _tile(self, "dst", self.dst, ON_CHIP)
        data = _tile(self, "data", self.data, ON_CHIP)
        _no_x4(self, dst, data)
        _same_partitions_and_free_size(self, dst, data)
        if self.scale is not None:
            _scalar_or_column(self, "scale", self.scale, data, bitwise=False)
        if self.bias is not None:
            _scalar_or_column(self, "bias", self.bias, data, bitwise=False)


@irdl_op_definition
class TensorCopyPredicatedOp(IRDLOperation):
    """The predicated copy (select): ``dst = predicate != 0 ? src : dst`` on the Vector
    engine, ``nisa.tensor_copy_predicated %dst, %src where %pred : T_dst, T_src,
    T_pred``; ``where not %pred`` copies where the predicate is 0. src is a tile like
    dst or a scalar of the dst dtype; the predicate is an 8/16/32-bit integer tile."""

    name = "nisa.tensor_copy_predicated"
    dst = operand_def(MemRefType)
    src = operand_def(ScalarOrTile)
    predicate = operand_def(MemRefType)
    reverse_predicate = opt_prop_def(UnitAttr)
    traits = _EFFECTS

    def reads_destination(self) -> bool:
        """Where the predicate is off, dst keeps what it held."""
        return True

    assembly_format = (
        "$dst `,` $src `where` (`not` $reverse_predicate^)? $predicate attr-dict "
        "`:` type($dst) `,` type($src) `,` type($predicate)"
    )

    def __init__(
        self,
        dst: SSAValue,
        src: SSAValue,
        predicate: SSAValue,
        reverse_predicate: bool = False,
    ):
        super().__init__(
            operands=[dst, src, predicate],
            properties={"reverse_predicate": UnitAttr()} if reverse_predicate else {},
        )

    def verify_(self) -> None:
        dst = _tile(self, "dst", self.dst, ON_CHIP)
        predicate = _tile(self, "predicate", self.predicate, ON_CHIP)
        _no_x4(self, dst)
        dtype = predicate.dtype
        if not (isinstance(dtype, IntegerType) and dtype.width.data in (8, 16, 32)):
            raise VerifyException(f"predicate must be an 8, 16 or 32-bit integer, got {dtype}")
        _same_partitions_and_free_size(self, predicate, dst)
        if isinstance(self.src.type, MemRefType):
            src = _tile(self, "src", self.src, ON_CHIP)
            _same_partitions_and_free_size(self, src, dst)
            src_dtype = src.dtype
        else:
            src_dtype = self.src.type
        if src_dtype != dst.dtype:
            raise VerifyException(f"src dtype {src_dtype} must equal dst dtype {dst.dtype}")


# ----------------------------------------------------------------------------- SPMD


@irdl_op_definition
class ProgramIdOp(IRDLOperation):
    """This program's id along a launch-grid axis: ``%id = nisa.program_id`` (axis 0) or
    ``nisa.program_id axis 1``."""

    name = "nisa.program_id"
    axis = prop_def(IntegerAttr.constr(type=eq(i64)), default_value=IntegerAttr(0, i64))
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "(`axis` $axis^)? attr-dict"

    def __init__(self, axis: int = 0):
        super().__init__(properties={"axis": IntegerAttr(axis, i64)}, result_types=[IndexType()])

    def verify_(self) -> None:
        if self.axis.value.data < 0:
            raise VerifyException(f"axis must be >= 0, got {self.axis.value.data}")


@irdl_op_definition
class NumProgramsOp(IRDLOperation):
    """The number of programs along a launch-grid axis: ``%n = nisa.num_programs``."""

    name = "nisa.num_programs"
    axis = prop_def(IntegerAttr.constr(type=eq(i64)), default_value=IntegerAttr(0, i64))
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "(`axis` $axis^)? attr-dict"

    def __init__(self, axis: int = 0):
        super().__init__(properties={"axis": IntegerAttr(axis, i64)}, result_types=[IndexType()])

    def verify_(self) -> None:
        if self.axis.value.data < 0:
            raise VerifyException(f"axis must be >= 0, got {self.axis.value.data}")


@irdl_op_definition
class SendRecvOp(IRDLOperation):
    """Exchange SBUF tiles with peer cores: send ``src`` to core ``send_to`` while
    receiving into ``dst`` what core ``recv_from`` sends on the same pipe:
    ``nisa.sendrecv %dst, %src to %peer from %peer pipe 0 : T_dst, T_src``. The two
    tiles have the same shape and dtype; the partner's tiles must match them."""

    name = "nisa.sendrecv"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    send_to = operand_def(IndexType)
    recv_from = operand_def(IndexType)
    pipe_id = prop_def(IntegerAttr.constr(type=eq(i64)))
    traits = _UNKNOWN_EFFECTS
    assembly_format = (
        "$dst `,` $src `to` $send_to `from` $recv_from `pipe` $pipe_id attr-dict "
        "`:` type($dst) `,` type($src)"
    )

    def __init__(
        self, dst: SSAValue, src: SSAValue, send_to: SSAValue, recv_from: SSAValue, pipe_id: int
    ):
        super().__init__(
            operands=[dst, src, send_to, recv_from],
            properties={"pipe_id": IntegerAttr(pipe_id, i64)},
        )

    def verify_(self) -> None:
        dst = _tile(self, "dst", self.dst, SBUF_ONLY)
        src = _tile(self, "src", self.src, SBUF_ONLY)
        if dst.shape != src.shape or dst.dtype != src.dtype:
            raise VerifyException(
                f"dst {self.dst.type} and src {self.src.type} must have the same shape and dtype"
            )
        if self.pipe_id.value.data < 0:
            raise VerifyException(f"pipe must be >= 0, got {self.pipe_id.value.data}")


@irdl_op_definition
class CoreBarrierOp(IRDLOperation):
    """Wait until every core in ``cores`` reached a barrier on the same HBM tensor; HBM
    writes before it are visible after it: ``nisa.core_barrier %data cores [0, 1] : T``
    (``cores`` defaults to [0, 1])."""

    name = "nisa.core_barrier"
    data = operand_def(MemRefType)
    cores = prop_def(
        DenseArrayBase.constr(i64), default_value=DenseArrayBase.from_list(i64, (0, 1))
    )
    traits = _UNKNOWN_EFFECTS
    assembly_format = "$data (`cores` $cores^)? attr-dict `:` type($data)"

    def __init__(self, data: SSAValue, cores: Sequence[int] = (0, 1)):
        super().__init__(
            operands=[data], properties={"cores": DenseArrayBase.from_list(i64, cores)}
        )

    def get_cores(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.cores.get_values())

    def verify_(self) -> None:
        _tile(self, "data", self.data, HBM_ONLY)
        cores = self.get_cores()
        if not cores or len(set(cores)) != len(cores) or min(cores) < 0:
            raise VerifyException(
                f"cores must be distinct non-negative core ids, got {list(cores)}"
            )


@irdl_op_definition
class RegisterLoadOp(IRDLOperation):
    """Read a one-element integer tensor into a 32-bit register value, for a
    data-dependent loop bound or ``scf.while`` condition:
    ``%n = nisa.register_load %src : memref<1x1xi32, #nisa.mem<sbuf>> -> index``."""

    name = "nisa.register_load"
    src = operand_def(MemRefType)
    result = result_def(base(IndexType) | eq(i32))
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[src], result_types=[result_type or IndexType()])

    def verify_(self) -> None:
        src = _tile(self, "src", self.src, (MemorySpace.SBUF, MemorySpace.HBM))
        if src.num_elements != 1:
            raise VerifyException(f"src must have exactly one element, got shape {list(src.shape)}")
        dtype = src.dtype
        if not (isinstance(dtype, IntegerType) and dtype.width.data <= 32):
            raise VerifyException(f"src must hold an integer of at most 32 bits, got {dtype}")


@irdl_op_definition
class ViewCastOp(IRDLOperation):
    """Reinterpret a buffer's element type without copying (nkilib's
    ``convert_to_mxfp_dtype``: MX weights travel as integer alternates and the kernel
    views them as x4 types):
    ``%w = nisa.view_cast %src : memref<..xui32, #nisa.mem<hbm>>
    to memref<..x!nisa.float8_e4m3fn_x4, #nisa.mem<hbm>>``.

    The result has the source's shape, layout and memory space; either exactly one of
    the two element types is an x4 type and the other an integer of its container width
    (32 bits for the FP8 x4 types, 16 for ``float4_e2m1fn_x4``; signless, signed or
    unsigned), or neither is and both have one bit width (``f32`` <-> ``ui32``, ``ui8``
    <-> ``f8E8M0FNU``: StableHLO's same-width ``bitcast_convert``). Writes through the
    view land in the source.

    NKI's ``view(dtype)`` of FP8 bytes as x4 words (and back) is the one cast that changes
    the shape: ``memref<.. x 4n x f8E4M3FN>`` to ``memref<.. x n x
    !nisa.float8_e4m3fn_x4>`` (the FP8 type is the x4 type's lane type), the last dim
    scaled by the width ratio 4, both buffers contiguous (identity layout). Element
    ``4 j + q`` of a row is lane ``q`` of x4 element ``j`` (byte ``q`` of the
    little-endian word): StableHLO's ``bitcast_convert`` of ``[.., n, 4] x f8`` to
    ``[.., n] x ui32``, the x4 packing of spec hlo-mx-legalization §4.1."""

    name = "nisa.view_cast"
    src = operand_def(MemRefType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `to` type($result)"

    def __init__(self, src: SSAValue, element_type: Attribute):
        src_type = src.type
        assert isinstance(src_type, MemRefType)
        shape = list(src_type.get_shape())
        ratio = _lane_ratio(src_type.get_element_type(), element_type)
        if ratio is not None and shape:
            shape[-1] = shape[-1] * ratio[0] // ratio[1]
        result = MemRefType(element_type, shape, src_type.layout, src_type.memory_space)
        super().__init__(operands=[src], result_types=[result])

    def verify_(self) -> None:
        src_type, result_type = self.src.type, self.result.type
        assert isinstance(src_type, MemRefType)
        assert isinstance(result_type, MemRefType)
        a, b = src_type.get_element_type(), result_type.get_element_type()
        if (ratio := _lane_ratio(a, b)) is not None:
            self._verify_lanes(src_type, result_type, ratio)
            return
        if src_type.get_shape() != result_type.get_shape():
            raise VerifyException(
                f"view_cast changes the shape {list(src_type.get_shape())} to "
                f"{list(result_type.get_shape())}; it only reinterprets the element type"
            )
        if src_type.layout != result_type.layout:
            raise VerifyException("view_cast must keep the source's layout")
        if src_type.memory_space != result_type.memory_space:
            raise VerifyException("view_cast must keep the source's memory space")
        if not _is_x4(a) and not _is_x4(b):
            if _bits(a) is None or _bits(a) != _bits(b):
                raise VerifyException(
                    f"view_cast between {a} and {b} changes the element width; without an "
                    "x4 type it reinterprets elements of one width (f32 <-> ui32, ui8 <-> "
                    "f8E8M0FNU)"
                )
            return
        if _is_x4(a) and _is_x4(b):
            raise VerifyException(
                f"view_cast needs exactly one x4-packed element type, got {a} and {b}"
            )
        x4, other = (a, b) if _is_x4(a) else (b, a)
        assert isinstance(x4, X4Type)
        if not (isinstance(other, IntegerType) and other.width.data == x4.bitwidth):
            raise VerifyException(
                f"{x4} views only an integer of its {x4.bitwidth}-bit container, got {other}"
            )

    def _verify_lanes(
        self,
        src_type: MemRefType[Attribute],
        result_type: MemRefType[Attribute],
        ratio: tuple[int, int],
    ) -> None:
        """FP8 lanes <-> x4 words: the last dim scaled by the width ratio."""
        src_shape, result_shape = list(src_type.get_shape()), list(result_type.get_shape())
        if not src_shape or len(src_shape) != len(result_shape):
            raise VerifyException(
                f"a view_cast between FP8 lanes and x4 words keeps the rank (at least 1), got "
                f"{src_shape} and {result_shape}"
            )
        expected = [*src_shape[:-1], src_shape[-1] * ratio[0] // ratio[1]]
        whole = src_shape[-1] * ratio[0] % ratio[1] == 0
        if not whole or result_shape != expected:
            raise VerifyException(
                f"a view_cast from {src_type.get_element_type()} to "
                f"{result_type.get_element_type()} scales the last dim by {ratio[0]}/{ratio[1]}: "
                f"{src_shape} gives {expected if whole else 'no whole words'}, got "
                f"{result_shape}"
            )
        if not (isinstance(src_type.layout, NoneAttr) and isinstance(result_type.layout, NoneAttr)):
            raise VerifyException(
                "a view_cast between FP8 lanes and x4 words needs contiguous buffers "
                "(identity layouts)"
            )
        if src_type.memory_space != result_type.memory_space:
            raise VerifyException("view_cast must keep the source's memory space")


@irdl_op_definition
class PermuteOp(IRDLOperation):
    """An HBM buffer seen with its dims reordered, without copying (NKI's ``permute`` of
    a tensor view, an access pattern whose steps are the source's in another order):
    ``%t = nisa.permute %src [1, 0] : memref<64x32xf32, #nisa.mem<hbm>> to
    memref<32x64xf32, strided<[1, 32]>, #nisa.mem<hbm>>``. Result dim ``i`` is source
    dim ``permutation[i]``: its size and stride; the offset is the source's. A DMA that
    reads (or writes) the result moves a whole transposed tile in one instruction. Writes
    through the view land in the source."""

    name = "nisa.permute"
    src = operand_def(MemRefType)
    permutation = prop_def(DenseArrayBase.constr(i64))
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    assembly_format = "$src $permutation attr-dict `:` type($src) `to` type($result)"

    def __init__(self, src: SSAValue, permutation: Sequence[int]):
        src_type = src.type
        assert isinstance(src_type, MemRefType)
        super().__init__(
            operands=[src],
            properties={"permutation": DenseArrayBase.from_list(i64, permutation)},
            result_types=[permuted_type(src_type, permutation)],
        )

    def get_permutation(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.permutation.get_values())

    def verify_(self) -> None:
        src_type, result_type = self.src.type, self.result.type
        assert isinstance(src_type, MemRefType)
        assert isinstance(result_type, MemRefType)
        perm = self.get_permutation()
        rank = len(src_type.get_shape())
        if sorted(perm) != list(range(rank)):
            raise VerifyException(
                f"permutation {list(perm)} is not a permutation of the {rank} dims of the source"
            )
        if memory_space_of(src_type) not in (None, MemorySpace.HBM):
            raise VerifyException(
                "permute views an hbm buffer (on chip, dim 0 is the partition dim)"
            )
        expected = permuted_type(src_type, perm)
        if result_type != expected:
            raise VerifyException(
                f"the permuted view of {src_type} is {expected}, got {result_type}"
            )


def permuted_type(
    src_type: MemRefType[Attribute], permutation: Sequence[int]
) -> MemRefType[Attribute]:
    """The type of ``nisa.permute``'s result: shape and strides in ``permutation``'s
    order, the source's offset, element type and memory space."""
    shape = list(src_type.get_shape())
    layout = src_type.layout
    if isinstance(layout, StridedLayoutAttr):
        strides = list(layout.get_strides())
        offset = layout.get_offset()
    else:
        strides, step = [], 1
        for size in reversed(shape):
            strides.insert(0, step)
            step *= size
        offset = 0
    if sorted(permutation) != list(range(len(shape))):
        return src_type  # the verifier reports it
    return MemRefType(
        src_type.get_element_type(),
        [shape[d] for d in permutation],
        StridedLayoutAttr([strides[d] for d in permutation], offset),
        src_type.memory_space,
    )


def _bits(t: Attribute) -> int | None:
    """The bit width of a fixed-width element type (i1: None, it has no byte)."""
    if isinstance(t, IntegerType):
        return t.width.data if t.width.data % 8 == 0 else None
    return t.bitwidth if isinstance(t, FixedBitwidthType) else None


def _lane_ratio(a: Attribute, b: Attribute) -> tuple[int, int] | None:
    """``(numerator, denominator)`` scaling the last dim when ``a`` and ``b`` are an FP8
    x4 type and its lane type (either way round), else None."""
    if isinstance(b, Float8E4M3FNx4Type | Float8E5M2x4Type) and a == b.lane_type:
        return (1, X4_LANES)
    if isinstance(a, Float8E4M3FNx4Type | Float8E5M2x4Type) and b == a.lane_type:
        return (X4_LANES, 1)
    return None


Nisa = Dialect(
    "nisa",
    [
        DmaCopyOp,
        DmaComputeOp,
        MemsetOp,
        IotaOp,
        TensorCopyOp,
        NcMatmulOp,
        NcMatmulMxOp,
        QuantizeMxOp,
        NcTransposeOp,
        TensorTensorOp,
        TensorScalarOp,
        ScalarTensorTensorOp,
        TensorReduceOp,
        ActivationOp,
        TensorCopyPredicatedOp,
        ProgramIdOp,
        NumProgramsOp,
        SendRecvOp,
        CoreBarrierOp,
        RegisterLoadOp,
        ViewCastOp,
        PermuteOp,
    ],
    [
        MemorySpaceAttr,
        AluOpAttr,
        ActivationFunctionAttr,
        OobModeAttr,
        EngineAttr,
        IotaPatternAttr,
        Float8E4M3FNx4Type,
        Float8E5M2x4Type,
        Float4E2M1FNx4Type,
    ],
)
