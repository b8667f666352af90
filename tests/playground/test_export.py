"""Export as code: the exported script runs, and from epoch 0 it reproduces the
Playground's own losses exactly."""

from __future__ import annotations

import contextlib
import io

import pytest

import minitorch
from minitorch.widgets.playground import Trainer
from minitorch.widgets.playground.export import export_code

from .helpers import small

CASES = {
    "default": small(),
    "classes, adam, L2, features": small(
        dataset="spiral3",
        loss="cross_entropy",
        optimizer="adam",
        regularization="l2",
        regularization_rate=0.003,
        features=["x1", "x2", "sin_x1", "x1x2"],
    ),  # fmt: skip
    "regression, momentum, L1, no hidden": small(
        dataset="reg_gauss", hidden=[], optimizer="momentum", regularization="l1", regularization_rate=0.001
    ),  # fmt: skip
    "two-class cross-entropy, relu": small(dataset="xor", loss="cross_entropy", activation="relu"),
}


def run(code: str) -> tuple[dict, str]:
    """Execute an exported script; its namespace and what it printed."""
    namespace: dict = {"__name__": "__main__"}
    before = minitorch.get_backend("cpu")
    try:
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(compile(code, "<exported>", "exec"), namespace)
    finally:
        minitorch.set_backend("cpu", before)  # the script picks the Playground's backend
    return namespace, printed.getvalue()


@pytest.mark.parametrize("name", list(CASES))
def test_exported_code_reproduces_the_playground(name: str) -> None:
    trainer = Trainer(CASES[name])
    code = export_code(trainer, epochs=2)
    namespace, printed = run(code)
    trainer.train(2)
    expected = [loss for e in trainer.history for loss in (e.train_loss, e.test_loss)]
    exported = [loss for pair in namespace["history"] for loss in pair]
    assert exported == pytest.approx(expected, rel=1e-6)  # flat: approx takes no nesting
    assert "epoch 2: train loss" in printed
    if trainer.data.problem == "classification":
        assert "test accuracy" in printed
    assert "nn.Sequential(" in code and "optimizer.step()" in code


def test_export_keeps_the_current_weights_and_added_points() -> None:
    trainer = Trainer(small())
    trainer.train(3)
    trainer.set_weight(0, 1, 0, 1.5)
    trainer.add_point(2.0, 2.0, -1)
    untrained, _ = run(export_code(trainer, epochs=0))
    assert untrained["model"][0].weight[1, 0].item() == 1.5
    assert untrained["train_count"] == trainer.train_count
    code = export_code(trainer, epochs=1)
    assert "at epoch 3" in code and "points = minitorch.tensor(" in code
    namespace, _ = run(code)
    trainer.train(1)
    assert namespace["history"][0] == pytest.approx((trainer.history[-1].train_loss,
                                                     trainer.history[-1].test_loss), rel=1e-6)  # fmt: skip
