"""The Playground's finish, on the Python side: the "epochs per second" meter and
``history.plot()`` (matplotlib, Agg backend: no window). The page side (the meter while
switching the activation, the layout at three widths, the loss chart's axes) is
``tests/browser/test_playground_finish_in_lab.py``."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

pytest.importorskip("anywidget")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from minitorch.widgets.playground import History, Playground, Trainer  # noqa: E402
from minitorch.widgets.playground import widget as widget_module  # noqa: E402
from minitorch.widgets.playground.config import PlaygroundConfig  # noqa: E402
from minitorch.widgets.playground.meter import EpochMeter  # noqa: E402

QUICK = {"num_samples": 200, "backend": "numba"}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ----- the meter ----------------------------------------------------------------------------


def test_meter_counts_epochs_trained_over_the_window() -> None:
    clock = Clock()
    meter = EpochMeter(window=2.0, clock=clock)
    assert meter.rate() is None  # nothing measured yet
    meter.restart()
    assert meter.rate() is None  # no time has passed
    for _ in range(30):  # 2 epochs every 0.1 s
        clock.now += 0.1
        meter.record(2)
    assert meter.rate() == pytest.approx(20.0)
    assert len(meter.marks) <= 22  # only the last two seconds are kept
    for _ in range(3):  # frames slower than the window: the last two still give a rate
        clock.now += 5.0
        meter.record(2)
    assert meter.rate() == pytest.approx(2 / 5.0)


def test_meter_restart_forgets_the_old_run_and_never_goes_negative() -> None:
    clock = Clock()
    meter = EpochMeter(clock=clock)
    meter.restart()
    for _ in range(10):
        clock.now += 0.01
        meter.record(5)
    assert meter.rate() == pytest.approx(500.0)
    meter.restart()  # a new network
    clock.now += 0.5
    meter.record(1)  # its first frame (a new step is captured): slow
    assert meter.rate() == pytest.approx(2.0)  # the new network's speed only
    meter.record(-3)  # a count can never take epochs away
    assert meter.rate() >= 0


def test_meter_before_a_restart_waits_for_a_second_frame() -> None:
    clock = Clock()
    meter = EpochMeter(clock=clock)
    meter.record(4)  # when this frame started is unknown: not counted
    assert meter.rate() is None
    clock.now += 0.5
    meter.record(3)
    assert meter.rate() == pytest.approx(6.0)


def test_meter_uses_a_monotonic_clock() -> None:
    assert EpochMeter().clock is __import__("time").monotonic


def test_playground_meter_stays_positive_when_the_activation_changes_while_playing(monkeypatch) -> None:
    """What was seen: playing, then a new activation rebuilt the network (epoch back to
    0) and the meter showed -188 epochs per second until the old epochs left the window."""
    clock = Clock()
    pg = Playground(epochs_per_frame=2, **QUICK)
    pg._meter = EpochMeter(clock=clock)
    monkeypatch.setattr(widget_module.Player, "start", lambda self: "test")  # frames run by hand
    pg.play()
    rates = []
    for frame in range(24):
        if frame in (8, 16):  # switch the activation between two frames, as the page does
            pg.set(activation="relu" if frame == 8 else "sigmoid")
            assert pg.epoch == 0  # rebuilt
        clock.now += 0.05
        pg._play_frame()
        rates.append(pg._meter.rate())
    assert all(rate is not None and rate >= 0 for rate in rates), rates
    assert rates[9] == pytest.approx(40.0)  # 2 epochs in 0.05 s, since the rebuild only
    assert rates[-1] == pytest.approx(40.0)
    pg._player.running = True  # what the page is sent while playing
    pg._sync(force=True)
    assert pg.status["epochs_per_second"] == pytest.approx(40.0)


# ----- history.plot() -----------------------------------------------------------------------


def test_trainer_and_playground_histories_plot_loss_and_accuracy() -> None:
    trainer = Trainer(PlaygroundConfig(dataset="xor", hidden=[4], **QUICK))
    trainer.train(12)
    assert isinstance(trainer.history, History)
    ax = trainer.history.plot()
    assert ax.get_xlabel() == "epoch" and ax.get_ylabel() == "loss"
    train, test = ax.get_lines()
    assert train.get_label() == "training loss" and test.get_label() == "test loss"
    assert list(test.get_xdata()) == list(range(1, 13))
    assert list(test.get_ydata()) == pytest.approx([e.test_loss for e in trainer.history])
    assert list(train.get_ydata()) == pytest.approx([e.train_loss for e in trainer.history])
    accuracy = ax.accuracy_axes
    assert accuracy.get_ylabel() == "accuracy (%)" and accuracy.get_ylim() == (0, 100)
    train_accuracy, test_accuracy = accuracy.get_lines()
    assert list(test_accuracy.get_ydata()) == pytest.approx([100 * e.test_accuracy for e in trainer.history])
    assert list(train_accuracy.get_ydata()) == pytest.approx(
        [100 * e.train_accuracy for e in trainer.history]
    )
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert legend == ["training loss", "test loss", "training accuracy", "test accuracy"]
    ax.figure.canvas.draw()  # it renders

    pg = Playground(dataset="circle", hidden=[3], **QUICK)
    pg.step(4)
    assert isinstance(pg.history, History) and pg.history == pg.trainer.history
    figure, own = plt.subplots()
    assert pg.history.plot(ax=own) is own  # onto the caller's axes
    assert [len(line.get_xdata()) for line in own.get_lines()] == [4, 4]


def test_regression_history_plots_only_the_loss_and_gaps_for_nan() -> None:
    trainer = Trainer(PlaygroundConfig(dataset="reg_plane", loss="mse", hidden=[2], **QUICK))
    trainer.train(3)
    broken = History(trainer.history)
    broken[1] = broken[1]._replace(test_loss=float("inf"))  # a diverged epoch
    ax = broken.plot()
    assert not hasattr(ax, "accuracy_axes") and len(ax.figure.axes) == 1
    test = ax.get_lines()[1]
    assert math.isnan(test.get_ydata()[1]) and not math.isnan(test.get_ydata()[2])
    assert ax.get_ylim()[0] == 0


def test_history_after_restoring_a_snapshot_is_still_a_history() -> None:
    trainer = Trainer(PlaygroundConfig(dataset="xor", hidden=[2], **QUICK))
    trainer.train(6)
    trainer.restore(2)
    trainer.train(1)
    assert isinstance(trainer.history, History) and trainer.history[-1].epoch == trainer.epoch
    trainer.reset()
    assert isinstance(trainer.history, History) and trainer.history == []


def test_import_minitorch_and_the_playground_do_not_import_matplotlib() -> None:
    code = (
        "import sys, minitorch, minitorch.widgets.playground.widget\n"
        "print('matplotlib' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "False"
