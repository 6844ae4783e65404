"""Errors of the web app that are not rule violations.

WebError
 +-- GameNotFoundError (404): no game has this id
 +-- StaleError (409): the client acted on an older state than the stored one
 +-- PhotoError (400, also ValueError): the photo cannot be used for this roll
      +-- ReadingNeedsHelpError: a die could not be read; retake the photo or type the dice

Rule violations (``companion.rules.IllegalActionError``, 409) and malformed input
(``companion.rules.InvalidInputError``, 400) come from the rules engine and are mapped to HTTP
in one place, ``companion.web.create_app``.
"""

from __future__ import annotations

from typing import Any


class WebError(Exception):
    """Base of the web app's own errors; ``status`` is the HTTP status it becomes."""

    status = 500

    def payload(self) -> dict[str, Any]:
        """The JSON body of the error answer."""
        return {"error": str(self)}


class GameNotFoundError(WebError):
    status = 404


class StaleError(WebError):
    status = 409

    def payload(self) -> dict[str, Any]:
        return {"error": str(self), "stale": True}


class PhotoError(WebError, ValueError):
    status = 400


class ReadingNeedsHelpError(PhotoError):
    """The reader could not read every thrown die; the answer carries the reading and the
    stored photo's name so that the player can type the missing values for the same photo."""

    def __init__(self, message: str, *, reading: dict[str, Any], photo: str, url: str) -> None:
        super().__init__(message)
        self.reading = reading
        self.photo = photo
        self.url = url

    def payload(self) -> dict[str, Any]:
        return {
            "error": str(self),
            "needs": "retake_or_type",
            "photo": self.photo,
            "url": self.url,
            "reading": self.reading,
        }
