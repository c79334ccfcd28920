"""The lowering tables (mxdsl.lowerings): built-in families, extension entry points,
conflicts named with both owners, and override=True."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from xdsl.ir import Operation

from mxdsl import extensions, lowerings
from mxdsl.dialects import stablehlo as shlo
from mxdsl.dialects.hlo import DotGeneralOp
from mxdsl.transforms.hlo_to_nisa import driver, matmul


@dataclass
class _Dist:
    name: str


@dataclass
class _EntryPoint:
    """What build_tables reads of an importlib.metadata.EntryPoint."""

    name: str
    value: str
    target: Any
    dist: _Dist
    group: str = lowerings.GROUP

    @property
    def module(self) -> str:
        return self.value.split(":")[0]

    @property
    def attr(self) -> str:
        return self.value.split(":")[1]

    def load(self) -> Any:
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


def _lower_dot(lowering: Any, op: Operation) -> None:
    raise NotImplementedError


def _install(monkeypatch: pytest.MonkeyPatch, *found: _EntryPoint) -> None:
    original = extensions.entry_points
    monkeypatch.setattr(
        extensions,
        "entry_points",
        lambda group: found if group == lowerings.GROUP else original(group),
    )


def test_the_builtin_table_covers_every_family() -> None:
    tables = lowerings.build_tables(list(driver.BUILTIN), warn=pytest.fail)
    assert tables.conflicts == {}
    assert tables.ops[DotGeneralOp].function is matmul.lower_dot_general
    assert tables.ops[DotGeneralOp].owner == "mxdsl"
    assert not tables.ops[DotGeneralOp].is_extension
    scaled = tables.custom_calls["ScaledMatmul_e4m3fn_e4m3fn_f32"]
    assert scaled.function is matmul.lower_scaled_matmul
    assert {shlo.AddOp, shlo.ReduceOp, shlo.TransposeOp} <= set(tables.ops)


def test_a_conflicting_registration_names_both(monkeypatch: pytest.MonkeyPatch) -> None:
    def register(table: lowerings.Lowerings) -> None:
        table.op(DotGeneralOp, _lower_dot)

    _install(monkeypatch, _EntryPoint("mine", "my_ext:register", register, _Dist("my-ext")))
    tables = lowerings.build_tables(list(driver.BUILTIN), warn=pytest.fail)
    (message,) = tables.conflicts["ops"]
    assert message == (
        "extension 'my-ext' (entry point mxdsl.lowerings:mine = my_ext:register) registers a "
        "lowering for op hlo.dot_general, which mxdsl "
        "(mxdsl.transforms.hlo_to_nisa.matmul.lower_dot_general) already lowers; register it "
        "with override=True to replace that one, or uninstall one of the two"
    )
    assert tables.ops[DotGeneralOp].function is matmul.lower_dot_general


def test_override_replaces_the_builtin(monkeypatch: pytest.MonkeyPatch) -> None:
    def register(table: lowerings.Lowerings) -> None:
        table.op(DotGeneralOp, _lower_dot, override=True)

    _install(monkeypatch, _EntryPoint("mine", "my_ext:register", register, _Dist("my-ext")))
    tables = lowerings.build_tables(list(driver.BUILTIN), warn=pytest.fail)
    assert tables.conflicts == {}
    assert tables.ops[DotGeneralOp].function is _lower_dot
    assert tables.ops[DotGeneralOp].is_extension
    assert tables.ops[DotGeneralOp].owner.startswith("extension 'my-ext'")


def test_two_extensions_on_one_target_conflict(monkeypatch: pytest.MonkeyPatch) -> None:
    def register(table: lowerings.Lowerings) -> None:
        table.custom_call("Shared", _lower_dot)

    _install(
        monkeypatch,
        _EntryPoint("a", "a_ext:register", register, _Dist("a-ext")),
        _EntryPoint("b", "b_ext:register", register, _Dist("b-ext")),
    )
    tables = lowerings.build_tables([], warn=pytest.fail)
    (message,) = tables.conflicts["custom_calls"]
    assert message.startswith("extension 'b-ext' (entry point mxdsl.lowerings:b = b_ext:register)")
    assert "which extension 'a-ext' (entry point mxdsl.lowerings:a = a_ext:register)" in message


def test_an_entry_point_that_cannot_load_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    warnings: list[str] = []
    _install(
        monkeypatch,
        _EntryPoint("gone", "gone:register", ModuleNotFoundError("gone"), _Dist("gone-ext")),
        _EntryPoint("odd", "odd:TABLE", {"not": "callable"}, _Dist("odd-ext")),
    )
    tables = lowerings.build_tables([], warn=warnings.append)
    assert tables.ops == {}
    assert tables.custom_calls == {}
    assert warnings == [
        "cannot load extension 'gone-ext' (entry point mxdsl.lowerings:gone = gone:register): "
        "ModuleNotFoundError: gone; its lowerings are unavailable",
        "extension 'odd-ext' (entry point mxdsl.lowerings:odd = odd:TABLE) is a dict, not a "
        "function register(lowerings); its lowerings are unavailable",
    ]


def test_the_example_extension_registers_its_target() -> None:
    tables = driver.lowering_tables()
    registration = tables.custom_calls["ExtScaleAdd"]
    assert registration.is_extension
    assert "mxdsl-ext-example" in registration.owner


KERNEL = """
func.func @k(%a: memref<4x8xf32, #nisa.mem<hbm>>) -> memref<4x8xf32, #nisa.mem<hbm>> {
  %t = memref.alloc() : memref<4x8xf32, #nisa.mem<sbuf>>
  nisa.memset %t, 1.5 : memref<4x8xf32, #nisa.mem<sbuf>>
  %o = memref.alloc() : memref<4x8xf32, #nisa.mem<hbm>>
  nisa.dma_copy %o, %t : memref<4x8xf32, #nisa.mem<hbm>>, memref<4x8xf32, #nisa.mem<sbuf>>
  func.return %o : memref<4x8xf32, #nisa.mem<hbm>>
}
"""


def _lower_kernel(monkeypatch: pytest.MonkeyPatch, register: Any) -> str:
    from mxdsl.tools.diagnostics import parse_located
    from mxdsl.tools.mx_run import _context  # pyright: ignore[reportPrivateUsage]
    from mxdsl.transforms.lower_nisa_to_bir import lower_nisa_to_bir

    _install(monkeypatch, _EntryPoint("sel", "sel_ext:register", register, _Dist("sel-ext")))
    lowerings.cached_tables.cache_clear()
    try:
        module, _ = parse_located(_context(), KERNEL, "kernel.mlir")
        lower_nisa_to_bir(module)
        return str(module)
    finally:
        lowerings.cached_tables.cache_clear()


def test_an_extension_selects_a_nisa_op(monkeypatch: pytest.MonkeyPatch) -> None:
    from mxdsl.dialects import bir, nisa
    from mxdsl.transforms.nisa_to_bir.select import Selection

    seen: list[str] = []

    def select_memset(selection: Selection, op: nisa.MemsetOp) -> Operation:
        seen.append(op.name)
        return bir.MemsetOp(selection.compute_ap(op.dst, "dst"), 2.5)

    def register(table: lowerings.Lowerings) -> None:
        table.selection(nisa.MemsetOp, select_memset, override=True)

    text = _lower_kernel(monkeypatch, register)
    assert seen == ["nisa.memset"]
    assert "bir.memset" in text
    assert "2.500000e+00" in text
    assert "nisa.memset" not in text


def test_a_faulty_selection_is_the_extensions(monkeypatch: pytest.MonkeyPatch) -> None:
    from mxdsl.diagnostics import OpDiagnostic
    from mxdsl.dialects import nisa

    def select_memset(selection: Any, op: nisa.MemsetOp) -> Operation:
        raise ZeroDivisionError("no tiles")

    def register(table: lowerings.Lowerings) -> None:
        table.selection(nisa.MemsetOp, select_memset, override=True)

    with pytest.raises(OpDiagnostic) as caught:
        _lower_kernel(monkeypatch, register)
    assert caught.value.op.name == "nisa.memset"
    assert caught.value.message == (
        "lower-nisa-to-bir: the instruction selection of extension 'sel-ext' (entry point "
        "mxdsl.lowerings:sel = sel_ext:register) failed: ZeroDivisionError: no tiles"
    )


def test_a_conflicting_selection_names_both(monkeypatch: pytest.MonkeyPatch) -> None:
    from xdsl.utils.exceptions import DiagnosticException

    from mxdsl.dialects import nisa

    def register(table: lowerings.Lowerings) -> None:
        table.selection(nisa.MemsetOp, _lower_dot)

    with pytest.raises(DiagnosticException, match="registers a lowering for nisa op nisa.memset"):
        _lower_kernel(monkeypatch, register)
