"""Runs fit in memory (issue 16 item 3): inputs are generated one expert at a time, the
goldens convert (or dequantize) one expert at a time, the kernel reads its HBM inputs
without copying them, and the progress bar gives an ETA. Figures: docs/moe-cte.md."""

from __future__ import annotations

import io
import re
import tracemalloc

import ml_dtypes
import numpy as np

from mxdsl.kernels.moe_cte import (
    MoECTEImplementation,
    MoECTEOptions,
    MoECTESizes,
    MoECTESpec,
    build_moe_cte,
    progress_bar,
)
from mxdsl.kernels.moe_cte.mx_formats import weight_format
from mxdsl.kernels.moe_cte.reference import golden as golden_module
from mxdsl.kernels.moe_cte.reference import make_inputs, moe_cte_mx_golden
from mxdsl.kernels.moe_cte.reference.golden import PerExpert, moe_cte_golden, relative_error
from mxdsl.kernels.moe_cte.reference.inputs import expert_weights, golden_options
from mxdsl.kernels.moe_cte.reference.mx import (
    fake_quantize_hidden,
    fake_quantize_intermediate,
    make_mx_inputs,
    unpack_down,
    unpack_gate_up,
)


def test_the_weights_are_each_experts_own_stream():
    spec = MoECTESpec(MoECTEImplementation.shard_on_i)
    sizes = MoECTESizes(512, 256, 3, 40, 256, 2)
    arrays = make_inputs(spec, sizes, MoECTEOptions(), seed=11).arrays
    for e in range(3):
        gu, d = expert_weights(11, e, 512, 256)
        assert gu.dtype == np.float32
        assert np.array_equal(arrays["gate_up_proj_weight"][e], gu.astype(ml_dtypes.bfloat16))
        assert np.array_equal(arrays["down_proj_weight"][e], d.astype(ml_dtypes.bfloat16))
    # N(0, 1/fan_in): the sample variance of 512 x 2 x 256 draws is close to 1/512
    assert abs(float(np.var(expert_weights(11, 0, 512, 256)[0])) * 512 - 1.0) < 0.05


def test_the_mx_golden_dequantizes_per_expert_with_the_same_result():
    """The lazy (PerExpert) MX golden equals the golden over all experts unpacked at once;
    the dense weights are not kept but drawn again from the seed."""
    spec = MoECTESpec(MoECTEImplementation.shard_on_i_mx)
    sizes = MoECTESizes(512, 1024, 3, 60, 256, 2)
    options = MoECTEOptions(bias=True)
    inputs = make_mx_inputs(spec, sizes, options, seed=2)
    a = inputs.arrays
    wf = weight_format(options.mx_weights)
    eager = moe_cte_golden(
        a["hidden_states"],
        a["expert_affinities_masked"],
        unpack_gate_up(a["gate_up_proj_weight"], a["gate_up_proj_scale"], wf),
        unpack_down(a["down_proj_weight"], a["down_proj_scale"], wf),
        a["token_position_to_id"],
        a["block_to_expert"],
        quantize_hidden=fake_quantize_hidden,
        quantize_intermediate=fake_quantize_intermediate,
        **golden_options(a, options, inputs.active_blocks, False),
    )
    lazy = moe_cte_mx_golden(a, options, active_blocks=inputs.active_blocks)
    assert np.array_equal(lazy, eager)
    assert np.count_nonzero(lazy) > 0
    dense = inputs.extra["dense_gate_up"]
    assert isinstance(dense, PerExpert)
    gu, _ = expert_weights(2, 1, 512, 1024)
    assert np.array_equal(dense[1], gu.astype(ml_dtypes.bfloat16).astype(np.float32))


def test_a_run_allocates_far_less_than_its_weights():
    """tracemalloc sees numpy's allocations: the kernel run holds the HBM inputs as
    read-only views (no copy), so its peak (tile temporaries, the outputs) stays below
    what copying even one weight tensor would take."""
    spec = MoECTESpec(MoECTEImplementation.shard_on_block)
    sizes = MoECTESizes(1024, 1024, 16, 16, 128, 1)
    kernel = build_moe_cte(spec, sizes)
    inputs = make_inputs(spec, sizes, MoECTEOptions(), seed=0)
    weight_bytes = inputs.arrays["gate_up_proj_weight"].nbytes
    weight_bytes += inputs.arrays["down_proj_weight"].nbytes
    assert weight_bytes == 16 * 3 * 1024 * 1024 * 2  # 96 MiB of bf16
    tracemalloc.start()
    try:
        out = kernel.run(inputs.arrays)["output"]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.shape == (17, 1024)
    # a copy of the gate/up weights alone would be 64 MiB, 2/3 of them
    assert peak < weight_bytes / 2, peak


