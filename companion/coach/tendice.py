"""Best play of the push-your-luck game (ten-dice): bank or throw again.

Two policies, never mixed:

* **turn** (``turn_policy``): maximise the expected points banked by this turn. A throw that
  scores every remaining die banks the turn total and grants another turn ("around the horn");
  that extra turn belongs to this turn's count: its expected points under the same policy are
  included (a fixed point, ``TurnPolicy.fresh_turn``), so the horn is worth what it is worth.
  Reaching the target is not considered (solo play, no end of game).
* **win** (``win_table``): two players, maximise the chance to win. Scores are counted in steps
  of the greatest common divisor of all point values (50), the first to bank the target
  (10,000) wins. ``win[i, j]`` is the chance that the player about to start a turn with score
  ``i * step`` beats an opponent with ``j * step`` when both play this policy.

Transitions are built from the rules: every multiset of n dice is scored with ``score_throw``
and weighted by its multinomial chance; outcomes are grouped by (dice scored, points). The
first throw of a turn must be made (banking nothing is not a choice).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache, reduce
from itertools import combinations_with_replacement
from math import gcd

import numpy as np

from companion.coach.cache import load_or_build
from companion.coach.dicesets import FloatArray, multinomial_probability
from companion.rules.evaluate import score_throw
from companion.rules.games import ThrowGame

TABLE_KIND = "win"

#: Turn totals considered by the turn policy, in points; above it banking is always best
#: (checked when the table is built).
TURN_CAP = 200_000


@dataclass(frozen=True, eq=False)
class Throws:
    """Outcomes of throwing n dice, for n = 1..dice_count.

    ``outcomes[n]`` lists (dice scored, points in steps, chance) of the scoring throws;
    ``bust[n]`` is the chance that n dice score nothing.
    """

    step: int
    dice_count: int
    outcomes: tuple[tuple[tuple[int, int, float], ...], ...]
    bust: tuple[float, ...]

    @property
    def reach(self) -> int:
        """The most steps one throw can add."""
        return max(d for outs in self.outcomes for _, d, _ in outs)


@cache
def throws(game: ThrowGame) -> Throws:
    """Every throw of 1..dice_count dice scored by the rules, grouped (cached per game)."""
    values = [p for _, p in game.triples] + [p for _, p in game.singles]
    step = reduce(gcd, values)
    outcomes: list[tuple[tuple[int, int, float], ...]] = [()]
    bust = [0.0]
    for n in range(1, game.dice_count + 1):
        grouped: dict[tuple[int, int], float] = {}
        busted = 0.0
        for dice in combinations_with_replacement(range(1, 7), n):
            p = multinomial_probability(dice)
            result = score_throw(game, dice)
            if result.bust:
                busted += p
                continue
            key = (n - len(result.non_scoring), result.points // step)
            grouped[key] = grouped.get(key, 0.0) + p
        outcomes.append(tuple((k, d, p) for (k, d), p in sorted(grouped.items())))
        bust.append(busted)
    return Throws(step, game.dice_count, tuple(outcomes), tuple(bust))


# -- the turn policy: expected points ----------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TurnPolicy:
    """Expected banked points of a turn under the best policy.

    ``throw_value[n, i]`` is the expected points of throwing n dice with a turn total of
    ``i * step`` points (n = 1..dice_count; row 0 unused); banking is worth the turn total.
    ``fresh_turn`` is the expected points of a whole turn from its first throw, horn turns
    included.
    """

    step: int
    throw_value: FloatArray
    fresh_turn: float

    def value(self, turn_total: int, dice_left: int) -> tuple[float, float]:
        """(expected points if you bank now, expected points if you throw ``dice_left``)."""
        i = turn_total // self.step
        if i >= self.throw_value.shape[1]:
            return float(turn_total), float("-inf")
        return float(turn_total), float(self.throw_value[dice_left, i])


@cache
def turn_policy(game: ThrowGame) -> TurnPolicy:
    """Solve the one-turn problem (cached per game; takes milliseconds)."""
    th = throws(game)
    size = TURN_CAP // th.step
    pad = th.reach + 1
    totals = np.arange(size + pad, dtype=np.float64) * th.step
    fresh = 0.0
    for _ in range(200):
        # value[m] is (size + pad,): the worth of having m dice left at each turn total; 0 dice
        # left means the horn: banked plus a fresh turn.
        value = [totals + fresh]
        throw = np.zeros((th.dice_count + 1, size))
        for n in range(1, th.dice_count + 1):
            t = np.zeros(size)
            for k, d, p in th.outcomes[n]:
                t += p * value[n - k][d : d + size]
            throw[n] = t
            v = totals.copy()
            v[:size] = np.maximum(totals[:size], t)
            value.append(v)
        new = float(throw[th.dice_count, 0])
        done = abs(new - fresh) < 1e-12
        fresh = new
        if done:
            break
    # Ten dice are only thrown at a turn's start, so that row need not settle.
    settled = throw[1 : th.dice_count, size - pad : size] < totals[size - pad : size]
    if not settled.all():
        raise RuntimeError("TURN_CAP is too low: throwing still pays at the largest turn total")
    return TurnPolicy(th.step, throw, fresh)


# -- the win policy: chance to win against one opponent ------------------------------------


def _turn_dp(
    th: Throws,
    win: FloatArray,
    mine: np.ndarray,
    theirs: np.ndarray,
    bust_value: FloatArray,
    lo: int = 0,
) -> tuple[list[FloatArray], list[FloatArray], list[FloatArray]]:
    """Within-turn values for players at scores ``mine`` vs ``theirs`` (index arrays, (P,)).

    Column c stands for the score-if-banked ``lo + c`` steps (``lo`` <= every ``mine``: lower
    scores are never held). Returns per n = 0..dice_count-1: V[n] (P, size - lo + pad) the
    chance to win holding n dice (0 dice = around the horn), S[n] its slope in ``bust_value``,
    and T[n] (P, size - lo) the chance to win when throwing them (n >= 1).
    """
    size = win.shape[0]
    width = size - lo
    pad = th.reach + 1
    n_pairs = mine.size
    bank = np.ones((n_pairs, width + pad))
    bank[:, :width] = 1.0 - win[theirs, lo:]
    horn = np.ones((n_pairs, width + pad))
    horn[:, :width] = win[lo:, theirs].T
    values, slopes, throws_ = [horn], [np.zeros_like(horn)], [horn]
    busted = np.repeat(bust_value[:, None], width, axis=1)
    for n in range(1, th.dice_count):
        t = busted * th.bust[n]
        s = np.full((n_pairs, width), th.bust[n])
        for k, d, p in th.outcomes[n]:
            t += p * values[n - k][:, d : d + width]
            s += p * slopes[n - k][:, d : d + width]
        v = bank.copy()
        sl = np.zeros_like(bank)
        throw_better = t > bank[:, :width]
        v[:, :width] = np.where(throw_better, t, bank[:, :width])
        sl[:, :width] = np.where(throw_better, s, 0.0)
        values.append(v)
        slopes.append(sl)
        throws_.append(t)
    return values, slopes, throws_


def _turn_start(
    th: Throws,
    values: list[FloatArray],
    slopes: list[FloatArray],
    mine: np.ndarray,
    bust_value: FloatArray,
    lo: int = 0,
) -> tuple[FloatArray, FloatArray]:
    """Chance to win of the first throw of all the dice, and its slope in ``bust_value``."""
    n = th.dice_count
    rows = np.arange(mine.size)
    f = th.bust[n] * bust_value
    s = np.full(mine.size, th.bust[n])
    for k, d, p in th.outcomes[n]:
        f = f + p * values[n - k][rows, mine - lo + d]
        s = s + p * slopes[n - k][rows, mine - lo + d]
    return f, s


def build_win_table(game: ThrowGame) -> FloatArray:
    """(size, size) float64: chance to win from the start of a turn, size = target / step.

    Scores only grow, so pairs are solved by decreasing sum; within a sum, a bust hands the
    same pair of scores to the other player, so the pair (i, j) and (j, i) are solved together
    by Newton steps on the (piecewise linear) equations, exact once the policy settles.
    """
    th = throws(game)
    size = -(-game.target // th.step)
    win = np.zeros((size, size))
    for total in range(2 * size - 2, -1, -1):
        lo, hi = max(0, total - size + 1), min(total, size - 1)
        mine = np.arange(lo, hi + 1)
        theirs = total - mine
        partner = mine.size - 1 - np.arange(mine.size)
        # Start from the neighbours one step up (solved already): Newton then needs few steps.
        x = win[mine, np.minimum(theirs + 1, size - 1)]
        for _ in range(100):
            beta = 1.0 - x[partner]
            values, slopes, _ = _turn_dp(th, win, mine, theirs, beta, lo)
            f, s = _turn_start(th, values, slopes, mine, beta, lo)
            # Linearised: x = a + s * (1 - x[partner]) with a = f - s * beta; solve each pair.
            a = f - s * beta
            ap, sp = a[partner], s[partner]
            new = (a + s - s * (ap + sp)) / (1.0 - s * sp)
            change = float(np.max(np.abs(new - x)))
            x = new
            if change < 1e-13:
                break
        win[mine, theirs] = x
    return win


def win_table(game: ThrowGame, *, cache_dir: str | os.PathLike[str] | None = None) -> FloatArray:
    """The two-player win table (built once per rules definition and cached on disk)."""
    table, _ = load_or_build(
        game.id, TABLE_KIND, game, lambda: build_win_table(game), directory=cache_dir
    )
    return table


@dataclass(frozen=True)
class WinChoice:
    """Chance to win of banking now and of throwing again (two players, win policy)."""

    bank: float
    throw: float


def win_choice(
    game: ThrowGame,
    my_score: int,
    their_score: int,
    turn_total: int,
    dice_left: int,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> WinChoice:
    """Chance to win if the player banks ``turn_total`` now or throws ``dice_left`` dice.

    Scores and the turn total are in points, multiples of the step (50). ``dice_left`` equal
    to the dice count means the turn's first throw (banking is then not a choice: nan).
    """
    th = throws(game)
    win = win_table(game, cache_dir=cache_dir)
    size = win.shape[0]
    i, j, t = my_score // th.step, their_score // th.step, turn_total // th.step
    mine, theirs = np.array([i]), np.array([j])
    beta = np.array([1.0 - win[j, i]])
    bank = 1.0 if i + t >= size else 1.0 - float(win[j, i + t])
    if dice_left == th.dice_count:
        f, _ = _turn_start(th, *_turn_dp(th, win, mine, theirs, beta)[:2], mine, beta)
        return WinChoice(float("nan"), float(f[0]))
    if i + t >= size:
        # Banking reaches the target: the game is won, throwing could only lose it.
        return WinChoice(1.0, float("nan"))
    _, _, throw = _turn_dp(th, win, mine, theirs, beta)
    return WinChoice(bank, float(throw[dice_left][0, i + t]))
