"""The example extension (examples/extension) from Python, and the extension machinery:
contracts found lazily through ``mxdsl.contracts``, fault attribution.

The interpreter results are checked against independent computations: ``np.ldexp`` in the
element type itself (a correctly rounded power-of-two scaling), ``math.tanh`` per value,
and bit patterns of bf16 written out by hand."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from mxdsl_ext_example.contract import CATALOG, check_softcap
from mxdsl_ext_example.universe import EXT_UNIVERSE
from xdsl.context import Context
from xdsl.dialects.builtin import TensorType, f32
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from mxdsl import extensions
from mxdsl.contract import CustomCallSignature, registry
from mxdsl.contract.registry import ContractLoadError, contract_for, registered_targets
from mxdsl.interpreters import make_interpreter
from mxdsl.universe import get_all_dialects


def parse(text: str):
    ctx = Context()
    for name, factory in {**get_all_dialects(), **EXT_UNIVERSE.all_dialects}.items():
        ctx.register_dialect(name, factory)
    from xdsl.dialects.func import Func

    ctx.load_dialect(Func)
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def run_unary(body: str, element: str, x: np.ndarray) -> np.ndarray:
    shape = "x".join(str(d) for d in x.shape)
    t = f"tensor<{shape}x{element}>"
    module = parse(
        f"func.func @main(%x: {t}) -> {t} {{\n  %y = {body} : {t} -> {t}\n"
        f"  func.return %y : {t}\n}}\n"
    )
    (y,) = make_interpreter(module).call_op("main", (x,))
    return y


# ------------------------------------------------------------------ interpreters


@pytest.mark.parametrize("k", [-64, -30, -1, 0, 1, 7, 64])
def test_scale_f32_is_ldexp_in_f32(k: int) -> None:
    rng = np.random.default_rng(k + 100)
    x = (rng.standard_normal(64) * 2.0 ** rng.integers(-140, 127, 64)).astype(np.float32)
    x[:3] = [0.0, np.inf, np.float32(1.5e-45)]  # zero, inf, the smallest subnormal
    y = run_unary(f"ext.scale %x, {k}", "f32", x)
    with np.errstate(over="ignore", under="ignore"):
        expected = np.ldexp(x, k)  # C ldexpf: exact, or correctly rounded, in float32
    assert y.dtype == np.float32
    assert np.array_equal(y.view(np.uint32), expected.view(np.uint32))


def test_scale_bf16_rounds_once() -> None:
    # bf16 bit patterns by hand: 0x3F80 = 1.0, 0x0001 = 2^-133 (smallest subnormal),
    # 0x7F7F = the largest finite (about 3.39e38), 0x7F80 = inf.
    x = np.array([0x3F80, 0x0001, 0x7F7F, 0x0003], np.uint16).view(ml_dtypes.bfloat16)
    up = run_unary("ext.scale %x, 1", "bf16", x).view(np.uint16)
    assert up.tolist() == [0x4000, 0x0002, 0x7F80, 0x0006]  # 2.0, 2^-132, inf, 6 * 2^-133
    down = run_unary("ext.scale %x, -1", "bf16", x).view(np.uint16)
    # 0.5; 2^-134 is a tie between 0 and 2^-133, to even = 0; 3 * 2^-134 ties to 2 * 2^-133
    assert down.tolist() == [0x3F00, 0x0000, 0x7EFF, 0x0002]


def test_clamp_rounds_its_bounds_and_keeps_nan() -> None:
    x = np.array([-5.0, 0.3, 1.0, 9.0, np.nan, -np.inf], np.float32)
    y = run_unary("ext.clamp %x, -1.0, 0.1", "bf16", x.astype(ml_dtypes.bfloat16))
    lo, hi = -1.0, float(np.float32(0.10009765625))  # 0.1 in bf16 is 0x3DCD = 0.10009765625
    assert y.dtype == ml_dtypes.bfloat16
    got = y.astype(np.float64)
    assert got[[0, 5]].tolist() == [lo, lo]
    assert got[[2, 3]].tolist() == [hi, hi]
    assert got[1] == hi  # 0.3 is above the bound
    assert math.isnan(got[4])


def test_softcap_matches_math_tanh() -> None:
    values = [0.0, 1.0, -2.5, 29.0, 300.0, -1e6]
    x = np.array(values, np.float32)
    config = "{\\22cap\\22: 30.0}"
    module = parse(
        "func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> {\n"
        f'  %y = hlo.custom_call @ExtSoftCap(%x) {{backend_config = "{config}"}} : '
        "(tensor<6xf32>) -> tensor<6xf32>\n  func.return %y : tensor<6xf32>\n}\n"
    )
    (y,) = make_interpreter(module).call_op("main", (x,))
    expected = np.array([30.0 * math.tanh(v / 30.0) for v in values], np.float32)
    assert np.array_equal(y, expected)


# --------------------------------------------------------------------- contracts


def signature(operands: int = 1, config: str = '{"cap": 30}', result=None):
    t = TensorType(f32, [8])
    return CustomCallSignature(
        target="ExtSoftCap",
        operand_types=(t,) * operands,
        result_type=t if result is None else result,
        backend_config=config,
        api_version=1,
    )


def test_the_catalog_codes_are_each_raised() -> None:
    raised = set()
    for call in (
        signature(operands=2),
        signature(config="nope"),
        signature(config='{"cap": true}'),
        signature(config='{"cap": -3}'),
        signature(result=TensorType(f32, [4])),
    ):
        with pytest.raises(VerifyException) as info:
            check_softcap(call)
        raised.add(info.value.code)  # type: ignore[attr-defined]
        cause, resolution = CATALOG[info.value.code]  # type: ignore[attr-defined]
        assert f"cause: {cause}" in str(info.value)
        assert f"resolution: {resolution}" in str(info.value)
    assert raised == set(CATALOG)
    check_softcap(signature())


def test_the_installed_extension_publishes_its_contract() -> None:
    assert registered_targets()["ExtSoftCap"] == "exact"
    assert contract_for("ExtSoftCap") is check_softcap


@dataclass
class FakeEntryPoint:
    name: str
    target: Any
    group: str = registry.ENTRY_POINT_GROUP
    loads: int = 0

    @property
    def value(self) -> str:
        return f"fake_ext.contracts:{self.name.strip('*')}"

    @property
    def module(self) -> str:
        return "fake_ext.contracts"

    @property
    def attr(self) -> str:
        return self.name.strip("*")

    dist = None

    def load(self) -> Any:
        self.loads += 1
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


@pytest.fixture
def fake_contracts(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(registry, "_EXACT", dict(registry._EXACT))
    monkeypatch.setattr(registry, "_PREFIX", dict(registry._PREFIX))
    monkeypatch.setattr(registry, "_loaded_entry_points", set())
    published: list[FakeEntryPoint] = []
    real = extensions.entry_points

    def entry_points(group: str):
        return tuple(published) if group == registry.ENTRY_POINT_GROUP else real(group)

    monkeypatch.setattr(extensions, "entry_points", entry_points)
    return published


def test_contract_entry_points_load_only_for_their_target(fake_contracts) -> None:
    def exact(call: CustomCallSignature) -> None:
        raise VerifyException("exact")

    def family(call: CustomCallSignature) -> None:
        raise VerifyException("family")

    mine = FakeEntryPoint("Mine", exact)
    fam = FakeEntryPoint("Fam_*", family)
    broken = FakeEntryPoint("Broken", ImportError("no module named fake_ext"))
    fake_contracts.extend([mine, fam, broken])
    assert registered_targets()["Fam_"] == "prefix"
    assert contract_for("SomethingElse") is None
    assert (mine.loads, fam.loads, broken.loads) == (0, 0, 0)
    assert contract_for("Mine") is exact
    assert contract_for("Mine") is exact
    assert contract_for("Fam_x") is family
    assert (mine.loads, fam.loads, broken.loads) == (1, 1, 0)
    with pytest.raises(ContractLoadError, match="contract for custom-call target 'Broken'"):
        contract_for("Broken")


def test_a_contract_entry_point_cannot_replace_a_registered_one(fake_contracts) -> None:
    fake_contracts.append(FakeEntryPoint("QuantizeMX", lambda call: None))
    with pytest.raises(ContractLoadError, match="'QuantizeMX' is already registered"):
        contract_for("QuantizeMX")


# ------------------------------------------------------------------ attribution


def test_a_fault_in_extension_code_names_the_extension() -> None:
    from mxdsl_ext_example import contract

    with pytest.raises(KeyError) as info:
        contract.fail("EXT99", "no such code")
    culprit = extensions.extension_at_fault(info.value, "mxdsl.contracts")
    assert culprit is not None
    assert culprit.distribution == "mxdsl-ext-example"
    assert culprit.module == "mxdsl_ext_example.contract"
    assert culprit.entry_point.group == "mxdsl.contracts"


def test_a_fault_in_mxdsl_is_mxdsl_s() -> None:
    with pytest.raises(AttributeError) as info:
        contract_for(None)  # type: ignore[arg-type]
    assert extensions.extension_at_fault(info.value) is None
