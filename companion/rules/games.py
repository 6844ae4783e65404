"""The four games, declared as data, and the registry that finds them by id."""

from __future__ import annotations

from dataclasses import dataclass

from companion.rules.errors import UnknownCategoryError, UnknownGameError
from companion.rules.scoring import (
    Scorer,
    face,
    fixed_if,
    full_house,
    n_of_a_kind,
    straight,
    sum_if,
    total,
)


@dataclass(frozen=True)
class Category:
    """One box of a score sheet; ``rule`` is the sentence of the seed that defines it."""

    id: str
    label: str
    scorer: Scorer
    rule: str
    upper: bool = False
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class UpperBonus:
    """Extra points once the upper boxes together reach ``threshold``."""

    threshold: int
    points: int
    rule: str


@dataclass(frozen=True)
class RepeatBonus:
    """Extra points for each further roll that would fill ``category`` again while it holds
    ``requires_points``."""

    category: str
    requires_points: int
    points: int
    rule: str


@dataclass(frozen=True)
class BoxGame:
    """A score-sheet game: roll up to ``rolls_per_turn`` times, then fill one open box."""

    id: str
    name: str
    description: str
    seed: str
    dice_count: int
    rolls_per_turn: int
    categories: tuple[Category, ...]
    upper_bonus: UpperBonus | None = None
    repeat_bonus: RepeatBonus | None = None
    min_players: int = 1
    max_players: int = 8
    tie_rule: str = "Highest total wins; equal totals tie."
    #: The seed lets the players agree before starting to break a tie by one extra turn.
    extra_turn_tiebreak: bool = False
    #: The seed describes a practice sheet labelled unscored.
    practice_option: bool = False
    free_reroll_rule: str = (
        "A die must land flat inside the tray; reroll only a fallen or leaning die "
        "without using an extra roll allowance."
    )

    @property
    def kind(self) -> str:
        return "box"

    @property
    def turns(self) -> int:
        return len(self.categories)

    def category(self, name: str) -> Category:
        """The category with this id or alias, or UnknownCategoryError."""
        key = name.strip().lower().replace("-", "_").replace(" ", "_")
        for cat in self.categories:
            if key == cat.id or key in cat.aliases:
                return cat
        known = ", ".join(c.id for c in self.categories)
        raise UnknownCategoryError(f"{self.id} has no category {name!r}; its categories: {known}")


@dataclass(frozen=True)
class ThrowGame:
    """A push-your-luck game: throw, set aside every scoring die, throw the rest or bank."""

    id: str
    name: str
    description: str
    seed: str
    dice_count: int
    target: int
    #: (face, points) for three of that face thrown together.
    triples: tuple[tuple[int, int], ...]
    #: (face, points) for a single die of that face that is not part of a triple.
    singles: tuple[tuple[int, int], ...]
    min_players: int = 2
    max_players: int = 8
    tie_rule: str = (
        "The game ends immediately when someone's score reaches or exceeds 10,000 points; "
        "that player wins."
    )
    free_reroll_rule: str = (
        "A die that falls out of the tray or lands leaning is thrown again before the throw counts."
    )
    extra_turn_tiebreak: bool = False
    practice_option: bool = False

    @property
    def kind(self) -> str:
        return "throw"


Game = BoxGame | ThrowGame

_FACE_NAMES = ("Ones", "Twos", "Threes", "Fours", "Fives", "Sixes")


def _upper(rule: str) -> tuple[Category, ...]:
    return tuple(
        Category(name.lower(), name, face(v), rule.format(word=name.lower()), upper=True)
        for v, name in enumerate(_FACE_NAMES, start=1)
    )


