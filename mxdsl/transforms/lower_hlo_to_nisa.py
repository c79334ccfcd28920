"""``lower-hlo-to-nisa``: a legalized hlo function becomes a nisa kernel.

The function keeps its name, arguments and results; every tensor becomes an HBM buffer
(``memref<... x T, #nisa.mem<hbm>>`` with the tensor's shape and element type), results are
HBM buffers the kernel allocates and returns. Each hlo op becomes DMAs between HBM and
on-chip tiles plus the ISA ops over 128-partition tiles, in ``scf.for`` loops over the
tiles (so the IR does not grow with the tensor sizes):

* ``QuantizeMX_*``: per tile, DMA the input so that each physical MX block (8 partitions
  x 4 free columns) holds exactly one logical 32-element block, ``nisa.quantize_mx``,
  DMA the x4 data and the E8M0 scales (read out of the quadrant layout) back to HBM in the
  HLO layout.
* ``ScaledMatmul_*``: per output tile, ``nisa.nc_matmul_mx`` accumulating over the K tiles
  in PSUM (contraction index ``k = 4 p + q``: partition p, x4 lane q), then a copy out
  (``tensor_copy`` PSUM -> SBUF in the result type, DMA to HBM).
* ``dot_general`` (bf16 / f16 / f32): the same with ``nisa.nc_matmul`` (K <= 128 per step).
* ``convert`` between bf16, f16 and f32: one HBM -> HBM DMA (it converts via f32).
* ``get_tuple_element`` and the metadata constants disappear.

Shapes that are not multiples of the tile sizes get a peeled partial tile (padded with
zeros where the ISA needs multiples of 32 partitions or an even stationary size); what
the mapping cannot express is refused with a diagnostic on the op that names the dim.
``docs/lowering.md`` describes the mapping of HLO dims onto partitions.

The packed MX data is ``ui32`` at the function boundary (the HLO type, so mx-run reads and
writes the same arrays) and ``!nisa.float8_*_x4`` inside the kernel; the boundary
reinterprets the HBM buffer with a ``memref.cast`` that changes only the element type
(both are 32-bit containers of the same bytes).

The StableHLO ops ``import-stablehlo`` keeps (JAX's FP8 packing, reshapes, transposes,
broadcasts and MXFP8 quantization) lower too, each exactly (``docs/stablehlo.md``,
"Lowering to nisa and bir"): the packing is a ``nisa.view_cast`` of the FP8 lanes as x4
words, layout ops are views or DMAs, elementwise ops, compares, selects and max
reductions run per 128-partition tile on the ISA's f32 / exact-integer ALU.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    Signedness,
    StridedLayoutAttr,
    StringAttr,
    TensorType,
    TupleType,
    UnitAttr,
    f8E4M3FN,
    f8E5M2,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from mxdsl.contract.mx import (
    BLOCK_SCALED_DOT,
    MX_BLOCK_SIZE,
    QUANTIZE_MX,
    QUANTIZE_MX_TARGETS,
    SCALED_MATMUL_TARGETS,
    X4_PACK,
    ScaledDotConfig,
)
from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects import nisa
from mxdsl.dialects import stablehlo as shlo
from mxdsl.dialects.hlo import (
    ConstantOp,
    ConvertOp,
    CustomCallOp,
    DotGeneralOp,
    GetTupleElementOp,
    TupleOp,
)

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

Offset = int | SSAValue
"""A static or dynamic index."""
Dims = list[tuple[Offset, int, int, bool]]
"""Subview dims: ``(offset, size, stride, keep)`` each (see ``_Emitter.view``)."""


def _x4_type(fp8_dtype: str) -> nisa.X4Type:
    return nisa.float8_e5m2_x4 if fp8_dtype == "float8_e5m2" else nisa.float8_e4m3fn_x4


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _memref(value: SSAValue) -> MemRefType[Attribute]:
    t = value.type
    assert isinstance(t, MemRefType)
    return t  # pyright: ignore[reportUnknownVariableType]


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType | MemRefType)
    return tuple(t.get_shape())


def _element_type(value: SSAValue) -> Attribute:
    t = value.type
    assert isinstance(t, TensorType | MemRefType)
    return t.get_element_type()


def _hbm_type(tensor: TensorType[Attribute]) -> MemRefType[Attribute]:
    return nisa.tile_type(tensor.get_shape(), tensor.get_element_type(), nisa.MemorySpace.HBM)


# ------------------------------------------------------------------------- emitter


class _Emitter:
    """Builds the body of one kernel: index constants at the top of the entry block,
    everything else at the current insertion point (the end of a block or loop body)."""

    def __init__(self, entry: Block, location: LocationAttr):
        self.entry = entry
        self.ip = InsertPoint.at_end(entry)
        self.location = location
        self._constants: dict[int, SSAValue] = {}
        self._anchor: Operation | None = None
        self._casts: dict[tuple[SSAValue, Attribute], SSAValue] = {}

    # -- basic emission

    def emit(self, op: Operation) -> Operation:
        op.location = self.location
        Rewriter.insert_op(op, self.ip)
        return op

    def index(self, value: Offset) -> SSAValue:
        if isinstance(value, SSAValue):
            return value
        if (known := self._constants.get(value)) is None:
            op = arith.ConstantOp.from_int_and_width(value, IndexType())
            op.location = self.location
            op.result.name_hint = f"c{value}" if value >= 0 else f"c_neg{-value}"
            if self._anchor is not None:
                self.entry.insert_op_after(op, self._anchor)
            elif self.entry.first_op is not None:
                self.entry.insert_op_before(op, self.entry.first_op)
            else:
                self.entry.add_op(op)
            self._anchor = op
            known = self._constants[value] = op.result
        return known

    def add(self, a: Offset, b: Offset) -> Offset:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(b, int) and b == 0:
            return a
        if isinstance(a, int) and a == 0:
            return b
        return self.emit(arith.AddiOp(self.index(a), self.index(b))).results[0]

    def loop(
        self,
        lower: Offset,
        upper: Offset,
        step: Offset,
        hint: str,
        body: Callable[[SSAValue], None],
    ) -> None:
        """``scf.for %hint = lower to upper step step { body(%hint) }``."""
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = hint
        self.emit(
            scf.ForOp(self.index(lower), self.index(upper), self.index(step), [], Region(block))
        )
        saved, self.ip = self.ip, InsertPoint.at_end(block)
        body(block.args[0])
        self.emit(scf.YieldOp())
        self.ip = saved

    def tiled(self, total: int, tile: int, hint: str, body: Callable[[Offset, int], None]) -> None:
        """Cover ``[0, total)`` with tiles: an ``scf.for`` over the full tiles of
        ``min(tile, total)`` (also when there is just one), then the partial tile peeled.
        ``body(offset, size)`` emits one tile."""
        if total <= 0:
            return
        step = min(tile, total)
        full = total // step
        self.loop(0, full * step, step, hint, lambda iv: body(iv, step))
        if (rest := total - full * step) > 0:
            body(full * step, rest)

    def chained(
        self, total: int, tile: int, hint: str, body: Callable[[Offset, int, bool], None]
    ) -> None:
        """Cover ``[0, total)`` with the tiles of a PSUM accumulation chain: the first
        tile peeled with ``accumulate`` unset (the first pass initialises PSUM, as
        ``nc_matmul`` without accumulate overwrites: ``docs/numerics.md``, "PSUM"), an
        ``scf.for`` over the other full tiles, then the partial tile.
        ``body(offset, size, accumulate)`` emits one tile."""
        if total <= 0:
            return
        step = min(tile, total)
        full = total // step
        body(0, step, False)
        if full > 1:
            self.loop(step, full * step, step, hint, lambda iv: body(iv, step, True))
        if (rest := total - full * step) > 0:
            body(full * step, rest, True)

    # -- buffers and views

    def alloc(
        self, shape: Sequence[int], element_type: Attribute, space: nisa.MemorySpace, hint: str
    ) -> SSAValue:
        op = memref.AllocOp([], [], nisa.tile_type(shape, element_type, space))
        op.results[0].name_hint = hint
        return self.emit(op).results[0]

    def cast(self, value: SSAValue, element_type: Attribute) -> SSAValue:
        """The same HBM buffer seen with another 32-bit element type (ui32 <-> x4)."""
        t = _memref(value)
        if t.get_element_type() == element_type:
            return value
        key = (value, element_type)
        if (known := self._casts.get(key)) is None:
            target = MemRefType(element_type, t.get_shape(), t.layout, t.memory_space)
            op = memref.CastOp.get(value, target)
            # right after the value's definition, so every later use sees it
            owner = value.owner
            if isinstance(owner, Operation) and owner.parent_block() is not None:
                op.location = self.location
                Rewriter.insert_op(op, InsertPoint.after(owner))
            else:
                assert isinstance(owner, Block)
                op.location = self.location
                self._insert_after_constants(op)
            known = self._casts[key] = op.results[0]
        return known

    def _insert_after_constants(self, op: Operation) -> None:
        if self._anchor is not None:
            self.entry.insert_op_after(op, self._anchor)
        elif self.entry.first_op is not None:
            self.entry.insert_op_before(op, self.entry.first_op)
        else:
            self.entry.add_op(op)
        self._anchor = op

    def reshape(
        self,
        value: SSAValue,
        groups: Sequence[Sequence[int]],
        shape: Sequence[int],
        hint: str | None = None,
    ) -> SSAValue:
        """expand_shape (more dims) or collapse_shape (fewer) of an identity-layout buffer;
        ``groups`` are the reassociation groups of the higher-rank side."""
        t = _memref(value)
        source_shape = t.get_shape()
        if tuple(shape) == tuple(source_shape):
            return value
        result_type = nisa.tile_type(shape, t.get_element_type(), t.memory_space)  # pyright: ignore[reportArgumentType]
        reassociation = ArrayAttr(ArrayAttr(IntegerAttr(d, i64) for d in g) for g in groups)
        if len(shape) > len(source_shape):
            op = memref.ExpandShapeOp.build(
                operands=[value, []],
                result_types=[result_type],
                properties={
                    "reassociation": reassociation,
                    "static_output_shape": DenseArrayBase.from_list(i64, list(shape)),
                },
            )
        else:
            op = memref.CollapseShapeOp.build(
                operands=[value],
                result_types=[result_type],
                properties={"reassociation": reassociation},
            )
        op.results[0].name_hint = hint
        return self.emit(op).results[0]

    def split_dim(
        self, value: SSAValue, dim: int, sizes: Sequence[int], hint: str | None = None
    ) -> SSAValue:
        """expand_shape splitting ``dim`` into ``sizes``."""
        shape = _shape(value)
        assert math.prod(sizes) == shape[dim]
        groups: list[list[int]] = []
        d = 0
        for i in range(len(shape)):
            n = len(sizes) if i == dim else 1
            groups.append(list(range(d, d + n)))
            d += n
        return self.reshape(value, groups, (*shape[:dim], *sizes, *shape[dim + 1 :]), hint)

    def merge_leading(self, value: SSAValue, keep: int) -> SSAValue:
        """collapse_shape of all dims but the last ``keep`` into one (rank keep + 1); a
        rank-``keep`` buffer gets a leading unit dim."""
        shape = _shape(value)
        lead = len(shape) - keep
        if lead == 1:
            return value
        if lead == 0:
            groups = [[0, 1], *([d + 1] for d in range(1, keep))] if keep else [[0]]
            return self.reshape(value, groups, (1, *shape))
        groups = [list(range(lead)), *([lead + d] for d in range(keep))]
        return self.reshape(value, groups, (math.prod(shape[:lead]), *shape[lead:]))

    def view(self, source: SSAValue, dims: Sequence[tuple[Offset, int, int, bool]]) -> SSAValue:
        """``memref.subview``: one ``(offset, size, stride, keep)`` per dim; dims with
        ``keep`` False (size 1) are dropped from the result."""
        t = _memref(source)
        offsets = [d[0] for d in dims]
        sizes = [d[1] for d in dims]
        strides = [d[2] for d in dims]
        if (
            all(isinstance(o, int) and o == 0 for o in offsets)
            and tuple(sizes) == tuple(t.get_shape())
            and all(s == 1 for s in strides)
            and all(d[3] for d in dims)
        ):
            return source
        full = memref.SubviewOp.infer_result_type(t, offsets, sizes, strides)
        layout = full.layout
        assert isinstance(layout, StridedLayoutAttr)
        full_strides = layout.get_strides()
        kept = [i for i, d in enumerate(dims) if d[3]]
        assert all(dims[i][1] == 1 for i in range(len(dims)) if i not in kept)
        result_type = MemRefType(
            t.get_element_type(),
            [sizes[i] for i in kept],
            StridedLayoutAttr([full_strides[i] for i in kept], layout.get_offset()),
            t.memory_space,
        )
        op = memref.SubviewOp.get(source, offsets, sizes, strides, result_type)
        return self.emit(op).results[0]

    def rows(
        self, tile: SSAValue, rows: int, cols: int, row_offset: Offset = 0, col_offset: Offset = 0
    ) -> SSAValue:
        """``tile[row_offset : +rows, col_offset : +cols]`` of a 2-D on-chip tile."""
        return self.view(tile, [(row_offset, rows, 1, True), (col_offset, cols, 1, True)])

    # -- ops

    def dma(self, dst: SSAValue, src: SSAValue) -> None:
        self.emit(nisa.DmaCopyOp(dst, src))

    def memset(self, dst: SSAValue, value: float) -> None:
        self.emit(nisa.MemsetOp(dst, value))


def _scale_runs(rows: int) -> list[tuple[int, int, int]]:
    """Runs ``(first row, quadrants, rows per quadrant)`` covering scale rows 0..rows-1 of
    a scale tile in the quadrant layout: whole quadrants of 4 rows, then the rest."""
    runs: list[tuple[int, int, int]] = []
    if rows >= QUADRANT_ROWS:
        runs.append((0, rows // QUADRANT_ROWS, QUADRANT_ROWS))
    if rows % QUADRANT_ROWS:
        runs.append((rows - rows % QUADRANT_ROWS, 1, rows % QUADRANT_ROWS))
    return runs


def _scale_slots(
    e: _Emitter,
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


# ----------------------------------------------------------------------- the pass


class _Refusal(Exception):
    """Internal: an op the mapping cannot express (becomes an OpDiagnostic)."""


@dataclass(frozen=True)
class LowerHloToNisaPass(ModulePass):
    """Lower every function that computes on hlo tensors to a nisa kernel (see the
    module docstring and ``docs/lowering.md``). Options (tile sizes, for experiments and
    tests; the defaults are the hardware maxima):

    * ``quantize_free_tile``: x4 words per partition in one ``quantize_mx`` (default 512);
    * ``matmul_k_tile``: contraction partitions per matmul step (default 128: 128 K
      elements for ``nc_matmul``, 128 x4 words = 512 K elements for ``nc_matmul_mx``;
      MX needs a multiple of 32);
    * ``matmul_m_tile``: stationary free size, the output rows per tile (default 128;
      MX needs it even);
    * ``matmul_n_tile``: moving free size, the output columns per tile (default 512).
    """

    name = PASS_NAME

    quantize_free_tile: int = 512
    matmul_k_tile: int = PMAX
    matmul_m_tile: int = nisa.MATMUL_STATIONARY_FMAX
    matmul_n_tile: int = nisa.MATMUL_MOVING_FMAX

    def __post_init__(self) -> None:
        limits = (
            ("quantize_free_tile", self.quantize_free_tile, 1 << 20),
            ("matmul_k_tile", self.matmul_k_tile, PMAX),
            ("matmul_m_tile", self.matmul_m_tile, nisa.MATMUL_STATIONARY_FMAX),
            ("matmul_n_tile", self.matmul_n_tile, nisa.MATMUL_MOVING_FMAX),
        )
        for option, value, limit in limits:
            if not 1 <= value <= limit:
                raise ValueError(f"{option} must be in [1, {limit}], got {value}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            if _needs_lowering(function):
                _FunctionLowering(self, function).run()


def _needs_lowering(function: func.FuncOp) -> bool:
    types = [*function.function_type.inputs.data, *function.function_type.outputs.data]
    if any(isinstance(t, TensorType | TupleType) for t in types):
        return True
    return any(o.dialect_name() == "hlo" for o in function.walk())


ARG_NAMES_ATTR = "mx.arg_names"
"""Set on a kernel whose arguments are flattened tuples: the mx-run key of each argument
(``arg0.0``, ``arg0.1``, ``arg1``, ...), so the kernel reads the hlo function's inputs."""
RESULT_NAMES_ATTR = "mx.result_names"
"""Likewise for the results (``result0.0``, ``result0.1``, ...): mx-run writes the same
keys at every level."""


