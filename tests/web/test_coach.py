"""The coach as a game option: off by default, on for everyone, recorded in the history."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import new_game

from companion.web import coaching, create_app


def post(client: FlaskClient, url: str, **body: Any) -> tuple[int, dict[str, Any]]:
    res = client.post(url, json=body)
    return res.status_code, res.get_json()


def advice(client: FlaskClient, gid: str, timeout_s: float = 30.0) -> dict[str, Any]:
    """The advice once the coach has its table (202 "thinking" answers are asked again)."""
    deadline = time.monotonic() + timeout_s
    while True:
        res = client.get(f"/api/games/{gid}/advice")
        if res.status_code != 202 or time.monotonic() > deadline:
            assert res.status_code == 200, res.get_json()
            data: dict[str, Any] = res.get_json()
            return data
        time.sleep(0.1)


def test_the_coach_is_off_by_default_and_gives_no_advice(client: FlaskClient) -> None:
    s = new_game(client)
    assert s["coach"] is False
    res = client.get(f"/api/games/{s['id']}/advice")
    assert res.status_code == 409
    assert "coach is off" in res.get_json()["error"]
    assert client.get("/api/games/nope/advice").status_code == 404


def test_the_coach_option_is_stored_with_the_game(client: FlaskClient) -> None:
    s = new_game(client, coach=True)
    assert s["coach"] is True
    assert client.get(f"/api/games/{s['id']}").get_json()["coach"] is True
    assert client.get(f"/api/games/{s['id']}/history").get_json()["coach"] is True
    status, err = post(client, "/api/games", game="three-dice", players=["Ann"], coach="yes")
    assert status == 400 and '"coach"' in err["error"]


def test_the_coach_advises_keeps_boxes_and_banking(client: FlaskClient) -> None:
    gid = new_game(client, coach=True)["id"]
    assert advice(client, gid)["expected_final_score"] == pytest.approx(39.0252769, abs=1e-6)
    post(client, f"/api/games/{gid}/roll", dice=[4, 4, 2])
    a = advice(client, gid)
    assert a["choose"] == "keep" and a["choices"][0]["keep"] == [4, 4]
    assert {b["category"] for b in a["if_you_stop"]} == {
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
    }
    post(client, f"/api/games/{gid}/roll", dice=[4], keep=[0, 1])
    post(client, f"/api/games/{gid}/roll", dice=[], keep=[0, 1, 2])
    a = advice(client, gid)
    assert a["choose"] == "box" and a["choices"][0]["category"] == "fours"
    ten = new_game(client, "ten-dice", ["Ann", "Bo"], coach=True)["id"]
    post(client, f"/api/games/{ten}/roll", dice=[1, 1, 2, 2, 2, 3, 3, 5, 5, 6])
    a = advice(client, ten)
    assert {c["choice"] for c in a["choices"]} == {"throw", "bank"}
    assert a["turn_total"] == 300 and a["dice_left"] == 5


def test_no_advice_while_a_die_waits_for_its_free_reroll(client: FlaskClient) -> None:
    gid = new_game(client, coach=True)["id"]
    post(client, f"/api/games/{gid}/roll", dice=[4, 4, 2], flagged=[2])
    res = client.get(f"/api/games/{gid}/advice")
    assert res.status_code == 409 and "again first" in res.get_json()["error"]


def test_each_score_records_whether_advice_was_shown(client: FlaskClient) -> None:
    gid = new_game(client, coach=True)["id"]
    advice(client, gid)  # the table is ready
    post(client, f"/api/games/{gid}/roll", dice=[4, 4, 2])
    status, _ = post(client, f"/api/games/{gid}/score", category="twos")
    assert status == 200
    h = client.get(f"/api/games/{gid}/history").get_json()
    score = h["actions"][-1]
    note = score["payload"]["coach"]
    assert note["shown"] is True
    assert note["best"]["keep"] == [4, 4]
    assert note["chosen"]["category"] == "twos"
    assert note["chosen"]["expected_final_score"] < note["best"]["expected_final_score"]
    assert score["coach_note"].startswith("advice shown: best keep 4, 4 and roll again")
    assert h["actions"][0]["coach_note"] is None  # a roll is not a choice of box
    page = client.get(f"/games/{gid}/history").get_data(as_text=True)
    assert "coach: on" in page and "advice shown: best keep 4, 4" in page

    off = new_game(client)["id"]
    post(client, f"/api/games/{off}/roll", dice=[4, 4, 2])
    post(client, f"/api/games/{off}/score", category="fours")
    h = client.get(f"/api/games/{off}/history").get_json()
    assert "coach" not in h["actions"][-1]["payload"]
    assert h["actions"][-1]["coach_note"] == "coach off: no advice shown"
    page = client.get(f"/games/{off}/history").get_data(as_text=True)
    assert "coach: off" in page and "coach off: no advice shown" in page


def test_a_ten_dice_bank_records_the_coachs_advice(client: FlaskClient) -> None:
    gid = new_game(client, "ten-dice", ["Ann", "Bo"], coach=True)["id"]
    advice(client, gid)
    post(client, f"/api/games/{gid}/roll", dice=[1, 1, 1, 2, 3, 4, 6, 6, 2, 3])
    status, _ = post(client, f"/api/games/{gid}/bank")
    assert status == 200
    note = client.get(f"/api/games/{gid}/history").get_json()["actions"][-1]["payload"]["coach"]
    assert note["shown"] is True and note["chosen"]["choice"] == "bank"
    assert {note["best"]["choice"]} <= {"bank", "throw"}


@pytest.fixture
def slow_tables(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Tables that take until the returned event is set to build."""
    release = threading.Event()
    real = coaching._load

    def slow(game_id: str, cache_dir: str | None) -> None:
        release.wait(10)
        real(game_id, cache_dir)

    monkeypatch.setattr(coaching, "_load", slow)
    monkeypatch.setattr(coaching, "WAIT_S", 0.0)
    yield release
    release.set()


