"""The ``dice-companion coach`` sub-command: best-play advice for dice on the tray.

numpy and the solvers are imported inside the handler, so registering the command costs
nothing to the other commands.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from companion.rules import GAMES, BoxGame, ThrowGame, find_game, parse_dice_text, score_throw
from companion.rules.errors import InvalidInputError

TURN_POLICY = (
    "turn: maximise the expected points of this turn; a throw scoring every die banks and "
    "grants another turn, whose expected points are included"
)
WIN_POLICY = (
    "win: maximise the chance to win against one opponent who plays the same way (first to "
    "bank {target} wins; scores in steps of {step})"
)


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


def _parse_filled(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        name, sep, points = part.partition("=")
        if not sep or not name.strip() or not points.strip():
            raise InvalidInputError(f"--filled takes CATEGORY=POINTS pairs, not {part.strip()!r}")
        out[name.strip()] = points.strip()
    return out


def _parse_scores(text: str) -> tuple[int, int]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise InvalidInputError(f"--scores takes two scores like 4500,6000, not {text!r}")
    return int(parts[0]), int(parts[1])


def coach_json(args: argparse.Namespace) -> dict[str, Any]:
    """The JSON object of ``coach --json``: every choice with its value, best first."""
    game = find_game(args.game)
    if isinstance(game, ThrowGame):
        return _throw_json(game, args)
    assert isinstance(game, BoxGame)
    if args.scores is not None or args.dice_left is not None or args.turn_total:
        raise InvalidInputError("--scores, --dice-left and --turn-total are for ten-dice")
    from companion.coach.advice import advise, expected_final_score

    filled = _parse_filled(args.filled)
    cache_dir = args.cache_dir
    if args.dice is None:
        value = expected_final_score(game, filled, bonus=args.bonus, cache_dir=cache_dir)
        out: dict[str, Any] = {"game": game.id, "expected_final_score": value}
        if filled:
            out["filled"] = {k: int(v) for k, v in filled.items()}
        return out
    advice = advise(
        game, parse_dice_text(args.dice), args.roll, filled, bonus=args.bonus, cache_dir=cache_dir
    )
    boxes = [
        {
            "category": b.category,
            "points": b.points,
            "bonus": b.bonus,
            "expected_final_score": b.expected_final_score,
        }
        for b in advice.boxes
    ]
    out = {
        "game": game.id,
        "dice": list(advice.dice),
        "roll": advice.roll,
        "score_so_far": advice.score_so_far,
        "policy": "maximise the expected final score (solo play)",
    }
    if advice.keeps:
        out["choose"] = "keep"
        out["choices"] = [
            {"keep": list(k.keep), "expected_final_score": k.expected_final_score}
            for k in advice.keeps
        ]
        out["if_you_stop"] = boxes
    else:
        out["choose"] = "box"
        out["choices"] = boxes
    return out


def _throw_json(game: ThrowGame, args: argparse.Namespace) -> dict[str, Any]:
    if args.filled or args.bonus is not None or args.roll != 1:
        raise InvalidInputError("ten-dice has no boxes, bonus or roll number: use --turn-total")
    from companion.coach import tendice

    turn_total = args.turn_total
    if turn_total < 0:
        raise InvalidInputError(f"--turn-total must be >= 0, not {turn_total}")
    dice_left = args.dice_left if args.dice_left is not None else game.dice_count
    out: dict[str, Any] = {"game": game.id}
    if args.dice is not None:
        result = score_throw(game, parse_dice_text(args.dice))
        if args.dice_left is not None and args.dice_left != len(result.dice):
            raise InvalidInputError(
                f"--dice-left {args.dice_left} but {len(result.dice)} dice were thrown"
            )
        out["throw"] = {
            "dice": list(result.dice),
            "points": result.points,
            "scoring": [list(g) for g in result.scoring],
            "non_scoring": list(result.non_scoring),
            "reason": result.reason,
        }
        if result.bust:
            out.update(bust=True, turn_total=0, choices=[])
            return out
        turn_total += result.points
        dice_left = len(result.non_scoring)
    if not 0 <= dice_left <= game.dice_count:
        raise InvalidInputError(f"--dice-left is 1 to {game.dice_count}, not {dice_left}")
    th = tendice.throws(game)
    if turn_total % th.step:
        raise InvalidInputError(f"a turn total is a multiple of {th.step}, not {turn_total}")
    horn = dice_left == 0
    if horn:
        # Around the horn: the turn total is banked and a fresh turn of all the dice begins.
        out["around_the_horn"] = True
        out["banked"] = turn_total
        dice_left = game.dice_count
    out["turn_total"] = 0 if horn else turn_total
    out["dice_left"] = dice_left
    start = dice_left == game.dice_count
    if start and not horn and turn_total:
        raise InvalidInputError(f"all {game.dice_count} dice are thrown only at a turn's start")
    if args.scores is None:
        policy = tendice.turn_policy(game)
        out["policy"] = TURN_POLICY
        bank, throw = policy.value(out["turn_total"], dice_left)
        if start:
            bank, throw = math.nan, policy.fresh_turn
        choices = [("bank", bank), ("throw", throw)]
        key = "expected_points"
        if horn:
            # The banked points count in this turn's expected points, with the fresh turn's.
            choices = [("throw", turn_total + policy.fresh_turn)]
    else:
        mine, theirs = _parse_scores(args.scores)
        if horn:
            mine += turn_total
        for s in (mine, theirs):
            if s % th.step:
                raise InvalidInputError(f"a score is a multiple of {th.step}, not {s}")
        if max(mine, theirs) >= game.target:
            raise InvalidInputError(f"the game is over: {game.target} was reached")
        out["scores"] = [mine, theirs]
        out["policy"] = WIN_POLICY.format(target=game.target, step=th.step)
        choice = tendice.win_choice(
            game, mine, theirs, out["turn_total"], dice_left, cache_dir=args.cache_dir
        )
        choices = [("bank", choice.bank), ("throw", choice.throw)]
        key = "chance_to_win"
    ranked = sorted(((c, v) for c, v in choices if not math.isnan(v)), key=lambda cv: -cv[1])
    out["choices"] = [{"choice": c, key: v} for c, v in ranked]
    return out


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
