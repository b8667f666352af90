"""Parity with PyTorch: the same network, weights, data and math give the same losses.

For each setting below the Playground trains a few epochs with minitorch; a PyTorch
twin starts from the very same weights and inputs and runs the same loop (Playground's
½-mean-squared error or cross-entropy, the same penalty, ``torch.optim``). Losses after
every epoch and the final weights must agree to float32 rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from minitorch.widgets.playground import Trainer

from .helpers import small

EPOCHS = 3
CASES = {
    "playground default": small(),
    "relu, momentum, L2, x1x2": small(
        dataset="xor",
        activation="relu",
        optimizer="momentum",
        regularization="l2",
        regularization_rate=0.01,
        features=["x1", "x2", "x1x2"],
    ),  # fmt: skip
    "sigmoid, adam, L1, odd batch": small(
        dataset="gauss",
        activation="sigmoid",
        optimizer="adam",
        learning_rate=0.01,
        regularization="l1",
        regularization_rate=0.003,
        batch_size=7,
    ),  # fmt: skip
    "3 classes, cross-entropy": small(
        dataset="spiral3",
        loss="cross_entropy",
        hidden=[6, 5],
        features=["x1", "x2", "sin_x1", "sin_x2"],
        optimizer="adam",
        learning_rate=0.01,
    ),  # fmt: skip
    "2 classes, cross-entropy": small(loss="cross_entropy", features=["x1^2", "x2^2"], hidden=[3]),
    "regression, linear": small(
        dataset="reg_gauss", activation="linear", hidden=[5], learning_rate=0.01
    ),  # fmt: skip
    "no hidden layer": small(hidden=[], features=["x1^2", "x2^2"]),
}


def torch_twin(trainer: Trainer) -> tuple:
    """A PyTorch copy of the trainer's model, optimizer, loss and data."""
    config = trainer.built
    layers = []
    for module in trainer.model:
        name = type(module).__name__
        if name == "Linear":
            layer = torch.nn.Linear(module.in_features, module.out_features)
            with torch.no_grad():
                layer.weight.copy_(torch.tensor(module.weight.detach().numpy()))
                layer.bias.copy_(torch.tensor(module.bias.detach().numpy()))
            layers.append(layer)
        else:
            layers.append({"Tanh": torch.nn.Tanh, "ReLU": torch.nn.ReLU, "Sigmoid": torch.nn.Sigmoid,
                           "Identity": torch.nn.Identity}[name]())  # fmt: skip
    model = torch.nn.Sequential(*layers)
    if config.optimizer == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    else:
        momentum = config.momentum if config.optimizer == "momentum" else 0.0
        optimizer = torch.optim.SGD(model.parameters(), lr=config.learning_rate, momentum=momentum)

    def loss_function(outputs, targets):
        if config.loss == "cross_entropy":
            return torch.nn.functional.cross_entropy(outputs, targets)
        return torch.nn.functional.mse_loss(outputs, targets) * 0.5

    def penalty():
        if config.regularization == "none":
            return 0.0
        weights = [m.weight for m in model if isinstance(m, torch.nn.Linear)]
        if config.regularization == "l1":
            return config.regularization_rate * sum(w.abs().sum() for w in weights)
        return config.regularization_rate * sum((w * w).sum() * 0.5 for w in weights)

    inputs = torch.tensor(trainer.inputs.numpy())
    targets = torch.tensor(trainer.targets.numpy())
    return model, optimizer, loss_function, penalty, inputs, targets


@pytest.mark.parametrize("name", list(CASES))
def test_same_losses_as_pytorch(name: str) -> None:
    trainer = Trainer(CASES[name])
    assert trainer.message == ""
    model, optimizer, loss_function, penalty, inputs, targets = torch_twin(trainer)
    count, batch = trainer.train_count, trainer.built.batch_size
    trainer.train(EPOCHS)
    expected = []
    for _ in range(EPOCHS):
        for start in range(0, count, batch):
            stop = min(start + batch, count)  # the last batch may be smaller
            optimizer.zero_grad()
            loss = loss_function(model(inputs[start:stop]), targets[start:stop]) + penalty()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            outputs = model(inputs)
            expected.append((loss_function(outputs[:count], targets[:count]).item(),
                             loss_function(outputs[count:], targets[count:]).item()))  # fmt: skip
    got = [(entry.train_loss, entry.test_loss) for entry in trainer.history]
    np.testing.assert_allclose(got, expected, rtol=2e-4, atol=1e-6)
    for ours, theirs in zip(trainer.model.state_dict().values(), model.state_dict().values()):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.numpy(), rtol=1e-3, atol=1e-5)


def test_playground_initialisation() -> None:
    """Weights uniform in [-0.5, 0.5], biases 0.1, reproducible from the seed."""
    first, again, other = Trainer(small(hidden=[8, 8])), Trainer(small(hidden=[8, 8])), Trainer(small(seed=3))
    for name, value in first.model.state_dict().items():
        values = value.detach().numpy()
        if name.endswith("bias"):
            assert np.all(values == np.float32(0.1))
        else:
            assert values.min() >= -0.5 and values.max() <= 0.5
        np.testing.assert_array_equal(values, again.model.state_dict()[name].detach().numpy())
    assert not np.array_equal(first.model[0].weight.detach().numpy(), other.model[0].weight.detach().numpy())
