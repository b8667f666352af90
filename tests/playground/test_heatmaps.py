"""The heatmaps of one frame, computed in one batched pass, equal each neuron computed alone.

``Renderer.frame`` feeds the whole 100x100 grid through the network once (one matmul
per layer for all of that layer's neurons) and turns every plane into bytes in one step.
Here each neuron is recomputed on its own, in float64 NumPy, straight from its
definition::

    neuron(0, i)(x) = feature i of x
    neuron(k, j)(x) = activation(sum_i W_k[j, i] * neuron(k - 1, i)(x) + b_k[j])

and the decision boundary from the output neurons (tanh output, or softmax probabilities
for cross-entropy). A byte is ``round((v + 1) * 127.5)``, so float32 against float64
may differ by one step, never more.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from minitorch.autograd.grad_mode import no_grad
from minitorch.widgets.playground import Trainer, network
from minitorch.widgets.playground.render import GRID, Renderer, grid_points

from .helpers import small

FEATURES = {  # features.py's formulas, in NumPy
    "x1": lambda x1, x2: x1,
    "x2": lambda x1, x2: x2,
    "x1^2": lambda x1, x2: x1 * x1,
    "x2^2": lambda x1, x2: x2 * x2,
    "x1x2": lambda x1, x2: x1 * x2,
    "sin_x1": lambda x1, x2: np.sin(x1),
    "sin_x2": lambda x1, x2: np.sin(x2),
}
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda v: np.maximum(v, 0.0),
    "sigmoid": lambda v: 1.0 / (1.0 + np.exp(-v)),
    "linear": lambda v: v,
}
CASES = {
    "default (tanh, mse)": small(),
    "spiral, 4 features, 8-6": small(
        dataset="spiral", features=["x1", "x2", "sin_x1", "sin_x2"], hidden=[8, 6]
    ),
    "relu, three layers": small(
        dataset="xor", activation="relu", hidden=[3, 5, 2], features=["x1", "x2", "x1x2"]
    ),
    "sigmoid, no hidden layer": small(activation="sigmoid", hidden=[], features=["x1^2", "x2^2"]),
    "2 classes, cross-entropy": small(loss="cross_entropy", hidden=[3]),
    "3 classes, cross-entropy": small(dataset="spiral3", loss="cross_entropy", hidden=[6, 5]),
    "regression, linear": small(dataset="reg_gauss", activation="linear", hidden=[5]),
}


def planes_of(keys: list[str], frame: bytes) -> dict[str, np.ndarray]:
    planes = np.frombuffer(frame, dtype=np.uint8).reshape(len(keys), GRID * GRID)
    return dict(zip(keys, planes))


def to_byte(values: np.ndarray) -> np.ndarray:
    return np.round((np.clip(values, -1.0, 1.0) + 1.0) * 127.5)


def neuron_by_neuron(trainer: Trainer) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Every neuron's values on the grid, each computed by itself (float64), and the
    output layer's values."""
    x1, x2 = grid_points().astype(np.float64).T
    previous = [FEATURES[name](x1, x2) for name in trainer.built.features]
    neurons: dict[str, np.ndarray] = {}
    linears = network.linear_layers(trainer.model)
    for layer, linear in enumerate(linears, start=1):
        weight = linear.weight.detach().numpy().astype(np.float64)
        bias = linear.bias.detach().numpy().astype(np.float64)
        is_output = layer == len(linears)
        activation = ACTIVATIONS[trainer.output_activation if is_output else trainer.built.activation]
        current = []
        for j in range(weight.shape[0]):
            total = bias[j] + sum(weight[j, i] * previous[i] for i in range(weight.shape[1]))
            current.append(activation(total))
            neurons[f"node:{layer}:{j}"] = current[-1]
        previous = current
    return neurons, np.stack(previous, axis=1)


@pytest.mark.parametrize("name", list(CASES))
def test_batched_heatmaps_equal_each_neuron_computed_alone(name: str) -> None:
    trainer = Trainer(CASES[name])
    trainer.train(2)
    keys, frame = Renderer().frame(trainer)
    planes = planes_of(keys, frame)
    neurons, output = neuron_by_neuron(trainer)
    if trainer.built.loss == "cross_entropy":
        probabilities = torch.softmax(torch.tensor(output), dim=1).numpy()
        for j in range(output.shape[1]):
            neurons[f"node:{len(trainer.sizes) - 1}:{j}"] = probabilities[:, j] * 2 - 1
        if output.shape[1] == 2:
            boundary = probabilities[:, 1] - probabilities[:, 0]
        else:
            boundary = probabilities.max(axis=1) * 2 - 1
            winner = probabilities.argmax(axis=1)
            agree = planes["boundary_class"] == winner
            assert agree.mean() > 0.999  # a tie between two classes may break either way
    else:
        boundary = output[:, 0]
    assert sorted(k for k in keys if k.startswith("node:")) == sorted(neurons)
    assert keys[0] == "boundary"
    for key, values in [("boundary", boundary), *neurons.items()]:
        difference = np.abs(planes[key].astype(np.float64) - to_byte(values))
        assert difference.max() <= 1, f"{key} differs by {difference.max()} steps"
        assert (difference > 0).mean() < 0.01, f"{key}: too many values one step off"


def test_the_frame_follows_training_and_is_one_binary_buffer() -> None:
    trainer = Trainer(small(dataset="spiral"))
    renderer = Renderer()
    keys, before = renderer.frame(trainer)
    trainer.train(3)
    keys_after, after = renderer.frame(trainer)
    assert keys == keys_after and isinstance(after, bytes)
    assert len(after) == len(keys) * GRID * GRID  # one byte per grid point per plane
    assert before != after


def test_non_finite_outputs_become_the_ends_of_the_scale() -> None:
    trainer = Trainer(small(activation="linear", hidden=[2]))
    linear = network.linear_layers(trainer.model)[0]
    with no_grad():
        linear.weight.fill_(float("nan"))
    keys, frame = Renderer().frame(trainer)
    planes = planes_of(keys, frame)
    assert (planes["node:1:0"] == 128).all()  # NaN is drawn as 0, the middle colour
