"""``gumbel_softmax``: a differentiable sample of a category.

Adding Gumbel noise ``g = -log(E)``, ``E ~ Exp(1)``, to the logits and taking the argmax
draws category ``i`` with probability ``softmax(logits)_i`` (the Gumbel-max trick). The
argmax has no gradient, so the softmax of ``(logits + g) / tau`` stands in for it: a
*soft* sample, closer to one-hot as the temperature ``tau`` goes to 0. With ``hard=True``
the result is the one-hot argmax in the forward pass with the soft sample's gradient
(``y_hard - y_soft.detach() + y_soft``, the straight-through estimator).

The noise is drawn as PyTorch draws it (``exponential_`` of the logits' shape from the
global generator), so the same seed gives PyTorch's samples.
"""

from __future__ import annotations

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    require_tensor("gumbel_softmax", logits, "logits")
    noise = creation.empty(tuple(logits.shape), dtype=logits.dtype, device=logits.device)
    gumbels = -noise.exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = creation.zeros(tuple(logits.shape), dtype=logits.dtype, device=logits.device)
    y_hard = y_hard.scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