def _lower(*, choice_id: str, choice_label: str, other: str) -> tuple[Category, ...]:
    return (
        Category(
            "three_of_a_kind",
            "Three of a Kind",
            sum_if(n_of_a_kind(3)),
            "Three of a Kind requires at least three dice showing one number and scores "
            "the sum of all five dice.",
        ),
        Category(
            "four_of_a_kind",
            "Four of a Kind",
            sum_if(n_of_a_kind(4)),
            "Four of a Kind requires at least four dice showing one number and scores "
            "the sum of all five dice.",
        ),
        Category(
            "full_house",
            "Full House",
            fixed_if(full_house(), 25),
            "A Full House is exactly three of one number and two of another, and scores 25 points.",
        ),
        Category(
            "small_straight",
            "Small Straight",
            fixed_if(straight(4), 30),
            "A Small Straight is four consecutive numbers among your dice and scores 30.",
        ),
        Category(
            "large_straight",
            "Large Straight",
            fixed_if(straight(5), 40),
            "A Large Straight is five consecutive numbers, 1 through 5 or 2 through 6, "
            "and scores 40.",
        ),
        Category(
            "five_of_a_kind",
            "Five of a Kind",
            fixed_if(n_of_a_kind(5), 50),
            "Five of a Kind requires all five dice to match and scores 50.",
        ),
        Category(
            choice_id,
            choice_label,
            total(),
            f"{choice_label} has no pattern requirement: add all five dice.",
            aliases=(other,),
        ),
    )


THREE_DICE = BoxGame(
    id="three-dice",
    name="Three dice, six rows",
    description="3 dice, up to 3 rolls, fill one of six face rows (ones to sixes) each turn.",
    seed="000_a3b8fdab9c27a1a0.txt",
    dice_count=3,
    rolls_per_turn=3,
    categories=_upper("Score only matching face values: the {word} category adds only those dice."),
    tie_rule="After six complete circuits, total the six categories; highest score wins, "
    "equal scores tie.",
    practice_option=True,
)

FIVE_DICE = BoxGame(
    id="five-dice",
    name="Five dice, 13 boxes, no bonus",
    description="5 dice, up to 3 rolls, 13 categories with Choice; no bonus points of any kind.",
    seed="001_c9d7e66f73f199c3.txt",
    dice_count=5,
    rolls_per_turn=3,
    categories=_upper("For Ones through Sixes, add only the dice showing the named number.")
    + _lower(choice_id="choice", choice_label="Choice", other="chance"),
    tie_rule="The highest total wins; if totals tie, the tied players share the win, or, if "
    "agreed before starting, play one extra turn each and compare the sum of their final "
    "five dice.",
    extra_turn_tiebreak=True,
)

FIVE_DICE_BONUS = BoxGame(
    id="five-dice-bonus",
    name="Five dice, 13 boxes, with bonuses",
    description="5 dice, up to 3 rolls, 13 categories with Chance; +35 upper bonus at 63, "
    "+100 for each extra Five of a Kind.",
    seed="002_10544ff1ec355839.txt",
    dice_count=5,
    rolls_per_turn=3,
    categories=_upper("Ones through Sixes score the sum of the dice showing that number.")
    + _lower(choice_id="chance", choice_label="Chance", other="choice"),
    upper_bonus=UpperBonus(
        63, 35, "Bonus: +35 points if the upper section's total reaches 63 points or more."
    ),
    repeat_bonus=RepeatBonus(
        "five_of_a_kind",
        50,
        100,
        "If the Five of a Kind box is already filled with 50 points and you roll another one, "
        "you earn 100 bonus points, stacking with every extra Five of a Kind.",
    ),
)

TEN_DICE = ThrowGame(
    id="ten-dice",
    name="Ten dice to 10,000",
    description="2-8 players, 10 dice: triples and single fives score, a throw without a "
    "scoring die busts the turn; first to 10,000 wins.",
    seed="004_376223be3460a087.txt",
    dice_count=10,
    target=10_000,
    triples=((1, 1000), (2, 200), (3, 300), (4, 400), (5, 500), (6, 600)),
    singles=((5, 50),),
)

GAMES: dict[str, Game] = {g.id: g for g in (THREE_DICE, FIVE_DICE, FIVE_DICE_BONUS, TEN_DICE)}


def find_game(game_id: str) -> Game:
    """The game with this id, or UnknownGameError listing the ids that exist."""
    try:
        return GAMES[game_id.strip().lower()]
    except KeyError:
        raise UnknownGameError(
            f"unknown game {game_id!r}; the games are: {', '.join(GAMES)}"
        ) from None
