"""The JSON API through Flask's test client: every call, its state and its errors."""

from __future__ import annotations

import io
import shutil
import struct
import zlib
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import FakeReader, die, new_game, photo_roll, png_bytes

from companion.cli import score_json


def post(client: FlaskClient, url: str, **body: Any) -> tuple[int, dict[str, Any]]:
    res = client.post(url, json=body)
    return res.status_code, res.get_json()


# -- games --------------------------------------------------------------------------------


def test_a_new_game_starts_with_the_first_player_before_any_roll(client: FlaskClient) -> None:
    state = new_game(client, "five-dice", ["Ann", "Bo"])
    assert state["id"] and state["version"] == 0
    assert state["current_player"] == "Ann"
    assert state["roll_number"] == 0 and state["turn"] == 1
    assert [s["player"] for s in state["sheets"]] == ["Ann", "Bo"]
    assert len(state["categories"]) == 13
    assert client.get(f"/api/games/{state['id']}").get_json() == state


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"game": "chess", "players": ["Ann"]}, "unknown game"),
        ({"game": "ten-dice", "players": ["Ann"]}, "2 to 8 players"),
        ({"game": "three-dice", "players": [f"P{i}" for i in range(9)]}, "1 to 8 players"),
        ({"game": "three-dice", "players": ["Ann", "ann"]}, "same name"),
        ({"game": "three-dice", "players": "Ann"}, "list of names"),
        ({"game": "three-dice", "players": ["Ann"], "tiebreak": True}, "no extra-turn"),
        ({"game": "five-dice", "players": ["Ann"], "practice": "yes"}, "true or false"),
    ],
)
def test_a_game_with_bad_options_is_refused(
    client: FlaskClient, body: dict[str, Any], fragment: str
) -> None:
    status, data = post(client, "/api/games", **body)
    assert status == 400
    assert fragment in data["error"]


def test_a_body_that_is_not_a_json_object_is_a_400(client: FlaskClient) -> None:
    res = client.post("/api/games", data="[1, 2]", content_type="application/json")
    assert res.status_code == 400
    assert "JSON object" in res.get_json()["error"]


def test_an_unknown_game_is_a_404(client: FlaskClient) -> None:
    for res in (
        client.get("/api/games/nope"),
        client.post("/api/games/nope/roll", json={"dice": [1, 2, 3]}),
        client.post("/api/games/nope/score", json={"category": "ones"}),
        client.post("/api/games/nope/undo", json={}),
        client.get("/api/games/nope/history"),
    ):
        assert res.status_code == 404
        assert "no game" in res.get_json()["error"]


def test_a_whole_turn_of_three_dice_with_typed_dice(client: FlaskClient) -> None:
    gid = new_game(client)["id"]
    status, s = post(client, f"/api/games/{gid}/roll", dice=[4, 4, 2])
    assert status == 200
    assert [d["value"] for d in s["dice"]] == [4, 4, 2]
    assert s["roll_number"] == 1 and s["version"] == 1
    assert s["options"][0]["category"] == "fours" and s["options"][0]["points"] == 8
    status, s = post(client, f"/api/games/{gid}/roll", dice=[4], keep=[0, 1])
    assert status == 200
    assert [d["value"] for d in s["dice"]] == [4, 4, 4]
    assert [d["kept"] for d in s["dice"]] == [True, True, False]
    status, s = post(client, f"/api/games/{gid}/score", category="fours")
    assert status == 200
    assert s["sheets"][0]["boxes"] == {"fours": 12}
    assert s["totals"] == [12] and s["turn"] == 2 and s["roll_number"] == 0


