"""The headless trainer: training, settings, bad input, snapshots, editing, backends."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minitorch.widgets.playground import Trainer
from minitorch.widgets.playground.compute import available_backends
from minitorch.widgets.playground.trainer import DIVERGED

from .helpers import small


def weights(trainer: Trainer) -> list[np.ndarray]:
    return [value.detach().numpy().copy() for value in trainer.model.state_dict().values()]


def test_training_learns_the_circle() -> None:
    trainer = Trainer(small(features=["x1", "x2", "x1^2", "x2^2"], learning_rate=0.1))
    start = trainer.current
    assert trainer.train(20) is None
    assert len(trainer.history) == 20 and trainer.history[-1].epoch == 20
    last = trainer.history[-1]
    assert last.test_loss < start.test_loss / 2
    assert last.test_accuracy > 0.9 and last.train_accuracy > 0.9


def test_multiclass_and_regression_learn() -> None:
    blobs = Trainer(small(dataset="blobs", loss="cross_entropy", optimizer="adam", learning_rate=0.03))
    blobs.train(15)
    assert blobs.history[-1].test_accuracy > 0.9
    plane = Trainer(small(dataset="reg_plane", hidden=[], activation="linear", learning_rate=0.01))
    plane.train(10)
    assert plane.history[-1].test_accuracy is None
    assert plane.history[-1].test_loss < 0.01


def test_bad_settings_pause_training_with_a_message() -> None:
    trainer = Trainer(small())
    trainer.train(2)
    before = weights(trainer)
    trainer.apply(trainer.config.copy(hidden=[4, 0]))
    assert "hidden layer 2 has 0 neurons" in trainer.message
    assert trainer.train(3) == trainer.message
    assert trainer.epoch == 2 and all(np.array_equal(a, b) for a, b in zip(before, weights(trainer)))
    trainer.apply(trainer.config.copy(hidden=[4, 2], features=[]))
    assert "no input feature" in trainer.message
    trainer.apply(trainer.config.copy(features=["x1", "x2"]))
    assert trainer.message == "" and trainer.epoch == 2  # back to the same network
    assert trainer.train(1) is None and trainer.epoch == 3


def test_bad_settings_from_the_start() -> None:
    trainer = Trainer(small(features=[], learning_rate=-1))
    assert trainer.model is None and "no input feature" in trainer.message
    assert trainer.train(1) and trainer.epoch == 0


def test_nan_loss_stops_training_until_reset() -> None:
    trainer = Trainer(small(dataset="reg_plane", activation="linear", learning_rate=10,
                            features=["x1", "x2", "x1^2", "x2^2", "x1x2"]))  # fmt: skip
    assert trainer.train(10) == DIVERGED
    assert not math.isfinite(trainer.history[-1].train_loss)
    epoch = trainer.epoch
    trainer.apply(trainer.config.copy(learning_rate=0.001))
    assert trainer.train(1) == DIVERGED and trainer.epoch == epoch and trainer.message == DIVERGED
    trainer.reset()
    assert trainer.message == "" and trainer.epoch == 0
    assert trainer.train(1) is None and math.isfinite(trainer.history[-1].train_loss)


def test_stop_conditions() -> None:
    trainer = Trainer(small(max_epochs=4))
    assert trainer.train(100) == "stopped: reached 4 epochs" and trainer.epoch == 4
    easy = Trainer(small(dataset="gauss", target_loss=0.2, learning_rate=0.1))
    assert easy.train(200).startswith("stopped: test loss below")
    assert easy.history[-1].test_loss <= 0.2 and easy.epoch < 200


def test_which_settings_reset_the_network() -> None:
    trainer = Trainer(small())
    trainer.train(3)
    trained = weights(trainer)
    trainer.apply(trainer.config.copy(learning_rate=0.1, optimizer="adam", epochs_per_frame=5))
    assert trainer.epoch == 3 and all(np.array_equal(a, b) for a, b in zip(trained, weights(trainer)))
    assert trainer.optimizer.param_groups[0]["lr"] == 0.1 and type(trainer.optimizer).__name__ == "Adam"
    trainer.apply(trainer.config.copy(activation="relu"))
    assert trainer.epoch == 0 and trainer.history == []
    old_points = trainer.data.points
    trainer.apply(trainer.config.copy(hidden=[3]))
    assert trainer.data.points is old_points  # the network changed, not the data
    trainer.apply(trainer.config.copy(noise=20))
    assert trainer.data.points is not old_points


def test_snapshots_thin_out_and_restore() -> None:
    trainer = Trainer(small())
    trainer.snapshots.limit = 8
    trainer.train(30)
    epochs = trainer.snapshots.epochs
    assert len(epochs) <= 8 and epochs[0] == 0 and epochs[-1] >= 24
    assert all(b - a == epochs[1] - epochs[0] for a, b in zip(epochs, epochs[1:]))  # evenly spread
    index = 2
    trainer.restore(index)
    assert trainer.epoch == epochs[index]
    then = trainer.history[epochs[index] - 1]
    assert trainer.current.train_loss == pytest.approx(then.train_loss, rel=1e-5)
    trainer.train(1)  # training on from the past drops the later history
    assert trainer.epoch == epochs[index] + 1 and trainer.history[-1].epoch == trainer.epoch
    assert len(trainer.history) == trainer.epoch


def test_edit_weights_and_biases() -> None:
    trainer = Trainer(small())
    assert trainer.set_weight(0, 3, 1, 2.5) is None
    assert trainer.model[0].weight[3, 1].item() == 2.5
    assert trainer.set_bias(2, 1, -1.25) is None
    assert trainer.model[2].bias[1].item() == -1.25
    before = trainer.current
    trainer.set_weight(2, 0, 0, 4.0)
    assert trainer.current != before  # losses recomputed
    assert "no such weight" in trainer.set_weight(0, 4, 0, 1.0)
    assert "no such weight" in trainer.set_bias(9, 0, 1.0)
    assert "not a number" in trainer.set_weight(0, 0, 0, "heavy")
    assert "not a number" in trainer.set_bias(1, 0, float("nan"))


def test_add_points() -> None:
    trainer = Trainer(small())
    count = trainer.train_count
    trainer.train(1)
    assert trainer.add_point(1.0, -2.0, 1) is None
    assert trainer.train_count == count + 1 and trainer.epoch == 1
    assert trainer.data.points[-1].tolist() == [1.0, -2.0] and trainer.data.labels[-1] == 1
    assert trainer.train(1) is None


@pytest.mark.parametrize(
    ("labels", "classes"),
    [([-1, 1], 2), ([0, 1], 2), ([0, 1, 2], 3), ([0.25, -0.7], 0)],
)
def test_your_own_data(labels: list, classes: int) -> None:
    rng = np.random.default_rng(0)
    points = rng.uniform(-5, 5, (60, 2))
    values = np.resize(np.array(labels, dtype=np.float32), 60)
    trainer = Trainer(small())
    trainer.set_custom_data(points, values)
    assert trainer.config.dataset == "custom" and trainer.data.num_classes == classes
    assert trainer.message == "" and trainer.train(2) is None
    assert trainer.config.loss == ("cross_entropy" if classes == 3 else "mse")


def test_unusable_own_data_is_explained() -> None:
    trainer = Trainer(small())
    with pytest.raises(ValueError, match=r"shape \[N, 2\]"):
        trainer.set_custom_data(np.zeros((5, 3)), np.zeros(5))
    with pytest.raises(ValueError, match="one label per point"):
        trainer.set_custom_data(np.zeros((5, 2)), np.zeros(4))
    with pytest.raises(ValueError, match="finite"):
        trainer.set_custom_data(np.full((5, 2), np.nan), np.zeros(5))


def test_switch_backends_live() -> None:
    trainer = Trainer(small())
    trainer.train(2)
    trained = weights(trainer)
    trainer.apply(trainer.config.copy(backend="reference"))
    assert trainer.message == "" and trainer.epoch == 2
    assert all(np.array_equal(a, b) for a, b in zip(trained, weights(trainer)))
    twin = Trainer(small())
    twin.train(3)
    trainer.train(1)
    assert trainer.history[-1].train_loss == pytest.approx(twin.history[-1].train_loss, rel=1e-4)


@pytest.mark.skipif("cuda_emulator" not in available_backends(), reason="the CUDA emulator needs g++")
def test_cuda_emulator_trains_like_the_cpu() -> None:
    trainer, twin = Trainer(small(hidden=[3])), Trainer(small(hidden=[3]))
    trainer.apply(trainer.config.copy(backend="cuda_emulator"))
    assert trainer.message == "" and trainer.model[0].weight.device.type == "cuda"
    trainer.train(1)
    twin.train(1)
    assert trainer.history[-1].train_loss == pytest.approx(twin.history[-1].train_loss, rel=1e-4)
    trainer.apply(trainer.config.copy(backend="numba"))  # and back, with the same weights
    assert trainer.model[0].weight.device.type == "cpu" and trainer.message == ""


def test_a_backend_that_fails_falls_back_with_a_message() -> None:
    if "cuda" in available_backends():
        pytest.skip("a GPU is present: CUDA works here")
    trainer = Trainer(small())
    trainer.apply(trainer.config.copy(backend="cuda"))
    assert "backend 'cuda' failed here" in trainer.message and trainer.config.backend == "numba"
    assert trainer.train(1) is None
