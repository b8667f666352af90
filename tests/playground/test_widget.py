"""The Playground widget without a browser: the Python binding, the page's messages,
play/pause in a thread and in an event loop, and what is synced."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

pytest.importorskip("anywidget")

from minitorch import nn  # noqa: E402
from minitorch.widgets import Playground  # noqa: E402
from minitorch.widgets.playground import player as player_module  # noqa: E402
from minitorch.widgets.playground import widget as widget_module  # noqa: E402

from .helpers import json_safe  # noqa: E402

QUICK = {"num_samples": 200, "backend": "numba"}


def synced(pg: Playground) -> None:
    for name in ("config", "status", "net", "points", "choices"):
        json_safe(getattr(pg, name))


def test_constructor_arguments_and_properties() -> None:
    pg = Playground(dataset="xor", hidden=[3], activation="relu", learning_rate=0.1, **QUICK)
    assert (pg.dataset.name, pg.hidden, pg.activation, pg.learning_rate) == ("xor", [3], "relu", 0.1)
    assert pg.config["hidden"] == [3] and pg.net["sizes"] == [2, 3, 1]
    assert isinstance(pg.model, nn.Sequential) and pg.history == [] and pg.epoch == 0
    assert len(pg.frame) == 100 * 100 * len(pg.net["planes"])
    assert pg.net["planes"][0] == "boundary" and "node:1:2" in pg.net["planes"]
    synced(pg)
    pg.hidden = [2, 2, 2]  # from Python: the widget's traits follow
    assert pg.config["hidden"] == [2, 2, 2] and pg.net["sizes"] == [2, 2, 2, 2, 1]
    pg.learning_rate = 0.3
    assert pg.model[0].weight.requires_grad and pg.trainer.optimizer.param_groups[0]["lr"] == 0.3


def test_unknown_arguments_and_bad_settings_never_raise() -> None:
    pg = Playground(hiden=[2], **QUICK)
    assert "did you mean 'hidden'" in pg.message and pg.status["message"] == pg.message
    pg.set(hidden=[0])
    assert "0 neurons" in pg.message and "0 neurons" in pg.status["message"]
    assert pg.step(3) is None and pg.epoch == 0
    pg.play()
    assert not pg.is_playing
    pg.set(colour="red")
    assert "unknown settings ['colour']" in pg.message
    pg.set(hidden=[2])
    assert pg.message == "" and pg.step(1).epoch == 1
    assert Playground(config="dataset=xor&hidden=4,x", **QUICK).message  # a bad shared string
    assert "config must be a shared string" in Playground(config=42, **QUICK).message


def test_step_returns_the_last_entry_and_redraws() -> None:
    pg = Playground(**QUICK)
    frame = pg.frame
    entry = pg.step(epochs=3)
    assert entry == pg.history[-1] and entry.epoch == 3 and pg.status["epoch"] == 3
    assert pg.frame != frame and pg.status["curve"][-1][0] == 3
    assert entry.accuracy == entry.test_accuracy


def test_the_page_changes_settings_through_config() -> None:
    pg = Playground(**QUICK)
    pg.config = {**pg.config, "dataset": "gauss", "hidden": [5]}  # what the front end does
    assert pg.dataset.name == "gauss" and pg.net["sizes"] == [2, 5, 1]
    assert pg.points["name"] == "gauss"
    pg.config = {**pg.config, "learning_rate": "very fast"}
    assert "learning_rate" in pg.message


def test_messages_from_the_page() -> None:
    pg = Playground(**QUICK)
    send = pg._on_message
    send(pg, {"action": "step"}, [])
    assert pg.epoch == 1
    send(pg, {"action": "set_weight", "layer": 0, "neuron": 2, "source": 1, "value": 2.5}, [])
    assert pg.model[0].weight[2, 1].item() == 2.5 and pg.net["weights"][0][2][1] == 2.5
    send(pg, {"action": "set_bias", "layer": 1, "neuron": 0, "value": -0.5}, [])
    assert pg.net["biases"][0][0] == -0.5
    count = len(pg.points["rows"])
    send(pg, {"action": "add_point", "x1": 1.0, "x2": 2.0, "label": -1}, [])
    assert len(pg.points["rows"]) == count + 1
    send(pg, {"action": "export"}, [])
    assert "nn.Sequential(" in pg.code
    send(pg, {"action": "reset"}, [])
    assert pg.epoch == 0
    send(pg, {"action": "load_string", "text": "dataset=spiral&hidden=6"}, [])
    assert pg.dataset.name == "spiral" and pg.hidden == [6]
    send(pg, {"action": "regenerate"}, [])
    assert pg.config["seed"] != 0
    send(pg, {"action": "set_weight", "layer": 7, "neuron": 0, "source": 0, "value": 1}, [])
    assert "no such weight" in pg.message
    send(pg, {"action": "fly"}, [])  # nonsense from the page: a message, no exception
    assert "fly failed" in pg.message
    send(pg, {"action": "restore", "index": 99}, [])
    assert "no snapshot" in pg.message
    synced(pg)


def test_nan_loss_is_shown_and_stops_play() -> None:
    pg = Playground(dataset="reg_plane", activation="linear", learning_rate=10,
                    features=["x1", "x2", "x1^2", "x2^2", "x1x2"], **QUICK)  # fmt: skip
    pg.play()
    assert pg.wait(60)
    assert "NaN" in pg.status["message"] and not pg.status["running"]
    synced(pg)  # NaN weights and losses are sent as null


def test_play_and_pause_in_a_thread() -> None:
    pg = Playground(max_epochs=6, epochs_per_frame=2, **QUICK)
    pg.play()
    assert pg.wait(120) and pg.epoch == 6
    assert not pg.status["running"] and "reached 6 epochs" in pg.message
    pg.max_epochs = 0
    pg.play()
    assert pg.is_playing
    pg.pause()
    assert pg.wait(60) and not pg.is_playing
    assert pg.status["running"] is False


def test_play_in_a_running_event_loop_leaves_the_loop_free(monkeypatch) -> None:
    """In Jupyter, play() adds a task to the kernel's loop; other work keeps running.
    (Here the test's own loop stands in for the kernel's.)"""
    monkeypatch.setattr(player_module, "kernel_loop", asyncio.get_running_loop)

    async def scenario() -> tuple[int, int, str]:
        pg = Playground(**QUICK)
        pg.play()
        assert pg._player._task is not None  # a task, not a thread
        ticks = 0
        while pg.epoch < 5:
            ticks += 1  # the loop runs our code between training frames
            await asyncio.sleep(0)  # ready again at once, like a message waiting in the kernel
        pg.pause()
        while pg.is_playing or pg._player._task is not None:
            await asyncio.sleep(0.001)
        return ticks, pg.epoch, pg.status["running"]

    results: list = []  # run in a thread of its own: pytest's thread may hold another loop
    runner = threading.Thread(target=lambda: results.append(asyncio.run(scenario())))
    runner.start()
    runner.join(120)
    ticks, epoch, running = results[0]
    assert ticks >= 5 and epoch >= 5 and running is False


def test_sync_is_throttled_while_playing(monkeypatch) -> None:
    pg = Playground(**QUICK)
    clock = [1000.0]
    monkeypatch.setattr(widget_module.time, "perf_counter", lambda: clock[0])
    pg._sync(force=True)
    pg.trainer.train(1)
    pg._sync()  # too soon after the last one: nothing sent
    assert pg.status["epoch"] == 0
    clock[0] += 1.0
    pg._sync()
    assert pg.status["epoch"] == 1


def test_dataset_binding_and_your_own_data() -> None:
    pg = Playground(**QUICK)
    pg.dataset = "spiral"
    assert pg.config["dataset"] == "spiral"
    rng = np.random.default_rng(1)
    points = rng.uniform(-4, 4, (80, 2))
    pg.dataset = (points, (points[:, 0] > 0).astype(int) * 2)  # classes 0 and 2: three classes
    assert pg.dataset.num_classes == 3 and pg.config["dataset"] == "custom" and pg.loss == "cross_entropy"
    assert pg.step(2).epoch == 2
    pg.dataset = (points, points[:, :1])  # a column of numbers: regression
    assert pg.dataset.problem == "regression" and pg.loss == "mse"
    pg.dataset = "not data"
    assert "unknown dataset" in pg.message
    pg.dataset = ([1, 2, 3], [1])
    assert "could not use that data" in pg.message


def test_model_binding() -> None:
    pg, other = Playground(**QUICK), Playground(seed=5, **QUICK)
    pg.model = other.model
    assert np.array_equal(pg.model[0].weight.detach().numpy(), other.model[0].weight.detach().numpy())
    pg.model = nn.Sequential(nn.Linear(3, 3))
    assert "could not use that model" in pg.message


def test_config_string_and_static_views() -> None:
    pg = Playground(dataset="xor", noise=10, hidden=[3], hidden_controls=["noise"], **QUICK)
    again = Playground(config=pg.config_string)
    assert again.trainer.config == pg.trainer.config
    assert np.array_equal(again.dataset.points, pg.dataset.points)
    pg.step(2)
    assert "epoch 2" in pg.to_text() and "2 -> 3 -> 1" in repr(pg)
    assert pg.to_svg().startswith("<svg") and "data:image/png;base64," in pg.to_svg()


def test_graph_viewer_on_the_current_model() -> None:
    pg = Playground(**QUICK)
    viewer = pg.graph()
    assert type(viewer).__name__ == "GraphWidget"
    assert len(viewer.graph["nodes"]) > 10


def test_importable_from_minitorch_widgets() -> None:
    from minitorch.widgets import playground

    assert Playground is playground.Playground and Playground.__module__.endswith("playground.widget")


def test_input_features_come_from_python() -> None:
    """The page draws the input column from Python's feature table (names, labels and
    heatmaps), so the formulas live only in features.py."""
    pg = Playground(dataset="circle", **QUICK)
    assert pg.choices["features"] == [
        ["x1", "X₁"], ["x2", "X₂"], ["x1^2", "X₁²"], ["x2^2", "X₂²"], ["x1x2", "X₁X₂"],
        ["sin_x1", "sin(X₁)"], ["sin_x2", "sin(X₂)"],
    ]  # fmt: skip
    planes = np.frombuffer(pg.feature_planes, dtype=np.uint8).reshape(7, 100, 100)
    steps = np.linspace(-6, 6, 100)
    x1, x2 = np.meshgrid(steps, steps[::-1])  # top row is x2 = +6, as the page draws it
    oracle = [x1, x2, x1 * x1, x2 * x2, x1 * x2, np.sin(x1), np.sin(x2)]
    for plane, values in zip(planes, oracle):
        expected = np.round((values / np.abs(values).max() + 1) * 127.5)
        np.testing.assert_allclose(plane, expected, atol=1)  # float32 grid: one step of rounding
