"""Derivatives of whole functions (PyTorch's ``torch.autograd.functional``).

Each of these calls ``func`` once on fresh copies of ``inputs`` that require grad, then
asks the backward engine (``autograd.grad``) for the product it wants:

==========  =====================================  ================================
function    computes                               how
==========  =====================================  ================================
``vjp``     ``v^T J``  (one row mix of ``J``)      one backward pass with ``v``
``jvp``     ``J v``    (one column mix of ``J``)   the double-vjp trick, below
``jacobian`` ``J``, shape ``out.shape + in.shape`` one backward pass per output element
``hessian`` ``H``, the Jacobian of the gradient    ``jacobian`` of a ``create_graph`` gradient
``vhp``     ``v^T H``                              a gradient, then a vjp of it
``hvp``     ``H v``                                the double-vjp trick on the gradient
==========  =====================================  ================================

**The double-vjp trick** (``jvp``). Reverse mode gives vector-Jacobian products
``u -> J^T u`` only. But ``g(u) = J^T u`` is *linear* in ``u``, so its own vjp is the
transpose of its matrix: the vjp of ``g`` with a vector ``v`` is ``(J^T)^T v = J v``.
So ``jvp`` runs one backward with a dummy ``u`` (zeros that require grad, recorded with
``create_graph=True``) and a second backward through that graph, with respect to ``u``.

``inputs`` and the function's outputs may each be one tensor or a tuple of tensors; the
results have the matching structure. ``create_graph=True`` keeps the results
differentiable; ``strict=True`` refuses an output that does not depend on an input
(instead of answering zeros). ``vectorize=True`` is accepted and computes the same
result row by row (minitorch has no ``vmap``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.autograd import grad
from minitorch.autograd.grad_mode import enable_grad


def as_tuple(value: Any, what: str, function: str) -> tuple[bool, tuple[Tensor, ...]]:
    """``(was it a tuple, the tensors as a tuple)``, refusing anything but tensors."""
    is_tuple = isinstance(value, (tuple, list))
    values = tuple(value) if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            if what == "inputs":
                raise TypeError(f"The inputs given to {function} must be either a Tensor or a tuple "
                                f"of Tensors but the value at index {i} has type {type(v)}.")  # fmt: skip
            raise TypeError(f"The outputs of the user-provided function given to {function} must "
                            "be either a Tensor or a tuple of Tensors but the value at index "
                            f"{i} has type {type(v)}.")  # fmt: skip
    return is_tuple, values


def prepare_inputs(inputs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    """Copies of the inputs to differentiate with respect to: detached leaves that
    require grad, or (with ``create_graph`` and an input that already requires grad) a
    view of it, so that the result stays connected to the caller's graph."""
    if create_graph:
        return tuple(t.view(tuple(t.shape)) if t.requires_grad else t.detach().requires_grad_()
                     for t in inputs)  # fmt: skip
    return tuple(t.detach().requires_grad_() for t in inputs)


def finish(tensors: tuple, create_graph: bool) -> tuple:
    """Results leave without their graph unless ``create_graph`` asked for it."""
    return tuple(t if create_graph or t is None else t.detach() for t in tensors)


def restore(values: tuple, is_tuple: bool) -> Any:
    return values if is_tuple else values[0]


def fill_unused(grads: tuple, like: tuple[Tensor, ...], strict: bool, what: str) -> tuple:
    """Zeros for the inputs a result does not depend on (``None`` from the engine);
    an error instead in ``strict`` mode."""
    for i, g in enumerate(grads):
        if g is None and strict:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode{what}.")  # fmt: skip
    return tuple(creation.zeros_like(t) if g is None else g for g, t in zip(grads, like))


def check_v(v: Any, expected: tuple[Tensor, ...], function: str, of: str) -> tuple[Tensor, ...]:
    """The vector ``v`` as a tuple of tensors shaped like ``expected``; ``None`` means
    ``1`` when ``expected`` is one single-element tensor."""
    if v is None:
        if len(expected) != 1 or expected[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the {of} is a single Tensor "
                               "with a single element.")  # fmt: skip
        return (creation.ones_like(expected[0]),)
    _, vs = as_tuple(v, "inputs", function)
    if len(vs) != len(expected):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(expected)} but got {len(vs)}.")
    for i, (vi, e) in enumerate(zip(vs, expected)):
        if tuple(vi.shape) != tuple(e.shape):
            raise RuntimeError(f"Entry {i} in v has invalid size: expected {list(e.shape)} but "
                               f"got {list(vi.shape)}.")  # fmt: skip
    return vs