def _leaves(key: str, t: Attribute) -> list[tuple[str, Attribute]]:
    """The boundary order: a tuple's elements depth first, keyed ``key.0``, ``key.1``, ..."""
    if isinstance(t, TupleType):
        return [
            leaf
            for i, element in enumerate(t.types.data)
            for leaf in _leaves(f"{key}.{i}", element)
        ]
    return [(key, t)]


def _regroup(t: Attribute, args: Iterator[BlockArgument], hint: str | None) -> Any:
    """The flattened arguments of a (tuple) type as the value the old argument had."""
    if isinstance(t, TupleType):
        return tuple(
            _regroup(e, args, f"{hint}_{i}" if hint else None) for i, e in enumerate(t.types.data)
        )
    arg = next(args)
    arg.name_hint = hint
    return arg


class _FunctionLowering:
    """Lowers one ``func.func``: a new body over HBM memrefs replaces the old one."""

    def __init__(self, options: LowerHloToNisaPass, function: func.FuncOp):
        self.options = options
        self.function = function
        self.values: dict[SSAValue, SSAValue | tuple[Any, ...]] = {}
        self.splats: dict[SSAValue, _Splat] = {}
        """Tensors that are one constant everywhere (StableHLO splat constants and their
        broadcasts): memsets where they are used, an HBM buffer only when one is needed."""

    def refuse(self, op: Operation, message: str) -> OpDiagnostic:
        return OpDiagnostic(op, f"{PASS_NAME}: {message}")

    # -- the function

    def run(self) -> None:
        function = self.function
        if function.is_declaration:
            raise self.refuse(function, f"@{function.sym_name.data} has no body to lower")
        old_type = function.function_type
        arg_leaves = [
            leaf
            for index, t in enumerate(old_type.inputs.data)
            for leaf in _leaves(f"arg{index}", t)
        ]
        result_leaves = [
            leaf
            for index, t in enumerate(old_type.outputs.data)
            for leaf in _leaves(f"result{index}", t)
        ]
        arg_types = [self.boundary_type(function, key, t) for key, t in arg_leaves]
        result_types = [self.boundary_type(function, key, t) for key, t in result_leaves]
        blocks = function.body.blocks
        if len(blocks) != 1:
            raise self.refuse(function, "only single-block functions are lowered")
        old_block = blocks[0]
        entry = Block(arg_types=arg_types)
        new_args = iter(entry.args)
        for old_arg in old_block.args:
            self.values[old_arg] = _regroup(old_arg.type, new_args, old_arg.name_hint)
        self.e = _Emitter(entry, function.location)
        for op in old_block.ops:
            self.lower_op(op)
        new_body = Region(entry)
        function.body.detach_block(old_block)
        old_block.erase(safe_erase=False)
        function.body.add_block(new_body.detach_block(entry))
        function.function_type = FunctionType.from_lists(arg_types, result_types)
        for attribute, leaves, count in (
            (ARG_NAMES_ATTR, arg_leaves, len(old_type.inputs.data)),
            (RESULT_NAMES_ATTR, result_leaves, len(old_type.outputs.data)),
        ):
            if len(leaves) != count or any("." in key for key, _ in leaves):
                function.attributes[attribute] = ArrayAttr([StringAttr(k) for k, _ in leaves])

    def boundary_type(self, function: func.FuncOp, key: str, t: Attribute) -> Attribute:
        if isinstance(t, TensorType):
            if any(d < 0 for d in t.get_shape()):
                raise self.refuse(
                    function, f"{key} of @{function.sym_name.data} has a dynamic shape {t}"
                )
            if t.get_element_type() == i1:  # a 0 / 1 byte, as on chip
                return nisa.tile_type(t.get_shape(), UI8, nisa.MemorySpace.HBM)
            return _hbm_type(t)  # pyright: ignore[reportUnknownArgumentType]
        return t

    def lower_op(self, op: Operation) -> None:
        try:
            if isinstance(op, ConstantOp):
                self.lower_constant(op)
            elif isinstance(op, GetTupleElementOp):
                source = self.values[op.operand]
                assert isinstance(source, tuple)
                self.values[op.result] = source[op.index.value.data]
            elif isinstance(op, TupleOp):
                self.values[op.result] = tuple(self.lowered(v) for v in op.val)
            elif isinstance(op, CustomCallOp):
                self.lower_custom_call(op)
            elif isinstance(op, DotGeneralOp):
                self.lower_dot_general(op)
            elif isinstance(op, ConvertOp):
                self.lower_convert(op)
            elif isinstance(op, func.ReturnOp):
                self.lower_return(op)
            elif isinstance(op, shlo.ReshapeOp):
                self.lower_reshape(op)
            elif isinstance(op, shlo.BitcastConvertOp):
                self.lower_bitcast_convert(op)
            elif isinstance(op, shlo.TransposeOp):
                self.lower_transpose(op)
            elif isinstance(op, shlo.BroadcastInDimOp):
                self.lower_broadcast_in_dim(op)
            elif isinstance(op, shlo.ConstantOp):
                self.lower_stablehlo_constant(op)
            elif type(op) in _BINARY_ALU:
                assert isinstance(op, shlo.ElementwiseOp)
                self.lower_binary(op)
            elif isinstance(op, shlo.AbsOp | shlo.NegOp | shlo.NotOp):
                self.lower_unary(op)
            elif isinstance(op, shlo.CompareOp):
                self.lower_compare(op)
            elif isinstance(op, shlo.SelectOp):
                self.lower_select(op)
            elif isinstance(op, shlo.ReduceOp):
                self.lower_reduce(op)
            elif op.dialect_name() == "stablehlo":
                raise _Refusal(_stablehlo_refusal(op))
            else:
                raise _Refusal(f"no lowering for {op.name}")
        except _Refusal as err:
            raise self.refuse(op, str(err)) from None

    def lowered(self, value: SSAValue) -> SSAValue | tuple[Any, ...]:
        """The lowered value of a tensor or (nested) tuple."""
        if value not in self.values and value in self.splats:
            return self.value(value)
        mapped = self.values.get(value)
        if mapped is None:
            raise _Refusal(f"operand {value} has no lowered value")
        return mapped

    def value(self, tensor: SSAValue) -> SSAValue:
        mapped = self.values.get(tensor)
        if mapped is None and tensor in self.splats:
            mapped = self.values[tensor] = self.materialize(tensor, self.splats[tensor])
        if mapped is None:
            raise _Refusal(f"operand {tensor} has no lowered value")
        if isinstance(mapped, tuple):
            raise _Refusal("a tuple value is used where a tensor is expected")
        return mapped

    def lower_constant(self, op: ConstantOp | shlo.ConstantOp) -> None:
        """Metadata constants disappear; a dense tensor literal becomes a constant
        ``memref.global`` in hbm (next to the function) read with ``memref.get_global``."""
        data_uses = [
            use
            for use in op.output.uses
            if not (
                isinstance(use.operation, CustomCallOp)
                and (
                    (use.operation.target in QUANTIZE_MX_TARGETS and use.index == 0)
                    or (use.operation.target in SCALED_MATMUL_TARGETS and use.index == 4)
                )
            )
        ]
        if not data_uses:
            self.values[op.output] = ()
            return
        literal = op.value
        t = op.output.type
        if not isinstance(literal, DenseIntOrFPElementsAttr) or not isinstance(t, TensorType):
            raise _Refusal(
                "only dense tensor literals and the metadata constants of QuantizeMX_* / "
                "ScaledMatmul_* are lowered; pass other constants as function arguments"
            )
        hbm = _hbm_type(t)  # pyright: ignore[reportUnknownArgumentType]
        module = self.function.parent_op()
        assert module is not None
        taken = {
            o.sym_name.data for o in module.walk() if isinstance(o, memref.GlobalOp | func.FuncOp)
        }
        base = f"{self.function.sym_name.data}_{op.output.name_hint or 'const'}"
        name = next(n for i in itertools.count() if (n := f"{base}{i or ''}") not in taken)
        glob = memref.GlobalOp.get(StringAttr(name), hbm, literal, constant=UnitAttr())
        glob.location = op.location
        Rewriter.insert_op(glob, InsertPoint.before(self.function))
        read = self.e.emit(memref.GetGlobalOp(name, hbm))
        read.results[0].name_hint = op.output.name_hint
        self.values[op.output] = read.results[0]

    def lower_return(self, op: func.ReturnOp) -> None:
        """Tuple results are returned element by element, depth first (``_leaves``)."""
        results: list[SSAValue] = []

        def flatten(mapped: SSAValue | tuple[Any, ...], t: Attribute) -> None:
            if isinstance(t, TupleType):
                assert isinstance(mapped, tuple)
                for element, element_type in zip(mapped, t.types.data, strict=True):
                    flatten(element, element_type)
                return
            if isinstance(mapped, tuple):
                raise _Refusal("a tuple value is returned where a tensor is expected")
            if isinstance(t, TensorType):  # x4 data goes out as ui32
                mapped = self.e.cast(mapped, _tile_element(t.get_element_type()))
            results.append(mapped)

        for value in op.arguments:
            flatten(self.lowered(value), value.type)
        self.e.emit(func.ReturnOp(*results))

    def result_buffer(self, tensor: SSAValue, element_type: Attribute | None = None) -> SSAValue:
        t = tensor.type
        assert isinstance(t, TensorType)
        return self.e.alloc(
            t.get_shape(),
            element_type or t.get_element_type(),
            nisa.MemorySpace.HBM,
            tensor.name_hint or "out",
        )

    # -- custom calls

    def lower_custom_call(self, op: CustomCallOp) -> None:
        target = op.target
        if target in QUANTIZE_MX_TARGETS:
            self.lower_quantize(op)
        elif target in SCALED_MATMUL_TARGETS:
            self.lower_scaled_matmul(op)
        elif target == QUANTIZE_MX:
            raise _Refusal("QuantizeMX is not legalized; run legalize-quantize-mx first")
        elif target == BLOCK_SCALED_DOT:
            raise _Refusal(f"{BLOCK_SCALED_DOT} is not legalized; run legalize-scaled-matmul first")
        else:
            raise _Refusal(f"no lowering for custom call target {target!r}")

    # ------------------------------------------------------------- QuantizeMX_*

    def lower_quantize(self, op: CustomCallOp) -> None:
        e = self.e
        _, fp8_dtype = QUANTIZE_MX_TARGETS[op.target]
        source_tensor = op.inputs[1]
        shape = _shape(source_tensor)
        result = op.result.type
        assert isinstance(result, TupleType)
        data_tensor, scale_tensor = result.types.data
        assert isinstance(data_tensor, TensorType)
        assert isinstance(scale_tensor, TensorType)
        data_shape = tuple(data_tensor.get_shape())
        dims = [d for d in range(len(shape)) if data_shape[d] != shape[d]]
        if len(dims) != 1 or shape[dims[0]] % MX_BLOCK_SIZE:
            raise _Refusal(
                f"cannot tell the quantized dim from {source_tensor.type} -> {data_tensor}"
            )
        dim = dims[0]
        if any(s == 0 for s in shape):
            raise _Refusal(f"input {source_tensor.type} is empty")
        x4 = _x4_type(fp8_dtype)
        source = self.value(source_tensor)
        element = _element_type(source)
        data = e.alloc(data_shape, x4, nisa.MemorySpace.HBM, "q_data")
        scale = e.alloc(scale_tensor.get_shape(), E8M0, nisa.MemorySpace.HBM, "q_scale")
        self.values[op.result] = (data, scale)
        last = dim == len(shape) - 1
        # tile extents: groups of 8 partitions (rows / blocks) x free columns (blocks / N)
        groups_total = math.prod(shape[:-1]) if last else shape[-2] // MX_BLOCK_SIZE
        cols_total = shape[-1] // MX_BLOCK_SIZE if last else shape[-1]
        partitions = BLOCK_ROWS * _round_up(min(BLOCKS_PER_TILE, groups_total), QUADRANT_ROWS)
        cols = min(self.options.quantize_free_tile, cols_total)
        src_tile = e.alloc([partitions, X4_PACK * cols], element, nisa.MemorySpace.SBUF, "q_src")
        dst_tile = e.alloc([partitions, cols], x4, nisa.MemorySpace.SBUF, "q_dst")
        scale_tile = e.alloc([PMAX, cols], E8M0, nisa.MemorySpace.SBUF, "q_scl")
        quadrants = e.split_dim(scale_tile, 0, [QUADRANT_ROWS, QUADRANT], "q_scl_quads")
        tiles = (src_tile, dst_tile, scale_tile, quadrants)
        if last:
            self.quantize_last(source, data, scale, tiles)
        else:
            self.quantize_second_to_last(source, data, scale, tiles)

    def quantize_views(
        self, tiles: tuple[SSAValue, ...], groups: int, cols: int
    ) -> tuple[SSAValue, SSAValue]:
        """The src view ``[8 * padded groups, 4 cols]`` (the padding partitions zeroed, so
        the tile is a multiple of 32 partitions) and the dst view of one quantize tile."""
        e = self.e
        src_tile, dst_tile, _, _ = tiles
        partitions = BLOCK_ROWS * _round_up(groups, QUADRANT_ROWS)
        src = e.rows(src_tile, partitions, X4_PACK * cols)
        dst = e.rows(dst_tile, partitions, cols)
        if partitions > BLOCK_ROWS * groups:
            pad = e.rows(
                src_tile, partitions - BLOCK_ROWS * groups, X4_PACK * cols, BLOCK_ROWS * groups
            )
            e.memset(pad, 0.0)
        return src, dst

    def quantize_scales_out(
        self, quadrants: SSAValue, groups: int, cols: int, hbm_rows: Callable[[int, int], SSAValue]
    ) -> None:
        """DMA scale rows 0..groups-1 of the tile (quadrant layout) to HBM;
        ``hbm_rows(first, count)`` is the HBM view of those rows ([count, cols])."""
        for first, count, per in _scale_runs(groups):
            slots = _scale_slots(self.e, quadrants, first, count, per, 0, cols)
            self.e.dma(hbm_rows(first, count * per), slots)

    def quantize_last(
        self, source: SSAValue, data: SSAValue, scale: SSAValue, tiles: tuple[SSAValue, ...]
    ) -> None:
        """Quantize along the last dim: x[R, 32 B] (leading dims merged into R). Tile
        partition 8 g + r, column 4 c + q holds x[row0 + g, 32 (blk0 + c) + 4 r + q]: 16 rows
        x up to ``quantize_free_tile`` blocks per tile."""
        e = self.e
        x = e.merge_leading(source, 1)
        rows, length = _shape(x)
        blocks = length // MX_BLOCK_SIZE
        x_blocks = e.split_dim(x, 1, [blocks, BLOCK_ROWS, X4_PACK], "x_blocks")  # [R, B, 8, 4]
        words = e.merge_leading(data, 1)
        words = e.split_dim(words, 1, [blocks, WORDS_PER_BLOCK], "q_words")  # [R, B, 8]
        scales = e.merge_leading(scale, 1)  # [R, B]
        quadrants = tiles[3]

        def tile(row0: Offset, groups: int, blk0: Offset, cols: int) -> None:
            src, dst = self.quantize_views(tiles, groups, cols)

            def load(r: SSAValue) -> None:
                part = e.view(src, [(r, groups, BLOCK_ROWS, True), (0, X4_PACK * cols, 1, True)])
                hbm = e.view(
                    x_blocks,
                    [
                        (row0, groups, 1, True),
                        (blk0, cols, 1, True),
                        (r, 1, 1, False),
                        (0, X4_PACK, 1, True),
                    ],
                )
                e.dma(part, hbm)

            e.loop(0, BLOCK_ROWS, 1, "r", load)
            e.emit(nisa.QuantizeMxOp(dst, e.rows(tiles[2], PMAX, cols), src))

            def store(r: SSAValue) -> None:
                part = e.view(dst, [(r, groups, BLOCK_ROWS, True), (0, cols, 1, True)])
                hbm = e.view(
                    words, [(row0, groups, 1, True), (blk0, cols, 1, True), (r, 1, 1, False)]
                )
                e.dma(hbm, part)

            e.loop(0, BLOCK_ROWS, 1, "r", store)
            self.quantize_scales_out(
                quadrants,
                groups,
                cols,
                lambda first, count: e.view(
                    scales, [(e.add(row0, first), count, 1, True), (blk0, cols, 1, True)]
                ),
            )

        e.tiled(
            rows,
            BLOCKS_PER_TILE,
            "row",
            lambda row0, groups: e.tiled(
                blocks,
                self.options.quantize_free_tile,
                "blk",
                lambda blk0, cols: tile(row0, groups, blk0, cols),
            ),
        )

    def quantize_second_to_last(
        self, source: SSAValue, data: SSAValue, scale: SSAValue, tiles: tuple[SSAValue, ...]
    ) -> None:
        """Quantize along the second-to-last dim: x[O, 32 B, N] (leading dims merged into
        O, absent for a rank-2 input). Tile partition 8 g + r, column 4 c + q holds
        x[o, 32 (blk0 + g) + 4 r + q, col0 + c]: partitions run along the quantized dim (the
        packed x4 word index), 16 blocks x up to ``quantize_free_tile`` columns per tile."""
        e = self.e
        rank = len(_shape(source))
        has_outer = rank > 2
        x = e.merge_leading(source, 2) if has_outer else source
        *_, length, cols_total = _shape(x)
        blocks = length // MX_BLOCK_SIZE
        d = 1 if has_outer else 0  # the quantized dim after merging
        x_blocks = e.split_dim(x, d, [blocks, BLOCK_ROWS, X4_PACK], "x_blocks")  # [O,] B, 8, 4, N
        words = e.merge_leading(data, 2) if has_outer else data
        words = e.split_dim(words, d, [blocks, WORDS_PER_BLOCK], "q_words")  # [O,] B, 8, N
        scales = e.merge_leading(scale, 2) if has_outer else scale  # [O,] B, N
        quadrants = tiles[3]

        def tile(o: Offset, blk0: Offset, groups: int, col0: Offset, cols: int) -> None:
            outer: Dims = [(o, 1, 1, False)] if has_outer else []
            src, dst = self.quantize_views(tiles, groups, cols)
            rows = BLOCK_ROWS * groups

            def load(q: SSAValue) -> None:
                part = e.view(src, [(0, rows, 1, True), (q, cols, X4_PACK, True)])
                block_rows: Dims = [(blk0, groups, 1, True), (0, BLOCK_ROWS, 1, True)]
                lane: Dims = [(q, 1, 1, False), (col0, cols, 1, True)]
                e.dma(part, e.view(x_blocks, outer + block_rows + lane))

            e.loop(0, X4_PACK, 1, "q", load)
            e.emit(nisa.QuantizeMxOp(dst, e.rows(tiles[2], PMAX, cols), src))
            word_rows: Dims = [(blk0, groups, 1, True), (0, WORDS_PER_BLOCK, 1, True)]
            hbm_words = e.view(words, outer + word_rows + [(col0, cols, 1, True)])
            e.dma(hbm_words, e.rows(dst, rows, cols))
            self.quantize_scales_out(
                quadrants,
                groups,
                cols,
                lambda first, count: e.view(
                    scales,
                    outer + [(e.add(blk0, first), count, 1, True), (col0, cols, 1, True)],
                ),
            )

        def per_outer(o: Offset) -> None:
            e.tiled(
                blocks,
                BLOCKS_PER_TILE,
                "blk",
                lambda blk0, groups: e.tiled(
                    cols_total,
                    self.options.quantize_free_tile,
                    "col",
                    lambda col0, cols: tile(o, blk0, groups, col0, cols),
                ),
            )

        if has_outer:
            e.loop(0, _shape(x)[0], 1, "b", per_outer)
        else:
            per_outer(0)

    # ------------------------------------------------------------- matmuls

    def lower_scaled_matmul(self, op: CustomCallOp) -> None:
        element_dtype, _ = SCALED_MATMUL_TARGETS[op.target]
        try:
            config = ScaledDotConfig.parse(op.backend_config.data, op.target)
        except VerifyException as err:
            raise _Refusal(str(err)) from None
        if (
            len(config.lhs_contracting_dimensions) != 1
            or len(config.rhs_contracting_dimensions) != 1
        ):
            raise _Refusal("exactly one contracting dim per side is lowered")
        if self.options.matmul_k_tile % MX_PARTITION_QUANTUM:
            raise _Refusal(
                f"matmul_k_tile {self.options.matmul_k_tile} is not a multiple of "
                f"{MX_PARTITION_QUANTUM}, the partition quantum of nc_matmul_mx"
            )
        x4 = _x4_type(element_dtype)
        lhs, rhs, lhs_scale, rhs_scale = (self.value(v) for v in op.inputs[:4])
        matmul = _Matmul(
            self,
            op,
            lhs=_Operand.make(
                "lhs",
                self.e.cast(lhs, x4),
                config.lhs_batch_dimensions,
                config.lhs_contracting_dimensions[0],
                lhs_scale,
            ),
            rhs=_Operand.make(
                "rhs",
                self.e.cast(rhs, x4),
                config.rhs_batch_dimensions,
                config.rhs_contracting_dimensions[0],
                rhs_scale,
            ),
            mx=True,
        )
        matmul.run()

    def lower_dot_general(self, op: DotGeneralOp) -> None:
        (lhs_batch, rhs_batch), (lhs_contract, rhs_contract) = op.batching_dims, op.contracting_dims
        for side, dims in (("lhs", lhs_contract), ("rhs", rhs_contract)):
            if len(dims) != 1:
                raise _Refusal(
                    f"{side} contracting dims {list(dims)}: exactly one contracting dim per "
                    "side is lowered (it is mapped onto the partitions); reshape them into one"
                )
        lhs, rhs = self.value(op.lhs), self.value(op.rhs)
        types = (_element_type(lhs), _element_type(rhs))
        for side, t in zip(("lhs", "rhs"), types, strict=True):
            if not isinstance(t, BFloat16Type | Float16Type | Float32Type):
                raise _Refusal(
                    f"{side} element type {t}: nc_matmul lowering takes bf16, f16 or f32"
                )
        if any(isinstance(t, Float32Type) for t in types) and not all(
            isinstance(t, Float32Type) for t in types
        ):
            raise _Refusal(
                f"lhs is {types[0]} and rhs is {types[1]}: nc_matmul pairs an f32 operand only "
                "with f32; convert one side first"
            )
        result = op.result.type
        assert isinstance(result, TensorType)
        if not isinstance(result.get_element_type(), BFloat16Type | Float16Type | Float32Type):
            raise _Refusal(
                f"result element type {result.get_element_type()}: bf16, f16 or f32 only"
            )
        _Matmul(
            self,
            op,
            lhs=_Operand.make("lhs", lhs, lhs_batch, lhs_contract[0], None),
            rhs=_Operand.make("rhs", rhs, rhs_batch, rhs_contract[0], None),
            mx=False,
        ).run()

    def lower_convert(self, op: ConvertOp) -> None:
        kinds = BFloat16Type | Float16Type | Float32Type
        source = self.value(op.operand)
        target = op.result.type
        assert isinstance(target, TensorType)
        operand_type = op.operand.type
        assert isinstance(operand_type, TensorType)
        if _dma_converts_exactly(operand_type.get_element_type(), target.get_element_type()):
            out = self.result_buffer(op.result)
            self.e.dma(out, source)
            self.values[op.result] = out
            return
        if not isinstance(_element_type(source), kinds) or not isinstance(
            target.get_element_type(), kinds
        ):
            raise _Refusal(
                f"convert {op.operand.type} -> {target}: lowered where one DMA (through f32) "
                "gives convert's bits: from floats of at most 32 bits, i1 and integers of at "
                "most 16 bits to floats and integers, from 32-bit integers to f32 and integers "
                "(not to i1, not rounding twice)"
            )
        out = self.result_buffer(op.result)
        self.e.dma(out, source)
        self.values[op.result] = out

    # ------------------------------------------------------------- StableHLO layout ops
    # What import-stablehlo leaves around the block-scaled dot (docs/stablehlo.md): the
    # FP8 packing pair and JAX's reshape / transpose / broadcast_in_dim. HBM buffers are
    # row-major and contiguous, so a reshape is a view and the packing is nisa.view_cast
    # (NKI's view(dtype)); a transpose or broadcast moves data with DMAs.

    def lower_reshape(self, op: shlo.ReshapeOp) -> None:
        if self.splat_through(op):
            return
        source = self.value(op.operand)
        shape = _shape(op.result)
        self.values[op.result] = self.alias(op.result, self.reshaped(source, shape))

    def reshaped(self, source: SSAValue, shape: Sequence[int]) -> SSAValue:
        """``source`` (contiguous) seen with another shape: collapse to 1-D, expand."""
        e = self.e
        source_shape = _shape(source)
        if tuple(shape) == tuple(source_shape):
            return source
        if not source_shape or not shape or not isinstance(_memref(source).layout, NoneAttr):
            out = e.alloc(shape, _element_type(source), nisa.MemorySpace.HBM, "reshaped")
            e.dma(out, source)
            return out
        small, big = sorted((tuple(source_shape), tuple(shape)), key=len)
        if len(small) < len(big) and (groups := _reassociation(small, big)) is not None:
            return e.reshape(source, groups, shape)
        flat = source
        if len(source_shape) > 1:
            flat = e.reshape(source, [list(range(len(source_shape)))], [math.prod(source_shape)])
        if len(shape) == 1:
            return flat
        return e.reshape(flat, [list(range(len(shape)))], shape)

    def alias(self, tensor: SSAValue, view: SSAValue) -> SSAValue:
        """A view becomes the value of ``tensor``; one that the function returns is copied
        into a buffer of its own first (a kernel returns whole HBM tensors)."""
        if not any(isinstance(use.operation, func.ReturnOp) for use in tensor.uses):
            return view
        if isinstance(view.owner, memref.AllocOp):
            return view
        out = self.e.alloc(_shape(view), _element_type(view), nisa.MemorySpace.HBM, "out")
        self.e.dma(out, view)
        return out

    def lower_bitcast_convert(self, op: shlo.BitcastConvertOp) -> None:
        """Four FP8 lanes ``[.., n, 4]`` as one 32-bit word ``[.., n]``: the x4 packing
        import-stablehlo emits (element ``4 k + j`` in byte ``j`` of word ``k``); a
        same-width bitcast (JAX's f32 <-> ui32, ui8 -> E8M0) is a view_cast as well."""
        source_type, result_type = op.operand.type, op.result.type
        assert isinstance(source_type, TensorType)
        assert isinstance(result_type, TensorType)
        lane, word = source_type.get_element_type(), result_type.get_element_type()
        shape = _shape(op.operand)
        if shape == _shape(op.result) and i1 not in (lane, word):
            cast = self.e.emit(nisa.ViewCastOp(self.value(op.operand), word))
            cast.results[0].name_hint = op.result.name_hint
            self.values[op.result] = self.alias(op.result, cast.results[0])
            return
        x4 = {f8E4M3FN: nisa.float8_e4m3fn_x4, f8E5M2: nisa.float8_e5m2_x4}.get(lane)
        if (
            x4 is None
            or not (isinstance(word, IntegerType) and word.width.data == 32)
            or len(shape) < 2
            or shape[-1] != X4_PACK
        ):
            raise _Refusal(
                f"bitcast_convert {source_type} -> {result_type}: only same-width bitcasts "
                "and the x4 packing of FP8 lanes (f8E4M3FN / f8E5M2 [.., n, 4] -> 32-bit "
                "integer [.., n]) are lowered (nisa.view_cast)"
            )
        e = self.e
        source = self.value(op.operand)
        if not isinstance(_memref(source).layout, NoneAttr):
            source = self.reshaped(source, shape)  # copied to a contiguous buffer
        cast = e.emit(nisa.ViewCastOp(source, x4))
        cast.results[0].name_hint = f"{op.result.name_hint or 'packed'}_x4"
        groups = [[d] for d in range(len(shape) - 2)] + [[len(shape) - 2, len(shape) - 1]]
        words = e.reshape(cast.results[0], groups, shape[:-1], op.result.name_hint)
        self.values[op.result] = self.alias(op.result, words)

    def lower_transpose(self, op: shlo.TransposeOp) -> None:
        """A permutation that keeps the order of the non-unit dims is a reshape; otherwise
        one DMA per row of the result (the innermost non-unit result dim), in loops over
        the other result dims, reading the source with that dim's stride."""
        if self.splat_through(op):
            return
        perm = op.dims
        source = self.value(op.operand)
        in_shape, out_shape = _shape(op.operand), _shape(op.result)
        moved = [d for d in perm if in_shape[d] != 1]
        if moved == sorted(moved):
            self.lower_reshape_like(op, source, out_shape)
            return
        e = self.e
        out = self.result_buffer(op.result)
        self.values[op.result] = out
        row = max(d for d in range(len(out_shape)) if out_shape[d] != 1)
        loops = [d for d in range(row) if out_shape[d] != 1]

        def copy(ivs: dict[int, Offset]) -> None:
            dst: Dims = [(ivs.get(d, 0), 1, 1, False) for d in range(len(out_shape))]
            dst[row] = (0, out_shape[row], 1, True)
            position = {perm[d]: d for d in range(len(perm))}
            src: Dims = [(ivs.get(position[d], 0), 1, 1, False) for d in range(len(in_shape))]
            src[perm[row]] = (0, in_shape[perm[row]], 1, True)
            e.dma(e.view(out, dst), e.view(source, src))

        self.nest(loops, out_shape, {}, copy)

    def nest(
        self,
        dims: Sequence[int],
        shape: Sequence[int],
        ivs: dict[int, Offset],
        body: Callable[[dict[int, Offset]], None],
    ) -> None:
        """``scf.for`` over each of ``dims`` (outermost first), ``body`` innermost."""
        if not dims:
            body(ivs)
            return
        d, rest = dims[0], dims[1:]
        self.e.loop(0, shape[d], 1, "i", lambda iv: self.nest(rest, shape, {**ivs, d: iv}, body))

    def lower_reshape_like(self, op: Operation, source: SSAValue, shape: Sequence[int]) -> None:
        result = op.results[0]
        self.values[result] = self.alias(result, self.reshaped(source, shape))

    def lower_broadcast_in_dim(self, op: shlo.BroadcastInDimOp) -> None:
        """Inserting unit dims is a reshape; otherwise the operand is copied whole into
        the result once per index of the broadcast dims (DMAs in loops over them)."""
        if self.splat_through(op):
            return
        dims = op.dims
        source = self.value(op.operand)
        in_shape, out_shape = _shape(op.operand), _shape(op.result)
        if list(dims) != sorted(dims):
            raise _Refusal(
                f"broadcast_in_dim dims {list(dims)} reorder the operand dims; transpose first"
            )
        broadcast = [
            d
            for d in range(len(out_shape))
            if out_shape[d] != 1 and (d not in dims or in_shape[dims.index(d)] != out_shape[d])
        ]
        if not broadcast:
            self.lower_reshape_like(op, source, out_shape)
            return
        e = self.e
        out = self.result_buffer(op.result)
        self.values[op.result] = out

        def copy(ivs: dict[int, Offset]) -> None:
            dst: Dims = [
                (ivs[d], 1, 1, False) if d in ivs else (0, out_shape[d], 1, True)
                for d in range(len(out_shape))
            ]
            e.dma(e.view(out, dst), source)

        self.nest(broadcast, out_shape, {}, copy)

    # ------------------------------------------------------------- StableHLO compute ops
    # JAX's MXFP8 quantization: elementwise ops, compare, select, a max reduction. Each op
    # runs over [128-partition, free] tiles of its result (leading dims merged into rows,
    # the last dim the free axis): DMA the operands in, one or two ISA ops, DMA out. i1
    # tensors are ui8 0 / 1 buffers. Each lowering is exact for the types it accepts:
    # the ISA computes floats in f32 (exact for max / min / abs / negate / compare, and
    # correctly rounded for + - * / of f32 operands; for narrower floats the f32 result
    # rounded again is still the correctly rounded one, f32 having more than 2p + 2 bits)
    # and integers exactly (docs/nisa-interpreter.md), as StableHLO computes them.

    def lower_stablehlo_constant(self, op: shlo.ConstantOp) -> None:
        literal = op.value
        values = literal.get_values()
        element = _element_type(op.output)
        if len(set(values)) == 1 and values:
            value = values[0]
            if element == i1:
                value = 1 if value else 0
            self.splats[op.output] = _Splat(value, _tile_element(element))
            return
        self.lower_constant(op)

    def splat_through(self, op: Operation) -> bool:
        """A reshape / transpose / broadcast of a splat is the same splat."""
        source = self.splats.get(op.operands[0])
        if source is None or op.operands[0] in self.values:
            return False
        self.splats[op.results[0]] = source
        return True

    def materialize(self, tensor: SSAValue, splat: _Splat) -> SSAValue:
        """An HBM buffer holding ``splat`` everywhere: a memset tile DMAed to each tile."""
        shape = _shape(tensor)
        e = self.e
        out = e.alloc(shape, splat.element, nisa.MemorySpace.HBM, tensor.name_hint or "splat")
        rows, cols = _rows_cols(shape)
        tile = e.alloc(
            [min(PMAX, rows), min(ELEMENTWISE_FREE_TILE, cols)],
            splat.element,
            nisa.MemorySpace.SBUF,
            "splat_tile",
        )
        self.fill(tile, splat.value)
        if not shape:
            e.dma(out, tile)
            return out
        out2d = self.reshaped(out, (rows, cols))
        e.tiled(
            rows,
            PMAX,
            "r",
            lambda r0, rt: e.tiled(
                cols,
                ELEMENTWISE_FREE_TILE,
                "c",
                lambda c0, ct: e.dma(
                    e.view(out2d, [(r0, rt, 1, True), (c0, ct, 1, True)]), e.rows(tile, rt, ct)
                ),
            ),
        )
        return out

    def fill(self, tile: SSAValue, value: Any) -> None:
        """Set a whole SBUF tile to a constant: ``nisa.memset`` for floats whose f64
        literal reads back; ``nisa.iota`` (int32 arithmetic, then a wrapping cast) for
        integers, and for integral floats the memset syntax cannot carry."""
        t = _memref(tile)
        element = t.get_element_type()
        free = math.prod(t.get_shape()[1:])
        number = float(value)
        if not isinstance(element, IntegerType) and _memset_prints(number):
            self.e.memset(tile, number)
            return
        if number.is_integer() and -(1 << 31) <= number < (1 << 32):
            wrapped = int(number) - (1 << 32) if number >= (1 << 31) else int(number)
            if isinstance(element, IntegerType) or abs(number) < (1 << 24):
                self.e.emit(nisa.IotaOp(tile, [(0, free)], offset=wrapped))
                return
        raise _Refusal(
            f"the constant {value} has no nisa form here (memset takes finite floats whose "
            "literal reads back, iota 32-bit integers); pass it as an argument"
        )

    def elementwise(
        self,
        result: SSAValue,
        operands: Sequence[SSAValue | _Splat],
        compute: Callable[[SSAValue, list[SSAValue]], None],
        result_element: Attribute | None = None,
    ) -> None:
        """``result`` tile by tile: each operand (a tensor, an HBM buffer or a splat)
        DMAed into an SBUF tile (a splat: filled once), ``compute(dst tile, operand
        tiles)``, the dst tile DMAed out (into a buffer of ``result_element`` if given)."""
        shape = _shape(result)
        if not shape or 0 in shape:
            raise _Refusal(f"{result.type}: only non-empty tensors of rank >= 1 are lowered")
        e = self.e
        rows, cols = _rows_cols(shape)
        p_alloc, f_alloc = min(PMAX, rows), min(ELEMENTWISE_FREE_TILE, cols)
        sources: list[tuple[SSAValue | None, SSAValue]] = []
        for operand in operands:
            if isinstance(operand, SSAValue) and isinstance(operand.type, MemRefType):
                hbm = operand  # already a buffer
                buffer = e.alloc(
                    [p_alloc, f_alloc], _element_type(hbm), nisa.MemorySpace.SBUF, "in"
                )
                sources.append((self.reshaped(hbm, (rows, cols)), buffer))
                continue
            if isinstance(operand, SSAValue) and operand not in self.values:
                operand = self.splats.get(operand, operand)
            if isinstance(operand, _Splat):
                buffer = e.alloc([p_alloc, f_alloc], operand.element, nisa.MemorySpace.SBUF, "cst")
                self.fill(buffer, operand.value)
                sources.append((None, buffer))
                continue
            hbm = self.value(operand)
            buffer = e.alloc([p_alloc, f_alloc], _element_type(hbm), nisa.MemorySpace.SBUF, "in")
            sources.append((self.reshaped(hbm, (rows, cols)), buffer))
        out = self.result_buffer(result, result_element or _tile_element(_element_type(result)))
        self.values[result] = out
        out2d = self.reshaped(out, (rows, cols))
        dst_tile = e.alloc([p_alloc, f_alloc], _element_type(out), nisa.MemorySpace.SBUF, "res")

        def tile(r0: Offset, rt: int, c0: Offset, ct: int) -> None:
            region: Dims = [(r0, rt, 1, True), (c0, ct, 1, True)]
            views: list[SSAValue] = []
            for hbm, on_chip in sources:
                view = e.rows(on_chip, rt, ct)
                if hbm is not None:
                    e.dma(view, e.view(hbm, region))
                views.append(view)
            dst = e.rows(dst_tile, rt, ct)
            compute(dst, views)
            e.dma(e.view(out2d, region), dst)

        e.tiled(
            rows,
            PMAX,
            "r",
            lambda r0, rt: e.tiled(
                cols, ELEMENTWISE_FREE_TILE, "c", lambda c0, ct: tile(r0, rt, c0, ct)
            ),
        )

    def alu_op(self, alu: nisa.AluOp) -> Callable[[SSAValue, list[SSAValue]], None]:
        def compute(dst: SSAValue, tiles: list[SSAValue]) -> None:
            self.e.emit(nisa.TensorTensorOp(dst, alu, tiles[0], tiles[1]))

        return compute

    def lower_binary(self, op: shlo.ElementwiseOp) -> None:
        alu = _BINARY_ALU[type(op)]
        element = _element_type(op.result)
        kind = _kind(element)
        allowed = {
            nisa.AluOp.ADD: ("float", "signed", "unsigned"),
            nisa.AluOp.SUBTRACT: ("float", "signed", "unsigned"),
            nisa.AluOp.MULTIPLY: ("float", "signed", "unsigned"),
            nisa.AluOp.DIVIDE: ("float",),
            nisa.AluOp.MAXIMUM: ("float", "signed", "unsigned"),
            nisa.AluOp.MINIMUM: ("float", "signed", "unsigned"),
            nisa.AluOp.BITWISE_AND: ("signed", "unsigned", "i1"),
            nisa.AluOp.BITWISE_OR: ("signed", "unsigned", "i1"),
            nisa.AluOp.BITWISE_XOR: ("signed", "unsigned", "i1"),
            nisa.AluOp.LEFT_SHIFT: ("signed", "unsigned"),
            nisa.AluOp.RIGHT_SHIFT: (
                ("unsigned",) if isinstance(op, shlo.ShrLogicalOp) else ("signed",)
            ),
        }[alu]
        if kind not in allowed:
            raise _Refusal(
                f"{op.name} on {element}: lowered on {' / '.join(allowed)} element types "
                "(float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers), where "
                "the ISA's f32 or exact integer arithmetic gives StableHLO's bits"
            )
        if alu in (nisa.AluOp.LEFT_SHIFT, nisa.AluOp.RIGHT_SHIFT):
            amount = self.splats.get(op.args[1])
            if amount is None or op.args[1] in self.values or not 0 <= amount.value < 64:
                raise _Refusal(
                    f"{op.name}: the shift amount must be a constant in [0, 64) (JAX shifts "
                    "by constants); a shift by a tensor has no exact ISA form here"
                )
        self.elementwise(op.result, list(op.args), self.alu_op(alu))

    def lower_unary(self, op: shlo.ElementwiseOp) -> None:
        """abs: abs_max with 0 (clears the sign of NaN too); negate: floats xor the sign
        bit (a view_cast of the bits), integers multiply by -1 (wrapping); not: xor with 1
        (i1) or with all ones."""
        element = _element_type(op.result)
        kind = _kind(element)
        tile_element = _tile_element(element)
        if isinstance(op, shlo.NotOp):
            if kind not in ("signed", "unsigned", "i1"):
                raise _Refusal(f"not on {element}: integers and i1 only")
            width = element.width.data if isinstance(element, IntegerType) else 8
            ones = 1 if kind == "i1" else -1 if kind == "signed" else (1 << width) - 1
            self.elementwise(
                op.result,
                [op.args[0], _Splat(ones, tile_element)],
                self.alu_op(nisa.AluOp.BITWISE_XOR),
            )
            return
        if kind not in ("float", "signed", "unsigned"):
            raise _Refusal(
                f"{op.name} on {element}: floats of at most 32 bits and 8 / 16 / 32-bit "
                "integers only"
            )
        if isinstance(op, shlo.AbsOp):
            self.elementwise(
                op.result, [op.args[0], _Splat(0, tile_element)], self.alu_op(nisa.AluOp.ABS_MAX)
            )
            return
        if kind == "float":  # flip the sign bit (NaN too, as StableHLO's negate does)
            assert isinstance(element, AnyFloat)
            bits = IntegerType(element.bitwidth, Signedness.UNSIGNED)
            source = self.e.emit(nisa.ViewCastOp(self.value(op.args[0]), bits)).results[0]
            sign = _Splat(1 << (element.bitwidth - 1), bits)
            self.elementwise(
                op.result, [source, sign], self.alu_op(nisa.AluOp.BITWISE_XOR), result_element=bits
            )
            out = self.value(op.result)
            self.values[op.result] = self.e.emit(nisa.ViewCastOp(out, element)).results[0]
            return
        self.elementwise(
            op.result, [op.args[0], _Splat(-1, tile_element)], self.alu_op(nisa.AluOp.MULTIPLY)
        )

    def lower_compare(self, op: shlo.CompareOp) -> None:
        direction = op.comparison_direction.data
        element = _element_type(op.lhs)
        kind = _kind(element)
        expected = {"float": "FLOAT", "signed": "SIGNED", "unsigned": "UNSIGNED", "i1": "UNSIGNED"}
        compare_type = op.compare_type.data if op.compare_type is not None else None
        if kind not in expected or compare_type not in (None, expected[kind]):
            raise _Refusal(
                f"compare {direction} {compare_type or ''} on {element}: lowered as FLOAT on "
                "floats of at most 32 bits, SIGNED / UNSIGNED on integers of their "
                "signedness (TOTALORDER has no ISA form here)"
            )
        alu = _COMPARE_ALU[direction]
        self.elementwise(op.result, [op.lhs, op.rhs], self.alu_op(alu))

    def lower_select(self, op: shlo.SelectOp) -> None:
        """``dst = on_false``, then ``tensor_copy_predicated`` of on_true where pred."""
        pred = self.splats.get(op.pred) if op.pred not in self.values else None
        if pred is not None:
            chosen = op.on_true if pred.value else op.on_false
            if chosen in self.splats and chosen not in self.values:
                self.splats[op.result] = self.splats[chosen]
                return
            self.values[op.result] = self.alias(op.result, self.value(chosen))
            return
        if _shape(op.pred) != _shape(op.result):
            raise _Refusal("a scalar predicate that is not a constant is not lowered")
        e = self.e

        def compute(dst: SSAValue, tiles: list[SSAValue]) -> None:
            on_false, on_true, predicate = tiles
            e.emit(nisa.TensorCopyOp(dst, on_false))
            e.emit(nisa.TensorCopyPredicatedOp(dst, on_true, predicate))

        self.elementwise(op.result, [op.on_false, op.on_true, op.pred], compute)

    def lower_reduce(self, op: shlo.ReduceOp) -> None:
        """A max / min (or and / or / xor) reduction over the trailing dims: one
        ``tensor_reduce`` per 128 rows; an init other than the op's identity is combined
        afterwards."""
        body = op.compact_body()
        alu = _REDUCE_ALU.get(body or "")
        if alu is None or len(op.inputs) != 1:
            raise _Refusal(
                f"reduce applying {body or 'a multi-op body'}: only single-input max / min / "
                "and / or / xor reductions are lowered (an add's order is the ISA's, not "
                "StableHLO's exact sum)"
            )
        source_tensor, init_tensor, result = op.inputs[0], op.init_values[0], op.reduced[0]
        element = _element_type(source_tensor)
        kind = _kind(element)
        ordered = alu in (nisa.AluOp.MAXIMUM, nisa.AluOp.MINIMUM)
        kinds = ("float", "signed", "unsigned") if ordered else ("signed", "unsigned", "i1")
        if kind not in kinds:
            raise _Refusal(
                f"reduce {alu.value} on {element}: lowered on {' / '.join(kinds)} element "
                "types (float: at most 32 bits; signed / unsigned: 8, 16 or 32-bit integers)"
            )
        shape = _shape(source_tensor)
        dims = sorted(op.dims)
        if not dims or dims != list(range(len(shape) - len(dims), len(shape))):
            raise _Refusal(
                f"reduce over dims {dims} of a rank-{len(shape)} tensor: only trailing dims "
                "are reduced (the free axis); transpose them last"
            )
        reduced = math.prod(shape[len(shape) - len(dims) :])
        rows = math.prod(shape[: len(shape) - len(dims)])
        if reduced > ELEMENTWISE_FREE_TILE * 8 or 0 in shape:
            raise _Refusal(
                f"reduce over {reduced} elements per row: at most "
                f"{ELEMENTWISE_FREE_TILE * 8} (one SBUF tile row) are lowered"
            )
        init = self.splats.get(init_tensor) if init_tensor not in self.values else None
        if init is None:
            raise _Refusal("the init value of a reduce must be a constant")
        e = self.e
        source = self.reshaped(self.value(source_tensor), (rows, reduced))
        tile_element = _tile_element(element)
        out = self.result_buffer(result, tile_element)
        self.values[result] = out
        out2d = self.reshaped(out, (rows, 1))
        p_alloc = min(PMAX, rows)
        data = e.alloc([p_alloc, reduced], tile_element, nisa.MemorySpace.SBUF, "red_in")
        dst = e.alloc([p_alloc, 1], tile_element, nisa.MemorySpace.SBUF, "red_out")
        identity = _is_identity(alu, init.value, element)
        init_tile = None
        if not identity:
            init_tile = e.alloc([p_alloc, 1], tile_element, nisa.MemorySpace.SBUF, "red_init")
            self.fill(init_tile, init.value)

        def tile(r0: Offset, rt: int) -> None:
            d = e.rows(dst, rt, 1)
            x = e.rows(data, rt, reduced)
            e.dma(x, e.view(source, [(r0, rt, 1, True), (0, reduced, 1, True)]))
            e.emit(nisa.TensorReduceOp(d, alu, x, [1]))
            if init_tile is not None:
                e.emit(nisa.TensorTensorOp(d, alu, d, e.rows(init_tile, rt, 1)))
            e.dma(e.view(out2d, [(r0, rt, 1, True), (0, 1, 1, True)]), d)

        e.tiled(rows, PMAX, "r", tile)


