"""The Mersenne Twister (MT19937): the engine behind PyTorch's CPU generator, and ours.

The twister keeps 624 words of 32 bits. Every 624 draws it *twists* the whole table:
each word is replaced by a mix of itself, its neighbour and the word 397 places on,

    state[i] = state[i + 397] ^ twist(upper bit of state[i] | lower 31 bits of state[i + 1])
    twist(y) = (y >> 1) ^ (0x9908B0DF if y is odd else 0)

(indices wrap around 624). A draw reads the next word and *tempers* it (four shifts and
masks, so the bits of one word look independent). Seeding fills the table from one
number by the classic recurrence ``state[j] = 1812433253 * (s ^ (s >> 30)) + j``, with
``s = state[j - 1]`` and ``state[0]`` the low 32 bits of the seed.

PyTorch counts its position with two numbers, ``left`` (draws until the next twist,
plus one) and ``next`` (the index of the next word); a fresh seed sets ``left = 1``, so
the very first draw twists. We keep the same two numbers, so a saved state
(``Generator.get_state``) reads exactly like PyTorch's.

The table is a NumPy array: a twist runs in four vectorised slices (each slice reads only
words an earlier slice already replaced, or ones not yet replaced), and a draw of ``n``
words tempers them all at once.
"""

from __future__ import annotations

import numpy as np

WORDS = 624  # the size of the table
SHIFT = 397  # the distance to the word each word is mixed with
MATRIX = np.uint32(0x9908B0DF)
UPPER, LOWER = np.uint32(0x80000000), np.uint32(0x7FFFFFFF)


def seeded_table(seed: int) -> np.ndarray:
    """The 624 words the classic initialisation (``init_genrand``) makes from ``seed``."""
    table = np.empty(WORDS, dtype=np.uint32)
    word = seed & 0xFFFFFFFF
    table[0] = word
    for j in range(1, WORDS):
        word = (1812433253 * (word ^ (word >> 30)) + j) & 0xFFFFFFFF
        table[j] = word
    return table


def twist(table: np.ndarray) -> None:
    """Replace every word of ``table`` (in place), in the order the recurrence defines."""

    def mix(i: slice, following: np.ndarray, far: np.ndarray) -> None:
        y = (table[i] & UPPER) | (following & LOWER)
        table[i] = far ^ (y >> np.uint32(1)) ^ np.where(y & np.uint32(1), MATRIX, np.uint32(0))

    gap = WORDS - SHIFT  # 227
    mix(slice(0, gap), table[1 : gap + 1], table[SHIFT:WORDS])  # far words not replaced yet
    mix(slice(gap, 2 * gap), table[gap + 1 : 2 * gap + 1], table[0:gap].copy())  # replaced ones
    mix(slice(2 * gap, WORDS - 1), table[2 * gap + 1 : WORDS], table[gap : WORDS - 1 - gap].copy())
    mix(slice(WORDS - 1, WORDS), table[0:1], table[SHIFT - 1 : SHIFT].copy())  # wraps to word 0


def temper(words: np.ndarray) -> np.ndarray:
    """The output function: spreads each word's bits (vectorised over ``words``)."""
    y = words.astype(np.uint32)
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


class MersenneTwister:
    """The engine: ``seed``, the table, and the position (``left``, ``next``)."""

    def __init__(self, seed: int = 5489) -> None:
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        self.seed, self.table, self.left, self.next = seed, seeded_table(seed), 1, 0

    def words(self, count: int) -> np.ndarray:
        """The next ``count`` 32-bit draws, as uint32."""
        out = np.empty(count, dtype=np.uint32)
        filled = 0
        while filled < count:
            if self.left == 1:  # the table is used up: twist, then read from the start
                twist(self.table)
                self.left, self.next = WORDS + 1, 0
            take = min(count - filled, self.left - 1)
            out[filled : filled + take] = self.table[self.next : self.next + take]
            self.next += take
            self.left -= take
            filled += take
        return temper(out)

    def words64(self, count: int) -> np.ndarray:
        """The next ``count`` 64-bit draws: two words each, the first one the high half."""
        pairs = self.words(2 * count).astype(np.uint64)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]
