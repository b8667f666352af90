"""``minitorch.optim``: optimizers (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``) and learning-rate
schedules (``optim.lr_scheduler``).

    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for x, y in loader:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
"""

from minitorch.optim import lr_scheduler
from minitorch.optim.adam import Adam, AdamW
from minitorch.optim.optimizer import Optimizer
from minitorch.optim.rmsprop import RMSprop
from minitorch.optim.sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
