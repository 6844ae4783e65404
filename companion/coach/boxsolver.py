"""Exact optimal solo play of a score-sheet game by backward induction, vectorised with numpy.

A *state* is the position before a turn's first roll: the set of filled boxes (a bitmask over
the game's categories in sheet order), the upper-section total capped at the bonus threshold
(only when the game has an upper bonus) and whether the repeat box holds its required points
(only when the game has a repeat bonus). The table holds, for every state, the expected points
still to come under optimal play (float64); points already on the sheet are not included.

Everything about the game is read from its declaration: each category's scorer is called on
every sorted multiset of the dice to build the score tables, so a rules change changes them.

One turn (a "widget") is solved backwards in three layers, with states batched as columns:

* after the last roll: for each roll, the best open box (points + bonus + value of the next
  state); the repeat bonus is added whatever box is chosen;
* after rolls 2 and 1: the value of each keep is the mean over one more die of the keep with
  that die added (down from the full rolls), and the value of a roll is the best keep inside it
  (up from the empty keep, removing one die at a time); keeping all dice is stopping;
* before the first roll: the roll values weighted by their multinomial chance.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from companion.coach.dicesets import DiceSets, FloatArray, IntArray, dice_sets
from companion.rules.games import BoxGame

#: States per batch: (keeps x batch) float64 work arrays stay within a core's cache.
BATCH = 512

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class BoxModel:
    """The game's score tables and state layout, derived from its declaration.

    ``scores`` is (categories, rolls) int64: the box points of each roll. For each category,
    ``key_points[c]`` are its distinct points and ``key_of_roll[c]`` (rolls,) maps a roll to the
    index of its points there. ``upper_reach[s]`` lists the capped upper totals reachable when
    the upper boxes in upper-submask ``s`` are filled.
    """

    game: BoxGame
    dice: DiceSets
    scores: npt.NDArray[np.int64]
    scores_f: FloatArray
    key_points: tuple[npt.NDArray[np.int64], ...]
    key_of_roll: tuple[IntArray, ...]
    upper: tuple[bool, ...]
    upper_ids: tuple[int, ...]
    threshold: int
    upper_points: int
    repeat: int
    repeat_requires: int
    repeat_points: int
    repeat_roll: BoolArray
    repeat_rows: IntArray
    n_upper_totals: int
    n_flags: int
    upper_reach: tuple[tuple[int, ...], ...]
    #: (2**categories,) the upper-submask of each mask, and (2**uppers,) the most points the
    #: open upper boxes of each upper-submask can still add.
    upper_sub_of_mask: IntArray
    upper_room: IntArray

    @property
    def n_categories(self) -> int:
        return len(self.game.categories)

    @property
    def shape(self) -> tuple[int, int, int]:
        return (1 << self.n_categories, self.n_upper_totals, self.n_flags)

    def flat_index(
        self, mask: IntArray | int, upper_total: IntArray | int, flag: IntArray | int
    ) -> IntArray:
        return np.asarray(
            (np.asarray(mask) * self.n_upper_totals + upper_total) * self.n_flags + flag,
            dtype=np.intp,
        )

    def upper_submask(self, mask: int) -> int:
        return sum(1 << j for j, c in enumerate(self.upper_ids) if mask >> c & 1)

    def canonical_total(self, mask: IntArray, total: IntArray) -> IntArray:
        """The upper total standing for ``total`` in the table: once the bonus can no longer be
        reached (or every upper box is filled) the total changes nothing, so all such totals
        share the value of the smallest reachable one (0)."""
        if self.n_upper_totals == 1:
            return total
        sub = self.upper_sub_of_mask[mask]
        settled = total + self.upper_room[sub] < self.threshold
        settled |= sub == (1 << len(self.upper_ids)) - 1
        return np.where(settled, 0, total)

    def states(self, filled_count: int) -> tuple[IntArray, IntArray, IntArray]:
        """Every reachable state with this many filled boxes: (mask, upper total, flag)."""
        masks, totals, flags = [], [], []
        for mask in _masks_with(self.n_categories, filled_count):
            reach = np.asarray(self.upper_reach[self.upper_submask(mask)], dtype=np.intp)
            n_flags = 2 if self.repeat >= 0 and self.n_flags == 2 and mask >> self.repeat & 1 else 1
            for f in range(n_flags):
                masks.append(np.full(reach.size, mask, dtype=np.intp))
                totals.append(reach)
                flags.append(np.full(reach.size, f, dtype=np.intp))
        return np.concatenate(masks), np.concatenate(totals), np.concatenate(flags)


@cache
def _masks_with(n: int, k: int) -> tuple[int, ...]:
    return tuple(m for m in range(1 << n) if m.bit_count() == k)


@cache
def box_model(game: BoxGame) -> BoxModel:
    """Score tables and state layout of the game (cached per game value)."""
    ds = dice_sets(game.dice_count)
    rolls = ds.rolls
    cats = game.categories
    scores = np.array([[c.scorer.points(r) for r in rolls] for c in cats], dtype=np.int64)
    key_points, key_of_roll = [], []
    for row in scores:
        points, inverse = np.unique(row, return_inverse=True)
        key_points.append(points.astype(np.int64))
        key_of_roll.append(inverse.astype(np.intp).reshape(-1))
    upper = tuple(c.upper for c in cats)
    upper_ids = tuple(i for i, u in enumerate(upper) if u)
    ub = game.upper_bonus
    threshold = ub.threshold if ub is not None else 0
    rb = game.repeat_bonus
    repeat = -1
    repeat_roll = np.zeros(len(rolls), dtype=np.bool_)
    if rb is not None:
        repeat = next(i for i, c in enumerate(cats) if c.id == game.category(rb.category).id)
        repeat_roll = scores[repeat] > 0
    reach: list[tuple[int, ...]] = []
    for sub in range(1 << len(upper_ids)):
        totals = {0}
        if ub is not None:
            for j, c in enumerate(upper_ids):
                if sub >> j & 1:
                    totals = {min(threshold, t + int(p)) for t in totals for p in key_points[c]}
        reach.append(tuple(sorted(totals)))
    n_cat = len(cats)
    sub_of_mask = np.array(
        [sum(1 << j for j, c in enumerate(upper_ids) if m >> c & 1) for m in range(1 << n_cat)],
        dtype=np.intp,
    )
    room = np.array(
        [
            sum(int(key_points[c].max()) for j, c in enumerate(upper_ids) if not sub >> j & 1)
            for sub in range(1 << len(upper_ids))
        ],
        dtype=np.intp,
    )
    return BoxModel(
        game=game,
        dice=ds,
        scores=scores,
        scores_f=scores.astype(np.float64),
        key_points=tuple(key_points),
        key_of_roll=tuple(key_of_roll),
        upper=upper,
        upper_ids=upper_ids,
        threshold=threshold,
        upper_points=ub.points if ub is not None else 0,
        repeat=repeat,
        repeat_requires=rb.requires_points if rb is not None else 0,
        repeat_points=rb.points if rb is not None else 0,
        repeat_roll=repeat_roll,
        repeat_rows=np.flatnonzero(repeat_roll).astype(np.intp),
        n_upper_totals=threshold + 1 if ub is not None else 1,
        n_flags=2 if rb is not None else 1,
        upper_reach=tuple(reach),
        upper_sub_of_mask=sub_of_mask,
        upper_room=room,
    )


def _next_values(
    model: BoxModel, table: FloatArray, c: int, mask: IntArray, total: IntArray, flag: IntArray
) -> tuple[FloatArray, bool]:
    """Bonus + value of the next state after filling category ``c``, -inf where it is filled.

    Returns ((distinct points, batch), True) when the next state depends on the points (an upper
    box under an upper bonus, the repeat box), else ((1, batch), False) for any points.
    """
    is_open = (mask >> c & 1) == 0
    nxt = (mask | (1 << c))[None, :]
    upper = model.upper[c] and model.n_upper_totals > 1
    repeat = c == model.repeat and model.n_flags == 2
    by_points = upper or repeat
    points = model.key_points[c][:, None] if by_points else np.zeros((1, 1), dtype=np.int64)
    t2 = total[None, :]
    if upper:
        t2 = np.minimum(model.threshold, t2 + points)
    f2 = (points == model.repeat_requires).astype(np.intp) if repeat else flag[None, :]
    out = table[model.flat_index(nxt, t2, f2)]
    if upper:
        reached = (total < model.threshold)[None, :] & (t2 >= model.threshold)
        out += model.upper_points * reached
    if by_points:
        out += points
    out[:, ~is_open] = -np.inf
    return out, by_points


def box_values(
    model: BoxModel,
    table: FloatArray,
    c: int,
    mask: IntArray,
    total: IntArray,
    flag: IntArray,
    *,
    out: FloatArray | None = None,
) -> FloatArray:
    """(rolls, batch): points + bonus + expected future of filling box ``c`` with each final
    roll (without the repeat bonus, which comes whatever box is filled); -inf if it is filled."""
    nv, by_points = _next_values(model, table, c, mask, total, flag)
    if out is None:
        out = np.empty((len(model.dice.rolls), mask.size), dtype=np.float64)
    if not by_points:
        nv = nv + model.key_points[c][:, None]
    # mode="clip" spares numpy a defensive copy of ``out``; the indices are valid anyway.
    np.take(nv, model.key_of_roll[c], axis=0, out=out, mode="clip")
    return out


def repeat_bonus(model: BoxModel, flag: IntArray) -> FloatArray | float:
    """(rolls, batch) bonus points each final roll earns whatever box it fills (or 0.0)."""
    if model.n_flags == 1:
        return 0.0
    return model.repeat_points * np.outer(model.repeat_roll, flag == 1)


def last_roll_values(
    model: BoxModel, table: FloatArray, mask: IntArray, total: IntArray, flag: IntArray
) -> FloatArray:
    """(rolls, batch): the expected future points of each final roll, filling the best box."""
    n_rolls = len(model.dice.rolls)
    out = np.full((n_rolls, mask.size), -np.inf)
    tmp = np.empty_like(out)
    for c in range(model.n_categories):
        # Batches are sorted by mask, so many boxes are filled in every column: skip them.
        if np.all(mask >> c & 1):
            continue
        box_values(model, table, c, mask, total, flag, out=tmp)
        np.maximum(out, tmp, out=out)
    if model.n_flags == 2:
        rows = model.repeat_rows
        out[rows] += model.repeat_points * (flag == 1)
    return out


def keep_values(ds: DiceSets, roll_values: FloatArray) -> FloatArray:
    """(keeps, batch): expected value of each keep when the dice not kept are rolled once and
    each resulting roll is worth ``roll_values`` (rolls, batch)."""
    n_keeps = len(ds.keeps)
    batch = roll_values.shape[1]
    e = np.empty((n_keeps, batch), dtype=np.float64)
    e[ds.roll_offset :] = roll_values
    tmp = np.empty((len(ds.rolls), batch), dtype=np.float64)
    for m in range(ds.n - 1, -1, -1):
        blk = e[ds.block(m)]
        child = ds.child[m]
        t = tmp[: blk.shape[0]]
        np.take(e, child[:, 0], axis=0, out=blk, mode="clip")
        for d in range(1, child.shape[1]):
            np.take(e, child[:, d], axis=0, out=t, mode="clip")
            blk += t
        blk *= 1.0 / child.shape[1]
    return e


def best_keep(ds: DiceSets, keep_value: FloatArray) -> FloatArray:
    """(rolls, batch): for each roll, the best value of a keep inside it (keeping all = stop)."""
    batch = keep_value.shape[1]
    best = np.empty_like(keep_value)
    best[0] = keep_value[0]
    tmp = np.empty((len(ds.rolls), batch), dtype=np.float64)
    for m in range(1, ds.n + 1):
        blk = best[ds.block(m)]
        blk[...] = keep_value[ds.block(m)]
        for start, idx in ds.parents[m]:
            t = tmp[: idx.size]
            np.take(best, idx, axis=0, out=t, mode="clip")
            np.maximum(blk[start:], t, out=blk[start:])
    return best[ds.roll_offset :]


def turn_start_values(
    model: BoxModel, table: FloatArray, mask: IntArray, total: IntArray, flag: IntArray
) -> FloatArray:
    """(batch,): expected future points of each state before the turn's first roll."""
    ds = model.dice
    v = last_roll_values(model, table, mask, total, flag)
    for _ in range(model.game.rolls_per_turn - 1):
        v = best_keep(ds, keep_values(ds, v))
    out: FloatArray = ds.first_roll @ v
    return out


def build_table(game: BoxGame, *, batch: int = BATCH) -> FloatArray:
    """Expected future points of every state, shape ``box_model(game).shape`` (float64;
    unreachable states hold NaN)."""
    model = box_model(game)
    table = np.full(int(np.prod(model.shape)), np.nan, dtype=np.float64)
    n = model.n_categories
    full = model.states(n)
    table[model.flat_index(*full)] = 0.0
    for filled in range(n - 1, -1, -1):
        all_mask, all_total, all_flag = model.states(filled)
        canon = model.canonical_total(all_mask, all_total)
        live = canon == all_total
        mask, total, flag = all_mask[live], all_total[live], all_flag[live]
        # Sorting by mask keeps the filled boxes of a batch alike, so whole categories drop out.
        for lo in range(0, mask.size, batch):
            sl = slice(lo, lo + batch)
            values = turn_start_values(model, table, mask[sl], total[sl], flag[sl])
            table[model.flat_index(mask[sl], total[sl], flag[sl])] = values
        dead = ~live
        table[model.flat_index(all_mask[dead], all_total[dead], all_flag[dead])] = table[
            model.flat_index(all_mask[dead], canon[dead], all_flag[dead])
        ]
    return table.reshape(model.shape)
