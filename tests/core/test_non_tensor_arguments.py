"""A non-tensor (``None``, a string, a number, a list) where a tensor goes raises PyTorch's
``TypeError`` naming the argument, never an ``AttributeError`` about ``.dtype`` or
``.shape`` (issue 18, item 7). Each row is a call written once for both libraries
(``lib`` is ``torch`` or ``minitorch``, ``F`` its ``nn.functional``).

PyTorch is the oracle: where its message has the form ``"f(): argument 'x' (position i)
must be Tensor, not T"`` ours must contain the same ``argument ... not T`` part (elsewhere
ours still has that form). A few of
PyTorch's Python-level functions (``F.tanh``, ``F.mse_loss``...) let an
``AttributeError`` escape; minitorch raises the ``TypeError`` there too.
"""

from __future__ import annotations

import re

import pytest
import torch

import minitorch as mt

CALLS = {
    # unary ops (apply_map), and the ones that read x.dtype before reaching it
    "abs": lambda lib, F: lib.abs(None),
    "exp": lambda lib, F: lib.exp("x"),
    "relu": lambda lib, F: lib.relu(3),
    "logical_not": lambda lib, F: lib.logical_not(None),
    "sign": lambda lib, F: lib.sign(None),
    "bitwise_not": lambda lib, F: lib.bitwise_not(None),
    "square": lambda lib, F: lib.square(None),
    "isnan": lambda lib, F: lib.isnan(None),
    "isinf": lambda lib, F: lib.isinf(None),
    "isfinite": lambda lib, F: lib.isfinite(None),
    # reductions
    "sum": lambda lib, F: lib.sum(None),
    "mean": lambda lib, F: lib.mean("x"),
    "prod": lambda lib, F: lib.prod(None),
    "max": lambda lib, F: lib.max(None),
    "amin": lambda lib, F: lib.amin([1.0]),
    "argmax": lambda lib, F: lib.argmax(None),
    "var": lambda lib, F: lib.var(None),
    "std": lambda lib, F: lib.std(1.5),
    "logsumexp": lambda lib, F: lib.logsumexp(None, 0),
    "all": lambda lib, F: lib.all(None),
    "any": lambda lib, F: lib.any("x"),
    # shape ops, and sequences of tensors
    "reshape": lambda lib, F: lib.reshape(None, (1,)),
    "permute": lambda lib, F: lib.permute(None, (0,)),
    "t": lambda lib, F: lib.t(None),
    "squeeze": lambda lib, F: lib.squeeze(None),
    "flatten": lambda lib, F: lib.flatten(None),
    "unbind": lambda lib, F: lib.unbind(None),
    "clone": lambda lib, F: lib.clone(None),
    "cat of a string": lambda lib, F: lib.cat("x"),
    "cat with None": lambda lib, F: lib.cat([lib.ones(2), None]),
    "stack with a number": lambda lib, F: lib.stack([lib.ones(2), 3]),
    # creation from another tensor
    "zeros_like": lambda lib, F: lib.zeros_like(None),
    "empty_like": lambda lib, F: lib.empty_like(2),
    "full_like": lambda lib, F: lib.full_like((2, 3), 1.0),
    "randn_like": lambda lib, F: lib.randn_like([1.0]),
    # Tensor methods taking another tensor
    "type_as": lambda lib, F: lib.ones(2).type_as(1.5),
    "expand_as": lambda lib, F: lib.ones(2).expand_as(None),
    "copy_": lambda lib, F: lib.ones(2).copy_(None),
    # nn.functional
    "F.relu": lambda lib, F: F.relu(None),
    "F.leaky_relu": lambda lib, F: F.leaky_relu(None),
    "F.silu": lambda lib, F: F.silu("x"),
    "F.tanh": lambda lib, F: F.tanh(None),
    "F.sigmoid": lambda lib, F: F.sigmoid(None),
    "F.mse_loss": lambda lib, F: F.mse_loss(lib.ones(2), None),
    "F.l1_loss": lambda lib, F: F.l1_loss(None, lib.ones(2)),
    "F.cross_entropy": lambda lib, F: F.cross_entropy(lib.ones(2, 3), [0, 1]),
    "F.nll_loss": lambda lib, F: F.nll_loss(lib.ones(2, 3), None),
    "F.binary_cross_entropy": lambda lib, F: F.binary_cross_entropy(lib.ones(2), 1.0),
    "F.bce_with_logits": lambda lib, F: F.binary_cross_entropy_with_logits(lib.ones(2), None),
    "F.linear": lambda lib, F: F.linear(lib.ones(2, 3), None),
    "F.conv1d": lambda lib, F: F.conv1d(lib.ones(1, 1, 4), 2),
    "F.dropout": lambda lib, F: F.dropout(None),
    "F.one_hot": lambda lib, F: F.one_hot(None),
}

# "argument 'target' (position 2) must be Tensor, not NoneType", or the element form
TORCH_FORM = re.compile(r"(argument '\w+' \(position \d\) must be Tensor, not \w+"
                        r"|expected Tensor as element \d+ in argument \d+, but got \w+)")  # fmt: skip


def raised(call, lib) -> BaseException:
    with pytest.raises(Exception) as info:
        call(lib, lib.nn.functional)
    return info.value


@pytest.mark.parametrize("name", list(CALLS))
def test_non_tensor_argument_raises_type_error(backend, name):
    call = CALLS[name]
    expected = raised(call, torch)
    assert isinstance(expected, (TypeError, AttributeError)), f"torch raised {expected!r}"
    error = raised(call, mt)
    assert type(error) is TypeError, f"minitorch raised {type(error).__name__}: {error}"
    found = TORCH_FORM.search(str(expected))
    if found is not None:
        assert found.group(1) in str(error), f"torch says {expected}, minitorch says {error}"
    else:  # torch's message has another form (or is an AttributeError): ours is still in the usual one
        assert TORCH_FORM.search(str(error)), f"minitorch says {error}"
