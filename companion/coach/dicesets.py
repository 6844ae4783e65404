"""Dice as sorted multisets: every keep and roll of n six-sided dice, indexed, with the links the
solver walks (add one die, remove one die) and the chance of each roll.

Keeps are all multisets of 0..n dice; the rolls are the keeps of exactly n dice. Within each
size the keeps are ordered by their number of distinct values (then lexicographically), so that
"remove one die of the j-th distinct value" touches a contiguous tail of the block.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from math import factorial

import numpy as np
import numpy.typing as npt

from companion.rules.dice import Dice

FACES = 6

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]


def multinomial_probability(dice: Dice) -> float:
    """Chance that len(dice) fair dice thrown together show exactly this multiset."""
    ways = factorial(len(dice))
    for v in set(dice):
        ways //= factorial(dice.count(v))
    return float(ways) / float(FACES ** len(dice))


@dataclass(frozen=True, eq=False)
class DiceSets:
    """Index of every keep of up to ``n`` dice.

    ``keeps[i]`` is a sorted tuple; ``offsets[m]:offsets[m + 1]`` is the block of keeps with m
    dice (the rolls are the last block). ``child[m]`` is (n_m, 6): the global index of the keep
    with one more die of each face (for m < n). ``parents[m]`` lists, for j = 0.., a pair
    (start, idx): the keeps ``offsets[m] + start ..`` of the block have at least j + 1 distinct
    values, and ``idx`` is the global index of each with one die of its j-th value removed.
    ``first_roll`` is the chance of each roll when all n dice are thrown.
    """

    n: int
    keeps: tuple[Dice, ...]
    index: dict[Dice, int]
    offsets: tuple[int, ...]
    child: tuple[IntArray, ...]
    parents: tuple[tuple[tuple[int, IntArray], ...], ...]
    first_roll: FloatArray

    @property
    def rolls(self) -> tuple[Dice, ...]:
        return self.keeps[self.offsets[self.n] :]

    @property
    def roll_offset(self) -> int:
        return self.offsets[self.n]

    def block(self, m: int) -> slice:
        return slice(self.offsets[m], self.offsets[m + 1])

    def sub_keeps(self, dice: Dice) -> list[Dice]:
        """Every distinct sub-multiset of the dice, as sorted tuples (the empty keep first)."""
        counts = [dice.count(v) for v in range(1, FACES + 1)]
        out: list[Dice] = [()]
        for v, c in enumerate(counts, start=1):
            out = [k + (v,) * j for k in out for j in range(c + 1)]
        return sorted(out, key=lambda k: (len(k), k))


@cache
def dice_sets(n: int) -> DiceSets:
    """The keep/roll index for n dice (cached: it depends on n only)."""
    keeps: list[Dice] = []
    offsets = [0]
    for m in range(n + 1):
        block = sorted(
            combinations_with_replacement(range(1, FACES + 1), m),
            key=lambda k: (len(set(k)), k),
        )
        keeps.extend(block)
        offsets.append(len(keeps))
    index = {k: i for i, k in enumerate(keeps)}
    child = []
    for m in range(n):
        rows = [
            [index[tuple(sorted((*k, d)))] for d in range(1, FACES + 1)]
            for k in keeps[offsets[m] : offsets[m + 1]]
        ]
        child.append(np.asarray(rows, dtype=np.intp).reshape(-1, FACES))
    parents: list[tuple[tuple[int, IntArray], ...]] = [()]
    for m in range(1, n + 1):
        block = keeps[offsets[m] : offsets[m + 1]]
        distinct = [sorted(set(k)) for k in block]
        levels = []
        for j in range(min(m, FACES)):
            start = next(i for i, d in enumerate(distinct) if len(d) > j)
            idx = []
            for k, d in zip(block[start:], distinct[start:], strict=True):
                rest = list(k)
                rest.remove(d[j])
                idx.append(index[tuple(rest)])
            levels.append((start, np.asarray(idx, dtype=np.intp)))
        parents.append(tuple(levels))
    first = np.array([multinomial_probability(r) for r in keeps[offsets[n] :]], dtype=np.float64)
    return DiceSets(
        n=n,
        keeps=tuple(keeps),
        index=index,
        offsets=tuple(offsets),
        child=tuple(child),
        parents=tuple(parents),
        first_roll=first,
    )
