# %% [markdown]
# # Exercises 7 · Training
#
# **Goal:** write a training loop that trains a small network to at least **90%** test
# accuracy on the two-moons data of chapter 7. The check builds a fresh model (an object
# with `model(x)` and `model.parameters()`), calls your `train(model, x, y)` on 256
# training points, and measures accuracy on 256 other points.

# %% setup(backend="numba")

# %%
import minitorch
from minitorch.course.training_checks import check_training, cross_entropy

# %% [markdown]
# ## Exercise: `train`
#
# Train `model` in place: repeat forward, loss (`cross_entropy(model(x), y)` is provided),
# clear old gradients, `loss.backward()`, and update every parameter in place under
# `with minitorch.no_grad():` (`p -= lr * p.grad`). Full-batch gradient descent with a
# learning rate near 1 and about 100 steps is enough; mini-batches and momentum are
# welcome. Once your loop works by hand, try the library's optimizer instead:
# `opt = minitorch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)`, then
# `opt.zero_grad()` and `opt.step()` in the loop.

# %% exercise=train
def train(model, x, y):
    raise NotImplementedError  # your code here

# %%
check_training(train)
