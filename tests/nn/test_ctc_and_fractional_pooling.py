"""ctc_loss / CTCLoss, fractional_max_pool2d/3d / FractionalMaxPool2d/3d,
linear_cross_entropy and AdaptiveLogSoftmaxWithLoss against PyTorch: values and gradients
(CTC's gradient with PyTorch's convention), padded and concatenated targets, impossible
targets, PyTorch's random window starts and initial weights after the same seed; torch's
errors."""

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F


def _mt(t, grad=True):
    return minitorch.tensor(t.detach().numpy(), requires_grad=grad)


def _ctc_case(seed):
    generator = torch.Generator().manual_seed(seed)
    log_probs = torch.randn(8, 3, 5, generator=generator, dtype=torch.float64).log_softmax(2)
    targets = torch.randint(1, 5, (3, 4), generator=generator)
    return log_probs.requires_grad_(), targets


@pytest.mark.parametrize("reduction,zero_infinity,concatenated", [
    ("none", False, False), ("mean", True, False), ("sum", False, True),
])  # fmt: skip
def test_ctc_loss_matches_torch(reduction, zero_infinity, concatenated):
    log_probs, targets = _ctc_case(len(reduction))
    input_lengths, target_lengths = [8, 6, 2], [4, 0, 3]  # an empty target; one that cannot fit in 2 frames
    if concatenated:
        targets = torch.cat([targets[n, :length] for n, length in enumerate(target_lengths)])
    loss = torch.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths,
                                        reduction=reduction, zero_infinity=zero_infinity)  # fmt: skip
    (grad,) = torch.autograd.grad(loss.sum(), log_probs)
    mlp = _mt(log_probs)
    actual = F.ctc_loss(mlp, _mt(targets, False), minitorch.tensor(input_lengths), target_lengths,
                        reduction=reduction, zero_infinity=zero_infinity)  # fmt: skip
    actual.sum().backward()
    np.testing.assert_allclose(actual.detach().numpy(), loss.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(mlp.grad.numpy(), grad.numpy(), rtol=1e-9, atol=1e-12)  # NaN where torch's is


def test_ctc_module_unbatched_and_errors():
    log_probs, targets = _ctc_case(5)
    expected = torch.nn.CTCLoss(reduction="none")(log_probs[:, 0], targets[0], [8], [4])
    actual = minitorch.nn.CTCLoss(reduction="none")(_mt(log_probs)[:, 0], _mt(targets, False)[0], [8], [4])
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-10)
    for lengths in ([9, 8, 8], [8, 8]):  # more frames than there are; a length missing
        with pytest.raises(RuntimeError):
            torch.nn.functional.ctc_loss(log_probs, targets, lengths, [4, 4, 4])
        with pytest.raises(RuntimeError):
            F.ctc_loss(_mt(log_probs), _mt(targets, False), lengths, [4, 4, 4])


@pytest.mark.parametrize("dims,shape,kernel,kwargs", [
    (2, (2, 3, 9, 8), 3, dict(output_size=(3, 2))),
    (2, (3, 7, 7), (2, 3), dict(output_ratio=(0.5, 0.6))),  # unbatched
    (3, (2, 2, 5, 6, 5), 2, dict(output_size=(2, 3, 2))),
])  # fmt: skip
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fractional_max_pool_draws_torch_windows(dims, shape, kernel, kwargs, dtype):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(dims), dtype=dtype).requires_grad_()
    torch.manual_seed(7)
    name = f"fractional_max_pool{dims}d"
    pool, ours = getattr(torch.nn.functional, name), getattr(F, name)
    values, indices = pool(x, kernel, return_indices=True, **kwargs)
    (grad,) = torch.autograd.grad(values.sum(), x)
    mx = _mt(x)
    minitorch.manual_seed(7)  # the same seed gives PyTorch's random samples, so the same windows
    actual, actual_indices = ours(mx, kernel, return_indices=True, **kwargs)
    actual.sum().backward()
    np.testing.assert_array_equal(actual.detach().numpy(), values.detach().numpy())
    np.testing.assert_array_equal(actual_indices.numpy(), indices.numpy())
    np.testing.assert_array_equal(mx.grad.numpy(), grad.numpy())


