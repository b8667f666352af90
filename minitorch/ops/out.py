"""``out=`` and PyTorch's keyword names, for every functional form at once.

PyTorch lets most functions write their result into a tensor the caller already owns::

    torch.add(a, b, out=c)          # c now holds a + b, and c is returned
    torch.zeros(2, 3, out=c)        # a factory: c becomes a 2 x 3 tensor of zeros

and lets callers name the arguments as its documentation does (``torch.add(input=a,
other=b)``, ``torch.matmul(input=a, other=b)``). Rather than teach every op both, each
public function ``minitorch.<name>`` is wrapped once, in ``minitorch/__init__.py``, by
``functional_form`` below. The op files stay as they are; their ``Tensor`` methods
(``a.add(b)``) are the unwrapped functions, as PyTorch's methods take no ``out=`` either.

What ``out=`` does, as in PyTorch:

1. **Autograd refuses it.** With grad mode on, an argument or ``out`` that requires grad
   raises: the write into ``out`` could not be differentiated.
2. **Compute** the result as usual (a new tensor).
3. **Check the dtype.** An op's result is cast to ``out``'s dtype when that loses no
   category (``float -> int`` is refused, ``int -> float`` allowed); a few ops (``matmul``
   and friends, ``argmax``) want exactly the result's dtype. A factory (``zeros``,
   ``arange``...) makes its values in ``out``'s dtype to begin with.
4. **Resize** ``out`` when its shape differs: silently when it is empty, with PyTorch's
   deprecation warning when it had elements.
5. **Write** the values into ``out``'s storage (every view of it sees them) and return
   ``out``; a function returning two tensors (``max(x, dim)``) takes a pair.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.dtypes import as_dtype
from minitorch.ops.inplace import resize_, write

# The public functions that take ``out=`` in PyTorch. A new op that PyTorch gives an
# ``out=`` gets it by adding its name here.
OPS_WITH_OUT = frozenset("""
    abs acos add addcdiv addcmul all amax amin any arccos arcsin arctan arctan2 argmax
    argmin asin atan atan2 bitwise_and bitwise_left_shift bitwise_not bitwise_or
    bitwise_right_shift bitwise_xor bmm cat ceil clamp clamp_max clamp_min clip concat
    concatenate cos cosh cross cumprod cumsum diag diff div divide dot eq erf exp floor
    floor_divide gather ge gt histc histogram index_select inverse le lerp log log10
    log1p log2 log_softmax logical_and logical_not logical_or logsumexp lt matmul max
    maximum mean min minimum mm msort mul multiply mv nan_to_num ne neg negative nonzero
    norm outer pow prod reciprocal remainder round rsqrt scatter scatter_add searchsorted
    sigmoid sign sin sinh softmax sort sqrt square stack std sub subtract sum svd tan tanh
    tensordot topk tril triu true_divide var where bernoulli multinomial normal
    expm1 asinh acosh atanh erfc lgamma digamma erfinv mvlgamma i0 trunc fix frac signbit
    copysign ldexp float_power fmod fmax fmin heaviside gcd lcm exp2 deg2rad rad2deg sinc
    logit xlogy logaddexp logaddexp2 hypot absolute arccosh arcsinh arctanh greater
    greater_equal less less_equal not_equal sgn isposinf isneginf
    addbmm addmm addmv addr baddbmm inner kron vdot bucketize masked_select take_along_dim
    column_stack dstack hstack vstack narrow_copy logcumsumexp nanmean quantile nanquantile
    std_mean var_mean cholesky cholesky_inverse cholesky_solve logical_xor lu_solve renorm
    angle orgqr ormqr polygamma igamma igammac nextafter frexp entr erfcx i0e i1 i1e log_ndtr
    ndtr ndtri xlog1py zeta ldl_factor ldl_factor_ex ldl_solve
