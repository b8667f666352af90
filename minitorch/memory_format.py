"""PyTorch's memory formats: the order in which a tensor's dimensions lie in memory.

The shape never changes, only the strides do. ``contiguous_format`` is row-major (the last
dimension varies fastest). ``channels_last`` keeps a 4-D batch of images ``(N, C, H, W)``
in memory as ``N, H, W, C`` (each pixel's channels side by side, as many convolution
kernels like them); ``channels_last_3d`` does the same for ``(N, C, D, H, W)``.
``preserve_format`` (the default of ``to``, ``float``, ``clone``...) keeps the input's order.

For ``x`` of shape ``(2, 3, 4, 5)``: contiguous strides are ``(60, 20, 5, 1)``;
channels-last strides are ``(60, 1, 15, 3)``: walking C moves one cell, walking W moves
past the 3 channels of a pixel.
"""

from __future__ import annotations


class memory_format:  # noqa: N801 (PyTorch's class name: torch.memory_format)
    """One of the four formats below; compared by identity, as PyTorch's are."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name  # pickled and copied as the module's own object


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

# format -> (the rank it needs, its dimensions from outermost to innermost in memory)
_ORDERS = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def check_memory_format(value: object, function: str) -> memory_format:
    """``value`` if it is a memory format, else PyTorch's TypeError."""
    if not isinstance(value, memory_format):
        raise TypeError(
            f"{function}(): argument 'memory_format' must be torch.memory_format, not {type(value).__name__}"
        )
    return value


def dimension_order(fmt: memory_format, ndim: int) -> tuple[int, ...]:
    """The dimensions from outermost to innermost in memory (not for ``preserve_format``)."""
    if fmt is contiguous_format:
        return tuple(range(ndim))
    if fmt not in _ORDERS:
        raise ValueError(f"{fmt} has no fixed dimension order")
    rank, order = _ORDERS[fmt]
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    return order


def is_laid_out(shape: tuple[int, ...], strides: tuple[int, ...], fmt: memory_format) -> bool:
    """Whether a tensor with these strides is already in ``fmt`` (size-1 dims: any stride)."""
    return _laid_out(shape, strides, fmt)


def strides_for(shape: tuple[int, ...], fmt: memory_format) -> tuple[int, ...]:
    """The strides of a dense tensor of ``shape`` laid out in ``fmt``."""
    strides = [0] * len(shape)
    step = 1
    for d in reversed(dimension_order(fmt, len(shape))):
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def _laid_out(shape: tuple[int, ...], strides: tuple[int, ...], fmt: memory_format) -> bool:
    wanted = strides_for(shape, fmt)
    return all(size <= 1 or have == want for size, have, want in zip(shape, strides, wanted))


def suggested_format(shape: tuple[int, ...], strides: tuple[int, ...]) -> memory_format:
    """PyTorch's ``suggest_memory_format``: ``channels_last`` (or ``_3d``) for a tensor of
    rank 4 (5) laid out that way and not also row-major, else ``contiguous_format``."""
    for fmt, (rank, _) in _ORDERS.items():
        if (
            len(shape) == rank
            and _laid_out(shape, strides, fmt)
            and not _laid_out(shape, strides, contiguous_format)
        ):
            return fmt
    return contiguous_format
