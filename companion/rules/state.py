"""The state of a game in play. States are immutable: every action returns a new state, so undo
is keeping the old one and history is the list of states or actions.

``BoxState`` plays the score-sheet games, ``ThrowState`` the ten-dice game; ``new_game`` picks
the right one from the game's declaration.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.rules.dice import Dice, parse_dice, show
from companion.rules.errors import IllegalActionError, InvalidInputError
from companion.rules.evaluate import (
    Option,
    ThrowScore,
    check_dice,
    options,
    score_category,
    score_throw,
)
from companion.rules.games import BoxGame, Game, ThrowGame, find_game


@dataclass(frozen=True)
class Entry:
    """A filled box: its points, the bonus the choice earned, and the turn it was filled in."""

    category: str
    points: int
    bonus: int
    turn: int


@dataclass(frozen=True)
class Sheet:
    player: str
    entries: tuple[Entry, ...] = ()

    @property
    def filled(self) -> dict[str, int]:
        return {e.category: e.points for e in self.entries}

    @property
    def bonus(self) -> int:
        return sum(e.bonus for e in self.entries)

    @property
    def total(self) -> int:
        return sum(e.points + e.bonus for e in self.entries)


def _players(game: Game, players: Sequence[str]) -> tuple[str, ...]:
    names = tuple(" ".join(str(p).split()) for p in players)
    if not game.min_players <= len(names) <= game.max_players:
        raise InvalidInputError(
            f"{game.id} is for {game.min_players} to {game.max_players} players, not {len(names)}"
        )
    if any(not n for n in names):
        raise InvalidInputError("every player needs a name")
    if any(len(n) > 40 for n in names):
        raise InvalidInputError("a player's name is at most 40 characters")
    if len({n.casefold() for n in names}) != len(names):
        raise InvalidInputError("two players have the same name")
    return names


def _indices(raw: Iterable[object], size: int, what: str) -> tuple[int, ...]:
    out: list[int] = []
    for i in raw:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < size:
            raise InvalidInputError(f"{what} must be die positions 0 to {size - 1}, not {i!r}")
        if i in out:
            raise InvalidInputError(f"{what} names die {i} twice")
        out.append(i)
    return tuple(sorted(out))


def _not_finished(finished: bool) -> None:
    if finished:
        raise IllegalActionError("the game is over")


@dataclass(frozen=True)
class BoxState:
    """A score-sheet game in play.

    ``dice`` are the dice on the table by position (empty before the turn's first roll);
    ``kept`` the positions kept from the previous roll; ``pending`` the positions of dice that
    landed leaning or off the tray and must be rolled again for free before the roll counts.
    ``phase`` is ``play``, ``tiebreak`` (the five-dice extra turn) or ``finished``.
    """

    game: BoxGame
    players: tuple[str, ...]
    sheets: tuple[Sheet, ...]
    current: int = 0
    turn: int = 1
    rolls_used: int = 0
    dice: Dice = ()
    kept: tuple[int, ...] = ()
    pending: tuple[int, ...] = ()
    phase: str = "play"
    tiebreak: bool = False
    practice: bool = False
    tiebreak_players: tuple[int, ...] = ()
    tiebreak_sums: tuple[int, ...] = ()
    last_event: str = ""

    # -- questions -------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.phase == "finished"

    @property
    def player(self) -> str:
        return self.players[self.current]

    def can_roll(self) -> bool:
        return not self.finished and not self.pending and self.rolls_used < self.game.rolls_per_turn

    def can_score(self) -> bool:
        return self.phase == "play" and self.rolls_used > 0 and not self.pending

    def totals(self) -> tuple[int, ...]:
        return tuple(s.total for s in self.sheets)

    def winners(self) -> tuple[str, ...]:
        """The winners once the game is finished (several when they share the win)."""
        if not self.finished:
            return ()
        if self.tiebreak_sums:
            best = max(self.tiebreak_sums)
            return tuple(
                self.players[p]
                for p, s in zip(self.tiebreak_players, self.tiebreak_sums, strict=True)
                if s == best
            )
        best = max(self.totals())
        return tuple(p for p, t in zip(self.players, self.totals(), strict=True) if t == best)

    def options(self) -> list[Option]:
        """The open boxes for the current dice, best first; empty when scoring is not allowed."""
        if not self.can_score():
            return []
        return options(self.game, self.dice, self.sheets[self.current].filled)

    # -- actions ---------------------------------------------------------------------------
    def roll(
        self,
        thrown: Iterable[object],
        *,
        keep: Iterable[object] = (),
        flagged: Iterable[object] = (),
    ) -> BoxState:
        """Roll the dice not kept. ``thrown`` are the new values in position order of the dice
        not kept; ``flagged`` are positions (among those thrown) of dice to reroll for free."""
        _not_finished(self.finished)
        if self.pending:
            raise IllegalActionError("reroll the leaning or fallen dice first; that reroll is free")
        if self.rolls_used >= self.game.rolls_per_turn:
            raise IllegalActionError(
                f"{self.player} has used all {self.game.rolls_per_turn} rolls; choose a box"
            )
        n = self.game.dice_count
        keep_ix = _indices(keep, n, "keep") if self.rolls_used else ()
        if not self.rolls_used and tuple(keep):
            raise IllegalActionError("the first roll of a turn throws all the dice")
        values = parse_dice(thrown)
        rolled = [i for i in range(n) if i not in keep_ix]
        if len(values) != len(rolled):
            raise InvalidInputError(
                f"keeping {len(keep_ix)} of {n} dice, {len(rolled)} are rolled, "
                f"but {len(values)} values were given"
            )
        flags = _indices(flagged, n, "flagged")
        if any(i in keep_ix for i in flags):
            raise InvalidInputError("a kept die was not rolled, so it cannot be flagged")
        dice = list(self.dice) if self.dice else [0] * n
        for i, v in zip(rolled, values, strict=True):
            dice[i] = v
        return replace(
            self,
            rolls_used=self.rolls_used + 1,
            dice=tuple(dice),
            kept=keep_ix,
            pending=flags,
            last_event=f"{self.player} rolled {show(dice)}",
        )

    def reroll_flagged(
        self, values: Iterable[object], *, flagged: Iterable[object] = ()
    ) -> BoxState:
        """Give the new values of the flagged dice (in position order); costs no roll.
        ``flagged`` are positions among them that landed badly again."""
        _not_finished(self.finished)
        if not self.pending:
            raise IllegalActionError("no die is waiting for a free reroll")
        new = parse_dice(values)
        if len(new) != len(self.pending):
            raise InvalidInputError(
                f"{len(self.pending)} dice are rerolled for free, but {len(new)} values were given"
            )
        flags = _indices(flagged, self.game.dice_count, "flagged")
        if any(i not in self.pending for i in flags):
            raise InvalidInputError("only a rerolled die can be flagged again")
        dice = list(self.dice)
        for i, v in zip(self.pending, new, strict=True):
            dice[i] = v
        return replace(
            self,
            dice=tuple(dice),
            pending=flags,
            last_event=f"{self.player} rerolled the flagged dice for free: {show(dice)}",
        )

    def correct(self, index: object, value: object) -> BoxState:
        """Fix a misread die of the current roll before it is scored."""
        _not_finished(self.finished)
        if not self.rolls_used:
            raise IllegalActionError("there are no dice to correct before the first roll")
        (i,) = _indices([index], self.game.dice_count, "index")
        (v,) = parse_dice([value])
        dice = list(self.dice)
        old, dice[i] = dice[i], v
        pending = tuple(p for p in self.pending if p != i)
        return replace(
            self,
            dice=tuple(dice),
            pending=pending,
            last_event=f"die {i + 1} corrected from {old} to {v}",
        )

    def score(self, category: str) -> BoxState:
        """Fill one open box of the current player with the current dice and pass the turn."""
        _not_finished(self.finished)
        if self.phase != "play":
            raise IllegalActionError("the tie-break turn compares the dice; stand instead")
        if not self.rolls_used:
            raise IllegalActionError(f"{self.player} must roll before choosing a box")
        if self.pending:
            raise IllegalActionError("reroll the leaning or fallen dice before scoring")
        sheet = self.sheets[self.current]
        opt = score_category(self.game, self.dice, category, sheet.filled)
        entry = Entry(opt.category, opt.points, opt.bonus, self.turn)
        sheets = list(self.sheets)
        sheets[self.current] = replace(sheet, entries=(*sheet.entries, entry))
        label = self.game.category(opt.category).label
        event = f"{self.player} scored {opt.points} in {label}"
        if opt.bonus:
            event += f" (+{opt.bonus} bonus)"
        return replace(self, sheets=tuple(sheets), last_event=event)._next_player()

    def stand(self) -> BoxState:
        """End a tie-break turn; its score is the sum of the final dice."""
        if self.phase != "tiebreak":
            raise IllegalActionError("standing ends a tie-break turn; in play, choose a box")
        if not self.rolls_used or self.pending:
            raise IllegalActionError(f"{self.player} must roll before standing")
        sums = (*self.tiebreak_sums, sum(self.dice))
        at = self.tiebreak_players.index(self.current)
        base = replace(
            self,
            tiebreak_sums=sums,
            rolls_used=0,
            dice=(),
            kept=(),
            last_event=f"{self.player} stands on {sum(self.dice)}",
        )
        if at + 1 < len(self.tiebreak_players):
            return replace(base, current=self.tiebreak_players[at + 1])
        return replace(base, phase="finished")

    def _next_player(self) -> BoxState:
        nxt = replace(self, rolls_used=0, dice=(), kept=(), pending=())
        if self.current + 1 < len(self.players):
            return replace(nxt, current=self.current + 1)
        if self.turn < self.game.turns:
            return replace(nxt, current=0, turn=self.turn + 1)
        done = replace(nxt, phase="finished")
        winners = done.winners()
        if self.tiebreak and self.game.extra_turn_tiebreak and len(winners) > 1:
            tied = tuple(self.players.index(w) for w in winners)
            return replace(
                nxt,
                phase="tiebreak",
                tiebreak_players=tied,
                current=tied[0],
                last_event=f"{' and '.join(winners)} tie; each plays one extra turn",
            )
        return done

    def to_dict(self) -> dict[str, Any]:
        """The state as plain JSON values."""
        pending = set(self.pending)
        return {
            "game": self.game.id,
            "kind": self.game.kind,
            "players": list(self.players),
            "current_player": None if self.finished else self.player,
            "current": self.current,
            "turn": self.turn,
            "turns": self.game.turns,
            "roll_number": self.rolls_used,
            "rolls_per_turn": self.game.rolls_per_turn,
            "dice": [
                {"value": v, "kept": i in self.kept, "flagged": i in pending}
                for i, v in enumerate(self.dice)
            ],
            "pending_reroll": list(self.pending),
            "phase": self.phase,
            "practice": self.practice,
            "tiebreak": self.tiebreak,
            "sheets": [
                {
                    "player": s.player,
                    "boxes": s.filled,
                    "entries": [e.__dict__ for e in s.entries],
                    "bonus": s.bonus,
                    "total": s.total,
                }
                for s in self.sheets
            ],
            "totals": list(self.totals()),
            "tiebreak_sums": dict(
                zip(
                    [self.players[p] for p in self.tiebreak_players],
                    self.tiebreak_sums,
                    strict=False,
                )
            ),
            "options": [o.__dict__ for o in self.options()],
            "finished": self.finished,
            "winners": list(self.winners()),
            "last_event": self.last_event,
        }


@dataclass(frozen=True)
class ThrowState:
    """A ten-dice game in play.

    ``set_aside`` are the scoring groups of this turn's throws; ``dice_left`` how many dice the
    next throw uses; ``last_throw`` the latest throw's score; ``pending`` positions, in the dice
    being thrown, of dice that landed leaning or off the tray and are thrown again for free.
    ``before_throw`` is the state the latest throw was made from, so a misread can be fixed.
    """

    game: ThrowGame
    players: tuple[str, ...]
    scores: tuple[int, ...]
    current: int = 0
    turn: int = 1
    turn_total: int = 0
    set_aside: tuple[tuple[int, ...], ...] = ()
    dice_left: int = 10
    throws: int = 0
    last_throw: ThrowScore | None = None
    pending: tuple[int, ...] = ()
    pending_dice: Dice = ()
    winner: str | None = None
    last_event: str = ""
    practice: bool = False
    before_throw: ThrowState | None = field(default=None, repr=False, compare=False)

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def player(self) -> str:
        return self.players[self.current]

    @property
    def phase(self) -> str:
        return "finished" if self.finished else "play"

    def can_roll(self) -> bool:
        return not self.finished and not self.pending

    def can_bank(self) -> bool:
        return not self.finished and not self.pending and self.turn_total > 0

    def totals(self) -> tuple[int, ...]:
        return self.scores

    def winners(self) -> tuple[str, ...]:
        return (self.winner,) if self.winner else ()

    def roll(
        self,
        thrown: Iterable[object],
        *,
        keep: Iterable[object] = (),
        flagged: Iterable[object] = (),
    ) -> ThrowState:
        """Throw every die not set aside; scoring dice are set aside without choice."""
        _not_finished(self.finished)
        if tuple(keep):
            raise IllegalActionError(
                "in ten-dice every non-scoring die is thrown again; no die can be kept"
            )
        if self.pending:
            raise IllegalActionError("throw the leaning or fallen dice again first")
        values = check_dice(self.game, thrown)
        if len(values) != self.dice_left:
            raise InvalidInputError(
                f"{self.player} throws {self.dice_left} dice, but {len(values)} values were given"
            )
        flags = _indices(flagged, len(values), "flagged")
        if flags:
            return replace(
                self,
                pending=flags,
                pending_dice=values,
                last_event=f"{len(flags)} die(s) landed badly and are thrown again for free",
            )
        return self._evaluate(values)

    def reroll_flagged(
        self, values: Iterable[object], *, flagged: Iterable[object] = ()
    ) -> ThrowState:
        _not_finished(self.finished)
        if not self.pending:
            raise IllegalActionError("no die is waiting for a free reroll")
        new = parse_dice(values)
        if len(new) != len(self.pending):
            raise InvalidInputError(
                f"{len(self.pending)} dice are thrown again for free, "
                f"but {len(new)} values were given"
            )
        flags = _indices(flagged, len(self.pending_dice), "flagged")
        if any(i not in self.pending for i in flags):
            raise InvalidInputError("only a rethrown die can be flagged again")
        dice = list(self.pending_dice)
        for i, v in zip(self.pending, new, strict=True):
            dice[i] = v
        if flags:
            return replace(self, pending=flags, pending_dice=tuple(dice))
        return replace(self, pending=(), pending_dice=())._evaluate(tuple(dice))

    def correct(self, index: object, value: object) -> ThrowState:
        """Fix a misread die of the latest throw; the throw is scored again from scratch."""
        _not_finished(self.finished)
        if self.pending:
            dice = list(self.pending_dice)
            (i,) = _indices([index], len(dice), "index")
            (v,) = parse_dice([value])
            dice[i] = v
            return replace(self, pending_dice=tuple(dice))
        if self.before_throw is None or self.last_throw is None:
            raise IllegalActionError("only the latest throw can be corrected, before anything else")
        dice = list(self.last_throw.dice)
        (i,) = _indices([index], len(dice), "index")
        (v,) = parse_dice([value])
        old, dice[i] = dice[i], v
        fixed = self.before_throw._evaluate(tuple(dice))
        return replace(
            fixed, last_event=f"die {i + 1} corrected from {old} to {v}; " + fixed.last_event
        )

    def _evaluate(self, values: Dice) -> ThrowState:
        result = score_throw(self.game, values)
        base = replace(self, last_throw=result, before_throw=replace(self, before_throw=None))
        if result.bust:
            lost = self.turn_total
            return replace(
                base._pass_turn(),
                last_event=f"{self.player} busts: {result.reason}; {lost} points lost",
            )
        used = sum(len(g) for g in result.scoring)
        total = self.turn_total + result.points
        thrown = replace(
            base,
            turn_total=total,
            set_aside=self.set_aside + result.scoring,
            dice_left=self.dice_left - used,
            throws=self.throws + 1,
            last_event=f"{self.player}: {result.reason}; {total} this turn",
        )
        if thrown.dice_left == 0:
            banked = thrown._bank_points()
            if banked.finished:
                return banked
            return replace(
                banked._new_turn(same_player=True),
                last_event=f"{self.player} goes around the horn: {total} points banked "
                "and another turn",
            )
        return thrown

    def bank(self) -> ThrowState:
        """Stop and keep this turn's points."""
        _not_finished(self.finished)
        if self.pending:
            raise IllegalActionError("throw the leaning or fallen dice again first")
        if self.turn_total <= 0:
            raise IllegalActionError(f"{self.player} has no points this turn to keep")
        total = self.turn_total
        banked = self._bank_points()
        if banked.finished:
            return banked
        return replace(banked._pass_turn(), last_event=f"{self.player} keeps {total} points")

    def _bank_points(self) -> ThrowState:
        scores = list(self.scores)
        scores[self.current] += self.turn_total
        done = replace(self, scores=tuple(scores))
        if scores[self.current] >= self.game.target:
            return replace(
                done,
                winner=self.player,
                last_event=f"{self.player} reaches {scores[self.current]} and wins",
            )
        return done

    def _new_turn(self, *, same_player: bool) -> ThrowState:
        nxt = self.current if same_player else (self.current + 1) % len(self.players)
        return replace(
            self,
            current=nxt,
            turn=self.turn + 1,
            turn_total=0,
            set_aside=(),
            dice_left=self.game.dice_count,
            throws=0,
            pending=(),
            pending_dice=(),
        )

    def _pass_turn(self) -> ThrowState:
        return self._new_turn(same_player=False)

    def to_dict(self) -> dict[str, Any]:
        last = self.last_throw
        pending = set(self.pending)
        return {
            "game": self.game.id,
            "kind": self.game.kind,
            "players": list(self.players),
            "current_player": None if self.finished else self.player,
            "current": self.current,
            "turn": self.turn,
            "throws": self.throws,
            "turn_total": self.turn_total,
            "set_aside": [list(g) for g in self.set_aside],
            "dice_left": self.dice_left,
            "dice": [
                {"value": v, "kept": False, "flagged": i in pending}
                for i, v in enumerate(self.pending_dice or (last.dice if last else ()))
            ],
            "pending_reroll": list(self.pending),
            "last_throw": None
            if last is None
            else {
                "dice": list(last.dice),
                "points": last.points,
                "scoring": [list(g) for g in last.scoring],
                "non_scoring": list(last.non_scoring),
                "bust": last.bust,
                "all_scored": last.all_scored,
                "reason": last.reason,
            },
            "scores": list(self.scores),
            "totals": list(self.scores),
            "target": self.game.target,
            "phase": self.phase,
            "practice": self.practice,
            "can_bank": self.can_bank(),
            "finished": self.finished,
            "winners": list(self.winners()),
            "last_event": self.last_event,
        }


State = BoxState | ThrowState


def new_game(
    game: Game | str, players: Sequence[str], *, tiebreak: bool = False, practice: bool = False
) -> State:
    """Start a game. ``tiebreak``: five-dice's agreed extra turn for tied players;
    ``practice``: a game labelled unscored."""
    g = find_game(game) if isinstance(game, str) else game
    names = _players(g, players)
    if tiebreak and not g.extra_turn_tiebreak:
        raise InvalidInputError(f"{g.id} has no extra-turn tie-break")
    if isinstance(g, ThrowGame):
        return ThrowState(g, names, (0,) * len(names), dice_left=g.dice_count, practice=practice)
    return BoxState(g, names, tuple(Sheet(n) for n in names), tiebreak=tiebreak, practice=practice)
