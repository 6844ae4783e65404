"""The JSON API: ``/api/read``, ``/api/score`` and the games (the README's "The JSON API")."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, send_file, url_for
from werkzeug.utils import secure_filename

from companion.rules import BoxState, InvalidInputError, State
from companion.web import coaching, photos, play
from companion.web.db import get_db
from companion.web.errors import PhotoError, ReadingNeedsHelpError, WebError
from companion.web.reading import thrown_dice, web_reading
from companion.web.view import history_json, state_json

bp = Blueprint("api", __name__, url_prefix="/api")


def _body() -> dict[str, Any]:
    """The request's JSON object, or its form fields; 400 for JSON that is not an object."""
    if request.is_json:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise InvalidInputError("the body must be a JSON object")
        return data
    return {k: v for k, v in request.form.items()}


def _version(body: dict[str, Any]) -> int | None:
    raw = body.get("version")
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool):
        raise InvalidInputError(f'"version" must be a whole number, not {raw!r}')
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise InvalidInputError(f'"version" must be a whole number, not {raw!r}') from None


def _int_list(raw: object, name: str) -> list[int]:
    """``[0, 2]``, ``"0,2"`` or repeated form fields -> ints; 400 for anything else."""
    items: list[object]
    if raw is None:
        return []
    if isinstance(raw, list):
        items = []
        for r in raw:
            items.extend(_int_list(r, name) if isinstance(r, str) else [r])
    elif isinstance(raw, str):
        items = [p for p in raw.replace(",", " ").split() if p]
    else:
        raise InvalidInputError(f'"{name}" must be a list of die positions, not {raw!r}')
    out: list[int] = []
    for item in items:
        if isinstance(item, bool):
            raise InvalidInputError(f'"{name}" must hold die positions, not {item!r}')
        if isinstance(item, int):
            out.append(item)
            continue
        if isinstance(item, str) and item.strip().isdigit():
            out.append(int(item))
            continue
        raise InvalidInputError(f'"{name}" must hold die positions, not {item!r}')
    return out


def _photos_dir() -> Path:
    return Path(current_app.config["PHOTOS"])


def _uploaded_image() -> tuple[bytes, str]:
    """The bytes and the client's file name of the multipart field ``image``."""
    upload = request.files.get("image")
    if upload is None:
        raise InvalidInputError('send the photo as the multipart field "image"')
    data = upload.read()
    if not data:
        raise InvalidInputError("the uploaded image is empty (0 bytes)")
    return data, upload.filename or ""


def _read_upload() -> tuple[str, dict[str, Any]]:
    """Store the uploaded ``image`` and read it; ``(stored name, web reading)``."""
    data, _client_name = _uploaded_image()
    name = photos.save(_photos_dir(), data)
    try:
        from vision.reader import read_bytes

        reading = web_reading(read_bytes(data), name)
    except BaseException:
        photos.discard(_photos_dir(), name)
        raise
    photos.save_reading(_photos_dir(), name, reading)
    return name, reading


def sweep_orphans(game: str | None = None) -> list[str]:
    """Delete the photos no action cites: a day old, or taken for ``game`` (it has ended)."""
    return photos.sweep(_photos_dir(), play.cited_photos(get_db()), game=game)


def _ok(rp: play.Replay, status: int = 200) -> tuple[Response, int]:
    if rp.state.finished:
        # A retaken photo of this game can no longer be cited: it is not kept.
        sweep_orphans(rp.game.id)
    return jsonify(state_json(rp)), status


# -- no game ----------------------------------------------------------------------------


@bp.post("/read")
def read() -> Response:
    """Read a photo: the JSON of ``dice-companion read --json``. The photo is not kept."""
    data, client_name = _uploaded_image()
    from companion.web.reading import reading_json
    from vision.reader import read_bytes

    name = secure_filename(client_name) or "upload"
    return jsonify(reading_json(read_bytes(data), name))


@bp.post("/score")
def score() -> Response:
    """What dice are worth: the JSON of ``dice-companion score --json``."""
    from companion.cli import score_json

    body = _body()
    game = body.get("game")
    if not isinstance(game, str):
        raise InvalidInputError('"game" must name a game, e.g. "five-dice"')
    dice = body.get("dice")
    if not isinstance(dice, list):
        raise InvalidInputError('"dice" must be a list of faces, e.g. [2, 2, 2, 5, 5]')
    filled = body.get("filled") or {}
    if not isinstance(filled, dict):
        raise InvalidInputError('"filled" must be an object, e.g. {"ones": 3}')
    category = body.get("category")
    if category is not None and not isinstance(category, str):
        raise InvalidInputError('"category" must be a category id, e.g. "full_house"')
    return jsonify(score_json(game, dice, filled, category))


