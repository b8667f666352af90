"""Grad mode (issue 3, item 4): ``no_grad``, ``enable_grad``, ``set_grad_enabled`` and
``is_grad_enabled``, as context managers and as decorators, like PyTorch."""

from __future__ import annotations

import pytest
import torch

import minitorch as mt


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    yield
    mt.set_grad_enabled(True)
    torch.set_grad_enabled(True)


def leaf():
    return mt.tensor([1.0, 2.0], requires_grad=True)


def test_is_grad_enabled_default_true():
    assert mt.is_grad_enabled() is True


def test_no_grad_context_builds_no_graph():
    x = leaf()
    with mt.no_grad():
        assert mt.is_grad_enabled() is False
        y = x * 2 + x.exp()
        w = x.view(2, 1).sum()
        v = x[0] * x[1]
    assert mt.is_grad_enabled() is True
    for out in (y, w, v):
        assert out.requires_grad is False and out.grad_fn is None
    assert (x * 2).requires_grad is True


def test_nested_modes_restore_previous_state():
    with mt.no_grad():
        with mt.enable_grad():
            assert mt.is_grad_enabled() is True
            assert (leaf() * 2).requires_grad is True
            with mt.set_grad_enabled(False):
                assert mt.is_grad_enabled() is False
            assert mt.is_grad_enabled() is True
        assert mt.is_grad_enabled() is False
        with mt.set_grad_enabled(True):
            assert (leaf() * 2).requires_grad is True
    assert mt.is_grad_enabled() is True


def test_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with mt.no_grad():
            raise ValueError("boom")
    assert mt.is_grad_enabled() is True


def test_no_grad_decorator_with_and_without_parentheses():
    x = leaf()

    @mt.no_grad()
    def double(t):
        """Doubles."""
        return t * 2

    @mt.no_grad
    def triple(t):
        return t * 3

    assert double(x).requires_grad is False
    assert triple(x).requires_grad is False
    assert double.__name__ == "double" and double.__doc__ == "Doubles."
    assert mt.is_grad_enabled() is True
    assert (x * 2).requires_grad is True


def test_enable_grad_decorator_inside_no_grad():
    @mt.enable_grad()
    def double(t):
        return t * 2

    with mt.no_grad():
        assert double(leaf()).requires_grad is True
        assert mt.is_grad_enabled() is False


def test_set_grad_enabled_as_function_and_decorator():
    mt.set_grad_enabled(False)
    assert mt.is_grad_enabled() is False
    assert (leaf() * 2).requires_grad is False
    mt.set_grad_enabled(True)
    assert (leaf() * 2).requires_grad is True

    @mt.set_grad_enabled(False)
    def double(t):
        return t * 2

    assert double(leaf()).requires_grad is False
    assert mt.is_grad_enabled() is True


def test_in_place_update_of_leaf_under_no_grad_keeps_it_a_leaf():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with mt.no_grad():
        w -= 0.1 * w.grad
        w.add_(1.0)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    assert w.tolist() == pytest.approx([1.0 - 0.2 + 1.0, 2.0 - 0.4 + 1.0])
    w.grad = None
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]


def test_tensors_created_under_no_grad_can_require_grad():
    with mt.no_grad():
        x = mt.tensor([1.0], requires_grad=True)
        assert x.requires_grad is True
    assert (x * 2).requires_grad is True


def test_backward_works_inside_no_grad_for_a_graph_built_outside():
    x = leaf()
    y = (x * x).sum()
    with mt.no_grad():
        y.backward()
    assert x.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("decorator", ["no_grad()", "no_grad", "enable_grad()", "set_grad_enabled(False)"])
def test_decorated_generator_runs_in_the_mode_and_yields_back_the_callers(decorator):
    """Issue 18.4e: as in PyTorch, the mode holds while the generator's own code runs,
    and the caller's mode is back between yields."""
    seen = {}
    for lib in (mt, torch):
        make = eval(f"lib.{decorator}")  # noqa: S307 - the four spellings, from the list above

        def generator(x, lib=lib):
            received = yield lib.is_grad_enabled(), (x * 2).requires_grad
            yield lib.is_grad_enabled(), received
            return "done"

        generator = make(generator)
        x = lib.ones(2, requires_grad=True)
        with lib.set_grad_enabled(not decorator.startswith("enable")):  # the other mode
            caller_mode = lib.is_grad_enabled()
            gen = generator(x)
            first = next(gen)
            between = lib.is_grad_enabled()
            second = gen.send("hello")
            try:
                next(gen)
                result = None
            except StopIteration as stop:
                result = stop.value
            after = lib.is_grad_enabled()
        seen[lib.__name__] = (first, between == caller_mode, second, result, after == caller_mode)
    assert seen["minitorch"] == seen["torch"]


def test_exception_thrown_into_a_decorated_generator_reaches_it_in_its_mode():
    log = []

    @mt.no_grad()
    def generator():
        try:
            yield 1
        except ValueError:
            log.append(mt.is_grad_enabled())
            yield 2

    gen = generator()
    assert next(gen) == 1
    assert gen.throw(ValueError("x")) == 2
    gen.close()
    assert log == [False] and mt.is_grad_enabled()
