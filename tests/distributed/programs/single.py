"""Run as a plain ``python single.py`` (no mpiexec): a world of one process. Checks the
errors before and around init_process_group, bad arguments of every public function,
and that the collectives of a world of one leave (or copy) each tensor as they should.
Prints "single-process checks passed" at the end."""

import os
from datetime import timedelta

import numpy as np

import minitorch as torch
import minitorch.distributed as dist


def raises(kind, call, *words):
    try:
        call()
    except kind as error:
        assert all(w in str(error) for w in words), (kind, str(error))
    else:
        raise AssertionError(f"no {kind.__name__} from {call}")


assert dist.is_available() and not dist.is_initialized()
raises(ValueError, dist.get_rank, "not been initialized")
raises(ValueError, lambda: dist.all_reduce(torch.ones(2)), "not been initialized")
raises(RuntimeError, lambda: dist.init_process_group("nccl"), "NCCL")
raises(TypeError, lambda: dist.init_process_group("mpi", timeout=5), "timedelta")
raises(TypeError, lambda: dist.init_process_group(3))
os.environ["WORLD_SIZE"] = "4"
raises(ValueError, lambda: dist.init_process_group("mpi"), "WORLD_SIZE=4", "mpiexec")
del os.environ["WORLD_SIZE"]
raises(ValueError, lambda: dist.init_process_group("mpi", rank=2), "RANK=2")
assert not dist.is_initialized()

dist.init_process_group("mpi", timeout=timedelta(seconds=20))
assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "mpi")
assert dist.group.WORLD is dist.GroupMember.WORLD and dist.group.WORLD.size() == 1
raises(ValueError, lambda: dist.init_process_group("mpi"), "twice")

tensor_calls = {
    "all_reduce": lambda t: dist.all_reduce(t),
    "broadcast": lambda t: dist.broadcast(t, src=0),
    "reduce": lambda t: dist.reduce(t, dst=0),
    "all_gather": lambda t: dist.all_gather([torch.ones(2)], t),
    "all_gather list": lambda t: dist.all_gather(t, torch.ones(2)),
    "all_gather_into_tensor": lambda t: dist.all_gather_into_tensor(t, torch.ones(2)),
    "gather": lambda t: dist.gather(t, [torch.ones(2)], dst=0),
    "scatter": lambda t: dist.scatter(t, [torch.ones(2)], src=0),
    "reduce_scatter": lambda t: dist.reduce_scatter(t, [torch.ones(2)]),
    "reduce_scatter list": lambda t: dist.reduce_scatter(torch.ones(2), t),
    "reduce_scatter_tensor": lambda t: dist.reduce_scatter_tensor(t, torch.ones(2)),
    "all_to_all": lambda t: dist.all_to_all(t, [torch.ones(2)]),
    "send": lambda t: dist.send(t, dst=0),
    "isend": lambda t: dist.isend(t, dst=0),
    "recv": lambda t: dist.recv(t, src=0),
    "irecv": lambda t: dist.irecv(t, src=0),
}
for name, call in tensor_calls.items():
    for bad in (None, "x", 3.0, np.ones(2)):
        try:
            call(bad)
        except TypeError:
            continue
        raise AssertionError(f"{name} with {bad!r} did not raise TypeError")
raises(TypeError, lambda: dist.all_reduce(torch.ones(2), op="sum"), "ReduceOp")
raises(RuntimeError, lambda: dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BXOR), "floating")
raises(RuntimeError, lambda: dist.all_reduce(torch.ones(2, dtype=torch.bool), op=dist.ReduceOp.AVG))
raises(RuntimeError, lambda: dist.all_gather([torch.ones(2)] * 2, torch.ones(2)), "one tensor per rank")
raises(RuntimeError, lambda: dist.all_gather([torch.ones(3)], torch.ones(2)), "shape")
raises(ValueError, lambda: dist.send(torch.ones(2), dst=0), "destination rank")
raises(ValueError, lambda: dist.broadcast(torch.ones(2), src=5), "not part of group")
raises(TypeError, lambda: dist.broadcast(torch.ones(2), src="0"))
raises(TypeError, lambda: dist.all_reduce(torch.ones(2), group="WORLD"), "ProcessGroup")
raises(TypeError, lambda: dist.broadcast_object_list("abc"))
raises(TypeError, lambda: dist.all_gather_object(None, 1))

# a world of one: a sum of one tensor, an average over one rank, a gather of one
x = torch.arange(6.0).reshape(2, 3).t()
dist.all_reduce(x, op=dist.ReduceOp.AVG)
np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3).T)
outputs = [torch.zeros(3, 2)]
work = dist.all_gather(outputs, x, async_op=True)
assert work.wait() and work.is_completed() and work.is_success()
np.testing.assert_array_equal(outputs[0].numpy(), x.numpy())
objects = [None]
dist.all_gather_object(objects, {"a": [1, 2]})
assert objects == [{"a": [1, 2]}]
leaf = torch.ones(3, requires_grad=True)
dist.all_reduce(leaf)  # as PyTorch: a collective writes a leaf that requires grad
assert leaf.requires_grad and leaf.grad_fn is None
dist.destroy_process_group()
assert not dist.is_initialized()
dist.init_process_group("gloo")  # PyTorch's CPU backend name runs on MPI here
dist.barrier()
dist.destroy_process_group()
print("single-process checks passed")
