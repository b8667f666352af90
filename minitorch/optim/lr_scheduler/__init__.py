"""``minitorch.optim.lr_scheduler``: learning-rate schedules, as ``torch.optim.lr_scheduler``.

``base.py`` has the base class and how a step works; each other file is one family:

* ``decay.py``: ``StepLR``, ``MultiStepLR``, ``ExponentialLR``, ``PolynomialLR``;
* ``functions.py``: ``LambdaLR``, ``MultiplicativeLR`` (your own function of the epoch);
* ``warmup.py``: ``ConstantLR``, ``LinearLR``;
* ``cosine.py``: ``CosineAnnealingLR``, ``CosineAnnealingWarmRestarts``;
* ``cyclic.py``: ``CyclicLR``, ``OneCycleLR`` (stepped per batch; they cycle momentum too);
* ``plateau.py``: ``ReduceLROnPlateau`` (driven by a metric, not the epoch);
* ``combine.py``: ``SequentialLR`` (warm-up, then decay), ``ChainedScheduler``.
"""

from minitorch.optim.lr_scheduler.base import LRScheduler, _LRScheduler
from minitorch.optim.lr_scheduler.combine import ChainedScheduler, SequentialLR
from minitorch.optim.lr_scheduler.cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from minitorch.optim.lr_scheduler.cyclic import CyclicLR, OneCycleLR
from minitorch.optim.lr_scheduler.decay import ExponentialLR, MultiStepLR, PolynomialLR, StepLR
from minitorch.optim.lr_scheduler.functions import LambdaLR, MultiplicativeLR
from minitorch.optim.lr_scheduler.plateau import ReduceLROnPlateau
from minitorch.optim.lr_scheduler.warmup import ConstantLR, LinearLR

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
           "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR", "MultiplicativeLR",
           "OneCycleLR", "PolynomialLR", "ReduceLROnPlateau", "SequentialLR", "StepLR",
           "_LRScheduler"]  # fmt: skip
