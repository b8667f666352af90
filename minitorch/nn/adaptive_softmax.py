"""``AdaptiveLogSoftmaxWithLoss`` (Grave et al., 2016): a softmax over a large vocabulary
that spends little on rare words.

The classes, sorted by frequency, are cut into a *shortlist* ``[0, cutoffs[0])`` and
clusters ``[cutoffs[i], cutoffs[i + 1])``. The *head*, one ``Linear``, scores the shortlist
and one entry per cluster; each cluster has its own small *tail* (a projection to
``in_features / div_value^(i + 1)`` features, then to the cluster's classes). The
log-probability of a class is::

    shortlist class c:   log p(c) = head_logprob[c]
    class c in cluster i: log p(c) = head_logprob[shortlist + i] + tail_i_logprob[c - cutoffs[i]]

so a sample pays for its own cluster's tail only. ``forward`` returns both the
per-sample log-probability of the target and the loss, their negative mean.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.container import ModuleList, Sequential
from minitorch.nn.linear import Linear
from minitorch.nn.module import Module
from minitorch.ops.shape import cat

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """An adaptive softmax over ``n_classes`` classes, split at ``cutoffs``."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Any, div_value: float = 4.0,
                 head_bias: bool = False, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):  # fmt: skip
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an "
                             "increasing order, where each value is between 1 and n_classes-1")  # fmt: skip
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs, self.div_value, self.head_bias = cutoffs + [n_classes], div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        # made in PyTorch's order, so the same seed gives the same initial weights
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            factory = {"bias": False, "device": device, "dtype": dtype}
            projection = Linear(in_features, hidden, **factory)
            self.tail.append(Sequential(projection, Linear(hidden, size, **factory)))

    def forward(self, input: Tensor, target: Tensor) -> Any:  # noqa: A002
        if target.ndim == 1:
            if input.shape[0] != target.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input.ndim != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input.shape}")  # fmt: skip
        elif target.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input.shape}")  # fmt: skip
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target.ndim > 0
        x = input if batched else input.unsqueeze(0)
        labels = [int(v) for v in (target if batched else target.unsqueeze(0)).tolist()]
        if any(not 0 <= v < self.n_classes for v in labels):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{min(labels)}, {max(labels)}] were found. ")  # fmt: skip
        head_logprob = F.log_softmax(self.head(x), dim=1)
        # the head's entry of each sample: its class in the shortlist, else its cluster's
        entries = [v if v < self.shortlist_size else self.shortlist_size + self._cluster(v) for v in labels]
        output = head_logprob.gather(1, x.new_tensor(entries).long().unsqueeze(1)).squeeze(1)
        for i in range(self.n_clusters):
            rows = [n for n, v in enumerate(labels) if self._cluster(v) == i and v >= self.shortlist_size]
            if not rows:
                continue
            index = x.new_tensor(rows).long()
            local = x.new_tensor([labels[n] - self.cutoffs[i] for n in rows]).long()
            cluster_logprob = F.log_softmax(self.tail[i](x.index_select(0, index)), dim=1)
            output = output.index_add(0, index, cluster_logprob.gather(1, local.unsqueeze(1)).squeeze(1))
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _cluster(self, label: int) -> int:
        """The cluster of a class past the shortlist (-1 for the shortlist)."""
        for i in range(self.n_clusters):
            if label < self.cutoffs[i + 1]:
                return i if label >= self.cutoffs[0] else -1
        return self.n_clusters - 1

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:  # noqa: A002
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:  # noqa: A002
        """The log-probability of every class, ``[N, n_classes]``."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:  # noqa: A002
        """The most probable class of each sample (the full distribution only where the
        head's best entry is a cluster)."""
        head_output = self.head(input)
        output = head_output.argmax(1)
        if not bool((output >= self.shortlist_size).any()):
            return output
        return self._full_log_prob(input, head_output).argmax(1)
