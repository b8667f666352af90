"""The ``torch.*`` twins of ``nn.functional``: ``torch.conv2d``, ``torch.dropout``,
``torch.batch_norm``, ``torch.embedding``...

Why PyTorch has two of each: ``torch.nn.functional`` is the documented Python API, and
each of its functions ends in an ATen operator. PyTorch's code generator puts every ATen
operator into the ``torch`` namespace too, with the operator's own schema, so code from
TorchScript, exported graphs, older tutorials and PyTorch's own tests calls these forms.
Their schemas differ from ``F``'s in a few regular ways:

* **arguments in the kernel's order**, often all required: ``torch.batch_norm(input,
  weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)``
  where ``F.batch_norm(input, running_mean, running_var, weight, bias, ...)``;
  ``torch.embedding(weight, indices)`` where ``F.embedding(input, weight)``;
* **``reduction`` as an integer**: ``0`` none, ``1`` mean, ``2`` sum (ATen's
  ``Reduction`` enum), where ``F`` takes the string;
* **``train``** where ``F`` says ``training``, and in-place twins (``torch.dropout_``)
  where ``F`` takes ``inplace=True``;
* flags for cuDNN (``cudnn_enabled``), which minitorch accepts and ignores.

The computation lives once, in ``nn.functional``: where the two signatures agree the
name below *is* ``F``'s function, and where they differ a thin adapter maps ATen's order
onto it. The recurrent cells (``torch.lstm_cell``...) are the step functions of
``minitorch/nn/rnn_cells.py`` with the input projection in front; the whole networks
(``torch.lstm(input, hx, params, ...)``...) are in ``torch_recurrent.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import int64
from minitorch.nn import functional as F

# The same function under both names: ``torch.<name>``'s positional order is ``F``'s.
from minitorch.nn.functional import (
    adaptive_avg_pool1d,
    avg_pool1d,
    bilinear,
    celu,
    celu_,
    channel_shuffle,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    cosine_similarity,
    hardshrink,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool3d,
    pairwise_distance,
    pdist,
    pixel_shuffle,
    pixel_unshuffle,
    prelu,
    rms_norm,
    selu,
    selu_,
    threshold,
    threshold_,
)
from minitorch.nn.functional.embedding_bag import _bounds
from minitorch.nn.functional.torch_recurrent import gru, lstm, rnn_relu, rnn_tanh  # whole networks
from minitorch.nn.rnn_cells import gru_step, lstm_step, rnn_step
from minitorch.ops.common import require_tensor

__all__ = [
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "alpha_dropout", "alpha_dropout_",
    "avg_pool1d", "batch_norm", "bilinear", "binary_cross_entropy_with_logits", "celu",
    "celu_", "channel_shuffle", "constant_pad_nd", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "cosine_embedding_loss", "cosine_similarity", "ctc_loss",
    "dropout", "dropout_", "embedding", "embedding_bag", "feature_alpha_dropout",
    "feature_alpha_dropout_", "group_norm", "gru_cell", "hardshrink", "hinge_embedding_loss",
    "instance_norm", "kl_div", "layer_norm", "lstm_cell", "margin_ranking_loss", "max_pool1d",
    "max_pool1d_with_indices", "max_pool2d", "max_pool3d", "pairwise_distance", "pdist",
    "pixel_shuffle", "pixel_unshuffle", "poisson_nll_loss", "prelu", "rms_norm",
    "rnn_relu_cell", "rnn_tanh_cell", "rrelu", "rrelu_", "selu", "selu_", "threshold",
    "threshold_", "triplet_margin_loss", "gru", "lstm", "rnn_relu", "rnn_tanh",
]  # fmt: skip

# ATen's ``Reduction`` enum (``aten/src/ATen/core/Reduction.h``): the integer a loss takes.
REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
# ``embedding_bag``'s ``mode`` integer.
BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def reduction_name(function: str, reduction: Any) -> str:
    """``1`` -> ``"mean"``: ATen's integer ``reduction`` as ``F``'s string."""
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{function}(): argument 'reduction' must be int (0 none, 1 mean, 2 sum), "
                        f"not {type(reduction).__name__}; F.{function} takes the string")  # fmt: skip
    if reduction not in REDUCTIONS:
        raise ValueError(f"{function}(): reduction must be 0 (none), 1 (mean) or 2 (sum), got {reduction}")
    return REDUCTIONS[reduction]


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: int = 0, zero_infinity: bool = False) -> Tensor:  # fmt: skip
    """``F.ctc_loss`` with an integer ``reduction``. Called without one, ``torch.ctc_loss``
    gives each sequence's loss (``F.ctc_loss`` averages): so does this one."""
    name = reduction_name("ctc_loss", reduction)
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, name, zero_infinity)


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:  # noqa: A002
    """``F.pad(input, pad, value=value)``: ``pad`` widths from the last dimension back,
    negative ones cropping."""
    require_tensor("constant_pad_nd", input)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"constant_pad_nd(): argument 'value' (position 3) must be Number, "
                        f"not {type(value).__name__}")  # fmt: skip
    return F.pad(input, tuple(pad), "constant", value)


