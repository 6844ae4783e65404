"""Who may change a game: the JSON rule, the join secret, CSRF on the new-game form."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from companion.web import create_app


def test_a_form_post_to_the_api_is_refused(client: FlaskClient) -> None:
    res = client.post("/api/games", data={"game": "three-dice", "players": "Ann"})
    assert res.status_code == 403
    assert "application/json" in res.get_json()["error"]


def test_a_text_plain_body_shaped_like_json_is_refused(client: FlaskClient) -> None:
    res = client.post(
        "/api/games", data='{"game": "three-dice", "players": ["Ann"]}', content_type="text/plain"
    )
    assert res.status_code == 403


@pytest.fixture
def lan_client(tmp_path: Path) -> FlaskClient:
    app = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "g.sqlite3"), "JOIN_SECRET": "s3cret"}
    )
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "192.168.1.23"  # a phone on the Wi-Fi
    return client


def test_the_server_machine_itself_needs_no_join_secret(lan_client: FlaskClient) -> None:
    res = lan_client.post(
        "/api/games",
        json={"game": "three-dice", "players": ["Ann"]},
        environ_base={"REMOTE_ADDR": "127.0.0.1"},
    )
    assert res.status_code == 201


def test_without_the_join_secret_changes_are_refused(lan_client: FlaskClient) -> None:
    res = lan_client.post("/api/games", json={"game": "three-dice", "players": ["Ann"]})
    assert res.status_code == 403 and "join link" in res.get_json()["error"]
    assert lan_client.get("/api/games/x").status_code == 404  # reading is allowed


def test_the_join_header_or_the_join_link_cookie_allows_changes(
    lan_client: FlaskClient,
) -> None:
    res = lan_client.post(
        "/api/games",
        json={"game": "three-dice", "players": ["Ann"]},
        headers={"X-Join-Secret": "s3cret"},
    )
    assert res.status_code == 201
    assert lan_client.get("/join/wrong").status_code == 403
    res = lan_client.get("/join/s3cret")
    assert res.status_code == 302
    res = lan_client.post("/api/games", json={"game": "three-dice", "players": ["Ann"]})
    assert res.status_code == 201


def _csrf(client: FlaskClient) -> str:
    page = client.get("/").get_data(as_text=True)
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match
    return match.group(1)


def test_the_new_game_form_needs_its_csrf_token(client: FlaskClient) -> None:
    form = {"game": "three-dice", "player": ["Ann", "Bo"]}
    assert client.post("/games", data=form).status_code == 403
    assert client.post("/games", data={**form, "csrf_token": "forged"}).status_code == 403
    res = client.post("/games", data={**form, "csrf_token": _csrf(client)})
    assert res.status_code == 303
    gid = res.headers["Location"].rsplit("/", 1)[1]
    state = client.get(f"/api/games/{gid}").get_json()
    assert state["players"] == ["Ann", "Bo"]


def test_the_new_game_form_shows_a_rule_error(client: FlaskClient) -> None:
    res = client.post(
        "/games", data={"game": "ten-dice", "player": ["Ann"], "csrf_token": _csrf(client)}
    )
    assert res.status_code == 400
    assert "2 to 8 players" in res.get_data(as_text=True)


def test_photo_names_are_checked(client: FlaskClient) -> None:
    assert client.get("/photos/..%2Fgames.sqlite3").status_code in (400, 404)
    assert client.get("/photos/" + "a" * 32 + ".jpg").status_code == 404