""".split())

FACTORIES_WITH_OUT = frozenset(
    "arange empty eye full linspace logspace ones rand randint randn randperm range zeros".split()
)

# Ops whose ``out`` must have exactly the result's dtype (PyTorch casts for the others).
EXACT_DTYPE = frozenset("argmax argmin bmm dot matmul mm mv nonzero".split())

# PyTorch's names for the first two arguments, and their position, for ops whose own
# parameters are named otherwise (``def add(a, b)`` is called as ``add(input=, other=)``).
TORCH_KEYWORDS = {"input": 0, "other": 1, "exponent": 1, "mat2": 1, "vec": 1, "tensor": 1}


def is_functional_form(name: str, value: Any) -> bool:
    """Whether ``minitorch.<name>`` is an op or a factory (a plain function from
    ``minitorch/ops/``, ``creation.py`` or ``random_factories.py``), which ``functional_form`` wraps."""
    module = getattr(value, "__module__", None) or ""
    return (inspect.isfunction(value) and not name.startswith("_")
            and module.startswith(("minitorch.ops.", "minitorch.creation",
                                   "minitorch.random_factories")))  # fmt: skip


def functional_form(name: str, function: Callable) -> Callable:
    """``function`` as ``minitorch.<name>``: accepting PyTorch's keyword names and, when
    PyTorch's has one, ``out=``. The returned function has ``function``'s docstring and
    signature (``inspect.signature`` follows ``__wrapped__``)."""
    parameters = list(inspect.signature(function).parameters.values())
    positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    is_op = function.__module__.startswith("minitorch.ops.")
    renames = {keyword: position for keyword, position in TORCH_KEYWORDS.items()
               if is_op and keyword not in positional and position < len(positional)}  # fmt: skip
    takes_out = name in OPS_WITH_OUT or name in FACTORIES_WITH_OUT

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not kwargs:  # the common call, ``minitorch.add(a, b)``: nothing to translate
            return function(*args)
        out = kwargs.pop("out", None)
        if renames and not renames.keys().isdisjoint(kwargs):
            args = _positional(name, args, kwargs, renames)
        if out is None:
            return function(*args, **kwargs)
        if not takes_out:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
        if name in FACTORIES_WITH_OUT:
            return _factory_into(name, function, args, kwargs, out)
        _refuse_autograd(name, args, kwargs, out)
        return _write_result(name, function(*args, **kwargs), out)

    return call


def _positional(name: str, args: tuple, kwargs: dict, renames: dict) -> tuple:
    """Move PyTorch's keyword arguments (``input=``, ``other=``) into their positions."""
    args = list(args)
    for keyword, position in sorted(renames.items(), key=lambda item: item[1]):
        if keyword not in kwargs:
            continue
        if position != len(args):
            raise TypeError(f"{name}() got multiple values for argument '{keyword}'")
        args.append(kwargs.pop(keyword))
    return tuple(args)


def _tensors_in(values: Any) -> list[Tensor]:
    """The tensors among arguments, looking one level into lists (``cat``'s tensors)."""
    found = []
    for value in values:
        if isinstance(value, Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, Tensor))
    return found


def _outs(name: str, out: Any) -> list[Tensor]:
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    for t in outs:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(t).__name__}")
    return outs


def _refuse_autograd(name: str, args: tuple, kwargs: dict, out: Any) -> None:
    if not is_grad_enabled():
        return
    tensors = _tensors_in(args) + _tensors_in(kwargs.values()) + _outs(name, out)
    if any(t.requires_grad for t in tensors):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )


def _write_result(name: str, result: Any, out: Any) -> Any:
    """Write ``result`` (a tensor, or a pair like ``max``'s) into ``out`` and return it."""
    outs = _outs(name, out)
    results = list(result) if isinstance(result, tuple) else [result]
    if len(outs) != len(results):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(results)} Tensors")
    for target, values in zip(outs, results):
        _check_dtype(name, values, target)
        if target.device != values.device:
            raise RuntimeError(
                f"Expected out tensor to be on device {values.device}, but got {target.device}"
            )
        _resize_for(target, values._shape)
        write(target, values)
    if isinstance(result, tuple):
        return type(result)(*outs) if hasattr(result, "_fields") else tuple(outs)
    return out


def _check_dtype(name: str, values: Tensor, target: Tensor) -> None:
    if name in EXACT_DTYPE and values.dtype is not target.dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {values.dtype}, but got {target.dtype} instead"
        )
    if values.dtype.category > target.dtype.category:
        raise RuntimeError(
            f"result type {values.dtype.type_name} can't be cast to the desired output type "
            f"{target.dtype.type_name}"
        )


def _resize_for(target: Tensor, shape: tuple[int, ...]) -> None:
    """Give ``target`` the result's shape, warning as PyTorch does if it had elements."""
    if target._shape == tuple(shape):
        return
    if target.numel() != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(target._shape)}, which does not match the required output shape "
            f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release "
            "outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning,
            stacklevel=4,
        )
    resize_(target, shape)


def _factory_into(name: str, factory: Callable, args: tuple, kwargs: dict, out: Any) -> Tensor:
    """``zeros(2, 3, out=c)``: the values are made in ``c``'s dtype and device (PyTorch
    refuses a different ``dtype=``), then ``c`` takes their shape, without a warning."""
    target = _outs(name, out)[0]
    dtype = kwargs.pop("dtype", None)
    if dtype is not None and as_dtype(dtype) is not target.dtype:
        raise RuntimeError(
            f"dtype {as_dtype(dtype).type_name} does not match dtype of out parameter "
            f"({target.dtype.type_name})"
        )
    _refuse_autograd(name, (), {}, target)
    kwargs.setdefault("device", target.device)
    values = factory(*args, dtype=target.dtype, **kwargs)
    if name == "arange" and target.numel() != values.numel():
        warnings.warn(
            f"The number of elements in the out tensor of shape {list(target._shape)} is "
            f"{target.numel()} which does not match the computed number of elements "
            f"{values.numel()}. Note that this may occur as a result of rounding error. The "
            f"out tensor will be resized to a tensor of shape ({values.numel()},).",
            UserWarning,
            stacklevel=3,
        )
    resize_(target, values._shape)
    write(target, values)
    return target
