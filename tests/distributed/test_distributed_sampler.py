"""``DistributedSampler`` against PyTorch's: the same indices on every rank for the same
dataset size, seed, epoch, replicas, ``shuffle`` and ``drop_last`` (no process group:
``num_replicas`` and ``rank`` are given)."""

import pytest
import torch.utils.data.distributed as torch_distributed

import minitorch
from minitorch.utils.data.distributed import DistributedSampler


class Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("drop_last", [False, True])
def test_indices_equal_pytorchs(shuffle, drop_last):
    for n in (0, 1, 2, 3, 5, 7, 10, 16, 33, 100):
        for replicas in (1, 2, 3, 4, 7, 12):
            for seed, epoch in ((0, 0), (3, 1), (1234, 5)):
                for rank in range(replicas):
                    ours = DistributedSampler(Sized(n), replicas, rank, shuffle, seed, drop_last)
                    theirs = torch_distributed.DistributedSampler(
                        Sized(n), replicas, rank, shuffle, seed, drop_last
                    )
                    ours.set_epoch(epoch)
                    theirs.set_epoch(epoch)
                    case = (n, replicas, rank, seed, epoch)
                    assert list(ours) == list(theirs), case
                    assert len(ours) == len(theirs) == len(list(ours)), case
                    assert ours.total_size == theirs.total_size, case


def test_ranks_together_cover_the_epoch_once_each():
    n, replicas = 40, 4
    shares = [list(DistributedSampler(Sized(n), replicas, r, seed=9)) for r in range(replicas)]
    assert sorted(i for share in shares for i in share) == list(range(n))
    epoch1 = DistributedSampler(Sized(n), replicas, 0, seed=9)
    epoch1.set_epoch(1)
    assert list(epoch1) != shares[0]


def test_feeds_a_dataloader():
    data = minitorch.utils.data.TensorDataset(minitorch.arange(10))
    sampler = DistributedSampler(data, num_replicas=2, rank=1, seed=2)
    loader = minitorch.utils.data.DataLoader(data, batch_size=4, sampler=sampler)
    got = [i for (batch,) in loader for i in batch.tolist()]
    expected = list(torch_distributed.DistributedSampler(range(10), 2, 1, seed=2))
    assert got == expected
    assert len(loader) == 2


def test_bad_arguments_raise_pytorchs_errors():
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(Sized(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(Sized(4), num_replicas=2, rank=-1)
    with pytest.raises(TypeError):
        DistributedSampler(Sized(4), num_replicas="2", rank=0)
    with pytest.raises(TypeError):
        DistributedSampler(None, num_replicas=2, rank=0)
