"""``minitorch.profiler`` (PyTorch's ``torch.profiler``): ``profile``, ``record_function``
and ``ProfilerActivity``, the same objects as in ``minitorch.autograd.profiler``, where
they are explained."""

from __future__ import annotations

from minitorch.autograd.profiler import (
    EventList,
    FunctionEventAvg,
    ProfilerActivity,
    profile,
    record_function,
)

__all__ = ["EventList", "FunctionEventAvg", "ProfilerActivity", "profile", "record_function"]
