"""How a tensor crosses a process boundary: by the name of its shared storage, never by
its values.

Everything ``multiprocessing`` sends (a ``Queue.put``, a ``Pipe`` message, a ``Pool``
task or result, a spawned ``Process``'s arguments) is pickled by
``multiprocessing.reduction.ForkingPickler``. ``init_reductions`` registers
``reduce_tensor`` with it, so a tensor is sent as::

    reduce_tensor(t):                        # in the sending process
        t.share_memory_()                    # its storage moves to a segment, in place
        return rebuild_tensor, (segment name, storage's cell type and count,
                                shape, strides, offset, dtype, device, requires_grad)

    rebuild_tensor(...):                     # in the receiving process
        map the named segment (once per process), and view it through the layout

The values stay where they are, so an in-place write by the receiver is seen by the
sender. A view is sent as its whole storage plus its own layout, and two views of one
storage received by one process share one storage again. Plain ``pickle`` (and
``minitorch.save``) still copies the values: only multiprocessing's pickler is changed.
"""

from __future__ import annotations

from multiprocessing.reduction import ForkingPickler

from minitorch import cuda, shared_storage
from minitorch._tensor import Tensor
from minitorch.device import device as Device
from minitorch.dtypes import as_dtype
from minitorch.nn.module import Parameter
from minitorch.storage_tensor import tensor_over_storage


def reduce_tensor(tensor: Tensor) -> tuple:
    """The pickled form of ``tensor``: how to rebuild it, and the segment's name."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., "
            "putting it on the queue)."
        )
    if tensor.device.type == "cuda" and not cuda.is_emulated():
        raise RuntimeError(
            "sending a CUDA tensor on a GPU to another process is not supported by "
            "minitorch (PyTorch uses CUDA IPC): send tensor.cpu() instead, or run device "
            "'cuda' on the emulator (minitorch.cuda.use_emulator()) in both processes"
        )
    tensor.share_memory_()
    segment = shared_storage.handle(tensor._storage)
    layout = (tensor.shape, tensor.stride(), tensor.storage_offset())
    return rebuild_tensor, (type(tensor), segment, *layout, tensor.dtype.name,
                            str(tensor.device), tensor.requires_grad)  # fmt: skip


def rebuild_tensor(
    kind: type,
    segment: tuple,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    offset: int,
    dtype_name: str,
    device_name: str,
    requires_grad: bool,
) -> Tensor:
    """The received tensor: the named segment, mapped here, seen through the layout."""
    device = Device(device_name)
    if device.type == "cuda" and not cuda.is_emulated():
        shared_storage.discard(segment[0])
        raise RuntimeError(
            "received a CUDA tensor, but device 'cuda' of this process does not run on the "
            "emulator, so it cannot use the emulator's memory the tensor lives in: call "
            "minitorch.cuda.use_emulator() in this process before receiving (a process "
            "started with spawn does not inherit that call; MINITORCH_CUDA=emulator in the "
            "environment is inherited), or send tensor.cpu()"
        )
    storage = shared_storage.attach(*segment)
    tensor = tensor_over_storage(storage, shape, strides, offset, as_dtype(dtype_name), device)
    if kind is Parameter:
        return Parameter(tensor, requires_grad)
    tensor.requires_grad = requires_grad
    return tensor


def init_reductions() -> None:
    """Make multiprocessing's pickler send tensors (and parameters) by shared memory."""
    for kind in (Tensor, Parameter):
        ForkingPickler.register(kind, reduce_tensor)
