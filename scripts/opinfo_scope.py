"""Which of PyTorch's OpInfo entries minitorch is measured against, and why the rest are not.

PyTorch tests every operator with the entries of
``torch.testing._internal.common_methods_invocations.op_db``: one ``OpInfo`` per op (and
per ``variant_test_name``), each able to make sample inputs for a device and a dtype.
minitorch uses the same entries as its differential oracle. An entry is *in scope* unless
one of the rules below leaves it out; every rule carries the reason written into
``docs/api-coverage.md``.

Two decisions a reader may question:

* **fft is out.** Every FFT takes or returns complex numbers, and minitorch has no complex
  dtype (see the namespace exclusions). Adding complex numbers is a course of its own.
* **torch.special is in, except its orthogonal polynomials and Bessel functions.** Most of
  ``torch.special`` are real functions a deep-learning student meets (``expit``, ``logit``,
  ``erf``, ``log_ndtr``, ``xlogy``, ``softmax``...), elementwise and differentiable like
  the rest of the op table. The Chebyshev/Hermite/Laguerre/Legendre polynomials and the
  Bessel and Airy functions belong to scientific computing, not to this course.
"""

from __future__ import annotations

# (test, reason): the first rule whose test accepts an op's name leaves it out.
PREFIX_RULES = (
    ("masked.", "masked reductions (torch.masked) are a prototype API built on MaskedTensor"),
    ("sparse.", "sparse layouts are not part of minitorch (dense strided tensors only)"),
    ("signal.", "signal windows (torch.signal.windows) are signal processing, not deep learning"),
    ("fft.", "every FFT takes or returns complex numbers, and minitorch has no complex dtype"),
    ("_", "private ATen operators (a leading underscore): not public API"),
)

SPECIAL_SCIENTIFIC = (
    "airy_", "bessel_", "modified_bessel_", "scaled_modified_bessel_", "spherical_bessel_",
    "chebyshev_polynomial_", "shifted_chebyshev_polynomial_", "hermite_polynomial_",
    "laguerre_polynomial_", "legendre_polynomial_",
)  # fmt: skip

COMPLEX_ONLY = {
    "complex", "polar", "view_as_complex", "view_as_real", "conj_physical", "resolve_conj",
    "resolve_neg", "real", "imag", "conj", "cfloat", "cdouble", "chalf",
}  # fmt: skip

# Real inputs, complex results: a general matrix's eigenvalues, a short-time spectrum.
COMPLEX_RESULTS = {"linalg.eig", "linalg.eigvals", "stft"}

# Results of a dtype minitorch does not have.
UNSIGNED_64 = {"hash_tensor"}

QUANTIZED_WORDS = ("quantize", "quantized", "qint", "int_repr")

JITERATOR_WORDS = ("jiterator",)


def exclusion_reason(op) -> str | None:
    """Why the OpInfo entry ``op`` is out of scope, or None when minitorch is measured on it."""
    name = op.name
    for prefix, reason in PREFIX_RULES:
        if name.startswith(prefix) and not name.startswith("__"):
            return reason
    if name.startswith("special.") and name[len("special.") :].startswith(SPECIAL_SCIENTIFIC):
        return "orthogonal polynomials and Bessel/Airy functions: scientific computing, not deep learning"
    if name.endswith("_copy") and name != "index_copy" and is_view_op(name.removesuffix("_copy")):
        return "the *_copy variants exist for compilers (a view op that returns a copy)"
    if name in COMPLEX_ONLY:
        return "defined for complex numbers (or their views), and minitorch has no complex dtype"
    if name in COMPLEX_RESULTS:
        return ("real inputs with complex results (eigenvalues of a general matrix, a spectrum), "
                "and minitorch has no complex dtype")
    if name == "to_sparse":
        return "sparse layouts are not part of minitorch (dense strided tensors only)"
    if name in UNSIGNED_64:
        return "returns uint64, a dtype minitorch does not have (its unsigned integer is uint8)"
    if calls_aten_only(op):
        return "called through torch.ops.aten, PyTorch's dispatcher, with no public torch function of that name"  # noqa: E501
    if any(word in name for word in QUANTIZED_WORDS):
        return "quantization (integer storage with a scale and zero point) is not part of minitorch"
    if any(word in name for word in JITERATOR_WORDS):
        return "jiterator runs user CUDA source through PyTorch's JIT compiler"
    if not set(TESTED_DTYPE_NAMES) & {str(d).removeprefix("torch.") for d in op.supported_dtypes("cpu")}:
        return "no float32, float64 or int64 sample on the CPU"
    return None


def is_torch_function(name: str) -> bool:
    """Whether ``torch.<name>`` (dotted: ``nn.functional.pad``) or ``Tensor.<name>`` exists."""
    import torch

    value = torch
    for part in name.removeprefix("torch.").split("."):
        value = getattr(value, part, None)
    return value is not None or hasattr(torch.Tensor, name)


def is_view_op(name: str) -> bool:
    """A public view op, or ATen's ``alias`` (the view of the whole tensor)."""
    import torch

    return is_torch_function(name) or hasattr(torch.ops.aten, name)


def calls_aten_only(op) -> bool:
    """Whether the entry calls an operator of ``torch.ops.aten`` (directly, or in the wrapper
    the OpInfo file writes) that has no public torch function of its name (a private
    ``_name`` is not public either)."""
    target = op.op
    if type(target).__name__.startswith("OpOverload"):  # aten.<name>, or <name>.<overload>
        name = target.__name__.split(".")[0]
        return name.startswith("_") or not is_torch_function(name)
    code = getattr(target, "__code__", None)
    return code is not None and "aten" in code.co_names and not is_torch_function(op.name)


# The dtypes each in-scope op is sampled in: floats for values and gradients, int64 where
# the op takes integers.
TESTED_DTYPE_NAMES = ("float32", "float64", "int64")


def tested_dtypes(op) -> list:
    """The torch dtypes, of float32, float64 and int64, that ``op`` supports on the CPU."""
    import torch

    supported = op.supported_dtypes("cpu")
    return [getattr(torch, name) for name in TESTED_DTYPE_NAMES if getattr(torch, name) in supported]


def full_name(op) -> str:
    """``name`` or ``name.variant``: the op's name in tests and in the document."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def op_db():
    """PyTorch's OpInfo list (importing it takes seconds: deferred until asked for)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db as entries
    return entries


def split_scope(entries) -> tuple[list, list[tuple[str, str]]]:
    """(in-scope entries, [(full name, reason)] of the ones left out)."""
    kept, left_out = [], []
    for op in entries:
        reason = exclusion_reason(op)
        if reason is None:
            kept.append(op)
        else:
            left_out.append((full_name(op), reason))
    return kept, left_out
