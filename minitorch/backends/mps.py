"""``torch.backends.mps``: Apple's Metal GPUs. minitorch has no Metal kernels, so the
answer is always no; tutorials ask before choosing a device, and then use the CPU."""


def is_available() -> bool:
    """False: minitorch cannot run on an Apple GPU."""
    return False


def is_built() -> bool:
    """False: minitorch was not built with Metal support."""
    return False
