"""The headless trainer: data, model, optimizer and the training loop, without any widget.

The widget (``widget.py``) draws a ``Trainer``; a script or a test can use one alone::

    trainer = Trainer(PlaygroundConfig(dataset="xor", hidden=[4]))
    trainer.train(epochs=20)
    trainer.history[-1].test_loss

One epoch is what TensorFlow Playground calls one step of its animation: one pass over
the training points in their (shuffled once) order, in batches of ``batch_size``, with
an optimizer step after each batch::

    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_function(model(inputs), targets) + penalty(model)
        loss.backward()
        optimizer.step()

Playground's squared error is ``½ (output - target)²`` averaged over the batch, so that
its gradient is simply ``output - target``; ``loss="mse"`` uses the same ½ so that
Playground's learning rates behave the same here.

Nothing in here raises on a bad setting: ``problems`` lists what is wrong, and training
does nothing until it is fixed. A loss that turns NaN stops training with a message.
"""

from __future__ import annotations

import contextlib
import math
import time
from typing import Any

import numpy as np

from minitorch import optim
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.compiler import CaptureError, compile  # noqa: A004 (PyTorch's name)
from minitorch.creation import tensor
from minitorch.dtypes import float32, int64
from minitorch.nn import functional as F
from minitorch.widgets.playground import network
from minitorch.widgets.playground.compute import BACKENDS, computing, default_backend, emulated
from minitorch.widgets.playground.config import (
    NEW_OPTIMIZER,
    RESETTING,
    PlaygroundConfig,
    validate,
)
from minitorch.widgets.playground.datasets import PlaygroundData, custom_dataset, make_dataset
from minitorch.widgets.playground.features import feature_matrix
from minitorch.widgets.playground.history import Epoch, History
from minitorch.widgets.playground.snapshots import Snapshots

DIVERGED = "the loss became NaN or infinite: the weights blew up. Lower the learning rate and press reset."
DATA_KEYS = {"dataset", "noise", "train_ratio", "seed", "num_samples"}


