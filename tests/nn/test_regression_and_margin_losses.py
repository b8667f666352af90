"""The losses of functional/regression_loss.py and functional/margin_loss.py against
PyTorch: every reduction, values and the gradients of every differentiable input, on
float64 inputs (one of them a non-contiguous view), the layers' options, the legacy
size_average/reduce flags, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.nn.functional as F
from tests.nn.twins import assert_close

rng = np.random.default_rng(0)
x, t = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
signs = np.where(rng.standard_normal(4) > 0, 1.0, -1.0)
signs_2d = np.where(rng.standard_normal((4, 5)) > 0, 1.0, -1.0)
counts = rng.poisson(2.0, (4, 5)).astype(np.float64)
labels = (rng.standard_normal((4, 5)) > 0).astype(np.float64)
log_probs = np.log(rng.dirichlet(np.ones(5), 4))
probs = rng.dirichlet(np.ones(5), 4)
classes = np.array([1, 0, 4, 2])
label_lists = np.array([[3, 0, -1, 1, 2], [0, 1, 2, 3, 4], [-1, 0, 0, 0, 0], [4, -1, 2, 0, 0]])  # up to -1
probs[0, 1] = 0.0  # a zero target: t log t -> 0

CASES = [  # name, inputs (arrays; the first `grads` of them get gradients), keyword arguments, grads
    ("huber_loss", (x * 2, t), {}, 2),
    ("huber_loss", (x * 2, t), {"delta": 0.3}, 2),
    ("smooth_l1_loss", (x * 2, t), {}, 2),
    ("smooth_l1_loss", (x * 2, t), {"beta": 0.5}, 2),
    ("smooth_l1_loss", (x, t), {"beta": 0.0}, 2),
    ("poisson_nll_loss", (x, counts), {}, 2),
    ("poisson_nll_loss", (np.abs(x), counts), {"log_input": False}, 2),
    ("poisson_nll_loss", (x, counts), {"full": True}, 1),
    ("gaussian_nll_loss", (x, t, np.abs(t) + 0.1), {}, 3),
    ("gaussian_nll_loss", (x, t, np.abs(t[:, 0]) + 1e-8), {"full": True}, 3),  # one var per row, clamped
    ("gaussian_nll_loss", (x, t, np.abs(t[:, :1]) + 0.5), {}, 3),
    ("kl_div", (log_probs, probs), {}, 1),  # d/dt of t log t at t = 0 is nan in PyTorch
    ("kl_div", (log_probs, np.log(probs + 0.1)), {"log_target": True}, 2),
    ("margin_ranking_loss", (x[:, 0], t[:, 0], signs), {"margin": 0.2}, 2),
    ("hinge_embedding_loss", (x, signs_2d), {"margin": 0.5}, 1),
    ("soft_margin_loss", (x, signs_2d), {}, 1),
    ("multilabel_soft_margin_loss", (x * 3, labels), {}, 1),
    ("cosine_embedding_loss", (x, t, signs), {"margin": -0.2}, 2),
    ("cosine_embedding_loss", (x[0], t[0], signs[0]), {}, 2),
    ("triplet_margin_loss", (x, t, t[::-1] + 0.3), {}, 3),
    ("triplet_margin_loss", (x, t, t[::-1]), {"p": 1, "swap": True, "margin": 2.0}, 3),
    ("triplet_margin_with_distance_loss", (x, t, t[::-1]), {"swap": True}, 3),
    ("multi_margin_loss", (x, classes), {}, 1),
    ("multi_margin_loss", (x, classes), {"p": 2, "margin": 0.5}, 1),
    ("multi_margin_loss", (x[0], classes[:1]), {}, 1),  # unbatched
    ("multilabel_margin_loss", (x, label_lists), {}, 1),
    ("multilabel_margin_loss", (x[1], label_lists[1]), {}, 1),  # unbatched
]


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("name,inputs,kwargs,grads", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_loss_matches_torch(name, inputs, kwargs, grads, reduction):
    ours = [mt.tensor(a.copy(), requires_grad=i < grads) for i, a in enumerate(inputs)]
    theirs = [torch.tensor(a.copy(), requires_grad=i < grads) for i, a in enumerate(inputs)]
    out = getattr(F, name)(*ours, reduction=reduction, **kwargs)
    expected = getattr(torch.nn.functional, name)(*theirs, reduction=reduction, **kwargs)
    assert_close(out, expected, what="loss")
    upstream = rng.standard_normal(tuple(expected.shape))
    (out * mt.tensor(upstream)).sum().backward()
    (expected * torch.tensor(upstream)).sum().backward()
    for i in range(grads):
        assert_close(ours[i].grad, theirs[i].grad, what=f"grad of input {i}")


def test_kl_div_batchmean_and_a_transposed_view():
    ours, theirs = (
        mt.tensor(log_probs.T.copy(), requires_grad=True),
        torch.tensor(log_probs.T.copy(), requires_grad=True),
    )
    out = F.kl_div(ours.t(), mt.tensor(probs), reduction="batchmean")
    expected = torch.nn.functional.kl_div(theirs.t(), torch.tensor(probs), reduction="batchmean")
    assert_close(out, expected)
    out.backward(), expected.backward()
    assert_close(ours.grad, theirs.grad)


LAYERS = [
    ("HuberLoss", {"delta": 0.5}, (x, t)),
    ("SmoothL1Loss", {"beta": 0.3}, (x, t)),
    ("SmoothL1Loss", {"size_average": False}, (x, t)),
    ("KLDivLoss", {"reduction": "batchmean"}, (log_probs, probs)),
    ("PoissonNLLLoss", {"full": True}, (x, counts)),
    ("GaussianNLLLoss", {"eps": 0.5}, (x, t, np.abs(t))),
    ("MarginRankingLoss", {"margin": 0.1}, (x[:, 0], t[:, 0], signs)),
    ("HingeEmbeddingLoss", {"reduce": False}, (x, signs_2d)),
    ("SoftMarginLoss", {}, (x, signs_2d)),
    ("MultiLabelSoftMarginLoss", {"weight": np.linspace(0.5, 2, 5)}, (x, labels)),
    ("CosineEmbeddingLoss", {"margin": 0.1}, (x, t, signs)),
    ("TripletMarginLoss", {"margin": 0.5, "p": 3}, (x, t, -t)),
    ("MultiMarginLoss", {"weight": np.linspace(0.5, 2, 5), "p": 2}, (x, classes)),
    ("MultiLabelMarginLoss", {"reduction": "sum"}, (x, label_lists)),
]


@pytest.mark.parametrize("name,kwargs,inputs", LAYERS, ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYERS)])
def test_layer_matches_torch(name, kwargs, inputs):
    mine = {k: mt.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    theirs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    ours_layer, their_layer = getattr(mt.nn, name)(**mine), getattr(torch.nn, name)(**theirs)
    a = [mt.tensor(v.copy(), requires_grad=i == 0) for i, v in enumerate(inputs)]
    b = [torch.tensor(v.copy(), requires_grad=i == 0) for i, v in enumerate(inputs)]
    out, expected = ours_layer(*a), their_layer(*b)
    assert_close(out, expected)
    out.sum().backward(), expected.sum().backward()
    assert_close(a[0].grad, b[0].grad)


def test_triplet_with_a_custom_distance():
    def cosine_distance(a, b):
        return 1 - (a * b).sum(-1) / ((a * a).sum(-1) * (b * b).sum(-1)).sqrt()

    ours = [mt.tensor(v, requires_grad=True) for v in (x, t, -t)]
    theirs = [torch.tensor(v, requires_grad=True) for v in (x, t, -t)]
    out = mt.nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance, margin=0.3)(*ours)
    expected = torch.nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance, margin=0.3)(*theirs)
    assert_close(out, expected)
    out.backward(), expected.backward()
    for a, b in zip(ours, theirs):
        assert_close(a.grad, b.grad)


def test_errors_as_torch():
    a = mt.tensor(x)
    with pytest.raises(ValueError):
        F.huber_loss(a, a, reduction="average")
    with pytest.raises(RuntimeError):
        F.huber_loss(a, a, delta=0.0)
    with pytest.raises(RuntimeError):
        F.smooth_l1_loss(a, a, beta=-1.0)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(a, a, mt.ones(3))
    with pytest.raises(ValueError, match="var has negative"):
        F.gaussian_nll_loss(a, a, -mt.ones(4, 5))
    with pytest.raises(ValueError):
        mt.nn.TripletMarginLoss(margin=0.0)
    with pytest.raises(RuntimeError):
        F.margin_ranking_loss(a, a[0], mt.tensor(signs))
    for name in ("huber_loss", "kl_div", "soft_margin_loss", "poisson_nll_loss"):
        with pytest.raises(TypeError):
            getattr(F, name)(None, a)
