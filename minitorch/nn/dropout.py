"""``Dropout``: during training, zero each element with probability ``p`` (and scale the
others up by ``1 / (1 - p)``); in ``eval()`` mode, do nothing. Its variants zero whole
channels (``Dropout1d/2d/3d``) or keep SELU's statistics (``AlphaDropout``, ``FeatureAlphaDropout``)."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.module import Module


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class _DropoutVariant(Dropout):
    """A dropout layer that calls ``F.<function>`` (the variants below)."""

    function = "dropout"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return getattr(F, self.function)(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutVariant):
    """Zero whole channels of ``[N, C, L]`` (``F.dropout1d``)."""

    function = "dropout1d"


class Dropout2d(_DropoutVariant):
    """Zero whole channels of ``[N, C, H, W]`` (``F.dropout2d``)."""

    function = "dropout2d"


class Dropout3d(_DropoutVariant):
    """Zero whole channels of ``[N, C, D, H, W]`` (``F.dropout3d``)."""

    function = "dropout3d"


class AlphaDropout(_DropoutVariant):
    """Dropout that keeps SELU's mean 0 and variance 1 (``F.alpha_dropout``)."""

    function = "alpha_dropout"


class FeatureAlphaDropout(_DropoutVariant):
    """Alpha dropout of whole channels (``F.feature_alpha_dropout``)."""

    function = "feature_alpha_dropout"