# ---- dropout: ``(input, p, train)``, in-place twins -----------------------------------


def _check_p(p: float) -> None:
    """ATen checks ``p`` even when ``train`` is False, and raises RuntimeError (``F`` a ValueError)."""
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``F.dropout(input, p, training=train)``: zero each element with probability ``p``
    and scale the rest by ``1 / (1 - p)``; the same mask after the same seed."""
    require_tensor("dropout", input)
    _check_p(p)
    return F.dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``dropout`` written into ``input`` (``F.dropout(..., inplace=True)``)."""
    require_tensor("dropout_", input)
    _check_p(p)
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``F.alpha_dropout(input, p, training=train)`` (keeps SELU's mean and variance)."""
    require_tensor("alpha_dropout", input)
    _check_p(p)
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``alpha_dropout`` written into ``input``."""
    require_tensor("alpha_dropout_", input)
    _check_p(p)
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``F.feature_alpha_dropout(input, p, training=train)``: whole channels at once."""
    require_tensor("feature_alpha_dropout", input)
    _check_p(p)
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    """``feature_alpha_dropout`` written into ``input``."""
    require_tensor("feature_alpha_dropout_", input)
    _check_p(p)
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,  # noqa: A002
          generator: Any = None) -> Tensor:  # fmt: skip
    """``F.rrelu``, whose random slopes (``U(lower, upper)`` per element, while training)
    may come from ``generator`` instead of the global one."""
    require_tensor("rrelu", input)
    if generator is None or not training:
        return F.rrelu(input, lower, upper, training)
    slope = creation.empty(tuple(input.shape), dtype=input.dtype, device=input.device)
    slope.uniform_(lower, upper, generator=generator)
    return input.where(input >= 0, input * slope)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,  # noqa: A002
           generator: Any = None) -> Tensor:  # fmt: skip
    """``rrelu`` written into ``input``."""
    require_tensor("rrelu_", input)
    return input.copy_(rrelu(input, lower, upper, training, generator))


# ---- normalization: weights first, running statistics after ---------------------------


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """ATen's order of ``F.batch_norm(input, running_mean, running_var, weight, bias,
    training, momentum, eps)``; every argument required, as in PyTorch."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                  running_mean: Tensor | None, running_var: Tensor | None, use_input_stats: bool,
                  momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """ATen's order of ``F.instance_norm(input, running_mean, running_var, weight, bias,
    use_input_stats, momentum, eps)``."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:  # fmt: skip
    """``F.layer_norm`` plus ATen's ``cudnn_enable`` flag (ignored)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:  # fmt: skip
    """``F.group_norm`` plus ATen's ``cudnn_enabled`` flag (ignored)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


# ---- losses: ``reduction`` as ATen's integer --------------------------------------------


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                     pos_weight: Tensor | None = None,
                                     reduction: int = 1) -> Tensor:  # fmt: skip
    """``F.binary_cross_entropy_with_logits``; ATen puts ``pos_weight`` before ``reduction``."""
    name = reduction_name("binary_cross_entropy_with_logits", reduction)
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=name, pos_weight=pos_weight)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 1) -> Tensor:  # fmt: skip
    """``F.cosine_embedding_loss`` with an integer ``reduction``."""
    name = reduction_name("cosine_embedding_loss", reduction)
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=name)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,  # noqa: A002
                         reduction: int = 1) -> Tensor:  # fmt: skip
    """``F.hinge_embedding_loss`` with an integer ``reduction``."""
    name = reduction_name("hinge_embedding_loss", reduction)
    return F.hinge_embedding_loss(input, target, margin, reduction=name)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 1) -> Tensor:  # fmt: skip
    """``F.margin_ranking_loss`` with an integer ``reduction``."""
    name = reduction_name("margin_ranking_loss", reduction)
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=name)


