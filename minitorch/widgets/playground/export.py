"""Export as code: the Playground's current model and training loop as a plain script.

``export_code(trainer)`` writes a self-contained Python script that builds the same
data, features, network (with its current weights) and optimizer, and runs the same
training loop, so a student can copy it into a file and keep going without the widget.
Run from epoch 0 it reproduces the Playground's losses exactly: the data comes from the
same ``minitorch.data`` call with the same seed, and the loop is the trainer's loop.

The script keeps every epoch's ``(train_loss, test_loss)`` in a list called
``history``; the tests execute exported scripts and compare that list with the
Playground's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.widgets.playground import network
from minitorch.widgets.playground.config import CLASSIFICATION_DATASETS, REGRESSION_DATASETS, to_string
from minitorch.widgets.playground.features import FEATURE_CODE


def _number(value: float) -> str:
    """A float32 written so that reading it back gives the very same float32."""
    return repr(float(np.float32(value)))


def _literal(array: np.ndarray) -> str:
    """A nested list literal of ``array``'s values."""
    if array.ndim == 0:
        return _number(array)
    return "[" + ", ".join(_literal(row) for row in array) + "]"


def _data_code(trainer: Any) -> list[str]:
    """Lines that make ``points`` and ``labels`` with the training points first."""
    config, data = trainer.config, trainer.data
    cross_entropy = config.loss == "cross_entropy"
    standard = len(data.points) == config.sample_count and data.name == config.dataset
    if standard and config.dataset in CLASSIFICATION_DATASETS:
        kind = "class" if cross_entropy else "sign"
        meaning = "class numbers 0 (orange) and 1 (blue)" if cross_entropy else "+1 (blue) / -1 (orange)"
        return [f"# {config.sample_count} points of {config.dataset!r}; labels are {meaning}.",
                f"points, labels = minitorch.data.{config.dataset}(n={config.sample_count}, "
                f"noise={config.noise}, seed={config.seed}, labels={kind!r})"]  # fmt: skip
    if standard and config.dataset in REGRESSION_DATASETS:
        return [f"# {config.sample_count} points of {config.dataset!r}; each label is a number in [-1, 1].",
                f"points, labels = minitorch.data.{config.dataset}(n={config.sample_count}, "
                f"noise={config.noise}, seed={config.seed})"]  # fmt: skip
    order = np.concatenate([np.flatnonzero(data.is_train), np.flatnonzero(~data.is_train)])
    labels = data.labels[order]
    if cross_entropy:
        labels_code = "[" + ", ".join(str(v) for v in data.class_index(labels).tolist()) + "]"
        dtype = "minitorch.int64"
    else:
        labels_code, dtype = _literal(labels), "minitorch.float32"
    return [f"# The Playground's points ({data.name!r}, with the points you added), training points first.",
            f"points = minitorch.tensor({_literal(data.points[order])})",
            f"labels = minitorch.tensor({labels_code}, dtype={dtype})"]  # fmt: skip


def _loss_code(config: Any) -> list[str]:
    if config.loss == "cross_entropy":
        return ["def loss_function(outputs, targets):",
                "    # softmax over the classes, then the negative log of the right class's probability",
                "    return F.cross_entropy(outputs, targets)"]  # fmt: skip
    return ["def loss_function(outputs, targets):",
            "    # Playground's squared error: ½ (output - target)², averaged over the batch",
            "    return F.mse_loss(outputs, targets) * 0.5"]  # fmt: skip


def _penalty_code(config: Any) -> list[str]:
    if config.regularization == "none" or config.regularization_rate == 0:
        return []
    if config.regularization == "l1":
        term = "layer.weight.abs().sum()"
    else:
        term = "(layer.weight * layer.weight).sum() * 0.5"
    name = "L1: Σ|w|" if config.regularization == "l1" else "L2: ½Σw²"
    return ["", "", "def penalty(model):",
            f"    # {name} over the weights (not the biases), times the regularization rate",
            f"    total = sum({term} for layer in model if isinstance(layer, nn.Linear))",
            f"    return total * {config.regularization_rate!r}"]  # fmt: skip


