"""``BufferOperands`` (``mxdsl.numerics.matmul``): the PE operand of a tile cut from a
buffer analysed in chunks is the one ``pe_operand`` gives the tile alone, field for field and
bit for bit, on buffers with all-zero columns, infinities and NaNs; and a tile asked for
again is the same object (its widening done once)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mxdsl.numerics import matmul
from mxdsl.numerics.matmul import BufferOperands, PePass, pe_operand, pe_passes_into


def _buffer(dtype: np.dtype, plain: bool = False) -> np.ndarray:
    """Random values 2**+-12 apart; unless ``plain`` (every column nonzero and finite, so
    a tile inside whole chunks takes the fast path) with zero columns and specials."""
    rng = np.random.default_rng(7)
    values = rng.standard_normal((16, 3, 2, 24)) * np.exp2(rng.integers(-12, 12, (16, 3, 2, 24)))
    if plain:
        return values.astype(dtype)
    values[:, :, :, 20:] = 0.0  # padding columns at the end of every tile
    values[:, 1, 0, 3] = 0.0  # an all-zero column inside a tile
    values[5, 2, 1, 7] = np.inf
    values[9, 0, 1, 2] = np.nan
    values[0, 1, 1, 0] = -0.0
    return values.astype(dtype)


def _words(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).view(np.uint64)


def _same_selection(a: slice | np.ndarray, b: slice | np.ndarray, width: int) -> bool:
    return np.array_equal(np.arange(width)[a], np.arange(width)[b])


@pytest.mark.parametrize("plain", [False, True])
@pytest.mark.parametrize("chunk", [8, 2048])
@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float32, np.float16])
def test_a_tile_cut_from_the_whole_buffer_is_its_own_analysis(
    dtype, chunk, plain, monkeypatch
) -> None:
    """Chunks of 8 columns split the tiles of 24 (and the strided tile) across chunks;
    every column of the buffer is read once, whatever the tiles. A plain buffer's tiles
    take the path without reductions (their chunks known all nonzero and finite); the
    others' tiles each hold a zero column or a special value."""
    monkeypatch.setattr(matmul, "ANALYSIS_CHUNK", chunk)
    buffer = _buffer(np.dtype(dtype), plain)
    operands = BufferOperands(buffer, lambda a: a.astype(np.float64))
    tiles = [buffer[:, k, j, :] for k in range(3) for j in range(2)]
    tiles.append(buffer.reshape(16, 144)[:, 50:90:2])  # a column step of 2
    read: list[int] = []
    quick = matmul.quick_column_bits
    with monkeypatch.context() as patch:
        patch.setattr(
            matmul, "quick_column_bits", lambda t, *a: read.append(t.shape[1]) or quick(t, *a)
        )
        got = [operands.operand(tile, operands.columns_of(tile) or slice(0)) for tile in tiles]
    assert sum(read) == buffer[0].size
    for tile, operand in zip(tiles, got, strict=True):
        want = pe_operand(tile)
        width = tile.shape[1]
        assert _same_selection(operand.columns, want.columns, width)
        assert _same_selection(operand.zero_columns, want.zero_columns, width)
        assert operand.finite == want.finite
        for field in ("top", "low", "count", "width"):
            got_field, want_field = (getattr(o.quick_bits, field) for o in (operand, want))
            assert np.array_equal(got_field, want_field)
        assert operand.quick_bits.log == want.quick_bits.log
        assert np.array_equal(_words(operand.widened), _words(want.widened))
        columns = operands.columns_of(tile)
        assert columns is not None
        assert operands.operand(tile, columns) is operand  # asked again: the same operand


def test_views_that_are_not_tiles_of_all_partitions_are_refused() -> None:
    buffer = _buffer(np.dtype(ml_dtypes.bfloat16))
    operands = BufferOperands(buffer, lambda a: a.astype(np.float64))
    assert operands.columns_of(buffer[:8, 0, 0, :]) is None  # not every partition
    assert operands.columns_of(buffer[:, 0, 0, :].T) is None  # partitions not on rows
    assert operands.columns_of(buffer[::2, 0, 0, :]) is None
    assert operands.columns_of(buffer[:, 0, 0, :]) == slice(0, 24, 1)
    assert operands.columns_of(buffer[:, 2, 1, 5:9]) == slice(125, 129, 1)  # (k * 2 + j) * 24 + 5
    assert not BufferOperands.supports(np.zeros((4, 8), np.int32))
    assert not BufferOperands.supports(np.zeros((4, 8), np.float32)[:, ::2])


def test_passes_from_buffer_operands_equal_passes_from_tiles() -> None:
    """A batch of passes whose operands come from the buffer writes the same PSUM bits
    as one whose operands are analysed tile by tile."""
    tokens = _buffer(np.dtype(ml_dtypes.bfloat16))
    tokens[np.isnan(tokens.astype(np.float32)) | np.isinf(tokens.astype(np.float32))] = 1
    weights = np.random.default_rng(3).standard_normal((16, 6, 8)).astype(ml_dtypes.bfloat16)
    from_buffer = BufferOperands(weights, lambda a: a.astype(np.float64))
    moving_buffer = BufferOperands(tokens, lambda a: a.astype(np.float64))
    got = [np.zeros((8, 24), np.float32) for _ in range(3)]
    want = [np.zeros((8, 24), np.float32) for _ in range(3)]
    for k in range(3):
        tile = tokens[:, k, 0, :]
        stationary = [weights[:, 2 * i + (k % 2), :] for i in range(3)]
        moving = moving_buffer.operand(tile, moving_buffer.columns_of(tile) or slice(0))
        pe_passes_into(
            moving,
            [
                PePass(d, from_buffer.operand(s, from_buffer.columns_of(s) or slice(0)), k > 0)
                for d, s in zip(got, stationary, strict=True)
            ],
        )
        pe_passes_into(
            pe_operand(tile),
            [PePass(d, pe_operand(s), k > 0) for d, s in zip(want, stationary, strict=True)],
        )
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g.view(np.uint32), w.view(np.uint32))