def kl_div(input: Tensor, target: Tensor, reduction: int = 1, *, log_target: bool = False) -> Tensor:  # noqa: A002
    """``F.kl_div`` with an integer ``reduction``. ATen's ``1`` is the mean over every
    element (``F``'s ``"mean"``, not ``"batchmean"``)."""
    name = reduction_name("kl_div", reduction)
    return F.kl_div(input, target, reduction=name, log_target=log_target)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,  # noqa: A002
                     reduction: int) -> Tensor:  # fmt: skip
    """``F.poisson_nll_loss`` with every argument required and ``reduction`` an integer."""
    name = reduction_name("poisson_nll_loss", reduction)
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=name)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        reduction: int = 1) -> Tensor:  # fmt: skip
    """``F.triplet_margin_loss`` with an integer ``reduction``."""
    name = reduction_name("triplet_margin_loss", reduction)
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=name)


# ---- lookups and pooling that return ATen's extra results -------------------------------


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``(values, indices)`` always: ATen's operator returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def _refuse_sparse(function: str, scale_grad_by_freq: bool, sparse: bool) -> None:
    if scale_grad_by_freq or sparse:
        raise NotImplementedError(f"{function}: scale_grad_by_freq and sparse gradients are not "
                                  "supported by minitorch (its tensors are dense); see "
                                  "docs/api-coverage.md")  # fmt: skip


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:  # fmt: skip
    """``F.embedding(indices, weight)``: the *weight* comes first here. At ATen's level a
    negative ``padding_idx`` means none (``F`` turns ``-1`` into the last row before it
    calls this); the padding row gets no gradient."""
    require_tensor("embedding", weight, "weight", 1)
    require_tensor("embedding", indices, "indices", 2)
    _refuse_sparse("embedding", scale_grad_by_freq, sparse)
    return F.embedding(indices, weight, padding_idx if padding_idx >= 0 else None)


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False,
                  mode: int = 0, sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> tuple:  # fmt: skip
    """``(output, offset2bag, bag_size, max_indices)``: ``F.embedding_bag``'s result and
    the bookkeeping ATen keeps for its backward. ``mode`` is an integer (0 sum, 1 mean,
    2 max). For each index, ``offset2bag`` is its bag; ``bag_size`` counts each bag's
    indices other than ``padding_idx`` (zeros in sum mode, which does not need it);
    ``max_indices`` holds, in max mode, the row each maximum came from, and otherwise a
    copy of ``bag_size``. (PyTorch's float32 sum fast path leaves ``offset2bag`` empty;
    minitorch always fills it.)"""
    require_tensor("embedding_bag", weight, "weight", 1)
    require_tensor("embedding_bag", indices, "indices", 2)
    if mode not in BAG_MODES:
        raise ValueError(f"embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {mode!r}")
    _refuse_sparse("embedding_bag", scale_grad_by_freq, sparse)
    output = F.embedding_bag(indices, weight, offsets, mode=BAG_MODES[mode],
                             per_sample_weights=per_sample_weights,
                             include_last_offset=include_last_offset, padding_idx=padding_idx)  # fmt: skip
    flat, bounds = _bounds(indices, offsets, include_last_offset)
    rows = weight.shape[0]
    padding = None if padding_idx is None else padding_idx % rows
    offset2bag = np.zeros(len(flat), dtype=np.int64)
    bag_size = np.zeros(len(bounds), dtype=np.int64)
    max_indices = np.zeros((len(bounds), weight.shape[1]), dtype=np.int64)
    values = weight.detach().cpu().numpy() if mode == 2 else None
    for bag, (start, end) in enumerate(bounds):
        offset2bag[start:end] = bag
        members = [int(i) for i in flat[start:end] if padding is None or int(i) != padding]
        bag_size[bag] = len(members) if mode != 0 else 0
        if values is not None and members:  # the first row holding each column's maximum
            max_indices[bag] = np.asarray(members)[values[members].argmax(axis=0)]
    if mode != 2:
        max_indices = bag_size.copy()
    bookkeeping = (offset2bag, bag_size, max_indices)
    return (output, *(creation.tensor(a, dtype=int64, device=weight.device) for a in bookkeeping))


# ---- one step of a recurrent network ------------------------------------------------------


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,  # noqa: A002
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``: one step of ``nn.RNNCell``."""
    return rnn_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu=False)


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,  # noqa: A002
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """``h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    return rnn_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu=True)


def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor,  # noqa: A002
              b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(h', c')`` of one LSTM step from ``hx = (h, c)``, gates stacked ``i, f, g, o``."""
    if len(hx) != 2:
        raise RuntimeError(f"lstm_cell: Expected hx to hold 2 tensors (h, c), got {len(hx)}")
    h, c = hx
    return lstm_step(F.linear(input, w_ih, b_ih), h, c, w_hh, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,  # noqa: A002
             b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """``h'`` of one GRU step, gates stacked ``r, z, n``."""
    return gru_step(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)
