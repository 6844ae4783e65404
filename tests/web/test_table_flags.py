"""Flagged dice on the table: the reading carries the reason and the place of each die."""

from __future__ import annotations

from flask.testing import FlaskClient
from web_helpers import FakeReader, new_game, photo_roll

from vision.result import DieReading

LEAN_WHY = (
    "visible side face: its silhouette is 0.34 die widths off where a flat die's would be at "
    "that place (top face tilted)"
)
OFF_WHY = "position: its footprint lies 1.6 die widths outside the tray floor"


def placed(value: int | None, x: float, y: float, *flags: str, why: str = "") -> DieReading:
    """A die at (x, y) of the stand-in reader's 64 x 48 photo."""
    return DieReading(
        value=value,
        center=(x, y),
        size_px=8.0,
        confidence=0.9,
        flags=flags,
        outline=((x - 4, y - 4), (x + 4, y - 4), (x + 4, y + 4), (x - 4, y + 4)),
        evidence=(why,) if why else (),
    )


def test_each_flagged_die_carries_its_reason_and_place(
    client: FlaskClient, reader: FakeReader
) -> None:
    gid = new_game(client)["id"]
    reader.push(
        placed(4, 8, 6, "leaning", why=LEAN_WHY),
        placed(3, 32, 24),
        placed(6, 60, 44, "off_tray", why=OFF_WHY),
    )
    status, s = photo_roll(client, gid)
    assert status == 200, s
    assert s["pending_reroll"] == [0, 2] and s["roll_number"] == 1 and not s["can_score"]
    dice = s["photo"]["reading"]["dice"]
    assert [d["where"] for d in dice] == ["top left", "middle", "bottom right"]
    assert dice[0]["flags"] == ["leaning"] and dice[0]["evidence"] == [LEAN_WHY]
    assert dice[2]["flags"] == ["off_tray"] and dice[2]["evidence"] == [OFF_WHY]
    # The page finds the photo die of each pending position through roles and positions.
    r = s["photo"]["reading"]
    assert [r["positions"][r["roles"][k]] for k in (0, 2)] == [0, 2]
    assert (
        "Reroll the leaning die, top left. Reroll the die off the tray, bottom right."
        in (r["speech"])
    )
    # The history keeps the reasons as evidence.
    page = client.get(f"/games/{gid}/history").get_data(as_text=True)
    assert "<strong>leaning</strong>, top left (read 4)" in page
    assert "<strong>off the tray</strong>, bottom right (read 6)" in page
    assert LEAN_WHY.replace("'", "&#39;") in page and OFF_WHY in page
    # The free reroll of both: a roll is not used up.
    reader.push(placed(5, 8, 6), placed(2, 60, 44))
    status, s = photo_roll(client, gid)
    assert status == 200, s
    assert [d["value"] for d in s["dice"]] == [5, 3, 2]
    assert s["roll_number"] == 1 and s["pending_reroll"] == [] and s["can_score"]


def test_the_table_page_has_the_free_reroll_banner(client: FlaskClient) -> None:
    gid = new_game(client)["id"]
    page = client.get(f"/games/{gid}").get_data(as_text=True)
    assert 'id="reroll-line"' in page and 'role="alert"' in page