def test_rule_violations_are_409(client: FlaskClient) -> None:
    gid = new_game(client)["id"]
    status, data = post(client, f"/api/games/{gid}/score", category="ones")
    assert status == 409 and "must roll" in data["error"]
    for _ in range(3):
        assert post(client, f"/api/games/{gid}/roll", dice=[1, 1, 1])[0] == 200
    status, data = post(client, f"/api/games/{gid}/roll", dice=[1, 1, 1])
    assert status == 409 and "all 3 rolls" in data["error"]
    assert post(client, f"/api/games/{gid}/score", category="ones")[0] == 200
    post(client, f"/api/games/{gid}/roll", dice=[1, 2, 3])
    status, data = post(client, f"/api/games/{gid}/score", category="ones")
    assert status == 409 and "already filled" in data["error"]
    status, data = post(client, f"/api/games/{gid}/bank")
    assert status == 409


@pytest.mark.parametrize(
    ("url", "body", "fragment"),
    [
        ("roll", {"dice": [1, 2]}, "3 are rolled, but 2 values"),
        ("roll", {"dice": [1, 2, 7]}, "1 to 6"),
        ("roll", {"dice": "abc"}, "1 to 6"),
        ("roll", {"dice": [1, 2, 3], "keep": "x"}, "die positions"),
        ("roll", {}, '"dice"'),
        ("score", {}, "category"),
        ("score", {"category": "sevens"}, "no category"),
        ("correct", {"index": 9, "value": 2}, "index"),
        ("roll", {"dice": [1, 2, 3], "version": "new"}, "whole number"),
    ],
)
def test_malformed_requests_are_400(
    client: FlaskClient, url: str, body: dict[str, Any], fragment: str
) -> None:
    gid = new_game(client)["id"]
    if url != "roll":
        post(client, f"/api/games/{gid}/roll", dice=[1, 2, 3])
    status, data = post(client, f"/api/games/{gid}/{url}", **body)
    assert status == 400, data
    assert fragment in data["error"]


def test_a_stale_version_is_refused_and_changes_nothing(client: FlaskClient) -> None:
    gid = new_game(client)["id"]
    post(client, f"/api/games/{gid}/roll", dice=[5, 5, 5], version=0)
    status, data = post(client, f"/api/games/{gid}/roll", dice=[1, 1, 1], version=0)
    assert status == 409 and data["stale"] is True
    status, s = post(client, f"/api/games/{gid}/score", category="fives", version=1)
    assert status == 200 and s["totals"] == [15] and s["version"] == 2


def test_undo_cancels_the_last_action_and_keeps_it_in_history(client: FlaskClient) -> None:
    gid = new_game(client)["id"]
    status, data = post(client, f"/api/games/{gid}/undo")
    assert status == 409 and "nothing to undo" in data["error"]
    post(client, f"/api/games/{gid}/roll", dice=[6, 6, 1])
    post(client, f"/api/games/{gid}/score", category="ones")
    status, s = post(client, f"/api/games/{gid}/undo")
    assert status == 200
    assert s["totals"] == [0] and s["roll_number"] == 1 and s["version"] == 3
    status, s = post(client, f"/api/games/{gid}/score", category="sixes")
    assert s["totals"] == [12]
    actions = client.get(f"/api/games/{gid}/history").get_json()["actions"]
    assert [a["kind"] for a in actions] == ["roll", "score", "undo", "score"]
    assert actions[1]["undone_by"] == 3 and actions[1]["payload"] == {"category": "ones"}
    assert actions[3]["event"] == "Ann scored 12 in Sixes"
    assert actions[0]["player"] == "Ann"


def test_undo_twice_goes_back_two_actions(client: FlaskClient) -> None:
    gid = new_game(client)["id"]
    post(client, f"/api/games/{gid}/roll", dice=[6, 6, 1])
    post(client, f"/api/games/{gid}/roll", dice=[6], keep=[0, 1])
    post(client, f"/api/games/{gid}/undo")
    status, s = post(client, f"/api/games/{gid}/undo")
    assert status == 200 and s["roll_number"] == 0 and s["dice"] == []
    assert not s["can_undo"]


