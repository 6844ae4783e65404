"""Photos that no action cites (a reading retaken, never typed) are not kept for ever."""

from __future__ import annotations

import os
import time
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from web_helpers import FakeReader, die, new_game, photo_roll, png_bytes

from companion.web import create_app, photos


def stems(app: Flask) -> set[str]:
    folder = Path(app.config["PHOTOS"])
    return {p.name.partition(".")[0] for p in folder.iterdir()} if folder.is_dir() else set()


def needs_help(client: FlaskClient, reader: FakeReader, gid: str) -> str:
    """Upload a photo that shows too few dice: it is kept for a typed roll to cite."""
    reader.push(die(4, 10))
    status, data = photo_roll(client, gid)
    assert status == 400 and data["needs"] == "retake_or_type"
    name: str = data["photo"]
    return name


def test_a_retaken_photo_goes_when_the_game_ends_a_cited_one_stays(
    app: Flask, client: FlaskClient, reader: FakeReader
) -> None:
    gid = new_game(client)["id"]
    retaken = needs_help(client, reader, gid)
    cited = needs_help(client, reader, gid)
    res = client.post(f"/api/games/{gid}/roll", json={"dice": [4, 4, 2], "photo": cited})
    assert res.status_code == 200
    other = new_game(client)["id"]
    elsewhere = needs_help(client, reader, other)
    for category in ("fours", "ones", "twos", "threes", "fives", "sixes"):
        if category != "fours":
            client.post(f"/api/games/{gid}/roll", json={"dice": [1, 2, 3]})
        s = client.post(f"/api/games/{gid}/score", json={"category": category}).get_json()
        assert category in s["sheets"][0]["boxes"]
        assert retaken.partition(".")[0] in stems(app) or s["finished"]
    assert s["finished"]
    left = stems(app)
    assert retaken.partition(".")[0] not in left
    assert cited.partition(".")[0] in left  # evidence of a roll
    assert elsewhere.partition(".")[0] in left  # another game's, still going
    res = client.get(f"/photos/{cited}")
    assert res.status_code == 200
    res.close()


def test_a_typed_roll_cannot_cite_another_games_photo(
    client: FlaskClient, reader: FakeReader
) -> None:
    first = new_game(client)["id"]
    name = needs_help(client, reader, first)
    second = new_game(client)["id"]
    res = client.post(f"/api/games/{second}/roll", json={"dice": [4, 4, 2], "photo": name})
    assert res.status_code == 400 and "another game" in res.get_json()["error"]


def test_orphans_a_day_old_go_when_the_server_starts(
    app: Flask, client: FlaskClient, reader: FakeReader
) -> None:
    gid = new_game(client)["id"]
    old = needs_help(client, reader, gid)
    fresh = needs_help(client, reader, gid)
    reader.push(die(4, 10), die(4, 20), die(2, 30))
    status, s = photo_roll(client, gid)
    assert status == 200
    used = s["photo"]["name"]
    folder = Path(app.config["PHOTOS"])
    two_days_ago = time.time() - 2 * 24 * 3600
    for p in folder.iterdir():
        if p.name.startswith((old.partition(".")[0], used.partition(".")[0])):
            os.utime(p, (two_days_ago, two_days_ago))
    create_app(dict(app.config))
    left = stems(app)
    assert old.partition(".")[0] not in left
    assert fresh.partition(".")[0] in left and used.partition(".")[0] in left


def test_sweep_leaves_foreign_files_alone(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    name = photos.save(tmp_path, png_bytes())
    later = time.time() + 2 * photos.ORPHAN_AGE_S
    assert photos.sweep(tmp_path, [name], now=later) == []
    assert photos.sweep(tmp_path, [], now=later) == [name.partition(".")[0]]
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    assert photos.sweep(tmp_path / "missing", []) == []
