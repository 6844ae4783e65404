"""The ``dice-companion coach`` sub-command: best-play advice for dice on the tray.

numpy and the solvers are imported inside the handler, so registering the command costs
nothing to the other commands.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from companion.coach.api import advice_json
from companion.rules import GAMES, ThrowGame


def register(subparsers: Any) -> None:
    """Add the ``coach`` sub-command to the ``dice-companion`` parser."""
    p = subparsers.add_parser(
        "coach",
        help="best play: which dice to keep, which box to fill, bank or throw",
        description=(
            "Exact best-play advice with the expected final score of every choice (solo play, "
            "maximising the expected total). ten-dice: bank or throw, maximising the expected "
            "points of the turn, or with --scores the chance to win against one opponent. "
            "Tables are computed on first use and cached."
        ),
    )
    p.add_argument("--game", required=True, help=f"one of: {', '.join(GAMES)}")
    p.add_argument("--dice", help="the faces on the tray, e.g. 2,3,3,5,6 (omit: before the turn)")
    p.add_argument("--filled", help="boxes already filled, e.g. ones=3,five_of_a_kind=50")
    p.add_argument(
        "--bonus",
        type=int,
        help="bonus points already on the sheet (default: the upper bonus if reached)",
    )
    p.add_argument("--roll", type=int, default=1, help="rolls used this turn, 1 to 3 (default 1)")
    p.add_argument(
        "--turn-total", type=int, default=0, help="ten-dice: points of this turn before the throw"
    )
    p.add_argument(
        "--dice-left",
        type=int,
        help="ten-dice: dice to throw next (default: all ten, or as many as --dice)",
    )
    p.add_argument(
        "--scores", help="ten-dice: your banked score and your opponent's, e.g. 4500,6000"
    )
    p.add_argument("--cache-dir", help="where tables are kept (default: the user cache dir)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def coach_json(args: argparse.Namespace) -> dict[str, Any]:
    """The JSON object of ``coach --json`` for parsed arguments."""
    return advice_json(
        args.game,
        dice=args.dice,
        filled=args.filled,
        roll=args.roll,
        bonus=args.bonus,
        turn_total=args.turn_total,
        dice_left=args.dice_left,
        scores=args.scores,
        cache_dir=args.cache_dir,
    )


def _print_text(result: dict[str, Any]) -> None:
    if "expected_final_score" in result:
        print(f"{result['game']}: expected final score {result['expected_final_score']:.4f}")
        return
    if "policy" in result:
        print(f"policy: {result['policy']}")
    if "throw" in result:
        print(result["throw"]["reason"])
    if result.get("bust"):
        print("bust: the turn ends with no points")
        return
    if result.get("around_the_horn"):
        print(f"around the horn: {result['banked']} banked, a fresh turn of all the dice")
    choices = result["choices"]
    if result["game"] in GAMES and isinstance(GAMES[result["game"]], ThrowGame):
        print(f"turn total {result['turn_total']}, {result['dice_left']} dice to throw")
        for c in choices:
            if "chance_to_win" in c:
                print(f"  {c['choice']:<6} chance to win {c['chance_to_win']:.2%}")
            else:
                print(f"  {c['choice']:<6} expected points {c['expected_points']:.1f}")
        return
    print(f"dice {','.join(map(str, result['dice']))} after roll {result['roll']}")
    if result["choose"] == "keep":
        print("keep                 expected final score")
        for c in choices:
            kept = ",".join(map(str, c["keep"])) or "(reroll all)"
            print(f"  {kept:<18} {c['expected_final_score']:.2f}")
    else:
        print("box                  points  expected final score")
        for c in choices:
            bonus = f"+{c['bonus']}" if c["bonus"] else ""
            print(
                f"  {c['category']:<18} {c['points']:>3}{bonus:<5} {c['expected_final_score']:.2f}"
            )


def run(args: argparse.Namespace) -> int:
    """Handler of ``coach``: print the advice (one JSON object with --json)."""
    result = coach_json(args)
    if args.json:
        print(json.dumps(result))
    else:
        _print_text(result)
    return 0
