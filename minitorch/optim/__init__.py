"""``minitorch.optim``: optimizers and learning-rate schedules (``optim.lr_scheduler``).

    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for x, y in loader:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()

The optimizers, one file each: ``SGD``, ``Adam`` and ``AdamW``, ``RMSprop``, ``Adagrad``,
``Adadelta``, ``Adamax``, ``NAdam``, ``RAdam``, ``ASGD``, ``Rprop`` and ``LBFGS`` (which
takes a closure that evaluates the loss again).
"""

from minitorch.optim import lr_scheduler
from minitorch.optim.adadelta import Adadelta
from minitorch.optim.adagrad import Adagrad
from minitorch.optim.adam import Adam, AdamW
from minitorch.optim.adamax import Adamax
from minitorch.optim.asgd import ASGD
from minitorch.optim.lbfgs import LBFGS
from minitorch.optim.nadam import NAdam
from minitorch.optim.optimizer import Optimizer
from minitorch.optim.radam import RAdam
from minitorch.optim.rmsprop import RMSprop
from minitorch.optim.rprop import Rprop
from minitorch.optim.sgd import SGD

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "Rprop", "lr_scheduler"]  # fmt: skip
