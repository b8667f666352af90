"""The Playground's settings: what they may be, which are wrong, and how to share them.

Everything a user can change lives in one ``PlaygroundConfig``. It is plain data:

* ``validate(config)`` lists what is wrong with it, in words a student can act on
  ("hidden layer 2 has 0 neurons; use 1 to 8"). Nothing here raises: the widget shows
  the list and pauses training instead.
* ``to_string(config)`` / ``from_string(text)`` turn it into a short shareable line,
  ``dataset=circle&noise=10&hidden=4,2&...``, like TensorFlow Playground's URL. Only
  settings that differ from the defaults are written, so the line stays short. The seed
  is part of it, so the same line gives the same data and the same starting weights.
* ``RESETTING`` says which settings start training over when they change. As in
  TensorFlow Playground, changing the learning rate does not; changing the data or the
  network does.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from minitorch.widgets.playground.features import FEATURES

CLASSIFICATION_DATASETS = ["circle", "xor", "gauss", "spiral"]
MULTICLASS_DATASETS = ["blobs", "spiral3"]  # beyond Playground: 3+ classes
REGRESSION_DATASETS = ["reg_plane", "reg_gauss"]
DATASETS = CLASSIFICATION_DATASETS + MULTICLASS_DATASETS + REGRESSION_DATASETS

# The choices TensorFlow Playground offers (its drop-down menus).
LEARNING_RATES = [0.00001, 0.0001, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10]
REGULARIZATION_RATES = [0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10]
ACTIVATIONS = ["relu", "tanh", "sigmoid", "linear"]
REGULARIZATIONS = ["none", "l1", "l2"]
LOSSES = ["mse", "cross_entropy"]
OPTIMIZERS = ["sgd", "momentum", "adam"]

MAX_HIDDEN_LAYERS = 6
MAX_NEURONS = 8

# Controls a teacher can hide in classroom mode (the names the front end uses).
CONTROLS = [
    "dataset", "noise", "train_ratio", "batch_size", "regenerate", "features", "layers",
    "learning_rate", "activation", "regularization", "regularization_rate", "problem",
    "loss", "optimizer", "backend", "speed", "stop", "discretize", "show_test",
    "add_points", "snapshots", "gradients", "export", "share",
]  # fmt: skip


@dataclass
class PlaygroundConfig:
    """Every setting of the Playground, with TensorFlow Playground's defaults."""

    dataset: str = "circle"
    noise: int = 0  # percent, 0-50
    train_ratio: int = 50  # percent of the points used for training, 10-90
    batch_size: int = 10
    seed: int = 0  # data and starting weights; "regenerate" picks a new one
    num_samples: int = 0  # 0: Playground's counts (500 classification, 1200 regression)
    features: list[str] = field(default_factory=lambda: ["x1", "x2"])
    hidden: list[int] = field(default_factory=lambda: [4, 2])
    activation: str = "tanh"
    learning_rate: float = 0.03
    regularization: str = "none"
    regularization_rate: float = 0.0
    loss: str = "mse"
    optimizer: str = "sgd"
    momentum: float = 0.9  # used by the "momentum" optimizer
    epochs_per_frame: int = 1  # speed: epochs trained between two redraws
    max_epochs: int = 0  # stop condition; 0 means never stop
    target_loss: float = 0.0  # stop when the test loss is below this; 0 means never
    discretize: bool = False
    show_test: bool = False
    backend: str = ""  # reference, numba, cuda, cuda_emulator; "" means numba if it works
    hidden_controls: list[str] = field(default_factory=list)

    @property
    def problem(self) -> str:
        """ "classification" or "regression", decided by the dataset."""
        return "regression" if self.dataset in REGRESSION_DATASETS else "classification"

    @property
    def sample_count(self) -> int:
        """How many points the dataset has (Playground: 500, or 1200 for regression)."""
        if self.num_samples:
            return self.num_samples
        return 1200 if self.problem == "regression" else 500

    def copy(self, **changes: Any) -> PlaygroundConfig:
        values = asdict(self)
        values.update(changes)
        return PlaygroundConfig(**values)


