"""The network the Playground trains: a plain ``nn.Sequential`` multi-layer perceptron.

For features ``[x1, x2]``, hidden layers ``[4, 2]`` and the tanh activation it is::

    nn.Sequential(
        nn.Linear(2, 4), nn.Tanh(),     # hidden layer 1
        nn.Linear(4, 2), nn.Tanh(),     # hidden layer 2
        nn.Linear(2, 1), nn.Tanh(),     # output: tanh for classification into -1/+1
    )

Every ``Linear`` is followed by exactly one activation module (``nn.Identity()`` for
"linear"), so layer ``k`` is ``model[2k]`` (its weights) and ``model[2k + 1]`` (its
activation): the front end and the exported code rely on that pairing.

The output depends on the problem, as in TensorFlow Playground, plus multi-class:

| problem / loss                  | output neurons | output activation |
| ------------------------------- | -------------- | ----------------- |
| classification, mse (Playground)| 1              | tanh (-1..+1)     |
| regression, mse (Playground)    | 1              | none (linear)     |
| classification, cross-entropy   | classes (K)    | none: logits, softmax is inside the loss |

Weights start uniform in ``[-0.5, 0.5]`` and biases at ``0.1``, as in Playground, drawn
from a ``Generator`` seeded by the config so a shared configuration restarts identically.
"""

from __future__ import annotations

from minitorch import nn
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.random import Generator
from minitorch.random_factories import rand

ACTIVATION_MODULES = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "linear": nn.Identity}
ACTIVATION_CODE = {"relu": "nn.ReLU()", "tanh": "nn.Tanh()", "sigmoid": "nn.Sigmoid()",
                   "linear": "nn.Identity()"}  # fmt: skip


def output_shape(problem: str, loss: str, num_classes: int) -> tuple[int, str]:
    """How many output neurons, and their activation, for this problem and loss."""
    if loss == "cross_entropy":
        return max(num_classes, 2), "linear"
    return 1, "tanh" if problem == "classification" else "linear"


def layer_sizes(num_inputs: int, hidden: list[int], num_outputs: int) -> list[int]:
    """Neurons per layer, inputs first: ``[2, 4, 2, 1]`` for the default network."""
    return [num_inputs, *hidden, num_outputs]


def build_model(sizes: list[int], activation: str, output_activation: str,
                seed: int = 0) -> nn.Sequential:  # fmt: skip
    """An MLP with ``sizes`` neurons per layer, initialised like Playground's."""
    modules: list[nn.Module] = []
    for index, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        is_output = index == len(sizes) - 2
        modules.append(nn.Linear(fan_in, fan_out))
        modules.append(ACTIVATION_MODULES[output_activation if is_output else activation]())
    model = nn.Sequential(*modules)
    playground_init(model, seed)
    return model


def playground_init(model: nn.Sequential, seed: int) -> None:
    """Weights uniform in [-0.5, 0.5], biases 0.1 (TensorFlow Playground's start)."""
    generator = Generator().manual_seed(seed)
    with no_grad():
        for linear in linear_layers(model):
            linear.weight.copy_(rand(*linear.weight.shape, generator=generator) - 0.5)
            linear.bias.fill_(0.1)


def linear_layers(model: nn.Sequential) -> list[nn.Linear]:
    """The ``Linear`` modules, first hidden layer first."""
    return [module for module in model if isinstance(module, nn.Linear)]


def layer_outputs(model: nn.Sequential, inputs: Tensor) -> list[Tensor]:
    """Run ``model`` on ``inputs`` and keep what every layer outputs (after its
    activation): one ``[N, neurons]`` tensor per layer, the network's output last.

    These are the neuron heatmaps: feed the 100x100 grid of points and column ``j`` of
    entry ``k`` is what neuron ``j`` of layer ``k`` says about every point.
    """
    outputs = []
    value = inputs
    for position, module in enumerate(model):
        value = module(value)
        if position % 2 == 1:
            outputs.append(value)
    return outputs


def model_code(sizes: list[int], activation: str, output_activation: str) -> str:
    """The Python source that builds the same ``nn.Sequential`` (for "export as code")."""
    lines = []
    for index, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        is_output = index == len(sizes) - 2
        name = ACTIVATION_CODE[output_activation if is_output else activation]
        role = "output layer" if is_output else f"hidden layer {index + 1}"
        lines.append(f"    nn.Linear({fan_in}, {fan_out}), {name},  # {role}")
    return "model = nn.Sequential(\n" + "\n".join(lines) + "\n)"
