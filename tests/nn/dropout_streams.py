"""Whether PyTorch's CPU dropout masks can be reproduced on this machine.

PyTorch draws ``bernoulli_(p)`` (and so ``dropout``'s mask) from MKL's own generator when
it is built with MKL and runs on an Intel CPU; elsewhere (AMD, ARM, no MKL) it draws from
its Mersenne Twister, as minitorch does. Tests comparing training-mode dropout with
PyTorch's after the same seed skip on the first kind of machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch


def pytorch_uses_mkl_for_bernoulli() -> bool:
    cpuinfo = Path("/proc/cpuinfo")
    intel = cpuinfo.exists() and "GenuineIntel" in cpuinfo.read_text(errors="replace")
    return intel and torch.backends.mkl.is_available()


same_dropout_masks = pytest.mark.skipif(
    pytorch_uses_mkl_for_bernoulli(), reason="PyTorch draws CPU dropout masks from MKL on Intel CPUs"
)
