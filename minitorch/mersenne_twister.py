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

The table is a NumPy array, and the loops that twist and temper it are compiled by Numba
(cached on disk like the kernels): a model's initial weights take one draw each, so a
large model needs tens of millions of them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

WORDS = 624  # the size of the table
SHIFT = 397  # the distance to the word each word is mixed with
MATRIX = 0x9908B0DF
UPPER, LOWER = 0x80000000, 0x7FFFFFFF


def seeded_table(seed: int) -> np.ndarray:
    """The 624 words the classic initialisation (``init_genrand``) makes from ``seed``."""
    table = np.empty(WORDS, dtype=np.uint32)
    word = seed & 0xFFFFFFFF
    table[0] = word
    for j in range(1, WORDS):
        word = (1812433253 * (word ^ (word >> 30)) + j) & 0xFFFFFFFF
        table[j] = word
    return table


@njit(cache=True)
def twist(table: np.ndarray) -> None:
    """Replace every word of ``table`` (in place), in the order the recurrence defines: word
    ``i`` is mixed with word ``i + 1`` and word ``i + 397`` (wrapping around), so from word
    227 on, the far word is one this twist has already replaced. (The words are widened to
    64-bit integers while they are mixed, so no sum or shift can overflow.)"""
    for i in range(WORDS):
        y = (np.int64(table[i]) & UPPER) | (np.int64(table[(i + 1) % WORDS]) & LOWER)
        mixed = np.int64(table[(i + SHIFT) % WORDS]) ^ (y >> 1)
        if y & 1:
            mixed ^= MATRIX
        table[i] = np.uint32(mixed)


@njit(cache=True)
def temper(word: np.int64) -> np.int64:
    """The output function: spreads the bits of one word."""
    word ^= word >> 11
    word ^= (word << 7) & 0x9D2C5680
    word ^= (word << 15) & 0xEFC60000
    word ^= word >> 18
    return word & 0xFFFFFFFF


@njit(cache=True)
def draw(table: np.ndarray, position: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` with the next tempered words; ``position`` holds ``(left, next)``."""
    left, next_word = position[0], position[1]
    for k in range(out.size):
        if left == 1:  # the table is used up: twist, then read from the start
            twist(table)
            left, next_word = WORDS + 1, 0
        out[k] = np.uint32(temper(np.int64(table[next_word])))
        next_word += 1
        left -= 1
    position[0], position[1] = left, next_word


class MersenneTwister:
    """The engine: ``seed``, the table, and the position (``left``, ``next``)."""

    def __init__(self, seed: int = 5489) -> None:
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        self.seed, self.table, self.left, self.next = seed, seeded_table(seed), 1, 0

    def words(self, count: int) -> np.ndarray:
        """The next ``count`` 32-bit draws, as uint32."""
        out = np.empty(count, dtype=np.uint32)
        position = np.array([self.left, self.next], dtype=np.int64)
        draw(self.table, position, out)
        self.left, self.next = int(position[0]), int(position[1])
        return out

    def words64(self, count: int) -> np.ndarray:
        """The next ``count`` 64-bit draws: two words each, the first one the high half."""
        pairs = self.words(2 * count).astype(np.uint64)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]
