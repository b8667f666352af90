"""Input features: what the network sees of a point ``(x1, x2)``.

TensorFlow Playground feeds a network more than the raw coordinates. Each *feature* is a
function of the point, and the user clicks features on and off:

| name    | value          | why it helps                                       |
| ------- | -------------- | -------------------------------------------------- |
| ``x1``  | ``x1``         | the horizontal position                            |
| ``x2``  | ``x2``         | the vertical position                              |
| ``x1^2``| ``x1 * x1``    | distance-like: a circle is ``x1^2 + x2^2 < r^2``   |
| ``x2^2``| ``x2 * x2``    |                                                    |
| ``x1x2``| ``x1 * x2``    | its sign alone solves XOR                          |
| ``sin_x1``| ``sin(x1)``  | periodic: helps with the spiral                    |
| ``sin_x2``| ``sin(x2)``  |                                                    |

With ``x1^2`` and ``x2^2`` switched on, a network with *no* hidden layer separates the
circle: the features did the work a hidden layer would otherwise have to learn.

    >>> points = minitorch.tensor([[1.0, 2.0]])
    >>> feature_matrix(points, ["x1", "x2", "x1x2"])
    tensor([[1., 2., 2.]])
"""

from __future__ import annotations

from collections.abc import Callable

from minitorch._tensor import Tensor
from minitorch.ops.shape import stack

# name -> (how it is written, function of the two coordinate columns)
FEATURES: dict[str, tuple[str, Callable[[Tensor, Tensor], Tensor]]] = {
    "x1": ("X₁", lambda x1, x2: x1),
    "x2": ("X₂", lambda x1, x2: x2),
    "x1^2": ("X₁²", lambda x1, x2: x1 * x1),
    "x2^2": ("X₂²", lambda x1, x2: x2 * x2),
    "x1x2": ("X₁X₂", lambda x1, x2: x1 * x2),
    "sin_x1": ("sin(X₁)", lambda x1, x2: x1.sin()),
    "sin_x2": ("sin(X₂)", lambda x1, x2: x2.sin()),
}

# How each feature is written in exported code, given columns named x1 and x2.
FEATURE_CODE: dict[str, str] = {
    "x1": "x1",
    "x2": "x2",
    "x1^2": "x1 * x1",
    "x2^2": "x2 * x2",
    "x1x2": "x1 * x2",
    "sin_x1": "x1.sin()",
    "sin_x2": "x2.sin()",
}


def feature_matrix(points: Tensor, features: list[str]) -> Tensor:
    """The network's input for ``points`` (shape ``[N, 2]``): one column per feature,
    in the order given, shape ``[N, len(features)]``.

    The two coordinates are split once into contiguous vectors (the rows of ``points.T``,
    copied): the features then run the contiguous loop that every other elementwise op
    uses, where the columns ``points[:, 0]`` (every second number) would make ``*`` and
    ``sin`` compile their strided loop as well."""
    x1, x2 = points.t().contiguous()
    columns = [FEATURES[name][1](x1, x2) for name in features]
    return stack(columns, dim=1).contiguous()