# Settings that start training over (new data or a new network) when they change.
RESETTING = {
    "dataset", "noise", "train_ratio", "batch_size", "seed", "num_samples", "features",
    "hidden", "activation", "regularization", "regularization_rate", "loss",
}  # fmt: skip
# Settings that keep the weights but need a new optimizer (its moments start over).
NEW_OPTIMIZER = ("optimizer", "momentum")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_int(value: Any) -> bool:
    return _is_number(value) and float(value).is_integer()


def validate(config: PlaygroundConfig, backends: list[str] | None = None,
             custom_available: bool = False) -> list[str]:  # fmt: skip
    """Everything wrong with ``config``, one sentence each; empty when it is usable.
    ``dataset="custom"`` is allowed when data was passed from Python."""
    problems: list[str] = []

    def check_int(name: str, low: int, high: int) -> None:
        value = getattr(config, name)
        if not _is_int(value) or not low <= value <= high:
            problems.append(f"{name} must be a whole number from {low} to {high}, not {value!r}")

    if config.dataset == "custom" and not custom_available:
        problems.append("dataset 'custom' needs your data first: pg.dataset = (points, labels)")
    elif config.dataset not in DATASETS and config.dataset != "custom":
        problems.append(f"unknown dataset {config.dataset!r}; choose one of {', '.join(DATASETS)}")
    check_int("noise", 0, 50)
    check_int("train_ratio", 10, 90)
    check_int("batch_size", 1, 100)
    check_int("seed", 0, 2**31 - 1)
    if config.num_samples != 0:
        check_int("num_samples", 20, 5000)

    if not isinstance(config.features, list) or not config.features:
        problems.append("no input feature is selected; click at least one feature (x1, x2, ...)")
    else:
        unknown = [name for name in config.features if name not in FEATURES]
        if unknown:
            problems.append(f"unknown features {unknown}; choose from {', '.join(FEATURES)}")

    if not isinstance(config.hidden, list) or len(config.hidden) > MAX_HIDDEN_LAYERS:
        problems.append(f"hidden must be a list of at most {MAX_HIDDEN_LAYERS} layer sizes")
    else:
        for number, size in enumerate(config.hidden, start=1):
            if not _is_int(size) or not 1 <= size <= MAX_NEURONS:
                problems.append(f"hidden layer {number} has {size!r} neurons; use 1 to {MAX_NEURONS}")

    if config.activation not in ACTIVATIONS:
        problems.append(f"unknown activation {config.activation!r}; choose {', '.join(ACTIVATIONS)}")
    if not _is_number(config.learning_rate) or not 0 < config.learning_rate <= 100:
        problems.append(f"learning_rate must be a number above 0 (at most 100), not "
                        f"{config.learning_rate!r}")  # fmt: skip
    if config.regularization not in REGULARIZATIONS:
        problems.append(f"unknown regularization {config.regularization!r}; choose none, l1 or l2")
    if not _is_number(config.regularization_rate) or config.regularization_rate < 0:
        problems.append(f"regularization_rate must be 0 or more, not {config.regularization_rate!r}")
    if config.loss not in LOSSES:
        problems.append(f"unknown loss {config.loss!r}; choose mse or cross_entropy")
    elif config.loss == "cross_entropy" and config.problem == "regression":
        problems.append("cross-entropy needs classes; use the mse loss for regression data")
    elif config.loss == "mse" and config.dataset in MULTICLASS_DATASETS:
        problems.append(f"{config.dataset} has 3 or more classes; use the cross_entropy loss")
    if config.optimizer not in OPTIMIZERS:
        problems.append(f"unknown optimizer {config.optimizer!r}; choose sgd, momentum or adam")
    if not _is_number(config.momentum) or not 0 <= config.momentum < 1:
        problems.append(f"momentum must be in [0, 1), not {config.momentum!r}")
    check_int("epochs_per_frame", 1, 100)
    check_int("max_epochs", 0, 10**7)
    if not _is_number(config.target_loss) or config.target_loss < 0:
        problems.append(f"target_loss must be 0 (never stop) or more, not {config.target_loss!r}")
    if backends is not None and config.backend and config.backend not in backends:
        problems.append(f"backend {config.backend!r} is not available here; choose "
                        f"{', '.join(backends)}")  # fmt: skip
    return problems


