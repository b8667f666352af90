"""``bilinear``: ``y_o = x1^T A_o x2 + b_o``, one matrix ``A_o`` per output feature.

``weight`` is ``[out, in1, in2]``; for every leading (batch) index the output feature ``o``
is ``sum_ij x1_i A_oij x2_j``, which ``einsum('...i,oij,...j->...o')`` says directly.
"""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.ops.common import require_tensor
from minitorch.ops.einsum import einsum


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    require_tensor("bilinear", input1, "input1")
    require_tensor("bilinear", input2, "input2", 2)
    require_tensor("bilinear", weight, "weight", 3)
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be 3D, got {weight.ndim}D")
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} "
            f"and {list(input2.shape[:-1])}"
        )
    if input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match the "
            f"weight {list(weight.shape)}"
        )
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias
