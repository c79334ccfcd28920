"""Every MoE-CTE variant lowered to bir runs bit-identical to its nisa kernel on 2 cores
(issue 17): the raw bytes of every output argument (checkpoints included), small
configurations. One configuration per variant at H = 3072 runs from the command line
(``benchmarks/moe_bir.py``; figures in docs/bir.md)."""

from __future__ import annotations

import pytest

from mxdsl.tools import mx_moe

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


@pytest.mark.parametrize("variant", list(CASES))
def test_bir_bit_identical_to_nisa(variant: str):
    argv = ["run", "--implementation", variant, *SMALL, *CASES[variant]]
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