def test_correction_changes_the_dice_and_history_keeps_the_original(
    client: FlaskClient,
) -> None:
    gid = new_game(client)["id"]
    post(client, f"/api/games/{gid}/roll", dice=[3, 3, 2])
    status, s = post(client, f"/api/games/{gid}/correct", index=2, value=3)
    assert status == 200 and [d["value"] for d in s["dice"]] == [3, 3, 3]
    assert "corrected from 2 to 3" in s["last_event"]
    status, s = post(client, f"/api/games/{gid}/correct", index="1", value="5")
    assert [d["value"] for d in s["dice"]] == [3, 5, 3]
    status, data = post(client, f"/api/games/{gid}/correct", index=1, value=5)
    assert status == 400 and "already shows 5" in data["error"]
    actions = client.get(f"/api/games/{gid}/history").get_json()["actions"]
    assert actions[0]["payload"]["dice"] == [3, 3, 2]
    assert [a["kind"] for a in actions] == ["roll", "correct", "correct"]


def test_a_three_dice_game_plays_to_the_winner(client: FlaskClient) -> None:
    gid = new_game(client, players=["Ann", "Bo"])["id"]
    faces = ["ones", "twos", "threes", "fours", "fives", "sixes"]
    s: dict[str, Any] = {}
    for turn, cat in enumerate(faces, start=1):
        for player, value in (("Ann", turn), ("Bo", 7 - turn)):
            assert s.get("current_player", "Ann") == player
            post(client, f"/api/games/{gid}/roll", dice=[value] * 3)
            status, s = post(client, f"/api/games/{gid}/score", category=cat)
            assert status == 200
    assert s["finished"] and s["current_player"] is None
    assert s["totals"] == [63, 0] and s["winners"] == ["Ann"]
    status, data = post(client, f"/api/games/{gid}/roll", dice=[1, 1, 1])
    assert status == 409 and "over" in data["error"]


def test_five_dice_bonus_state_shows_the_upper_bonus(client: FlaskClient) -> None:
    s = new_game(client, "five-dice-bonus", ["Ann"])
    assert s["upper_bonus"] == {"threshold": 63, "points": 35}
    gid = s["id"]
    post(client, f"/api/games/{gid}/roll", dice=[6, 6, 6, 6, 1])
    _status, s = post(client, f"/api/games/{gid}/score", category="sixes")
    assert s["upper_totals"] == [24]


def test_a_five_dice_tie_is_broken_by_an_extra_turn_and_stand(client: FlaskClient) -> None:
    gid = new_game(client, "five-dice", ["Ann", "Bo"], tiebreak=True)["id"]
    s: dict[str, Any] = {}
    cats = [c["id"] for c in client.get(f"/api/games/{gid}").get_json()["categories"]]
    for cat in cats:
        for _ in range(2):
            post(client, f"/api/games/{gid}/roll", dice=[1, 2, 3, 4, 6])
            s = post(client, f"/api/games/{gid}/score", category=cat)[1]
    assert s["phase"] == "tiebreak" and s["current_player"] == "Ann"
    status, _data = post(client, f"/api/games/{gid}/stand")
    assert status == 409
    post(client, f"/api/games/{gid}/roll", dice=[6, 6, 6, 6, 6])
    assert post(client, f"/api/games/{gid}/roll", dice=[], keep=[0, 1, 2, 3, 4])[0] == 200
    s = post(client, f"/api/games/{gid}/stand")[1]
    post(client, f"/api/games/{gid}/roll", dice=[1, 1, 1, 1, 1])
    s = post(client, f"/api/games/{gid}/stand")[1]
    assert s["finished"] and s["winners"] == ["Ann"]
    assert s["tiebreak_sums"] == {"Ann": 30, "Bo": 5}


# -- ten-dice -----------------------------------------------------------------------------


