"""In-place operations: ``add_``, ``mul_``, ``copy_``, ``fill_``, ``zero_``, ...

An in-place op writes its result into the tensor's own storage, so every view of that
storage sees the change. We do it in three steps, the same for every op:

1. **Check** that autograd allows it: a leaf that requires grad (a parameter) may only
   be changed under ``no_grad()``, as in PyTorch.
2. **Compute** the result out of place, with the ordinary differentiable op (if the old
   value is needed for backward, the op sees a ``clone`` of it).
3. **Write** the result into the storage, bump the *version counter* (so backward can
   detect that a saved tensor changed), and if a graph is being recorded, make the
   tensor's history the result's history ("rebasing"). For a view, the history of its
   base is rebased too: the base now equals "old base with this region replaced".

Other views of the same storage, taken before the write, now read new values too. Their
``grad_fn`` is stale; like PyTorch we renew it lazily: a view remembers the version at
which its ``grad_fn`` was made, and reading ``grad_fn`` (or ``requires_grad``) after the
version moved on makes it again as "this region of the base" (``refresh_view_history``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.autograd.grad_mode import enable_grad, is_grad_enabled
from minitorch.dtypes import bool_, check_scalar_fits
from minitorch.layout import checked_numel, contiguous_strides, strides_in_order
from minitorch.ops.common import broadcast_view, cast, is_number, require_tensor, scalar_tensor
from minitorch.ops.elementwise import apply_zip_into
from minitorch.ops.shape import sizes_from
from minitorch.random_factories import normal_values, uniform_values


def check_inplace(t: Tensor) -> None:
    """Raise PyTorch's errors for in-place changes that cannot be done: writing through
    a stride-0 (expanded) view, and changes autograd cannot allow."""
    if any(stride == 0 and size > 1 for size, stride in zip(t._shape, t._strides)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers "
            "to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )
    if not is_grad_enabled():
        return
    if t.is_leaf and t.requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "
            "(Wrap the update in `with minitorch.no_grad():` if it is an optimizer step.)"
        )
    base = t._base
    if base is not None and base.is_leaf and base.requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place "
            "operation."
        )


def write(target: Tensor, values: Tensor) -> None:
    """Copy ``values`` (broadcast, converted) into ``target``'s storage. No graph."""
    if values.device != target.device:
        values = values.to(target.device)
    values = cast(values, target.dtype)
    if values._storage is target._storage:  # overlapping memory: copy out first
        values = values.clone()
    dispatch.map("copy", target, broadcast_view(values, target._shape))
    target._bump_version()


