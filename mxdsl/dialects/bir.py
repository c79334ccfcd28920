"""The ``bir`` dialect: backend instructions over physical access patterns.

bir is the level at which the BIR simulator twin runs (``docs/bir.md``). Every
instruction names the memory it reads and writes with an access pattern attribute::

    #bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>
    #bir.ap<hbm, [[512, 128], [1, 512]], off = 1024, dtype = 10>

An on-chip (sbuf / psum) pattern covers partitions ``p0 + i * ps`` for ``i < np``
(``ps = 1`` unless printed; only the DMAs step over partitions); in every one of them
it visits the elements ``off + esize * sum_k(i_k * step_k)`` for ``0 <= i_k <
num_k``, the ``[step, num]`` pairs outermost first, steps in *elements of the dtype*
(an x4 container for the x4 dtypes) and ``off`` in *bytes*. An hbm pattern has no
partitions: it walks the bytes of one HBM tensor the same way. Elements are enumerated
partition-major, then row-major over the pairs; that order is how two patterns of an
instruction correspond element by element. ``dtype`` is a BIR dtype code
(:class:`Dtype`; the spec's codes 2, 5, 7, 8, 9, 16 and our choices for the rest).

HBM tensors are SSA values: the ``memref`` arguments of the kernel's ``func.func`` (or
``memref.alloc`` in hbm), e.g. ``memref<128x512xbf16, #nisa.mem<hbm>>``; only the DMA
instructions take them (``... of %t : memref<...>``), with patterns relative to the
tensor's first byte; ``bir.dma`` also takes run-time ``partition`` / ``offset`` values
(``index``) for loops. Every instruction returns nothing and carries read and write
memory effects. Verifiers check each pattern against its memory (128 partitions, SBUF
192 KiB and PSUM 16 KiB per partition, a matmul's PSUM destination inside one 2 KiB bank,
HBM patterns inside their tensor), the dtype codes each instruction accepts and the x4
rules. The ALU ops and activation functions are nisa's (``#nisa<alu add>``,
``#nisa<act silu>``): bir computes exactly what nisa does.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    FixedBitwidthType,
    Float8E3M4Type,
    Float8E4M3FNType,
    Float8E4M3Type,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    Signedness,
    StringAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue
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
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from mxdsl.dialects import nisa
from mxdsl.dialects.nisa import (
    BITWISE_ALU_OPS,
    REDUCE_ALU_OPS,
    ActivationFunction,
    ActivationFunctionAttr,
    AluOp,
    AluOpAttr,
    Engine,
    EngineAttr,
    OobMode,
    OobModeAttr,
)
from mxdsl.targets import DEFAULT_TARGET, current_target

# ----------------------------------------------------------------------------- limits

# The constants are the default target's (mxdsl.targets: trn3, the largest modelled); the
# verifier and the interpreter read the current target's (``--target`` on the tools,
# :func:`capacity`), and lower-nisa-to-bir places buffers within the capacities of its
# target.
PARTITIONS = DEFAULT_TARGET.partitions
SBUF_PARTITION_BYTES = DEFAULT_TARGET.sbuf_partition_bytes
PSUM_PARTITION_BYTES = DEFAULT_TARGET.psum_partition_bytes
PSUM_BANK_BYTES = DEFAULT_TARGET.psum_bank_bytes
PSUM_BANKS = PSUM_PARTITION_BYTES // PSUM_BANK_BYTES
MATMUL_STATIONARY_FMAX = nisa.MATMUL_STATIONARY_FMAX
MATMUL_MOVING_FMAX = nisa.MATMUL_MOVING_FMAX
TRANSPOSE_TENSOR_ENGINE_MAX = nisa.TRANSPOSE_TENSOR_ENGINE_MAX
TRANSPOSE_VECTOR_ENGINE_MAX = nisa.TRANSPOSE_VECTOR_ENGINE_MAX
MX_PARTITION_QUANTUM = nisa.MX_PARTITION_QUANTUM
MAX_PATTERN_PAIRS = 5
"""At most 5 ``[step, num]`` pairs per access pattern."""
MX_BLOCK_PARTITIONS = 8
X4_LANES = 4


# ----------------------------------------------------------------------------- dtypes


class Dtype(enum.IntEnum):
    """BIR dtype codes. 2, 5, 7, 8, 9 and 16 are the spec's ("MX Microscaling: Quantize,
    Block-Scaling and E8M0":
    the x4 trigger ``dt == 2 || dt - 8 <= 1``, QuantizeMx's targets {2, 5, 7, 8, 9},
    ``cast_to(Dtype 16 = fp32)``); 3 and 4 are the spec's legacy reduce-path FP8
    formats; the rest are mxdsl's choice (``docs/bir.md``). 6 is a slot of the spec's
    EMAX table with no known format: it is not a valid code here."""

    UINT8 = 1
    FLOAT4_E2M1FN_X4 = 2
    FLOAT8_E3M4 = 3
    FLOAT8_E4M3 = 4
    FLOAT8_E4M3FN = 5
    FLOAT8_E5M2 = 7
    FLOAT8_E4M3FN_X4 = 8
    FLOAT8_E5M2_X4 = 9
    BFLOAT16 = 10
    FLOAT16 = 11
    INT8 = 12
    INT16 = 13
    UINT16 = 14
    FLOAT8_E8M0FNU = 15
    FLOAT32 = 16
    INT32 = 17
    UINT32 = 18

    @property
    def size(self) -> int:
        """Bytes of one access-pattern element (an x4 dtype: one container)."""
        return _DTYPE_SIZES[self]

    @property
    def is_x4(self) -> bool:
        """The spec's x4 test: ``dt == 2 || (uint)(dt - 8) <= 1``."""
        return self in X4_DTYPES

    @property
    def is_float(self) -> bool:
        return self in FLOAT_DTYPES

    @property
    def is_int(self) -> bool:
        return self in INT_DTYPES

    @property
    def lanes(self) -> int:
        """Logical elements per access-pattern element (4 for x4, else 1)."""
        return X4_LANES if self.is_x4 else 1

    @property
    def label(self) -> str:
        """``8 (float8_e4m3fn_x4)``, for messages."""
        return f"{self.value} ({self.name.lower()})"


_DTYPE_SIZES = {
    Dtype.UINT8: 1,
    Dtype.FLOAT4_E2M1FN_X4: 2,
    Dtype.FLOAT8_E3M4: 1,
    Dtype.FLOAT8_E4M3: 1,
    Dtype.FLOAT8_E4M3FN: 1,
    Dtype.FLOAT8_E5M2: 1,
    Dtype.FLOAT8_E4M3FN_X4: 4,
    Dtype.FLOAT8_E5M2_X4: 4,
    Dtype.BFLOAT16: 2,
    Dtype.FLOAT16: 2,
    Dtype.INT8: 1,
    Dtype.INT16: 2,
    Dtype.UINT16: 2,
    Dtype.FLOAT8_E8M0FNU: 1,
    Dtype.FLOAT32: 4,
    Dtype.INT32: 4,
    Dtype.UINT32: 4,
}
X4_DTYPES = frozenset({Dtype.FLOAT4_E2M1FN_X4, Dtype.FLOAT8_E4M3FN_X4, Dtype.FLOAT8_E5M2_X4})
FLOAT_DTYPES = frozenset(
    {
        Dtype.FLOAT8_E3M4,
        Dtype.FLOAT8_E4M3,
        Dtype.FLOAT8_E4M3FN,
        Dtype.FLOAT8_E5M2,
        Dtype.BFLOAT16,
        Dtype.FLOAT16,
        Dtype.FLOAT8_E8M0FNU,
        Dtype.FLOAT32,
    }
)
INT_DTYPES = frozenset(
    {Dtype.UINT8, Dtype.INT8, Dtype.INT16, Dtype.UINT16, Dtype.INT32, Dtype.UINT32}
)
QUANTIZE_DATA_DTYPES = frozenset(
    {
        Dtype.FLOAT4_E2M1FN_X4,
        Dtype.FLOAT8_E4M3FN,
        Dtype.FLOAT8_E5M2,
        Dtype.FLOAT8_E4M3FN_X4,
        Dtype.FLOAT8_E5M2_X4,
    }
)
"""QuantizeMx's data targets {2, 5, 7, 8, 9} (spec, "FP8 e4m3fn ... delegated")."""
QUANTIZE_SRC_DTYPES = frozenset({Dtype.BFLOAT16, Dtype.FLOAT16, Dtype.FLOAT32})
SCALE_DTYPES = frozenset({Dtype.UINT8, Dtype.FLOAT8_E8M0FNU})
PREDICATE_DTYPES = frozenset(
    {Dtype.UINT8, Dtype.INT8, Dtype.INT16, Dtype.UINT16, Dtype.INT32, Dtype.UINT32}
)
MATMUL_INPUT_DTYPES = frozenset(
    {
        Dtype.BFLOAT16,
        Dtype.FLOAT16,
        Dtype.FLOAT32,
        Dtype.FLOAT8_E4M3,
        Dtype.FLOAT8_E4M3FN,
        Dtype.FLOAT8_E5M2,
    }
)
MATMUL_DST_DTYPES = frozenset({Dtype.FLOAT32, Dtype.BFLOAT16})
FP8_CONFIG_DTYPES = frozenset(
    {Dtype.FLOAT8_E4M3FN, Dtype.FLOAT8_E5M2, Dtype.FLOAT8_E4M3FN_X4, Dtype.FLOAT8_E5M2_X4}
)
"""The destinations an FP8ConversionConfig (saturate / nan_suppress) applies to."""


def dtype_of_element_type(element_type: Attribute) -> Dtype:
    """The dtype code of an MLIR element type (nisa's x4 types included): for
    lowerings. Signless integers are signed, as in the interpreters. ValueError for a
    type bir does not model."""
    for kind, code in _TYPE_CODES:
        if isinstance(element_type, kind):
            return code
    if isinstance(element_type, IntegerType):
        unsigned = element_type.signedness.data == Signedness.UNSIGNED
        if (code := _INT_CODES.get((element_type.width.data, unsigned))) is not None:
            return code
    raise ValueError(f"no bir dtype code for element type {element_type}")


