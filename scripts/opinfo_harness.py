"""Run one of PyTorch's OpInfo samples on torch and on minitorch, and compare.

The loop, for one sample ``op(input, *args, **kwargs)``:

1. run it on torch; a sample torch refuses is not counted;
2. convert every tensor of the sample to a minitorch tensor over a *copy of its whole
   storage*, viewed with the same shape, strides and offset (``as_strided``), so
   non-contiguous, expanded (stride 0) and offset inputs reach minitorch as OpInfo made
   them; dtypes, sizes and memory formats become minitorch's;
3. run the minitorch callable for the op (``minitorch_callable``) and compare every
   output: type, shape, dtype, values (``torch.testing.assert_close``'s tolerances for
   the dtype, NaN equal to NaN);
4. backward: weight every floating output by a random cotangent ``c`` and differentiate
   ``sum(c * out)`` with respect to every input that requires a gradient, on both sides;
   compare the gradients (a missing gradient counts as zeros);
5. second order (``gradgrad``): differentiate ``sum(v * grad)`` once more, for a random
   ``v``.

Each result is ``None`` (passed) or the reason it failed: the exception's type and first
line, or ``value mismatch`` / ``dtype ...`` / ``shape ...``.
"""

from __future__ import annotations

import functools
import types
import warnings

import numpy as np
import torch

import minitorch

DTYPES = {
    torch.float32: minitorch.float32, torch.float64: minitorch.float64, torch.int64: minitorch.int64,
    torch.int32: minitorch.int32, torch.int16: minitorch.int16, torch.int8: minitorch.int8,
    torch.uint8: minitorch.uint8, torch.bool: minitorch.bool, torch.float16: minitorch.float16,
    torch.bfloat16: minitorch.bfloat16,
}  # fmt: skip
TORCH_DTYPES = {value: key for key, value in DTYPES.items()}


class Unconvertible(Exception):
    """A sample holds something minitorch has no counterpart for (a complex dtype...)."""


def reason_of(error: BaseException) -> str:
    """``TypeError: first line of the message``, at most 110 characters."""
    lines = str(error).strip().splitlines()
    first = lines[0] if lines else ""
    text = f"{type(error).__name__}: {first}" if first else type(error).__name__
    return text[:110]


# ---- torch -> minitorch ------------------------------------------------------------------


def to_minitorch(value, device: str = "cpu"):
    """The sample's ``value`` with every torch object replaced by minitorch's."""
    if isinstance(value, torch.Tensor):
        return tensor_to_minitorch(value, device)
    if isinstance(value, torch.dtype):
        if value not in DTYPES:
            raise Unconvertible(f"dtype {value}")
        return DTYPES[value]
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, torch.device):
        return minitorch.device(device)
    if isinstance(value, torch.memory_format):
        name = str(value).removeprefix("torch.")
        if not hasattr(minitorch, name):
            raise Unconvertible(f"memory format {name}")
        return getattr(minitorch, name)
    if isinstance(value, torch.Generator):
        raise Unconvertible("a torch.Generator argument")
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_minitorch(item, device) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_minitorch(item, device) for item in value)
    if isinstance(value, dict):
        return {key: to_minitorch(item, device) for key, item in value.items()}
    return value


def tensor_to_minitorch(t: torch.Tensor, device: str = "cpu"):
    """A minitorch tensor with ``t``'s values *and layout*: a copy of the whole storage,
    viewed with ``t``'s shape, strides and offset. Requires grad when ``t`` does."""
    if t.dtype not in DTYPES or t.is_sparse or t.layout != torch.strided:
        raise Unconvertible(f"tensor of {t.dtype}, {t.layout}")
    t = t.detach()
    cells = t.untyped_storage().nbytes() // t.element_size()
    whole = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage(), 0, (cells,), (1,))
    storage = minitorch.tensor(
        whole.numpy() if t.dtype != torch.bfloat16 else whole.float().numpy(), dtype=DTYPES[t.dtype]
    )
    if device != "cpu":
        storage = storage.to(device)
    result = storage.as_strided(tuple(t.shape), tuple(t.stride()), t.storage_offset())
    return result


def needs_grad(t) -> bool:
    return isinstance(t, torch.Tensor) and t.requires_grad


def tensors_of(value) -> list:
    """Every tensor inside ``value`` (nested lists, tuples, dicts), in order."""
    if isinstance(value, (torch.Tensor, minitorch.Tensor)):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in tensors_of(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in tensors_of(item)]
    return []


