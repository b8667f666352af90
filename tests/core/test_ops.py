"""Forward tests driven by the op table (``tests/op_table.py``): for every op, dtype and
sample input (contiguous, transposed, sliced, expanded, broadcast, 0-d, empty), the
minitorch result must equal PyTorch's in values, dtype and shape; views must also have
PyTorch's strides and storage offset and share memory with their base; and no op may
modify its inputs.

Each test loops over the op's samples and reports every failing one.
"""

from __future__ import annotations

import pytest
import torch
from helpers import assert_close, assert_same_view, flatten_outputs
from op_table import build_pair, op_dtype_params

import minitorch as mt


def run_forward(op, dtype, device) -> list[str]:
    failures = []
    for i, sample in enumerate(op.samples(dtype)):
        m, t = build_pair(op, sample, dtype, i, device)
        if device == "cuda" and op.cpu_only:  # no kernel yet: a clear error, never a value
            with pytest.raises(NotImplementedError, match=op.cpu_only):
                op.fn(mt, *m.args, **m.kwargs)
            continue
        expected = op.fn(torch, *t.args, **t.kwargs)  # the oracle (must not fail)
        try:
            actual = op.fn(mt, *m.args, **m.kwargs)
            assert_close(actual, expected, rtol=op.rtol, atol=op.atol, msg=op.name)
            for j, (mb, tb) in enumerate(zip(m.bases, t.bases)):
                assert_close(mb, tb, msg=f"input {j} must not change")
            if op.view:
                outputs = list(zip(flatten_outputs(actual), flatten_outputs(expected)))
                for j, (a, e) in enumerate(outputs):
                    assert_same_view(a, e, m.bases[0], t.bases[0], msg=f"output {j}")
        except Exception as error:  # noqa: BLE001 - collect every failing sample
            message = str(error).strip().splitlines()
            failures.append(
                f"sample {i} ({sample.desc}): {type(error).__name__}: "
                + " | ".join(line.strip() for line in message[:6] if line.strip())
            )
    return failures


@pytest.mark.parametrize(("op", "dtype"), op_dtype_params())
def test_forward(op, dtype, device):
    failures = run_forward(op, dtype, device)
    assert not failures, f"{op.name} [{dtype}] failed on:\n" + "\n".join(failures)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_with_dim_return_named_values_and_indices(name, device):
    data = [[1.0, 5.0, 5.0, -2.0], [7.0, 0.0, 7.0, 3.0], [-1.0, -1.0, -4.0, -1.0]]
    m = mt.tensor(data, device=device)
    t = torch.tensor(data)
    got = getattr(m, name)(1)
    expected = getattr(t, name)(1)
    assert isinstance(got, tuple) and len(got) == 2
    assert_close(got.values, expected.values)
    assert_close(got.indices, expected.indices)  # ties: the first index, like torch on CPU
    values, indices = getattr(mt, name)(m, dim=0, keepdim=True)
    assert_close((values, indices), tuple(getattr(torch, name)(t, dim=0, keepdim=True)))
