"""PyTorch's second names for ops (``absolute`` is ``abs``, ``greater`` is ``gt``,
``swapaxes`` is ``transpose``...: NumPy's spellings, kept by PyTorch), and the tables that
put them and the elementwise math of ``special_math.py``, ``float_parts.py`` and
``exp_log_formulas.py`` on ``Tensor`` (``METHODS``) and in ``minitorch`` (``FUNCTIONS``).

An alias is the same function object as the op it names, as in PyTorch, so
``x.absolute()`` runs exactly the code of ``x.abs()``. In-place forms (``x.expm1_()``)
are made by ``minitorch/ops/inplace.py``'s ``inplace_variant``: compute, then write
the result back into ``x``.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.dtypes import bool_
from minitorch.ops import (
    binary,
    compare,
    exp_log_formulas,
    float_parts,
    shape,
    special_math,
    unary,
    zeta_gamma,
)
from minitorch.ops.common import require_tensor
from minitorch.ops.inplace import inplace_variant, view_inplace_variant


def positive(x: Tensor) -> Tensor:
    """``+x``: ``x`` itself (refused for bool, as PyTorch's ``+`` is)."""
    require_tensor("positive", x)
    if x.dtype is bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return x


def ndimension(x: Tensor) -> int:
    """The number of dimensions, ``x.dim()``."""
    return x.dim()


NEW_OPS: dict[str, Any] = {
    name: getattr(module, name)
    for module, names in (
        (special_math, "expm1 asinh acosh atanh erfc lgamma digamma erfinv mvlgamma i0"),
        (float_parts, "trunc fix frac signbit copysign isposinf isneginf isreal ldexp "
                      "float_power fmod fmax fmin heaviside gcd lcm frexp nextafter angle"),
        (zeta_gamma, "igamma igammac"),
        (exp_log_formulas, "exp2 deg2rad rad2deg sinc logit xlogy logaddexp logaddexp2 hypot"),
    )
    for name in names.split()
}  # fmt: skip

absolute = unary.abs
arccosh, arcsinh, arctanh = special_math.acosh, special_math.asinh, special_math.atanh
greater, greater_equal, less, less_equal = compare.gt, compare.ge, compare.lt, compare.le
not_equal = compare.ne
multiply, divide, true_divide, subtract = binary.mul, binary.div, binary.div, binary.sub
negative = unary.neg
swapaxes = swapdims = shape.transpose
sgn = unary.sign  # the sign; for complex numbers (which minitorch lacks) z / |z|

ALIASES: dict[str, Any] = {
    name: globals()[name]
    for name in """absolute arccosh arcsinh arctanh greater greater_equal less less_equal
    not_equal multiply divide subtract negative true_divide swapaxes swapdims sgn
    positive""".split()
}

FUNCTIONS: dict[str, Any] = {**NEW_OPS, **ALIASES}

# Tensor.X_ for these (PyTorch has them all); swapaxes_ and swapdims_ change the layout.
INPLACE = """
    expm1 asinh acosh atanh erfc lgamma digamma erfinv mvlgamma i0 fix copysign ldexp fmod
    heaviside gcd lcm exp2 deg2rad rad2deg sinc logit xlogy hypot absolute arccosh arcsinh
    arctanh greater greater_equal less less_equal not_equal multiply divide subtract
    negative true_divide sgn igamma igammac nextafter
""".split()  # (trunc_ and frac_ come with inplace.py's own list)

# ... and of those, the ones PyTorch also has as ``torch.X_(x)``.
NAMESPACE_INPLACE = """
    arccosh_ arcsinh_ arctanh_ negative_ fix_ acosh_ asinh_ atanh_ expm1_ exp2_ erfc_
    frac_ trunc_ sinc_ deg2rad_ rad2deg_ logit_ xlogy_ gcd_ lcm_ ldexp_ i0_
""".split()


def methods() -> dict[str, Any]:
    """The ``Tensor`` methods: every function above, its in-place form, and
    ``ndimension``/``arctan2_``."""
    table: dict[str, Any] = {**FUNCTIONS, "ndimension": ndimension, "polygamma": zeta_gamma.polygamma_method}
    table["polygamma_"] = inplace_variant(zeta_gamma.polygamma_method)  # x.polygamma_(n)
    table.update({f"{name}_": inplace_variant(FUNCTIONS[name]) for name in INPLACE})
    table.update(swapaxes_=view_inplace_variant(shape.transpose),
                 swapdims_=view_inplace_variant(shape.transpose),
                 arctan2_=inplace_variant(binary.atan2))  # fmt: skip
    return table
