"""exact.scratch: a per-thread reusable array of the asked dtype and shape."""

import threading

import numpy as np

from mxdsl.numerics.exact import scratch


def test_scratch_has_the_shape_and_dtype_asked_and_reuses_its_memory() -> None:
    big = scratch(np.dtype(np.uint16), (128, 512))
    assert big.shape == (128, 512)
    assert big.dtype == np.uint16
    small = scratch(np.dtype(np.uint16), (3, 7))
    assert small.shape == (3, 7)
    assert small.size == 21
    assert np.shares_memory(big, small)  # the same buffer, not a new one
    assert scratch(np.dtype(np.uint16), (0, 5)).shape == (0, 5)
    assert scratch(np.dtype(np.uint16), ()).shape == ()
    larger = scratch(np.dtype(np.uint16), (256, 512))
    assert larger.shape == (256, 512)  # grown past the first request


def test_scratch_is_per_thread() -> None:
    here = scratch(np.dtype(np.uint32), (64, 64))
    there: list[np.ndarray] = []
    thread = threading.Thread(target=lambda: there.append(scratch(np.dtype(np.uint32), (64, 64))))
    thread.start()
    thread.join()
    assert not np.shares_memory(here, there[0])
