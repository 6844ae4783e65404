"""The JSON a client sees of a game: the rules engine's state plus what the pages need."""

from __future__ import annotations

from typing import Any

from flask import url_for

from companion.rules import BoxState
from companion.web.photos import view_name
from companion.web.play import TURN_ENDING, Replay, Step


def photo_json(step: Step) -> dict[str, Any] | None:
    """The photo of a roll with its reading, or None for typed dice."""
    a = step.action
    if not a.photo:
        return None
    return {
        "name": a.photo,
        "url": url_for("pages.photo", name=view_name(a.photo)),
        "reading": a.reading,
        "seq": a.seq,
    }


def state_json(rp: Replay) -> dict[str, Any]:
    """``GET /api/games/<id>``: the state with ``id``, ``version`` and the table's extras.

    ``photo`` is the latest photo of the turn on the table (after a ten-dice bust, the photo
    of the throw that bust), ``last_action`` the latest action that counts.
    """
    state = rp.state
    out = state.to_dict()
    effective = rp.effective()
    photo = None
    for step in reversed(effective):
        if step.action.kind in TURN_ENDING:
            break
        if step.action.kind in ("roll", "reroll") and step.action.photo:
            photo = photo_json(step)
            break
    thrower = next(
        (s.player for s in reversed(effective) if s.action.kind in ("roll", "reroll")), None
    )
    out.update(
        id=rp.game.id,
        last_thrower=thrower,
        version=rp.version,
        created=rp.game.created,
        photo=photo,
        can_undo=bool(effective),
        last_action=None
        if not effective
        else {
            "seq": effective[-1].action.seq,
            "kind": effective[-1].action.kind,
            "event": effective[-1].event,
        },
        free_reroll_rule=state.game.free_reroll_rule,
        tie_rule=state.game.tie_rule,
        dice_count=state.game.dice_count,
        name=state.game.name,
        coach=rp.game.coach,
    )
    if isinstance(state, BoxState):
        game = state.game
        out.update(
            can_roll=state.can_roll(),
            can_score=state.can_score(),
            can_stand=state.phase == "tiebreak" and state.rolls_used > 0 and not state.pending,
            categories=[
                {"id": c.id, "label": c.label, "upper": c.upper, "rule": c.rule}
                for c in game.categories
            ],
            upper_bonus=None
            if game.upper_bonus is None
            else {"threshold": game.upper_bonus.threshold, "points": game.upper_bonus.points},
            upper_totals=[
                sum(v for k, v in s.filled.items() if game.category(k).upper) for s in state.sheets
            ],
        )
    else:
        out.update(can_roll=state.can_roll(), can_score=False, can_stand=False)
    return out


def _value(choice: dict[str, Any]) -> str:
    if "expected_final_score" in choice:
        return f"expected final score {choice['expected_final_score']:.1f}"
    return f"expected {choice.get('expected_points', 0):.0f} points this turn"


def _choice(choice: dict[str, Any], labels: dict[str, str]) -> str:
    if "keep" in choice:
        kept = ", ".join(str(v) for v in choice["keep"])
        return f"keep {kept} and roll again" if kept else "roll every die again"
    if "category" in choice:
        label = labels.get(choice["category"], choice["category"])
        return f"{label} ({choice.get('points', 0)})"
    return "bank" if choice.get("choice") == "bank" else "throw again"


def coach_sentence(rp: Replay, step: Step) -> str | None:
    """For a score or a bank: whether the coach's advice was shown, and what it said."""
    a = step.action
    if a.kind not in ("score", "bank"):
        return None
    note = a.payload.get("coach")
    if not rp.game.coach or not isinstance(note, dict):
        return "coach off: no advice shown"
    if not note.get("shown"):
        return f"no advice shown: {note.get('why', 'the coach had none')}"
    labels = (
        {c.id: c.label for c in rp.state.game.categories} if isinstance(rp.state, BoxState) else {}
    )
    best = note.get("best") or {}
    text = f"advice shown: best {_choice(best, labels)}, {_value(best)}"
    chosen = note.get("chosen")
    if chosen and chosen != best:
        text += f"; this choice {_value(chosen)}"
    elif chosen:
        text += " (this choice)"
    return text


def history_json(rp: Replay) -> dict[str, Any]:
    """Every action in order with who made it, what it did, its photo and reading.

    ``coach_note`` on a score or a bank says whether the coach's advice was shown and what
    it was (the payload's ``coach`` holds the numbers).
    """
    return {
        "id": rp.game.id,
        "game": rp.game.game,
        "players": list(rp.game.players),
        "options": dict(rp.game.options),
        "coach": rp.game.coach,
        "version": rp.version,
        "actions": [
            {
                "seq": s.action.seq,
                "kind": s.action.kind,
                "payload": s.action.payload,
                "created": s.action.created,
                "player": s.player,
                "event": s.event,
                "undone_by": s.undone_by,
                "photo": photo_json(s),
                "coach_note": coach_sentence(rp, s),
            }
            for s in rp.steps
        ],
    }