@bp.get("/speech.wav")
def speech() -> Response:
    """The text spoken by espeak-ng as a WAV file (for browsers without speech synthesis)."""
    from vision.speech import speak

    text = " ".join(request.args.get("text", "").split())[:400]
    if not text:
        raise InvalidInputError("give the words to say as ?text=...")
    cache = Path(tempfile.gettempdir()) / "dice-companion-speech"
    cache.mkdir(exist_ok=True)
    wav = cache / (hashlib.sha256(text.encode()).hexdigest()[:32] + ".wav")
    if not wav.is_file():
        result = speak(text, wav_path=wav)
        if not result.ok:
            raise SpeechUnavailableError(result.message)
    return send_file(wav, mimetype="audio/wav", max_age=3600)


class SpeechUnavailableError(WebError):
    status = 503


# -- games ------------------------------------------------------------------------------


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    body = _body()
    game = body.get("game")
    players = body.get("players")
    if not isinstance(game, str):
        raise InvalidInputError('"game" must name a game, e.g. "five-dice"')
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InvalidInputError('"players" must be a list of names, e.g. ["Ann", "Bo"]')
    options = {}
    for key in ("tiebreak", "practice", "coach"):
        value = body.get(key, False)
        if not isinstance(value, bool):
            raise InvalidInputError(f'"{key}" must be true or false, not {value!r}')
        options[key] = value
    rp = play.create(get_db(), game, players, **options)
    sweep_orphans()
    if rp.game.coach:
        coaching.warm(rp.game.game, coaching.cache_dir_of(current_app))
    return _ok(rp, 201)


@bp.get("/games/<gid>")
def get_game(gid: str) -> Response:
    return jsonify(state_json(play.replay_game(get_db(), gid)))


@bp.get("/games/<gid>/advice")
def advice(gid: str) -> tuple[Response, int]:
    """The coach's advice for the player to act; 409 unless the game has the coach on.

    While the game's table is still being built the answer is 202 ``{"thinking": true}``
    with ``Retry-After``: ask again shortly.
    """
    rp = play.replay_game(get_db(), gid)
    if not rp.game.coach:
        raise coaching.CoachOffError(
            "the coach is off in this game: it is switched on for everyone when the game starts"
        )
    cache = coaching.cache_dir_of(current_app)
    if not coaching.is_ready(rp.game.game, cache, wait_s=coaching.WAIT_S):
        answer = jsonify(thinking=True, message="the coach is still thinking", version=rp.version)
        answer.headers["Retry-After"] = "1"
        return answer, 202
    out = coaching.advice_for(rp.state, cache)
    out["version"] = rp.version
    return jsonify(out), 200


@bp.get("/games/<gid>/history")
def history(gid: str) -> Response:
    return jsonify(history_json(play.replay_game(get_db(), gid)))


def _typed_roll(body: dict[str, Any]) -> Callable[[State], tuple[str, dict[str, Any]]]:
    dice = body.get("dice")
    if isinstance(dice, str):
        dice = [p for p in dice.replace(",", " ").split() if p]
    if not isinstance(dice, list):
        raise InvalidInputError('"dice" must be a list of faces, e.g. [4, 4, 2]')
    keep = _int_list(body.get("keep"), "keep")
    flagged = _int_list(body.get("flagged"), "flagged")

    def decide(state: State) -> tuple[str, dict[str, Any]]:
        if state.pending:
            return "reroll", {"dice": dice, "flagged": flagged}
        return "roll", {"dice": dice, "keep": keep, "flagged": flagged}

    return decide


def _photo_roll(
    name: str, reading: dict[str, Any], keep: list[int]
) -> Callable[[State], tuple[str, dict[str, Any]]]:
    def decide(state: State) -> tuple[str, dict[str, Any]]:
        if state.pending:
            on_table = state.dice if isinstance(state, BoxState) else state.pending_dice
            positions = list(state.pending)
            kept_values = [v for i, v in enumerate(on_table) if i not in state.pending]
            kind = "reroll"
        elif isinstance(state, BoxState):
            if state.rolls_used == 0:
                keep.clear()  # the rules refuse a kept die on the first roll
            bad = [i for i in keep if not 0 <= i < len(state.dice)]
            if bad:
                raise InvalidInputError(
                    f"keep must be die positions 0 to {state.game.dice_count - 1}, not {bad[0]}"
                )
            positions = [i for i in range(state.game.dice_count) if i not in keep]
            kept_values = [state.dice[i] for i in keep]
            kind = "roll"
        else:
            if keep:
                raise InvalidInputError(
                    "in ten-dice no die is kept: every non-scoring die is thrown"
                )
            positions = list(range(state.dice_left))
            kept_values = [v for group in state.set_aside for v in group]
            kind = "roll"
        url = url_for("pages.photo", name=photos.view_name(name))
        try:
            values, flagged, roles = thrown_dice(reading["dice"], kept_values, len(positions))
        except InvalidInputError as exc:
            # The photo stays on file: the player may type the dice and cite it as evidence.
            raise ReadingNeedsHelpError(str(exc), reading=reading, photo=name, url=url) from None
        reading["roles"] = roles
        reading["positions"] = positions
        unread = [j + 1 for j, v in enumerate(values) if v is None and j not in flagged]
        if unread:
            which = ", ".join(str(j) for j in unread)
            raise ReadingNeedsHelpError(
                f"thrown die {which} could not be read: retake the photo, or type the dice",
                reading=reading,
                photo=name,
                url=url,
            )
        # A die sent back for a free reroll may be unread: its value is never scored.
        filled = [1 if v is None else v for v in values]
        payload: dict[str, Any] = {"dice": filled, "flagged": [positions[j] for j in flagged]}
        if kind == "roll" and isinstance(state, BoxState):
            payload["keep"] = list(keep)
        return kind, payload

    return decide