def apply_inplace(t: Tensor, compute: Callable[[Tensor], Tensor]) -> Tensor:
    """Make ``t`` equal ``compute(t)`` in place (the recipe in this file's docstring)."""
    check_inplace(t)
    recording = is_grad_enabled()
    old = t.clone() if (recording and t.requires_grad) else t._alias()
    result = compute(old)
    if not result.dtype.category <= t.dtype.category:
        raise RuntimeError(
            f"result type {result.dtype.type_name} can't be cast to the desired output type "
            f"{t.dtype.type_name}"
        )
    if tuple(result.shape) != tuple(t.shape):
        raise RuntimeError(
            f"output with shape {list(t.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )
    if recording and result.requires_grad and t._base is not None:
        _rebase_base_of_view(t, result)  # t itself is renewed from it on its next use
    write(t, result)
    if recording and result.requires_grad and t._base is None:
        t._grad_fn, t._output_nr, t._requires_grad = result.grad_fn, result._output_nr, True
    return t


class WriteIntoView(Function):
    """``new_base`` = ``base`` with the region ``(shape, strides, offset)`` replaced by
    ``values``.  Gradient: the region's part goes to ``values``, the rest to ``base``."""

    @staticmethod
    def forward(ctx: FunctionCtx, base: Tensor, values: Tensor, geometry: tuple) -> Tensor:
        ctx.geometry = geometry
        ctx.values_shape = values._shape
        ctx.base_strides = base._strides
        new_base = _copy_in_layout(base, base._strides)  # the region's geometry still fits
        region = new_base._view(*geometry)
        dispatch.map("copy", region, broadcast_view(cast(values, base.dtype), region._shape))
        return new_base

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        grad = _copy_in_layout(grad, ctx.base_strides)  # laid out as the base was
        zeros = grad.new_zeros(ctx.values_shape)
        grad_base = WriteIntoView.apply(grad, zeros, ctx.geometry)
        grad_values = grad.as_strided(*ctx.geometry)
        return grad_base, grad_values, None


def _copy_in_layout(t: Tensor, strides: tuple[int, ...]) -> Tensor:
    """A copy of ``t`` in a new storage laid out with ``strides`` (dense, any order)."""
    out = Tensor._empty(t._shape, t.dtype, t.device, strides)
    return dispatch.map("copy", out, t)


def _rebase_base_of_view(view: Tensor, result: Tensor) -> None:
    """Before ``view`` (a view of ``base``) is overwritten by ``result``, record that the
    whole base changes: its new history is "old base with the view's region replaced".
    The base must be dense (contiguous, or a transposed result such as ``(x.t() * 2)``)."""
    base = view._base
    dense = strides_in_order(base._shape, base._strides)
    if base._offset != 0 or any(n != 1 and a != b for n, a, b in zip(base._shape, base._strides, dense)):
        raise RuntimeError(
            "in-place operation on a view whose base is not contiguous is not supported "
            "with autograd; call .contiguous() on the base first"
        )
    geometry = (view._shape, view._strides, view._offset)
    new_base = WriteIntoView.apply(base._alias() if not base.requires_grad else base,
                                   result, geometry)  # fmt: skip
    base._grad_fn, base._output_nr, base._requires_grad = new_base.grad_fn, 0, True


def refresh_view_history(view: Tensor) -> None:
    """Renew the history of a view whose storage was written in place since its
    ``grad_fn`` was made: it now reads the region ``(shape, strides, offset)`` of its
    base, whatever the base's history has become. ``Tensor.grad_fn`` calls this."""
    view._history_version = view._version
    base = view._base
    if base.requires_grad:
        with enable_grad():
            fresh = base.as_strided(view._shape, view._strides, view._offset)
        view._grad_fn, view._output_nr, view._requires_grad = fresh.grad_fn, 0, True


# ----- the in-place methods -----------------------------------------------------------


def copy_(t: Tensor, src: Any) -> Tensor:
    """Copy ``src`` (broadcast to ``t``'s shape, converted to its dtype) into ``t``."""
    if is_number(src):
        return fill_(t, src)
    require_tensor("copy_", src, "other")  # PyTorch's message names it so
    if records_history(t, src):
        return apply_inplace(t, lambda old: src.expand(t.shape).to(t.dtype, device=t.device))
    check_inplace(t)  # only a write: ``src`` broadcast, converted, copied in
    if (src._storage is not t._storage or src._offset != t._offset or src._shape != t._shape
            or src._strides != t._strides):  # fmt: skip
        write(t, src)  # (a tensor copied onto itself, ``x[i] += 1``'s second half, changes nothing)
    else:
        t._bump_version()
    return t


class Fill(Function):
    """y = a constant;  dy/dx = 0 (the old values no longer matter)."""

    @staticmethod
    def forward(ctx: FunctionCtx, old: Tensor, value: Any) -> Tensor:
        return Tensor._full(old._shape, value, old.dtype, old.device)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        return grad * 0, None


def fill_(t: Tensor, value: Any) -> Tensor:
    """Set every element to ``value`` (a number or a 0-d tensor)."""
    if isinstance(value, Tensor):
        return apply_inplace(t, lambda old: value.expand(t.shape).to(t.dtype))
    check_scalar_fits(value, t.dtype)
    if t.dtype is bool_:
        value = bool(value)  # any number is a truth value (even one beyond int64)
    if not records_history(t, value):  # no history to record (zero_grad's case):
        check_inplace(t)  # write the value at once, from one cell broadcast
        write(t, scalar_tensor(value, t.dtype, t))
        return t
    return apply_inplace(t, lambda old: Fill.apply(old, value))


def zero_(t: Tensor) -> Tensor:
    return fill_(t, 0)


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    """Overwrite ``t`` with numbers drawn uniformly from ``[a, b)``."""
    return copy_(t, uniform_values(t, a, b, generator))


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Overwrite ``t`` with numbers drawn from the normal distribution ``N(mean, std^2)``."""
    return copy_(t, normal_values(t, mean, std, generator))


def zip_into(t: Tensor, op: str, other: Any) -> bool:
    """``add_``/``sub_``/``mul_``/``div_`` as one ``zip`` kernel writing straight into
    ``t``'s storage, with no temporary and no copy (an optimizer's update under
    ``no_grad``, ``p.sub_(lr * p.grad)``): ``apply_zip_into`` of
    ``minitorch/ops/elementwise.py``, when the write records no history. Returns False
    (doing nothing) when the general recipe is needed: a graph to record, a dtype change,
    a shape change, or ``other`` overlapping ``t``."""
    if records_history(t, other):
        return False
    return apply_zip_into(op, t, other)


def records_history(t: Tensor, value: Any) -> bool:
    """Whether writing ``value`` into ``t`` in place must record a graph: grad mode on and
    ``t`` or ``value`` needing a gradient. Then ``apply_inplace``'s recipe rewrites ``t``'s
    history; otherwise the write is only a write."""
    return is_grad_enabled() and (t.requires_grad or (isinstance(value, Tensor) and value.requires_grad))


def add_(t: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if alpha == 1 and zip_into(t, "add", other):
        return t
    return apply_inplace(t, lambda old: old.add(other, alpha=alpha))


def sub_(t: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if alpha == 1 and zip_into(t, "sub", other):
        return t
    return apply_inplace(t, lambda old: old.sub(other, alpha=alpha))


def mul_(t: Tensor, other: Any) -> Tensor:
    if zip_into(t, "mul", other):
        return t
    return apply_inplace(t, lambda old: old * other)


def div_(t: Tensor, other: Any) -> Tensor:
    if zip_into(t, "div", other):
        return t
    return apply_inplace(t, lambda old: old / other)


def resize_(t: Tensor, *sizes: Any) -> Tensor:
    """Give ``t`` the shape ``sizes`` with row-major strides, keeping its storage offset.

    The storage grows when it is too small (its old cells kept, the new ones zero); the
    values ``t`` reads afterwards are whatever its storage holds there, as in PyTorch.
    ``out=`` uses this to fit an output to its result."""
    if t.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = sizes_from(sizes)
    needed = t._offset + checked_numel(shape)
    if needed > len(t._storage):
        grown = Tensor._full((needed,), 0, t.dtype, t.device)
        old = len(t._storage)
        dispatch.map("copy", grown._view((old,), (1,), 0), t._view((old,), (1,), 0))
        t._storage = grown._storage
    t._shape, t._strides = shape, contiguous_strides(shape)
    return t


# ----- the in-place variant of every op: ``x.sin_()`` is ``x.copy_(x.sin())`` ----------------

# Each name is a Tensor method ``f``; ``f_`` computes ``f`` out of place and writes the
# result back with ``apply_inplace`` (autograd's rules included). A new op gets its
# in-place form by adding its name here; names of ops not written yet are skipped.
INPLACE_VARIANTS = """
    abs neg exp log log10 log2 log1p sqrt arccos arcsin arctan nan_to_num rsqrt sin cos tan
    tanh sigmoid relu erf reciprocal sign
    floor ceil round trunc frac square logical_not bitwise_not asin acos atan sinh cosh
    floor_divide remainder pow clamp clip clamp_min clamp_max atan2 eq ne lt le gt ge
    logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor
    bitwise_left_shift bitwise_right_shift masked_fill index_fill scatter scatter_add
    addcmul addcdiv lerp tril triu cumsum cumprod
