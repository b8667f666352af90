"""Homework checks for the course notebooks (``notebooks/exercises/``).

Each ``check_*`` function runs a student's code against minitorch's own reference on many
cases (non-contiguous and broadcast ones included) and either prints one line saying how
many cases agree, or raises ``CheckFailed`` explaining the *first* disagreement in plain
words. Code that still raises ``NotImplementedError`` is reported as "not done yet".

    >>> from minitorch.course import check_index_to_position
    >>> check_index_to_position(my_index_to_position)
    ✓ index_to_position agrees with the reference on 200 cases ...

The checks for later chapters import their chapter's extra dependencies (Numba, the CUDA
emulator, nn) only when called.
"""

from minitorch.course.autograd_checks import check_function, check_topological_order
from minitorch.course.kernel_checks import check_map_kernel, check_sum_kernel, check_zip_kernel
from minitorch.course.layout_checks import (
    check_broadcast_shapes,
    check_contiguous_strides,
    check_expand,
    check_index_to_position,
    check_narrow,
    check_ordinal_to_index,
    check_permute,
)
from minitorch.course.notebook_setup import REPO_URL, setup
from minitorch.course.report import CheckFailed, NotDoneYet

__all__ = [
    "REPO_URL", "setup", "CheckFailed", "NotDoneYet",
    "check_index_to_position", "check_ordinal_to_index", "check_contiguous_strides",
    "check_permute", "check_narrow", "check_expand", "check_broadcast_shapes",
    "check_map_kernel", "check_zip_kernel", "check_sum_kernel",
    "check_function", "check_topological_order",
]  # fmt: skip
