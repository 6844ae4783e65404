"""The coach at the table: a game option, its advice for the player to act, tables warmed early.

The coach is off unless the players switch it on when they start a game (``"coach": true`` in
the game's options); then it is on for everyone alike, for the whole game. Its best-play
tables are built on first use (``companion.coach``): ``five-dice-bonus`` takes several seconds
the first time. A daemon thread builds a game's table as soon as a coach game is created (and
at start-up for the coach games on file); until it is ready the advice answers that the coach
is still thinking, instead of holding a request (and a server thread) for ten seconds.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask

from companion.rules import BoxState, IllegalActionError, RulesError, State
from companion.web.errors import WebError

#: How long a request waits for a table being loaded before answering "still thinking":
#: long enough for a table already on disk, short enough that nobody notices.
WAIT_S = 0.5


class CoachOffError(IllegalActionError):
    """The game was started without the coach (409)."""


class CoachUnavailableError(WebError):
    """Building the coach's table failed (503)."""

    status = 503


@dataclass
class Warmup:
    """One table being loaded or built by a background thread."""

    done: threading.Event = field(default_factory=threading.Event)
    error: str | None = None


_LOCK = threading.Lock()
_WARM: dict[tuple[str, str], Warmup] = {}


def _load(game_id: str, cache_dir: str | None) -> None:
    """Load (or build and save) the game's table; the answer itself is thrown away."""
    from companion.coach.api import advice_json

    advice_json(game_id, cache_dir=cache_dir)


def _run(game_id: str, cache_dir: str | None, w: Warmup) -> None:
    try:
        _load(game_id, cache_dir)
    except Exception as exc:  # the thread has nobody to raise to: keep it for the requests
        w.error = f"{type(exc).__name__}: {exc}"
    finally:
        w.done.set()


def warm(game_id: str, cache_dir: str | None = None) -> Warmup:
    """Start loading the game's table in a daemon thread, unless it is loading or loaded.

    A load that failed is tried again. ``cache_dir`` None is the coach's default directory.
    """
    key = (game_id, str(cache_dir))
    with _LOCK:
        w = _WARM.get(key)
        if w is None or (w.done.is_set() and w.error):
            w = Warmup()
            _WARM[key] = w
            threading.Thread(
                target=_run, args=(game_id, cache_dir, w), name=f"coach-{game_id}", daemon=True
            ).start()
    return w


def is_ready(game_id: str, cache_dir: str | None = None, *, wait_s: float = 0.0) -> bool:
    """Whether the game's table is loaded, waiting up to ``wait_s`` seconds (and starting the
    load if nobody has). Raises CoachUnavailableError when the load failed."""
    w = warm(game_id, cache_dir)
    if not w.done.wait(wait_s):
        return False
    if w.error:
        raise CoachUnavailableError(f"the coach is not available: {w.error}")
    return True


def forget() -> None:
    """Forget which tables were warmed (tests; running threads finish on their own)."""
    with _LOCK:
        _WARM.clear()


def advice_for(state: State, cache_dir: str | None = None) -> dict[str, Any]:
    """The coach's advice for the player to act (``companion.coach.api.advice_json``).

    Score-sheet games: before the turn's first roll the expected final score; after roll 1
    or 2 every keep (and ``if_you_stop``, every open box); after the last roll every open
    box. ten-dice: bank or throw again, by the expected points of the turn. Raises
    IllegalActionError (409) when the game's state has no advice: game over, dice waiting
    for a free reroll, a tie-break turn. The table must be loaded (:func:`is_ready`) for
    the answer to come in milliseconds.
    """
    from companion.coach.api import advice_json

    if state.finished:
        raise IllegalActionError("the game is over")
    if state.pending:
        raise IllegalActionError("roll the leaning or fallen dice again first")
    if isinstance(state, BoxState):
        if state.phase != "play":
            raise IllegalActionError("the coach does not play tie-break turns")
        sheet = state.sheets[state.current]
        # The sheet's bonus holds the extra Five of a Kind bonuses, which the boxes cannot show.
        if not state.rolls_used:
            return advice_json(
                state.game.id, filled=sheet.filled, bonus=sheet.bonus, cache_dir=cache_dir
            )
        return advice_json(
            state.game.id,
            dice=list(state.dice),
            filled=sheet.filled,
            roll=state.rolls_used,
            bonus=sheet.bonus,
            cache_dir=cache_dir,
        )
    return advice_json(
        state.game.id,
        turn_total=state.turn_total,
        dice_left=state.dice_left,
        cache_dir=cache_dir,
    )


def note(state: State, chosen: str, cache_dir: str | None = None) -> dict[str, Any]:
    """What the coach showed before a player chose ``chosen`` (a box, or "bank"), for the
    history: ``{"shown": false}`` when it had no advice (still thinking, a tie-break turn),
    else ``{"shown": true, "best": {...}, "chosen": {...}}`` with the expected values."""
    if not is_ready(state.game.id, cache_dir):
        return {"shown": False, "why": "the coach was still thinking"}
    try:
        advice = advice_for(state, cache_dir)
    except (RulesError, ValueError) as exc:
        # The coach's trouble never stops a score: it is only noted.
        return {"shown": False, "why": str(exc)}
    choices: list[dict[str, Any]] = advice.get("choices", [])
    if not choices:
        return {"shown": False, "why": "no choice to advise"}
    stop = advice.get("if_you_stop") or choices
    picked = next(
        (c for c in stop if c.get("category", c.get("choice")) == chosen),
        None,
    )
    return {"shown": True, "best": choices[0], "chosen": picked}


def init_app(app: Flask) -> None:
    """Warm the tables of the games on file that have the coach on (a restarted server)."""
    from companion.web.db import connect

    conn = connect(app.config["DATABASE"])
    try:
        rows = conn.execute("SELECT game, options FROM games").fetchall()
    finally:
        conn.close()
    games = {r["game"] for r in rows if json.loads(r["options"]).get("coach") is True}
    for game_id in sorted(games):
        warm(game_id, cache_dir_of(app))


def cache_dir_of(app: Flask) -> str | None:
    value = app.config.get("COACH_CACHE_DIR")
    return None if value is None else os.fspath(value)