""".split()

# The in-place methods PyTorch also has as functions, ``torch.sin_(x)``.
NAMESPACE_INPLACE = """
    addmv_ index_put_
    abs_ acos_ arccos_ arcsin_ arctan_ as_strided_ asin_ atan_ ceil_ clamp_ clamp_max_
    clamp_min_ clip_ cos_ cosh_ detach_ erf_ exp_ fill_ floor_ log10_ log1p_ log2_ log_
    nan_to_num_ neg_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ sin_ sinh_ sqrt_ square_
    tan_ tanh_ zero_
""".split()



def namespace_function(name: str) -> Callable:
    """``minitorch.sin_(x)``: the method ``x.sin_()`` called as a function, with PyTorch's
    TypeError when ``x`` is not a tensor."""
    method = getattr(Tensor, name)

    def function(x: Any, *args: Any, **kwargs: Any) -> Tensor:
        require_tensor(name, x)
        return method(x, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    return function


# The same for views: ``x.t_()`` gives ``x`` itself the layout ``x.t()`` would have.
VIEW_INPLACE_VARIANTS = ["unsqueeze", "squeeze", "t", "transpose", "as_strided"]


def inplace_variant(function: Callable) -> Callable:
    """The in-place method made from an out-of-place op ``function``."""

    def method(t: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return apply_inplace(t, lambda old: function(old, *args, **kwargs))

    method.__name__ = f"{function.__name__}_"
    method.__doc__ = f"In-place version of ``{function.__name__}``: ``t`` is overwritten."
    return method


def view_inplace_variant(function: Callable) -> Callable:
    """``t`` takes the layout of the view ``function(t, ...)`` (same storage, nothing
    copied); its history becomes the view's (``UnsqueezeBackward0`` etc.)."""

    def method(t: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if is_grad_enabled() and t.is_leaf and t.requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
        view = function(t, *args, **kwargs)
        if view._requires_grad:
            t._grad_fn, t._output_nr = view._grad_fn, view._output_nr
        t._shape, t._strides, t._offset = view._shape, view._strides, view._offset
        t._bump_version()
        t._history_version = t._version  # the layout changed, not the values: keep the node
        return t

    method.__name__ = f"{function.__name__}_"
    method.__doc__ = f"In-place version of ``{function.__name__}``: ``t`` itself becomes the view."
    return method


def variants(methods: dict[str, Callable]) -> dict[str, Callable]:
    """``{"sin_": ..., "t_": ...}``: the in-place methods of the ops in ``methods``."""
    made = {f"{name}_": inplace_variant(methods[name]) for name in INPLACE_VARIANTS if name in methods}
    made.update({f"{name}_": view_inplace_variant(methods[name]) for name in VIEW_INPLACE_VARIANTS})
    return made
