"""Games as event logs: create a game, append an action in one transaction, rebuild the state
by replaying the actions through the rules engine.

A game row holds the game id, the players and the options (a JSON object: ``tiebreak``,
``practice``, ``coach``; a missing key is off, so older games need no migration); the
``actions`` rows hold every
action in order (``seq`` 1, 2, ...), each with its JSON payload, the photo it was read from
and the reader's original reading. Undo appends an ``undo`` row naming the action it cancels,
so nothing is ever deleted: the history shows the cancelled action and the undo. The game's
``version`` is the number of rows; a client that sends the version it saw gets a 409 when
someone else acted in between.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from companion.rules import BoxState, IllegalActionError, InvalidInputError, State, new_game
from companion.web.db import immediate
from companion.web.errors import GameNotFoundError, StaleError

#: Action kinds and the state method each replays.
KINDS = ("roll", "reroll", "correct", "score", "stand", "bank", "undo")
#: Actions after which a new turn's dice are on the table.
TURN_ENDING = ("score", "stand", "bank")


@dataclass(frozen=True)
class GameRow:
    id: str
    game: str
    players: tuple[str, ...]
    options: dict[str, bool]
    created: str

    @property
    def coach(self) -> bool:
        """Whether the players switched the coach on (games stored before it: off)."""
        return self.options.get("coach") is True


@dataclass(frozen=True)
class Action:
    """One row of the log. ``reading`` is the web reading of the photo (see
    ``companion.web.reading.web_reading``), None for typed dice."""

    seq: int
    kind: str
    payload: dict[str, Any]
    created: str
    photo: str | None = None
    reading: dict[str, Any] | None = None


@dataclass
class Step:
    """An action as replayed: the player who made it, the event it caused, whether undone."""

    action: Action
    player: str = ""
    event: str = ""
    undone_by: int | None = None


@dataclass
class Replay:
    game: GameRow
    state: State
    version: int
    steps: list[Step] = field(default_factory=list)

    def effective(self) -> list[Step]:
        """The steps that count: neither undone nor undos."""
        return [s for s in self.steps if s.undone_by is None and s.action.kind != "undo"]


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_id() -> str:
    """A random, URL-safe game id that cannot be guessed (about 72 bits)."""
    return secrets.token_urlsafe(9)


def create(
    conn: sqlite3.Connection,
    game_id: str,
    players: list[str],
    *,
    tiebreak: bool = False,
    practice: bool = False,
    coach: bool = False,
) -> Replay:
    """Check the options with the rules engine, store the game and return its fresh replay.

    ``coach`` (the best-play advice shown to every player) is the companion's option, not a
    rule: the rules engine never sees it.
    """
    state = new_game(game_id, players, tiebreak=tiebreak, practice=practice)
    row = GameRow(
        new_id(),
        state.game.id,
        tuple(state.players),
        {"tiebreak": tiebreak, "practice": practice, "coach": coach},
        now(),
    )
    with immediate(conn):
        conn.execute(
            "INSERT INTO games (id, game, players, options, created) VALUES (?, ?, ?, ?, ?)",
            (row.id, row.game, json.dumps(list(row.players)), json.dumps(row.options), row.created),
        )
    return Replay(row, state, 0)


def load(conn: sqlite3.Connection, gid: str) -> tuple[GameRow, list[Action]]:
    """The game row and its actions in order, or GameNotFoundError."""
    r = conn.execute("SELECT * FROM games WHERE id = ?", (gid,)).fetchone()
    if r is None:
        raise GameNotFoundError(f"no game has the id {gid!r}")
    row = GameRow(
        r["id"], r["game"], tuple(json.loads(r["players"])), json.loads(r["options"]), r["created"]
    )
    actions = [
        Action(
            a["seq"],
            a["kind"],
            json.loads(a["payload"]),
            a["created"],
            a["photo"],
            json.loads(a["reading"]) if a["reading"] else None,
        )
        for a in conn.execute(
            "SELECT * FROM actions WHERE game_id = ? ORDER BY seq", (gid,)
        ).fetchall()
    ]
    return row, actions


def recent(conn: sqlite3.Connection, limit: int = 20) -> list[GameRow]:
    """The latest games, newest first."""
    rows = conn.execute(
        "SELECT * FROM games ORDER BY created DESC, rowid DESC LIMIT ?", (limit,)
    ).fetchall()
    return [
        GameRow(
            r["id"],
            r["game"],
            tuple(json.loads(r["players"])),
            json.loads(r["options"]),
            r["created"],
        )
        for r in rows
    ]


def cited_photos(conn: sqlite3.Connection) -> set[str]:
    """The names of every photo an action cites (undone actions too: they are evidence)."""
    rows = conn.execute("SELECT DISTINCT photo FROM actions WHERE photo IS NOT NULL").fetchall()
    return {str(r[0]) for r in rows}


def apply(state: State, kind: str, payload: Mapping[str, Any]) -> State:
    """The state after one action; raises the rules engine's errors."""
    if kind == "roll":
        return state.roll(
            _list(payload, "dice"), keep=_list(payload, "keep"), flagged=_list(payload, "flagged")
        )
    if kind == "reroll":
        return state.reroll_flagged(_list(payload, "dice"), flagged=_list(payload, "flagged"))
    if kind == "correct":
        return state.correct(payload.get("index"), payload.get("value"))
    if kind == "score":
        if not isinstance(state, BoxState):
            raise IllegalActionError(f"{state.game.id} has no boxes to fill: bank or throw again")
        category = payload.get("category")
        if not isinstance(category, str) or not category.strip():
            raise InvalidInputError('score needs a "category", e.g. {"category": "fours"}')
        return state.score(category)
    if kind == "stand":
        if not isinstance(state, BoxState):
            raise IllegalActionError(f"{state.game.id} has no tie-break turn")
        return state.stand()
    if kind == "bank":
        if isinstance(state, BoxState):
            raise IllegalActionError(f"{state.game.id} has no banking: choose a box")
        return state.bank()
    raise InvalidInputError(f"unknown action {kind!r}")