ELEMENTWISE_FREE_TILE = 512
"""Free elements per partition of one elementwise tile."""


@dataclass(frozen=True)
class _Splat:
    """A tensor that holds one constant (of the buffer element type: i1 is ui8)."""

    value: Any
    element: Attribute


_BINARY_ALU: dict[type[Operation], nisa.AluOp] = {
    shlo.AddOp: nisa.AluOp.ADD,
    shlo.SubOp: nisa.AluOp.SUBTRACT,
    shlo.MulOp: nisa.AluOp.MULTIPLY,
    shlo.DivOp: nisa.AluOp.DIVIDE,
    shlo.MaxOp: nisa.AluOp.MAXIMUM,
    shlo.MinOp: nisa.AluOp.MINIMUM,
    shlo.AndOp: nisa.AluOp.BITWISE_AND,
    shlo.OrOp: nisa.AluOp.BITWISE_OR,
    shlo.XorOp: nisa.AluOp.BITWISE_XOR,
    shlo.ShlOp: nisa.AluOp.LEFT_SHIFT,
    shlo.ShrLogicalOp: nisa.AluOp.RIGHT_SHIFT,
    shlo.ShrArithOp: nisa.AluOp.RIGHT_SHIFT,
}
_COMPARE_ALU = {
    "EQ": nisa.AluOp.EQUAL,
    "NE": nisa.AluOp.NOT_EQUAL,
    "GE": nisa.AluOp.GREATER_EQUAL,
    "GT": nisa.AluOp.GREATER,
    "LE": nisa.AluOp.LESS_EQUAL,
    "LT": nisa.AluOp.LESS,
}
_REDUCE_ALU = {
    "stablehlo.maximum": nisa.AluOp.MAXIMUM,
    "stablehlo.minimum": nisa.AluOp.MINIMUM,
    "stablehlo.and": nisa.AluOp.BITWISE_AND,
    "stablehlo.or": nisa.AluOp.BITWISE_OR,
    "stablehlo.xor": nisa.AluOp.BITWISE_XOR,
}
UI8 = IntegerType(8, Signedness.UNSIGNED)


