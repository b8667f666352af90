"""The differentiable operations, each written once, and their place on ``Tensor``.

| file            | what                                                     |
| --------------- | -------------------------------------------------------- |
| ``unary.py``    | ``exp``, ``log``, ``relu``, ... (one ``map`` kernel each)   |
| ``binary.py``   | ``+ - * / **``, ``where``, ``clamp`` (``zip``)               |
| ``compare.py``  | ``==``, ``<``, ..., ``logical_and``, ``bitwise_and``, ``isclose`` |
| ``reduce.py``   | ``sum``, ``mean``, ``max``, ``softmax``, ... (``reduce``)  |
| ``shape.py``    | views (``view``, ``permute``, ``expand``...), ``cat``, ``flip`` |
| ``indexing.py`` | ``t[...]`` (views, or copies picked by index tensors)      |
| ``gather.py``   | ``gather``, ``scatter_add``, ``index_select``, ``masked_fill`` |
| ``linalg.py``   | ``matmul`` and friends                                   |
| ``inplace.py``  | ``add_``, ``copy_``, ``fill_``, every op's ``sin_``, ``t_``...  |
| ``composite.py``| ``addcmul``, ``lerp``, ``scatter``...: formulas of other ops |
| ``out.py``      | ``out=`` and ``input=``/``other=`` on every ``minitorch.<op>`` |
| ``convert.py``  | ``to``, ``float``, ``cpu``, ``cuda``                         |
| ``scan.py``     | ``cumsum``, ``cumprod`` (``scan``)                            |
| ``diagonals.py``| ``diagonal``, ``diag``, ``diag_embed``, ``tril``, ``triu``   |
| ``cross.py``    | ``cross``, ``linalg_cross``                                  |
| ``meshgrid.py`` | ``meshgrid`` (expanded views)                                |
| ``log_tan_round.py`` | ``tan``, ``log10``, ``log2``, ``round``                  |
| ``special_math.py`` | ``expm1``, ``lgamma``, ``digamma``, ``erfinv``, ``asinh``...  |
| ``float_parts.py`` | ``trunc``, ``frac``, ``copysign``, ``fmod``, ``fmax``, ``gcd``... |
| ``exp_log_formulas.py`` | ``exp2``, ``logaddexp``, ``xlogy``, ``hypot``, ``sinc``...  |
| ``aliases.py``  | ``absolute``, ``greater``, ``swapaxes``...: PyTorch's second names |
| ``rearrange.py``| ``repeat``, ``tile``, ``roll``, ``movedim``, ``view_as``     |
| ``median.py``   | ``median`` (from ``sort``)                                   |
| ``histogram.py``| ``bincount``, ``histc``, ``histogram``, ``searchsorted``     |
| ``storage.py``  | ``untyped_storage``, ``storage``, ``data_ptr``, ``nbytes``   |
| ``products.py`` | ``addmm``, ``baddbmm``, ``inner``, ``kron``, ``trace``, ``matrix_power`` |
| ``stacking.py`` | ``hstack``, ``tensor_split``, ``rot90``, ``select_scatter``... |
| ``index_update.py`` | ``index_add``, ``index_put``, ``take``, ``scatter_reduce``, ``isin`` |
| ``statistics.py`` | ``nanmean``, ``cummax``, ``kthvalue``, ``mode``, ``quantile``... |
| ``covariance.py`` | ``cov``, ``corrcoef``, ``trapezoid``                          |
| ``runs.py``     | ``repeat_interleave``, ``unique_consecutive``, ``unfold``       |
| ``grids.py``    | ``logspace``, ``tril_indices``, ``vander``, ``empty_strided``   |
| ``method_forms.py`` | ``t.bernoulli()``, ``fill``, ``rsub``, ``logical_xor``, ``renorm``, ``set_`` |
| ``index_positions.py`` | ``unravel_index``, ``fill_diagonal_``, ``index_reduce``...   |
| ``tensor_queries.py`` | ``is_cpu``, ``layout``, ``H``, ``retains_grad``, ``as_subclass``... |

Below, the table ``METHODS`` makes each function a ``Tensor`` method too, so that
``minitorch.exp(x)`` and ``x.exp()`` are the same code.
"""

from __future__ import annotations

from typing import Any

