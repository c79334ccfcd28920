"""nisa ops declare their memory effects per operand, as MLIR's memref ops do: a write
on each destination, a read on each source buffer (and on a destination the op also
reads), none on scalars; ops that talk to other cores keep unknown effects. The
expected sets are written out from each op's definition (its docs), not computed."""

from __future__ import annotations

from xdsl.dialects import arith, test
from xdsl.dialects.builtin import Float8E8M0FNUType, FloatAttr, IndexType, MemRefType, f32, i32
from xdsl.ir import SSAValue
from xdsl.traits import EffectInstance, MemoryEffectKind, get_effects

from mxdsl.dialects import nisa
from mxdsl.dialects.nisa import MemorySpace, tile_type

READ, WRITE = MemoryEffectKind.READ, MemoryEffectKind.WRITE


def buffers(*types: MemRefType) -> list[SSAValue]:
    return list(test.TestOp(result_types=list(types)).results)


def effects(op: object) -> set[tuple[MemoryEffectKind, SSAValue | None]]:
    found = get_effects(op)  # pyright: ignore[reportArgumentType]
    assert found is not None
    return {(e.kind, e.value) for e in found}  # pyright: ignore[reportReturnType]


SB = tile_type([128, 64], f32, MemorySpace.SBUF)
PS = tile_type([128, 64], f32, MemorySpace.PSUM)
HBM = tile_type([128, 64], f32, MemorySpace.HBM)


def test_a_dma_reads_its_source_and_writes_its_destination() -> None:
    dst, src = buffers(SB, HBM)
    assert effects(nisa.DmaCopyOp(dst, src)) == {(WRITE, dst), (READ, src)}


def test_an_in_place_op_reads_and_writes_the_same_buffer() -> None:
    (x,) = buffers(SB)
    assert effects(nisa.TensorTensorOp(x, nisa.AluOp.ADD, x, x)) == {(WRITE, x), (READ, x)}


def test_a_binary_op_reads_both_sources() -> None:
    dst, a, b = buffers(SB, SB, SB)
    op = nisa.TensorTensorOp(dst, nisa.AluOp.ADD, a, b)
    assert effects(op) == {(WRITE, dst), (READ, a), (READ, b)}


def test_a_scalar_operand_has_no_effect() -> None:
    dst, data, column = buffers(SB, SB, tile_type([128, 1], f32, MemorySpace.SBUF))
    scalar = arith.ConstantOp(FloatAttr(2.0, f32)).result
    op = nisa.ScalarTensorTensorOp(dst, data, nisa.AluOp.MULTIPLY, scalar, nisa.AluOp.ADD, data)
    assert effects(op) == {(WRITE, dst), (READ, data)}
    op = nisa.TensorScalarOp(dst, data, nisa.AluOp.MULTIPLY, column)
    assert effects(op) == {(WRITE, dst), (READ, data), (READ, column)}


def test_memset_and_iota_only_write() -> None:
    (dst,) = buffers(SB)
    assert effects(nisa.MemsetOp(dst, 0.0)) == {(WRITE, dst)}
    (ints,) = buffers(tile_type([128, 64], i32, MemorySpace.SBUF))
    assert effects(nisa.IotaOp(ints, [(1, 64)])) == {(WRITE, ints)}


def test_an_accumulating_matmul_reads_its_accumulator() -> None:
    acc, stationary, moving = buffers(
        PS,
        tile_type([128, 128], f32, MemorySpace.SBUF),
        tile_type([128, 64], f32, MemorySpace.SBUF),
    )
    fresh = nisa.NcMatmulOp(acc, stationary, moving)
    assert effects(fresh) == {(WRITE, acc), (READ, stationary), (READ, moving)}
    chained = nisa.NcMatmulOp(acc, stationary, moving, accumulate=True)
    assert effects(chained) == {(WRITE, acc), (READ, acc), (READ, stationary), (READ, moving)}


def test_quantize_mx_writes_data_and_scales() -> None:
    dst, scale, src = buffers(
        tile_type([32, 4], nisa.float8_e4m3fn_x4, MemorySpace.SBUF),
        tile_type([32, 4], Float8E8M0FNUType(), MemorySpace.SBUF),
        tile_type([32, 16], f32, MemorySpace.SBUF),
    )
    assert effects(nisa.QuantizeMxOp(dst, scale, src)) == {
        (WRITE, dst),
        (WRITE, scale),
        (READ, src),
    }


def test_a_predicated_copy_reads_what_it_keeps() -> None:
    dst, src, predicate = buffers(SB, SB, tile_type([128, 64], i32, MemorySpace.SBUF))
    op = nisa.TensorCopyPredicatedOp(dst, src, predicate)
    assert effects(op) == {(WRITE, dst), (READ, dst), (READ, src), (READ, predicate)}


def test_cross_core_ops_keep_unknown_effects() -> None:
    dst, src = buffers(SB, SB)
    peer = arith.ConstantOp.from_int_and_width(1, IndexType()).result
    for op in (nisa.SendRecvOp(dst, src, peer, peer, 0), nisa.CoreBarrierOp(src)):
        assert effects(op) == {(READ, None), (WRITE, None)}


def test_the_effect_instances_name_operands() -> None:
    dst, src = buffers(SB, HBM)
    found = get_effects(nisa.DmaCopyOp(dst, src))
    assert found == {EffectInstance(WRITE, dst), EffectInstance(READ, src)}
