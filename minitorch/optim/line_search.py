"""The strong Wolfe line search of ``LBFGS(line_search_fn="strong_wolfe")``.

Given a descent direction ``d`` from ``x`` (the directional derivative ``g·d < 0``), find
a step ``t`` along it that satisfies both strong Wolfe conditions (Nocedal and Wright,
*Numerical Optimization*, algorithms 3.5 and 3.6):

* sufficient decrease (Armijo): ``f(x + t d) <= f(x) + c1 t g·d``, the loss falls by at
  least a fraction of what the slope promises;
* curvature: ``|g(x + t d)·d| <= c2 |g·d|``, the slope has flattened, so ``t`` is near
  a minimum along the line rather than still on the way down.

Phase one (*bracketing*) grows ``t`` until an interval ``[t_lo, t_hi]`` is known to hold
such a step; phase two (*zoom*) shrinks the interval, each time trying the minimum of
the cubic that matches the loss and slope at both ends. The numbers follow PyTorch's
implementation step by step, so LBFGS takes the same steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from minitorch._tensor import Tensor


def cubic_minimum(x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any,
                  bounds: tuple[Any, Any] | None = None) -> Any:  # fmt: skip
    """Where the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes ``g1`` and ``g2``
    has its minimum, clamped to ``bounds`` (default: between ``x1`` and ``x2``); the
    middle of the bounds when the cubic has no minimum (no real critical point)."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - _divide(3 * (f1 - f2), x1 - x2)
    d2_square = d1**2 - g1 * g2
    if not d2_square >= 0:  # (NaN included)
        return (low + high) / 2.0
    d2 = d2_square.sqrt() if isinstance(d2_square, Tensor) else math.sqrt(d2_square)
    if x1 <= x2:
        minimum = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        minimum = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(minimum, low), high)


def _divide(number: Any, by: Any) -> Any:
    """``number / by``, rounded as PyTorch rounds it when ``by`` is a tensor and ``number``
    a Python number: PyTorch's ``float / Tensor`` is ``by.reciprocal() * number``."""
    if isinstance(by, Tensor) and not isinstance(number, Tensor):
        return by.reciprocal() * number
    return number / by


class _Point:
    """One trial step: ``t``, the loss there, its gradient and slope along ``d``."""

    __slots__ = ("t", "loss", "grad", "slope")

    def __init__(self, t: Any, loss: float, grad: Any, slope: Any) -> None:
        self.t, self.loss, self.grad, self.slope = t, loss, grad, slope


def strong_wolfe(evaluate: Callable[[Any], tuple[float, Any]], t: Any, d: Any, loss: float, grad: Any,
                 slope: Any, c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                 max_ls: int = 25) -> tuple[float, Any, Any, int]:  # fmt: skip
    """Search along ``d`` from the current point (``loss``, ``grad``, ``slope = grad·d``),
    starting at step ``t``. ``evaluate(t)`` returns the loss and flat gradient at
    ``x + t d`` (and puts the parameters back). Returns the loss, gradient and step it
    settles on, and how many evaluations it made."""
    d_norm = d.abs().max()
    start = _Point(0, loss, grad.clone(), slope)
    previous = start
    new_loss, new_grad = evaluate(t)
    evaluations, tries = 1, 0
    trial = _Point(t, new_loss, new_grad, new_grad.dot(d))
    bracket: list[_Point] = []
    done = False
    # Phase one: grow t until [previous, trial] brackets a point that satisfies both.
    while tries < max_ls:
        if trial.loss > loss + c1 * trial.t * slope or (tries > 1 and trial.loss >= previous.loss):
            bracket = [previous, _Point(trial.t, trial.loss, trial.grad.clone(), trial.slope)]
            break
        if abs(trial.slope) <= -c2 * slope:
            bracket, done = [trial], True
            break
        if trial.slope >= 0:
            bracket = [previous, _Point(trial.t, trial.loss, trial.grad.clone(), trial.slope)]
            break
        # Still going down: extrapolate, between 1.01 t and 10 t.
        next_t = cubic_minimum(previous.t, previous.loss, previous.slope, trial.t, trial.loss, trial.slope,
                               bounds=(trial.t + 0.01 * (trial.t - previous.t), trial.t * 10))  # fmt: skip
        previous = _Point(trial.t, trial.loss, trial.grad.clone(), trial.slope)
        new_loss, new_grad = evaluate(next_t)
        evaluations += 1
        trial = _Point(next_t, new_loss, new_grad, new_grad.dot(d))
        tries += 1
    if tries == max_ls:
        bracket = [start, trial]
    # Phase two (zoom): shrink the bracket around the point that satisfies both.
    low, high = (0, 1) if bracket[0].loss <= bracket[-1].loss else (1, 0)
    stalled = False
    while not done and tries < max_ls:
        if abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change:
            break  # the interval is too small to matter
        t = cubic_minimum(bracket[0].t, bracket[0].loss, bracket[0].slope,
                          bracket[1].t, bracket[1].loss, bracket[1].slope)  # fmt: skip
        top, bottom = max(bracket[0].t, bracket[1].t), min(bracket[0].t, bracket[1].t)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:
            # Too close to an end: allowed once, then moved a margin inside.
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        new_loss, new_grad = evaluate(t)
        evaluations += 1
        tries += 1
        point = _Point(t, new_loss, new_grad.clone(), new_grad.dot(d))
        if point.loss > loss + c1 * t * slope or point.loss >= bracket[low].loss:
            bracket[high] = point  # not low enough: the new high end
            low, high = (0, 1) if bracket[0].loss <= bracket[1].loss else (1, 0)
        else:
            if abs(point.slope) <= -c2 * slope:
                done = True
            elif point.slope * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]  # the minimum lies on the other side
            bracket[low] = point
    best = bracket[low]
    return best.loss, best.grad, best.t, evaluations