def _tile_element(element: Attribute) -> Attribute:
    """The buffer element type of a tensor element type: i1 is a ui8 0 / 1."""
    return UI8 if element == i1 else element


def _kind(element: Attribute) -> str:
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


def _is_identity(alu: nisa.AluOp, value: Any, element: Attribute) -> bool:
    """Whether ``value`` is the identity of the reduction ``alu`` in ``element``."""
    if alu == nisa.AluOp.MAXIMUM:
        if isinstance(element, IntegerType):
            unsigned = element.signedness.data == Signedness.UNSIGNED
            return value == (0 if unsigned else -(1 << (element.width.data - 1)))
        return value == -math.inf
    if alu == nisa.AluOp.MINIMUM:
        if isinstance(element, IntegerType):
            width = element.width.data
            unsigned = element.signedness.data == Signedness.UNSIGNED
            return value == ((1 << width) - 1 if unsigned else (1 << (width - 1)) - 1)
        return value == math.inf
    if alu == nisa.AluOp.BITWISE_AND:
        return value in (-1, (1 << 32) - 1) or (element == i1 and value == 1)
    return value == 0


def _memset_prints(value: float) -> bool:
    """Whether xDSL prints ``value`` as an f64 literal that nisa.memset parses back
    (xDSL prints non-finite and some integral values in hex, which it does not read)."""
    if not math.isfinite(value):
        return False
    return float(f"{value:.5e}") == value or "." in f"{value:.17g}"


