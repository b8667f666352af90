"""What the widget draws, computed in Python: heatmaps, links and gradients.

The page never runs the network itself. After training, Python feeds a 100x100 grid of
points covering ``[-6, 6]²`` through the model *once* (``network.layer_outputs``) and
keeps what every neuron says about every grid point. Those are the heatmaps:

* the **decision boundary**: the network's output on the grid (tanh output in [-1, 1];
  with cross-entropy, ``2·p(blue) - 1`` for two classes, or the winning class and its
  probability for more);
* one **neuron heatmap** per neuron;
* the **input features** (``x1``, ``sin(x2)``...): they never change, so
  ``feature_planes`` computes them once, from the formulas in ``features.py``.

Each heatmap is sent as 100x100 bytes: a value ``v`` in ``[-1, 1]`` becomes
``round((v + 1) · 127.5)`` (0 is orange, 255 blue). All of them go in one ``bytes``
object, in the order ``plane_keys`` lists, so a whole frame is one binary message (an
anywidget binary buffer, not a JSON list: 10 kB per heatmap).

``network_view`` gathers the small things: weights and biases (drawn as links and
squares), their gradients from the last batch, each layer's gradient norm, and the
ReLU neurons that are dead (zero on every training point, so they never learn again).
``status_view`` has the numbers (epoch, losses, accuracy, the loss curve, speed) and
``points_view`` the data points.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch.autograd.grad_mode import no_grad
from minitorch.creation import tensor
from minitorch.widgets.playground import network
from minitorch.widgets.playground.config import to_string
from minitorch.widgets.playground.datasets import DOMAIN
from minitorch.widgets.playground.features import FEATURES, feature_matrix

GRID = 100  # heatmaps are GRID x GRID, like TensorFlow Playground's


def grid_points(size: int = GRID) -> np.ndarray:
    """The ``[size * size, 2]`` grid points, row by row, top row (x2 = +6) first."""
    steps = np.linspace(-DOMAIN, DOMAIN, size, dtype=np.float32)
    x1, x2 = np.meshgrid(steps, steps[::-1])
    return np.stack([x1.ravel(), x2.ravel()], axis=1)


def to_bytes(values: np.ndarray) -> np.ndarray:
    """Values in [-1, 1] (clipped) as bytes 0..255."""
    values = np.nan_to_num(values, nan=0.0, posinf=1.0, neginf=-1.0)
    return np.round((np.clip(values, -1.0, 1.0) + 1.0) * 127.5).astype(np.uint8)


def feature_planes() -> bytes:
    """Every input feature on the grid, in ``FEATURES`` order, as bytes: each feature
    is divided by its largest absolute value on the grid, so it spans ``[-1, 1]``."""
    with no_grad():
        values = feature_matrix(tensor(grid_points()), list(FEATURES)).numpy()
    largest = np.maximum(np.abs(values).max(axis=0), 1e-6)
    return to_bytes(values / largest).T.tobytes()


class Renderer:
    """Computes the frame for a ``Trainer``; caches the grid's input features."""

    def __init__(self) -> None:
        self._grid_inputs: dict[tuple, Any] = {}

    def grid_inputs(self, features: list[str], device: str) -> Any:
        key = (tuple(features), device)
        if key not in self._grid_inputs:
            self._grid_inputs.clear()
            self._grid_inputs[key] = feature_matrix(tensor(grid_points()), features).to(device)
        return self._grid_inputs[key]

    def frame(self, trainer: Any) -> tuple[list[str], bytes]:
        """All heatmaps of the current model: ``(plane_keys, bytes)``.

        One forward pass over the grid gives every neuron's heatmap at once: layer ``k``
        is one ``[10000, fan_in] @ [fan_in, neurons]`` matmul, not one pass per neuron.
        Each layer's ``[10000, neurons]`` values then become bytes in one step, transposed
        first so that each neuron's plane is one contiguous run of 10,000 bytes::

            frame = boundary, then for each layer: to_bytes(values.T)  # plane after plane
        """
        config = trainer.built  # the settings the model was built with
        with trainer.computing(), no_grad():
            inputs = self.grid_inputs(config.features, trainer.device)
            outputs = [out.cpu().numpy() for out in network.layer_outputs(trainer.model, inputs)]
        keys = ["boundary"]
        classes = None  # the winning class per grid point, for three classes or more
        final = outputs[-1]
        if config.loss == "cross_entropy":
            final = _softmax(final)
            if final.shape[1] == 2:
                boundary = final[:, 1] - final[:, 0]
            else:
                boundary = final.max(axis=1) * 2 - 1
                classes = final.argmax(axis=1).astype(np.uint8)
            outputs[-1] = final * 2 - 1  # neuron heatmaps of the outputs: 2p - 1
        else:
            boundary = final[:, 0]
        planes = [to_bytes(boundary)]
        for layer, values in enumerate(outputs, start=1):
            keys += [f"node:{layer}:{neuron}" for neuron in range(values.shape[1])]
            planes.append(to_bytes(np.ascontiguousarray(values.T)).ravel())  # row j: neuron j
        if classes is not None:
            keys.append("boundary_class")
            planes.append(classes)
        return keys, np.concatenate(planes).tobytes()


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def _rounded(array: np.ndarray) -> list:
    """Values rounded to 4 decimals as nested lists; NaN and inf become ``None`` (JSON
    has no NaN)."""
    values = np.round(array.astype(np.float64), 4)
    if np.isfinite(values).all():
        return values.tolist()
    return np.where(np.isfinite(values), values, None).tolist()


