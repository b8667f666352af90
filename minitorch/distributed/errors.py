"""The errors of ``minitorch.distributed``, with PyTorch's names and bases: a
``DistBackendError`` (a timeout, a peer that failed, ranks that disagree) is a
``RuntimeError``, so code that catches PyTorch's errors catches these."""

from __future__ import annotations


class DistError(RuntimeError):
    """Any error of the distributed package (``torch.distributed.DistError``)."""


class DistBackendError(DistError):
    """The communication itself failed: a timeout, a rank that failed or called something
    else (``torch.distributed.DistBackendError``)."""


class PeerFailure(DistBackendError):
    """Another rank failed and said so before it exited: this rank stops too, without
    reporting the failure back to the rank it came from."""