_TYPE_CODES: tuple[tuple[type[Attribute], Dtype], ...] = (
    (nisa.Float4E2M1FNx4Type, Dtype.FLOAT4_E2M1FN_X4),
    (nisa.Float8E4M3FNx4Type, Dtype.FLOAT8_E4M3FN_X4),
    (nisa.Float8E5M2x4Type, Dtype.FLOAT8_E5M2_X4),
    (Float8E3M4Type, Dtype.FLOAT8_E3M4),
    (Float8E4M3Type, Dtype.FLOAT8_E4M3),
    (Float8E4M3FNType, Dtype.FLOAT8_E4M3FN),
    (Float8E5M2Type, Dtype.FLOAT8_E5M2),
    (Float8E8M0FNUType, Dtype.FLOAT8_E8M0FNU),
    (BFloat16Type, Dtype.BFLOAT16),
    (Float16Type, Dtype.FLOAT16),
    (Float32Type, Dtype.FLOAT32),
)
_INT_CODES = {
    (8, True): Dtype.UINT8,
    (8, False): Dtype.INT8,
    (16, False): Dtype.INT16,
    (16, True): Dtype.UINT16,
    (32, False): Dtype.INT32,
    (32, True): Dtype.UINT32,
}


# ----------------------------------------------------------------------------- access patterns


class Memory(StrEnum):
    SBUF = "sbuf"
    PSUM = "psum"
    HBM = "hbm"


ON_CHIP = (Memory.SBUF, Memory.PSUM)
DMA_MEMORIES = (Memory.HBM, Memory.SBUF)
SBUF_ONLY = (Memory.SBUF,)
PSUM_ONLY = (Memory.PSUM,)

CAPACITY = {Memory.SBUF: SBUF_PARTITION_BYTES, Memory.PSUM: PSUM_PARTITION_BYTES}
"""Bytes per partition of the on-chip memories of the default target."""


def partition_capacity(memory: Memory) -> int:
    """Bytes per partition of an on-chip ``memory`` on the current target
    (:func:`mxdsl.targets.current_target`: trn3 unless ``--target`` chose another)."""
    target = current_target()
    if memory == Memory.PSUM:
        return target.psum_partition_bytes
    return target.sbuf_partition_bytes


def _needs_mx(name: str) -> None:
    """MX instructions exist on the MX targets only (``docs/targets.md``: trn3, not trn2)."""
    target = current_target()
    if not target.has_mx:
        raise VerifyException(
            f"{name} is an MX instruction, which {target.name} ({target.core}) does not "
            "have: select an MX target (--target trn3)"
        )


class _PatternFacts:
    """An access pattern's parameters as plain Python values, and what follows from them
    (:attr:`AccessPatternAttr.facts`)."""

    __slots__ = (
        "contiguous", "dtype", "epp", "high", "key", "low", "memory", "np", "off", "p0",
        "pairs", "ps",
    )  # fmt: skip

    def __init__(self, ap: AccessPatternAttr) -> None:
        self.memory = Memory(ap.space.data)
        self.p0 = ap.start_partition.data
        self.np = ap.num_partitions.data
        self.ps = ap.partition_step.data
        self.off = ap.offset.data
        self.dtype = Dtype(ap.dtype_code.data)
        pairs = tuple((pair.data[0].data, pair.data[1].data) for pair in ap.pattern.data)
        self.pairs = pairs
        self.epp = math.prod(num for _, num in pairs)
        size = self.dtype.size
        self.low = sum(min(0, step * (num - 1)) for step, num in pairs) * size
        self.high = (sum(max(0, step * (num - 1)) for step, num in pairs) + 1) * size
        expected, contiguous = 1, True
        for step, num in reversed(pairs):
            if num != 1 and step != expected:
                contiguous = False
                break
            expected *= num
        self.contiguous = contiguous
        self.key = (self.memory.value, self.p0, self.np, self.ps, pairs, self.off, int(self.dtype))


@irdl_attr_definition
class AccessPatternAttr(ParametrizedAttribute):
    """A physical access pattern: memory, partitions ``[p0, p0 + np)`` (on chip), the
    ``[step, num]`` pairs (outermost first, steps in elements of the dtype), the byte
    offset and the dtype code.

    ``#bir.ap<sbuf, p0 = 0, np = 128, [[1, 512]], off = 0, dtype = 10>``,
    ``#bir.ap<hbm, [[512, 128], [1, 512]], off = 0, dtype = 10>`` (no partitions).
    Construction checks the form (a known dtype code, 1 to 5 pairs, ``num >= 1``,
    ``np >= 1``); the instructions check the bounds."""

    name = "bir.ap"
    space: StringAttr
    start_partition: IntAttr
    num_partitions: IntAttr
    partition_step: IntAttr
    pattern: ArrayAttr[ArrayAttr[IntAttr]]
    offset: IntAttr
    dtype_code: IntAttr

    def __init__(
        self,
        memory: Memory | str,
        pattern: Sequence[tuple[int, int] | Sequence[int]],
        *,
        dtype: Dtype | int,
        offset: int = 0,
        start_partition: int = 0,
        num_partitions: int = 1,
        partition_step: int = 1,
    ):
        partitions = (start_partition, num_partitions, partition_step)
        if Memory(memory) == Memory.HBM and partitions != (0, 1, 1):
            raise ValueError("an hbm access pattern has no partitions")
        super().__init__(
            StringAttr(Memory(memory).value),
            IntAttr(start_partition),
            IntAttr(num_partitions),
            IntAttr(partition_step),
            ArrayAttr(ArrayAttr(IntAttr(v) for v in pair) for pair in pattern),
            IntAttr(offset),
            IntAttr(int(dtype)),
        )

    # ----------------------------------------------------------------- accessors

    @property
    def facts(self) -> _PatternFacts:
        """Everything derived from the parameters, computed once per attribute
        (attributes are immutable; the simulator asks for these on every instruction)."""
        facts = self.__dict__.get("_facts")
        if facts is None:
            facts = _PatternFacts(self)
            object.__setattr__(self, "_facts", facts)
        return facts

    @property
    def memory(self) -> Memory:
        return self.facts.memory

    @property
    def on_chip(self) -> bool:
        return self.facts.memory != Memory.HBM

    @property
    def p0(self) -> int:
        return self.facts.p0

    @property
    def np(self) -> int:
        return self.facts.np

    @property
    def ps(self) -> int:
        """The partition step: the pattern's partitions are ``p0 + i * ps``, ``i < np``."""
        return self.facts.ps

    @property
    def last_partition(self) -> int:
        return self.p0 + (self.np - 1) * self.ps

    def partitions_text(self) -> str:
        """``[0, 128)``, or ``0, 8, ..., 120`` with a partition step."""
        if self.ps == 1:
            return f"[{self.p0}, {self.p0 + self.np})"
        return f"{self.p0}, {self.p0 + self.ps}, ..., {self.last_partition}"

    @property
    def off(self) -> int:
        return self.facts.off

    @property
    def dtype(self) -> Dtype:
        return self.facts.dtype

    @property
    def key(self) -> tuple[Any, ...]:
        """The pattern as a tuple of plain values (equal for equal patterns; cheap to hash,
        unlike the attribute): memory, p0, np, ps, pairs, off, dtype code."""
        return self.facts.key

    def get_pairs(self) -> tuple[tuple[int, int], ...]:
        return self.facts.pairs

    @property
    def elements_per_partition(self) -> int:
        """Pattern elements per partition (``getNumElementsPerPartition``; x4: containers)."""
        return self.facts.epp

    @property
    def num_elements(self) -> int:
        return self.np * self.elements_per_partition

    @property
    def logical_per_partition(self) -> int:
        """Logical elements per partition (x4 containers count 4)."""
        return self.elements_per_partition * self.dtype.lanes

    def byte_range(self, extra_offset: int = 0) -> tuple[int, int]:
        """``[lo, hi)``: the bytes this pattern touches in each partition (or tensor)."""
        facts = self.facts
        start = facts.off + extra_offset
        return start + facts.low, start + facts.high

    def is_contiguous(self) -> bool:
        """The pairs walk consecutive elements in order (one strided slice per partition)."""
        return self.facts.contiguous

    def with_pairs(self, pairs: Sequence[tuple[int, int]]) -> AccessPatternAttr:
        return AccessPatternAttr(
            self.memory,
            pairs,
            dtype=self.dtype,
            offset=self.off,
            start_partition=self.p0,
            num_partitions=self.np,
            partition_step=self.ps,
        )

    # ----------------------------------------------------------------- syntax

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def parse_field(name: str) -> int:
            parser.parse_keyword(name)
            parser.parse_punctuation("=")
            return parser.parse_integer()

        def parse_pair() -> ArrayAttr[IntAttr]:
            values = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_integer
            )
            return ArrayAttr(IntAttr(v) for v in values)

        with parser.in_angle_brackets():
            memory = parser.parse_str_enum(Memory)
            parser.parse_punctuation(",")
            p0, np_, ps = 0, 1, 1
            if memory != Memory.HBM:
                p0 = parse_field("p0")
                parser.parse_punctuation(",")
                np_ = parse_field("np")
                parser.parse_punctuation(",")
                if parser.parse_optional_keyword("ps") is not None:
                    parser.parse_punctuation("=")
                    ps = parser.parse_integer()
                    parser.parse_punctuation(",")
            pairs = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_pair)
            parser.parse_punctuation(",")
            offset = parse_field("off")
            parser.parse_punctuation(",")
            dtype = parse_field("dtype")
        return (
            StringAttr(memory.value),
            IntAttr(p0),
            IntAttr(np_),
            IntAttr(ps),
            ArrayAttr(pairs),
            IntAttr(offset),
            IntAttr(dtype),
        )

    def print_parameters(self, printer: Printer) -> None:
        step = f"ps = {self.ps}, " if self.ps != 1 else ""
        partitions = f"p0 = {self.p0}, np = {self.np}, {step}" if self.on_chip else ""
        pairs = ", ".join(
            "[" + ", ".join(str(v.data) for v in pair.data) + "]" for pair in self.pattern.data
        )
        printer.print_string(
            f"<{self.space.data}, {partitions}[{pairs}], off = {self.off}, "
            f"dtype = {self.dtype_code.data}>"
        )

    def verify(self) -> None:
        code = self.dtype_code.data
        if code not in {d.value for d in Dtype}:
            known = ", ".join(str(d.value) for d in Dtype)
            raise VerifyException(f"bir.ap: unknown dtype code {code} (known codes: {known})")
        if not 1 <= len(self.pattern.data) <= MAX_PATTERN_PAIRS:
            raise VerifyException(
                f"bir.ap: {len(self.pattern.data)} [step, num] pairs; "
                f"1 to {MAX_PATTERN_PAIRS} are allowed"
            )
        for pair in self.pattern.data:
            values = [v.data for v in pair.data]
            if len(values) != 2:
                raise VerifyException(f"bir.ap: each entry is a [step, num] pair, got {values}")
            if values[1] < 1:
                raise VerifyException(f"bir.ap: num must be at least 1, got {values}")
        if self.p0 < 0 or self.np < 1 or self.ps < 1:
            raise VerifyException(
                f"bir.ap: p0 must be >= 0, np and ps >= 1, got p0 = {self.p0}, "
                f"np = {self.np}, ps = {self.ps}"
            )