def _rows_cols(shape: Sequence[int]) -> tuple[int, int]:
    """A tensor as [rows, last dim] (rank 0: [1, 1])."""
    cols = shape[-1] if shape else 1
    return math.prod(shape) // max(cols, 1), cols


def _dma_converts_exactly(source: Attribute, target: Attribute) -> bool:
    """Whether a DMA (source -> f32 -> target, or integer -> integer wrapping) gives
    ``convert``'s bits: the source reaches f32 exactly (floats of at most 32 bits, i1,
    integers of at most 16 bits; a wider integer only into f32 or an integer) and the
    target is not i1 (convert's ``x != 0``)."""
    if target == i1 or not (_narrow_float(target) or _kind(target) in ("signed", "unsigned")):
        return False
    if _narrow_float(source) or _kind(source) == "i1":
        return True
    if _kind(source) in ("signed", "unsigned"):
        narrow = isinstance(source, IntegerType) and source.width.data <= 16
        return narrow or not _narrow_float(target) or isinstance(target, Float32Type)
    return False


def _narrow_float(t: Attribute) -> bool:
    """A float type of at most 32 bits (f32 holds each of its values exactly)."""
    return isinstance(t, AnyFloat) and t.bitwidth <= 32


def _reassociation(small: Sequence[int], big: Sequence[int]) -> list[list[int]] | None:
    """Groups of consecutive ``big`` dims, one per ``small`` dim, whose sizes multiply to
    it (the reassociation of one expand / collapse_shape), or None."""
    groups: list[list[int]] = []
    j = 0
    for i, size in enumerate(small):
        if j == len(big):
            return None
        group, product = [j], big[j]
        j += 1
        while product < size and j < len(big):
            product *= big[j]
            group.append(j)
            j += 1
        if product != size:
            return None
        if i == len(small) - 1:
            if any(big[k] != 1 for k in range(j, len(big))):
                return None
            group.extend(range(j, len(big)))
            j = len(big)
        groups.append(group)
    return groups if j == len(big) else None


