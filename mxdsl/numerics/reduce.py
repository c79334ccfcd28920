"""The one reduction order of ``tensor_reduce``, shared by nisa and bir.

numpy's own reductions sum floats pairwise and walk several axes in the order of their
strides, so the rounding of ``np.add.reduce(x, axis=...)`` depends on the shape and the
layout it is handed. The nisa interpreter reduces a buffer's trailing dims, the bir
interpreter the innermost pairs of an access pattern over the same elements (the lowering
may merge or split dims into pairs), so the two would only agree by chance. The order is
therefore defined here: the reduced elements of each kept position are combined one at a
time in row-major order, ``((x0 op x1) op x2) op ...``, each step rounded in the
operand's dtype (f32, or exact integers and raw bits). For the ops whose result does not
depend on the order (maximum, minimum, the bitwise and logical ops) this is the only
possible result anyway; for add, subtract and multiply it pins it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fold_trailing(ufunc: np.ufunc, data: np.ndarray, axis: Sequence[int]) -> np.ndarray:
    """``ufunc`` folded left to right over the trailing axes ``axis`` of ``data`` (row-major
    order of the reduced elements), in ``data``'s dtype: ``ufunc.accumulate`` is
    sequential by definition, and its last element is the fold. An empty reduction
    gives the ufunc's identity."""
    count = len(axis)
    if tuple(axis) != tuple(range(data.ndim - count, data.ndim)):
        raise ValueError(f"axes {list(axis)} are not the trailing axes of a rank-{data.ndim} array")
    flat = data.reshape(*data.shape[: data.ndim - count], -1)
    if flat.shape[-1] == 0:
        return ufunc.reduce(flat, axis=-1)
    return ufunc.accumulate(flat, axis=-1)[..., -1]


__all__ = ["fold_trailing"]