def test_fractional_max_pool_given_samples_module_and_errors():
    base = torch.randn(2, 3, 6, 7, dtype=torch.float64)
    x = base.transpose(2, 3)  # non-contiguous [2, 3, 7, 6]
    samples = torch.rand(2, 3, 2, dtype=torch.float64)
    expected = torch.nn.FractionalMaxPool2d(2, output_size=4, _random_samples=samples)(x)
    layer = minitorch.nn.FractionalMaxPool2d(2, output_size=4, _random_samples=_mt(samples, False))
    actual = layer(_mt(base, False).transpose(2, 3))
    np.testing.assert_array_equal(actual.numpy(), expected.numpy())
    with pytest.raises(RuntimeError):  # a window that does not fit
        torch.nn.functional.fractional_max_pool2d(x, 5, output_size=4)
    with pytest.raises(RuntimeError):
        F.fractional_max_pool2d(_mt(x, False), 5, output_size=4)
    with pytest.raises(ValueError):
        F.fractional_max_pool2d(_mt(x, False), 2)


def test_linear_cross_entropy_matches_torch():
    generator = torch.Generator().manual_seed(3)
    x = torch.randn(4, 5, generator=generator, dtype=torch.float64).requires_grad_()
    w = torch.randn(3, 2, 5, generator=generator, dtype=torch.float64).requires_grad_()  # K-dimensional
    target = torch.tensor([[0, 2], [1, 1], [2, 0], [-100, 1]])
    loss = torch.nn.functional.linear_cross_entropy(x, w, target, label_smoothing=0.1)
    grads = torch.autograd.grad(loss, [x, w])
    mx, mw = _mt(x), _mt(w)
    actual = F.linear_cross_entropy(mx, mw, _mt(target, False), label_smoothing=0.1)
    actual.backward()
    np.testing.assert_allclose(actual.item(), loss.item(), rtol=1e-12)
    np.testing.assert_allclose(mx.grad.numpy(), grads[0].numpy(), rtol=1e-10)
    np.testing.assert_allclose(mw.grad.numpy(), grads[1].numpy(), rtol=1e-10)
    module = minitorch.nn.LinearCrossEntropyLoss(5, 3, bias=True)
    assert tuple(module.linear.weight.shape) == (3, 5)
    assert module(_mt(x.float()), _mt(target[:, 0], False)).ndim == 0
    with pytest.raises(RuntimeError):
        F.linear_cross_entropy(mx, minitorch.randn(3, 4), _mt(target, False))


def test_adaptive_log_softmax_matches_torch():
    torch.manual_seed(3)
    expected_layer = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 7], div_value=2.0, head_bias=True)
    minitorch.manual_seed(3)  # the same seed, the same initial weights (made in PyTorch's order)
    layer = minitorch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 7], div_value=2.0, head_bias=True)
    x, target = torch.randn(6, 8), torch.tensor([0, 4, 11, 2, 7, 5])  # the shortlist and both clusters
    expected = expected_layer(x, target)
    expected.loss.backward()
    actual = layer(_mt(x, False), _mt(target, False))
    actual.loss.backward()
    np.testing.assert_allclose(actual.output.detach().numpy(), expected.output.detach().numpy(), atol=1e-6)
    for ours, theirs in zip(layer.parameters(), expected_layer.parameters()):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-6)
    full = layer.log_prob(_mt(x, False)).detach().numpy()
    np.testing.assert_allclose(full, expected_layer.log_prob(x).detach().numpy(), atol=1e-6)
    np.testing.assert_array_equal(layer.predict(_mt(x, False)).numpy(), expected_layer.predict(x).numpy())
    with pytest.raises(RuntimeError):  # a class past n_classes
        layer(_mt(x, False), minitorch.tensor([0, 1, 2, 3, 4, 12]))
    with pytest.raises(ValueError):
        minitorch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [7, 3])