# ----- dictionaries (what the widget syncs) and the shareable string ---------------------


def to_dict(config: PlaygroundConfig) -> dict[str, Any]:
    return asdict(config)


def from_dict(values: dict[str, Any], base: PlaygroundConfig | None = None) -> PlaygroundConfig:
    """A config with ``values`` laid over ``base`` (or the defaults). Unknown keys are
    ignored, so an old shared string still loads."""
    known = {f.name for f in fields(PlaygroundConfig)}
    merged = to_dict(base or PlaygroundConfig())
    merged.update({key: value for key, value in values.items() if key in known})
    return PlaygroundConfig(**merged)


LIST_FIELDS = {"features": str, "hidden": int, "hidden_controls": str}


def to_string(config: PlaygroundConfig) -> str:
    """The settings that differ from the defaults as ``key=value&key=value``.

    >>> to_string(PlaygroundConfig(dataset="xor", hidden=[3]))
    'dataset=xor&hidden=3'
    """
    defaults = to_dict(PlaygroundConfig())
    parts = []
    for key, value in to_dict(config).items():
        if value == defaults[key] and key != "seed":
            continue
        if key in LIST_FIELDS:
            text = ",".join(str(item) for item in value)
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        parts.append(f"{key}={text}")
    return "&".join(parts)


def _parse_value(key: str, text: str, default: Any) -> Any:
    if key in LIST_FIELDS:
        items = [item for item in text.split(",") if item != ""]
        return [int(item) if LIST_FIELDS[key] is int else item for item in items]
    if isinstance(default, bool):
        return text.lower() in ("true", "1", "yes")
    if isinstance(default, int):
        return int(float(text))
    if isinstance(default, float):
        return float(text)
    return text


def from_string(text: str) -> tuple[PlaygroundConfig, list[str]]:
    """Parse a shared string (an address ending in ``#...`` or ``?...`` works too).

    Returns the config and the problems met while reading it (an unknown key, a value
    that is not a number); the readable parts are used either way.
    """
    text = text.strip().split("#")[-1].split("?")[-1]
    defaults = to_dict(PlaygroundConfig())
    values: dict[str, Any] = {}
    problems: list[str] = []
    for part in filter(None, text.split("&")):
        key, _, raw = part.partition("=")
        key = key.strip()
        if key not in defaults:
            problems.append(f"the shared string has an unknown setting {key!r} (ignored)")
            continue
        try:
            values[key] = _parse_value(key, raw.strip(), defaults[key])
        except ValueError:
            problems.append(f"the shared string has a bad value for {key}: {raw!r} (ignored)")
    return from_dict(values), problems


def from_arguments(config: Any, changes: dict[str, Any]) -> tuple[PlaygroundConfig, Any, list[str]]:
    """What ``Playground(config, **changes)`` asks for: the settings, your own data if
    ``dataset`` was ``(points, labels)`` (else ``None``), and the problems met (an
    unknown argument gets a "did you mean" hint instead of a ``TypeError``)."""
    problems: list[str] = []
    if isinstance(config, str):
        start, problems = from_string(config)
    elif isinstance(config, PlaygroundConfig):
        start = config.copy()
    else:
        start = PlaygroundConfig()
        if config is not None:
            kind = type(config).__name__
            problems.append(f"config must be a shared string or a PlaygroundConfig, not {kind}")
    changes = dict(changes)
    custom = changes.pop("dataset", None)
    if isinstance(custom, str):
        start.dataset, custom = custom, None
    names = [f.name for f in fields(PlaygroundConfig)]
    for name in [name for name in changes if name not in names]:
        close = difflib.get_close_matches(name, names, n=1)
        problems.append(f"unknown setting {name!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
        changes.pop(name)
    return start.copy(**changes), custom, problems
