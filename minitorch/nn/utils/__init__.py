"""``minitorch.nn.utils`` (as ``torch.nn.utils``): helpers around the layers.

| file         | what                                                                      |
| ------------ | ------------------------------------------------------------------------- |
| ``rnn.py``   | ``pad_sequence``, ``pack_padded_sequence``, ``pad_packed_sequence``, ``PackedSequence`` |
"""

from minitorch.nn.utils import rnn

__all__ = ["rnn"]
