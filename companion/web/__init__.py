"""The companion's web app: ``create_app`` builds it; ``dice-companion serve`` runs it.

Blueprints: ``api`` (the JSON API under ``/api``) and ``pages`` (the HTML pages). Storage is
one SQLite file (``companion.web.db``); games are event logs (``companion.web.play``); the
opt-in coach and its tables warmed in the background are ``companion.web.coaching``.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from companion.rules import IllegalActionError, InvalidInputError, RulesError
from companion.web.errors import WebError

#: Largest upload accepted, in bytes.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024


def default_db_path() -> Path:
    """``games.sqlite3`` in the user's data directory (e.g. ~/.local/share/dice-companion)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("dice-companion")) / "games.sqlite3"


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app. ``test_config`` overrides the settings, e.g. ``{"DATABASE": path}``.

    Settings: ``DATABASE`` (the SQLite file), ``PHOTOS`` (the photo folder, default
    ``photos`` beside the database), ``JOIN_SECRET`` (None: no join link needed),
    ``SECRET_KEY`` (signs the session; random per server by default), ``COACH_CACHE_DIR``
    (the coach's tables; None: ``companion.coach.cache``'s default, the user cache directory).
    """
    app = Flask(__name__)
    app.config.from_mapping(
        DATABASE=str(default_db_path()),
        SECRET_KEY=secrets.token_hex(32),
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        JOIN_SECRET=None,
        COACH_CACHE_DIR=None,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
    )
    if test_config:
        app.config.update(test_config)
    if not app.config.get("PHOTOS"):
        app.config["PHOTOS"] = str(Path(app.config["DATABASE"]).parent / "photos")
    app.json.sort_keys = False  # type: ignore[attr-defined]

    from companion.web import api, coaching, db, pages, security

    db.init_app(app)
    coaching.init_app(app)
    security.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    _register_errors(app)
    with app.app_context():
        api.sweep_orphans()  # photos left by a retake more than a day ago
    return app


def _error(status: int, payload: dict[str, Any]) -> ResponseReturnValue:
    if request.path.startswith("/api/"):
        return jsonify(payload), status
    return render_template("error.html", status=status, message=payload["error"]), status


def _register_errors(app: Flask) -> None:
    from vision.errors import ImageDecodeError

    @app.errorhandler(RulesError)
    def rules_error(exc: RulesError) -> ResponseReturnValue:
        if isinstance(exc, IllegalActionError):
            return _error(409, {"error": str(exc)})
        if isinstance(exc, InvalidInputError):
            return _error(400, {"error": str(exc)})
        return _error(400, {"error": str(exc)})

    @app.errorhandler(WebError)
    def web_error(exc: WebError) -> ResponseReturnValue:
        return _error(exc.status, exc.payload())

    @app.errorhandler(ImageDecodeError)
    def decode_error(exc: ImageDecodeError) -> ResponseReturnValue:
        return _error(400, {"error": str(exc)})

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(_exc: RequestEntityTooLarge) -> ResponseReturnValue:
        limit = app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        return _error(413, {"error": f"the upload is larger than {limit} MB: send a smaller photo"})

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        return _error(exc.code or 500, {"error": exc.description or exc.name})