def test_ten_dice_throws_bank_and_bust(client: FlaskClient) -> None:
    gid = new_game(client, "ten-dice", ["Ann", "Bo"])["id"]
    status, s = post(client, f"/api/games/{gid}/roll", dice=[1, 1, 2, 2, 2, 3, 3, 5, 5, 6])
    assert status == 200
    assert s["turn_total"] == 300 and s["dice_left"] == 5 and s["can_bank"]
    assert s["last_throw"]["scoring"] == [[2, 2, 2], [5], [5]]
    status, s = post(client, f"/api/games/{gid}/roll", dice=[1, 4, 6, 6, 6])
    assert s["turn_total"] == 900 and s["dice_left"] == 2
    status, s = post(client, f"/api/games/{gid}/bank")
    assert status == 200 and s["scores"] == [900, 0] and s["current_player"] == "Bo"
    status, s = post(client, f"/api/games/{gid}/roll", dice=[1, 1, 1, 4, 4, 4, 2, 2, 3, 6])
    assert s["turn_total"] == 1400
    status, s = post(client, f"/api/games/{gid}/roll", dice=[2, 2, 3, 6])
    assert s["last_throw"]["bust"] and s["scores"] == [900, 0]
    assert s["current_player"] == "Ann" and "busts" in s["last_event"]
    status, data = post(client, f"/api/games/{gid}/bank")
    assert status == 409 and "no points" in data["error"]
    status, data = post(client, f"/api/games/{gid}/score", category="ones")
    assert status == 409


def test_ten_dice_around_the_horn_and_the_end_at_ten_thousand(client: FlaskClient) -> None:
    gid = new_game(client, "ten-dice", ["Ann", "Bo"])["id"]
    s = post(client, f"/api/games/{gid}/roll", dice=[1, 1, 1, 2, 2, 3, 3, 3, 6, 6])[1]
    s = post(client, f"/api/games/{gid}/roll", dice=[4, 4, 4, 5])[1]
    assert "around the horn" in s["last_event"] and s["scores"] == [1750, 0]
    assert s["current_player"] == "Ann" and s["dice_left"] == 10
    while not s["finished"]:
        s = post(client, f"/api/games/{gid}/roll", dice=[1, 1, 1, 1, 1, 1, 1, 1, 1, 5])[1]
    assert s["winners"] == ["Ann"] and s["scores"][0] >= 10_000


def test_ten_dice_correction_rescores_the_throw(client: FlaskClient) -> None:
    gid = new_game(client, "ten-dice", ["Ann", "Bo"])["id"]
    post(client, f"/api/games/{gid}/roll", dice=[1, 2, 2, 3, 3, 4, 4, 6, 6, 1])
    s = client.get(f"/api/games/{gid}").get_json()
    assert s["turn_total"] == 0 and s["current_player"] == "Bo"
    status, s = post(client, f"/api/games/{gid}/correct", index=0, value=5)
    assert status == 200 and s["current_player"] == "Ann" and s["turn_total"] == 50


# -- photos -------------------------------------------------------------------------------


def test_a_photo_roll_reads_every_die(client: FlaskClient, reader: FakeReader) -> None:
    gid = new_game(client)["id"]
    reader.push(die(4, 10), die(4, 30), die(2, 50))
    status, s = photo_roll(client, gid)
    assert status == 200, s
    assert [d["value"] for d in s["dice"]] == [4, 4, 2]
    assert s["photo"]["url"].startswith("/photos/")
    assert s["photo"]["reading"]["faces"] == [4, 4, 2]
    assert s["photo"]["reading"]["dice"][0]["outline"]
    with client.get(s["photo"]["url"]) as res:
        assert res.data == png_bytes()


def test_a_photo_of_all_dice_keeps_the_kept_values(client: FlaskClient, reader: FakeReader) -> None:
    gid = new_game(client)["id"]
    reader.push(die(4, 10), die(4, 30), die(2, 50))
    photo_roll(client, gid)
    # The player keeps both fours; the photo shows all three dice in a new order.
    reader.push(die(4, 10), die(6, 30), die(4, 50))
    status, s = photo_roll(client, gid, keep="0,1")
    assert status == 200, s
    assert [d["value"] for d in s["dice"]] == [4, 4, 6]
    assert s["photo"]["reading"]["roles"] == [None, 0, None]
    assert s["photo"]["reading"]["positions"] == [2]


