"""Forward tests driven by the op table (``tests/oracle.py``): for every op, dtype and
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
from oracle import build_pair, op_dtype_params

import minitorch as mt


def run_forward(op, dtype, device) -> list[str]:
    failures = []
    for i, sample in enumerate(op.samples(dtype)):
        m, t = build_pair(op, sample, dtype, i, device)
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
