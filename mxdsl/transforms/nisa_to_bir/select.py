"""``nisa-select``: the instruction-selection half of ``lower-nisa-to-bir``.

Every nisa op becomes bir instructions over access patterns (``#bir.ap``), chosen through
a table from nisa op class to a selection function (:mod:`mxdsl.lowerings`: mxdsl's
entries are the ``select_*`` functions below; an extension adds its own nisa ops'). The
views (``memref.subview`` / ``expand_shape`` / ``collapse_shape`` / ``cast``) fold into
the patterns (:mod:`.patterns`); on chip, linear element ``L`` of a buffer with ``F``
elements per partition is partition ``L // F``, element ``L % F``, from the address
``nisa-allocate`` recorded. Loop-dependent offsets become the run-time ``partition`` /
``offset`` operands of ``bir.dma`` (``arith`` on ``index``). A DMA whose on-chip side is
not one arithmetic progression of partitions (the quadrant view of an MX scale tile) is
split into several DMAs, statically. What has no bir equivalent yet is refused with a
located ``not supported by lower-nisa-to-bir yet`` diagnostic.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.loop_invariant_code_motion import move_loop_invariant_code
from xdsl.utils.exceptions import DiagnosticException

from mxdsl import lowerings
from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects import bir, nisa
from mxdsl.dialects.bir import AccessPatternAttr, Memory
from mxdsl.lowerings import Lowerings
from mxdsl.targets import DEFAULT_TARGET, Target, current_target, get_target
from mxdsl.transforms.nisa_to_bir.allocate import ADDRESS_ATTR, check_kernel, needs_lowering
from mxdsl.transforms.nisa_to_bir.patterns import (
    KEPT_NISA,
    MAX_UNROLLED_DMAS,
    PASS_NAME,
    VIEW_OPS,
    Refusal,
    Side,
    Views,
    build_ap,
    hbm_merge,
    memory_of,
    memref_of,
    name_of,
    pairs_of,
    refine,
    split_inner,
)


class Selection:
    """The instruction selection of one kernel: each nisa op replaced by the bir
    instruction its table entry selects, over the access patterns of its operands."""

    def __init__(
        self,
        function: func.FuncOp,
        target: Target = DEFAULT_TARGET,
        table: dict[type[Operation], lowerings.Registration] | None = None,
    ):
        self.table = selection_table().selections if table is None else table
        self.function = function
        self.target = target
        self.views = Views()
        self.addresses: dict[SSAValue, int] = {}
        self.constants: dict[int, SSAValue] = {}
        self.anchor: Operation | None = None
        self.current: Operation | None = None  # the nisa op being lowered
        self.replacements: dict[Operation, Operation] = {}
        self.pending: list[tuple[str, SSAValue]] = []  # its run-time keys so far
        self.runtime_cache: dict[tuple[Operation, tuple[tuple[SSAValue, int], ...]], SSAValue] = {}

    def refuse(self, op: Operation, message: str) -> OpDiagnostic:
        return OpDiagnostic(op, f"{PASS_NAME}: {message}")

    def run(self) -> None:
        function = self.function
        if function.is_declaration:
            return
        check_kernel(function)
        self.reuse_constants()
        self.read_addresses()
        for op in list(function.walk()):
            if op.dialect_name() == "nisa" and not isinstance(op, (*KEPT_NISA, *VIEW_OPS)):
                try:
                    self.lower(op)
                except Refusal as err:
                    raise self.refuse(op, str(err)) from None
        self.clean_up()

    def reuse_constants(self) -> None:
        """The index constants at the top of the entry block serve the run-time offsets."""
        for op in self.function.body.blocks[0].ops:
            if not isinstance(op, arith.ConstantOp):
                break
            attr = op.value
            if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType):
                self.constants.setdefault(attr.value.data, op.result)
                self.anchor = op

    def read_addresses(self) -> None:
        """The address of every on-chip buffer, from ``nisa-allocate``'s attribute."""
        for op in self.function.walk():
            if not isinstance(op, memref.AllocOp) or memory_of(memref_of(op.memref)) == Memory.HBM:
                continue
            address = op.attributes.get(ADDRESS_ATTR)
            if not isinstance(address, IntegerAttr):
                raise self.refuse(
                    op,
                    f"the on-chip buffer {name_of(op.memref)} has no address; "
                    "run nisa-allocate first",
                )
            self.addresses[op.memref] = address.value.data

    # ------------------------------------------------------------- patterns

    def side(self, value: SSAValue) -> Side:
        view = self.views.of(value)
        if view.memory == Memory.HBM:
            return Side(view, 1, 0)
        shape = memref_of(view.root).get_shape()
        return Side(view, math.prod(shape[1:]), self.addresses[view.root])

    def compute_ap(self, value: SSAValue, role: str) -> AccessPatternAttr:
        """The pattern of an on-chip operand of a compute instruction: consecutive
        partitions, dim 0 of the view = the partitions (as nisa reads it). A
        loop-dependent view is the pattern at its static offset plus run-time keys for
        ``role`` (:meth:`record_runtime`)."""
        side = self.side(value)
        view = side.view
        if view.memory == Memory.HBM:
            raise Refusal(f"{role} is in hbm")
        ap = build_ap(side, view.offset, view.dims)
        shape = memref_of(value).get_shape()
        partitions = shape[0] if shape else 1
        if ap is None or ap.ps != 1 or ap.np != partitions:
            raise Refusal(
                f"{role} (dims {list(view.dims)} of {name_of(view.root)}) is not one pattern over "
                f"its {partitions} consecutive partitions; not supported by {PASS_NAME} yet"
            )
        self.record_runtime(side, role)
        return ap

    def record_runtime(self, side: Side, role: str) -> None:
        """The loop-dependent part of a view as run-time keys of the instruction being
        built: on chip, a term moving whole partitions is ``role:partition`` (in
        partitions), any other ``role`` (in bytes); in hbm always bytes."""
        view = side.view
        if not view.terms:
            return
        assert self.current is not None
        if view.memory == Memory.HBM:
            partition_terms: list[tuple[SSAValue, int]] = []
            byte_terms = [(v, c * view.dtype.size) for v, c in view.terms]
        else:
            f = side.per_partition
            for _, coefficient in view.terms:
                if 0 < coefficient % f < coefficient:
                    raise Refusal(
                        f"{role}'s loop-dependent offset (x {coefficient} elements) moves "
                        "across partitions unevenly"
                    )
            partition_terms = [(v, c // f) for v, c in view.terms if c % f == 0]
            byte_terms = [(v, c * view.dtype.size) for v, c in view.terms if c % f]
        for key, terms in ((role, byte_terms), (role + bir.PARTITION_SUFFIX, partition_terms)):
            total = self.runtime(terms, self.current)
            if total is not None:
                self.pending.append((key, total))

    def runtime(self, terms: Sequence[tuple[SSAValue, int]], before: Operation) -> SSAValue | None:
        """``sum(coefficient * value)`` as index arithmetic before ``before`` (once per op
        for the same terms)."""
        key = (before, tuple(terms))
        if (known := self.runtime_cache.get(key)) is not None:
            return known
        total = self._runtime(terms, before)
        if total is not None:
            self.runtime_cache[key] = total
        return total

    def _runtime(self, terms: Sequence[tuple[SSAValue, int]], before: Operation) -> SSAValue | None:
        total: SSAValue | None = None
        for value, coefficient in terms:
            term = value
            if coefficient != 1:
                mul = arith.MuliOp(value, self.constant(coefficient))
                mul.location = before.location
                Rewriter.insert_op(mul, InsertPoint.before(before))
                term = mul.result
            if total is None:
                total = term
            else:
                add = arith.AddiOp(total, term)
                add.location = before.location
                Rewriter.insert_op(add, InsertPoint.before(before))
                total = add.result
        return total

    def constant(self, value: int) -> SSAValue:
        if (known := self.constants.get(value)) is None:
            op = arith.ConstantOp.from_int_and_width(value, IndexType())
            op.result.name_hint = f"c{value}"
            if self.current is not None:  # the first op that needed it
                op.location = self.current.location
            entry = self.function.body.blocks[0]
            if self.anchor is not None:
                entry.insert_op_after(op, self.anchor)
            elif entry.first_op is not None:
                entry.insert_op_before(op, entry.first_op)
            else:
                entry.add_op(op)
            self.anchor = op
            known = self.constants[value] = op.result
        return known

    # ------------------------------------------------------------- ops

    def lower(self, op: Operation) -> None:
        self.current, self.pending = op, []
        new = self.select(op)
        if self.pending and not bir.runtime_keys(new):
            assert not new.operands, f"{new.name} takes its run-time keys in its constructor"
            new.properties.update(bir.runtime_properties(self.pending))
            new.operands = bir.runtime_values(self.pending)
        new.location = op.location
        self.replacements[op] = new
        Rewriter.replace_op(op, new)

    def take_runtime(self) -> list[tuple[str, SSAValue]]:
        """The run-time keys recorded so far (for constructors that take them)."""
        pending, self.pending = self.pending, []
        return pending

    def select(self, op: Operation) -> Operation:
        """The bir instruction of one nisa op, from its table entry (a ``bir.dma`` split
        into pieces is inserted here and the last piece returned). An extension's
        selection that raises, or returns an instruction its verifier refuses, is
        reported at the op as that extension's fault."""
        found = self.table.get(type(op))
        if found is None:
            raise Refusal(f"{op.name} is not supported by {PASS_NAME} yet")
        if not found.is_extension:
            return found.function(self, op)
        try:
            new = found.function(self, op)
            new.verify()
        except (Refusal, OpDiagnostic):
            raise
        except Exception as err:
            raise Refusal(
                f"the instruction selection of {found.owner} failed: {type(err).__name__}: {err}"
            ) from err
        return new

    def dma_side(self, value: SSAValue, role: str) -> tuple[AccessPatternAttr, SSAValue | None]:
        """One whole pattern of an hbm / sbuf operand of a DMA-engine instruction (static
        part; run-time keys recorded) and its tensor (hbm)."""
        side = self.side(value)
        if side.view.memory == Memory.PSUM:
            raise Refusal(f"{role} is in psum; a DMA engine reads hbm and sbuf")
        ap = build_ap(side, side.view.offset, side.view.dims)
        if ap is None:
            raise Refusal(
                f"{role} (dims {list(side.view.dims)} of {name_of(side.view.root)}) is not one "
                f"access pattern; not supported by {PASS_NAME} yet"
            )
        self.record_runtime(side, role)
        return ap, side.view.root if side.view.memory == Memory.HBM else None

    def dma_compute(self, op: nisa.DmaComputeOp) -> bir.DmaComputeOp:
        dst, dst_tensor = self.dma_side(op.dst, "dst")
        sources = [self.dma_side(value, f"src{i}") for i, value in enumerate(op.srcs)]
        return bir.DmaComputeOp(
            dst,
            [ap for ap, _ in sources],
            dst_tensor=dst_tensor,
            src_tensors=[t for _, t in sources if t is not None],
            runtime=self.take_runtime(),
        )

    def register_load(self, op: nisa.RegisterLoadOp) -> bir.RegisterLoadOp:
        src, tensor = self.dma_side(op.src, "src")
        return bir.RegisterLoadOp(
            src, op.result.type, src_tensor=tensor, runtime=self.take_runtime()
        )

    def tensor_reduce(self, op: nisa.TensorReduceOp) -> bir.TensorReduceOp:
        """nisa's reduced trailing dims as the innermost pairs of the src pattern (whose
        pairs may merge contiguous dims: a pair across the kept / reduced boundary is
        split there); both interpreters fold the reduced elements in the same row-major
        order (``mxdsl.numerics.reduce``)."""
        data = self.compute_ap(op.data, "src")
        shape = memref_of(op.data).get_shape()
        reduced = math.prod(shape[len(shape) - len(op.get_axes()) :])
        split = split_inner(data.get_pairs(), reduced)
        if split is None or len(split[0]) > bir.MAX_PATTERN_PAIRS:
            raise Refusal(
                f"the reduced dims of data ({reduced} elements per kept position) are not "
                f"the innermost pairs of one pattern; not supported by {PASS_NAME} yet"
            )
        pairs, inner = split
        return bir.TensorReduceOp(
            self.compute_ap(op.dst, "dst"),
            op.op,
            data.with_pairs(pairs),
            inner,
            negate=op.negate is not None,
        )

    def matmul_dst(self, value: SSAValue) -> AccessPatternAttr:
        ap = self.compute_ap(value, "dst")
        low, high = ap.byte_range()
        bank = bir.PSUM_BANK_BYTES
        if ap.memory == Memory.PSUM and low // bank != (high - 1) // bank:
            raise Refusal(
                f"the accumulator {name_of(self.views.of(value).root)} view touches bytes "
                f"[{low}, {high}) of each psum partition, across a {bank}-byte bank boundary; "
                "a matmul writes inside one PSUM bank (split the matmul per bank)"
            )
        return ap

    def scalar(self, value: SSAValue, role: str, keep_type: bool = False) -> Attribute:
        """A scalar-or-column operand: an immediate (from ``arith.constant``; an ALU
        operand as f32, a predicated copy's value in its own type) or a column."""
        if isinstance(value.type, MemRefType):
            return self.compute_ap(value, role)
        owner = value.owner
        if isinstance(owner, arith.ConstantOp):
            attr = owner.value
            if keep_type and isinstance(attr, FloatAttr | IntegerAttr):
                return attr
            if isinstance(attr, FloatAttr) and not isinstance(attr.type, Float32Type):
                return FloatAttr(attr.value.data, Float32Type())
            if isinstance(attr, FloatAttr | IntegerAttr):
                return attr
        raise Refusal(
            f"{role} is a run-time scalar; bir takes immediates (arith.constant) or column "
            f"tiles, not supported by {PASS_NAME} yet"
        )

    def dma(self, op: nisa.DmaCopyOp) -> bir.DmaOp:
        dst, src = self.side(op.dst), self.side(op.src)
        for role, side in (("dst", dst), ("src", src)):
            if side.view.memory == Memory.PSUM:
                raise Refusal(f"{role} is in psum; a DMA moves hbm and sbuf")
            for _, coefficient in side.view.terms:
                if (
                    side.view.memory != Memory.HBM
                    and 0 < coefficient % side.per_partition < coefficient
                ):
                    raise Refusal(
                        f"{role}'s loop-dependent offset (x {coefficient} elements) moves "
                        "across partitions unevenly"
                    )
        pieces = self.dma_pieces(dst, src)
        if pieces is None:
            raise Refusal(
                f"cannot express this copy between dims {list(dst.view.dims)} and "
                f"{list(src.view.dims)} as access patterns"
            )
        runtime: dict[str, dict[str, SSAValue | None]] = {}
        for role, side in (("dst", dst), ("src", src)):
            view = side.view
            if view.memory == Memory.HBM:
                partition_terms: list[tuple[SSAValue, int]] = []
                byte_terms = [(v, c * view.dtype.size) for v, c in view.terms]
            else:
                f = side.per_partition
                partition_terms = [(v, c // f) for v, c in view.terms if c % f == 0]
                byte_terms = [(v, c * view.dtype.size) for v, c in view.terms if c % f]
            runtime[role] = {
                "partition": self.runtime(partition_terms, op),
                "offset": self.runtime(byte_terms, op),
            }
        made: list[bir.DmaOp] = []
        for dst_ap, src_ap in pieces:
            piece = bir.DmaOp(
                dst_ap,
                src_ap,
                dst_tensor=dst.view.root if dst.view.memory == Memory.HBM else None,
                src_tensor=src.view.root if src.view.memory == Memory.HBM else None,
                dst_partition=runtime["dst"]["partition"],
                dst_offset=runtime["dst"]["offset"],
                src_partition=runtime["src"]["partition"],
                src_offset=runtime["src"]["offset"],
            )
            piece.location = op.location
            made.append(piece)
        for piece in made[:-1]:
            Rewriter.insert_op(piece, InsertPoint.before(op))
        return made[-1]

    def indirect_dma(self, op: nisa.DmaCopyOp) -> bir.DmaIndirectOp:
        """A gather (``src`` indexed) or scatter (``dst`` indexed) as one
        ``bir.dma_indirect``: the indexed hbm side's pattern keeps the indirect dim as a
        pair of its own (its num: the other side's size there, its bound: the indexed
        view's), the other dims merged around it; the other side is one pattern in the
        same row-major order; the index vector one element per partition. Loop-dependent
        views become run-time keys (``dst``, ``src``, ``index``)."""
        scatter = op.dst_index is not None
        index = op.dst_index if scatter else op.src_index
        assert index is not None
        indexed_value, direct_value = (op.dst, op.src) if scatter else (op.src, op.dst)
        indexed, direct = self.side(indexed_value), self.side(direct_value)
        dim = op.indirect_dim.value.data
        dims, other_dims = indexed.view.dims, direct.view.dims
        if len(dims) != len(other_dims):
            raise Refusal(
                f"the dims of the two sides ({list(dims)} and {list(other_dims)}) do not "
                f"correspond one to one; not supported by {PASS_NAME} yet"
            )
        bound, stride = dims[dim]
        num = other_dims[dim][0]
        before = hbm_merge(dims[:dim])
        merged = [*before, (num, stride), *hbm_merge(dims[dim + 1 :])]
        direct_ap = build_ap(direct, direct.view.offset, other_dims)
        if len(merged) > bir.MAX_PATTERN_PAIRS or direct_ap is None:
            raise Refusal(
                f"the indirect dma_copy between dims {list(dims)} and {list(other_dims)} is "
                f"not one access pattern per side; not supported by {PASS_NAME} yet"
            )
        dtype = indexed.view.dtype
        indexed_ap = bir.hbm_ap(pairs_of(merged), dtype, indexed.view.offset * dtype.size)
        dst_ap, src_ap = (indexed_ap, direct_ap) if scatter else (direct_ap, indexed_ap)
        dst_side, src_side = (indexed, direct) if scatter else (direct, indexed)
        self.record_runtime(dst_side, "dst")
        self.record_runtime(src_side, "src")
        return bir.DmaIndirectOp(
            dst_ap,
            src_ap,
            self.compute_ap(index, "index"),
            indirect_dim=len(before),
            bound=bound,
            scatter=scatter,
            oob_mode=op.oob_mode.data,
            dst_tensor=dst_side.view.root if dst_side.view.memory == Memory.HBM else None,
            src_tensor=src_side.view.root if src_side.view.memory == Memory.HBM else None,
            runtime=self.take_runtime(),
        )

    def dma_pieces(
        self, dst: Side, src: Side
    ) -> list[tuple[AccessPatternAttr, AccessPatternAttr]] | None:
        """One (dst, src) pattern pair, or the fewest static pieces (unrolling the
        outermost dims of a common refinement) that each are one pattern per side."""
        whole = (
            build_ap(dst, dst.view.offset, dst.view.dims),
            build_ap(src, src.view.offset, src.view.dims),
        )
        if whole[0] is not None and whole[1] is not None:
            return [(whole[0], whole[1])]
        refined = refine(dst.view.dims, src.view.dims)
        if refined is None:
            return None
        for unrolled in range(1, len(refined) + 1):
            outer, inner = refined[:unrolled], refined[unrolled:]
            count = math.prod(n for n, _, _ in outer)
            if count > MAX_UNROLLED_DMAS:
                return None
            pieces: list[tuple[AccessPatternAttr, AccessPatternAttr]] = []
            for index in itertools.product(*(range(n) for n, _, _ in outer)):
                d_off = dst.view.offset + sum(
                    i * s for i, (_, s, _) in zip(index, outer, strict=True)
                )
                s_off = src.view.offset + sum(
                    i * s for i, (_, _, s) in zip(index, outer, strict=True)
                )
                d_ap = build_ap(dst, d_off, [(n, s) for n, s, _ in inner])
                s_ap = build_ap(src, s_off, [(n, s) for n, _, s in inner])
                if d_ap is None or s_ap is None:
                    break
                pieces.append((d_ap, s_ap))
            else:
                return pieces
        return None

    # ------------------------------------------------------------- clean up

    def clean_up(self) -> None:
        """Erase the on-chip buffers and the views (now unused); fold the boundary casts."""
        ops = list(self.function.walk())
        for op in reversed(ops):
            if isinstance(op, memref.DeallocOp) and memory_of(memref_of(op.memref)) != Memory.HBM:
                Rewriter.erase_op(op)
        for op in reversed(ops):
            if isinstance(op, (*VIEW_OPS, memref.AllocOp)) and not op.results[0].uses:
                if isinstance(op, memref.AllocOp) and memory_of(memref_of(op.memref)) == Memory.HBM:
                    continue
                Rewriter.erase_op(op)
        for op in [o for o in self.function.walk() if isinstance(o, memref.CastOp)]:
            source = op.source
            if isinstance(source.owner, memref.AllocOp):
                alloc = source.owner
                new = memref.AllocOp([], [], op.dest.type)
                new.results[0].name_hint = source.name_hint
                new.location = alloc.location
                Rewriter.replace_op(alloc, new)
                op.dest.replace_all_uses_with(new.results[0])
                Rewriter.erase_op(op)


# ------------------------------------------------------------- the table


def select_dma_copy(selection: Selection, op: nisa.DmaCopyOp) -> Operation:
    if op.dst_index is None and op.src_index is None:
        return selection.dma(op)
    return selection.indirect_dma(op)


def select_memset(selection: Selection, op: nisa.MemsetOp) -> Operation:
    return bir.MemsetOp(selection.compute_ap(op.dst, "dst"), op.value.value.data)


def select_tensor_copy(selection: Selection, op: nisa.TensorCopyOp) -> Operation:
    return bir.TensorCopyOp(
        selection.compute_ap(op.dst, "dst"), selection.compute_ap(op.src, "src")
    )


def select_nc_matmul(selection: Selection, op: nisa.NcMatmulOp) -> Operation:
    return bir.MatmultOp(
        selection.matmul_dst(op.dst),
        selection.compute_ap(op.stationary, "stationary"),
        selection.compute_ap(op.moving, "moving"),
        accumulate=op.accumulate is not None,
    )


def select_nc_matmul_mx(selection: Selection, op: nisa.NcMatmulMxOp) -> Operation:
    return bir.MatmultMxOp(
        selection.matmul_dst(op.dst),
        selection.compute_ap(op.stationary, "stationary"),
        selection.compute_ap(op.stationary_scale, "stationary_scale"),
        selection.compute_ap(op.moving, "moving"),
        selection.compute_ap(op.moving_scale, "moving_scale"),
        accumulate=op.accumulate is not None,
    )


def select_quantize_mx(selection: Selection, op: nisa.QuantizeMxOp) -> Operation:
    return bir.QuantizeMxOp(
        selection.compute_ap(op.dst, "dst"),
        selection.compute_ap(op.dst_scale, "dst_scale"),
        selection.compute_ap(op.src, "src"),
    )


def select_tensor_tensor(selection: Selection, op: nisa.TensorTensorOp) -> Operation:
    return bir.TensorTensorOp(
        selection.compute_ap(op.dst, "dst"),
        op.op,
        selection.compute_ap(op.data1, "in0"),
        selection.compute_ap(op.data2, "in1"),
    )


def select_tensor_scalar(selection: Selection, op: nisa.TensorScalarOp) -> Operation:
    return bir.TensorScalarOp(
        selection.compute_ap(op.dst, "dst"),
        selection.compute_ap(op.data, "src"),
        op.op0,
        selection.scalar(op.operand0, "operand0"),
        op.op1,
        None if op.operand1 is None else selection.scalar(op.operand1, "operand1"),
        reverse0=op.reverse0 is not None,
        reverse1=op.reverse1 is not None,
    )


def select_activation(selection: Selection, op: nisa.ActivationOp) -> Operation:
    return bir.ActivationOp(
        selection.compute_ap(op.dst, "dst"),
        op.op,
        selection.compute_ap(op.data, "src"),
        scale=None if op.scale is None else selection.scalar(op.scale, "scale"),
        bias=None if op.bias is None else selection.scalar(op.bias, "bias"),
    )


def select_nc_transpose(selection: Selection, op: nisa.NcTransposeOp) -> Operation:
    return bir.TransposeOp(
        selection.compute_ap(op.dst, "dst"),
        selection.compute_ap(op.data, "src"),
        None if op.engine is None else op.engine.data,
    )


def select_tensor_reduce(selection: Selection, op: nisa.TensorReduceOp) -> Operation:
    return selection.tensor_reduce(op)


def select_iota(selection: Selection, op: nisa.IotaOp) -> Operation:
    return bir.IotaOp(
        selection.compute_ap(op.dst, "dst"),
        op.pattern.get_pairs(),
        op.offset.value.data,
        op.channel_multiplier.value.data,
    )


def select_scalar_tensor_tensor(selection: Selection, op: nisa.ScalarTensorTensorOp) -> Operation:
    return bir.ScalarTensorTensorOp(
        selection.compute_ap(op.dst, "dst"),
        selection.compute_ap(op.data, "src"),
        op.op0,
        selection.scalar(op.operand0, "operand0"),
        op.op1,
        selection.compute_ap(op.operand1, "in1"),
        reverse0=op.reverse0 is not None,
        reverse1=op.reverse1 is not None,
    )


def select_tensor_copy_predicated(
    selection: Selection, op: nisa.TensorCopyPredicatedOp
) -> Operation:
    return bir.TensorCopyPredicatedOp(
        selection.compute_ap(op.dst, "dst"),
        selection.scalar(op.src, "src", keep_type=True),
        selection.compute_ap(op.predicate, "predicate"),
        reverse_predicate=op.reverse_predicate is not None,
    )


def select_dma_compute(selection: Selection, op: nisa.DmaComputeOp) -> Operation:
    return selection.dma_compute(op)


def select_send_recv(selection: Selection, op: nisa.SendRecvOp) -> Operation:
    dst, src = selection.compute_ap(op.dst, "dst"), selection.compute_ap(op.src, "src")
    return bir.SendRecvOp(
        dst,
        src,
        op.send_to,
        op.recv_from,
        op.pipe_id.value.data,
        runtime=selection.take_runtime(),
    )


def select_core_barrier(selection: Selection, op: nisa.CoreBarrierOp) -> Operation:
    view = selection.views.of(op.data)
    if view.memory != Memory.HBM:
        raise Refusal("a core_barrier's tensor must be in hbm")
    return bir.CoreBarrierOp(view.root, op.get_cores())


def select_register_load(selection: Selection, op: nisa.RegisterLoadOp) -> Operation:
    return selection.register_load(op)


def register(lowerings: Lowerings) -> None:
    """mxdsl's instruction selection, one entry per nisa op."""
    lowerings.selection(nisa.DmaCopyOp, select_dma_copy)
    lowerings.selection(nisa.MemsetOp, select_memset)
    lowerings.selection(nisa.TensorCopyOp, select_tensor_copy)
    lowerings.selection(nisa.NcMatmulOp, select_nc_matmul)
    lowerings.selection(nisa.NcMatmulMxOp, select_nc_matmul_mx)
    lowerings.selection(nisa.QuantizeMxOp, select_quantize_mx)
    lowerings.selection(nisa.TensorTensorOp, select_tensor_tensor)
    lowerings.selection(nisa.TensorScalarOp, select_tensor_scalar)
    lowerings.selection(nisa.ActivationOp, select_activation)
    lowerings.selection(nisa.NcTransposeOp, select_nc_transpose)
    lowerings.selection(nisa.TensorReduceOp, select_tensor_reduce)
    lowerings.selection(nisa.IotaOp, select_iota)
    lowerings.selection(nisa.ScalarTensorTensorOp, select_scalar_tensor_tensor)
    lowerings.selection(nisa.TensorCopyPredicatedOp, select_tensor_copy_predicated)
    lowerings.selection(nisa.DmaComputeOp, select_dma_compute)
    lowerings.selection(nisa.SendRecvOp, select_send_recv)
    lowerings.selection(nisa.CoreBarrierOp, select_core_barrier)
    lowerings.selection(nisa.RegisterLoadOp, select_register_load)


def selection_table() -> lowerings.Tables:
    """mxdsl's selections, then the extensions' (``mxdsl.lowerings``)."""
    return lowerings.cached_tables(register)


def check_selections(tables: lowerings.Tables) -> None:
    """A registration of a nisa op mxdsl (or another extension) already selects is an
    error naming both."""
    if conflicts := tables.conflicts.get("selections"):
        raise DiagnosticException(f"{PASS_NAME}: {conflicts[0]}")


def select_kernel(function: func.FuncOp, target: Target) -> dict[Operation, Operation]:
    """``nisa-select`` on one kernel: its nisa ops replaced by bir instructions, the index
    arithmetic tidied; each lowered nisa op's bir instruction."""
    tables = selection_table()
    check_selections(tables)
    selection = Selection(function, target, tables.selections)
    selection.run()
    tidy_index_arithmetic(function)
    return selection.replacements


def tidy_index_arithmetic(function: func.FuncOp) -> None:
    """The index arithmetic the selection emits per instruction (each run-time offset
    computed where it is used) merged where equal (CSE) and hoisted out of the loops it
    does not depend on (LICM): the same program, with a third of the operations a
    simulator steps through per iteration of a MoE kernel's loops. Only side-effect-free
    operations move or merge; no bir instruction does."""
    cse(function)
    loops = [op for op in function.walk() if isinstance(op, scf.ForOp)]
    for loop in reversed(loops):  # innermost first, so hoisted code can move further out
        move_loop_invariant_code(loop)
    cse(function)


@dataclass(frozen=True)
class NisaSelectPass(ModulePass):
    """The instruction-selection half of ``lower-nisa-to-bir``: every nisa op of every
    kernel allocated by ``nisa-allocate`` becomes bir instructions (module docstring).
    Its diagnostics are ``lower-nisa-to-bir``'s."""

    name = "nisa-select"

    target: str | None = None
    """``trn3`` / ``trn2``; unset: the tool's ``--target`` (:func:`current_target`)."""

    def __post_init__(self) -> None:
        if self.target is not None:
            get_target(self.target)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = current_target() if self.target is None else get_target(self.target)
        for function in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            if needs_lowering(function):
                select_kernel(function, target)