def on_chip_ap(
    memory: Memory,
    p0: int,
    np: int,
    pattern: Sequence[tuple[int, int]],
    dtype: Dtype | int,
    off: int = 0,
    ps: int = 1,
) -> AccessPatternAttr:
    """An SBUF or PSUM access pattern: partitions ``p0, p0 + ps, ...`` (``np`` of them)."""
    return AccessPatternAttr(
        memory,
        pattern,
        dtype=dtype,
        offset=off,
        start_partition=p0,
        num_partitions=np,
        partition_step=ps,
    )


def sbuf_ap(
    p0: int,
    np: int,
    pattern: Sequence[tuple[int, int]],
    dtype: Dtype | int,
    off: int = 0,
    ps: int = 1,
) -> AccessPatternAttr:
    return on_chip_ap(Memory.SBUF, p0, np, pattern, dtype, off, ps)


def psum_ap(
    p0: int,
    np: int,
    pattern: Sequence[tuple[int, int]],
    dtype: Dtype | int,
    off: int = 0,
    ps: int = 1,
) -> AccessPatternAttr:
    return on_chip_ap(Memory.PSUM, p0, np, pattern, dtype, off, ps)


def hbm_ap(
    pattern: Sequence[tuple[int, int]], dtype: Dtype | int, off: int = 0
) -> AccessPatternAttr:
    return AccessPatternAttr(Memory.HBM, pattern, dtype=dtype, offset=off)


# ----------------------------------------------------------------------------- HBM tensors


def element_bytes(element_type: Attribute) -> int:
    """Bytes per element of an HBM tensor (nisa x4 types: their container)."""
    if isinstance(element_type, nisa.X4Type):
        return element_type.bitwidth // 8
    if isinstance(element_type, FixedBitwidthType):
        return element_type.size
    raise VerifyException(f"an hbm tensor needs a fixed-width element type, got {element_type}")


def hbm_tensor_bytes(value: SSAValue) -> int:
    """Size in bytes of an HBM tensor operand (checked: static, contiguous, in hbm)."""
    t = value.type
    assert isinstance(t, MemRefType), "the operand constraint admits only memrefs"
    space = t.memory_space
    hbm_space = isinstance(space, NoneAttr) or (
        isinstance(space, nisa.MemorySpaceAttr) and space.data == nisa.MemorySpace.HBM
    )
    if not hbm_space:
        raise VerifyException(
            f"an hbm tensor is a memref in #nisa.mem<hbm> (or with no memory space), got {t}"
        )
    if not isinstance(t.layout, NoneAttr):
        raise VerifyException(
            f"an hbm tensor is a whole contiguous memref (no layout; strides belong in the "
            f"access pattern), got {t}"
        )
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        raise VerifyException(f"an hbm tensor has a static shape, got {t}")
    return math.prod(shape) * element_bytes(t.get_element_type())


# ----------------------------------------------------------------------------- verification helpers


def _memories(memories: Sequence[Memory]) -> str:
    return " or ".join(m.value for m in memories)


def check_ap(
    role: str,
    ap: AccessPatternAttr,
    memories: Sequence[Memory],
    tensor: SSAValue | None = None,
    *,
    partition_step: bool = False,
) -> AccessPatternAttr:
    """Check ``ap`` against its memory: the memory is one of ``memories``, the partitions
    lie in the 128 (with a step only where ``partition_step``: the DMAs), the bytes in
    each partition's capacity (or in the HBM tensor), the offset is aligned to the
    element size."""
    memory = ap.memory
    if memory not in memories:
        raise VerifyException(f"{role} must be in {_memories(memories)}, got {memory.value}")
    if memory == Memory.HBM and tensor is None:
        raise VerifyException(f"{role} is in hbm and needs its tensor (`... of %t : memref<...>`)")
    if memory != Memory.HBM and tensor is not None:
        raise VerifyException(f"{role} is in {memory.value}; only an hbm pattern names a tensor")
    size = ap.dtype.size
    if ap.off % size:
        raise VerifyException(
            f"{role} byte offset {ap.off} is not a multiple of the {size}-byte element "
            f"of dtype {ap.dtype.label}"
        )
    low, high = ap.byte_range()
    if tensor is not None:
        capacity = hbm_tensor_bytes(tensor)
        where = f"its {capacity}-byte tensor {tensor.type}"
    else:
        if ap.ps != 1 and not partition_step:
            raise VerifyException(
                f"{role} steps over partitions (ps = {ap.ps}); only the DMAs take a "
                "partition step, engines work on consecutive partitions"
            )
        if ap.last_partition >= PARTITIONS:
            raise VerifyException(
                f"{role} partitions {ap.partitions_text()} exceed the {PARTITIONS} "
                f"partitions of {memory.value}"
            )
        capacity = partition_capacity(memory)
        where = f"a {capacity}-byte {memory.value} partition of {current_target().name}"
    if low < 0 or high > capacity:
        raise VerifyException(f"{role} touches bytes [{low}, {high}), outside {where}")
    return ap


def _no_x4(*roles_and_aps: tuple[str, AccessPatternAttr]) -> None:
    for role, ap in roles_and_aps:
        if ap.dtype.is_x4:
            raise VerifyException(
                f"{role} has the x4 dtype {ap.dtype.label}; only dma, tensor_copy, memset "
                "(to 0), cast, quantize_mx and matmult_mx take x4 dtypes"
            )


def _same_layout(a_role: str, a: AccessPatternAttr, b_role: str, b: AccessPatternAttr) -> None:
    if a.np != b.np:
        raise VerifyException(f"{a_role} has {a.np} partitions but {b_role} has {b.np}")
    if a.elements_per_partition != b.elements_per_partition:
        raise VerifyException(
            f"{a_role} has {a.elements_per_partition} elements per partition but "
            f"{b_role} has {b.elements_per_partition}"
        )


def _x4_copy(dst: AccessPatternAttr, src: AccessPatternAttr) -> None:
    if (dst.dtype.is_x4 or src.dtype.is_x4) and dst.dtype != src.dtype:
        raise VerifyException(
            f"cannot convert dtype {src.dtype.label} to {dst.dtype.label}; x4 dtypes copy "
            "only to the same dtype (use cast or quantize_mx)"
        )


def _alu_dtypes(alu: AluOp, *roles_and_aps: tuple[str, AccessPatternAttr]) -> None:
    if alu not in BITWISE_ALU_OPS:
        return
    for role, ap in roles_and_aps:
        if not ap.dtype.is_int:
            raise VerifyException(
                f"bitwise op {alu.value} needs integer dtypes, {role} has {ap.dtype.label}"
            )


def _scalar_operand(role: str, operand: Attribute, data: AccessPatternAttr, bitwise: bool) -> None:
    """An immediate (f32 for arithmetic ops, an integer for bitwise ones) or a per-partition
    column: an on-chip pattern with data's partitions and one element per partition."""
    if isinstance(operand, AccessPatternAttr):
        check_ap(role, operand, ON_CHIP)
        if operand.np != data.np or operand.elements_per_partition != 1:
            raise VerifyException(
                f"{role} must be an immediate or a column of {data.np} partitions x 1 "
                f"element, got {operand.np} x {operand.elements_per_partition}"
            )
        if bitwise and not operand.dtype.is_int:
            raise VerifyException(
                f"{role} of a bitwise op must be an integer, got dtype {operand.dtype.label}"
            )
        if not bitwise and operand.dtype != Dtype.FLOAT32:
            raise VerifyException(
                f"{role} of an arithmetic op must be f32 (dtype 16), got {operand.dtype.label}"
            )
        return
    if bitwise and not isinstance(operand, IntegerAttr):
        raise VerifyException(f"{role} of a bitwise op must be an integer, got {operand}")
    if not bitwise and not (
        isinstance(operand, FloatAttr) and isinstance(operand.type, Float32Type)
    ):
        raise VerifyException(f"{role} of an arithmetic op must be an f32 immediate, got {operand}")


def _psum_bank(role: str, ap: AccessPatternAttr) -> None:
    low, high = ap.byte_range()
    if low // PSUM_BANK_BYTES != (high - 1) // PSUM_BANK_BYTES:
        raise VerifyException(
            f"{role} touches bytes [{low}, {high}) of each psum partition, crossing a "
            f"{PSUM_BANK_BYTES}-byte bank boundary; a matmul writes inside one PSUM bank"
        )