def call(func: Callable, inputs: tuple[Tensor, ...], function: str) -> tuple[bool, tuple[Tensor, ...]]:
    with enable_grad():
        return as_tuple(func(*inputs), "outputs", function)


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """``(func(inputs), v^T J)``: the vector-Jacobian product, one backward pass."""
    inputs_tuple, xs = as_tuple(inputs, "inputs", "vjp")
    xs = prepare_inputs(xs, create_graph)
    outputs_tuple, outs = call(func, xs, "vjp")
    vs = check_v(v, outs, "vjp", "user-provided function returns")
    with enable_grad():
        grads = grad(outs, xs, vs, create_graph=create_graph, allow_unused=True)
    grads = fill_unused(grads, xs, strict, "")
    outs, grads = finish(outs, create_graph), finish(grads, create_graph)
    return restore(outs, outputs_tuple), restore(grads, inputs_tuple)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-vjp trick."""
    inputs_tuple, xs = as_tuple(inputs, "inputs", "jvp")
    xs = prepare_inputs(xs, create_graph)
    vs = check_v(v, xs, "jvp", "input to the user-provided function")
    outputs_tuple, outs = call(func, xs, "jvp")
    with enable_grad():
        dummies = tuple(creation.zeros_like(o, requires_grad=True) for o in outs)  # the u
        transposed = grad(outs, xs, dummies, create_graph=True, allow_unused=True)  # J^T u
        used = [(g, vi) for g, vi in zip(transposed, vs) if g is not None]
        if used:
            products = grad([g for g, _ in used], dummies, [vi for _, vi in used],
                            create_graph=create_graph, allow_unused=True)  # fmt: skip
        else:
            products = (None,) * len(outs)
    products = fill_unused(products, outs, strict, " (the output is independent of the inputs)")
    outs, products = finish(outs, create_graph), finish(products, create_graph)
    return restore(outs, outputs_tuple), restore(products, outputs_tuple)


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:  # fmt: skip
    """The Jacobian ``J[i..., j...] = d out[i...] / d in[j...]`` of each output with
    respect to each input, shaped ``out.shape + in.shape``: one backward pass per output
    element (each gives one row of ``J``).

    A Tensor for one input and one output; a tuple over the inputs when ``inputs`` is a
    tuple; a tuple over the outputs (each as above) when ``func`` returns a tuple. An
    empty output gives an empty Jacobian (PyTorch raises: "stack expects a non-empty
    TensorList").
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if strategy == "forward-mode":
        raise NotImplementedError("jacobian(strategy='forward-mode') needs forward-mode AD, "
                                  "which minitorch does not have: use 'reverse-mode'.")  # fmt: skip
    inputs_tuple, xs = as_tuple(inputs, "inputs", "jacobian")
    xs = prepare_inputs(xs, create_graph)
    outputs_tuple, outs = call(func, xs, "jacobian")
    jacobians = []
    for out in outs:
        flat = out.reshape(-1)
        # One buffer per input, [out.numel(), *in.shape]; backward pass k fills row k.
        # (Writing into a buffer is recorded by autograd, so create_graph keeps working.)
        buffers = [creation.zeros((flat.shape[0],) + tuple(x.shape), dtype=x.dtype, device=x.device)
                   for x in xs]  # fmt: skip
        for k in range(flat.shape[0]):
            with enable_grad():
                grads = grad(flat[k], xs, retain_graph=True, create_graph=create_graph,
                             allow_unused=True)  # fmt: skip
            for buffer, g in zip(buffers, fill_unused(grads, xs, strict, "")):
                buffer[k] = g
        per_input = tuple(b.reshape(tuple(out.shape) + tuple(x.shape)) for b, x in zip(buffers, xs))
        jacobians.append(restore(finish(per_input, create_graph), inputs_tuple))
    return restore(tuple(jacobians), outputs_tuple)


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:  # fmt: skip
    """The Hessian ``H[i..., j...] = d^2 f / d in[i...] d in[j...]`` of a function with
    one single-element output: the ``jacobian`` of its gradient (recorded with
    ``create_graph=True``). For tuple inputs, a tuple of tuples ``H[a][b]``."""
    inputs_tuple, xs = as_tuple(inputs, "inputs", "hessian")

    def scalar_output(*args: Tensor) -> Tensor:
        out = func(*args)
        is_tuple, outs = as_tuple(out, "outputs", "hessian")
        if is_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if outs[0].numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")  # fmt: skip
        return outs[0].reshape(())

    def gradient(*args: Tensor) -> tuple[Tensor, ...]:
        result = jacobian(scalar_output, args, create_graph=True, strict=strict)
        return tuple(result)

    result = jacobian(gradient, xs, create_graph=create_graph, strict=strict,
                      strategy=outer_jacobian_strategy)  # fmt: skip
    if inputs_tuple:
        return result
    return result[0][0]


def _gradient_of_scalar(func: Callable, xs: tuple[Tensor, ...], function: str) -> tuple[Tensor, tuple]:
    """``f(xs)`` (checked to be a single element) and its gradient, recorded with
    ``create_graph=True`` so it can be differentiated again."""
    outputs_tuple, outs = call(func, xs, function)
    if outputs_tuple or outs[0].numel() != 1:
        raise RuntimeError(f"The function given to {function} should return a single Tensor "
                           "with a single element")  # fmt: skip
    with enable_grad():
        grads = grad(outs[0], xs, create_graph=True, allow_unused=True)
    return outs[0], grads


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """``(func(inputs), v^T H)``: the vjp of the gradient with ``v``."""
    inputs_tuple, xs = as_tuple(inputs, "inputs", "vhp")
    xs = prepare_inputs(xs, create_graph)
    vs = check_v(v, xs, "vhp", "input to the user-provided function")
    out, grads = _gradient_of_scalar(func, xs, "vhp")
    used = [(g, vi) for g, vi in zip(grads, vs) if g is not None and g.requires_grad]
    products: tuple = (None,) * len(xs)
    if used:
        with enable_grad():
            products = grad([g for g, _ in used], xs, [vi for _, vi in used],
                            create_graph=create_graph, allow_unused=True)  # fmt: skip
    products = fill_unused(products, xs, strict, "")
    return finish((out,), create_graph)[0], restore(finish(products, create_graph), inputs_tuple)


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:  # fmt: skip
    """``(func(inputs), H v)``: the double-vjp trick applied to the gradient ``g(x)``,
    whose Jacobian is ``H``: ``u -> H^T u`` is linear, and its vjp with ``v`` is ``H v``.
    (For a function with continuous second derivatives ``H`` is symmetric and ``vhp``
    gives the same numbers with one backward pass less.)"""
    inputs_tuple, xs = as_tuple(inputs, "inputs", "hvp")
    xs = prepare_inputs(xs, create_graph)
    vs = check_v(v, xs, "hvp", "input to the user-provided function")
    out, grads = _gradient_of_scalar(func, xs, "hvp")
    used = [(g, x) for g, x in zip(grads, xs) if g is not None and g.requires_grad]
    products: tuple = (None,) * len(xs)
    if used:
        with enable_grad():
            dummies = tuple(creation.zeros_like(g, requires_grad=True) for g, _ in used)
            transposed = grad([g for g, _ in used], xs, dummies, create_graph=True,
                              allow_unused=True)  # H^T u, one per input  # fmt: skip
            pairs = [(t, vi) for t, vi in zip(transposed, vs) if t is not None]
            if pairs:
                back = grad([t for t, _ in pairs], dummies, [vi for _, vi in pairs],
                            create_graph=create_graph, allow_unused=True)  # fmt: skip
                by_input = {id(x): b for (_, x), b in zip(used, back)}
                products = tuple(by_input.get(id(x)) for x in xs)
    products = fill_unused(products, xs, strict, "")
    return finish((out,), create_graph)[0], restore(finish(products, create_graph), inputs_tuple)
