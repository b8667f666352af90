"""Collation: how the samples of one batch become batch tensors.

* ``default_collate`` (batching on): stack a list of samples into one batch;
* ``default_convert`` (``batch_size=None``, one sample at a time): only turn NumPy arrays
  and NumPy numbers into tensors, leaving everything else as it is.

Both walk tuples, lists and dicts field by field, as PyTorch's do.

**Where a batch is written.** Stacking ``B`` samples of shape ``S`` writes each value once,
into a new tensor of shape ``(B, *S)`` (``new_batch_tensor``). In the main process
(``num_workers=0``) that tensor comes from the caching allocator, as every tensor (and
``empty`` fills it with zeros first). In a DataLoader worker it is a new shared-memory
segment (``shared_storage.empty``), as PyTorch's ``default_collate`` does in a worker:
sending the batch to the main process then sends only the segment's name, so the batch's
values are written once on their way from the samples to the model::

    worker:  samples --np.stack(out=)--> segment          (the one write)
             pickle(batch) = (segment name, layout)       (a few hundred bytes)
    main:    unpickle = map the same segment              (no copy)

Small tensors made from Python numbers (the labels) are made in ordinary memory and move
to shared memory when sent, as in PyTorch.
"""

from __future__ import annotations

import collections.abc
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import creation, shared_storage
from minitorch._tensor import Tensor
from minitorch.device import device
from minitorch.dtypes import dtype
from minitorch.layout import contiguous_strides
from minitorch.ops.shape import stack
from minitorch.storage_tensor import tensor_over_storage
from minitorch.utils.data.worker_info import get_worker_info


def default_collate(batch: Sequence[Any]) -> Any:
    """Combine a list of samples into a batch, PyTorch's way: tensors are stacked along
    a new first dimension; Python ints, floats and bools become int64, float64 and bool
    tensors; NumPy arrays become tensors; strings stay a sequence; tuples, lists and dicts are
    collated field by field (a tuple sample gives a list, as in PyTorch)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack_samples(batch)
    if isinstance(elem, np.ndarray):
        return _stack_samples([creation.tensor(np.array(b)) for b in batch])
    if isinstance(elem, (np.bool_, np.number)):
        return creation.tensor(np.array(batch))
    if isinstance(elem, float):
        return creation.tensor(batch, dtype="float64")
    if isinstance(elem, (bool, int)):
        return creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch  # as it came: a list, or a tuple from a field of tuple samples
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([sample[key] for sample in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(field) for field in zip(*batch)]
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(elem).__name__}"
    )


def _stack_samples(samples: Sequence[Tensor]) -> Tensor:
    """``stack(samples, 0)``, written where the batch is going (module docstring).

    The common case, CPU tensors of one shape and dtype that record no autograd history,
    is one ``np.stack`` of the samples' memory (``Tensor.numpy()`` is a view) into the new
    batch tensor's. Anything else goes through ``stack`` itself, which promotes mixed
    dtypes, records the autograd graph and reports a wrong shape; in a worker that batch
    is moved to shared memory when it is sent (one more copy)."""
    elem = samples[0]
    alike = all(t.dtype is elem.dtype and t.shape == elem.shape for t in samples)
    plain = all(t.device.type == "cpu" and not t.requires_grad for t in samples)
    if not (alike and plain) or elem.dtype.name == "bfloat16":  # NumPy has no bfloat16
        return stack(list(samples), 0)
    batch = new_batch_tensor((len(samples), *elem.shape), elem.dtype)
    np.stack([t.numpy() for t in samples], out=batch.numpy())
    return batch


def new_batch_tensor(shape: tuple[int, ...], kind: dtype) -> Tensor:
    """A new contiguous CPU tensor for a batch, to be written by the caller: in a
    DataLoader worker, in a shared-memory segment of its own (``get_worker_info()`` says
    where we are); elsewhere from the caching allocator, as every tensor."""
    if get_worker_info() is None:
        return creation.empty(shape, dtype=kind)
    storage = shared_storage.empty(kind.numpy, math.prod(shape), np.ndarray)
    return tensor_over_storage(storage, shape, contiguous_strides(shape), 0, kind, device("cpu"))


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