from minitorch import autograd, creation, legacy_constructors
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.autograd.node import gradient_edge
from minitorch.ops import (
    aliases,
    binary,
    choice,
    cholesky,
    compare,
    composite,
    convert,
    covariance,
    cross,
    diagonals,
    gather,
    grids,
    histogram,
    householder,
    index_positions,
    index_update,
    indexing,
    inplace,
    linalg,
    log_tan_round,
    lu,
    lu_composites,
    matrix_exp,
    median,
    method_forms,
    products,
    pseudoinverse,
    qr,
    random_distributions,
    random_inplace,
    rearrange,
    reduce,
    runs,
    scan,
    shape,
    softmax,
    solve,
    sort,
    stacking,
    statistics,
    storage,
    svd,
    tensor_queries,
    triangular,
    trigonometric,
    unary,
)
from minitorch.ops.common import KEEPDIMS_REDUCTIONS, accepts_keepdims


def backward(t: Tensor, gradient: Tensor | None = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:  # fmt: skip
    """Compute the gradient of ``t`` with respect to every leaf, into their ``.grad``
    (with ``inputs``: with respect to those tensors only)."""
    autograd.backward(t, gradient, retain_graph, create_graph, inputs=inputs)


def register_hook(t: Tensor, hook: Any) -> Any:
    """Call ``hook(grad)`` when ``t``'s gradient is computed; it may return a new one."""
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    node, output_nr = gradient_edge(t)
    hooks = node.hooks_of(output_nr)
    hooks.append(hook)
    if t.is_leaf:  # the leaf keeps the hooks (not the node: that would be a cycle)
        t._backward_hooks = node.tensor_hooks
    return _RemovableHandle(hooks, hook)


def register_post_accumulate_grad_hook(t: Tensor, hook: Any) -> Any:
    """Call ``hook(t)`` after ``t.grad`` has received a backward's gradient (leaves only)."""
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if t._post_accumulate_grad_hooks is None:
        t._post_accumulate_grad_hooks = []
    t._post_accumulate_grad_hooks.append(hook)
    return _RemovableHandle(t._post_accumulate_grad_hooks, hook)


class _RemovableHandle:
    def __init__(self, hooks: list, hook: Any) -> None:
        self.hooks, self.hook = hooks, hook

    def remove(self) -> None:
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


def retain_grad(t: Tensor) -> None:
    """Keep ``.grad`` for a non-leaf tensor too (leaves always keep theirs)."""
    if not t.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t.is_leaf or t._retains_grad:
        return
    t._retains_grad = True
    t.grad_fn.retain(t)


def _reflect(function: Any) -> Any:
    return binary.reversed_operands(function)


def _divided_into(self: Tensor, other: Any) -> Tensor:
    """``2 / t``: PyTorch computes it as ``t.reciprocal() * 2`` (two roundings, not one
    division), so we do too, and print the same last digits."""
    if not (binary.is_number(other) or isinstance(other, Tensor)):
        return NotImplemented
    return binary.mul(unary.reciprocal(self), other)


def _operator(function: Any) -> Any:
    return binary.operator_form(function)


def _iop(inplace_function: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        return inplace_function(self, other)

    return method


def _shift_into(shift: Any) -> Any:
    """``t <<= other`` and ``t >>= other``: the shifted ``t`` written back into ``t``."""

    def method(self: Tensor, other: Any) -> Tensor:
        return inplace.apply_inplace(self, lambda old: shift(old, other))

    return method


def _where_method(t: Tensor, condition: Tensor, other: Any) -> Tensor:
    """``t.where(condition, other)``: ``t`` where ``condition`` holds, else ``other``."""
    return choice.where(condition, t, other)


def _sum_like(function: Any) -> Any:
    def method(t: Tensor, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
        return function(t, dim, keepdim, **kwargs)

    method.__doc__ = function.__doc__
    return method


METHODS: dict[str, Any] = {
    # unary
    "neg": unary.neg, "abs": unary.abs, "exp": unary.exp, "log": unary.log,
    "log1p": unary.log1p, "sqrt": unary.sqrt, "rsqrt": unary.rsqrt, "sin": trigonometric.sin,
    "cos": trigonometric.cos, "tanh": unary.tanh, "sigmoid": unary.sigmoid, "relu": unary.relu,
    "erf": unary.erf,
    "asin": trigonometric.asin, "acos": trigonometric.acos, "atan": trigonometric.atan,
    "arcsin": trigonometric.asin, "arccos": trigonometric.acos, "arctan": trigonometric.atan,
    "sinh": trigonometric.sinh, "cosh": trigonometric.cosh,
    "nan_to_num": unary.nan_to_num,
    "reciprocal": unary.reciprocal, "sign": unary.sign, "floor": unary.floor,
    "ceil": unary.ceil, "logical_not": unary.logical_not, "bitwise_not": unary.bitwise_not,
    "square": unary.square,
    "isnan": unary.isnan, "isinf": unary.isinf, "isfinite": unary.isfinite,
    "tan": log_tan_round.tan, "log10": log_tan_round.log10, "log2": log_tan_round.log2,
    "round": log_tan_round.round,
    # binary
    "add": binary.add, "sub": binary.sub, "mul": binary.mul, "div": binary.div,
    "floor_divide": binary.floor_divide, "remainder": binary.remainder, "pow": binary.pow,
    "maximum": choice.maximum, "minimum": choice.minimum, "clamp": choice.clamp,
    "clip": choice.clamp, "eq": compare.eq, "ne": compare.ne, "lt": compare.lt, "le": compare.le,
    "gt": compare.gt, "ge": compare.ge, "logical_and": compare.logical_and,
    "logical_or": compare.logical_or, "bitwise_and": compare.bitwise_and,
    "bitwise_or": compare.bitwise_or, "bitwise_xor": compare.bitwise_xor, "where": _where_method,
    "bitwise_left_shift": binary.bitwise_left_shift,
    "bitwise_right_shift": binary.bitwise_right_shift,
    "atan2": binary.atan2, "arctan2": binary.atan2,
    "isclose": compare.isclose, "allclose": compare.allclose, "equal": compare.equal,
    # reductions
    "sum": reduce.sum, "mean": reduce.mean, "prod": reduce.prod, "max": reduce.max,
    "min": reduce.min, "amax": reduce.amax, "amin": reduce.amin, "argmax": reduce.argmax,
    "argmin": reduce.argmin, "var": reduce.var, "std": reduce.std,
    "logsumexp": reduce.logsumexp, "all": reduce.all, "any": reduce.any,
    "softmax": softmax.softmax, "log_softmax": softmax.log_softmax, "norm": reduce.norm,
    # shape and views
    "view": shape.view, "reshape": shape.reshape, "permute": shape.permute,
    "transpose": shape.transpose, "t": shape.t, "unsqueeze": shape.unsqueeze,
    "squeeze": shape.squeeze, "expand": shape.expand, "expand_as": shape.expand_as,
    "flatten": shape.flatten, "unflatten": shape.unflatten, "narrow": shape.narrow,
    "select": shape.select, "as_strided": shape.as_strided, "split": shape.split,
    "chunk": shape.chunk, "unbind": shape.unbind, "contiguous": shape.contiguous,
    "clone": shape.clone, "flip": shape.flip,
    "repeat": rearrange.repeat, "tile": rearrange.tile, "roll": rearrange.roll,
    "movedim": rearrange.movedim, "moveaxis": rearrange.movedim,
    "view_as": rearrange.view_as, "reshape_as": rearrange.reshape_as,
    "nelement": Tensor.numel,
    # running sums, diagonals, cross product
    "cumsum": scan.cumsum, "cumprod": scan.cumprod, "tril": diagonals.tril,
    "triu": diagonals.triu, "diag": diagonals.diag, "diagonal": diagonals.diagonal,
    "diag_embed": diagonals.diag_embed, "cross": cross.cross,
    # indexing
    "__getitem__": indexing.getitem, "__setitem__": indexing.setitem,
    "gather": gather.gather, "scatter_add": gather.scatter_add,
    "index_select": gather.index_select, "masked_fill": gather.masked_fill,
    "nonzero": gather.nonzero,
    # linear algebra
    "matmul": linalg.matmul, "mm": linalg.mm, "bmm": linalg.bmm, "dot": linalg.dot,
    "mv": linalg.mv, "det": solve.det, "inverse": solve.inv, "svd": svd.svd,
    # sorting
    "sort": sort.sort, "argsort": sort.argsort, "msort": sort.msort, "topk": sort.topk,
    "unique": sort.unique,
    # in place
    "add_": inplace.add_, "sub_": inplace.sub_, "mul_": inplace.mul_, "div_": inplace.div_,
    "zero_": inplace.zero_, "fill_": inplace.fill_, "copy_": inplace.copy_,
    "resize_": inplace.resize_, "uniform_": inplace.uniform_, "normal_": inplace.normal_,
    "bernoulli_": random_inplace.bernoulli_, "exponential_": random_inplace.exponential_,
    "random_": random_inplace.random_,
    # (and every op's own in-place form: sin_, clamp_, t_... see below)
    # formulas of other ops
    "addcmul": composite.addcmul, "addcdiv": composite.addcdiv, "lerp": composite.lerp,
    "clamp_min": composite.clamp_min, "clamp_max": composite.clamp_max,
    "index_fill": composite.index_fill, "scatter": composite.scatter,
    "outer": composite.outer, "ger": composite.outer, "diff": composite.diff,
    # counting and order statistics
    "median": median.median, "bincount": histogram.bincount, "histc": histogram.histc,
    "histogram": histogram.histogram,
    # conversions
    "to": convert.to, "cpu": convert.cpu, "cuda": convert.cuda, "float": convert.float,
    "double": convert.double, "long": convert.long, "int": convert.int,
    "bool": convert.bool, "half": convert.half, "bfloat16": convert.bfloat16,
    "short": convert.short, "char": convert.char, "byte": convert.byte,
    "type": convert.type, "type_as": convert.type_as,
    # new tensors like this one
    "new_zeros": creation.new_zeros, "new_ones": creation.new_ones,
    "new_full": creation.new_full, "new_empty": creation.new_empty,
    "new_tensor": creation.new_tensor, "new": legacy_constructors.new,
    # the storage under the tensor
    "untyped_storage": storage.untyped_storage, "storage": storage.storage,
    "data_ptr": storage.data_ptr,
    # autograd
    "backward": backward, "register_hook": register_hook, "retain_grad": retain_grad,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "_refresh_view_history": inplace.refresh_view_history,
    # operators
    "__add__": _operator(binary.add),
    "__radd__": _reflect(binary.add),
    "__sub__": _operator(binary.sub),
    "__rsub__": _reflect(binary.sub),
    "__mul__": _operator(binary.mul),
    "__rmul__": _reflect(binary.mul),
    "__truediv__": _operator(binary.div),
    "__rtruediv__": _divided_into, "__rdiv__": _divided_into,  # __rdiv__: Python 2's name, torch keeps it
    "__floordiv__": _operator(binary.floor_divide), "__rfloordiv__": _reflect(binary.floor_divide),
    "__mod__": _operator(binary.remainder), "__rmod__": _reflect(binary.remainder),
    "__pow__": _operator(binary.pow),
    "__rpow__": _reflect(binary.pow),
    "__matmul__": _operator(linalg.matmul), "__rmatmul__": _reflect(linalg.matmul),
    "__neg__": unary.neg, "__pos__": lambda t: t, "__abs__": unary.abs,
    "__invert__": unary.invert,
    "__and__": _operator(compare.bitwise_and), "__or__": _operator(compare.bitwise_or),
    "__xor__": _operator(compare.bitwise_xor),
    "__rand__": _reflect(compare.bitwise_and), "__ror__": _reflect(compare.bitwise_or),
    "__rxor__": _reflect(compare.bitwise_xor),
    "__lshift__": _operator(binary.bitwise_left_shift),
    "__rlshift__": _reflect(binary.bitwise_left_shift),
    "__rshift__": _operator(binary.bitwise_right_shift),
    "__rrshift__": _reflect(binary.bitwise_right_shift),
    "__ilshift__": _shift_into(binary.bitwise_left_shift),
    "__irshift__": _shift_into(binary.bitwise_right_shift),
    "__eq__": _operator(compare.eq), "__ne__": _operator(compare.ne),
    "__lt__": compare.lt, "__le__": compare.le, "__gt__": compare.gt, "__ge__": compare.ge,
    "__iadd__": _iop(inplace.add_), "__isub__": _iop(inplace.sub_),
    "__imul__": _iop(inplace.mul_), "__itruediv__": _iop(inplace.div_),
}  # fmt: skip

for _module in (products, stacking, index_update, statistics, covariance, runs, grids,
                random_distributions, lu_composites, pseudoinverse, matrix_exp, cholesky,
                triangular, lu, qr, householder):  # each lists its own
    METHODS.update(_module.METHODS)
for _module in (method_forms, index_positions, tensor_queries):  # second forms, positions, queries
    METHODS.update(_module.METHODS)
METHODS.update({name: accepts_keepdims(METHODS[name]) for name in KEEPDIMS_REDUCTIONS})
METHODS.update(aliases.methods())  # expm1, hypot, absolute, greater...: aliases.py
METHODS.update(inplace.variants(METHODS))  # sin_, clamp_, t_, ...: one list in inplace.py

for _name, _function in METHODS.items():
    setattr(Tensor, _name, _function)

Tensor.nbytes = property(storage.nbytes)
Tensor.itemsize = property(storage.itemsize)
Tensor.T = property(lambda t: t.permute(tuple(reversed(range(t.ndim)))))
Tensor.mT = property(lambda t: t.transpose(-2, -1))
tensor_queries.install()  # is_cpu, layout, H, retains_grad...: properties
Tensor.__hash__ = object.__hash__  # __eq__ is elementwise, so hash by identity

__all__ = ["METHODS", "is_grad_enabled"]
