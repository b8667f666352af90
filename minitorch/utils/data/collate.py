"""Collation: how the samples of one batch become batch tensors.

* ``default_collate`` (batching on): stack a list of samples into one batch;
* ``default_convert`` (``batch_size=None``, one sample at a time): only turn NumPy arrays
  and NumPy numbers into tensors, leaving everything else as it is.

Both walk tuples, lists and dicts field by field, as PyTorch's do.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.ops.shape import stack


def default_collate(batch: Sequence[Any]) -> Any:
    """Combine a list of samples into a batch, PyTorch's way: tensors are stacked along
    a new first dimension; Python ints, floats and bools become int64, float64 and bool
    tensors; NumPy arrays become tensors; strings stay a list; tuples, lists and dicts are
    collated field by field (a tuple sample gives a list, as in PyTorch)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        return stack([creation.tensor(np.array(b)) for b in batch], 0)
    if isinstance(elem, (np.bool_, np.number)):
        return creation.tensor(np.array(batch))
    if isinstance(elem, float):
        return creation.tensor(batch, dtype="float64")
    if isinstance(elem, (bool, int)):
        return creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([sample[key] for sample in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(elem).__name__}"
    )


def default_convert(sample: Any) -> Any:
    """One sample as the loader returns it without batching: NumPy arrays (of numbers) and
    NumPy scalars become tensors; dicts, namedtuples, tuples and lists are converted field
    by field (a tuple gives a list, as in PyTorch); anything else is returned unchanged."""
    if isinstance(sample, np.ndarray) and sample.dtype.kind not in "OSUV":
        return creation.tensor(sample)
    if isinstance(sample, (np.bool_, np.number)):
        return creation.tensor(np.array(sample))
    if isinstance(sample, collections.abc.Mapping):
        return {key: default_convert(value) for key, value in sample.items()}
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):  # a namedtuple
        return type(sample)(*(default_convert(field) for field in sample))
    if isinstance(sample, (tuple, list)):
        return [default_convert(field) for field in sample]
    return sample
