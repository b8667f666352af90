"""``torch.backends.cudnn``: the switches tutorials set for NVIDIA's cuDNN library.

minitorch's CUDA kernels are its own (``kernels/``), never cuDNN's, and they are
deterministic, so these flags are accepted and change nothing: ``deterministic = True``
is already true, and ``benchmark = True`` has no algorithms to choose between.
"""

enabled = True
deterministic = False
benchmark = False
allow_tf32 = True


def is_available() -> bool:
    """False: minitorch does not use cuDNN."""
    return False


def version() -> None:
    """None, as PyTorch answers when cuDNN is not available."""
    return None