def test_a_photo_of_only_the_thrown_dice(client: FlaskClient, reader: FakeReader) -> None:
    gid = new_game(client)["id"]
    reader.push(die(4, 10), die(4, 30), die(2, 50))
    photo_roll(client, gid)
    reader.push(die(3, 10))
    _status, s = photo_roll(client, gid, keep="0,1")
    assert [d["value"] for d in s["dice"]] == [4, 4, 3]


def test_a_photo_without_the_kept_value_is_refused(client: FlaskClient, reader: FakeReader) -> None:
    gid = new_game(client)["id"]
    reader.push(die(4, 10), die(4, 30), die(2, 50))
    photo_roll(client, gid)
    reader.push(die(1, 10), die(6, 30), die(2, 50))
    status, data = photo_roll(client, gid, keep="0")
    assert status == 400 and "kept die" in data["error"]
    assert client.get(f"/api/games/{gid}").get_json()["roll_number"] == 1


def test_a_photo_with_the_wrong_number_of_dice_is_refused(
    client: FlaskClient, reader: FakeReader
) -> None:
    gid = new_game(client)["id"]
    reader.push(die(4, 10), die(4, 30))
    status, data = photo_roll(client, gid)
    assert status == 400 and "shows 2 dice, but 3" in data["error"]
    reader.push()
    status, data = photo_roll(client, gid)
    assert status == 400 and "no dice" in data["error"]


def test_a_leaning_die_is_rerolled_for_free(client: FlaskClient, reader: FakeReader) -> None:
    gid = new_game(client)["id"]
    reader.push(die(4, 10), die(6, 30, flags=("leaning",)), die(2, 50))
    status, s = photo_roll(client, gid)
    assert status == 200
    assert s["pending_reroll"] == [1] and s["dice"][1]["flagged"] and not s["can_score"]
    status, _data = post(client, f"/api/games/{gid}/score", category="twos")
    assert status == 409
    # The free reroll: a photo of the whole tray again.
    reader.push(die(4, 10), die(5, 30), die(2, 50))
    status, s = photo_roll(client, gid)
    assert status == 200, s
    assert [d["value"] for d in s["dice"]] == [4, 5, 2]
    assert s["roll_number"] == 1 and s["pending_reroll"] == []
    kinds = [a["kind"] for a in client.get(f"/api/games/{gid}/history").get_json()["actions"]]
    assert kinds == ["roll", "reroll"]


def test_a_die_off_the_tray_in_ten_dice_is_thrown_again(
    client: FlaskClient, reader: FakeReader
) -> None:
    gid = new_game(client, "ten-dice", ["Ann", "Bo"])["id"]
    values = [1, 1, 1, 2, 3, 4, 6, 6, 2, 3]
    reader.push(
        *(die(v, 5 * i, flags=("off_tray",) if i == 9 else ()) for i, v in enumerate(values))
    )
    status, s = photo_roll(client, gid)
    assert status == 200 and s["pending_reroll"] == [9] and s["turn_total"] == 0
    reader.push(die(5, 10))
    status, s = photo_roll(client, gid)
    assert s["turn_total"] == 1050 and s["dice_left"] == 6


def test_an_unread_die_asks_to_retake_or_type(client: FlaskClient, reader: FakeReader) -> None:
    gid = new_game(client)["id"]
    reader.push(die(4, 10), die(None, 30, flags=("uncertain",), conf=0.2), die(2, 50))
    status, data = photo_roll(client, gid)
    assert status == 400 and data["needs"] == "retake_or_type"
    assert data["reading"]["faces"] == [4, 2] and data["photo"]
    assert client.get(f"/api/games/{gid}").get_json()["roll_number"] == 0
    # The player types the dice for the same photo: the photo stays the roll's evidence.
    status, s = post(client, f"/api/games/{gid}/roll", dice=[4, 1, 2], photo=data["photo"])
    assert status == 200 and s["photo"]["name"] == data["photo"]
    actions = client.get(f"/api/games/{gid}/history").get_json()["actions"]
    assert actions[0]["photo"]["reading"]["dice"][1]["value"] is None


