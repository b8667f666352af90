"""``meshgrid``: coordinate grids from 1-D coordinate vectors, as expanded views.

Given vectors ``x`` (n values) and ``y`` (m values), ``meshgrid(x, y, indexing="ij")``
returns two ``(n, m)`` grids: ``X[i, j] = x[i]`` and ``Y[i, j] = y[j]``, so that
``(X[i, j], Y[i, j])`` runs over every pair. Nothing is copied: ``X`` is ``x`` viewed
as a column ``(n, 1)`` and stretched to ``(n, m)`` with stride 0 along the columns
(``expand``), ``Y`` is ``y`` as a row ``(1, m)`` stretched down the rows.

``indexing="xy"`` is the convention of plots and of NumPy's default: the first vector
runs along the *columns* (x is horizontal), so the first two dimensions of every grid
are swapped: the grids are ``(m, n)``. PyTorch's default is ``"ij"``, and it warns when
the argument is left out, since that default may change; so do we.
"""

from __future__ import annotations

import warnings
from typing import Any

from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensors


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """One grid per input: grid ``k`` repeats input ``k`` along every other dimension.
    Takes the vectors as arguments or as one list; 0-d tensors count as 1 value."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    require_tensors("meshgrid", tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)  # fmt: skip
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}"
            )
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    sizes = [t.numel() for t in tensors]
    dims = list(range(len(tensors)))  # the grid dimension each input runs along
    if indexing == "xy" and len(tensors) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
        dims[0], dims[1] = 1, 0
    grids = []
    for t, dim in zip(tensors, dims):
        along = [1] * len(sizes)
        along[dim] = -1
        grids.append(t.reshape(along).expand(sizes))
    return tuple(grids)
