"""Random generators (``minitorch.random``, as ``torch.random``): ``Generator``, the
global ``default_generator``, seeding, saving and restoring the state, ``fork_rng``.

A ``Generator`` is PyTorch's CPU generator rebuilt: a Mersenne Twister
(``minitorch/mersenne_twister.py``) seeded exactly as PyTorch seeds it, plus the two
numbers PyTorch keeps beside it (the second value of the last Box-Muller pair drawn one
at a time, in double and in float: ``minitorch/random_transforms.py``). So after the same
``manual_seed`` every random function gives PyTorch's CPU numbers, bit for bit, and
``get_state()`` is PyTorch's 5056-byte state (a ``uint8`` tensor with the same layout:
``torch.Generator().set_state(minitorch_state)`` works, and the other way round).

On a CUDA device PyTorch uses another generator (Philox, counter based), so its CUDA
numbers differ from its CPU ones. minitorch draws every random tensor on the host with
this generator and copies it to the device: our CUDA numbers are PyTorch's *CPU* numbers.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitorch._tensor import Tensor
from minitorch.device import CPU, as_device
from minitorch.dtypes import uint8
from minitorch.mersenne_twister import WORDS, MersenneTwister

DEFAULT_SEED = 67280421310721  # a new Generator() starts here, as in PyTorch
# PyTorch's state struct: seed, left, seeded, next, the table as 64-bit words, three unused
# doubles and a flag for the cached double normal, then the cached float normal and its flag.
_HEAD = struct.Struct("<QiiQ")
_TAIL = struct.Struct("<dddi4xf?3x")
STATE_BYTES = _HEAD.size + 8 * WORDS + _TAIL.size  # 5056


def _as_seed(seed: Any) -> int:
    """A seed as PyTorch reads it: any int64 or uint64 (a negative one wraps to uint64)."""
    if isinstance(seed, Tensor):
        seed = seed.item()
    if isinstance(seed, bool) or not hasattr(type(seed), "__index__"):
        raise TypeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if not -(2**63) <= seed < 2**64:
        raise RuntimeError("Overflow when unpacking long long: a seed must fit in 64 bits")
    return seed % 2**64


class Generator:
    """A source of random numbers (PyTorch's ``torch.Generator``).

    A new ``Generator()`` starts from PyTorch's fixed default seed; the global
    ``default_generator`` is seeded afresh in every process (like PyTorch's), so two runs
    give different numbers unless the program calls ``manual_seed``."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = as_device(device)
        self.engine = MersenneTwister(DEFAULT_SEED)
        self.next_double_normal: float | None = None
        self.next_float_normal: float | None = None

    def manual_seed(self, seed: Any) -> Generator:
        self.engine.reseed(_as_seed(seed))
        self.next_double_normal = self.next_float_normal = None
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; return the seed chosen (53 bits, as
        PyTorch's, so a float64 holds it exactly)."""
        chosen = int.from_bytes(os.urandom(8), "little") & (2**53 - 1)
        self.manual_seed(chosen)
        return chosen

    def initial_seed(self) -> int:
        return self.engine.seed

    def random(self, count: int) -> np.ndarray:
        """``count`` 32-bit draws (PyTorch's ``random()``), as uint32."""
        return self.engine.words(count)

    def random64(self, count: int) -> np.ndarray:
        """``count`` 64-bit draws (PyTorch's ``random64()``): two words each, high first."""
        return self.engine.words64(count)

    def random_list(self, count: int) -> list[int]:
        """The same draws as ``random`` as a list of Python ints, for code that handles a
        few numbers one at a time (no array to build and read back)."""
        return self.engine.take(count) if count < WORDS else self.engine.words(count).tolist()

    def random64_list(self, count: int) -> list[int]:
        """The same draws as ``random64`` as a list of Python ints."""
        return self.engine.take64(count) if count < WORDS else self.engine.words64(count).tolist()

    def get_state(self) -> Tensor:
        """The whole state as PyTorch's 5056 bytes (a ``uint8`` tensor)."""
        engine, double, single = self.engine, self.next_double_normal, self.next_float_normal
        data = (
            _HEAD.pack(engine.seed, engine.left, 1, engine.next)
            + engine.table.astype("<u8").tobytes()
            + _TAIL.pack(0.0, double or 0.0, 0.0, double is not None, single or 0.0, single is not None)
        )
        cells = np.frombuffer(data, dtype=np.uint8).copy()
        return Tensor._make(cells, (STATE_BYTES,), (1,), 0, uint8, CPU)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state from ``get_state`` (ours or PyTorch's)."""
        if not isinstance(new_state, Tensor) or new_state.dtype is not uint8:
            raise TypeError("expected a torch.ByteTensor as the RNG state")
        data = bytes(new_state.detach().cpu().contiguous().numpy().reshape(-1))
        if len(data) != STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the "
                               f"input RNG state size to be {len(data)}")  # fmt: skip
        seed, left, seeded, position = _HEAD.unpack_from(data)
        table = np.frombuffer(data, dtype="<u8", count=WORDS, offset=_HEAD.size)
        _, double, _, has_double, single, has_single = _TAIL.unpack_from(data, _HEAD.size + 8 * WORDS)
        # ``left - 1`` words remain from ``next`` on, so they end at the table's end (a fresh
        # seed has ``left == 1``: the next draw twists, whatever ``next`` says)
        if not (seeded and 0 < left <= WORDS and position <= WORDS
                and (left == 1 or position + left == WORDS + 1)):  # fmt: skip
            raise RuntimeError("Invalid mt19937 state")
        self.engine.restore(seed, table.astype(np.uint32), left, position)
        self.next_double_normal = double if has_double else None
        self.next_float_normal = single if has_single else None
        return self

    def clone_state(self) -> Generator:
        """A new generator in the same state (drawing from it leaves this one alone)."""
        return Generator(self.device).set_state(self.get_state())


default_generator = Generator()
default_generator.seed()


def manual_seed(seed: Any) -> Generator:
    """Seed the global random generator: the same seed gives the same numbers."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the global generator from the operating system's entropy; return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The global generator's state (PyTorch's 5056 bytes)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, device_type: str = "cuda",
             **_: Any) -> Iterator[None]:  # fmt: skip
    """Draw random numbers inside the block without disturbing the global stream: the
    state is saved on entry and restored on exit (``torch.random.fork_rng``). Every
    device draws from the one host generator here, so saving it covers them all."""
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)