def test_the_mx_golden_holds_about_one_experts_float32_weights_per_thread():
    """The MX golden dequantizes one expert at a time per thread, 512 columns per step,
    and drops an expert's float32 gate/up weights before making the next: its allocation
    peak stays below two experts' float32 gate/up weights on one thread (a whole-expert
    unpack took 4.6 of them), and about one more per further thread."""
    spec = MoECTESpec(MoECTEImplementation.shard_on_i_mx)
    sizes = MoECTESizes(2048, 2048, 3, 64, 256, 1)
    options = MoECTEOptions()
    inputs = make_mx_inputs(spec, sizes, options, seed=1)
    expert_bytes = 2048 * 2 * 2048 * 4  # one expert's [H, 2, I] float32
    for threads, bound in ((1, 2), (2, 3)):
        tracemalloc.start()
        try:
            golden = moe_cte_mx_golden(
                inputs.arrays, options, active_blocks=inputs.active_blocks, threads=threads
            )
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert np.count_nonzero(golden) > 0
        assert peak < bound * expert_bytes, (threads, peak)


def test_the_mx_inputs_hold_about_one_experts_dense_weights_per_thread():
    """make_mx_inputs draws and packs one expert at a time per thread, and with the fp32
    dense golden keeps that expert's dense gate/up and down weights until its rows are
    added: beyond the kernel's arrays and the golden's output the peak stays within
    about two experts' float32 weights per thread."""
    spec = MoECTESpec(MoECTEImplementation.shard_on_i_mx)
    sizes = MoECTESizes(2048, 2048, 4, 64, 256, 1)
    expert_bytes = 3 * 2048 * 2048 * 4  # one expert's gate/up and down, float32
    for threads in (1, 2):
        tracemalloc.start()
        try:
            inputs = make_mx_inputs(
                spec, sizes, MoECTEOptions(), seed=1, dense_golden=True, threads=threads
            )
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        held = sum(a.nbytes for a in inputs.arrays.values())
        dense = inputs.extra["dense_golden"]
        assert isinstance(dense, np.ndarray)
        assert peak - held - dense.nbytes < 2 * threads * expert_bytes, (threads, peak)


def test_relative_error_sums_in_chunks_without_a_float64_copy(monkeypatch):
    """Chunked float64 sums give the plain formula's value (numpy's norms over whole
    float64 copies), across chunk boundaries, and allocate less than one float64 copy."""
    rng = np.random.default_rng(4)
    reference = rng.standard_normal((4097, 3)).astype(np.float32)
    result = (reference + 1e-3 * rng.standard_normal((4097, 3))).astype(np.float32)
    g = reference.astype(np.float64)
    plain = np.linalg.norm(result.astype(np.float64) - g) / np.linalg.norm(g)
    monkeypatch.setattr(golden_module, "ERROR_CHUNK_ELEMENTS", 1000)
    assert abs(relative_error(result, reference) - plain) <= 1e-12 * plain
    assert relative_error(reference, reference) == 0.0
    assert relative_error(np.ones(5, np.float32), np.zeros(5, np.float32)) == np.sqrt(5)
    monkeypatch.undo()
    big = rng.standard_normal((4096, 1024)).astype(np.float32)  # 16 MiB
    other = big * np.float32(1.001)
    tracemalloc.start()
    try:
        error = relative_error(big, other)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert abs(error - 0.001 / 1.001) < 1e-6
    assert peak < big.size * 8, peak  # less than one float64 copy of the [4096, 1024]


def test_the_progress_bar_shows_elapsed_time_and_an_eta():
    stream = io.StringIO()
    report = progress_bar(4, stream)
    report(1)
    report(4)
    report(4)  # nothing more after the end
    start, first, *_, last = stream.getvalue().split("\r")[1:]
    assert re.fullmatch(r"blocks \[\.{30}\] 0/4 \d+:\d\d, ETA \?", start)
    assert re.fullmatch(r"blocks \[#{7}\.{23}\] 1/4 \d+:\d\d, ETA \d+:\d\d", first)
    assert re.fullmatch(r"blocks \[#{30}\] 4/4 \d+:\d\d, ETA \d+:\d\d\n", last)
