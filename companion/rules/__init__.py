"""The rules of the four games: pure data and functions, standard library only."""

from companion.rules.dice import Dice, parse_dice, parse_dice_text, parse_filled_text
from companion.rules.errors import (
    IllegalActionError,
    InvalidInputError,
    RulesError,
    UnknownCategoryError,
    UnknownGameError,
)
from companion.rules.evaluate import (
    Option,
    ThrowScore,
    check_dice,
    check_filled,
    options,
    score_category,
    score_throw,
)
from companion.rules.games import GAMES, BoxGame, Category, Game, ThrowGame, find_game
from companion.rules.state import BoxState, Entry, Sheet, State, ThrowState, new_game

__all__ = [
    "GAMES",
    "BoxGame",
    "BoxState",
    "Category",
    "Dice",
    "Entry",
    "Game",
    "IllegalActionError",
    "InvalidInputError",
    "Option",
    "RulesError",
    "Sheet",
    "State",
    "ThrowGame",
    "ThrowScore",
    "ThrowState",
    "UnknownCategoryError",
    "UnknownGameError",
    "check_dice",
    "check_filled",
    "find_game",
    "new_game",
    "options",
    "parse_dice",
    "parse_dice_text",
    "parse_filled_text",
    "score_category",
    "score_throw",
]