def _stablehlo_refusal(op: Operation) -> str:
    """Why a StableHLO op that import-stablehlo kept has no nisa lowering."""
    return (
        f"no lowering for {op.name}: of StableHLO, lower-hlo-to-nisa lowers what JAX's "
        "MXFP8 scaled dots are made of (add subtract multiply divide maximum minimum and "
        "or xor shift_left shift_right_logical shift_right_arithmetic abs negate not "
        "compare select reduce convert bitcast_convert reshape transpose broadcast_in_dim "
        "constant; docs/stablehlo.md); compute it outside the kernel and pass the result "
        "as an argument"
    )


# --------------------------------------------------------------------------- matmul


@dataclass
class _Operand:
    """One side of a matmul: its HBM data (and MX scale), dims, and whether the
    contraction dim comes before its free dim (K-major: rows of K load directly onto
    partitions) or after (K-minor: a transposing load, one DMA per free index)."""

    side: str
    data: SSAValue
    scale: SSAValue | None
    batch: tuple[int, ...]
    contract: int
    free: int
    rank: int

    @staticmethod
    def make(
        side: str, data: SSAValue, batch: Sequence[int], contract: int, scale: SSAValue | None
    ) -> _Operand:
        rank = len(_shape(data))
        free = [d for d in range(rank) if d not in (*batch, contract)]
        if len(free) != 1:
            raise _Refusal(
                f"{side} has {len(free)} free dims {free} (rank {rank}, batch dims "
                f"{list(batch)}, contracting dim {contract}): the lowering maps exactly one "
                f"free dim onto the {'stationary' if side == 'lhs' else 'moving'} free axis; "
                "reshape the free dims into one"
            )
        return _Operand(side, data, scale, tuple(batch), contract, free[0], rank)

    @property
    def k_major(self) -> bool:
        return self.contract < self.free

    @property
    def free_size(self) -> int:
        return _shape(self.data)[self.free]


