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

Two ways read the same stream. A few draws (a ``randn(3, 3)``, a dropout mask of a small
batch) are served from the *tempered table*: after each twist the whole table is twisted
and tempered at once with NumPy (``twist_table``, ``temper_table``: the recurrence in four
slices, each reading only words that are already final), kept as a list of Python ints,
and handed out a slice at a time (``take``). Many draws (a model's initial weights, one
each: tens of millions for a large model) run the loop ``draw``, compiled by Numba
(cached on disk like the kernels). Both give the same words in the same order.
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


def twist_table(table: np.ndarray) -> None:
    """``twist``, with NumPy: the 624 steps in four slices, each of which reads only words
    that already hold their final value for this twist (so the result is the loop's).

    Step ``i`` reads words ``i`` and ``i + 1`` (not yet replaced) and word ``i + 397``,
    which for ``i >= 227`` wraps to ``i - 227``, a word replaced earlier in this twist:
    steps 0..226 read old words only, 227..453 the new words 0..226, 454..622 the new
    words 227..395, and step 623 the new words 0 and 396."""

    def mix(word: np.ndarray, following: np.ndarray, far: np.ndarray) -> np.ndarray:
        y = (word & np.uint32(UPPER)) | (following & np.uint32(LOWER))
        return far ^ (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * np.uint32(MATRIX))

    far = WORDS - SHIFT  # 227: from here on, the far word is a new one
    table[:far] = mix(table[:far], table[1 : far + 1], table[SHIFT:])
    table[far : 2 * far] = mix(table[far : 2 * far], table[far + 1 : 2 * far + 1], table[:far])
    table[2 * far : -1] = mix(table[2 * far : -1], table[2 * far + 1 :], table[far : SHIFT - 1])
    table[-1:] = mix(table[-1:], table[:1], table[SHIFT - 1 : SHIFT])


def temper_table(table: np.ndarray) -> np.ndarray:
    """``temper`` applied to every word of the table at once (uint32 shifts drop the bits
    pushed past 32, as the 32-bit masks do)."""
    word = table ^ (table >> np.uint32(11))
    word ^= (word << np.uint32(7)) & np.uint32(0x9D2C5680)
    word ^= (word << np.uint32(15)) & np.uint32(0xEFC60000)
    return word ^ (word >> np.uint32(18))


class MersenneTwister:
    """The engine: ``seed``, the table, and the position (``left``, ``next``)."""

    def __init__(self, seed: int = 5489) -> None:
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        self.restore(seed, seeded_table(seed), 1, 0)

    def restore(self, seed: int, table: np.ndarray, left: int, next_word: int) -> None:
        """Set the whole state: the seed, the table (uint32) and the position."""
        self.seed, self.table, self.left, self.next = seed, table, left, next_word
        self.tempered: list[int] | None = None  # the table's words tempered, made when first read

    def take(self, count: int) -> list[int]:
        """The next ``count`` 32-bit draws as Python ints, read from the tempered table
        (twisting it, with NumPy, each time it is used up)."""
        out: list[int] = []
        while count:
            if self.left == 1:
                twist_table(self.table)
                self.left, self.next, self.tempered = WORDS + 1, 0, None
            if self.tempered is None:
                self.tempered = temper_table(self.table).tolist()
            n = min(count, self.left - 1)
            out += self.tempered[self.next : self.next + n]
            self.next, self.left, count = self.next + n, self.left - n, count - n
        return out

    def take64(self, count: int) -> list[int]:
        """The next ``count`` 64-bit draws as Python ints: two words each, high first."""
        words = self.take(2 * count)
        return [(high << 32) | low for high, low in zip(words[0::2], words[1::2])]

    def words(self, count: int) -> np.ndarray:
        """The next ``count`` 32-bit draws, as uint32: fewer than a table's worth from the
        tempered table, more by the compiled loop."""
        if count < WORDS:
            return np.array(self.take(count), dtype=np.uint32)
        out = np.empty(count, dtype=np.uint32)
        position = np.array([self.left, self.next], dtype=np.int64)
        draw(self.table, position, out)
        self.left, self.next = int(position[0]), int(position[1])
        self.tempered = None  # the loop may have twisted the table
        return out

    def words64(self, count: int) -> np.ndarray:
        """The next ``count`` 64-bit draws: two words each, the first one the high half."""
        pairs = self.words(2 * count).astype(np.uint64)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]