def network_view(trainer: Any) -> dict[str, Any]:
    """Weights, biases, gradients, gradient norms and dead ReLUs, as plain lists."""
    linears = network.linear_layers(trainer.model)
    weights, biases, weight_grads, bias_grads, norms = [], [], [], [], []
    for linear in linears:
        weights.append(_rounded(linear.weight.detach().cpu().numpy()))
        biases.append(_rounded(linear.bias.detach().cpu().numpy()))
        for parameter, target in ((linear.weight, weight_grads), (linear.bias, bias_grads)):
            grad = parameter.grad
            target.append(None if grad is None else _rounded(grad.cpu().numpy()))
        grad = linear.weight.grad
        norm = None if grad is None else float(np.linalg.norm(grad.cpu().numpy()))
        norms.append(norm if norm is not None and np.isfinite(norm) else None)
    dead: list[list[bool]] = []
    if trainer.built.activation == "relu":
        count = trainer.train_count
        for hidden in trainer.last_outputs[:-1]:
            on_train = hidden.cpu().numpy()[:count]
            dead.append((on_train <= 0).all(axis=0).tolist())
    return {
        "sizes": list(trainer.sizes),
        "features": list(trainer.built.features),
        "output_activation": trainer.output_activation,
        "weights": weights,
        "biases": biases,
        "weight_grads": weight_grads,
        "bias_grads": bias_grads,
        "grad_norms": norms,
        "dead": dead,
        "dead_count": int(sum(sum(layer) for layer in dead)),
    }


def _finite(value: float | None) -> float | None:
    """JSON has no NaN: send ``None`` instead."""
    return value if value is not None and math.isfinite(value) else None


def status_view(trainer: Any, running: bool, message: str, epochs_per_second: float | None) -> dict[str, Any]:
    """The epoch, losses, accuracies, loss curve (at most ~300 points), speed and message."""
    current = getattr(trainer, "current", None)
    history = trainer.history
    stride = max(1, len(history) // 300)
    curve = [[h.epoch, _finite(h.train_loss), _finite(h.test_loss)] for h in history[::stride]]
    if history and curve[-1][0] != history[-1].epoch:
        curve.append([history[-1].epoch, _finite(history[-1].train_loss), _finite(history[-1].test_loss)])
    batches = max(1, len(getattr(trainer, "batches", [])))
    data = trainer.data
    return {
        "epoch": trainer.epoch,
        "running": running,
        "message": message,
        "problems": trainer.problems,
        "train_loss": _finite(current.train_loss) if current else None,
        "test_loss": _finite(current.test_loss) if current else None,
        "train_accuracy": current.train_accuracy if current else None,
        "test_accuracy": current.test_accuracy if current else None,
        "curve": curve,
        "epoch_ms": trainer.step_seconds * 1000,
        "batch_ms": trainer.step_seconds * 1000 / batches,
        "epochs_per_second": epochs_per_second,
        "backend": trainer.config.backend,
        "problem": data.problem if data is not None else trainer.config.problem,
        "num_classes": data.num_classes if data is not None else 2,
        "snapshots": trainer.snapshots.epochs,
        "config_string": to_string(trainer.config),
    }


def points_view(data: Any) -> dict[str, Any]:
    """The data points for the scatter plot: ``[x1, x2, label, is_train]`` rows."""
    rows = np.concatenate([np.round(data.points, 3), data.labels[:, None].round(3),
                           data.is_train[:, None]], axis=1)  # fmt: skip
    return {"rows": rows.tolist(), "num_classes": data.num_classes, "name": data.name}