def _list(payload: Mapping[str, Any], key: str) -> list[Any]:
    value = payload.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInputError(f'"{key}" must be a list, not {value!r}')
    return value


def replay(row: GameRow, actions: list[Action]) -> Replay:
    """Rebuild the state from the start by applying every action that was not undone."""
    undone: dict[int, int] = {}
    for a in actions:
        if a.kind == "undo":
            undone[int(a.payload["undoes"])] = a.seq
    state = new_game(
        row.game,
        list(row.players),
        tiebreak=bool(row.options.get("tiebreak")),
        practice=bool(row.options.get("practice")),
    )
    steps: list[Step] = []
    for a in actions:
        step = Step(a, undone_by=undone.get(a.seq))
        steps.append(step)
        if a.kind != "undo":
            step.player = "" if state.finished else state.player
        if a.kind == "undo" or step.undone_by is not None:
            continue
        state = apply(state, a.kind, a.payload)
        step.event = state.last_event
    return Replay(row, state, len(actions), steps)


def replay_game(conn: sqlite3.Connection, gid: str) -> Replay:
    row, actions = load(conn, gid)
    return replay(row, actions)


def act(
    conn: sqlite3.Connection,
    gid: str,
    kind: str | Callable[[State], tuple[str, dict[str, Any]]],
    payload: Mapping[str, Any] | None = None,
    *,
    version: int | None = None,
    photo: str | None = None,
    reading: dict[str, Any] | None = None,
) -> Replay:
    """Append one action in one transaction and return the replay after it.

    ``kind`` is an action name with its ``payload``, or a function from the current state to
    ``(kind, payload)`` (a photo roll decides which dice were thrown from the state). With
    ``version``, the action is refused (StaleError) unless the log still has that many rows.
    """
    with immediate(conn):
        row, actions = load(conn, gid)
        rp = replay(row, actions)
        if version is not None and version != rp.version:
            raise StaleError(
                f"the game has moved on (version {rp.version}, you saw {version}); "
                "reload and try again"
            )
        if callable(kind):
            kind, payload = kind(rp.state)
        payload = dict(payload or {})
        after: State | None = None
        if kind == "undo":
            effective = rp.effective()
            if not effective:
                raise IllegalActionError("there is nothing to undo")
            payload = {"undoes": effective[-1].action.seq}
        elif kind not in KINDS:
            raise InvalidInputError(f"unknown action {kind!r}")
        else:
            after = apply(rp.state, kind, payload)
        action = Action(len(actions) + 1, kind, payload, now(), photo, reading)
        conn.execute(
            "INSERT INTO actions (game_id, seq, kind, payload, created, photo, reading) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                gid,
                action.seq,
                action.kind,
                json.dumps(action.payload),
                action.created,
                action.photo,
                json.dumps(reading) if reading is not None else None,
            ),
        )
        actions.append(action)
    if after is None:  # an undo: the state is rebuilt without the cancelled action
        return replay(row, actions)
    player = "" if rp.state.finished else rp.state.player
    rp.steps.append(Step(action, player=player, event=after.last_event))
    return Replay(row, after, len(actions), rp.steps)
