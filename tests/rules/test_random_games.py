"""Conformance: random games of every registered game, played through the state machine."""

from __future__ import annotations

import random

import pytest

from companion.rules import GAMES, BoxState, IllegalActionError, ThrowState, new_game


def play_box(state: BoxState, rng: random.Random) -> BoxState:
    n = state.game.dice_count
    steps = 0
    while not state.finished:
        steps += 1
        assert steps < 10_000
        if state.pending:
            state = state.reroll_flagged([rng.randint(1, 6) for _ in state.pending])
        elif state.rolls_used == 0 or (state.can_roll() and rng.random() < 0.5):
            keep = [] if state.rolls_used == 0 else [i for i in range(n) if rng.random() < 0.5]
            thrown = [rng.randint(1, 6) for _ in range(n - len(keep))]
            rolled = [i for i in range(n) if i not in keep]
            flagged = [i for i in rolled if rng.random() < 0.05]
            before = state.rolls_used
            state = state.roll(thrown, keep=keep, flagged=flagged)
            assert state.rolls_used == before + 1
        elif state.phase == "tiebreak":
            state = state.stand()
        else:
            opts = state.options()
            assert opts, "an open box always exists while the game runs"
            sheet_before = state.sheets[state.current]
            choice = rng.choice(opts)
            player = state.current
            state = state.score(choice.category)
            after = state.sheets[player]
            assert after.total == sheet_before.total + choice.points + choice.bonus
    for sheet in state.sheets:
        assert len(sheet.entries) == state.game.turns
    assert state.winners()
    return state


def play_ten(state: ThrowState, rng: random.Random) -> ThrowState:
    steps = 0
    while not state.finished:
        steps += 1
        assert steps < 100_000
        if state.pending:
            state = state.reroll_flagged([rng.randint(1, 6) for _ in state.pending])
        elif state.can_bank() and (state.turn_total >= 350 or state.dice_left < 3):
            state = state.bank()
        else:
            flagged = [i for i in range(state.dice_left) if rng.random() < 0.02]
            state = state.roll([rng.randint(1, 6) for _ in range(state.dice_left)], flagged=flagged)
        assert all(s >= 0 and s % 50 == 0 for s in state.scores)
    assert max(state.scores) >= 10_000
    assert state.winners() == (state.players[state.scores.index(max(state.scores))],)
    with pytest.raises(IllegalActionError):
        state.bank()
    return state


@pytest.mark.parametrize("game_id", list(GAMES))
@pytest.mark.parametrize("seed", range(12))
def test_random_games_play_to_the_end(game_id: str, seed: int) -> None:
    rng = random.Random(seed)
    players = [f"P{i}" for i in range(rng.randint(2, 4))]
    kw = {"tiebreak": bool(seed % 2)} if GAMES[game_id].extra_turn_tiebreak else {}
    state = new_game(game_id, players, **kw)
    if isinstance(state, BoxState):
        play_box(state, rng)
    else:
        assert isinstance(state, ThrowState)
        play_ten(state, rng)
