"""Batches of sequences of different lengths (``torch.nn.utils.rnn``).

Sequences in a batch rarely have one length. Two ways to put them in one tensor:

* **padded**: ``pad_sequence`` stacks them into ``[L_max, N, *]`` (``[N, L_max, *]``
  with ``batch_first``), filling the short ones with ``padding_value``;
* **packed**: a ``PackedSequence`` keeps only the real steps, time-major: ``data`` holds
  step 0 of every sequence, then step 1 of those still running, and so on, and
  ``batch_sizes[t]`` says how many sequences are still running at step ``t``. For that
  the batch is sorted longest first (``sorted_indices``; ``unsorted_indices`` undoes
  it). A recurrent layer given a packed batch runs each sequence over its own length
  only, so its final state is each sequence's state at its own last element.

``pack_padded_sequence`` and ``pad_packed_sequence`` convert between the two. Both are
built from slicing, ``cat`` and ``stack``, so gradients flow through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import int64
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import cat, stack


class PackedSequence(NamedTuple):
    """``data`` ``[sum of lengths, *]``, ``batch_sizes`` (int64, on the CPU), and the
    permutation that sorted the batch by decreasing length (``None`` when it was sorted
    already)."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same sequence with ``data`` moved or cast (the indices follow the device)."""
        data = self.data.to(*args, **kwargs)
        move = lambda t: None if t is None else t.to(data.device)  # noqa: E731
        return PackedSequence(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def cuda(self, device: Any = None) -> PackedSequence:
        return self.to("cuda" if device is None else device)

    def float(self) -> PackedSequence:  # noqa: A003 (PyTorch's name)
        return PackedSequence(self.data.float(), *self[1:])

    def double(self) -> PackedSequence:
        return PackedSequence(self.data.double(), *self[1:])

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def _lengths_list(lengths: Any) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1:
            raise RuntimeError(f"Expected `len(lengths)` to be a 1-D tensor, got {lengths.ndim}-D")
        return [int(n) for n in lengths.tolist()]
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence):
        raise TypeError(f"lengths should be a list or a 1-D int64 tensor, got {type(lengths).__name__}")
    return [int(n) for n in lengths]


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (``inverse[permutation[i]] = i``)."""
    if permutation is None:
        return None
    inverse = [0] * permutation.shape[0]
    for i, j in enumerate(permutation.tolist()):
        inverse[j] = i
    return creation.tensor(inverse, dtype=int64, device=permutation.device)


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,  # noqa: A002
                         enforce_sorted: bool = True) -> PackedSequence:  # fmt: skip
    """Pack a padded batch ``[L, N, *]`` whose sequence ``n`` is ``lengths[n]`` long.

    With ``enforce_sorted=True`` the lengths must already decrease; otherwise the batch
    is sorted here and the permutation kept in the result."""
    require_tensor("pack_padded_sequence", input)
    sizes = _lengths_list(lengths)
    if batch_first:
        input = input.transpose(0, 1)
    if input.ndim < 2 or len(sizes) != input.shape[1]:
        batch = input.shape[1] if input.ndim >= 2 else 0
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(sizes)} "
                           f"(batch_size={batch})")  # fmt: skip
    if any(n <= 0 for n in sizes):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")  # fmt: skip
    sorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in zip(sizes, sizes[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                               "pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")  # fmt: skip
    else:
        order = sorted(range(len(sizes)), key=lambda n: -sizes[n])  # stable: ties keep their order
        sorted_indices = creation.tensor(order, dtype=int64, device=input.device)
        input = input.index_select(1, sorted_indices)
        sizes = [sizes[n] for n in order]
    if sizes[0] > input.shape[0]:
        raise RuntimeError(f"Start ({input.shape[0]}) + length ({sizes[0]}) exceeds dimension size "
                           f"({input.shape[0]}).")  # fmt: skip
    batch_sizes = [sum(1 for n in sizes if n > t) for t in range(sizes[0])]
    data = cat([input[t, :count] for t, count in enumerate(batch_sizes)])
    return PackedSequence(data, creation.tensor(batch_sizes, dtype=int64), sorted_indices,
                          invert_permutation(sorted_indices))  # fmt: skip


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """Undo ``pack_padded_sequence``: ``(padded, lengths)``, in the batch's original
    order, padded to ``total_length`` steps if given."""
    if not isinstance(sequence, PackedSequence):
        raise TypeError(f"pad_packed_sequence expects a PackedSequence, got {type(sequence).__name__}")
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")  # fmt: skip
        steps = total_length
    batch = batch_sizes[0] if batch_sizes else 0
    rows, start = [], 0
    for t in range(steps):
        count = batch_sizes[t] if t < len(batch_sizes) else 0
        filler = creation.full((batch - count, *data.shape[1:]), padding_value, dtype=data.dtype,
                               device=data.device)  # fmt: skip
        rows.append(cat([data[start : start + count], filler]))
        start += count
    padded = stack(rows)
    lengths = creation.tensor([sum(1 for b in batch_sizes if b > n) for n in range(batch)], dtype=int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.to("cpu"))
    return (padded.transpose(0, 1) if batch_first else padded), lengths


def pad_sequence(sequences: Sequence[Tensor] | Tensor, batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:  # fmt: skip
    """Stack sequences ``[L_i, *]`` into ``[L_max, N, *]`` (``[N, L_max, *]`` with
    ``batch_first``), filling the missing steps with ``padding_value`` on the
    ``padding_side`` (``"right"``: after each sequence; ``"left"``: before it)."""
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    if isinstance(sequences, (str, bytes)) or not isinstance(sequences, Sequence):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")  # fmt: skip
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for seq in sequences:
        require_tensor("pad_sequence", seq)
    longest = max(seq.shape[0] for seq in sequences)
    padded = []
    for seq in sequences:
        filler = creation.full((longest - seq.shape[0], *seq.shape[1:]), padding_value,
                               dtype=seq.dtype, device=seq.device)  # fmt: skip
        padded.append(cat([seq, filler] if padding_side == "right" else [filler, seq]))
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Any, batch_first: bool = False) -> list[Tensor]:
    """Undo ``pad_sequence``: the list of sequences, each cut to its length."""
    require_tensor("unpad_sequence", padded_sequences)
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences.unbind(0), _lengths_list(lengths))]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = [seq.shape[0] for seq in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Undo ``pack_sequence``: the list of sequences, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
