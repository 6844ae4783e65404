"""The ``dice-companion`` command: wires the reader, the tray calibration and the games together."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from companion.rules import (
    GAMES,
    BoxGame,
    RulesError,
    ThrowGame,
    check_dice,
    find_game,
    options,
    parse_dice_text,
    parse_filled_text,
    score_category,
    score_throw,
)
from companion.rules.errors import InvalidInputError


class UsageError(Exception):
    """A bad command line: printed as one line on stderr, exit status 2."""


def score_json(
    game_id: str, dice_values: Sequence[object], filled: dict[str, Any], category: str | None
) -> dict[str, Any]:
    """The JSON object of ``score --json`` (and of the web API's /api/score)."""
    game = find_game(game_id)
    if isinstance(game, ThrowGame):
        if category:
            raise InvalidInputError("ten-dice has no categories: it scores each throw")
        if filled:
            raise InvalidInputError("ten-dice has no score sheet boxes to fill")
        t = score_throw(game, dice_values)
        return {
            "game": game.id,
            "dice": list(t.dice),
            "points": t.points,
            "scoring": [list(g) for g in t.scoring],
            "non_scoring": list(t.non_scoring),
            "bust": t.bust,
            "all_scored": t.all_scored,
            "reason": t.reason,
        }
    assert isinstance(game, BoxGame)
    dice = list(check_dice(game, dice_values))
    if category:
        opt = score_category(game, dice, category, filled)
        return {"game": game.id, "dice": dice, **opt.__dict__}
    return {
        "game": game.id,
        "dice": dice,
        "options": [o.__dict__ for o in options(game, dice, filled)],
    }


def _cmd_games(args: argparse.Namespace) -> int:
    width = max(len(g) for g in GAMES)
    for game in GAMES.values():
        print(f"{game.id:<{width}}  {game.description}")
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    dice = parse_dice_text(args.dice)
    result = score_json(args.game, dice, parse_filled_text(args.filled), args.category)
    if args.json:
        print(json.dumps(result))
        return 0
    if "options" in result:
        width = max((len(o["category"]) for o in result["options"]), default=8)
        for o in result["options"]:
            bonus = f" +{o['bonus']} bonus" if o["bonus"] else ""
            print(f"{o['category']:<{width}}  {o['points']:>3}{bonus}  {o['reason']}")
        if not result["options"]:
            print("every box is filled")
    elif "category" in result:
        bonus = f" +{result['bonus']} bonus" if result["bonus"] else ""
        print(f"{result['category']}: {result['points']}{bonus}. {result['reason']}")
    else:
        print(f"{result['points']} points. {result['reason']}")
        if result["all_scored"]:
            print("Every die scored: going around the horn if these are all ten dice of the turn.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dice-companion",
        description="Read a tray of dice from a photo, say the faces and keep score.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help="list the games and their ids")
    p.set_defaults(func=_cmd_games)

    p = sub.add_parser("score", help="what dice are worth in a game, and why")
    p.add_argument("--game", required=True, help=f"one of: {', '.join(GAMES)}")
    p.add_argument("--dice", required=True, help="the faces, e.g. 2,2,2,5,5")
    p.add_argument("--filled", help="boxes already filled, e.g. ones=3,five_of_a_kind=50")
    p.add_argument("--category", help="score only this category")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_score)

    for name in _COMMAND_MODULES:
        module = importlib.import_module(name)
        module.register(sub)
    return parser


#: Modules adding their sub-commands with ``register(subparsers)``; each imports its heavy
#: libraries (OpenCV, Flask, numpy) inside its handler so that ``score`` stays fast.
_COMMAND_MODULES: tuple[str, ...] = (
    "companion.read_command",
    "companion.calibrate_command",
    "companion.web.command",
    "companion.coach.command",
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except (RulesError, UsageError) as exc:
        print(f"dice-companion: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (``| head``): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return code


if __name__ == "__main__":
    sys.exit(main())
