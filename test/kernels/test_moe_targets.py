"""The modelled targets (design.md, "The modelled targets"; mxdsl/targets.py): the nisa
verifiers and the MoE-CTE footprint check read their capacities from the current target,
and the MX variants and MX instructions are refused on trn2."""

from __future__ import annotations

import math

import pytest
from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from mxdsl.dialects import nisa
from mxdsl.dialects.nisa import Nisa
from mxdsl.kernels.moe_cte import (
    MoECTEConfigError,
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    build_moe_cte,
)
from mxdsl.targets import DEFAULT_TARGET, TRN2, TRN3, current_target, get_target, use_target

KIB = 1024


def test_the_table_states_the_design_figures():
    assert DEFAULT_TARGET is TRN3
    assert (TRN3.sbuf_bytes, TRN3.psum_bytes) == (32 * KIB * KIB, 2 * KIB * KIB)
    assert (TRN2.sbuf_bytes, TRN2.psum_bytes) == (28 * KIB * KIB, 2 * KIB * KIB)
    assert TRN3.psum_banks == TRN2.psum_banks == 8
    assert TRN3.has_mx
    assert not TRN2.has_mx


def test_use_target_nests_and_restores():
    assert current_target() is TRN3
    with use_target("trn2") as outer:
        assert outer is TRN2
        assert current_target() is TRN2
        with use_target(TRN3):
            assert current_target() is TRN3
        assert current_target() is TRN2
    assert current_target() is TRN3
    with pytest.raises(ValueError, match="unknown target 'trn9'; the modelled targets are"):
        get_target("trn9")


def _parse(text: str):  # noqa: ANN202
    ctx = Context()
    for dialect in (Builtin, Arith, Func, memref.MemRef, Nisa):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


def _memset(columns: int) -> str:
    t = f"memref<128x{columns}xbf16, #nisa.mem<sbuf>>"
    return f"func.func @f(%a: {t}) {{\n  nisa.memset %a, 0.0 : {t}\n  func.return\n}}"


def test_the_sbuf_capacity_check_reads_the_current_target():
    """240 KiB of bf16 per partition: within trn3's 256 KiB, beyond trn2's 224 KiB."""
    module = _parse(_memset(120 * KIB))
    module.verify()
    with use_target("trn2"), pytest.raises(VerifyException) as info:
        module.verify()
    assert "uses 245760 bytes per partition, exceeding the 229376 bytes of one trn2 sbuf" in str(
        info.value
    )
    module.verify()  # trn3 again after the with block


Q = "memref<128x128x!nisa.float8_e4m3fn_x4, #nisa.mem<sbuf>>"
S = "memref<128x128xui8, #nisa.mem<sbuf>>"
X = "memref<128x512xbf16, #nisa.mem<sbuf>>"
MX_OPS = f"""
func.func @f(%x: {X}, %q: {Q}, %s: {S}) {{
  nisa.quantize_mx %q scale %s, %x : {Q}, {S}, {X}
  func.return
}}
"""


def test_mx_instructions_exist_on_trn3_only():
    module = _parse(MX_OPS)
    module.verify()
    with use_target(TRN2), pytest.raises(VerifyException) as info:
        module.verify()
    assert "nisa.quantize_mx is an MX instruction, which trn2 (NeuronCore-v3) does not have" in (
        str(info.value)
    )


def _alloc_bytes(module, space: nisa.MemorySpace) -> int:  # noqa: ANN001
    """Bytes per partition of every memref.alloc in ``space``, read off the IR."""
    return sum(
        math.prod(op.memref.type.get_shape()[1:]) * op.memref.type.element_type.size
        for op in module.walk()
        if isinstance(op, memref.AllocOp) and nisa.memory_space_of(op.memref.type) == space
    )


@pytest.mark.parametrize("target", [TRN3, TRN2], ids=lambda t: t.name)
def test_the_kernel_reports_its_footprint_against_the_target(target) -> None:  # noqa: ANN001
    spec = MoECTESpec(MoECTEImplementation.shard_on_i)
    kernel = build_moe_cte(spec, MoECTESizes(1024, 512, 4, 100, 256, 2), target=target)
    assert kernel.target is target
    for space in (nisa.MemorySpace.SBUF, nisa.MemorySpace.PSUM):
        assert kernel.footprint[space] == _alloc_bytes(kernel.module, space) > 0
    sbuf = kernel.footprint[nisa.MemorySpace.SBUF]
    text = kernel.footprint_text()
    assert text.startswith(f"peak bytes per partition on {target.name}: SBUF {sbuf} of ")
    assert f"of {target.sbuf_partition_bytes} (" in text
    assert "PSUM" in text
    assert "of 16384 (" in text


@pytest.mark.parametrize("impl", [m for m in MoECTEImplementation if m.is_mx], ids=lambda m: m.name)
def test_the_mx_variants_are_refused_on_trn2(impl: MoECTEImplementation) -> None:
    sizes = MoECTESizes(512, 1024, 4, 100, 256, 2)
    with pytest.raises(MoECTEConfigError, match=f"{impl.name} uses MX instructions .* trn2"):
        build_moe_cte(MoECTESpec(impl), sizes, MoECTEOptions(), target=TRN2)
    with use_target("trn2"), pytest.raises(MoECTEConfigError, match="use the non-MX variant"):
        build_moe_cte(MoECTESpec(impl), sizes)  # the current target is the default


def test_a_kernel_between_the_two_capacities_fits_trn3_only() -> None:
    """The footprint check reads the target: refused on trn2 naming its 224 KiB."""
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    sizes = MoECTESizes(7168, 2048, 64, 10240, 512, 8)
    options = MoECTEOptions(bias=True, gate_up_chunk=128, block_sets=3)
    kernel = build_moe_cte(spec, sizes, options, target=TRN3)
    sbuf = kernel.footprint[nisa.MemorySpace.SBUF]
    assert TRN2.sbuf_partition_bytes < sbuf <= TRN3.sbuf_partition_bytes
    with pytest.raises(MoECTEConfigError, match="more than the 224 KiB of one trn2 partition"):
        build_moe_cte(spec, sizes, options, target=TRN2)
