"""``minitorch.special``: PyTorch's ``torch.special`` namespace, the special functions of
probability and statistics, each one elementwise op.

* the normal distribution, ``ndtr``, ``log_ndtr``, ``ndtri``, and ``erfcx``:
  ``minitorch/ops/normal_distribution.py``;
* the Bessel functions ``i0e``, ``i1``, ``i1e``: ``minitorch/ops/bessel.py`` (``i0``:
  ``minitorch/ops/special_math.py``, with ``digamma`` (``psi``), ``gammaln``,
  ``multigammaln``, ``erfc``, ``erfinv``, ``expm1``);
* ``zeta``, ``polygamma``, ``gammainc``, ``gammaincc``: ``minitorch/ops/zeta_gamma.py``;
* ``entr``, ``xlog1py`` (beside ``xlogy``, ``exp2``, ``logit``, ``sinc``):
  ``minitorch/ops/exp_log_formulas.py``;
* ``erf``, ``expit`` (the sigmoid), ``log1p``, ``round``, ``softmax``, ``log_softmax``,
  ``logsumexp``: the ops of the same names in ``minitorch``.

Each takes PyTorch's keyword names and ``out=``, as ``minitorch.<op>`` does. Left out,
with the reason in ``docs/api-coverage.md``: the orthogonal polynomials (Chebyshev,
Hermite, Laguerre, Legendre) and the Bessel and Airy functions beyond ``i0``/``i1``,
which belong to scientific computing; asking for one raises an AttributeError that says so.
"""

from __future__ import annotations

from typing import Any

from minitorch.ops.bessel import i0e, i1, i1e
from minitorch.ops.exp_log_formulas import entr, exp2, logit, sinc, xlog1py, xlogy
from minitorch.ops.log_tan_round import round  # noqa: A004 (PyTorch's name)
from minitorch.ops.normal_distribution import erfcx, log_ndtr, ndtr, ndtri
from minitorch.ops.out import functional_form
from minitorch.ops.reduce import logsumexp
from minitorch.ops.softmax import log_softmax, softmax
from minitorch.ops.special_math import digamma, erfc, erfinv, expm1, i0, lgamma, mvlgamma
from minitorch.ops.unary import erf, log1p, sigmoid
from minitorch.ops.zeta_gamma import igamma, igammac, polygamma, zeta

_NAMES = {
    "digamma": digamma, "psi": digamma, "entr": entr, "erf": erf, "erfc": erfc, "erfcx": erfcx,
    "erfinv": erfinv, "exp2": exp2, "expit": sigmoid, "expm1": expm1, "gammainc": igamma,
    "gammaincc": igammac, "gammaln": lgamma, "i0": i0, "i0e": i0e, "i1": i1, "i1e": i1e,
    "log1p": log1p, "log_ndtr": log_ndtr, "log_softmax": log_softmax, "logit": logit,
    "logsumexp": logsumexp, "multigammaln": mvlgamma, "ndtr": ndtr, "ndtri": ndtri,
    "polygamma": polygamma, "round": round, "sinc": sinc, "softmax": softmax,
    "xlog1py": xlog1py, "xlogy": xlogy, "zeta": zeta,
}  # fmt: skip

# PyTorch's name for each (``out=`` follows the op's own name: ``psi`` is ``digamma``'s)
globals().update({name: functional_form(function.__name__, function) for name, function in _NAMES.items()})

__all__ = sorted(_NAMES)

SCIENTIFIC = ("airy_", "bessel_", "chebyshev_", "hermite_", "laguerre_", "legendre_", "modified_bessel_",
              "scaled_modified_bessel_", "shifted_chebyshev_", "spherical_bessel_")  # fmt: skip


def __getattr__(name: str) -> Any:
    """A ``torch.special`` name minitorch leaves out says so (``docs/api-coverage.md``)."""
    if name.startswith(SCIENTIFIC):
        raise AttributeError(
            f"minitorch.special has no {name!r}: the orthogonal polynomials and the Bessel and "
            "Airy functions beyond i0/i1 are scientific computing, left out of minitorch "
            "(docs/api-coverage.md lists what is in and why)"
        )
    raise AttributeError(f"module 'minitorch.special' has no attribute {name!r}")
