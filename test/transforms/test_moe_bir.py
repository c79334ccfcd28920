"""Every MoE-CTE variant lowered to bir runs bit-identical to its nisa kernel on 2 cores
the raw bytes of every output argument (checkpoints included), small configurations.
One configuration per variant at H = 3072 runs from the command line
(``benchmarks/moe_bir.py``; its figures in docs/performance.md)."""

from __future__ import annotations

import math

import pytest
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType

from mxdsl.dialects import bir, nisa
from mxdsl.dialects.bir import Memory
from mxdsl.targets import TRN3
from mxdsl.tools import mx_moe
from mxdsl.transforms.lower_nisa_to_bir import ALIGNMENT, peak_usage

SMALL = ["--hidden", "512", "--experts", "2", "--tokens", "16"]
CASES = {
    "shard_on_block": ["--intermediate", "64", "--block-size", "128"],
    "shard_on_i": ["--intermediate", "64", "--block-size", "256", "--bias"],
    "shard_on_i_hybrid": ["--intermediate", "64", "--block-size", "256"],
    "shard_on_i_dropping": ["--intermediate", "64", "--block-size", "256"],
    "shard_on_block_mx": ["--block-size", "128"],
    "shard_on_i_mx": ["--block-size", "256"],
    "shard_on_i_mx_hybrid": ["--block-size", "256", "--checkpoint"],
}


BIR_CASES = {
    **CASES,
    # a partial last MX I tile: lanes 0-2 of one 512-row tile
    "shard_on_block_mx I=384": ["--block-size", "128", "--intermediate", "384"],
}


@pytest.mark.parametrize("variant", list(BIR_CASES))
def test_bir_bit_identical_to_nisa(variant: str):
    argv = ["run", "--implementation", variant.split()[0], *SMALL, *BIR_CASES[variant]]
    parser = mx_moe.build_arg_parser()
    nisa_args = parser.parse_args(argv)
    bir_args = parser.parse_args([*argv, "--level", "bir"])
    nisa_kernel, bir_kernel = mx_moe.build(nisa_args), mx_moe.build(bir_args)
    text = bir_kernel.text()
    assert "nisa.dma_copy" not in text
    assert "#nisa.mem<sbuf>" not in text
    assert "bir.sendrecv" in text or "bir.core_barrier" in text
    inputs = mx_moe.seeded_inputs(nisa_kernel, nisa_args).arrays
    expected = nisa_kernel.run(inputs)
    got = bir_kernel.run(inputs)
    assert sorted(got) == sorted(expected)
    assert expected
    for name, array in expected.items():
        assert got[name].dtype == array.dtype, name
        assert got[name].tobytes() == array.tobytes(), f"{variant}: {name} differs"


@pytest.mark.parametrize("variant", list(CASES))
def test_allocation_agrees_with_the_kernels_footprint(variant: str):
    """The kernels' footprint check sums every buffer (``KernelBuilder.footprint``, as if
    all were live at once); the allocator never needs more than that sum with each
    buffer rounded up to 64 bytes in SBUF, exactly that when every buffer is live at
    once, less when live ranges let buffers share bytes; PSUM at least the sum
    (accumulators of at most a bank do not straddle banks), within the target."""
    args = mx_moe.build_arg_parser().parse_args(
        ["run", "--implementation", variant, "--hidden", "3072"]
    )
    function = next(o for o in mx_moe.build(args).module.walk() if isinstance(o, func.FuncOp))
    footprint = {Memory.SBUF: 0, Memory.PSUM: 0}
    aligned = dict(footprint)
    for op in function.walk():
        if isinstance(op, memref.AllocOp) and isinstance(op.memref.type, MemRefType):
            t = op.memref.type
            space = t.memory_space
            if not isinstance(space, nisa.MemorySpaceAttr) or space.data == nisa.MemorySpace.HBM:
                continue
            size = math.prod(t.get_shape()[1:]) * bir.element_bytes(t.get_element_type())
            memory = Memory(space.data.value)
            footprint[memory] += size
            aligned[memory] += -(-size // ALIGNMENT) * ALIGNMENT
    peak = peak_usage(function)
    assert footprint[Memory.SBUF] <= aligned[Memory.SBUF] <= TRN3.sbuf_partition_bytes
    assert peak[Memory.SBUF] <= aligned[Memory.SBUF]
    if variant != "shard_on_i_dropping":  # the others allocate everything up front
        assert peak[Memory.SBUF] == aligned[Memory.SBUF]
    assert aligned[Memory.PSUM] <= peak[Memory.PSUM] <= TRN3.psum_partition_bytes


def test_mx_moe_emit_level_bir(capsys: pytest.CaptureFixture[str]):
    argv = ["emit", "--implementation", "shard_on_i_hybrid", *SMALL, "--intermediate", "64"]
    assert mx_moe.main([*argv, "--level", "bir", "--block-size", "256"]) == 0
    text = capsys.readouterr().out
    assert "bir.register_load" in text
    assert "bir.sendrecv" in text
    assert "nisa.dma_copy" not in text