def mx_scale_partitions(data_partitions: int) -> int:
    """Partitions a scale pattern needs for MX data over ``data_partitions``: scale row i
    lives at partition ``(i & 3) + 32 * (i >> 2)`` of it (4 for 32, 100 for 128)."""
    return nisa.mx_scale_partitions(data_partitions)


def _mx_scale(role: str, scale: AccessPatternAttr, partitions: int, per_partition: int) -> None:
    check_ap(role, scale, SBUF_ONLY)
    if scale.dtype not in SCALE_DTYPES:
        raise VerifyException(
            f"{role} must have dtype 1 (uint8) or 15 (float8_e8m0fnu), got {scale.dtype.label}"
        )
    needed = mx_scale_partitions(partitions)
    if scale.np < needed:
        raise VerifyException(
            f"{role} has {scale.np} partitions; the scale rows of {partitions} data "
            f"partitions sit at (i & 3) + 32 * (i >> 2) and need at least {needed}"
        )
    if scale.elements_per_partition != per_partition:
        raise VerifyException(
            f"{role} has {scale.elements_per_partition} elements per partition, expected "
            f"{per_partition} (one per 4 logical columns)"
        )


ScalarOperand = base(FloatAttr) | base(IntegerAttr) | base(AccessPatternAttr)
"""An immediate or a per-partition column pattern."""

_EFFECTS = traits_def(MemoryReadEffect(), MemoryWriteEffect())


def _alu(op: AluOp | AluOpAttr) -> AluOpAttr:
    return op if isinstance(op, AluOpAttr) else AluOpAttr(op)


# ----------------------------------------------------------------------------- run-time offsets

RUNTIME_FORMAT = "(`runtime` $runtime^ `(` $runtime_values `)`)? "
"""The optional run-time offsets of an instruction: ``runtime ["dst", "src:partition"](%a,
%b)``."""

PARTITION_SUFFIX = ":partition"


def runtime_values(runtime: Sequence[tuple[str, SSAValue]]) -> list[SSAValue]:
    return [value for _, value in runtime]


def runtime_properties(runtime: Sequence[tuple[str, SSAValue]]) -> dict[str, Attribute]:
    if not runtime:
        return {}
    return {"runtime": ArrayAttr([StringAttr(key) for key, _ in runtime])}


def runtime_operands(op: Operation) -> Sequence[SSAValue]:
    """The run-time ``index`` operands of an instruction (empty when it has none)."""
    return getattr(op, "runtime_values", ())


def runtime_keys(op: Operation) -> list[tuple[str, bool]]:
    """``(role, is_partition)`` of each run-time operand of ``op``, in operand order."""
    keys = op.properties.get("runtime")
    if not isinstance(keys, ArrayAttr):
        return []
    out: list[tuple[str, bool]] = []
    for key in keys.data:
        assert isinstance(key, StringAttr)
        text = key.data
        partition = text.endswith(PARTITION_SUFFIX)
        out.append((text.removesuffix(PARTITION_SUFFIX), partition))
    return out


def role_pattern(op: IRDLOperation, role: str) -> AccessPatternAttr | None:
    """The access pattern an instruction calls ``role`` (a property, or ``srcN`` of a
    pattern list ``srcs``), or None."""
    value = op.properties.get(role)
    if isinstance(value, AccessPatternAttr):
        return value
    sources = op.properties.get("srcs")
    if isinstance(sources, ArrayAttr) and role.startswith("src") and role[3:].isdigit():
        index = int(role[3:])
        if index < len(sources.data):
            pattern = sources.data[index]
            return pattern if isinstance(pattern, AccessPatternAttr) else None
    return None


def check_runtime(op: IRDLOperation) -> None:
    """Run-time offsets: one ``index`` per key; ``role`` adds bytes to that pattern's
    ``off``, ``role:partition`` (on chip) partitions to its ``p0``; a key at most once.
    The static pattern (offsets 0) is what the verifier checks; the interpreter checks
    the moved pattern when the instruction runs."""
    keys = runtime_keys(op)
    operands = runtime_operands(op)
    if len(keys) != len(operands):
        raise VerifyException(f"runtime lists {len(keys)} key(s) but {len(operands)} value(s)")
    seen: set[tuple[str, bool]] = set()
    for role, partition in keys:
        ap = role_pattern(op, role)
        key = role + (PARTITION_SUFFIX if partition else "")
        if ap is None:
            raise VerifyException(f"runtime key {key!r} names no access pattern of {op.name}")
        if partition and not ap.on_chip:
            raise VerifyException(f"runtime key {key!r}: an hbm pattern has no partitions")
        if (role, partition) in seen:
            raise VerifyException(f"runtime key {key!r} appears twice")
        seen.add((role, partition))


# ----------------------------------------------------------------------------- data movement


@irdl_op_definition
class DmaOp(IRDLOperation):
    """Copy through a DMA engine: ``dst[k] = src[k]`` for the k-th element of each
    pattern, converting the dtype (via f32, as nisa.dma_copy); x4 dtypes copy only to
    the same dtype.

    ``bir.dma #bir.ap<sbuf, ...> (partition %p)? (offset %o)?, #bir.ap<hbm, ...> of %t :
    memref<...> (offset %o)?``. Patterns in hbm or sbuf, on chip with any partition step;
    an hbm pattern names its tensor. At run time ``offset`` (an ``index``) adds bytes to
    that side's ``off`` and ``partition`` (on chip) adds partitions to its ``p0``, for
    loops; the bounds of the dynamic part are checked when the DMA runs."""

    name = "bir.dma"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    dst_tensor = opt_operand_def(MemRefType)
    dst_partition = opt_operand_def(IndexType)
    dst_offset = opt_operand_def(IndexType)
    src_tensor = opt_operand_def(MemRefType)
    src_partition = opt_operand_def(IndexType)
    src_offset = opt_operand_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) (`of` $dst_tensor^ `:` type($dst_tensor))? "
        "(`partition` $dst_partition^)? (`offset` $dst_offset^)? `,` "
        "qualified($src) (`of` $src_tensor^ `:` type($src_tensor))? "
        "(`partition` $src_partition^)? (`offset` $src_offset^)? attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        src: AccessPatternAttr,
        *,
        dst_tensor: SSAValue | None = None,
        src_tensor: SSAValue | None = None,
        dst_offset: SSAValue | None = None,
        src_offset: SSAValue | None = None,
        dst_partition: SSAValue | None = None,
        src_partition: SSAValue | None = None,
    ):
        super().__init__(
            operands=[dst_tensor, dst_partition, dst_offset, src_tensor, src_partition, src_offset],
            properties={"dst": dst, "src": src},
        )

    def verify_(self) -> None:
        dst = check_ap("dst", self.dst, DMA_MEMORIES, self.dst_tensor, partition_step=True)
        src = check_ap("src", self.src, DMA_MEMORIES, self.src_tensor, partition_step=True)
        for role, ap, partition in (
            ("dst", dst, self.dst_partition),
            ("src", src, self.src_partition),
        ):
            if partition is not None and not ap.on_chip:
                raise VerifyException(
                    f"{role} is in hbm; a run-time partition needs an on-chip pattern"
                )
        _x4_copy(dst, src)
        if dst.num_elements != src.num_elements:
            raise VerifyException(
                f"dst has {dst.num_elements} elements but src has {src.num_elements}"
            )


@irdl_op_definition
class DmaIndirectOp(IRDLOperation):
    """A DMA whose hbm side is indexed along one pattern pair through an SBUF vector of
    32-bit integers (nisa.dma_copy with an index): pair ``dim`` = ``[step, num]`` of the
    indexed pattern visits ``idx[i] * step`` instead of ``i * step``, ``i < num``.

    ``bir.dma_indirect dst, src index #bir.ap<...> dim d bound b (scatter)?
    (oob_mode skip)?``: without ``scatter`` src is indexed (a gather), with it dst (a
    scatter). An index outside ``[0, bound)`` is a run-time error, or with ``oob_mode
    skip`` that row is not transferred. The index pattern has ``num`` elements. Run-time
    keys (``dst``, ``src``, ``index``) move the patterns for loop-dependent views."""

    name = "bir.dma_indirect"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    index = prop_def(AccessPatternAttr)
    indirect_dim = prop_def(IntegerAttr.constr(type=eq(i64)))
    bound = prop_def(IntegerAttr.constr(type=eq(i64)))
    scatter = opt_prop_def(UnitAttr)
    oob_mode = prop_def(OobModeAttr, default_value=OobModeAttr(OobMode.ERROR))
    dst_tensor = opt_operand_def(MemRefType)
    src_tensor = opt_operand_def(MemRefType)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) (`of` $dst_tensor^ `:` type($dst_tensor))? `,` "
        "qualified($src) (`of` $src_tensor^ `:` type($src_tensor))? "
        "`index` qualified($index) `dim` $indirect_dim `bound` $bound "
        "(`scatter` $scatter^)? (`oob_mode` $oob_mode^)? " + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        src: AccessPatternAttr,
        index: AccessPatternAttr,
        *,
        indirect_dim: int,
        bound: int,
        scatter: bool = False,
        oob_mode: OobMode = OobMode.ERROR,
        dst_tensor: SSAValue | None = None,
        src_tensor: SSAValue | None = None,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {
            "dst": dst,
            "src": src,
            "index": index,
            "indirect_dim": IntegerAttr(indirect_dim, i64),
            "bound": IntegerAttr(bound, i64),
            "oob_mode": OobModeAttr(oob_mode),
        }
        if scatter:
            properties["scatter"] = UnitAttr()
        super().__init__(
            operands=[dst_tensor, src_tensor, runtime_values(runtime)],
            properties=properties | runtime_properties(runtime),
        )

    @property
    def indexed_role(self) -> str:
        return "dst" if self.scatter is not None else "src"

    def verify_(self) -> None:
        check_runtime(self)
        role = self.indexed_role
        # the indexed side is checked below with every index below the bound
        dst, src = self.dst, self.src
        if role != "dst":
            check_ap("dst", dst, DMA_MEMORIES, self.dst_tensor, partition_step=True)
        if role != "src":
            check_ap("src", src, DMA_MEMORIES, self.src_tensor, partition_step=True)
        _x4_copy(dst, src)
        if dst.num_elements != src.num_elements:
            raise VerifyException(
                f"dst has {dst.num_elements} elements but src has {src.num_elements}"
            )
        indexed, tensor = (dst, self.dst_tensor) if role == "dst" else (src, self.src_tensor)
        if indexed.memory != Memory.HBM:
            raise VerifyException(f"the indexed side ({role}) must be in hbm")
        pairs = list(indexed.get_pairs())
        dim = self.indirect_dim.value.data
        if not 0 <= dim < len(pairs):
            raise VerifyException(
                f"indirect dim {dim} is not a pair of the {len(pairs)}-pair {role} pattern"
            )
        bound = self.bound.value.data
        if bound < 1:
            raise VerifyException(f"bound must be at least 1, got {bound}")
        step, num = pairs[dim]
        pairs[dim] = (step, bound)
        check_ap(
            f"{role} with every index below the bound",
            indexed.with_pairs(pairs),
            (Memory.HBM,),
            tensor,
        )
        index = check_ap("index", self.index, SBUF_ONLY)
        if index.dtype not in (Dtype.INT32, Dtype.UINT32):
            raise VerifyException(
                f"index must have dtype 17 (int32) or 18 (uint32), got {index.dtype.label}"
            )
        if index.num_elements != num:
            raise VerifyException(
                f"index has {index.num_elements} elements but pair {dim} of {role} has num = {num}"
            )