def test_the_page_is_told_the_coach_is_still_thinking(
    tmp_path: Path, slow_tables: threading.Event
) -> None:
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "games.sqlite3"),
            "COACH_CACHE_DIR": str(tmp_path / "tables"),
        }
    )
    client = app.test_client()
    gid = new_game(client, coach=True)["id"]
    start = time.monotonic()
    res = client.get(f"/api/games/{gid}/advice")
    assert time.monotonic() - start < 1.0  # not held while the table is built
    assert res.status_code == 202 and res.headers["Retry-After"] == "1"
    assert res.get_json()["thinking"] is True
    assert res.get_json()["message"] == "the coach is still thinking"
    # A box chosen meanwhile is recorded as taken without advice.
    post(client, f"/api/games/{gid}/roll", dice=[6, 6, 6])
    post(client, f"/api/games/{gid}/score", category="sixes")
    h = client.get(f"/api/games/{gid}/history").get_json()
    assert h["actions"][-1]["payload"]["coach"]["shown"] is False
    assert "still thinking" in h["actions"][-1]["coach_note"]
    slow_tables.set()
    post(client, f"/api/games/{gid}/roll", dice=[6, 6, 5])
    assert advice(client, gid)["choose"] == "keep"
    assert (tmp_path / "tables").is_dir()


def test_a_restarted_server_warms_the_tables_of_its_coach_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warmed: list[str] = []
    monkeypatch.setattr(coaching, "warm", lambda game_id, cache_dir=None: warmed.append(game_id))
    config = {"TESTING": True, "DATABASE": str(tmp_path / "games.sqlite3")}
    client = create_app(config).test_client()
    new_game(client, "five-dice-bonus", coach=True)
    new_game(client, "five-dice")
    warmed.clear()
    create_app(config)
    assert warmed == ["five-dice-bonus"]


def test_the_new_game_form_switches_the_coach_on(client: FlaskClient, app: Flask) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'name="coach"' in page and "Coach for everyone" in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token
    form = {"game": "three-dice", "player": ["Ann"], "csrf_token": token.group(1)}
    res = client.post("/games", data={**form, "coach": "on"})
    assert res.status_code == 303
    gid = res.headers["Location"].rsplit("/", 1)[-1]
    assert client.get(f"/api/games/{gid}").get_json()["coach"] is True
    res = client.post("/games", data=form)
    gid = res.headers["Location"].rsplit("/", 1)[-1]
    assert client.get(f"/api/games/{gid}").get_json()["coach"] is False
