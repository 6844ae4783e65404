"""The HTML pages: they render, take photos with the camera, print one sheet per player."""

from __future__ import annotations

from flask.testing import FlaskClient
from web_helpers import new_game


def test_pages_render(client: FlaskClient) -> None:
    gid = new_game(client, "five-dice-bonus", ["Ann", "Bo"])["id"]
    client.post(f"/api/games/{gid}/roll", json={"dice": [1, 2, 3, 4, 5]})
    for url in (
        "/",
        f"/games/{gid}",
        f"/games/{gid}/history",
        f"/games/{gid}/sheets",
        "/sheets/three-dice?players=3",
        "/sheets/ten-dice",
        "/judge",
    ):
        res = client.get(url)
        assert res.status_code == 200, url
        assert "<html" in res.get_data(as_text=True)
    assert client.get("/games/nope").status_code == 404
    assert client.get("/sheets/chess").status_code == 404


def test_the_table_takes_photos_with_the_phone_camera(client: FlaskClient) -> None:
    gid = new_game(client)["id"]
    page = client.get(f"/games/{gid}").get_data(as_text=True)
    assert 'type="file"' in page and 'accept="image/*"' in page
    assert 'capture="environment"' in page


def test_sheets_print_one_per_player(client: FlaskClient) -> None:
    gid = new_game(client, "three-dice", ["Ann", "Bo"], practice=True)["id"]
    page = client.get(f"/games/{gid}/sheets").get_data(as_text=True)
    assert page.count('class="print-sheet') == 2
    assert "Practice sheet · unscored" in page
    assert "Preview at 100% scale, with browser headers and footers off." in page
    blank = client.get("/sheets/five-dice-bonus?players=3").get_data(as_text=True)
    assert blank.count('class="print-sheet') == 3 and "+35 points" in blank