def test_a_typed_roll_cannot_cite_a_made_up_photo(client: FlaskClient) -> None:
    gid = new_game(client)["id"]
    for name in ("../../etc/passwd", "0" * 32 + ".jpg"):
        status, _data = post(client, f"/api/games/{gid}/roll", dice=[1, 2, 3], photo=name)
        assert status == 400


def test_a_file_that_is_not_an_image_is_a_400(client: FlaskClient, reader: FakeReader) -> None:
    gid = new_game(client)["id"]
    res = client.post(
        f"/api/games/{gid}/roll",
        data={"image": (io.BytesIO(b"hello, not a photo"), "x.jpg")},
        headers={"X-Dice-Companion": "1"},
    )
    assert res.status_code == 400 and res.get_json()["error"]
    res = client.post(
        f"/api/games/{gid}/roll",
        data={"image": (io.BytesIO(b""), "x.jpg")},
        headers={"X-Dice-Companion": "1"},
    )
    assert res.status_code == 400 and "empty" in res.get_json()["error"]


def test_an_upload_over_the_limit_is_a_413(client: FlaskClient, app: Flask) -> None:
    app.config["MAX_CONTENT_LENGTH"] = 1000
    gid = new_game(client)["id"]
    res = client.post(
        f"/api/games/{gid}/roll",
        data={"image": (io.BytesIO(b"x" * 5000), "big.jpg")},
        headers={"X-Dice-Companion": "1"},
    )
    assert res.status_code == 413
    assert "larger than" in res.get_json()["error"]


def test_a_photo_over_fifty_megapixels_is_refused(client: FlaskClient) -> None:
    gid = new_game(client)["id"]
    res = client.post(
        f"/api/games/{gid}/roll",
        data={"image": (io.BytesIO(png_header(10_000, 6_000)), "huge.png")},
        headers={"X-Dice-Companion": "1"},
    )
    assert res.status_code == 400
    assert "megapixels" in res.get_json()["error"]


