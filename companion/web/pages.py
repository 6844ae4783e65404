"""The HTML pages: new game, table, history, printable sheets, judge, join link, photos."""

from __future__ import annotations

from pathlib import Path

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from companion.rules import GAMES, BoxGame, RulesError, find_game
from companion.web import coaching, photos, play
from companion.web.api import sweep_orphans
from companion.web.db import get_db
from companion.web.security import JOIN_COOKIE
from companion.web.view import history_json, state_json

bp = Blueprint("pages", __name__)


def _games() -> list[dict[str, object]]:
    return [
        {
            "id": g.id,
            "name": g.name,
            "description": g.description,
            "min_players": g.min_players,
            "max_players": g.max_players,
            "tiebreak": g.extra_turn_tiebreak,
            "practice": g.practice_option,
        }
        for g in GAMES.values()
    ]


@bp.get("/")
def index() -> str:
    return render_template(
        "index.html", games=_games(), recent=play.recent(get_db()), error=None, form={}
    )


@bp.post("/games")
def new_game() -> BaseResponse | tuple[str, int]:
    form = request.form
    players = [p for p in (" ".join(x.split()) for x in form.getlist("player")) if p]
    try:
        rp = play.create(
            get_db(),
            form.get("game", ""),
            players,
            tiebreak=form.get("tiebreak") == "on",
            practice=form.get("practice") == "on",
            coach=form.get("coach") == "on",
        )
    except RulesError as exc:
        return (
            render_template(
                "index.html",
                games=_games(),
                recent=play.recent(get_db()),
                error=str(exc),
                form={
                    "game": form.get("game"),
                    "players": players,
                    "coach": form.get("coach") == "on",
                },
            ),
            400,
        )
    sweep_orphans()
    if rp.game.coach:
        coaching.warm(rp.game.game, coaching.cache_dir_of(current_app))
    return redirect(url_for("pages.table", gid=rp.game.id), code=303)


@bp.get("/games/<gid>")
def table(gid: str) -> str:
    rp = play.replay_game(get_db(), gid)
    return render_template("table.html", state=state_json(rp))


@bp.get("/games/<gid>/history")
def history(gid: str) -> str:
    rp = play.replay_game(get_db(), gid)
    return render_template("history.html", state=state_json(rp), history=history_json(rp))


@bp.get("/games/<gid>/sheets")
def sheets(gid: str) -> str:
    rp = play.replay_game(get_db(), gid)
    return render_template("sheets.html", state=state_json(rp), game=rp.state.game, blank=False)


@bp.get("/sheets/<game_id>")
def blank_sheet(game_id: str) -> str:
    try:
        game = find_game(game_id)
    except RulesError:
        abort(404, f"no game is called {game_id!r}")
    raw = request.args.get("players", "1")
    players = max(1, min(8, int(raw))) if raw.isdigit() else 1
    return render_template(
        "sheets.html",
        state=None,
        game=game,
        blank=True,
        players=players,
        practice=request.args.get("practice") == "1",
    )


@bp.get("/judge")
def judge() -> str:
    return render_template(
        "judge.html",
        games=[
            {
                "id": g.id,
                "name": g.name,
                "dice_count": g.dice_count,
                "categories": [{"id": c.id, "label": c.label} for c in g.categories]
                if isinstance(g, BoxGame)
                else [],
            }
            for g in GAMES.values()
        ],
    )


@bp.get("/join/<secret>")
def join(secret: str) -> BaseResponse:
    expected = current_app.config.get("JOIN_SECRET")
    if not expected or secret != expected:
        abort(403, "this join link is not valid for this server: scan the QR code again")
    response = redirect(url_for("pages.index"))
    response.set_cookie(JOIN_COOKIE, secret, max_age=30 * 24 * 3600, httponly=True, samesite="Lax")
    return response


@bp.get("/photos/<name>")
def photo(name: str) -> Response:
    photos.check_name(name)
    folder = Path(current_app.config["PHOTOS"])
    return send_from_directory(folder, name, max_age=24 * 3600)
