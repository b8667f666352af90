"""``F.pad``'s non-constant modes: ``reflect``, ``replicate`` and ``circular``.

Each mode says which input element a padded position copies. Along one dimension of size
``n`` padded by ``(before, after)``, the output's positions are ``j = -before, ..., n + after - 1``
in input coordinates, and position ``j`` reads input element

- ``reflect``: ``j`` mirrored at the edges, not repeating the edge (``[1, 0 | 0 1 2 | 2 1]``
  would repeat it; reflect gives ``[2, 1 | 0 1 2 | 1, 0]``): ``-j`` below 0, ``2(n-1) - j`` above;
- ``replicate``: the nearest edge, ``clamp(j, 0, n - 1)``;
- ``circular``: the input wrapped around, ``j mod n``.

So padding one dimension is one ``index_select`` with a list of indices, and its backward
(adding each output gradient into the element it was copied from) comes for free. A negative
width crops: the positions start inside the input. PyTorch pads the last 1, 2 or 3 dimensions
this way (the layers ``ReflectionPad1d/2d/3d`` and friends), with a batch dimension or not.
"""

from __future__ import annotations

from minitorch import creation
from minitorch._tensor import Tensor

MODES = ("reflect", "replicate", "circular")


def _sources(before: int, after: int, n: int, mode: str) -> list[int]:
    """The input position each output position copies, along one dimension."""
    if mode == "reflect":
        return [-j if j < 0 else (2 * (n - 1) - j if j >= n else j) for j in range(-before, n + after)]
    if mode == "replicate":
        return [min(max(j, 0), n - 1) for j in range(-before, n + after)]
    # circular, as PyTorch: crop by the negative widths first, then wrap what is left
    low, high = max(0, -before), n - max(0, -after)
    kept = high - low
    return [low + j % kept for j in range(-max(before, 0), kept + max(after, 0))]


def _check(input: Tensor, pad: tuple, mode: str) -> None:  # noqa: A002
    """PyTorch's rules: 2 widths for a 2-D/3-D input, 4 for 3-D/4-D, 6 for 4-D/5-D; reflect
    needs each width below the size, circular at most the size, replicate a non-empty size."""
    dims = len(pad) // 2
    if dims not in (1, 2, 3) or input.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    if 0 in input.shape[input.ndim - dims - 1 + (input.ndim == dims + 1) :]:
        raise RuntimeError(
            f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch size "
            f"and other non-zero dimensions for input, but got: {list(input.shape)}"
        )
    for k in range(dims):
        dim = input.ndim - 1 - k
        before, after, n = pad[2 * k], pad[2 * k + 1], input.shape[dim]
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(
                "Argument #4: Padding size should be less than the corresponding input dimension, "
                f"but got: padding ({before}, {after}) at dimension {dim} of input {list(input.shape)}"
            )
        if mode == "circular" and (before > n or after > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")


def pad_by_mode(input: Tensor, pad: tuple, mode: str) -> Tensor:  # noqa: A002
    """``input`` padded by ``pad`` (PyTorch's order: last dimension first) in ``mode``."""
    _check(input, pad, mode)
    out = input
    for k in range(len(pad) // 2):
        dim = input.ndim - 1 - k
        before, after, n = pad[2 * k], pad[2 * k + 1], input.shape[dim]
        index = creation.tensor(_sources(before, after, n, mode), device=input.device).long()
        out = out.index_select(dim, index)
    return out