def png_header(width: int, height: int) -> bytes:
    """Only the signature and header of a PNG: the size check must refuse it unread."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


# -- no game ------------------------------------------------------------------------------


def test_read_returns_the_reading_json(client: FlaskClient, reader: FakeReader) -> None:
    reader.push(die(3, 10), die(5, 30, flags=("leaning",)))
    res = client.post(
        "/api/read",
        data={"image": (io.BytesIO(png_bytes()), "my tray.png")},
        headers={"X-Dice-Companion": "1"},
    )
    data = res.get_json()
    assert res.status_code == 200
    assert list(data) == [
        "image",
        "width",
        "height",
        "elapsed_ms",
        "tray",
        "dice",
        "faces",
        "reroll",
        "speech",
    ]
    assert data["image"] == "my_tray.png" and data["faces"] == [3] and data["reroll"] == [1]
    assert list(data["dice"][0]) == ["value", "center", "size", "confidence", "flags", "evidence"]
    assert "Reroll the leaning die" in data["speech"]


def test_read_without_an_image_is_a_400(client: FlaskClient) -> None:
    res = client.post("/api/read", data={}, headers={"X-Dice-Companion": "1"})
    assert res.status_code == 400 and "image" in res.get_json()["error"]


@pytest.mark.parametrize(
    "body",
    [
        {"game": "five-dice", "dice": [2, 2, 2, 5, 5]},
        {"game": "five-dice", "dice": [2, 2, 2, 5, 5], "category": "full_house"},
        {"game": "five-dice-bonus", "dice": [6, 6, 6, 6, 6], "filled": {"five_of_a_kind": 50}},
        {"game": "ten-dice", "dice": [1, 1, 1, 5, 2]},
    ],
)
def test_score_is_the_score_command_json(client: FlaskClient, body: dict[str, Any]) -> None:
    status, data = post(client, "/api/score", **body)
    assert status == 200
    assert data == score_json(
        body["game"], body["dice"], body.get("filled", {}), body.get("category")
    )


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"game": "five-dice", "dice": [2, 2]}, 400),
        ({"game": "five-dice", "dice": "22255"}, 400),
        ({"game": "nope", "dice": [2]}, 400),
        (
            {
                "game": "five-dice",
                "dice": [1, 2, 3, 4, 5],
                "filled": {"ones": 1},
                "category": "ones",
            },
            409,
        ),
    ],
)
def test_score_errors(client: FlaskClient, body: dict[str, Any], status: int) -> None:
    assert post(client, "/api/score", **body)[0] == status


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_speech_wav_is_made_by_espeak(client: FlaskClient) -> None:
    with client.get("/api/speech.wav?text=Four, four, two.") as res:
        assert res.status_code == 200 and res.mimetype == "audio/wav"
        assert res.data[:4] == b"RIFF"
    assert client.get("/api/speech.wav").status_code == 400


def test_history_names_the_player_of_an_undone_action(client: FlaskClient) -> None:
    gid = new_game(client, players=["Ann", "Bo"])["id"]
    post(client, f"/api/games/{gid}/roll", dice=[2, 2, 2])
    post(client, f"/api/games/{gid}/score", category="twos")
    post(client, f"/api/games/{gid}/undo")
    actions = client.get(f"/api/games/{gid}/history").get_json()["actions"]
    assert actions[1]["player"] == "Ann" and actions[1]["undone_by"] == 3
    page = client.get(f"/games/{gid}/history").get_data(as_text=True)
    assert "undone by #3" in page


def test_a_heic_photo_is_shown_as_a_jpeg_copy(
    client: FlaskClient, reader: FakeReader, app: Flask
) -> None:
    import pillow_heif
    from PIL import Image

    pillow_heif.register_heif_opener()
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 120, 90)).save(buf, "HEIF")
    gid = new_game(client)["id"]
    reader.push(die(4, 10), die(4, 30), die(2, 50))
    res = client.post(
        f"/api/games/{gid}/roll",
        data={"image": (io.BytesIO(buf.getvalue()), "IMG_0001.HEIC")},
        headers={"X-Dice-Companion": "1"},
    )
    state = res.get_json()
    assert res.status_code == 200, state
    assert state["photo"]["name"].endswith(".heic")
    assert state["photo"]["url"].endswith(".view.jpg")
    with client.get(state["photo"]["url"]) as photo:
        assert photo.status_code == 200 and photo.data[:2] == b"\xff\xd8"


def test_a_ten_dice_photo_may_still_show_the_dice_set_aside(
    client: FlaskClient, reader: FakeReader
) -> None:
    gid = new_game(client, "ten-dice", ["Ann", "Bo"])["id"]
    post(client, f"/api/games/{gid}/roll", dice=[1, 1, 2, 2, 2, 3, 3, 5, 5, 6])
    # All ten dice in view: 2,2,2,5,5 were set aside, the other five were thrown.
    values = [2, 6, 2, 5, 4, 2, 5, 4, 4, 1]
    reader.push(*(die(v, 5 * i) for i, v in enumerate(values)))
    status, s = photo_roll(client, gid)
    assert status == 200, s
    assert s["last_throw"]["dice"] == [6, 4, 4, 4, 1]
    assert s["turn_total"] == 300 + 400 and s["dice_left"] == 2


def test_a_free_reroll_photo_may_show_only_the_rerolled_die(
    client: FlaskClient, reader: FakeReader
) -> None:
    gid = new_game(client)["id"]
    reader.push(die(4, 10), die(6, 30, flags=("off_tray",)), die(2, 50))
    photo_roll(client, gid)
    reader.push(die(3, 10))
    status, s = photo_roll(client, gid)
    assert status == 200 and [d["value"] for d in s["dice"]] == [4, 3, 2]
