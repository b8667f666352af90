"""Collectives of Python objects: ``broadcast_object_list``, ``all_gather_object``,
``gather_object``.

Any picklable object (a config dict, a list of file names, a random seed) travels as
its ``pickle`` bytes in a ``uint8`` tensor, through the tensor collectives. Bytes have
no fixed size, so each call moves the sizes first and the bytes second::

    all_gather_object(out, obj):
        data = pickle.dumps(obj)                   # this rank's bytes
        all_gather(sizes, len(data))               # every rank learns every size
        all_gather(blocks, data padded to max)     # equal blocks, as all_gather needs
        out[j] = pickle.loads(blocks[j][:sizes[j]])

As with ``pickle`` anywhere, only unpickle objects from ranks you trust (your own job).
"""

from __future__ import annotations

import pickle

import numpy as np

from minitorch.creation import from_numpy, zeros
from minitorch.distributed.collectives import broadcast, members_only, root_of
from minitorch.distributed.gathers import all_gather, gather
from minitorch.dtypes import int64, uint8


def _as_bytes_tensor(obj: object, length: int | None = None):
    data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8)
    padded = np.zeros(len(data) if length is None else length, dtype=np.uint8)
    padded[: len(data)] = data
    return from_numpy(padded), len(data)


def _check_list(object_list: object, name: str) -> list:
    if not isinstance(object_list, list):
        raise TypeError(f"{name} must be a list, got {type(object_list).__name__}")
    return object_list


def broadcast_object_list(object_list: list, src: int | None = None, group=None, device=None,
                          group_src: int | None = None) -> None:  # fmt: skip
    """Every rank's ``object_list`` becomes (in place) a copy of rank ``src``'s; every
    rank passes a list of the same length."""
    _check_list(object_list, "object_list")
    pg = members_only("broadcast_object_list", group)
    if pg is None:
        return
    root = root_of(pg, src, group_src, "src")
    at_root = pg.rank() == root
    size = zeros(1, dtype=int64)
    if at_root:
        data, length = _as_bytes_tensor(list(object_list))
        size.fill_(length)
    broadcast(size, group=pg, group_src=root)
    if not at_root:
        data = zeros(int(size.item()), dtype=uint8)
    broadcast(data, group=pg, group_src=root)
    if not at_root:
        received = pickle.loads(data.numpy().tobytes())
        if len(received) != len(object_list):
            raise ValueError(f"broadcast_object_list: rank {pg.ranks[root]} sent {len(received)} objects, "
                             f"this rank's list holds {len(object_list)}")  # fmt: skip
        object_list[:] = received


def _gather_objects(pg, obj: object, at: int | None) -> list | None:
    """Every rank's ``obj``, at group rank ``at`` (``None``: at every rank)."""
    n = pg.size()
    _, length = _as_bytes_tensor(obj)
    mine = zeros(1, dtype=int64)
    mine.fill_(length)
    sizes = [zeros(1, dtype=int64) for _ in range(n)]
    all_gather(sizes, mine, group=pg)
    lengths = [int(s.item()) for s in sizes]
    block, _ = _as_bytes_tensor(obj, max(lengths))
    if at is None or pg.rank() == at:
        blocks = [zeros(max(lengths), dtype=uint8) for _ in range(n)]
    if at is None:
        all_gather(blocks, block, group=pg)
    else:
        gather(block, blocks if pg.rank() == at else None, group=pg, group_dst=at)
        if pg.rank() != at:
            return None
    return [pickle.loads(b.numpy()[:k].tobytes()) for b, k in zip(blocks, lengths)]


def all_gather_object(object_list: list, obj: object, group=None) -> None:
    """Every rank's ``object_list[j]`` becomes rank ``j``'s ``obj`` (the list is filled in
    place; it must have one slot per rank)."""
    _check_list(object_list, "object_list")
    pg = members_only("all_gather_object", group)
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise ValueError(f"object_list must have one slot per rank ({pg.size()}), got {len(object_list)}")
    object_list[:] = _gather_objects(pg, obj, None)


def gather_object(obj: object, object_gather_list: list | None = None, dst: int | None = None, group=None,
                  group_dst: int | None = None) -> None:  # fmt: skip
    """Rank ``dst``'s ``object_gather_list[j]`` becomes rank ``j``'s ``obj``."""
    pg = members_only("gather_object", group)
    if pg is None:
        return
    root = root_of(pg, dst, group_dst, "dst")
    if pg.rank() == root:
        _check_list(object_gather_list, "object_gather_list")
        if len(object_gather_list) != pg.size():
            raise ValueError(f"object_gather_list must have one slot per rank ({pg.size()})")
    gathered = _gather_objects(pg, obj, root)
    if gathered is not None:
        object_gather_list[:] = gathered