@bp.post("/games/<gid>/roll")
def roll(gid: str) -> tuple[Response, int]:
    """A roll from a photo (multipart ``image``) or typed dice (JSON ``dice``)."""
    db = get_db()
    body = _body()
    version = _version(body)
    if "image" in request.files:
        play.load(db, gid)  # 404 before reading a photo for a game that does not exist
        keep = _int_list(request.form.getlist("keep"), "keep")
        name, reading = _read_upload()
        try:
            rp = play.act(
                db,
                gid,
                _photo_roll(name, reading, keep),
                version=version,
                photo=name,
                reading=reading,
            )
        except ReadingNeedsHelpError:
            # Kept for a typed roll to cite; the game's id lets it go when the game ends.
            reading["game"] = gid
            photos.save_reading(_photos_dir(), name, reading)
            raise
        except BaseException:
            photos.discard(_photos_dir(), name)
            raise
        return _ok(rp)
    photo = body.get("photo")
    cited: dict[str, Any] | None = None
    if photo is not None:
        if not isinstance(photo, str):
            raise PhotoError('"photo" must be the name of a stored photo')
        cited = photos.load_reading(_photos_dir(), photo, game=gid)
    return _ok(play.act(db, gid, _typed_roll(body), version=version, photo=photo, reading=cited))


def _simple(gid: str, kind: str, payload: dict[str, Any] | None = None) -> tuple[Response, int]:
    body = _body()
    return _ok(play.act(get_db(), gid, kind, payload, version=_version(body)))


def _coached(gid: str, kind: str, payload: dict[str, Any]) -> tuple[Response, int]:
    """A score or a bank; in a coach game the payload also records what the coach showed."""
    db = get_db()
    body = _body()
    row, _ = play.load(db, gid)
    if not row.coach:
        return _ok(play.act(db, gid, kind, payload, version=_version(body)))
    cache = coaching.cache_dir_of(current_app)
    chosen = str(payload.get("category", kind))

    def decide(state: State) -> tuple[str, dict[str, Any]]:
        return kind, {**payload, "coach": coaching.note(state, chosen, cache)}

    return _ok(play.act(db, gid, decide, version=_version(body)))


@bp.post("/games/<gid>/score")
def score_box(gid: str) -> tuple[Response, int]:
    body = _body()
    return _coached(gid, "score", {"category": body.get("category")})


@bp.post("/games/<gid>/correct")
def correct(gid: str) -> tuple[Response, int]:
    body = _body()
    index, value = body.get("index"), body.get("value")
    if isinstance(index, str) and index.strip().isdigit():
        index = int(index)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    payload = {"index": index, "value": value}

    def decide(state: State) -> tuple[str, dict[str, Any]]:
        # A correction that changes nothing would only clutter the evidence.
        dice = state.to_dict()["dice"]
        if not isinstance(index, int) or not 0 <= index < len(dice):
            return "correct", payload  # the rules engine names the problem
        if dice[index]["value"] == value and not dice[index]["flagged"]:
            raise InvalidInputError(f"die {index + 1} already shows {value}")
        return "correct", payload

    return _ok(play.act(get_db(), gid, decide, version=_version(body)))


@bp.post("/games/<gid>/bank")
def bank(gid: str) -> tuple[Response, int]:
    return _coached(gid, "bank", {})


@bp.post("/games/<gid>/stand")
def stand(gid: str) -> tuple[Response, int]:
    return _simple(gid, "stand")


@bp.post("/games/<gid>/undo")
def undo(gid: str) -> tuple[Response, int]:
    return _simple(gid, "undo")
