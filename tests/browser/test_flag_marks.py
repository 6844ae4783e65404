"""Flagged dice in a real browser: marked on the photo, listed with the reason, free reroll.

The reader is replaced by a stand-in that flags dice, so the companion runs in this process
(werkzeug in a thread) instead of as ``dice-companion serve``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pages import LAPTOP, PHONE, api, open_table, wait_idle
from trays import draw_tray

from vision import _doubts as doubts
from vision.result import DieReading, TrayReading

pytestmark = pytest.mark.browser

LEAN_WHY = (
    "visible side face: its silhouette is 0.34 die widths off where a flat die's would be at "
    "that place (top face tilted)"
)


def drawn_die(value: int, k: int, *flags: str) -> DieReading:
    """Die ``k`` of ``draw_tray``'s first row (90 px dice at x = 110 + 160 k, y = 160)."""
    x0, y0 = 110 + k * 160, 160
    return DieReading(
        value=value,
        center=(x0 + 45.0, y0 + 45.0),
        size_px=90.0,
        confidence=0.95,
        flags=flags,
        outline=((x0, y0), (x0 + 90, y0), (x0 + 90, y0 + 90), (x0, y0 + 90)),
        evidence=(LEAN_WHY,) if "leaning" in flags else (),
    )


@pytest.fixture
def flagging_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The companion in a thread, its reader flagging the first die of the first photo."""
    readings = [
        (drawn_die(4, 0, "leaning"), drawn_die(4, 1), drawn_die(2, 2)),
        (drawn_die(6, 0),),
    ]
    yield from _serve(tmp_path, monkeypatch, readings)


@pytest.fixture
def asking_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The companion in a thread, its reader asking about the first die, with the reader's
    reason (glare)."""
    unread = replace(drawn_die(4, 0, "uncertain"), value=None, evidence=(doubts.GLARE,))
    yield from _serve(tmp_path, monkeypatch, [(unread, drawn_die(4, 1), drawn_die(2, 2))])


def _serve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readings: list[tuple[DieReading, ...]]
) -> Iterator[str]:
    """The companion in a thread, its reader giving ``readings`` photo by photo."""
    from werkzeug.serving import make_server

    import vision.reader
    from companion.web import create_app

    def read_bytes(data: bytes, **_: Any) -> TrayReading:
        return TrayReading(width=960, height=720, elapsed_ms=3.0, dice=readings.pop(0))

    monkeypatch.setattr(vision.reader, "read_bytes", read_bytes)
    app = create_app({"DATABASE": str(tmp_path / "games.sqlite3")})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(5)


def _first_photo(server: str, browser: Any, tmp_path: Path) -> tuple[Any, Path]:
    """A three-dice game's table on a phone, the first photo of a drawn tray taken: the page
    and the photo."""
    gid = api(server, "/api/games", {"game": "three-dice", "players": ["Ann", "Bo"]})["id"]
    photo = draw_tray([4, 4, 2], tmp_path / "tray.jpg")
    page = browser.new_page(viewport=PHONE)
    open_table(page, f"{server}/games/{gid}")
    page.set_input_files("#photo-input", str(photo))
    wait_idle(page)
    return page, photo


def test_a_leaning_die_is_marked_and_its_free_reroll_is_plain(
    flagging_server: str, browser: Any, tmp_path: Path
) -> None:
    page, photo = _first_photo(flagging_server, browser, tmp_path)
    sentence = "Reroll the leaning die, top left — this reroll is free."
    assert page.inner_text("#reroll-line") == sentence
    assert page.inner_text("#roll-title") == "Free reroll"
    assert page.inner_text("#roll-help").startswith(sentence + " It does not use up a roll.")
    # On the photo: the die is outlined and tagged; below it, the reason and the evidence.
    assert page.locator("#overlay g.reroll").count() == 1
    assert page.text_content("#overlay g.reroll text.die-tag") == "LEANING"
    item = page.inner_text("#flag-list li.flagged")
    assert item.startswith("Leaning die, top left (reads 4): it does not count.")
    assert "the reroll is free" in item and "Why: visible side face" in item
    assert page.inner_text('#dice .die[data-index="0"] .die-caption') == "leaning"
    assert not page.locator("#options-card").is_visible()
    page.screenshot(path="/tmp/dice-flag-phone.png", full_page=True)
    page.set_viewport_size(LAPTOP)
    page.screenshot(path="/tmp/dice-flag-laptop.png", full_page=True)
    # The free reroll: a photo of the rerolled die only; still roll 1 of 3.
    page.set_input_files("#photo-input", str(photo))
    wait_idle(page)
    assert not page.locator("#reroll-line").is_visible()
    assert "roll 1 of 3" in page.inner_text("#roll-line")
    assert page.inner_text("#roll-title") == "Roll 2 of 3"
    assert page.locator("#options .option").count() == 6


def test_a_die_asked_about_says_why_beside_it(
    asking_server: str, browser: Any, tmp_path: Path
) -> None:
    page, _photo = _first_photo(asking_server, browser, tmp_path)
    item = page.inner_text("#flag-list li.unread")
    assert item.startswith("A die, top left: its face could not be read.")
    assert "Why: glare: a bright spot covers part of its face" in item
    page.screenshot(path="/tmp/dice-asked-phone.png", full_page=True)
