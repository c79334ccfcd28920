"""The nisa dialect through its Python API: build every op with its constructor, verify
it, print it and parse the text back; the x4 types, the attributes, the helpers, the
memory effects and a sample of the verifier messages."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects import test as xdsl_test
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import (
    Builtin,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    Signedness,
    bf16,
    f4E2M1FN,
    f8E4M3FN,
    f8E5M2,
    f8E8M0FNU,
    f16,
    f32,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffectKind, get_effects
from xdsl.utils.exceptions import VerifyException

from mxdsl.dialects import nisa
from mxdsl.dialects.nisa import (
    HBM,
    PSUM,
    SBUF,
    ActivationFunction,
    ActivationOp,
    AluOp,
    CoreBarrierOp,
    DmaComputeOp,
    DmaCopyOp,
    Engine,
    IotaOp,
    IotaPatternAttr,
    MemorySpace,
    MemsetOp,
    NcMatmulMxOp,
    NcMatmulOp,
    NcTransposeOp,
    Nisa,
    NumProgramsOp,
    OobMode,
    ProgramIdOp,
    QuantizeMxOp,
    RegisterLoadOp,
    ScalarTensorTensorOp,
    SendRecvOp,
    TensorCopyOp,
    TensorCopyPredicatedOp,
    TensorReduceOp,
    TensorScalarOp,
    TensorTensorOp,
    float4_e2m1fn_x4,
    float8_e4m3fn_x4,
    float8_e5m2_x4,
    memory_space_of,
    mx_scale_partitions,
    tile_type,
)
from mxdsl.universe import get_all_dialects

ui8 = IntegerType(8, Signedness.UNSIGNED)


def values(*types: Attribute) -> tuple[list[Operation], list[SSAValue]]:
    """Producers of SSA values of the given types (test.op), and the values."""
    producers: list[Operation] = [xdsl_test.TestOp(result_types=[t]) for t in types]
    return producers, [p.results[0] for p in producers]


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Arith, Nisa, xdsl_test.Test):
        ctx.load_dialect(dialect)
    return ctx


def round_trip(ops: list[Operation]) -> str:
    """Verify the ops in a module, print it, parse it back and check the text is stable."""
    module = ModuleOp(ops)
    module.verify()
    text = str(module)
    reparsed = Parser(context(), text).parse_module()
    reparsed.verify()
    assert str(reparsed) == text
    generic = StringIO()
    Printer(stream=generic, print_generic_format=True).print_op(module)
    assert str(Parser(context(), generic.getvalue()).parse_module()) == text
    return text


# --------------------------------------------------------------------------- builders


def test_data_movement_builders():
    producers, (hidden, x, f, tok, cols_idx, out0, out1, cols, table) = values(
        tile_type([129, 512], bf16, HBM),
        tile_type([128, 512], bf16, SBUF),
        tile_type([128, 512], f32, SBUF),
        tile_type([128, 1], i32, SBUF),
        tile_type([4], i32, SBUF),
        tile_type([128, 512], bf16, HBM),
        tile_type([128, 512], bf16, HBM),
        tile_type([128, 4], f32, SBUF),
        tile_type([128, 512], f32, HBM),
    )
    ops: list[Operation] = [
        DmaCopyOp(f, x),
        DmaCopyOp(x, hidden, src_index=tok, oob_mode=OobMode.SKIP),
        DmaCopyOp(hidden, x, dst_index=tok),
        DmaCopyOp(cols, table, src_index=cols_idx, indirect_dim=1),
        DmaComputeOp(out0, [out0, out1]),
        MemsetOp(x, 0.0),
        IotaOp(tok, [(1, 1)], offset=5, channel_multiplier=1),
        TensorCopyOp(x, f),
    ]
    text = round_trip([*producers, *ops])
    assert "nisa.dma_copy %1, %0[%3 : memref<128x1xi32, #nisa.mem<sbuf>>] oob_mode skip" in text
    assert "nisa.dma_copy %0[%3 : memref<128x1xi32, #nisa.mem<sbuf>>], %1 :" in text
    assert "nisa.dma_copy %7, %8[%4 : memref<4xi32, #nisa.mem<sbuf>>] dim 1 :" in text
    assert "nisa.dma_compute %5, (%5, %6)" in text
    assert "nisa.memset %1, 0.000000e+00 :" in text
    assert "nisa.iota %3, [[1, 1]] offset 5 channel_multiplier 1" in text


def test_matmul_and_mx_builders():
    producers, vals = values(
        tile_type([128, 128], bf16, SBUF),
        tile_type([128, 512], bf16, SBUF),
        tile_type([128, 512], f32, PSUM),
        tile_type([128, 128], float8_e4m3fn_x4, SBUF),
        tile_type([128, 128], f8E8M0FNU, SBUF),
        tile_type([128, 64], float4_e2m1fn_x4, SBUF),
        tile_type([128, 64], ui8, SBUF),
        tile_type([64, 128], bf16, PSUM),
        tile_type([128, 128], bf16, PSUM),
    )
    w, h, acc, q, q_scale, w4, w4_scale, mx_acc, wt = vals
    ops: list[Operation] = [
        NcMatmulOp(acc, w, h),
        NcMatmulOp(acc, w, h, accumulate=True),
        QuantizeMxOp(q, q_scale, h),
        NcMatmulMxOp(mx_acc, w4, w4_scale, q, q_scale, accumulate=True),
        NcTransposeOp(wt, w),
        NcTransposeOp(wt, w, engine=Engine.TENSOR),
    ]
    text = round_trip([*producers, *ops])
    assert "nisa.nc_matmul %2, %0, %1 accumulate :" in text
    assert "nisa.quantize_mx %3 scale %4, %1 :" in text
    assert "nisa.nc_matmul_mx %7, %5 scale %6, %3 scale %4 accumulate :" in text
    assert "nisa.nc_transpose %8, %0 engine tensor :" in text
    transpose = ops[4]
    assert isinstance(transpose, NcTransposeOp)
    assert transpose.resolved_engine() == Engine.TENSOR


def test_elementwise_builders():
    producers, vals = values(
        tile_type([128, 512], bf16, SBUF),
        tile_type([128, 512], f32, PSUM),
        tile_type([128, 1], f32, SBUF),
        tile_type([128, 512], ui8, SBUF),
        tile_type([128, 4, 128], bf16, SBUF),
        tile_type([128, 4], f32, SBUF),
        f32,
    )
    a, p, col, mask, a3, r, two = vals
    ops: list[Operation] = [
        TensorTensorOp(a, AluOp.ADD, a, p),
        TensorScalarOp(a, p, AluOp.MULTIPLY, col),
        TensorScalarOp(a, a, AluOp.SUBTRACT, two, AluOp.MINIMUM, col, reverse0=True),
        ScalarTensorTensorOp(a, p, AluOp.MULTIPLY, two, AluOp.ADD, a, reverse1=True),
        TensorReduceOp(r, AluOp.MAXIMUM, a3, [2], negate=True),
        ActivationOp(a, ActivationFunction.GELU_APPRX_SIGMOID, p, scale=two, bias=col),
        ActivationOp(a, ActivationFunction.COPY, a),
        TensorCopyPredicatedOp(a, a, mask),
        TensorCopyPredicatedOp(p, two, mask, reverse_predicate=True),
    ]
    text = round_trip([*producers, *ops])
    assert "nisa.tensor_tensor %0, add %0, %1 :" in text
    assert "nisa.tensor_scalar %0, %0, reverse subtract %6, minimum %2 :" in text
    assert "nisa.scalar_tensor_tensor %0, %1, multiply %6, reverse add %0 :" in text
    assert "nisa.tensor_reduce %5, maximum %4 axes [2] negate :" in text
    assert "gelu_apprx_sigmoid %1 scale(%6 : f32) bias(%2 : memref<128x1xf32" in text
    assert "nisa.tensor_copy_predicated %1, %6 where not %3 :" in text
    reduce = ops[4]
    assert isinstance(reduce, TensorReduceOp)
    assert reduce.get_axes() == (2,)


def test_spmd_builders():
    producers, (out, mine, theirs, count) = values(
        tile_type([128, 512], bf16, HBM),
        tile_type([64, 512], bf16, SBUF),
        tile_type([64, 512], bf16, SBUF),
        tile_type([1, 1], i32, SBUF),
    )
    shard = ProgramIdOp()
    shards = NumProgramsOp(axis=0)
    ops: list[Operation] = [
        shard,
        shards,
        SendRecvOp(theirs, mine, shard.result, shard.result, pipe_id=3),
        CoreBarrierOp(out),
        CoreBarrierOp(out, cores=(0, 1, 2)),
        RegisterLoadOp(count),
        RegisterLoadOp(count, i32),
    ]
    text = round_trip([*producers, *ops])
    assert "%4 = nisa.program_id\n" in text
    assert "nisa.sendrecv %2, %1 to %4 from %4 pipe 3 :" in text
    assert "nisa.core_barrier %0 : memref" in text
    assert "nisa.core_barrier %0 cores [0, 1, 2] :" in text
    assert "nisa.register_load %3 : memref<1x1xi32, #nisa.mem<sbuf>> -> index" in text
    assert "-> i32" in text
    assert shard.result.type == IndexType()


# --------------------------------------------------------------------------- types and attributes


@pytest.mark.parametrize(
    ("x4", "bits", "lane"),
    [
        (float8_e4m3fn_x4, 32, f8E4M3FN),
        (float8_e5m2_x4, 32, f8E5M2),
        (float4_e2m1fn_x4, 16, f4E2M1FN),
    ],
)
def test_x4_types(x4: nisa.X4Type, bits: int, lane: Attribute):
    assert x4.bitwidth == bits
    assert x4.size == bits // 8
    assert x4.lane_type == lane
    assert x4.lanes == 4
    memref = tile_type([128, 4], x4, SBUF)
    assert Parser(context(), str(memref)).parse_type() == memref


@pytest.mark.parametrize(
    "text",
    [
        "#nisa.mem<hbm>",
        "#nisa.mem<sbuf>",
        "#nisa.mem<psum>",
        "#nisa<alu right_shift>",
        "#nisa<act gelu_apprx_tanh>",
        "#nisa<oob_mode skip>",
        "#nisa<engine vector>",
        "#nisa.iota_pattern[[0, 2], [1, 8]]",
    ],
)
def test_attributes_round_trip(text: str):
    attr = Parser(context(), text).parse_attribute()
    assert str(attr) == text


def test_iota_pattern_checks_pairs():
    assert IotaPatternAttr([(4, 128), (1, 4)]).get_pairs() == ((4, 128), (1, 4))
    with pytest.raises(VerifyException, match="num must be at least 1"):
        IotaPatternAttr([(1, 0)])


def test_tile_type_and_memory_space():
    t = tile_type([128, 512], bf16, MemorySpace.SBUF)
    assert t == tile_type([128, 512], bf16, SBUF)
    assert str(t) == "memref<128x512xbf16, #nisa.mem<sbuf>>"
    assert memory_space_of(t) == MemorySpace.SBUF
    assert memory_space_of(tile_type([2], f32, PSUM)) == MemorySpace.PSUM
    assert memory_space_of(MemRefType(f32, [2], NoneAttr(), NoneAttr())) is None


@pytest.mark.parametrize(("partitions", "rows"), [(32, 4), (64, 36), (96, 68), (128, 100)])
def test_mx_scale_partitions_follow_the_quadrant_layout(partitions: int, rows: int):
    assert mx_scale_partitions(partitions) == rows
    last_group = partitions // 8 - 1
    assert rows == (last_group & 3) + 32 * (last_group >> 2) + 1


def test_registered_in_the_universe():
    assert get_all_dialects()["nisa"]() is Nisa
    names = {op.name for op in Nisa.operations}
    assert {
        "nisa.dma_copy",
        "nisa.dma_compute",
        "nisa.memset",
        "nisa.iota",
        "nisa.tensor_copy",
        "nisa.nc_matmul",
        "nisa.nc_matmul_mx",
        "nisa.quantize_mx",
        "nisa.nc_transpose",
        "nisa.tensor_tensor",
        "nisa.tensor_scalar",
        "nisa.scalar_tensor_tensor",
        "nisa.tensor_reduce",
        "nisa.activation",
        "nisa.tensor_copy_predicated",
        "nisa.program_id",
        "nisa.num_programs",
        "nisa.sendrecv",
        "nisa.core_barrier",
        "nisa.register_load",
        "nisa.view_cast",
        "nisa.permute",
    } == names


# --------------------------------------------------------------------------- effects


def test_compute_ops_read_and_write_memory():
    _, (a, p) = values(tile_type([128, 512], bf16, SBUF), tile_type([128, 512], f32, PSUM))
    for op in (TensorCopyOp(a, p), CoreBarrierOp(a)):
        effects = get_effects(op)
        assert effects is not None
        kinds = {e.kind for e in effects}
        assert kinds == {MemoryEffectKind.READ, MemoryEffectKind.WRITE}
    # memset has no source: it only writes its destination (per-operand effects)
    assert get_effects(MemsetOp(a, 1.0)) == {EffectInstance(MemoryEffectKind.WRITE, a)}
    assert get_effects(ProgramIdOp()) == set()
    assert get_effects(NumProgramsOp()) == set()


# --------------------------------------------------------------------------- verifier samples


def test_matmul_limits():
    _, (s, m, d) = values(
        tile_type([128, 256], bf16, SBUF),
        tile_type([128, 512], bf16, SBUF),
        tile_type([256, 512], f32, PSUM),
    )
    with pytest.raises(VerifyException, match="stationary free size 256 exceeds 128"):
        NcMatmulOp(d, s, m).verify()


def test_quantize_mx_limits():
    _, (src, dst, scale) = values(
        tile_type([64, 512], bf16, SBUF),
        tile_type([64, 128], float8_e4m3fn_x4, SBUF),
        tile_type([8, 128], f8E8M0FNU, SBUF),
    )
    with pytest.raises(VerifyException, match="needs at least 36"):
        QuantizeMxOp(dst, scale, src).verify()
    _, (scale64,) = values(tile_type([64, 128], f8E8M0FNU, SBUF))
    QuantizeMxOp(dst, scale64, src).verify()


def test_quantize_mx_takes_f16_but_not_fp4():
    _, (src, fp4, scale) = values(
        tile_type([32, 8], f16, SBUF),
        tile_type([32, 2], float4_e2m1fn_x4, SBUF),
        tile_type([4, 2], ui8, SBUF),
    )
    with pytest.raises(VerifyException, match="dst must be !nisa.float8_e4m3fn_x4"):
        QuantizeMxOp(fp4, scale, src).verify()
    _, (fp8,) = values(tile_type([32, 2], float8_e5m2_x4, SBUF))
    QuantizeMxOp(fp8, scale, src).verify()


def test_indirect_dma_limits():
    _, (table, x, idx) = values(
        tile_type([129, 512], bf16, HBM),
        tile_type([128, 512], bf16, SBUF),
        tile_type([64], i32, SBUF),
    )
    with pytest.raises(VerifyException, match="index has 64 entries but dim 0 of dst has 128"):
        DmaCopyOp(x, table, src_index=idx).verify()
    with pytest.raises(VerifyException, match="only one side of a copy may be indirect"):
        DmaCopyOp(table, table, src_index=idx, dst_index=idx).verify()


def test_tensor_scalar_operand_checks():
    _, (a, bits, col2, s_bf16) = values(
        tile_type([128, 512], bf16, SBUF),
        tile_type([128, 16], i32, SBUF),
        tile_type([128, 2], f32, SBUF),
        bf16,
    )
    with pytest.raises(VerifyException, match=r"a \[128, 1\] per-partition tile"):
        TensorScalarOp(a, a, AluOp.ADD, col2).verify()
    with pytest.raises(VerifyException, match="must be f32, got bf16"):
        TensorScalarOp(a, a, AluOp.ADD, s_bf16).verify()
    with pytest.raises(VerifyException, match="needs integer operands"):
        TensorTensorOp(a, AluOp.BITWISE_AND, a, a).verify()
    TensorTensorOp(bits, AluOp.BITWISE_AND, bits, bits).verify()


def test_on_chip_partition_limit():
    _, (big,) = values(tile_type([129, 4], f32, SBUF))
    with pytest.raises(VerifyException, match="129 partitions, exceeding the 128"):
        MemsetOp(big, 0.0).verify()


def test_transpose_engine_inference():
    _, (a, b) = values(tile_type([32, 16], bf16, PSUM), tile_type([16, 32], bf16, SBUF))
    op = NcTransposeOp(b, a)
    assert op.resolved_engine() == Engine.VECTOR
    op.verify()