def to_torch(t) -> torch.Tensor:
    """A minitorch tensor's values as a torch tensor (for comparing)."""
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    dtype = TORCH_DTYPES.get(t.dtype, torch.float32)
    if t.dtype in (minitorch.bfloat16, minitorch.float16):
        t = t.float()
    return torch.from_numpy(np.asarray(t.numpy()).copy()).to(dtype)


# ---- which minitorch callable ------------------------------------------------------------


def resolve(path: str):
    """``minitorch.<path>`` by attribute (``nn.functional.relu``), or None when missing."""
    value = minitorch
    for part in path.split("."):
        try:
            value = getattr(value, part)
        except (AttributeError, NotImplementedError):
            return None
    return value


def seeded(function, *args, **kwargs):
    """OpInfo's ``wrapper_set_seed`` on minitorch: seed 42 (as there), then call."""
    with minitorch.random.fork_rng():
        minitorch.manual_seed(42)
        return function(*args, **kwargs)


def rebound(function: types.FunctionType) -> types.FunctionType:
    """OpInfo's own wrapper (a lambda calling ``x.float()`` or ``torch.foo(...)``) with
    ``torch`` in its globals replaced by ``minitorch``: the same call, on minitorch."""
    names = dict(function.__globals__)
    names["torch"] = minitorch
    if "F" in names:
        names["F"] = minitorch.nn.functional
    if "wrapper_set_seed" in names:
        names["wrapper_set_seed"] = seeded
    copy = types.FunctionType(
        function.__code__, names, function.__name__, function.__defaults__, function.__closure__
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    return copy


def minitorch_callable(op):
    """The minitorch function or method that OpInfo entry ``op`` calls, or None if missing.

    ``op.op`` is torch's callable: a torch function (looked up by the op's dotted name,
    then its aliases), a Tensor method (``__radd__``, ``__getitem__``, and those torch
    writes in Python, ``__rsub__``, ``__rdiv__``: called on the input), or a wrapper
    written in the OpInfo file (re-run with ``torch`` bound to minitorch)."""
    target = op.op
    if isinstance(target, functools.partial):
        inner = minitorch_callable(types.SimpleNamespace(op=target.func, name=op.name, aliases=op.aliases))
        return None if inner is None else functools.partial(inner, *target.args, **target.keywords)
    module = getattr(target, "__module__", None) or ""
    if isinstance(target, types.FunctionType) and module.startswith("torch.testing"):
        return rebound(target)
    in_python = module == "torch._tensor" and isinstance(target, types.FunctionType)
    if in_python or type(target).__name__ in ("method_descriptor", "wrapper_descriptor", "getset_descriptor"):
        method = getattr(minitorch.Tensor, target.__name__, None)
        return (
            None
            if method is None
            else (lambda x, *args, **kwargs: getattr(x, target.__name__)(*args, **kwargs))
        )
    for name in [op.name, *(alias.name for alias in op.aliases)]:
        found = resolve(name)
        if found is not None:
            return found
    return None


# ---- running and comparing ---------------------------------------------------------------


# ``{torch dtype: (rtol, atol)}`` in place of assert_close's defaults while ``run_op`` runs
# with a ``tolerance`` (as OpInfo's own ``toleranceOverride``); empty otherwise.
_tolerance: dict = {}


def compare(actual, expected, where: str = "output") -> str | None:
    """None when minitorch's ``actual`` equals torch's ``expected``, else why not."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, minitorch.Tensor):
            return f"{where}: {type(actual).__name__} instead of a tensor"
        if tuple(actual.shape) != tuple(expected.shape):
            return f"{where}: shape {tuple(actual.shape)}, torch {tuple(expected.shape)}"
        if TORCH_DTYPES.get(actual.dtype) != expected.dtype:
            return f"{where}: dtype {actual.dtype}, torch {expected.dtype}"
        try:
            rtol, atol = _tolerance.get(expected.dtype, (None, None))
            torch.testing.assert_close(to_torch(actual), expected.detach(), rtol=rtol, atol=atol,
                                       equal_nan=True, check_dtype=False)  # fmt: skip
        except AssertionError:
            return "value mismatch"
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return f"{where}: {type(actual).__name__} instead of {len(expected)} values"
        for index, (a, e) in enumerate(zip(actual, expected)):
            problem = compare(a, e, f"{where}[{index}]")
            if problem:
                return problem
        return None
    if isinstance(actual, minitorch.Tensor) and actual.dim() == 0:
        actual = actual.item()
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        return (
            None if np.isclose(actual, expected, rtol=1e-5, atol=1e-6, equal_nan=True) else "value mismatch"
        )
    return None if actual == expected else f"{where}: {actual!r}, torch {expected!r}"


# Factories whose values are whatever the memory held: only shape and dtype are compared.
UNINITIALIZED = {"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided", "empty_permuted"}


def metadata_only(value):
    """A tensor's shape and dtype, without its (uninitialized) values."""
    if isinstance(value, (torch.Tensor, minitorch.Tensor)):
        return (tuple(value.shape), str(value.dtype).removeprefix("torch.").removeprefix("minitorch."))
    return value


def call(function, sample_input, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(sample_input, *args, **kwargs)


def floating_outputs(outputs) -> list:
    return [t for t in tensors_of(outputs) if t.dtype in (torch.float32, torch.float64) and t.requires_grad]


class SampleRun:
    """One sample on both libraries: ``forward``, ``backward``, ``gradgrad`` each None
    (passed), a reason string (failed), or ``"n/a"`` (not checked)."""

    def __init__(self, op, sample, function, device: str = "cpu", gradgrad: bool = False, seed: int = 0):
        self.forward = self.backward = self.gradgrad = "n/a"
        self.torch_accepts = False
        try:  # before torch runs: an in-place op changes the sample
            mt_input, mt_args, mt_kwargs = to_minitorch((sample.input, sample.args, sample.kwargs), device)
            unconvertible = None
        except Unconvertible as error:
            unconvertible = f"not convertible: {error}"
        torch.manual_seed(seed)  # random ops: both generators give PyTorch's stream
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = op(sample.input, *sample.args, **sample.kwargs)
        except Exception:
            return
        self.torch_accepts = True
        if unconvertible:
            self.forward = unconvertible
            return
        pairs = [
            (t, m)
            for t, m in zip(
                tensors_of((sample.input, sample.args, sample.kwargs)),
                tensors_of((mt_input, mt_args, mt_kwargs)),
            )
            if needs_grad(t)
        ]
        for _, leaf in pairs:
            leaf.requires_grad_(True)
        minitorch.manual_seed(seed)
        try:
            actual = call(function, mt_input, mt_args, mt_kwargs)
        except Exception as error:
            self.forward = reason_of(error)
            return
        if op.name in UNINITIALIZED:
            expected = metadata_only(expected)
            actual = metadata_only(actual)
        try:
            self.forward = compare(actual, expected)
        except Exception as error:
            self.forward = f"comparing: {reason_of(error)}"
        if self.forward is not None or not pairs:
            return
        self.backward, grads = self._first_order(sample, expected, actual, pairs, seed, gradgrad)
        if gradgrad and self.backward is None and grads is not None:
            self.gradgrad = self._second_order(grads, pairs, seed)

    def _first_order(self, sample, expected, actual, pairs, seed, create_graph):
        process = sample.output_process_fn_grad
        try:
            expected_out = floating_outputs(process(expected))
            actual_out = [
                m
                for t, m in zip(tensors_of(expected), tensors_of(actual))
                if any(t is e for e in expected_out)
            ]
        except Exception as error:
            return f"output_process_fn_grad: {reason_of(error)}", None
        if not expected_out or len(actual_out) != len(expected_out):
            return "n/a", None
        generator = torch.Generator().manual_seed(seed)
        cotangents = [torch.randn(t.shape, dtype=t.dtype, generator=generator) for t in expected_out]
        torch_inputs = [t for t, _ in pairs]
        expected_grads = torch.autograd.grad(
            expected_out, torch_inputs, cotangents, allow_unused=True, create_graph=create_graph
        )
        expected_grads = [
            torch.zeros_like(t) if g is None else g for t, g in zip(torch_inputs, expected_grads)
        ]
        try:
            mt_cotangents = [tensor_to_minitorch(c, actual_out[0].device.type) for c in cotangents]
            usable = [(o, c) for o, c in zip(actual_out, mt_cotangents) if o.requires_grad]
            grads = [None] * len(pairs)  # an output that does not require grad contributes 0
            if usable:
                grads = minitorch.autograd.grad(
                    [o for o, _ in usable],
                    [m for _, m in pairs],
                    [c for _, c in usable],
                    allow_unused=True,
                    create_graph=create_graph,
                )
        except Exception as error:
            return reason_of(error), None
        for index, (grad, torch_grad) in enumerate(zip(grads, expected_grads)):
            if grad is None:
                grad = minitorch.zeros_like(pairs[index][1].detach())
            problem = compare(grad, torch_grad.detach(), f"grad[{index}]")
            if problem:
                return problem, None
        return None, (grads, expected_grads)

    def _second_order(self, grads, pairs, seed):
        mt_grads, torch_grads = grads
        generator = torch.Generator().manual_seed(seed + 1)
        torch_inputs = [t for t, _ in pairs]
        used = [i for i, g in enumerate(torch_grads) if g.requires_grad]
        if not used:
            return "n/a"
        weights = [
            torch.randn(torch_grads[i].shape, dtype=torch_grads[i].dtype, generator=generator) for i in used
        ]
        try:
            expected = torch.autograd.grad(
                [torch_grads[i] for i in used], torch_inputs, weights, allow_unused=True
            )
        except RuntimeError:  # torch has no second derivative here (ctc_loss): nothing to compare
            return "n/a"
        try:
            mt_used = [mt_grads[i] for i in used]
            connected = [k for k, g in enumerate(mt_used) if g is not None and g.requires_grad]
            actual = [None] * len(pairs)  # a gradient that does not require grad: its derivative is 0
            if connected:
                mt_weights = [tensor_to_minitorch(weights[k], mt_used[k].device.type) for k in connected]
                outputs = [mt_used[k] for k in connected]
                actual = minitorch.autograd.grad(
                    outputs, [m for _, m in pairs], mt_weights, allow_unused=True
                )
        except Exception as error:
            return reason_of(error)
        for index, (grad, torch_grad) in enumerate(zip(actual, expected)):
            torch_grad = torch.zeros_like(torch_inputs[index]) if torch_grad is None else torch_grad
            grad = minitorch.zeros_like(pairs[index][1].detach()) if grad is None else grad
            problem = compare(grad, torch_grad.detach(), f"gradgrad[{index}]")
            if problem:
                return problem
        return None


def samples(op, dtype, limit: int | None = None, seed: int = 0) -> list:
    """The op's sample inputs for ``dtype`` (requiring grad where it is differentiable),
    the same on every run (torch's generator is seeded first), at most ``limit``."""
    grad = dtype.is_floating_point and op.supports_autograd and dtype in op.supported_backward_dtypes("cpu")
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = []
        try:
            for sample in op.sample_inputs("cpu", dtype, requires_grad=grad):
                found.append(sample)
                if limit is not None and len(found) >= limit:
                    break
        except Exception:
            pass
    return found


class OpResult:
    """Every checked sample of one OpInfo entry: ``runs`` is a list of
    ``(dtype name, sample index, SampleRun)``; ``present`` is False when minitorch has no
    callable for the op (or every sample stops on a missing attribute)."""

    def __init__(self, name: str, present: bool, runs: list):
        self.name, self.present, self.runs = name, present, runs

    def failures(self) -> list[tuple[str, int, str, str]]:
        """``(dtype, index, "forward" | "backward" | "gradgrad", reason)`` of each failure."""
        found = []
        for dtype, index, run in self.runs:
            for kind in ("forward", "backward", "gradgrad"):
                reason = getattr(run, kind)
                if reason not in (None, "n/a"):
                    found.append((dtype, index, kind, reason))
                    break
        return found


def missing_attribute(reason) -> bool:
    return isinstance(reason, str) and reason.startswith("AttributeError") and "has no attribute" in reason


def run_op(op, dtypes, limit: int | None = None, device: str = "cpu", gradgrad_samples: int = 1,
           tolerance: dict | None = None) -> OpResult:  # fmt: skip
    """Run ``op``'s samples (at most ``limit`` per dtype) on minitorch's active backend.
    Second order is checked on the first ``gradgrad_samples`` float64 samples of ops
    OpInfo marks ``supports_gradgrad``. ``tolerance`` (``{torch dtype: (rtol, atol)}``)
    replaces assert_close's default tolerances for those dtypes."""
    from scripts.opinfo_scope import full_name

    function = minitorch_callable(op)
    if function is None:
        return OpResult(full_name(op), False, [])
    runs = []
    _tolerance.update(tolerance or {})
    try:
        for dtype in dtypes:
            for index, sample in enumerate(samples(op, dtype, limit)):
                gradgrad = dtype == torch.float64 and op.supports_gradgrad and index < gradgrad_samples
                run = SampleRun(op, sample, function, device=device, gradgrad=gradgrad, seed=index)
                if run.torch_accepts:
                    runs.append((str(dtype).removeprefix("torch."), index, run))
    finally:
        _tolerance.clear()
    present = not runs or not all(missing_attribute(run.forward) for _, _, run in runs)
    return OpResult(full_name(op), present, runs)
