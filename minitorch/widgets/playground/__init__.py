"""The Playground: TensorFlow Playground in the notebook, training a real minitorch model.

| file             | what                                                            |
| ---------------- | --------------------------------------------------------------- |
| ``config.py``    | every setting, its allowed values, the shareable string         |
| ``datasets.py``  | points, labels, train/test split; multi-class and your own data |
| ``features.py``  | the input features x1, x2, x1², x2², x1·x2, sin x1, sin x2       |
| ``network.py``   | the ``nn.Sequential`` MLP and Playground's initialisation       |
| ``compute.py``   | which backend it trains on (chosen live), on one thread          |
| ``trainer.py``   | the headless training loop, stop conditions                     |
| ``history.py``   | ``Epoch``, and ``History``: the epochs trained, and ``plot()``  |
| ``meter.py``     | the "epochs per second" meter shown while playing               |
| ``snapshots.py`` | copies of the weights to scrub back through                     |
| ``render.py``    | what the widget draws: the 100x100 heatmaps, links, gradients   |
| ``export.py``    | "export as code": a runnable script of the current model        |
| ``player.py``    | play / pause without blocking the notebook                      |
| ``widget.py``    | ``Playground``, the anywidget that binds all this to the page   |
| ``send_rate.py`` | how often the state is sent to the page while playing            |
| ``page_actions.py`` | the page's buttons as calls of ``Playground``'s methods      |
| ``static.py``    | the text and SVG shown where no browser runs the widget         |

The front end is ``widgets/playground.js`` and ``widgets/playground.css``.
"""

from typing import Any

from minitorch.widgets.playground.config import PlaygroundConfig
from minitorch.widgets.playground.history import Epoch, History
from minitorch.widgets.playground.trainer import Trainer

__all__ = ["Epoch", "History", "Playground", "PlaygroundConfig", "Trainer"]


def __getattr__(name: str) -> Any:
    """``Playground`` (the anywidget) is imported when first asked for: the headless
    ``Trainer`` and its helpers do not need the widget machinery loaded."""
    if name == "Playground":
        from minitorch.widgets.playground.widget import Playground

        return Playground
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
