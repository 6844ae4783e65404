"""Errors of the rules engine.

RulesError
 +-- InvalidInputError (also ValueError): malformed input (a face of 7, four dice in a
 |    |                                    five-dice game, an unknown game or category, ...)
 |    +-- UnknownGameError
 |    +-- UnknownCategoryError
 +-- IllegalActionError (also ValueError): well-formed but not allowed now (a fourth roll, a filled
                                           box, scoring before rolling, banking nothing)
"""

from __future__ import annotations


class RulesError(Exception):
    """Base of every error the rules engine raises."""


class InvalidInputError(RulesError, ValueError):
    """The input is malformed, whatever the state of the game."""


class UnknownGameError(InvalidInputError):
    """No game has this id."""


class UnknownCategoryError(InvalidInputError):
    """The game has no category with this id."""


class IllegalActionError(RulesError, ValueError):
    """The action is well formed but the game's state does not allow it now."""
