"""Who may change a game: the join secret, CSRF tokens on forms, and the JSON API rule.

* Join secret: when the server listens beyond this machine (``--host 0.0.0.0``) it makes a
  random secret and prints a join link ``/join/<secret>``. Visiting it sets a cookie; every
  POST without that cookie (or the header ``X-Join-Secret``) is refused with 403, unless it
  comes from the server's own machine.
* Forms (the new-game page): a random token kept in the signed session is put in a hidden
  field and checked on POST.
* The JSON API: a POST must be ``Content-Type: application/json`` or carry the header
  ``X-Dice-Companion`` (the pages send it with photo uploads). A page on another site can
  send neither without a CORS preflight, which this server never grants, so it cannot act
  for a player's browser; a plain ``<form>`` from another site is refused.
"""

from __future__ import annotations

import hmac
import secrets

from flask import Flask, abort, current_app, jsonify, request, session
from flask.typing import ResponseReturnValue

JOIN_COOKIE = "dc_join"
JOIN_HEADER = "X-Join-Secret"
API_HEADER = "X-Dice-Companion"
CSRF_FIELD = "csrf_token"
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK_PEERS = frozenset({"127.0.0.1", "::1"})


def csrf_token() -> str:
    """The session's form token, made on first use."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def has_join_secret() -> bool:
    """True when no secret is needed, the request carries it, or it comes from this machine
    (whoever sits at the server can read the secret off its terminal anyway)."""
    secret = current_app.config.get("JOIN_SECRET")
    if not secret or request.remote_addr in LOOPBACK_PEERS:
        return True
    given = request.cookies.get(JOIN_COOKIE) or request.headers.get(JOIN_HEADER) or ""
    return hmac.compare_digest(given.encode(), str(secret).encode())


def _check_request() -> ResponseReturnValue | None:
    if current_app.config.get("TRUSTED_HOSTS"):
        _ = request.host  # refuses (400) a Host header that does not name this machine
    if request.method not in UNSAFE:
        return None
    is_api = request.path.startswith("/api/")
    if not has_join_secret():
        message = (
            "this companion only accepts changes from players who opened its join link "
            "(or scanned its QR code)"
        )
        if is_api:
            return jsonify(error=message), 403
        abort(403, message)
    if is_api:
        if request.is_json or API_HEADER in request.headers or JOIN_HEADER in request.headers:
            return None
        return (
            jsonify(
                error=f"send JSON (Content-Type: application/json), or add the header "
                f"'{API_HEADER}: 1' to a form upload"
            ),
            403,
        )
    sent = request.form.get(CSRF_FIELD, "")
    token = session.get("csrf")
    if not isinstance(token, str) or not hmac.compare_digest(sent.encode(), token.encode()):
        abort(403, "the form has expired: reload the page and try again")
    return None


def init_app(app: Flask) -> None:
    app.before_request(_check_request)
    app.jinja_env.globals["csrf_token"] = csrf_token
