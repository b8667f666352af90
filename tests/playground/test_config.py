"""Settings: validation in words, and the shareable string."""

from __future__ import annotations

import pytest

from minitorch.widgets.playground.config import (
    PlaygroundConfig,
    from_dict,
    from_string,
    to_string,
    validate,
)


def test_defaults_are_tensorflow_playgrounds() -> None:
    config = PlaygroundConfig()
    assert (config.dataset, config.hidden, config.features) == ("circle", [4, 2], ["x1", "x2"])
    assert (config.learning_rate, config.activation, config.batch_size) == (0.03, "tanh", 10)
    assert (config.train_ratio, config.noise, config.regularization) == (50, 0, "none")
    assert config.sample_count == 500
    assert PlaygroundConfig(dataset="reg_plane").sample_count == 1200
    assert PlaygroundConfig(dataset="reg_plane").problem == "regression"
    assert validate(config) == []


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"hidden": [4, 0]}, "hidden layer 2 has 0 neurons"),
        ({"hidden": [9]}, "use 1 to 8"),
        ({"hidden": [1] * 7}, "at most 6"),
        ({"features": []}, "no input feature is selected"),
        ({"features": ["x3"]}, "unknown features"),
        ({"learning_rate": 0}, "learning_rate must be a number above 0"),
        ({"learning_rate": float("nan")}, "learning_rate must be a number above 0"),
        ({"learning_rate": "fast"}, "learning_rate"),
        ({"dataset": "moons"}, "unknown dataset 'moons'"),
        ({"dataset": "custom"}, "needs your data first"),
        ({"noise": 55}, "noise must be a whole number from 0 to 50"),
        ({"batch_size": 0}, "batch_size"),
        ({"activation": "gelu"}, "unknown activation"),
        ({"loss": "cross_entropy", "dataset": "reg_gauss"}, "use the mse loss for regression"),
        ({"dataset": "blobs"}, "use the cross_entropy loss"),
        ({"regularization_rate": -1}, "regularization_rate must be 0 or more"),
        ({"momentum": 1.0}, "momentum must be in [0, 1)"),
        ({"target_loss": -0.5}, "target_loss"),
    ],
)
def test_bad_settings_are_explained_not_raised(changes: dict, words: str) -> None:
    problems = validate(PlaygroundConfig().copy(**changes))
    assert any(words in problem for problem in problems), problems


def test_unknown_backend_is_a_problem() -> None:
    assert validate(PlaygroundConfig(backend="tpu"), backends=["numba"])
    assert not validate(PlaygroundConfig(backend="numba"), backends=["numba"])


def test_string_round_trip() -> None:
    config = PlaygroundConfig(dataset="spiral", noise=25, hidden=[8, 8, 3], features=["x1", "sin_x2"],
                              activation="relu", learning_rate=0.003, discretize=True,
                              hidden_controls=["noise", "dataset"], seed=42, target_loss=0.05)  # fmt: skip
    text = to_string(config)
    assert "dataset=spiral" in text and "hidden=8,8,3" in text and "learning_rate" in text
    assert "batch_size" not in text  # defaults are left out
    restored, problems = from_string(text)
    assert restored == config and problems == []
    assert from_string("https://example.org/playground#" + text)[0] == config


def test_string_with_no_hidden_layers() -> None:
    restored, _ = from_string(to_string(PlaygroundConfig(hidden=[])))
    assert restored.hidden == []


def test_bad_string_parts_are_reported_and_skipped() -> None:
    config, problems = from_string("dataset=xor&colour=red&noise=lots&hidden=3")
    assert config.dataset == "xor" and config.hidden == [3] and config.noise == 0
    assert any("colour" in p for p in problems) and any("noise" in p for p in problems)


def test_from_dict_ignores_unknown_keys_and_keeps_base() -> None:
    base = PlaygroundConfig(dataset="xor")
    assert from_dict({"noise": 10, "unknown": 1}, base=base) == base.copy(noise=10)
