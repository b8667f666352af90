"""``Playground``: the anywidget that shows a ``Trainer`` and lets you drive it.

    pg = minitorch.widgets.Playground(dataset="xor", hidden=[4, 2], learning_rate=0.03)
    pg                      # the explorer in the notebook; press play
    pg.step(epochs=10)      # or drive it from code: the page redraws
    pg.model                # the live nn.Sequential being trained
    pg.history[-1]          # Epoch(epoch=10, train_loss=..., test_loss=..., ...)

How the two sides talk (anywidget syncs traits between Python and the page):

| trait          | direction     | what                                                         |
| -------------- | ------------- | ------------------------------------------------------------ |
| config         | both ways     | every setting (``PlaygroundConfig`` as a dict)               |
| status         | Python → page | epoch, losses, accuracy, loss curve, speed, message          |
| net            | Python → page | weights, biases, gradients, dead ReLUs, heatmap order        |
| frame          | Python → page | all 100x100 heatmaps as bytes (``render.py``)                |
| points         | Python → page | the data points (only when they change)                      |
| code           | Python → page | the exported script, after "export as code"                  |
| choices        | Python → page | the menus' options, and the input features (``features.py``) |
| feature_planes | Python → page | each input feature's heatmap, sent once (``render.py``)      |

Buttons (play, step, edit a weight, add a point...) arrive as messages
``{"action": ...}`` (``page_actions.py``). Nothing here raises into the notebook: a
bad setting or a failing action shows its message in the widget (``pg.message``).

Training and drawing run at their own rates: how often the state is sent while
playing is ``send_rate.py``'s to decide.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import fields
from typing import Any

import traitlets

from minitorch.widgets.frontend import MinitorchWidget, bundle, styles
from minitorch.widgets.playground import config as settings
from minitorch.widgets.playground.compute import available_backends
from minitorch.widgets.playground.datasets import preview
from minitorch.widgets.playground.export import export_code
from minitorch.widgets.playground.features import FEATURES
from minitorch.widgets.playground.history import Epoch, History
from minitorch.widgets.playground.meter import EpochMeter
from minitorch.widgets.playground.page_actions import ACTIONS
from minitorch.widgets.playground.player import Player
from minitorch.widgets.playground.render import (
    Renderer,
    feature_planes,
    network_view,
    points_view,
    status_view,
)
from minitorch.widgets.playground.send_rate import SendRate
from minitorch.widgets.playground.static import boundary_svg, playground_svg, summary_text
from minitorch.widgets.playground.trainer import Trainer

SETTING_NAMES = [f.name for f in fields(settings.PlaygroundConfig)]


class Playground(MinitorchWidget):
    """TensorFlow Playground in the notebook, training a real minitorch MLP.

    Every ``PlaygroundConfig`` field is a keyword argument and a property
    (``pg.learning_rate = 0.1`` redraws the widget); ``config`` takes a shared string.
    ``dataset`` may also be ``(points, labels)``: your own data.
    """

    _esm = bundle("playground.js")
    _css = styles("playground.css")

    config = traitlets.Dict().tag(sync=True)
    status = traitlets.Dict().tag(sync=True)
    net = traitlets.Dict().tag(sync=True)
    frame = traitlets.Bytes(b"").tag(sync=True)
    points = traitlets.Dict().tag(sync=True)
    code = traitlets.Unicode("").tag(sync=True)
    choices = traitlets.Dict().tag(sync=True)
    feature_planes = traitlets.Bytes(b"").tag(sync=True)

    def __init__(self, config: str | settings.PlaygroundConfig | None = None, **changes: Any) -> None:
        super().__init__()
        self._lock = threading.RLock()
        self._renderer = Renderer()
        self._player = Player(self._play_frame, self._after_play)
        self._send_rate = SendRate()
        self._meter = EpochMeter()  # epochs per second while playing
        self._notice = ""  # a message about the last action (not a setting problem)
        start, custom, problems = settings.from_arguments(config, changes)
        self.trainer = Trainer(start)
        if custom is not None:
            self._set_custom(custom)
        self._notice = "; ".join(problems)
        self.choices = {
            "datasets": settings.DATASETS,
            "previews": {name: preview(name) for name in settings.DATASETS},
            "learning_rates": settings.LEARNING_RATES, "activations": settings.ACTIVATIONS,
            "regularizations": settings.REGULARIZATIONS,
            "regularization_rates": settings.REGULARIZATION_RATES, "losses": settings.LOSSES,
            "optimizers": settings.OPTIMIZERS, "backends": available_backends(),
            "controls": settings.CONTROLS, "max_layers": settings.MAX_HIDDEN_LAYERS,
            "max_neurons": settings.MAX_NEURONS,
            "features": [[name, label] for name, (label, _) in FEATURES.items()],
        }  # fmt: skip
        self.feature_planes = feature_planes()
        self.on_msg(self._on_message)
        self._sync(force=True, with_points=True)

    # ----- the Python side of the binding ------------------------------------------------

    @property
    def model(self) -> Any:
        """The live ``nn.Sequential`` being trained (``None`` while the settings are bad)."""
        return self.trainer.model

    @model.setter
    def model(self, module: Any) -> None:
        """Load the weights of ``module`` (same layer sizes) into the Playground's model."""
        with self._lock:
            try:
                self.trainer.model.load_state_dict(module.state_dict())
                self.trainer.evaluate()
                self._notice = ""
            except Exception as error:
                self._notice = f"could not use that model: {error}"
        self._sync(force=True)

    @property
    def dataset(self) -> Any:
        """The data (``PlaygroundData``). Set a name (``"xor"``) or ``(points, labels)``."""
        return self.trainer.data

    @dataset.setter
    def dataset(self, value: Any) -> None:
        if isinstance(value, str):
            self.set(dataset=value)
        else:
            self._set_custom(value)
            self._sync(force=True, with_points=True)

    @property
    def history(self) -> History:
        """One ``Epoch(epoch, train_loss, test_loss, train_accuracy, test_accuracy)`` per
        epoch trained (``.accuracy`` is the test accuracy): a copy, as a list.
        ``pg.history.plot()`` draws the loss and accuracy curves with matplotlib."""
        return History(self.trainer.history)

    @property
    def epoch(self) -> int:
        return self.trainer.epoch

    @property
    def message(self) -> str:
        """What the widget is telling you: a bad setting, why training stopped."""
        return "; ".join(part for part in (self.trainer.message, self._notice) if part)

    @property
    def is_playing(self) -> bool:
        return self._player.running

    @property
    def config_string(self) -> str:
        """All settings as one shareable line: ``Playground(config=that_line)``."""
        return settings.to_string(self.trainer.config)

    @property
    def snapshot_epochs(self) -> list[int]:
        return self.trainer.snapshots.epochs

    def set(self, **changes: Any) -> None:
        """Change settings by name, e.g. ``pg.set(hidden=[3], activation="relu")``."""
        unknown = [name for name in changes if name not in SETTING_NAMES]
        if unknown:
            self._notice = f"unknown settings {unknown}; the settings are {', '.join(SETTING_NAMES)}"
            self._sync(force=True)
            return
        self._apply(self.trainer.config.copy(**changes))

    def step(self, epochs: int = 1) -> Epoch | None:
        """Train ``epochs`` epochs now, redraw, and return the last history entry."""
        with self._lock:
            try:
                self._notice = ""
                self.trainer.train(int(epochs))
            except Exception as error:
                self._notice = f"training failed: {error}"
        self._sync(force=True)
        return self.trainer.history[-1] if self.trainer.history else None

    def play(self) -> None:
        """Train in the background until paused, or until a stop condition holds."""
        if self.trainer.problems:
            self._sync(force=True)
            return
        self._meter.restart()
        self._notice = ""
        self._player.start()
        self._sync(force=True)

    def pause(self) -> None:
        self._player.stop()
        self._sync(force=True)

    def wait(self, timeout: float | None = None) -> bool:
        """Outside Jupyter, block until ``play()`` stops (a stop condition or ``pause``)."""
        return self._player.wait(timeout)

    def reset(self) -> None:
        """Back to epoch 0 with the starting weights (the same data)."""
        self._player.stop()
        with self._lock:
            self.trainer.reset()
        self._sync(force=True)

    def regenerate(self) -> None:
        """New random data and starting weights: a new seed."""
        self.set(seed=random.randrange(1, 100_000))

    def restore(self, index: int) -> None:
        """Show snapshot ``index`` (see ``snapshot_epochs``); training resumes from it."""
        self._player.stop()
        with self._lock:
            try:
                self.trainer.restore(int(index))
            except (IndexError, ValueError, TypeError):
                self._notice = f"there is no snapshot {index!r}"
        self._sync(force=True)

    def set_weight(self, layer: int, neuron: int, source: int, value: float) -> None:
        """The weight into ``neuron`` of layer ``layer + 1`` from ``source`` of ``layer``."""
        with self._lock:
            self._notice = self.trainer.set_weight(layer, neuron, source, value) or ""
        self._sync(force=True)

    def set_bias(self, layer: int, neuron: int, value: float) -> None:
        with self._lock:
            self._notice = self.trainer.set_bias(layer, neuron, value) or ""
        self._sync(force=True)

    def add_point(self, x1: float, x2: float, label: float) -> None:
        """Add a training point of class (or value) ``label`` at ``(x1, x2)``."""
        with self._lock:
            self._notice = self.trainer.add_point(x1, x2, label) or ""
        self._sync(force=True, with_points=True)

    def export_code(self, epochs: int = 100) -> str:
        """The minitorch script of the current model and training loop (also shown)."""
        with self._lock:
            try:
                self.code = export_code(self.trainer, epochs)
            except Exception as error:
                self._notice = f"could not export: {error}"
                self.code = ""
        self._sync(force=True)
        return self.code

    def graph(self) -> Any:
        """The graph viewer (``minitorch.widgets.graph``) on the loss of the current
        model on the first training batch: every op of a step, named by parameter."""
        from minitorch import widgets

        with self._lock, self.trainer.computing():
            inputs, targets = self.trainer.batches[0]
            with widgets.watch(self.trainer.model):
                loss = self.trainer.loss(self.trainer.model(inputs), targets)
        return widgets.graph(loss, params=self.trainer.model)

    def to_text(self) -> str:
        return summary_text(self.trainer, self.message)  # (a failed step says so too)

    def to_svg(self) -> str:
        return playground_svg(self.trainer, boundary_svg(self.net.get("planes", []), self.frame, self.points))

    def redraw(self) -> None:
        """Send everything to the page again (after changing ``pg.model`` in place)."""
        with self._lock:
            self.trainer.evaluate()
        self._sync(force=True, with_points=True)

    # ----- settings from the page or from Python -----------------------------------------

    def _apply(self, new: settings.PlaygroundConfig) -> None:
        with self._lock:
            old_data, old_model = self.trainer.data, self.trainer.model
            self._notice = ""
            self.trainer.apply(new)
            if self.trainer.problems:
                self._player.stop()
            if self.trainer.model is not old_model:
                self._meter.restart()  # a new network: measure it from now on
        self._sync(force=True, with_points=self.trainer.data is not old_data)

    @traitlets.observe("config")
    def _config_from_page(self, change: dict) -> None:
        if change["new"] == settings.to_dict(self.trainer.config):
            return  # our own update coming back
        try:
            self._apply(settings.from_dict(change["new"], base=self.trainer.config))
        except Exception as error:  # a malformed value from the page
            self._notice = f"bad setting from the page: {error}"
            self._sync(force=True)

    def _set_custom(self, value: Any) -> None:
        with self._lock:
            try:
                points, labels = value
                self.trainer.set_custom_data(points, labels)
                self._notice = ""
                self._meter.restart()  # new data, a new network
            except Exception as error:
                self._notice = f"could not use that data: {error}. Give (points [N, 2], labels [N])."

    # ----- messages from the page --------------------------------------------------------

    def _on_message(self, widget: Any, content: dict, buffers: Any) -> None:
        try:
            ACTIONS[content["action"]](self, content)  # page_actions.py
        except Exception as error:  # never into the notebook: show it
            self._notice = f"{content.get('action', 'that action')} failed: {error!r}"
            self._sync(force=True)

    def _load_string(self, text: str) -> None:
        config, problems = settings.from_string(str(text))
        self._apply(config)
        self._notice = "; ".join(problems)
        self._sync(force=True)

    # ----- playing -----------------------------------------------------------------------

    def _play_frame(self) -> bool:
        """One frame: ``epochs_per_frame`` epochs, then a (throttled) redraw."""
        with self._lock:
            before = self.trainer.epoch
            try:
                reason = self.trainer.train(self.trainer.config.epochs_per_frame)
            except Exception as error:
                reason = f"training failed: {error}"
            self._meter.record(self.trainer.epoch - before)
        if reason:
            if reason != self.trainer.message:
                self._notice = reason  # a stop condition, shown beside the epoch
            return False
        self._sync()
        return True

    def _after_play(self) -> None:
        self._sync(force=True)

    # ----- sending to the page -----------------------------------------------------------

    def _sync(self, force: bool = False, with_points: bool = False) -> None:
        """Send the current state to the page (when ``SendRate`` says a send is due,
        or ``force``). Heatmaps are computed here, only for frames actually sent."""
        now = time.perf_counter()
        if not force and not self._send_rate.due(now):
            return
        with self._lock:
            trainer = self.trainer
            try:
                drawable = trainer.model is not None and trainer.built is not None
                keys, planes = self._renderer.frame(trainer) if drawable else ([], b"")
                view = {**network_view(trainer), "planes": keys} if drawable else {}
            except Exception as error:
                keys, planes, view = [], b"", {}
                self._notice = f"could not draw the network: {error}"
            with self.hold_sync():
                if settings.to_dict(trainer.config) != self.config:
                    self.config = settings.to_dict(trainer.config)
                if drawable:
                    self.frame = planes
                    self.net = view
                if with_points and trainer.data is not None:
                    self.points = points_view(trainer.data)
                self.status = status_view(
                    trainer,
                    self._player.running,
                    self.message,
                    self._meter.rate() if self._player.running else None,
                )
                self.error = self.message
        self._send_rate.sent(now, time.perf_counter(), len(planes))


def _setting_property(name: str) -> property:
    def get(self: Playground) -> Any:
        return getattr(self.trainer.config, name)

    def put(self: Playground, value: Any) -> None:
        self.set(**{name: value})

    return property(get, put, doc=f"The ``{name}`` setting; setting it redraws the widget.")


# pg.learning_rate, pg.hidden, ...: one property per setting (``dataset`` is above).
for _name in SETTING_NAMES:
    if _name != "dataset":
        setattr(Playground, _name, _setting_property(_name))
