"""``einsum``: products and sums of tensors written as index equations.

``einsum("ij,jk->ik", a, b)`` reads: ``out[i, k] = sum over j of a[i, j] * b[j, k]``.
Each letter names a dimension; a letter in the inputs but not in the output is summed
over. ``...`` stands for the dimensions not named (they broadcast, and come first in an
implicit output). Without ``->`` the output is every letter that appears once, in
alphabetical order (``"ij,jk"`` means ``"ij,jk->ik"``).

There is no einsum kernel: the equation becomes views, ``sum`` and batched ``matmul``,
so it runs on every backend and its gradient comes from theirs. The steps:

1. **Repeated letters in one operand** (``"ii->i"``, a diagonal; ``"ii"``, a trace):
   multiply by the identity matrix over the two dimensions and sum one of them away,
   which keeps the entries where both indices are equal.
2. **Letters only one operand has, and the output lacks**, are summed right away.
3. **Two operands at a time**, left to right, become one batched matrix product. Each
   letter of the pair is one of

   * *batch*: in both, and still needed (by the output or a later operand);
   * *contracted*: in both, needed by nobody else: summed by the product;
   * *left* / *right*: in one of the two only.

   ``a`` is permuted to ``[batch, left, contracted]`` and reshaped to ``[B, L, C]``,
   ``b`` to ``[batch, contracted, right]`` as ``[B, C, R]``; then ``a @ b`` is
   ``[B, L, R]``, reshaped back to one dimension per letter. ``"bij,bjk->bik"`` is
   exactly ``bmm``. With no contracted letter (``"i,j->ij"``, an outer product) there
   is nothing to sum: ``a`` viewed as ``[batch, left, 1..]`` times ``b`` as
   ``[batch, 1.., right]``, broadcast.
4. **The last operand**: sum what the output lacks and permute to the output's order.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.creation import eye
from minitorch.layout import numel
from minitorch.ops.common import require_tensors

ELLIPSIS = "."  # labels of the dimensions "..." covers: ".0", ".1", ... (counted from the left)


def _parse_term(term: str, position: int, ndim: int, operand: int | None) -> list[str]:
    """The labels of one term (``"i...j"``), ``...`` expanded to the dimensions it covers;
    for the output (``operand`` is None) ``ndim`` is the number of ``...`` dimensions."""
    if term.count("...") > 1 or term.replace("...", "").count(".") > 0:
        raise RuntimeError(
            f"einsum(): found '.' for operand {operand} that is not part of any ellipsis"
        )
    letters = term.replace("...", "")
    for offset, char in enumerate(term):
        if char != "." and not ("a" <= char <= "z" or "A" <= char <= "Z"):
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {position + offset} in the "
                "equation string, subscripts must be in [a-zA-Z]"
            )
    if "..." not in term:
        if operand is not None and len(letters) != ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(letters)}) does "
                f"not match the number of dimensions ({ndim}) for operand {operand} and no "
                "ellipsis was given"
            )
        return list(letters)
    covered = ndim - len(letters) if operand is not None else ndim
    if covered < 0:
        raise RuntimeError(
            f"einsum(): the number of subscripts in the equation ({len(letters)}) is more "
            f"than the number of dimensions ({ndim}) for operand {operand}"
        )
    before, after = term.split("...")
    return list(before) + [ELLIPSIS + str(i) for i in range(covered)] + list(after)


def _align_ellipsis(labels: list[str], covered: int, most: int) -> list[str]:
    """Right-align an operand's ``...`` dimensions with the widest one (broadcasting):
    with 2 of at most 3, they are ``.1`` and ``.2``."""
    shift = most - covered
    return [ELLIPSIS + str(int(label[1:]) + shift) if label[0] == ELLIPSIS else label
            for label in labels]  # fmt: skip


def _take_diagonals(x: Tensor, labels: list[str]) -> tuple[Tensor, list[str]]:
    """Step 1: while a label repeats, keep the entries where its two dimensions agree
    (times the identity, then a sum over the second one)."""
    while len(set(labels)) < len(labels):
        label = next(lab for lab in labels if labels.count(lab) > 1)
        first = labels.index(label)
        second = labels.index(label, first + 1)
        n = x.shape[first]
        mask_shape = [1] * x.ndim
        mask_shape[first] = mask_shape[second] = n
        x = (x * eye(n, dtype=x.dtype, device=x.device).reshape(mask_shape)).sum(second)
        labels = labels[:second] + labels[second + 1 :]
    return x, labels


def _sum_labels(x: Tensor, labels: list[str], keep: set[str]) -> tuple[Tensor, list[str]]:
    """Sum the dimensions whose label is not in ``keep``."""
    dims = [d for d, label in enumerate(labels) if label not in keep]
    if dims:
        x = x.sum(dims)
    return x, [label for label in labels if label in keep]


def _contract(a: Tensor, a_labels: list[str], b: Tensor, b_labels: list[str],
              needed: set[str], sizes: dict[str, int]) -> tuple[Tensor, list[str]]:  # fmt: skip
    """Step 3: ``a`` and ``b`` as one batched matmul; returns the product and its labels."""
    batch = [lab for lab in a_labels if lab in b_labels and lab in needed]
    contracted = [lab for lab in a_labels if lab in b_labels and lab not in needed]
    left = [lab for lab in a_labels if lab not in b_labels]
    right = [lab for lab in b_labels if lab not in a_labels]

    def arrange(x: Tensor, labels: list[str], order: list[str], groups: list[list[str]]) -> Tensor:
        x = x.permute([labels.index(lab) for lab in order])
        x = x.expand([sizes[lab] for lab in order])  # a broadcast size-1 dimension stretches
        return x.reshape([numel(tuple(sizes[lab] for lab in group)) for group in groups])

    if not contracted:  # nothing to sum: a broadcast product, one dimension per letter
        a_side = a.permute([a_labels.index(lab) for lab in batch + left])
        b_side = b.permute([b_labels.index(lab) for lab in batch + right])
        a_side = a_side.reshape(list(a_side.shape) + [1] * len(right))
        b_shape = list(b_side.shape)
        b_side = b_side.reshape(b_shape[: len(batch)] + [1] * len(left) + b_shape[len(batch) :])
        return a_side * b_side, batch + left + right
    a3 = arrange(a, a_labels, batch + left + contracted, [batch, left, contracted])
    b3 = arrange(b, b_labels, batch + contracted + right, [batch, contracted, right])
    product = a3 @ b3
    labels = batch + left + right
    return product.reshape([sizes[lab] for lab in labels]), labels


def _sublists_as_equation(arguments: tuple) -> tuple[str, tuple]:
    """PyTorch's second spelling, operands each followed by its list of subscripts (ints
    in ``[0, 52)``, ``...`` as ``Ellipsis``), then optionally the output's:
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` is ``einsum("AB,BC->AC", a, b)``. Integer
    ``i`` becomes the letter ``"A" + i`` (26 and up: ``"a" + i - 26``), so the implicit
    output's alphabetical order is the numbers' order."""

    def letters(sublist: Any) -> str:
        text = ""
        for item in sublist:
            if item is Ellipsis:
                text += "..."
            elif not 0 <= item < 52:
                raise RuntimeError(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)"
                )
            else:
                text += chr(ord("A") + item) if item < 26 else chr(ord("a") + item - 26)
        return text

    tensors, sublists = arguments[0::2], arguments[1::2]
    output = ""
    if len(arguments) % 2:  # the last list is the output's
        tensors, output = tensors[:-1], "->" + letters(arguments[-1])
    return ",".join(letters(sublist) for sublist in sublists) + output, tensors


def einsum(equation: Any, *operands: Any) -> Tensor:
    """The sum of products the index ``equation`` describes (see this file's
    docstring); ``operands`` as separate arguments or one list. (Or PyTorch's sublist
    form: ``einsum(a, [0, 1], b, [1, 2])``.)"""
    if not isinstance(equation, str):
        equation, operands = _sublists_as_equation((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    require_tensors("einsum", operands)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for x in operands[1:]:
        if x.dtype is not operands[0].dtype:
            raise RuntimeError(
                f"expected scalar type {operands[0].dtype.type_name} but found {x.dtype.type_name} "
                "(einsum does not promote: convert the operands to one dtype)"
            )
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")

    all_labels, position = [], 0
    for i, (term, x) in enumerate(zip(terms, operands)):
        all_labels.append(_parse_term(term, position, x.ndim, i))
        position += len(term) + 1
    covered = [sum(lab[0] == ELLIPSIS for lab in labels) for labels in all_labels]
    most = max(covered, default=0)
    all_labels = [_align_ellipsis(lab, c, most) for lab, c in zip(all_labels, covered)]

    sizes: dict[str, int] = {}
    for i, (labels, x) in enumerate(zip(all_labels, operands)):
        for d, (label, size) in enumerate(zip(labels, x.shape)):
            first = labels.index(label)
            if first != d and x.shape[first] != size:
                raise RuntimeError(
                    f"einsum(): subscript {label} is repeated for operand {i} but the sizes "
                    f"don't match, {x.shape[first]} != {size}"
                )
            seen = sizes.get(label, 1)
            if size != seen and 1 not in (size, seen):
                raise RuntimeError(
                    f"einsum(): subscript {label} has size {size} for operand {i} which "
                    f"does not broadcast with previously seen size {seen}"
                )
            sizes[label] = max(size, seen) if size and seen else 0

    ellipsis = [ELLIPSIS + str(i) for i in range(most)]
    if arrow:
        out_labels = _parse_term(output, len(inputs) + 2, most, None)
        for label in out_labels:
            if label not in sizes:
                raise RuntimeError(
                    f"einsum(): output subscript {label} does not appear in the equation for "
                    "any input operand"
                )
            if out_labels.count(label) > 1:
                raise RuntimeError(f"einsum(): output subscript {label} appears more than once in the output")
    else:  # implicit: "..." first, then the letters that appear once, alphabetically
        flat = [lab for labels in all_labels for lab in labels if lab[0] != ELLIPSIS]
        out_labels = ellipsis + sorted(lab for lab in set(flat) if flat.count(lab) == 1)

    tensors, labels_of = [], []
    for x, labels in zip(operands, all_labels):
        x, labels = _take_diagonals(x, labels)
        tensors.append(x)
        labels_of.append(labels)
    for i in range(len(tensors)):  # step 2: labels no one else needs
        needed = set(out_labels).union(*(labels_of[j] for j in range(len(tensors)) if j != i))
        tensors[i], labels_of[i] = _sum_labels(tensors[i], labels_of[i], needed)

    result, labels = tensors[0], labels_of[0]
    for i in range(1, len(tensors)):
        needed = set(out_labels).union(*labels_of[i + 1 :])
        result, labels = _contract(result, labels, tensors[i], labels_of[i], needed, sizes)
    result, labels = _sum_labels(result, labels, set(out_labels))
    result = result.permute([labels.index(lab) for lab in out_labels])
    return result.expand([sizes[lab] for lab in out_labels])