@irdl_op_definition
class MemsetOp(IRDLOperation):
    """Fill an on-chip pattern with a constant, cast to its dtype (x4: only 0):
    ``bir.memset #bir.ap<...>, 0.000000e+00``."""

    name = "bir.memset"
    dst = prop_def(AccessPatternAttr)
    value = prop_def(FloatAttr.constr(type=eq(Float64Type())))
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = "qualified($dst) `,` $value " + RUNTIME_FORMAT + "attr-dict"

    def __init__(
        self, dst: AccessPatternAttr, value: float, *, runtime: Sequence[tuple[str, SSAValue]] = ()
    ):
        super().__init__(
            operands=[runtime_values(runtime)],
            properties={"dst": dst, "value": FloatAttr(value, Float64Type())}
            | runtime_properties(runtime),
        )

    def verify_(self) -> None:
        check_runtime(self)
        dst = check_ap("dst", self.dst, ON_CHIP)
        value = self.value.value.data
        if dst.dtype.is_x4 and value != 0:
            raise VerifyException(f"an x4 pattern can only be set to 0, got {value}")
        if dst.dtype.is_int and not float(value).is_integer():
            raise VerifyException(f"{value} is not an integer, but dst has dtype {dst.dtype.label}")


@irdl_op_definition
class TensorCopyOp(IRDLOperation):
    """On-chip copy, converting the dtype (RNE, as nisa.tensor_copy); bit-exact for equal
    dtypes: ``bir.tensor_copy dst, src``. Same partitions and elements per partition."""

    name = "bir.tensor_copy"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = "qualified($dst) `,` qualified($src) " + RUNTIME_FORMAT + "attr-dict"

    def __init__(
        self,
        dst: AccessPatternAttr,
        src: AccessPatternAttr,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        super().__init__(
            operands=[runtime_values(runtime)],
            properties={"dst": dst, "src": src} | runtime_properties(runtime),
        )

    def verify_(self) -> None:
        check_runtime(self)
        dst = check_ap("dst", self.dst, ON_CHIP)
        src = check_ap("src", self.src, ON_CHIP)
        _same_layout("dst", dst, "src", src)
        _x4_copy(dst, src)


@irdl_op_definition
class CastOp(IRDLOperation):
    """``CastToNewDType``: convert src to dst's dtype with an FP8ConversionConfig:
    ``bir.cast dst, src (saturate)? (nan_suppress)?``. Logical elements correspond (an x4
    container is 4 logical elements). With ``saturate`` an FP8 destination (5, 7, 8, 9)
    takes overflow and +-Inf to +-max finite (the narrow QuantizeMx forces); without it
    the conversion is RNE with the format's own overflow (Inf, or NaN for e4m3fn).
    ``nan_suppress``: a NaN becomes the canonical quiet NaN with the input's sign (what
    the conversion does anyway; see docs/bir.md). FP4 x4 destinations use the e2m1
    encoder (always saturating)."""

    name = "bir.cast"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    saturate = opt_prop_def(UnitAttr)
    nan_suppress = opt_prop_def(UnitAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` qualified($src) (`saturate` $saturate^)? "
        "(`nan_suppress` $nan_suppress^)? " + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        src: AccessPatternAttr,
        *,
        saturate: bool = False,
        nan_suppress: bool = False,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {"dst": dst, "src": src}
        if saturate:
            properties["saturate"] = UnitAttr()
        if nan_suppress:
            properties["nan_suppress"] = UnitAttr()
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        check_runtime(self)
        dst = check_ap("dst", self.dst, ON_CHIP)
        src = check_ap("src", self.src, ON_CHIP)
        if dst.np != src.np:
            raise VerifyException(f"dst has {dst.np} partitions but src has {src.np}")
        if dst.logical_per_partition != src.logical_per_partition:
            raise VerifyException(
                f"dst has {dst.logical_per_partition} logical elements per partition but "
                f"src has {src.logical_per_partition} (an x4 element counts 4)"
            )
        configured = self.saturate is not None or self.nan_suppress is not None
        if configured and dst.dtype not in FP8_CONFIG_DTYPES:
            raise VerifyException(
                "saturate / nan_suppress configure an FP8 narrow; dst must have dtype 5, 7, "
                f"8 or 9, got {dst.dtype.label}"
            )


# ----------------------------------------------------------------------------- matmul and MX


def _matmul_dst(dst_ap: AccessPatternAttr, m: int, n: int) -> None:
    dst = check_ap("dst", dst_ap, PSUM_ONLY)
    if dst.dtype not in MATMUL_DST_DTYPES:
        raise VerifyException(
            f"dst must have dtype 16 (float32) or 10 (bfloat16), got {dst.dtype.label}"
        )
    if (dst.np, dst.elements_per_partition) != (m, n):
        raise VerifyException(
            f"dst is {dst.np} partitions x {dst.elements_per_partition} elements; it must "
            f"be [stationary free, moving free] = {m} x {n}"
        )
    _psum_bank("dst", dst)


def _matmul_free_sizes(stationary: AccessPatternAttr, moving: AccessPatternAttr) -> tuple[int, int]:
    if stationary.np != moving.np:
        raise VerifyException(
            f"contraction mismatch: stationary has {stationary.np} partitions but moving "
            f"has {moving.np}"
        )
    m, n = stationary.elements_per_partition, moving.elements_per_partition
    if m > MATMUL_STATIONARY_FMAX:
        raise VerifyException(f"stationary free size {m} exceeds {MATMUL_STATIONARY_FMAX}")
    if n > MATMUL_MOVING_FMAX:
        raise VerifyException(f"moving free size {n} exceeds {MATMUL_MOVING_FMAX}")
    return m, n


@irdl_op_definition
class MatmultOp(IRDLOperation):
    """``dst[M, N] (= or +=) stationary[K, M]^T . moving[K, N]`` on the PE array, f32
    inside: ``bir.matmult dst, stationary, moving (accumulate)?``. K = partitions of both
    (equal), M <= 128, N <= 512; inputs in sbuf, dst in psum inside one bank."""

    name = "bir.matmult"
    dst = prop_def(AccessPatternAttr)
    stationary = prop_def(AccessPatternAttr)
    moving = prop_def(AccessPatternAttr)
    accumulate = opt_prop_def(UnitAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` qualified($stationary) `,` qualified($moving) "
        "(`accumulate` $accumulate^)? " + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        stationary: AccessPatternAttr,
        moving: AccessPatternAttr,
        accumulate: bool = False,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {"dst": dst, "stationary": stationary, "moving": moving}
        if accumulate:
            properties["accumulate"] = UnitAttr()
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        check_runtime(self)
        stationary = check_ap("stationary", self.stationary, SBUF_ONLY)
        moving = check_ap("moving", self.moving, SBUF_ONLY)
        for role, ap in (("stationary", stationary), ("moving", moving)):
            if ap.dtype not in MATMUL_INPUT_DTYPES:
                raise VerifyException(
                    f"{role} dtype {ap.dtype.label} is not a matmult input (4, 5, 7, 10, 11, 16)"
                )
        kinds = {stationary.dtype, moving.dtype}
        if Dtype.FLOAT32 in kinds and len(kinds) > 1:
            raise VerifyException(
                f"an f32 operand pairs only with f32, got {stationary.dtype.label} and "
                f"{moving.dtype.label}"
            )
        if {Dtype.FLOAT8_E4M3, Dtype.FLOAT8_E4M3FN} <= kinds:
            raise VerifyException("float8_e4m3 and float8_e4m3fn cannot be mixed in one matmult")
        m, n = _matmul_free_sizes(stationary, moving)
        _matmul_dst(self.dst, m, n)


def _mx_data(role: str, ap: AccessPatternAttr) -> AccessPatternAttr:
    check_ap(role, ap, SBUF_ONLY)
    if not ap.dtype.is_x4:
        raise VerifyException(f"{role} must have an x4 dtype (2, 8 or 9), got {ap.dtype.label}")
    if ap.np % MX_PARTITION_QUANTUM:
        raise VerifyException(
            f"{role} has {ap.np} partitions; MX data needs a multiple of {MX_PARTITION_QUANTUM}"
        )
    return ap


@irdl_op_definition
class MatmultMxOp(IRDLOperation):
    """InstMatmultMx: dequantize x4 stationary and moving with their E8M0 scales (one per
    8 partitions x 1 container, rows at ``(i & 3) + 32 * (i >> 2)``) and contract over
    partitions x the 4 lanes: ``dst[m, n] (= or +=) sum_{p,q} S[p, m, q] V[p, n, q]``.

    ``bir.matmult_mx dst, stationary scale s, moving scale t (accumulate)?``. P a multiple
    of 32, equal; M <= 128 and even; N <= 512; inputs in sbuf; dst psum (f32 / bf16)
    inside one bank."""

    name = "bir.matmult_mx"
    dst = prop_def(AccessPatternAttr)
    stationary = prop_def(AccessPatternAttr)
    stationary_scale = prop_def(AccessPatternAttr)
    moving = prop_def(AccessPatternAttr)
    moving_scale = prop_def(AccessPatternAttr)
    accumulate = opt_prop_def(UnitAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` qualified($stationary) `scale` qualified($stationary_scale) `,` "
        "qualified($moving) `scale` qualified($moving_scale) (`accumulate` $accumulate^)? "
        "" + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        stationary: AccessPatternAttr,
        stationary_scale: AccessPatternAttr,
        moving: AccessPatternAttr,
        moving_scale: AccessPatternAttr,
        accumulate: bool = False,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {
            "dst": dst,
            "stationary": stationary,
            "stationary_scale": stationary_scale,
            "moving": moving,
            "moving_scale": moving_scale,
        }
        if accumulate:
            properties["accumulate"] = UnitAttr()
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        _needs_mx(self.name)
        check_runtime(self)
        stationary = _mx_data("stationary", self.stationary)
        moving = _mx_data("moving", self.moving)
        m, n = _matmul_free_sizes(stationary, moving)
        if m % 2:
            raise VerifyException(f"stationary free size {m} must be even")
        _mx_scale("stationary_scale", self.stationary_scale, stationary.np, m)
        _mx_scale("moving_scale", self.moving_scale, moving.np, n)
        _matmul_dst(self.dst, m, n)


@irdl_op_definition
class QuantizeMxOp(IRDLOperation):
    """InstQuantizeMx (``visitInstQuantizeMx``): quantize ``src`` [P, F] (bf16 / f16 /
    f32) into MX data (dtype 2, 5, 7, 8 or 9) and E8M0 scales, EMAX method, one scale per
    8 partitions x 4 columns:
    ``bir.quantize_mx dst scale dst_scale, src (alternative_emax)?``.

    The data pattern has F/4 elements per partition for the x4 dtypes (the spec's
    ``NEPP *= 4``), F for 5 / 7; the scale pattern F/4 elements, rows at
    ``(i & 3) + 32 * (i >> 2)``. ``alternative_emax`` is MxAlternativeEmaxEn (emax - 1).
    P a multiple of 32; all in sbuf."""

    name = "bir.quantize_mx"
    dst = prop_def(AccessPatternAttr)
    dst_scale = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    alternative_emax = opt_prop_def(UnitAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `scale` qualified($dst_scale) `,` qualified($src) "
        "(`alternative_emax` $alternative_emax^)? " + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        dst_scale: AccessPatternAttr,
        src: AccessPatternAttr,
        alternative_emax: bool = False,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {"dst": dst, "dst_scale": dst_scale, "src": src}
        if alternative_emax:
            properties["alternative_emax"] = UnitAttr()
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        _needs_mx(self.name)
        check_runtime(self)
        src = check_ap("src", self.src, SBUF_ONLY)
        if src.dtype not in QUANTIZE_SRC_DTYPES:
            raise VerifyException(
                f"src must have dtype 10 (bfloat16), 11 (float16) or 16 (float32), got "
                f"{src.dtype.label}"
            )
        if src.np % MX_PARTITION_QUANTUM:
            raise VerifyException(
                f"src has {src.np} partitions; quantize_mx needs a multiple of "
                f"{MX_PARTITION_QUANTUM}"
            )
        columns = src.elements_per_partition
        if columns % X4_LANES:
            raise VerifyException(
                f"src has {columns} elements per partition; quantize_mx needs a multiple "
                f"of {X4_LANES}"
            )
        dst = check_ap("dst", self.dst, SBUF_ONLY)
        if dst.dtype not in QUANTIZE_DATA_DTYPES:
            raise VerifyException(
                f"dst must have dtype 2, 5, 7, 8 or 9 (QuantizeMx's targets), got {dst.dtype.label}"
            )
        if dst.np != src.np:
            raise VerifyException(f"dst has {dst.np} partitions but src has {src.np}")
        if dst.logical_per_partition != columns:
            raise VerifyException(
                f"dst holds {dst.logical_per_partition} logical elements per partition "
                f"({dst.elements_per_partition} x {dst.dtype.lanes}) but src has {columns}"
            )
        _mx_scale("dst_scale", self.dst_scale, src.np, columns // X4_LANES)


# ----------------------------------------------------------------------------- elementwise


@irdl_op_definition
class TensorTensorOp(IRDLOperation):
    """``dst = op(in0, in1)`` elementwise, f32 inside (exact integers when every pattern
    is an integer dtype; bitwise ops on integer bits): ``bir.tensor_tensor dst, add in0,
    in1``. Same partitions and elements per partition; in0 and in1 not both in psum;
    ``power`` (GpSimd) in sbuf only."""

    name = "bir.tensor_tensor"
    dst = prop_def(AccessPatternAttr)
    in0 = prop_def(AccessPatternAttr)
    in1 = prop_def(AccessPatternAttr)
    op = prop_def(AluOpAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` $op qualified($in0) `,` qualified($in1) "
        + RUNTIME_FORMAT
        + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        op: AluOp | AluOpAttr,
        in0: AccessPatternAttr,
        in1: AccessPatternAttr,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        super().__init__(
            operands=[runtime_values(runtime)],
            properties={"dst": dst, "op": _alu(op), "in0": in0, "in1": in1}
            | runtime_properties(runtime),
        )

    def verify_(self) -> None:
        check_runtime(self)
        alu = self.op.data
        memories = SBUF_ONLY if alu == AluOp.POWER else ON_CHIP
        dst = check_ap("dst", self.dst, memories)
        in0 = check_ap("in0", self.in0, memories)
        in1 = check_ap("in1", self.in1, memories)
        _no_x4(("dst", dst), ("in0", in0), ("in1", in1))
        if in0.memory == in1.memory == Memory.PSUM:
            raise VerifyException("in0 and in1 cannot both be in psum")
        _same_layout("in0", in0, "in1", in1)
        _same_layout("dst", dst, "in0", in0)
        _alu_dtypes(alu, ("in0", in0), ("in1", in1))


@irdl_op_definition
class TensorScalarOp(IRDLOperation):
    """``dst = op1(op0(src, operand0), operand1)``; each operand an immediate (f32, or an
    integer for bitwise ops) or a per-partition column pattern; ``reverse`` swaps an op's
    operands: ``bir.tensor_scalar dst, src, multiply 2.0 : f32 (, reverse subtract
    #bir.ap<...>)?``."""

    name = "bir.tensor_scalar"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    op0 = prop_def(AluOpAttr)
    operand0 = prop_def(ScalarOperand)
    reverse0 = opt_prop_def(UnitAttr)
    op1 = opt_prop_def(AluOpAttr)
    operand1 = opt_prop_def(ScalarOperand)
    reverse1 = opt_prop_def(UnitAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` qualified($src) `,` (`reverse` $reverse0^)? $op0 $operand0 "
        "(`,` (`reverse` $reverse1^)? $op1^ $operand1)? " + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        src: AccessPatternAttr,
        op0: AluOp | AluOpAttr,
        operand0: Attribute,
        op1: AluOp | AluOpAttr | None = None,
        operand1: Attribute | None = None,
        reverse0: bool = False,
        reverse1: bool = False,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {
            "dst": dst,
            "src": src,
            "op0": _alu(op0),
            "operand0": operand0,
        }
        if op1 is not None:
            properties["op1"] = _alu(op1)
        if operand1 is not None:
            properties["operand1"] = operand1
        if reverse0:
            properties["reverse0"] = UnitAttr()
        if reverse1:
            properties["reverse1"] = UnitAttr()
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        check_runtime(self)
        if (self.op1 is None) != (self.operand1 is None):
            raise VerifyException("op1 and operand1 come together")
        if self.op1 is None and self.reverse1 is not None:
            raise VerifyException("reverse1 needs op1")
        dst = check_ap("dst", self.dst, ON_CHIP)
        src = check_ap("src", self.src, ON_CHIP)
        _no_x4(("dst", dst), ("src", src))
        _same_layout("dst", dst, "src", src)
        bitwise = self.op0.data in BITWISE_ALU_OPS
        if self.op1 is not None and (self.op1.data in BITWISE_ALU_OPS) != bitwise:
            raise VerifyException(
                f"op0 {self.op0.data.value} and op1 {self.op1.data.value} must both be "
                "bitwise or both arithmetic"
            )
        _alu_dtypes(self.op0.data, ("src", src))
        _scalar_operand("operand0", self.operand0, src, bitwise)
        if self.operand1 is not None:
            _scalar_operand("operand1", self.operand1, src, bitwise)


@irdl_op_definition
class ActivationOp(IRDLOperation):
    """``dst = func(src * scale + bias)`` on the Scalar engine, f32 inside; scale (default
    1.0) and bias (default 0.0) are f32 immediates or per-partition column patterns:
    ``bir.activation dst, silu src (scale 2.0 : f32)? (bias #bir.ap<...>)?``."""

    name = "bir.activation"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    func = prop_def(ActivationFunctionAttr)
    scale = opt_prop_def(ScalarOperand)
    bias = opt_prop_def(ScalarOperand)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` $func qualified($src) (`scale` $scale^)? (`bias` $bias^)? "
        + RUNTIME_FORMAT
        + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        func: ActivationFunction | ActivationFunctionAttr,
        src: AccessPatternAttr,
        scale: Attribute | None = None,
        bias: Attribute | None = None,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        if isinstance(func, ActivationFunction):
            func = ActivationFunctionAttr(func)
        properties: dict[str, Attribute] = {"dst": dst, "func": func, "src": src}
        if scale is not None:
            properties["scale"] = scale
        if bias is not None:
            properties["bias"] = bias
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        check_runtime(self)
        dst = check_ap("dst", self.dst, ON_CHIP)
        src = check_ap("src", self.src, ON_CHIP)
        _no_x4(("dst", dst), ("src", src))
        _same_layout("dst", dst, "src", src)
        if self.scale is not None:
            _scalar_operand("scale", self.scale, src, bitwise=False)
        if self.bias is not None:
            _scalar_operand("bias", self.bias, src, bitwise=False)


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """``dst[f, p] = src[p, f]``, bit-exact (nisa.nc_transpose):
    ``bir.transpose dst, src (engine vector)?``. src is P partitions x F elements, dst F
    partitions x P elements, same dtype. The Tensor engine reads sbuf and writes psum,
    up to 128 x 128; the Vector engine works on chip either way, up to 32 x 32. Without
    ``engine``: sbuf -> psum is the Tensor engine, anything else the Vector engine."""

    name = "bir.transpose"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    engine = opt_prop_def(EngineAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` qualified($src) (`engine` $engine^)? " + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        src: AccessPatternAttr,
        engine: Engine | None = None,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {"dst": dst, "src": src}
        if engine is not None:
            properties["engine"] = EngineAttr(engine)
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def resolved_engine(self) -> Engine:
        if self.engine is not None:
            return self.engine.data
        on_pe = self.src.memory == Memory.SBUF and self.dst.memory == Memory.PSUM
        return Engine.TENSOR if on_pe else Engine.VECTOR

    def verify_(self) -> None:
        check_runtime(self)
        engine = self.resolved_engine()
        if engine == Engine.TENSOR:
            src = check_ap("src", self.src, SBUF_ONLY)
            dst = check_ap("dst", self.dst, PSUM_ONLY)
            limit = TRANSPOSE_TENSOR_ENGINE_MAX
        elif engine == Engine.VECTOR:
            src = check_ap("src", self.src, ON_CHIP)
            dst = check_ap("dst", self.dst, ON_CHIP)
            limit = TRANSPOSE_VECTOR_ENGINE_MAX
        else:
            raise VerifyException(f"runs on the tensor or vector engine, got {engine.value}")
        _no_x4(("src", src), ("dst", dst))
        if dst.dtype != src.dtype:
            raise VerifyException(
                f"dst dtype {dst.dtype.label} must equal src dtype {src.dtype.label}"
            )
        p, f = src.np, src.elements_per_partition
        if p > limit or f > limit:
            raise VerifyException(
                f"a {engine.value}-engine transpose takes at most [{limit}, {limit}], "
                f"got [{p}, {f}]"
            )
        if (dst.np, dst.elements_per_partition) != (f, p):
            raise VerifyException(
                f"dst is {dst.np} partitions x {dst.elements_per_partition} elements; the "
                f"transpose of {p} x {f} is {f} x {p}"
            )


@irdl_op_definition
class TensorReduceOp(IRDLOperation):
    """Reduce the innermost ``inner`` pairs of src's pattern with a reduction-legal ALU
    op (f32; exact integers / raw bits like nisa.tensor_reduce; a float add is the exact
    sum rounded once to dst's dtype); ``negate`` multiplies the result by -1:
    ``bir.tensor_reduce dst, add src inner 1 (negate)?``. dst keeps the partitions and
    holds the product of src's other pairs' nums per partition."""

    name = "bir.tensor_reduce"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    op = prop_def(AluOpAttr)
    inner = prop_def(IntegerAttr.constr(type=eq(i64)))
    negate = opt_prop_def(UnitAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` $op qualified($src) `inner` $inner (`negate` $negate^)? "
        + RUNTIME_FORMAT
        + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        op: AluOp | AluOpAttr,
        src: AccessPatternAttr,
        inner: int,
        negate: bool = False,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {
            "dst": dst,
            "op": _alu(op),
            "src": src,
            "inner": IntegerAttr(inner, i64),
        }
        if negate:
            properties["negate"] = UnitAttr()
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        check_runtime(self)
        alu = self.op.data
        if alu not in REDUCE_ALU_OPS:
            raise VerifyException(f"{alu.value} is not a reduction op")
        dst = check_ap("dst", self.dst, ON_CHIP)
        src = check_ap("src", self.src, ON_CHIP)
        _no_x4(("dst", dst), ("src", src))
        _alu_dtypes(alu, ("src", src))
        pairs = src.get_pairs()
        inner = self.inner.value.data
        if not 1 <= inner <= len(pairs):
            raise VerifyException(
                f"inner must count 1 to {len(pairs)} pairs of the src pattern, got {inner}"
            )
        if dst.np != src.np:
            raise VerifyException(f"dst has {dst.np} partitions but src has {src.np}")
        kept = math.prod(num for _, num in pairs[: len(pairs) - inner])
        if dst.elements_per_partition != kept:
            raise VerifyException(
                f"dst has {dst.elements_per_partition} elements per partition but reducing "
                f"the inner {inner} pair(s) of src leaves {kept}"
            )


# ----------------------------------------------------------------------------- more engines


@irdl_op_definition
class IotaOp(IRDLOperation):
    """An index pattern (GpSimd, int32 math, then one RNE cast to dst's dtype, as
    nisa.iota): ``bir.iota dst, [[step, num], ...] offset o channel_multiplier c``. The
    pairs (1 to 4) enumerate each partition's elements of dst in its order; element
    ``(i, j_0, ...)`` of partition ``i`` of the pattern gets
    ``o + i * c + sum(j_k * step_k)``. dst in sbuf, not x4."""

    name = "bir.iota"
    dst = prop_def(AccessPatternAttr)
    pattern = prop_def(nisa.IotaPatternAttr)
    offset = prop_def(IntegerAttr.constr(type=eq(i64)), default_value=IntegerAttr(0, i64))
    channel_multiplier = prop_def(
        IntegerAttr.constr(type=eq(i64)), default_value=IntegerAttr(0, i64)
    )
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` $pattern (`offset` $offset^)? "
        "(`channel_multiplier` $channel_multiplier^)? " + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        pattern: Sequence[tuple[int, int]],
        offset: int = 0,
        channel_multiplier: int = 0,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {
            "dst": dst,
            "pattern": nisa.IotaPatternAttr(pattern),
            "offset": IntegerAttr(offset, i64),
            "channel_multiplier": IntegerAttr(channel_multiplier, i64),
        }
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        check_runtime(self)
        dst = check_ap("dst", self.dst, SBUF_ONLY)
        _no_x4(("dst", dst))
        pairs = self.pattern.get_pairs()
        if not 1 <= len(pairs) <= nisa.IOTA_MAX_DIMS:
            raise VerifyException(
                f"pattern has {len(pairs)} [step, num] pairs; 1 to {nisa.IOTA_MAX_DIMS} are allowed"
            )
        covered = math.prod(num for _, num in pairs)
        if covered != dst.elements_per_partition:
            raise VerifyException(
                f"pattern covers {covered} elements per partition but dst has "
                f"{dst.elements_per_partition}"
            )


@irdl_op_definition
class ScalarTensorTensorOp(IRDLOperation):
    """``dst = op1(op0(src, operand0), in1)`` on the Vector engine, f32 inside (as
    nisa.scalar_tensor_tensor): ``bir.scalar_tensor_tensor dst, src, (reverse)? multiply
    S, (reverse)? add in1``. operand0 an f32 immediate or a column pattern; in1 a pattern
    like src; arithmetic ops only; src and in1 not both in psum."""

    name = "bir.scalar_tensor_tensor"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    op0 = prop_def(AluOpAttr)
    operand0 = prop_def(ScalarOperand)
    reverse0 = opt_prop_def(UnitAttr)
    op1 = prop_def(AluOpAttr)
    in1 = prop_def(AccessPatternAttr)
    reverse1 = opt_prop_def(UnitAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` qualified($src) `,` (`reverse` $reverse0^)? $op0 $operand0 `,` "
        "(`reverse` $reverse1^)? $op1 qualified($in1) " + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        src: AccessPatternAttr,
        op0: AluOp | AluOpAttr,
        operand0: Attribute,
        op1: AluOp | AluOpAttr,
        in1: AccessPatternAttr,
        *,
        reverse0: bool = False,
        reverse1: bool = False,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {
            "dst": dst,
            "src": src,
            "op0": _alu(op0),
            "operand0": operand0,
            "op1": _alu(op1),
            "in1": in1,
        }
        if reverse0:
            properties["reverse0"] = UnitAttr()
        if reverse1:
            properties["reverse1"] = UnitAttr()
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        check_runtime(self)
        for alu in (self.op0.data, self.op1.data):
            if alu in BITWISE_ALU_OPS:
                raise VerifyException(f"takes arithmetic ops only, got {alu.value}")
        dst = check_ap("dst", self.dst, ON_CHIP)
        src = check_ap("src", self.src, ON_CHIP)
        in1 = check_ap("in1", self.in1, ON_CHIP)
        _no_x4(("dst", dst), ("src", src), ("in1", in1))
        if src.memory == in1.memory == Memory.PSUM:
            raise VerifyException("src and in1 cannot both be in psum")
        _same_layout("dst", dst, "src", src)
        _same_layout("in1", in1, "src", src)
        _scalar_operand("operand0", self.operand0, src, bitwise=False)


@irdl_op_definition
class TensorCopyPredicatedOp(IRDLOperation):
    """Select (as nisa.tensor_copy_predicated): ``dst = pred != 0 ? src : dst``, ``not``
    copies where pred is 0: ``bir.tensor_copy_predicated dst, src where (not)? pred``.
    src a pattern like dst (same dtype) or an immediate of dst's dtype (f32 / integer);
    pred an on-chip pattern of dtype 12, 13, 17 (signed) or 1, 14, 18, like dst."""

    name = "bir.tensor_copy_predicated"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(ScalarOperand)
    predicate = prop_def(AccessPatternAttr)
    reverse_predicate = opt_prop_def(UnitAttr)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` $src `where` (`not` $reverse_predicate^)? qualified($predicate) "
        + RUNTIME_FORMAT
        + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        src: Attribute,
        predicate: AccessPatternAttr,
        *,
        reverse_predicate: bool = False,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        properties: dict[str, Attribute] = {"dst": dst, "src": src, "predicate": predicate}
        if reverse_predicate:
            properties["reverse_predicate"] = UnitAttr()
        super().__init__(
            operands=[runtime_values(runtime)], properties=properties | runtime_properties(runtime)
        )

    def verify_(self) -> None:
        check_runtime(self)
        dst = check_ap("dst", self.dst, ON_CHIP)
        predicate = check_ap("predicate", self.predicate, ON_CHIP)
        _no_x4(("dst", dst))
        if predicate.dtype not in PREDICATE_DTYPES:
            raise VerifyException(
                "predicate must be an 8, 16 or 32-bit integer (dtype 1, 12, 13, 14, 17 or "
                f"18), got {predicate.dtype.label}"
            )
        _same_layout("predicate", predicate, "dst", dst)
        if isinstance(self.src, AccessPatternAttr):
            src = check_ap("src", self.src, ON_CHIP)
            _same_layout("src", src, "dst", dst)
            if src.dtype != dst.dtype:
                raise VerifyException(
                    f"src dtype {src.dtype.label} must equal dst dtype {dst.dtype.label}"
                )


@irdl_op_definition
class DmaComputeOp(IRDLOperation):
    """Sum 1 to 16 sources into dst through a DMA engine, f32 inside, one rounding to
    dst (as nisa.dma_compute): ``bir.dma_compute dst (of %t : T)?, [src, ...] (of %a, %b
    : T, T)?``. Patterns in hbm or sbuf, element for element in enumeration order; the
    hbm patterns name their tensors in order (dst's after ``dst``, the sources' after
    the list); not x4. Run-time keys: ``dst``, ``src0``, ``src1``, ..."""

    name = "bir.dma_compute"
    dst = prop_def(AccessPatternAttr)
    srcs = prop_def(ArrayAttr[AccessPatternAttr])
    dst_tensor = opt_operand_def(MemRefType)
    src_tensors = var_operand_def(MemRefType)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) (`of` $dst_tensor^ `:` type($dst_tensor))? `,` $srcs "
        "(`of` $src_tensors^ `:` type($src_tensors))? " + RUNTIME_FORMAT + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        srcs: Sequence[AccessPatternAttr],
        *,
        dst_tensor: SSAValue | None = None,
        src_tensors: Sequence[SSAValue] = (),
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        super().__init__(
            operands=[dst_tensor, list(src_tensors), runtime_values(runtime)],
            properties={"dst": dst, "srcs": ArrayAttr(srcs)} | runtime_properties(runtime),
        )

    def source_tensors(self) -> list[SSAValue | None]:
        """The tensor of each source (None on chip)."""
        tensors = iter(self.src_tensors)
        return [next(tensors, None) if ap.memory == Memory.HBM else None for ap in self.srcs]

    def verify_(self) -> None:
        check_runtime(self)
        sources = list(self.srcs.data)
        if not 1 <= len(sources) <= nisa.DMA_COMPUTE_MAX_SOURCES:
            raise VerifyException(
                f"takes 1 to {nisa.DMA_COMPUTE_MAX_SOURCES} sources, got {len(sources)}"
            )
        hbm_sources = sum(ap.memory == Memory.HBM for ap in sources)
        if hbm_sources != len(self.src_tensors):
            raise VerifyException(
                f"{hbm_sources} source(s) are in hbm but {len(self.src_tensors)} tensor(s) "
                "are named"
            )
        dst = check_ap("dst", self.dst, DMA_MEMORIES, self.dst_tensor)
        _no_x4(("dst", dst))
        for i, (ap, tensor) in enumerate(zip(sources, self.source_tensors(), strict=True)):
            src = check_ap(f"src{i}", ap, DMA_MEMORIES, tensor)
            _no_x4((f"src{i}", src))
            if src.num_elements != dst.num_elements:
                raise VerifyException(
                    f"src{i} has {src.num_elements} elements but dst has {dst.num_elements}"
                )


@irdl_op_definition
class SendRecvOp(IRDLOperation):
    """Exchange SBUF patterns with peer cores (as nisa.sendrecv): send ``src`` to core
    ``send_to`` and receive into ``dst`` what core ``recv_from`` sends on the same pipe:
    ``bir.sendrecv dst, src to %peer from %peer pipe 0``. dst and src have the same
    dtype, partitions and elements per partition; the partner's must match."""

    name = "bir.sendrecv"
    dst = prop_def(AccessPatternAttr)
    src = prop_def(AccessPatternAttr)
    send_to = operand_def(IndexType)
    recv_from = operand_def(IndexType)
    pipe_id = prop_def(IntegerAttr.constr(type=eq(i64)))
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    traits = _EFFECTS
    assembly_format = (
        "qualified($dst) `,` qualified($src) `to` $send_to `from` $recv_from `pipe` $pipe_id "
        + RUNTIME_FORMAT
        + "attr-dict"
    )

    def __init__(
        self,
        dst: AccessPatternAttr,
        src: AccessPatternAttr,
        send_to: SSAValue,
        recv_from: SSAValue,
        pipe_id: int,
        *,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        super().__init__(
            operands=[send_to, recv_from, runtime_values(runtime)],
            properties={"dst": dst, "src": src, "pipe_id": IntegerAttr(pipe_id, i64)}
            | runtime_properties(runtime),
        )

    def verify_(self) -> None:
        check_runtime(self)
        dst = check_ap("dst", self.dst, SBUF_ONLY)
        src = check_ap("src", self.src, SBUF_ONLY)
        _same_layout("dst", dst, "src", src)
        if dst.dtype != src.dtype:
            raise VerifyException(
                f"dst dtype {dst.dtype.label} must equal src dtype {src.dtype.label}"
            )
        if self.pipe_id.value.data < 0:
            raise VerifyException(f"pipe must be >= 0, got {self.pipe_id.value.data}")


@irdl_op_definition
class CoreBarrierOp(IRDLOperation):
    """Wait until every core in ``cores`` reached a barrier on the same HBM tensor; HBM
    writes before it are visible after it (as nisa.core_barrier):
    ``bir.core_barrier %t : T cores [0, 1]``."""

    name = "bir.core_barrier"
    tensor = operand_def(MemRefType)
    cores = prop_def(
        DenseArrayBase.constr(i64), default_value=DenseArrayBase.from_list(i64, (0, 1))
    )
    traits = _EFFECTS
    assembly_format = "$tensor `:` type($tensor) (`cores` $cores^)? attr-dict"

    def __init__(self, tensor: SSAValue, cores: Sequence[int] = (0, 1)):
        super().__init__(
            operands=[tensor], properties={"cores": DenseArrayBase.from_list(i64, cores)}
        )

    def get_cores(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.cores.get_values())

    def verify_(self) -> None:
        hbm_tensor_bytes(self.tensor)
        cores = self.get_cores()
        if not cores or len(set(cores)) != len(cores) or min(cores) < 0:
            raise VerifyException(
                f"cores must be distinct non-negative core ids, got {list(cores)}"
            )


@irdl_op_definition
class RegisterLoadOp(IRDLOperation):
    """Read one integer element into a register value (as nisa.register_load), for a
    data-dependent loop bound: ``%n = bir.register_load #bir.ap<...> (of %t : T)? :
    index``. The pattern has one element of an integer dtype of at most 32 bits, in
    sbuf or hbm."""

    name = "bir.register_load"
    src = prop_def(AccessPatternAttr)
    src_tensor = opt_operand_def(MemRefType)
    runtime = opt_prop_def(ArrayAttr[StringAttr])
    runtime_values = var_operand_def(IndexType)
    result = result_def(base(IndexType) | eq(i32))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "qualified($src) (`of` $src_tensor^ `:` type($src_tensor))? "
        + RUNTIME_FORMAT
        + "attr-dict `:` type($result)"
    )

    def __init__(
        self,
        src: AccessPatternAttr,
        result_type: Attribute | None = None,
        *,
        src_tensor: SSAValue | None = None,
        runtime: Sequence[tuple[str, SSAValue]] = (),
    ):
        super().__init__(
            operands=[src_tensor, runtime_values(runtime)],
            properties={"src": src} | runtime_properties(runtime),
            result_types=[result_type or IndexType()],
        )

    def verify_(self) -> None:
        check_runtime(self)
        src = check_ap("src", self.src, DMA_MEMORIES, self.src_tensor)
        if src.num_elements != 1:
            raise VerifyException(f"src must have exactly one element, got {src.num_elements}")
        if not src.dtype.is_int:
            raise VerifyException(f"src must have an integer dtype, got {src.dtype.label}")


Bir = Dialect(
    "bir",
    [
        DmaOp,
        DmaIndirectOp,
        MemsetOp,
        TensorCopyOp,
        CastOp,
        MatmultOp,
        MatmultMxOp,
        QuantizeMxOp,
        TensorTensorOp,
        TensorScalarOp,
        ActivationOp,
        TransposeOp,
        TensorReduceOp,
        IotaOp,
        ScalarTensorTensorOp,
        TensorCopyPredicatedOp,
        DmaComputeOp,
        SendRecvOp,
        CoreBarrierOp,
        RegisterLoadOp,
    ],
    [AccessPatternAttr],
)
