"""The driver of ``lower-hlo-to-nisa``: the pass, the function boundary, the value map's
structure ops (tuples, ``get_tuple_element``, ``return``) and the dispatch of every other
op through the lowering table (:mod:`mxdsl.lowerings`): an op class, or for
``hlo.custom_call`` the call target, to the lowering of its family module. An op with
no entry is refused with a located diagnostic. An extension's lowering that raises, or
emits IR its verifiers refuse, is reported at the op as that extension's fault.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    TensorType,
    TupleType,
    i1,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from mxdsl import lowerings
from mxdsl.contract.mx import BLOCK_SCALED_DOT, QUANTIZE_MX
from mxdsl.diagnostics import OpDiagnostic
from mxdsl.dialects import nisa
from mxdsl.dialects.hlo import CustomCallOp, GetTupleElementOp, TupleOp
from mxdsl.transforms.hlo_to_nisa import (
    constants,
    elementwise,
    functions,
    layout,
    matmul,
    quantize,
    reduce,
)
from mxdsl.transforms.hlo_to_nisa.common import (
    PASS_NAME,
    PMAX,
    UI8,
    Refusal,
    buffer_element,
    hbm_type,
)
from mxdsl.transforms.hlo_to_nisa.lowering import FunctionLowering


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
        tables = lowering_tables()
        for table in ("ops", "custom_calls"):
            if conflicts := tables.conflicts.get(table):
                raise DiagnosticException(f"{PASS_NAME}: {conflicts[0]}")
        for function in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            if _needs_lowering(function):
                _Driver(self, function, tables).run()


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


I1_ARGS_ATTR = "mx.i1_args"
"""Set on a kernel that takes ``i1`` tensors (``ui8`` 0 / 1 buffers below hlo): their
mx-run keys, so ``mx-run --random-inputs`` draws them as truth values (0 / 1) as at the
StableHLO and hlo levels (``docs/mx-run.md``, "i1")."""


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


def _is_i1(t: TensorType[Attribute]) -> bool:
    return t.get_element_type() == i1


class _Driver:
    """Lowers one ``func.func``: a new body over HBM memrefs replaces the old one."""

    def __init__(
        self, options: LowerHloToNisaPass, function: func.FuncOp, tables: lowerings.Tables
    ):
        self.options = options
        self.function = function
        self.tables = tables

    def refuse(self, op: Operation, message: str) -> OpDiagnostic:
        return OpDiagnostic(op, f"{PASS_NAME}: {message}")

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
        self.lowering = lowering = FunctionLowering(self.options, function, entry)
        for old_arg in old_block.args:
            lowering.values[old_arg] = _regroup(old_arg.type, new_args, old_arg.name_hint)
        for op in old_block.ops:
            lowering.builder.location = op.location  # what lowering op emits carries it
            self.lower_op(op)
        lowering.builder.location = function.location
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
        truth = [key for key, t in arg_leaves if isinstance(t, TensorType) and _is_i1(t)]
        if truth:
            function.attributes[I1_ARGS_ATTR] = ArrayAttr([StringAttr(k) for k in truth])

    def boundary_type(self, function: func.FuncOp, key: str, t: Attribute) -> Attribute:
        if isinstance(t, TensorType):
            if any(d < 0 for d in t.get_shape()):
                raise self.refuse(
                    function, f"{key} of @{function.sym_name.data} has a dynamic shape {t}"
                )
            if t.get_element_type() == i1:  # a 0 / 1 byte, as on chip
                return nisa.tile_type(t.get_shape(), UI8, nisa.MemorySpace.HBM)
            return hbm_type(t)  # pyright: ignore[reportUnknownArgumentType]
        return t

    def lower_op(self, op: Operation) -> None:
        lowering = self.lowering
        try:
            if isinstance(op, GetTupleElementOp):
                source = lowering.values[op.operand]
                assert isinstance(source, tuple)
                lowering.bind(op.result, source[op.index.value.data])
            elif isinstance(op, TupleOp):
                lowering.bind(op.result, tuple(lowering.lowered(v) for v in op.val))
            elif isinstance(op, func.ReturnOp):
                self.lower_return(op)
            else:
                self.dispatch(op)
        except Refusal as err:
            raise lowering.refuse(op, str(err)) from None

    def entry(self, op: Operation) -> lowerings.Registration:
        """The table entry that lowers ``op``, or a refusal saying why there is none."""
        if isinstance(op, CustomCallOp):
            target = op.target
            if (found := self.tables.custom_calls.get(target)) is not None:
                return found
            if target == QUANTIZE_MX:
                raise Refusal("QuantizeMX is not legalized; run legalize-quantize-mx first")
            if target == BLOCK_SCALED_DOT:
                raise Refusal(
                    f"{BLOCK_SCALED_DOT} is not legalized; run legalize-scaled-matmul first"
                )
            raise Refusal(f"no lowering for custom call target {target!r}")
        if (found := self.tables.ops.get(type(op))) is not None:
            return found
        if op.dialect_name() == "stablehlo":
            raise Refusal(_stablehlo_refusal(op, self.tables))
        raise Refusal(f"no lowering for {op.name}")

    def dispatch(self, op: Operation) -> None:
        found = self.entry(op)
        if not found.is_extension:
            found.function(self.lowering, op)
            return
        builder = self.lowering.builder
        with builder.recording() as emitted:
            try:
                found.function(self.lowering, op)
            except (Refusal, OpDiagnostic):
                raise
            except Exception as err:
                raise self.lowering.refuse(
                    op,
                    f"the lowering of {found.owner} raised {type(err).__name__}: {err} "
                    f"(report it to the maintainers of '{_distribution(found)}')",
                ) from err
        for new in emitted:
            try:
                new.verify()
            except VerifyException as err:
                raise self.lowering.refuse(
                    op,
                    f"the lowering of {found.owner} emitted an invalid '{new.name}': {err} "
                    f"(report it to the maintainers of '{_distribution(found)}')",
                ) from None

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
                raise Refusal("a tuple value is returned where a tensor is expected")
            if isinstance(t, TensorType):  # x4 data goes out as ui32
                mapped = self.lowering.builder.cast(mapped, buffer_element(t.get_element_type()))
            results.append(mapped)

        for value in op.arguments:
            flatten(self.lowering.lowered(value), value.type)
        self.lowering.builder.emit(func.ReturnOp(*results))


def _stablehlo_refusal(op: Operation, tables: lowerings.Tables) -> str:
    """Why a StableHLO op that import-stablehlo kept has no nisa lowering: the StableHLO
    ops the table does lower, by name."""
    lowered = sorted(
        name.split(".", 1)[1]
        for name in (getattr(t, "name", "") for t in tables.ops)
        if name.startswith("stablehlo.")
    )
    return (
        f"no lowering for {op.name}: of StableHLO, lower-hlo-to-nisa lowers "
        f"{' '.join(lowered)} (docs/lowering.md); compute it outside the kernel and pass "
        "the result as an argument"
    )


def _distribution(found: lowerings.Registration) -> str:
    from mxdsl.extensions import distribution_name

    assert found.entry_point is not None
    return distribution_name(found.entry_point)


BUILTIN: tuple[lowerings.Registrar, ...] = (
    constants.register,
    quantize.register,
    matmul.register,
    layout.register,
    elementwise.register,
    functions.register,
    reduce.register,
)
"""mxdsl's own lowerings, one registrar per family module."""


def lowering_tables() -> lowerings.Tables:
    """The table the pass dispatches through: mxdsl's families, then the extensions'."""
    return lowerings.cached_tables(*BUILTIN)
