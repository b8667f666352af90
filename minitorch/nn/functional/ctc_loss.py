"""``ctc_loss``: Connectionist Temporal Classification (Graves et al., 2006), the loss of a
model that reads ``T`` frames (of speech, of handwriting) and must emit a shorter label
sequence without being told which frame belongs to which label.

The model gives, for every frame ``t``, log-probabilities over ``C`` classes, one of them
the *blank* ("no label here"). A frame-by-frame path of classes reads as a label
sequence after merging repeats and dropping blanks (``a a - b - b`` reads ``a b b``). The
loss is ``-log`` of the total probability of every path that reads the target.

**The forward algorithm** sums those paths without listing them. Extend the target
``l_1 .. l_S`` with blanks around every label: ``l' = (-, l_1, -, l_2, .., l_S, -)``, of
length ``2S + 1``. ``alpha_t(s)`` is the log of the probability of all paths over frames
``0..t`` that end at ``l'_s``, having read ``l'_0 .. l'_s``::

    alpha_0(0) = lp[0, blank],  alpha_0(1) = lp[0, l_1],  every other alpha_0(s) = -inf
    alpha_t(s) = lp[t, l'_s] + logsumexp(alpha_{t-1}(s),        stay on l'_s
                                         alpha_{t-1}(s - 1),    step to the next symbol
                                         alpha_{t-1}(s - 2))    skip a blank: only when
                                                                l'_s is a label unlike l'_{s-2}

and the path must end on the last label or the last blank::

    loss = -logsumexp(alpha_{T-1}(2S), alpha_{T-1}(2S - 1))

Every sample of a batch runs at once, a vector over ``s``; a sample whose input is shorter
keeps its alpha unchanged after its last frame. "Impossible" is a large negative number
(not ``-inf``), so that no ``-inf - -inf`` reaches the gradient; a loss that stays
impossible (the target cannot fit in the frames) is ``inf`` (its gradient NaN, as
PyTorch's), or ``0`` with ``zero_infinity=True`` (its gradient 0).

The gradient comes from autograd through this recursion, with one adjustment to match
PyTorch: its CTC backward returns, for ``log_probs``, the exact gradient **plus**
``exp(log_probs)`` (times the incoming gradient) on every frame a sample reads. The extra
term is what makes the formula exact for the *logits* when ``log_probs`` came from
``log_softmax`` (that backward removes it: the probabilities sum to one), which is how
CTC is always used. We add ``exp(lp) - exp(lp).detach()``, zero in value, so the
gradients equal PyTorch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import bool_ as bool_dtype
from minitorch.dtypes import int64
from minitorch.nn.functional.loss import _check_reduction
from minitorch.ops.choice import where
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import cat, stack

IMPOSSIBLE = -1e30  # log of "no path": far below any real log-probability, but finite


def _lengths(lengths: Any) -> list[int]:
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.reshape(-1).tolist()]
    return [int(v) for v in lengths]


def _padded_targets(targets: Tensor, target_lengths: list[int]) -> np.ndarray:
    """``targets`` as a ``[N, S_max]`` array of class indices: a padded 2-D tensor as it
    is, a 1-D concatenation split at the target lengths."""
    values = np.asarray(targets.detach().cpu().tolist(), dtype=np.int64)
    batch, longest = len(target_lengths), max(target_lengths, default=0)
    if targets.ndim == 2 and batch > 0:
        if longest > values.shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but "
                               f"got size {values.shape[1]} for argument #2 'targets' (while checking "
                               "arguments for ctc_loss_allocate_outputs)")  # fmt: skip
        return values[:, :longest]
    padded = np.zeros((batch, longest), dtype=np.int64)
    start = 0
    for n, length in enumerate(target_lengths):
        padded[n, :length] = values.reshape(-1)[start : start + length]
        start += length
    return padded


def _logsumexp(terms: list[Tensor]) -> Tensor:
    """``log(sum(exp(term)))`` of same-shaped tensors, shifted by their (constant) max."""
    top = terms[0]
    for term in terms[1:]:
        top = top.maximum(term)
    top = top.detach()
    total = None
    for term in terms:
        part = (term - top).exp()
        total = part if total is None else total + part
    return top + total.log()


def _shift(alpha: Tensor, by: int) -> Tensor:
    """``alpha`` moved ``by`` places to the right along ``s``, impossible where it is new."""
    start = alpha[:, :by] * 0 + IMPOSSIBLE
    return cat([start, alpha[:, :-by]], 1)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:  # fmt: skip
    """The CTC loss of ``log_probs`` (``[T, N, C]``, or ``[T, C]`` for one sequence:
    log-probabilities, e.g. from ``log_softmax``) against ``targets`` (``[N, S]`` padded, or
    the targets concatenated in 1-D), reading ``input_lengths[n]`` frames and
    ``target_lengths[n]`` labels of sample ``n``. ``reduction="mean"`` divides each loss
    by its target length, then averages over the batch."""
    require_tensor("ctc_loss", log_probs, "log_probs")
    require_tensor("ctc_loss", targets, "targets", 2)
    _check_reduction(reduction)
    if not log_probs.dtype.is_floating_point:
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for {log_probs.dtype}')
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    frames, batch, classes = lp.shape
    inputs, labels = _lengths(input_lengths), _lengths(target_lengths)
    if len(inputs) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(labels) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    for name, values, limit in (("input_lengths", inputs, frames), ("target_lengths", labels, None)):
        for value in values:
            if value < 0 or (limit is not None and value > limit):
                bound = "at least 0" if value < 0 else f"at most {limit}"
                raise RuntimeError(f"Expected {name} to have value {bound}, but got value {value} "
                                   "(while checking arguments for ctc_loss_allocate_outputs)")  # fmt: skip
    padded = _padded_targets(targets if batched or targets.ndim != 1 else targets.unsqueeze(0), labels)
    longest = padded.shape[1] if batch else 0
    width = 2 * longest + 1
    extended = np.full((batch, width), blank, dtype=np.int64)  # l' = (-, l_1, -, .., l_S, -)
    extended[:, 1::2] = padded
    skip = np.zeros((batch, width), dtype=bool)  # may alpha(s) come from alpha(s - 2)?
    skip[:, 3::2] = extended[:, 3::2] != extended[:, 1:-2:2]
    symbols = creation.tensor(extended, dtype=int64, device=lp.device)
    emissions = lp.gather(2, symbols.unsqueeze(0).expand(frames, batch, width))  # [T, N, 2S+1]
    skips = creation.tensor(skip, dtype=bool_dtype, device=lp.device)
    starts = creation.tensor(np.arange(width) < 2, dtype=bool_dtype, device=lp.device)
    reads = creation.tensor([[t < n for n in inputs] for t in range(frames)], dtype=bool_dtype,
                            device=lp.device)  # fmt: skip
    if frames == 0 or batch == 0:
        alpha = emissions.sum(0) * 0 + IMPOSSIBLE
    else:
        alpha = where(starts, emissions[0], IMPOSSIBLE)
    for t in range(1, frames):
        steps = [alpha]
        if width > 1:
            steps.append(_shift(alpha, 1))
        if width > 2:
            steps.append(where(skips, _shift(alpha, 2), IMPOSSIBLE))
        following = emissions[t] + _logsumexp(steps)
        alpha = where(reads[t].unsqueeze(1), following, alpha)
    ends = creation.tensor([[2 * n, max(2 * n - 1, 0)] for n in labels], dtype=int64, device=lp.device)
    last = alpha.gather(1, ends.reshape(batch, 2))
    single = creation.tensor([[False, n == 0] for n in labels], dtype=bool_dtype, device=lp.device)
    last = where(single, IMPOSSIBLE, last)  # an empty target ends on its one blank only
    loss = -_logsumexp([last[:, 0], last[:, 1]])
    impossible = loss > -IMPOSSIBLE / 2
    # PyTorch's gradient convention (see the module docstring): + exp(lp), zero in value
    probabilities = where(reads.unsqueeze(2), lp.exp(), 0)
    loss = loss + (probabilities - probabilities.detach()).sum((0, 2))
    flags = impossible.tolist() if not zero_infinity else []
    if any(flags):  # inf; its gradient NaN on the frames the sample reads, as PyTorch's:
        # -log(0 * sum) = inf, and the gradient of log at 0 times that of 0 * sum is NaN
        loss = stack([-(lp[: inputs[n], n].exp().sum() * 0).log() if flag else loss[n]
                      for n, flag in enumerate(flags)])  # fmt: skip
    else:  # zero_infinity: an impossible target costs 0 and sends no gradient
        loss = where(impossible, 0.0, loss)
    if reduction == "mean":
        divisors = creation.tensor([max(n, 1) for n in labels], dtype=lp.dtype, device=lp.device)
        return (loss / divisors).mean()
    if reduction == "sum":
        return loss.sum()
    return loss if batched else loss.reshape(())