class _Matmul:
    """``result[batch..., M, N] = lhs . rhs`` as tiles: for every batch index, M tile and
    N tile, a PSUM accumulator that the first K tile's matmul initialises and the others
    accumulate into, copied out."""

    def __init__(
        self, lowering: _FunctionLowering, op: Operation, lhs: _Operand, rhs: _Operand, mx: bool
    ):
        self.lowering = lowering
        self.e = lowering.e
        self.lhs = lhs
        self.rhs = rhs
        self.mx = mx
        self.options = lowering.options
        result = op.results[0]
        self.result_tensor = result
        result_type = result.type
        assert isinstance(result_type, TensorType)
        self.result_element = result_type.get_element_type()

    def run(self) -> None:
        e, lhs, rhs, options = self.e, self.lhs, self.rhs, self.options
        m_total, n_total = lhs.free_size, rhs.free_size
        k_total = _shape(lhs.data)[lhs.contract]  # elements (dot) or x4 words (MX)
        if any(s == 0 for s in (m_total, n_total, k_total)):
            raise _Refusal("empty operands are not lowered")
        m_tile, n_tile, k_tile = options.matmul_m_tile, options.matmul_n_tile, options.matmul_k_tile
        if self.mx:
            if m_tile % 2:
                raise _Refusal(
                    f"matmul_m_tile {m_tile} is odd; nc_matmul_mx needs an even stationary "
                    "free size"
                )
            # K runs in scale rows (8 x4 words, 32 elements each) inside the kernel
            k_rows = [k_total // WORDS_PER_BLOCK, WORDS_PER_BLOCK]
            self.lhs_blocks = e.split_dim(lhs.data, lhs.contract, k_rows, "lhs_blocks")
            self.rhs_blocks = e.split_dim(rhs.data, rhs.contract, k_rows, "rhs_blocks")
        out = self.lowering.result_buffer(self.result_tensor)
        self.lowering.values[self.result_tensor] = out
        self.out = out
        m_alloc = min(m_tile, _round_up(m_total, 2) if self.mx else m_total)
        n_alloc = min(n_tile, n_total)
        k_alloc = min(k_tile, _round_up(k_total, MX_PARTITION_QUANTUM) if self.mx else k_total)
        if self.mx:
            x4 = _element_type(lhs.data)
            self.s_tile = e.alloc([k_alloc, m_alloc], x4, nisa.MemorySpace.SBUF, "stat")
            self.v_tile = e.alloc([k_alloc, n_alloc], x4, nisa.MemorySpace.SBUF, "mov")
            self.s_scale = e.alloc([PMAX, m_alloc], E8M0, nisa.MemorySpace.SBUF, "stat_scl")
            self.v_scale = e.alloc([PMAX, n_alloc], E8M0, nisa.MemorySpace.SBUF, "mov_scl")
            quads = [QUADRANT_ROWS, QUADRANT]
            self.s_quads = e.split_dim(self.s_scale, 0, quads, "stat_scl_quads")
            self.v_quads = e.split_dim(self.v_scale, 0, quads, "mov_scl_quads")
        else:
            self.s_tile = e.alloc(
                [k_alloc, m_alloc], _element_type(lhs.data), nisa.MemorySpace.SBUF, "stat"
            )
            self.v_tile = e.alloc(
                [k_alloc, n_alloc], _element_type(rhs.data), nisa.MemorySpace.SBUF, "mov"
            )
        self.acc = e.alloc([m_alloc, n_alloc], F32, nisa.MemorySpace.PSUM, "acc")
        self.res = e.alloc(
            [min(m_tile, m_total), n_alloc], self.result_element, nisa.MemorySpace.SBUF, "res"
        )
        self.k_total = k_total
        batch_sizes = [_shape(lhs.data)[d] for d in lhs.batch]
        self.batch_loops(batch_sizes, [])

    def batch_loops(self, sizes: list[int], ivs: list[Offset]) -> None:
        if len(ivs) == len(sizes):
            self.tiles(ivs)
            return
        self.e.loop(0, sizes[len(ivs)], 1, "b", lambda iv: self.batch_loops(sizes, [*ivs, iv]))

    def tiles(self, batch: list[Offset]) -> None:
        e, options = self.e, self.options
        e.tiled(
            self.lhs.free_size,
            options.matmul_m_tile,
            "m",
            lambda m0, mt: e.tiled(
                self.rhs.free_size,
                options.matmul_n_tile,
                "n",
                lambda n0, nt: self.output_tile(batch, m0, mt, n0, nt),
            ),
        )

    def output_tile(self, batch: list[Offset], m0: Offset, mt: int, n0: Offset, nt: int) -> None:
        e = self.e
        m_pad = _round_up(mt, 2) if self.mx else mt
        acc = e.rows(self.acc, m_pad, nt)
        if self.mx:
            k_rows = self.k_total // WORDS_PER_BLOCK
            e.chained(
                k_rows,
                self.options.matmul_k_tile // WORDS_PER_BLOCK,
                "k",
                lambda k0, kr, more: self.mx_step(batch, acc, m0, mt, m_pad, n0, nt, k0, kr, more),
            )
        else:
            e.chained(
                self.k_total,
                self.options.matmul_k_tile,
                "k",
                lambda k0, kt, more: self.dot_step(batch, acc, m0, mt, n0, nt, k0, kt, more),
            )
        res = e.rows(self.res, mt, nt)
        e.emit(nisa.TensorCopyOp(res, e.rows(self.acc, mt, nt)))
        dims: list[tuple[Offset, int, int, bool]] = [(b, 1, 1, False) for b in batch]
        dims += [(m0, mt, 1, True), (n0, nt, 1, True)]
        e.dma(e.view(self.out, dims), res)

    # -- one K step

    def dot_step(
        self,
        batch: list[Offset],
        acc: SSAValue,
        m0: Offset,
        mt: int,
        n0: Offset,
        nt: int,
        k0: Offset,
        kt: int,
        accumulate: bool,
    ) -> None:
        e = self.e
        s = e.rows(self.s_tile, kt, mt)
        v = e.rows(self.v_tile, kt, nt)
        self.load(self.lhs, self.lhs.data, batch, self.s_tile, None, m0, mt, k0, kt)
        self.load(self.rhs, self.rhs.data, batch, self.v_tile, None, n0, nt, k0, kt)
        e.emit(nisa.NcMatmulOp(acc, s, v, accumulate=accumulate))

    def mx_step(
        self,
        batch: list[Offset],
        acc: SSAValue,
        m0: Offset,
        mt: int,
        m_pad: int,
        n0: Offset,
        nt: int,
        k0: Offset,
        kr: int,
        accumulate: bool,
    ) -> None:
        """One K tile of ``kr`` scale rows (8 kr x4 words = 32 kr elements), padded to a
        multiple of 32 partitions with zero data (and unit scales)."""
        e = self.e
        p_valid = WORDS_PER_BLOCK * kr
        p_pad = _round_up(p_valid, MX_PARTITION_QUANTUM)
        s = e.rows(self.s_tile, p_pad, m_pad)
        v = e.rows(self.v_tile, p_pad, nt)
        s_scale = e.rows(self.s_scale, PMAX, m_pad)
        v_scale = e.rows(self.v_scale, PMAX, nt)
        if p_pad > p_valid or m_pad > mt:
            # padding lanes contribute exactly 0: zero data, finite (unit) scales
            e.memset(s_scale, 1.0)
            e.memset(v_scale, 1.0)
        if p_pad > p_valid:
            e.memset(e.rows(self.s_tile, p_pad - p_valid, m_pad, p_valid), 0.0)
            e.memset(e.rows(self.v_tile, p_pad - p_valid, nt, p_valid), 0.0)
        if m_pad > mt:
            e.memset(e.rows(self.s_tile, p_pad, m_pad - mt, 0, mt), 0.0)
        self.load(self.lhs, self.lhs_blocks, batch, self.s_tile, self.s_quads, m0, mt, k0, kr)
        self.load(self.rhs, self.rhs_blocks, batch, self.v_tile, self.v_quads, n0, nt, k0, kr)
        e.emit(nisa.NcMatmulMxOp(acc, s, s_scale, v, v_scale, accumulate=accumulate))

    # -- loads

    def _dims(
        self,
        side: _Operand,
        batch: list[Offset],
        free: tuple[Offset, int, bool],
        k: list[tuple[Offset, int]],
    ) -> list[tuple[Offset, int, int, bool]]:
        """Subview dims of ``side``'s data (MX: with K split into [rows, 8]): batch dims
        fixed, the free dim ``free = (offset, size, keep)``, the K dims ``k``."""
        dims: list[tuple[Offset, int, int, bool]] = []
        for d in range(side.rank):
            if d in side.batch:
                dims.append((batch[side.batch.index(d)], 1, 1, False))
            elif d == side.free:
                dims.append((free[0], free[1], 1, free[2]))
            else:
                dims.extend((o, n, 1, True) for o, n in k)
        return dims

    def load(
        self,
        side: _Operand,
        data: SSAValue,
        batch: list[Offset],
        tile: SSAValue,
        quadrants: SSAValue | None,
        f0: Offset,
        ft: int,
        k0: Offset,
        kt: int,
    ) -> None:
        """DMA ``side``'s K tile x free tile into ``tile`` [K partitions, free] (and for
        MX its scale rows into the quadrant-layout scale tile ``quadrants``); ``k0``, ``kt``
        count scale rows of 8 x4 words for MX, elements otherwise. K-major: one DMA (per
        scale run); K-minor: a loop over the free index, one column per iteration."""
        e = self.e
        k_dims = [(k0, kt), (0, WORDS_PER_BLOCK)] if self.mx else [(k0, kt)]
        partitions = kt * (WORDS_PER_BLOCK if self.mx else 1)
        runs = _scale_runs(kt) if quadrants is not None else []

        def dmas(free: tuple[Offset, int, bool], col: Offset) -> None:
            width = free[1]
            dst = e.view(tile, [(0, partitions, 1, True), (col, width, 1, True)])
            e.dma(dst, e.view(data, self._dims(side, batch, free, k_dims)))
            for first, count, per in runs:
                assert quadrants is not None
                assert side.scale is not None
                rows = [(e.add(k0, first), count * per)]
                slots = _scale_slots(e, quadrants, first, count, per, col, width)
                e.dma(slots, e.view(side.scale, self._dims(side, batch, free, rows)))

        if side.k_major:
            dmas((f0, ft, True), 0)
        else:
            name = "m" if side.side == "lhs" else "n"
            e.loop(0, ft, 1, name, lambda f: dmas((e.add(f0, f), 1, False), f))
