"""How a tensor prints: exactly like PyTorch, ``tensor([[1., 2.], [3., 4.]], requires_grad=True)``.

The rules, in the order they are applied:

1. **One format for all elements.** ``ElementFormatter`` looks at the finite, nonzero
   values once and picks a single format, so the columns line up:

   * integers (``int64``, ``bool``...): ``str(value)``;
   * floats that are all whole numbers: ``1.``, ``-20.`` ("int mode");
   * other floats: ``precision`` decimals, ``0.1235``;
   * scientific notation, ``1.2346e+05``, when the magnitudes span too much for a fixed
     number of decimals: ``max / min > 1000``, ``max > 1e8`` or ``min < 1e-4`` (of the
     absolute values); ``set_printoptions(sci_mode=True/False)`` overrides the choice.

   Every element is right-aligned to the widest one. Zeros, ``nan`` and ``inf`` take no
   part in choosing (``tensor([0., 1e-9])`` prints in scientific notation, because of
   ``1e-9`` alone).
2. **Lines.** A 1-d row holds ``(linewidth - indent) // (width + 2)`` elements per line
   (``", "`` after each). Rows of a matrix go on separate lines, blocks of a 3-d tensor
   are separated by one blank line, of a 4-d tensor by two, and so on.
3. **Summaries.** A tensor of more than ``threshold`` elements shows only the first and
   last ``edgeitems`` entries along each dimension, with ``...`` between them; the
   format is chosen from the shown values only.
4. **Suffixes**, after the values: ``device=``, ``size=`` (empty tensors),
   ``dtype=`` (unless the default float dtype, ``int64`` or ``bool``), then
   ``grad_fn=<MulBackward0>`` or ``requires_grad=True``. A suffix that would pass
   ``linewidth`` starts a new line, indented under the first value.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitorch.device import get_default_device
from minitorch.dtypes import bool_, get_default_dtype, int64


@dataclasses.dataclass
class PrintOptions:
    """The options of ``set_printoptions`` (PyTorch's defaults)."""

    precision: int = 4  # decimals of a float
    threshold: float = 1000  # more elements than this: summarise
    edgeitems: int = 3  # entries kept at each end of a summarised dimension
    linewidth: int = 80  # characters per line
    sci_mode: bool | None = None  # None: chosen from the values


PRINT_OPTIONS = PrintOptions()

PROFILES = {
    "default": PrintOptions(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": PrintOptions(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": PrintOptions(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print (PyTorch's ``torch.set_printoptions``).

    ``profile`` (``"default"``, ``"short"``, ``"full"``) first sets all four numeric
    options; the other arguments then override it. Options not given keep their value,
    except ``sci_mode``, which is reset to ``None`` (automatic) unless given. (PyTorch
    ignores an unknown profile; minitorch raises ``ValueError``.)
    """
    if profile is not None:
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(map(repr, PROFILES))}, got {profile!r}")
        chosen = PROFILES[profile]
        PRINT_OPTIONS.precision, PRINT_OPTIONS.threshold = chosen.precision, chosen.threshold
        PRINT_OPTIONS.edgeitems, PRINT_OPTIONS.linewidth = chosen.edgeitems, chosen.linewidth
    if precision is not None:
        PRINT_OPTIONS.precision = precision
    if threshold is not None:
        PRINT_OPTIONS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTIONS.linewidth = linewidth
    PRINT_OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments for ``set_printoptions``."""
    return dataclasses.asdict(PRINT_OPTIONS)


@contextlib.contextmanager
def printoptions(**options: Any) -> Iterator[None]:
    """``with printoptions(precision=2): ...`` sets options for the block only."""
    saved = get_printoptions()
    set_printoptions(**options)
    try:
        yield
    finally:
        set_printoptions(**saved)


class ElementFormatter:
    """Turns each element of one tensor into a string of the same width.

    Built from the values that will be shown (all of them, or a summary's), it decides
    once between int mode, fixed decimals and scientific notation, and measures the
    widest element; ``format`` then right-aligns every element to that width.
    """

    def __init__(self, values: np.ndarray) -> None:
        flat = values.reshape(-1)
        self.is_float = flat.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not self.is_float:
            self.width = max([self.width] + [len(str(v)) for v in flat.tolist()])
            return
        chosen = flat[np.isfinite(flat) & (flat != 0)]
        if chosen.size == 0:
            return
        magnitudes = np.abs(chosen.astype(np.float64))
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(chosen == np.ceil(chosen)))
        if PRINT_OPTIONS.sci_mode is None:
            self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTIONS.sci_mode
        precision = PRINT_OPTIONS.precision
        for v in chosen.tolist():
            if self.sci_mode:
                text = f"{v:.{precision}e}"
            elif self.int_mode:
                text = f"{v:.0f}."
            else:
                text = f"{v:.{precision}f}"
            self.width = max(self.width, len(text))

    def format(self, value: Any) -> str:
        """One element (a Python number), right-aligned to the common width."""
        if not self.is_float:
            text = f"{value}"
        elif self.sci_mode:
            text = f"{value:.{PRINT_OPTIONS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{PRINT_OPTIONS.precision}f}"
        return text.rjust(self.width)


def summarized(values: np.ndarray) -> np.ndarray:
    """The values a summary shows: along each dimension longer than ``2 * edgeitems``,
    its first and last ``edgeitems`` entries."""
    edge = PRINT_OPTIONS.edgeitems
    for dim, size in enumerate(values.shape):
        if size > 2 * edge:
            kept = list(range(edge)) + list(range(size - edge, size))
            values = np.take(values, kept, axis=dim)
    return values


def format_vector(row: np.ndarray, indent: int, summarize: bool, formatter: ElementFormatter) -> str:
    """``[a, b, c,\\n   d, e]``: as many elements per line as fit in ``linewidth``."""
    edge = PRINT_OPTIONS.edgeitems
    if summarize and not edge:
        elements = ["..."]
    elif summarize and row.shape[0] > 2 * edge:
        head, tail = row[:edge].tolist(), row[row.shape[0] - edge :].tolist()
        elements = [formatter.format(v) for v in head] + [" ..."] + [formatter.format(v) for v in tail]
    else:
        elements = [formatter.format(v) for v in row.tolist()]
    per_line = max(1, (PRINT_OPTIONS.linewidth - indent) // (formatter.width + 2))
    lines = [", ".join(elements[i : i + per_line]) for i in range(0, len(elements), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def format_nested(values: np.ndarray, indent: int, summarize: bool, formatter: ElementFormatter) -> str:
    """The bracketed values of a tensor of any rank, by recursion on the first
    dimension: each sub-tensor is indented one more column, and the separator between
    sub-tensors of a ``d``-dimensional tensor is ``,`` and ``d - 1`` line breaks."""
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return format_vector(values, indent, summarize, formatter)
    size, edge = values.shape[0], PRINT_OPTIONS.edgeitems
    if summarize and size > 2 * edge:
        shown: list[int | None] = [*range(edge), None, *range(size - edge, size)]  # None: "..."
    else:
        shown = list(range(size))
    parts = [
        "..." if i is None else format_nested(values[i], indent + 1, summarize, formatter)
        for i in shown
    ]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_values(values: np.ndarray, indent: int) -> str:
    """The bracketed values of a nonempty array, starting at column ``indent``."""
    if values.dtype.kind == "f" and values.dtype.itemsize < 4:
        values = values.astype(np.float32)  # half precision prints its exact values
    summarize = values.size > PRINT_OPTIONS.threshold
    formatter = ElementFormatter(summarized(values) if summarize else values)
    return format_nested(values, indent, summarize, formatter)


def add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` to the text, starting a new line (indented by ``indent``)
    for a suffix that would pass ``linewidth``; then the closing parenthesis."""
    # The length PyTorch counts for the last line: two more than its characters.
    line_length = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > PRINT_OPTIONS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            line_length += len(suffix) + 2
    return "".join(pieces) + ")"


def tensor_repr(t: Any) -> str:
    """``repr(t)`` and ``str(t)``: ``tensor(`` + values + suffixes + ``)``."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t.device.type != get_default_device().type:  # set_default_device("cuda") hides it
        suffixes.append(f"device='{t.device}'")
    if t.numel() == 0:
        body = "[]"
        if t.ndim != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype is not get_default_dtype():  # no element shows whether it is an integer
            suffixes.append(f"dtype={t.dtype}")
    else:
        if not PRINT_OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype not in (get_default_dtype(), int64, bool_):
            suffixes.append(f"dtype={t.dtype}")
        body = format_values(t.detach().cpu()._host_array(), indent)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return add_suffixes(prefix + body, suffixes, indent)