class Trainer:
    """Everything needed to train a Playground network, driven by a ``PlaygroundConfig``."""

    def __init__(self, config: PlaygroundConfig | None = None) -> None:
        self.config = config or PlaygroundConfig()
        if not self.config.backend:
            self.config.backend = default_backend()
        self.backends = list(BACKENDS)
        self.custom: PlaygroundData | None = None  # data passed from Python
        self.data: PlaygroundData | None = None
        self.model = None
        self.optimizer = None
        self.epoch = 0
        self.history = History()  # one Epoch per epoch trained; history.plot() draws it
        self.snapshots = Snapshots()
        self.message = ""  # what the widget shows: a bad setting, why training stopped
        self.diverged = False  # the loss became NaN: training waits for a reset
        self.step_seconds = 0.0  # time of the last epoch of training
        self.built: PlaygroundConfig | None = None  # the config the model was built from
        self.last_outputs: list[Tensor] = []  # every layer's output on all points
        self.compiled = True  # train with a captured step (see ``train_epoch``)
        self._step: Any = None
        self.apply(self.config)

    # ----- settings ----------------------------------------------------------------------

    @property
    def problems(self) -> list[str]:
        problems = validate(self.config, self.backends, custom_available=self.custom is not None)
        if self.config.dataset == "custom" and self.custom is not None:
            classes, loss = self.custom.num_classes, self.config.loss
            if classes == 0 and loss == "cross_entropy":
                problems.append("your data has numeric labels (regression): use the mse loss")
            if classes > 2 and loss == "mse":
                problems.append(f"your data has {classes} classes: use the cross_entropy loss")
        return problems

    def apply(self, config: PlaygroundConfig) -> None:
        """Take new settings: rebuild what they change (see ``config.RESETTING``)."""
        self.config = config
        self._forget_step()
        if self.problems:
            self.message = "; ".join(self.problems)
            return
        old = self.built
        self.built = config.copy()
        self.message = DIVERGED if self.diverged else ""
        if old is None or any(getattr(old, key) != getattr(config, key) for key in RESETTING):
            try:
                self._rebuild(new_data=old is None or any(
                    getattr(old, key) != getattr(config, key) for key in DATA_KEYS))  # fmt: skip
            except Exception as error:  # e.g. a backend that fails on this machine
                self.message = f"could not set up training: {error}"
                self.built = None
            return
        if old.backend != config.backend:
            self._move_to_backend(old.backend)
        if any(getattr(old, key) != getattr(config, key) for key in NEW_OPTIMIZER + ("backend",)):
            self.optimizer = self._make_optimizer()
        for group in self.optimizer.param_groups:
            group["lr"] = config.learning_rate

    def set_custom_data(self, points: object, labels: object) -> None:
        """Train on your own points; raises ``ValueError`` saying why data is unusable."""
        self.custom = custom_dataset(points, labels, self.config.train_ratio, self.config.seed)
        classes = self.custom.num_classes
        loss = self.config.loss if classes == 2 else ("mse" if classes == 0 else "cross_entropy")
        self.built = None  # force a rebuild on the new data
        self.apply(self.config.copy(dataset="custom", loss=loss))

    # ----- building ----------------------------------------------------------------------

    @property
    def device(self) -> str:
        return BACKENDS[self.built.backend][1]

    def _rebuild(self, new_data: bool) -> None:
        """New data (if asked), a freshly initialised model and optimizer, epoch 0."""
        config = self.built
        if new_data or self.data is None:
            self.data = self.custom if config.dataset == "custom" else make_dataset(config)
        with self.computing():
            self._prepare_tensors()
            outputs, output_activation = network.output_shape(
                self.data.problem, config.loss, self.data.num_classes)  # fmt: skip
            self.sizes = network.layer_sizes(len(config.features), config.hidden, outputs)
            self.output_activation = output_activation
            self.model = network.build_model(self.sizes, config.activation, output_activation,
                                             seed=config.seed).to(self.device)  # fmt: skip
            self.optimizer = self._make_optimizer()
            self._forget_step()
            self.epoch, self.history, self.diverged = 0, History(), False
            self.snapshots.clear()
            self.evaluate()
            self.snapshots.add(self.epoch, self.model)

    def computing(self) -> contextlib.AbstractContextManager:
        """The context all of the Playground's tensor code runs in (``compute.py``)."""
        return computing(self.built.backend)

    def _move_to_backend(self, previous: str) -> None:
        """Keep training the same weights on another backend (and device). Tensors on
        the CUDA emulator can only be copied while it is active: hence ``_emulated``."""
        moving_emulator_tensors = emulated("cuda_emulator" in (previous, self.built.backend))
        try:
            with moving_emulator_tensors, self.computing():
                self.model.to(self.device)
                self._prepare_tensors()
                self.evaluate()
        except Exception as error:  # e.g. CUDA without a GPU, a compiler missing
            self.message = f"backend {self.built.backend!r} failed here: {error} Back to {previous!r}."
            self.config.backend = self.built.backend = previous
            with emulated(previous == "cuda_emulator"), self.computing():
                self.model.to(self.device)
                self._prepare_tensors()
                self.evaluate()

    def _prepare_tensors(self) -> None:
        """Inputs and targets for every point, training points first, and the batches
        (views into them: no copies)."""
        data, config = self.data, self.built
        order = np.concatenate([np.flatnonzero(data.is_train), np.flatnonzero(~data.is_train)])
        points, labels = data.points[order], data.labels[order]
        self.train_count = int(data.is_train.sum())
        self.inputs = feature_matrix(tensor(points), config.features).to(self.device)
        if config.loss == "cross_entropy":
            self.targets = tensor(data.class_index(labels), dtype=int64, device=self.device)
        else:
            self.targets = tensor(labels.reshape(-1, 1), dtype=float32, device=self.device)
        self.batches = [
            (self.inputs[start:stop], self.targets[start:stop])
            for start in range(0, self.train_count, config.batch_size)
            for stop in [min(start + config.batch_size, self.train_count)]
        ]

    def _make_optimizer(self) -> optim.Optimizer:
        config, parameters = self.built, list(self.model.parameters())
        if config.optimizer == "adam":
            return optim.Adam(parameters, lr=config.learning_rate)
        momentum = config.momentum if config.optimizer == "momentum" else 0.0
        return optim.SGD(parameters, lr=config.learning_rate, momentum=momentum)

    # ----- the loss ----------------------------------------------------------------------

    def loss(self, outputs: Tensor, targets: Tensor) -> Tensor:
        """Playground's ½-mean squared error, or cross-entropy over the classes."""
        if self.built.loss == "cross_entropy":
            return F.cross_entropy(outputs, targets)
        return F.mse_loss(outputs, targets) * 0.5

    def penalty(self) -> Tensor | None:
        """Regularization of the weights (not the biases): rate·Σ|w| (L1) or
        rate·½Σw² (L2), as Playground defines them."""
        config = self.built
        if config.regularization == "none" or config.regularization_rate == 0:
            return None
        total = None
        for linear in network.linear_layers(self.model):
            weight = linear.weight
            term = weight.abs().sum() if config.regularization == "l1" else (weight * weight).sum() * 0.5
            total = term if total is None else total + term
        return total * config.regularization_rate

    # ----- training ----------------------------------------------------------------------

    def train(self, epochs: int = 1) -> str | None:
        """Train up to ``epochs`` epochs. Returns why it stopped early (a stop condition
        met, the loss became NaN, a bad setting), else ``None``."""
        if self.problems or self.built is None:
            return self.message or "fix the settings first"
        self.message = DIVERGED if self.diverged else ""
        if self.history and self.history[-1].epoch > self.epoch:  # resumed from a snapshot
            self.snapshots.forget_after(self.epoch)
            self.history = History(entry for entry in self.history if entry.epoch <= self.epoch)
        with self.computing():
            for _ in range(int(epochs)):
                reason = self.stop_reason()
                if reason:
                    return reason
                start = time.perf_counter()
                self.train_epoch()
                self.step_seconds = time.perf_counter() - start
                entry = self.evaluate()
                self.history.append(entry)
                self.snapshots.maybe_add(self.epoch, self.model)
                if not math.isfinite(entry.train_loss):
                    self.diverged = True
                    self.message = DIVERGED
                    return self.message
        return self.stop_reason()

    def train_epoch(self) -> None:
        """One pass over the training points, one optimizer step per batch.

        The step runs compiled (``minitorch.compile``): its kernel calls are captured
        once per batch shape and then replayed, with none of the eager per-op work. Any
        change of settings makes a new model or optimizer and so a new capture
        (``_forget_step``); ``compiled = False`` trains eagerly."""
        step = self._step
        if step is None:
            step = self._step = compile(self.train_step) if self.compiled else self.train_step
        for inputs, targets in self.batches:
            try:
                step(inputs, targets)
            except CaptureError:  # something this setup does cannot be captured: go eager
                self._step = self.train_step
                self.train_step(inputs, targets)
        self.epoch += 1

    def train_step(self, inputs: Tensor, targets: Tensor) -> None:
        """One optimizer step on one batch: the code ``train_epoch`` compiles."""
        self.optimizer.zero_grad()
        loss = self.loss(self.model(inputs), targets)
        penalty = self.penalty()
        if penalty is not None:
            loss = loss + penalty
        loss.backward()
        self.optimizer.step()

    def _forget_step(self) -> None:
        self._step = None

    def stop_reason(self) -> str | None:
        """The stop condition that holds now, if any."""
        config = self.built
        if self.diverged:
            return DIVERGED
        if config.max_epochs and self.epoch >= config.max_epochs:
            return f"stopped: reached {config.max_epochs} epochs"
        if config.target_loss and self.history and self.history[-1].test_loss <= config.target_loss:
            return f"stopped: test loss below {config.target_loss}"
        return None

    # ----- measuring ---------------------------------------------------------------------

    def evaluate(self) -> Epoch:
        """Losses and accuracies now, on all points in one forward pass (kept in
        ``current``; ``train`` appends them to ``history``)."""
        count = self.train_count
        with no_grad():
            self.last_outputs = network.layer_outputs(self.model, self.inputs)
            output = self.last_outputs[-1]
            train_loss = self.loss(output[:count], self.targets[:count]).item()
            test_loss = self.loss(output[count:], self.targets[count:]).item() \
                if count < len(self.targets) else float("nan")  # fmt: skip
        train_accuracy = test_accuracy = None
        if self.data.problem == "classification":
            correct = self._correct(output.cpu().numpy(), self.targets.cpu().numpy())
            train_accuracy = float(correct[:count].mean())
            test_accuracy = float(correct[count:].mean()) if count < len(correct) else None
        entry = Epoch(self.epoch, train_loss, test_loss, train_accuracy, test_accuracy)
        self.current = entry
        return entry

    def _correct(self, output: np.ndarray, targets: np.ndarray) -> np.ndarray:
        if self.built.loss == "cross_entropy":
            return output.argmax(axis=1) == targets
        return (output[:, 0] >= 0) == (targets[:, 0] > 0)

    # ----- editing by hand ---------------------------------------------------------------

    def set_weight(self, layer: int, neuron: int, source: int, value: float) -> str | None:
        """Set the weight from neuron ``source`` of layer ``layer`` (0: the inputs) to
        neuron ``neuron`` of the next layer. Returns a message if that link is not there."""
        return self._set(layer, neuron, source, value)

    def set_bias(self, layer: int, neuron: int, value: float) -> str | None:
        """Set the bias of neuron ``neuron`` of layer ``layer`` (1: first hidden layer)."""
        return self._set(layer - 1, neuron, None, value)

    def _set(self, layer: int, neuron: int, source: int | None, value: float) -> str | None:
        if self.model is None:
            return "there is no network to edit (fix the settings first)"
        linears = network.linear_layers(self.model)
        try:
            value = float(value)
            if not math.isfinite(value):
                raise ValueError
            linear = linears[layer]
            if source is None:
                if not 0 <= neuron < linear.bias.shape[0]:
                    raise IndexError
                with no_grad():
                    linear.bias[neuron] = value
            else:
                if not (0 <= neuron < linear.weight.shape[0] and 0 <= source < linear.weight.shape[1]):
                    raise IndexError
                with no_grad():
                    linear.weight[neuron, source] = value
        except (ValueError, TypeError):
            return f"{value!r} is not a number"
        except IndexError:
            return f"there is no such weight or bias (layer {layer}, neuron {neuron})"
        with self.computing():
            self.evaluate()
        return None

    def add_point(self, x1: float, x2: float, label: float, train: bool = True) -> str | None:
        """Add a point of class/value ``label`` where the user clicked."""
        if self.data is None:
            return "fix the settings first"
        if self.data.num_classes > 2 and not float(label).is_integer():
            return f"label {label} is not a class number"
        self.data = self.data.with_points([[x1, x2]], [label], train)
        with self.computing():
            self._prepare_tensors()
            self.evaluate()
        return None

    def reset(self) -> None:
        """Start over: the same data, the starting weights again, epoch 0."""
        if self.problems:
            self.message = "; ".join(self.problems)
            return
        self.message = ""
        try:
            self.built = self.config.copy()
            self._rebuild(new_data=False)
        except Exception as error:
            self.message = f"could not set up training: {error}"

    def restore(self, index: int) -> None:
        """Go back to snapshot ``index``: its weights and its epoch. History after it is
        dropped when training resumes."""
        epoch = self.snapshots.load(index, self.model)
        self.epoch = epoch
        self.optimizer = self._make_optimizer()
        self._forget_step()
        with self.computing():
            self.evaluate()
