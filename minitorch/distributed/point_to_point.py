"""Point-to-point messages: ``send``/``recv`` and their non-blocking forms ``isend``/``irecv``.

One rank sends a tensor, one other rank receives it into a tensor of the same shape and
dtype. On the wire each message is two MPI messages on the group's ``p2p`` communicator:

1. a *header*, the fixed-size signature row of the tensor (dtype and shape), tag ``2*tag``;
2. the tensor's bytes, tag ``2*tag + 1``.

The receiver reads the header first and refuses a tensor that does not match its own
(``DistBackendError`` naming both), instead of letting MPI truncate it or fill half of it.
MPI delivers the messages of one sender to one receiver with one tag in the order they
were sent, so header ``k`` always describes data ``k``. ``src=None`` receives from any
rank: the header says which one sent, and the data is then taken from that rank.
"""

from __future__ import annotations

import numpy as np

from minitorch.distributed import signature, work
from minitorch.distributed.buffers import check_tensor, mpi_buffer
from minitorch.distributed.collectives import members_only, root_of
from minitorch.distributed.errors import DistBackendError
from minitorch.distributed.work import Pending


def _check_tag(tag: object) -> int:
    if not isinstance(tag, int) or isinstance(tag, bool) or tag < 0:
        raise ValueError(f"tag must be a non-negative int, got {tag!r}")
    return tag


def _itemsize(header: np.ndarray) -> int:
    """Bytes per element of the dtype a header names."""
    from minitorch.dtypes import as_dtype

    return as_dtype(signature.DTYPES[int(header[signature.DTYPE])]).itemsize


def isend(tensor, dst: int | None = None, group=None, tag: int = 0, group_dst: int | None = None):
    """Start sending ``tensor`` to world rank ``dst``; returns a ``Work`` (do not change
    ``tensor`` until its ``wait()`` returns)."""
    check_tensor(tensor)
    tag = _check_tag(tag)
    pg = members_only("isend", group)
    if pg is None:
        return None
    if dst is None and group_dst is None:
        raise ValueError("isend needs dst (or group_dst)")
    peer = root_of(pg, dst, group_dst, "dst")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank "
                         "of the current process.")  # fmt: skip
    header = signature.encode(0, "send", dtype=tensor.dtype, shape=tensor.shape)

    def steps():
        with mpi_buffer(tensor, write=False) as cells:
            requests = [pg.p2p.Isend(header, dest=peer, tag=2 * tag),
                        pg.p2p.Isend(cells, dest=peer, tag=2 * tag + 1)]  # fmt: skip
            yield Pending(requests, f"rank {pg.ranks[peer]} has not received the tensor (tag {tag})")

    return work.run("send", pg, steps(), async_op=True, ordered=False)


def irecv(tensor, src: int | None = None, group=None, tag: int = 0, group_src: int | None = None):
    """Start receiving into ``tensor`` from world rank ``src`` (``None``: from any rank);
    returns a ``Work`` whose ``wait()`` returns when the tensor holds the message."""
    from mpi4py import MPI  # optional: only distributed programs need mpi4py

    check_tensor(tensor)
    tag = _check_tag(tag)
    pg = members_only("irecv", group)
    if pg is None:
        return None
    anyone = src is None and group_src is None
    peer = MPI.ANY_SOURCE if anyone else root_of(pg, src, group_src, "src")
    if peer == pg.rank():
        raise ValueError("Invalid source rank: source rank should not be the same as the rank of the "
                         "current process.")  # fmt: skip
    expected = signature.encode(0, "send", dtype=tensor.dtype, shape=tensor.shape)

    def steps():
        header, status = np.zeros(signature.LENGTH, dtype=np.int64), MPI.Status()
        who = "any rank" if anyone else f"rank {pg.ranks[peer]}"
        request = pg.p2p.Irecv(header, source=peer, tag=2 * tag)
        yield Pending([request], f"no tensor has come from {who} (tag {tag})", statuses=[status])
        sender = status.Get_source()
        if not np.array_equal(header[signature.DTYPE:], expected[signature.DTYPE:]):
            # take the tensor anyway, into a scratch buffer, so that the sender is not left
            # waiting for a receive that will never come, then refuse it
            sent = np.empty(int(header[signature.NUMEL]) * _itemsize(header), dtype=np.uint8)
            yield Pending([pg.p2p.Irecv(sent, source=sender, tag=2 * tag + 1)], "the refused tensor")
            raise DistBackendError(
                f"rank {pg.global_rank} expected to receive a {signature.describe_tensor(expected)}, "
                f"but rank {pg.ranks[sender]} sent a {signature.describe_tensor(header)} (tag {tag})")
        with mpi_buffer(tensor) as cells:
            request = pg.p2p.Irecv(cells, source=sender, tag=2 * tag + 1)
            yield Pending([request], f"the tensor from rank {pg.ranks[sender]} has not finished arriving")
        return pg.ranks[sender]

    return work.run("recv", pg, steps(), async_op=True, ordered=False)


def send(tensor, dst: int | None = None, group=None, tag: int = 0, group_dst: int | None = None) -> None:
    """Send ``tensor`` to world rank ``dst`` and wait until it has left (``isend(...).wait()``)."""
    handle = isend(tensor, dst, group, tag, group_dst)
    if handle is not None:
        handle.wait()


def recv(tensor, src: int | None = None, group=None, tag: int = 0, group_src: int | None = None) -> int:
    """Receive a tensor from world rank ``src`` (``None``: any rank) into ``tensor``;
    returns the world rank it came from."""
    handle = irecv(tensor, src, group, tag, group_src)
    if handle is None:
        return -1
    return handle.result()


class P2POp:
    """One send or receive of a ``batch_isend_irecv``: ``P2POp(dist.isend, tensor, peer)``."""

    def __init__(self, op, tensor, peer: int | None = None, group=None, tag: int = 0,
                 group_peer: int | None = None) -> None:  # fmt: skip
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")  # fmt: skip
        check_tensor(tensor)
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = (
            op, tensor, peer, group, tag, group_peer)  # fmt: skip


def batch_isend_irecv(p2p_op_list: list) -> list:
    """Start every send and receive of the list at once; returns their ``Work`` handles.
    (All are posted before any is waited for, so a ring of sends and receives cannot
    deadlock.)"""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError("batch_isend_irecv takes a list of P2POp")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]