def _optimizer_code(config: Any) -> str:
    if config.optimizer == "adam":
        return f"optimizer = optim.Adam(model.parameters(), lr={config.learning_rate!r})"
    if config.optimizer == "momentum":
        return (f"optimizer = optim.SGD(model.parameters(), lr={config.learning_rate!r}, "
                f"momentum={config.momentum!r})")  # fmt: skip
    return f"optimizer = optim.SGD(model.parameters(), lr={config.learning_rate!r})"


def export_code(trainer: Any, epochs: int = 100) -> str:
    """The script for ``trainer``'s current state, training ``epochs`` more epochs."""
    config = trainer.config
    device = trainer.device
    state = {name: value.detach().cpu().numpy() for name, value in trainer.model.state_dict().items()}
    classification = trainer.data.problem == "classification"
    features = ", ".join(FEATURE_CODE[name] for name in config.features)
    penalty = _penalty_code(config)
    lines = [
        f'"""Exported from the minitorch Playground at epoch {trainer.epoch}.',
        "",
        f"Its settings, to paste back into the Playground: {to_string(config)}",
        '"""',
        "",
        "import minitorch",
        "from minitorch import nn, optim",
        "from minitorch.nn import functional as F",
        "",
        *([f'minitorch.set_backend("cpu", "{config.backend}")'] if device == "cpu" else []),
        f'DEVICE = "{device}"',
        f"EPOCHS = {int(epochs)}",
        f"BATCH_SIZE = {config.batch_size}",
        "",
        *_data_code(trainer),
        f"train_count = {trainer.train_count}  # the first {config.train_ratio}% train, the rest test",
        "targets = labels" if config.loss == "cross_entropy" else "targets = labels.reshape(-1, 1)",
        "",
        "# The input features the Playground had switched on, one column each.",
        "x1, x2 = points[:, 0], points[:, 1]",
        f"inputs = minitorch.stack([{features}], dim=1).contiguous()",
        "inputs, targets = inputs.to(DEVICE), targets.to(DEVICE)",
        "",
        network.model_code(trainer.sizes, config.activation, trainer.output_activation),
        "# The weights the Playground had (the Playground starts from uniform [-0.5, 0.5]",
        "# weights and biases of 0.1).",
        "model.load_state_dict({",
        *(f"    {name!r}: minitorch.tensor({_literal(value)})," for name, value in state.items()),
        "})",
        "model = model.to(DEVICE)",
        _optimizer_code(config),
        "",
        "",
        *_loss_code(config),
        *penalty,
        "",
        "",
        "train_inputs, train_targets = inputs[:train_count], targets[:train_count]",
        "test_inputs, test_targets = inputs[train_count:], targets[train_count:]",
        "history = []  # (train loss, test loss) after each epoch",
        "for epoch in range(1, EPOCHS + 1):",
        "    for start in range(0, train_count, BATCH_SIZE):",
        "        batch_inputs = train_inputs[start:start + BATCH_SIZE]",
        "        batch_targets = train_targets[start:start + BATCH_SIZE]",
        "        optimizer.zero_grad()",
        "        loss = loss_function(model(batch_inputs), batch_targets)",
        *(["        loss = loss + penalty(model)"] if penalty else []),
        "        loss.backward()",
        "        optimizer.step()",
        "    with minitorch.no_grad():",
        "        train_loss = loss_function(model(train_inputs), train_targets).item()",
        "        test_loss = loss_function(model(test_inputs), test_targets).item()",
        "    history.append((train_loss, test_loss))",
        '    print(f"epoch {epoch}: train loss {train_loss:.3f}, test loss {test_loss:.3f}")',
    ]
    if classification:
        predicted = ("model(test_inputs).argmax(dim=1)" if config.loss == "cross_entropy"
                     else "(model(test_inputs) >= 0).float() * 2 - 1")  # fmt: skip
        lines += [
            "",
            "with minitorch.no_grad():",
            f"    accuracy = ({predicted} == test_targets).float().mean().item()",
            'print(f"test accuracy {accuracy:.1%}")',
        ]
    return "\n".join(lines) + "\n"
