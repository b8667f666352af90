"""``channel_shuffle`` (ShuffleNet): interleave the channels of ``groups`` groups, so the
next grouped convolution sees channels from every group of the previous one.

With ``C = g * k`` channels in ``g`` groups of ``k``, view ``[N, C, *]`` as ``[N, g, k, *]``,
swap the two channel axes to ``[N, k, g, *]`` and flatten back: channel ``i * k + j``
moves to position ``j * g + i``. Only views and one copy, so the gradient is the inverse
shuffle, for free.
"""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor


def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """The channels of ``[N, C, *]`` interleaved across ``groups`` groups."""
    require_tensor("channel_shuffle", input)
    if input.ndim <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    n, c, rest = input.shape[0], input.shape[1], tuple(input.shape[2:])
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    grouped = input.reshape((n, groups, c // groups) + rest)
    return grouped.transpose(1, 2).reshape((n, c) + rest)


native_channel_shuffle = channel_shuffle
