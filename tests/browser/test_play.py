"""Whole games in a real browser: the new-game page, photos of the tray, corrections, scores."""

from __future__ import annotations

import json
import shutil
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from pages import LAPTOP, PHONE, api, open_table, start_from_page, wait_idle

pytestmark = pytest.mark.browser


def state(base_url: str, page: Any) -> dict[str, Any]:
    gid = page.get_attribute("#table", "data-game")
    with urllib.request.urlopen(f"{base_url}/api/games/{gid}") as res:
        data: dict[str, Any] = json.load(res)
    return data


def page_dice(page: Any) -> list[int]:
    return [
        int(v)
        for v in page.eval_on_selector_all("#dice .die", "els => els.map(e => e.dataset.value)")
    ]


def arrange(read: list[int], truth: list[int]) -> list[int]:
    """The true values laid on the read positions, keeping every die that was read right."""
    left = list(truth)
    out: list[int | None] = []
    for v in read:
        if v in left:
            left.remove(v)
            out.append(v)
        else:
            out.append(None)
    return [v if v is not None else left.pop(0) for v in out]


def roll_photo(page: Any, photo: Path, truth: list[int]) -> str:
    """Upload a photo; fix what the reader got wrong with the page's own tools.

    Returns how the roll was settled: "read" (read right), "corrected" (tap-a-die
    correction after the roll) or "typed" (the page asked to type the dice for the photo).
    """
    page.set_input_files("#photo-input", str(photo))
    wait_idle(page)
    message = page.locator("#message")
    if message.is_visible() and "Reading" not in message.inner_text():
        # The reader could not settle the roll: the page shows its reading and asks for the
        # dice, which stay tied to this photo as evidence.
        assert page.locator("#photo-card").is_visible()
        page.fill("#type-input", " ".join(str(v) for v in truth))
        page.click("#type-form button[type=submit]")
        wait_idle(page)
        assert not page.locator("#message").is_visible(), page.inner_text("#message")
        return "typed"
    read = page_dice(page)
    assert len(read) == len(truth)
    target = arrange(read, truth)
    how = "read"
    for i, (got, want) in enumerate(zip(read, target, strict=True)):
        if got != want:
            page.click(f'#dice .die[data-index="{i}"]')
            page.click(f'#fix-buttons button[data-value="{want}"]')
            wait_idle(page)
            how = "corrected"
    assert sorted(page_dice(page)) == sorted(truth)
    return how


def test_a_three_dice_game_from_the_new_game_page_to_the_winner(
    base_url: str, browser: Any, scenes: Any
) -> None:
    photos = scenes(3, 6)
    page = browser.new_page(viewport=PHONE)
    start_from_page(page, base_url, "Ann")
    assert page.inner_text("#turn-line") == "Ann's turn"
    settled = []
    for turn, (photo, truth) in enumerate(photos, start=1):
        assert f"Turn {turn} of 6" in page.inner_text("#roll-line")
        settled.append(roll_photo(page, photo, truth))
        if turn == 1:
            # The reading is spoken: by the browser's voices, or by a WAV made by espeak-ng.
            voices = page.evaluate(
                "window.speechSynthesis ? speechSynthesis.getVoices().length : 0"
            )
            src = page.get_attribute("#speech-audio", "src")
            assert voices or (src and src.startswith("/api/speech.wav?text=")), (voices, src)
            if src and shutil.which("espeak-ng"):
                with urllib.request.urlopen(base_url + src) as res:
                    assert res.read(4) == b"RIFF"
            # Keep the first die, roll the other two again and type them.
            page.click('#dice .die[data-index="0"]')
            page.click("#keep-toggle")
            assert "kept" in page.get_attribute('#dice .die[data-index="0"]', "class")
            page.fill("#type-input", "6 6")
            page.click("#type-form button[type=submit]")
            wait_idle(page)
            assert "roll 2 of 3" in page.inner_text("#roll-line")
            assert page_dice(page)[1:] == [6, 6]
        if turn == 2 and settled[-1] != "typed":
            # Tapping a die on the photo opens the die's panel too.
            page.click("#overlay g.die-mark >> nth=0")
            assert page.locator("#die-panel").is_visible()
            page.click("#die-panel-close")
            assert not page.locator("#die-panel").is_visible()
        if turn == 3:
            # The coach is off in this game: no advice anywhere.
            assert not page.locator("#coach-card").is_visible()
            assert page.locator(".option-coach").count() == 0
            page.screenshot(path="/tmp/dice-table-phone.png", full_page=True)
            page.set_viewport_size(LAPTOP)
            page.screenshot(path="/tmp/dice-table-laptop.png", full_page=True)
            page.set_viewport_size(PHONE)
        best = page.locator("#options .option").first
        category = best.get_attribute("data-category")
        best.click()
        wait_idle(page)
        s = state(base_url, page)
        assert category in s["sheets"][0]["boxes"]
    s = state(base_url, page)
    assert s["finished"] and s["winners"] == ["Ann"]
    assert page.locator("#winner-line").is_visible()
    assert "Ann wins with " + str(s["totals"][0]) in page.inner_text("#winner-line")
    # Every photo is evidence in the history, with the reader's reading.
    page.click("text=History")
    page.wait_for_selector(".history")
    assert page.locator(".history img").count() == 6
    assert page.locator('.history li[data-kind="score"]').count() == 6
    print("how each roll was settled:", settled)


def test_a_ten_dice_turn_with_a_bust_and_a_bank(base_url: str, browser: Any, scenes: Any) -> None:
    ((photo, truth),) = scenes(10, 1)
    page = browser.new_page(viewport=LAPTOP)
    page.goto(base_url + "/")
    page.check('input[name=game][value="ten-dice"]')
    page.fill("#players input[name=player] >> nth=0", "Ann")
    page.fill("#players input[name=player] >> nth=1", "Bo")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector('#table[data-ready="1"]')
    assert page.locator("#throw-card").is_visible()
    # Ann throws all ten dice from a photo.
    roll_photo(page, photo, truth)
    s = state(base_url, page)
    ann_bust = s["last_throw"]["bust"]
    if not ann_bust:
        assert page.inner_text("#turn-total") == str(s["turn_total"])
        points = s["turn_total"]
        page.click("#bank-button")
        wait_idle(page)
        assert state(base_url, page)["scores"][0] == points
    assert page.inner_text("#turn-line") == "Bo's turn"
    # Bo: a scoring throw, then the rest of the dice score nothing: bust.
    page.fill("#type-input", "2 2 2 5 1 3 4 6 6 3")
    page.click("#type-form button[type=submit]")
    wait_idle(page)
    assert page.inner_text("#turn-total") == "250"
    assert page.inner_text("#dice-left") == "6"
    assert page.locator("#bank-button").is_visible()
    page.fill("#type-input", "1 2 3 4 6 6")
    page.click("#type-form button[type=submit]")
    wait_idle(page)
    assert page.inner_text("#throw-points") == "Bust"
    assert "busts" in page.inner_text("#event-line")
    s = state(base_url, page)
    assert s["scores"][1] == 0 and s["current_player"] == "Ann"
    if ann_bust:
        # Ann's photo throw bust, so she banks on this turn instead.
        page.fill("#type-input", "1 1 1 2 3 4 6 6 2 3")
        page.click("#type-form button[type=submit]")
        wait_idle(page)
        page.click("#bank-button")
        wait_idle(page)
        assert state(base_url, page)["scores"][0] == 1000
    page.screenshot(path="/tmp/dice-ten-laptop.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path="/tmp/dice-ten-phone.png", full_page=True)


def test_the_judge_gives_points_and_the_rule(base_url: str, browser: Any) -> None:
    page = browser.new_page(viewport=PHONE)
    page.goto(base_url + "/judge")
    page.select_option("#judge-game", "five-dice")
    page.fill("#judge-dice", "22255")
    page.select_option("#judge-category", "full_house")
    page.click("#judge-form button[type=submit]")
    page.wait_for_selector("#judge-result-card:not([hidden])")
    text = page.inner_text("#judge-result")
    assert "25 points in Full House" in text
    assert "exactly three of one number and two of another" in text
    page.select_option("#judge-game", "ten-dice")
    page.fill("#judge-dice", "1 1 2 2 2 3 3 5 5 6")
    page.click("#judge-form button[type=submit]")
    page.wait_for_function("document.querySelector('#judge-result').innerText.includes('300')")
    assert "222 (200)" in page.inner_text("#judge-result")


def test_two_phones_at_one_table_cannot_both_roll(base_url: str, browser: Any) -> None:
    gid = api(base_url, "/api/games", {"game": "three-dice", "players": ["Ann", "Bo"]})["id"]
    phones = [browser.new_page(viewport=PHONE) for _ in range(2)]
    for phone in phones:
        open_table(phone, f"{base_url}/games/{gid}")
    first, second = phones
    first.fill("#type-input", "5 5 1")
    first.click("#type-form button[type=submit]")
    wait_idle(first)
    # The second phone still shows the table before that roll, and types another one.
    second.fill("#type-input", "2 2 2")
    second.click("#type-form button[type=submit]")
    wait_idle(second)
    assert "moved on" in second.inner_text("#message")
    assert page_dice(second) == [5, 5, 1]
    s = state(base_url, second)
    assert s["roll_number"] == 1 and [d["value"] for d in s["dice"]] == [5, 5, 1]


def test_the_coach_shows_its_advice_when_the_players_switch_it_on(
    base_url: str, browser: Any
) -> None:
    page = browser.new_page(viewport=PHONE)
    start_from_page(page, base_url, "Ann", coach=True)
    # Before the first roll: the expected final score of the whole game.
    page.wait_for_function("document.querySelector('#coach-line').innerText.includes('39.0')")
    page.fill("#type-input", "4 4 2")
    page.click("#type-form button[type=submit]")
    wait_idle(page)
    # After roll 1, without a tap: which dice to keep, and every box's expected final score.
    page.wait_for_function("document.querySelector('#coach-line').innerText.includes('keep 4, 4')")
    assert "expected final score" in page.inner_text("#coach li.best")
    boxes = page.locator("#options .option")
    assert page.locator("#options .option-coach").count() == boxes.count() > 0
    page.click("#coach-keep-button")
    assert page_dice(page) == [4, 4, 2]
    kept = page.eval_on_selector_all(
        "#dice .die", "els => els.map(e => e.classList.contains('kept'))"
    )
    assert kept == [True, True, False]
    page.fill("#type-input", "4")
    page.click("#type-form button[type=submit]")
    wait_idle(page)
    page.fill("#type-input", "")
    # After roll 2 keep all three and stop: the best box is marked beside the categories.
    page.wait_for_function("document.querySelector('#coach-line').innerText.includes('Best')")
    assert page.locator("#options .option.coach-best").count() in (0, 1)
    page.screenshot(path="/tmp/dice-coach-phone.png", full_page=True)
    page.set_viewport_size(LAPTOP)
    page.screenshot(path="/tmp/dice-coach-laptop.png", full_page=True)
    page.locator('#options .option[data-category="fours"]').click()
    wait_idle(page)
    page.goto(f"{base_url}/games/{page.get_attribute('#table', 'data-game')}/history")
    assert "coach: on" in page.inner_text("main")
    assert "advice shown: best" in page.inner_text('.history li[data-kind="score"]')


def test_a_five_dice_tie_is_broken_by_an_extra_turn(base_url: str, browser: Any) -> None:
    # Every box but Bo's last through the API, both players scoring alike: a tie is coming.
    s = api(
        base_url, "/api/games", {"game": "five-dice", "players": ["Ann", "Bo"], "tiebreak": True}
    )
    gid = s["id"]
    cats = [c["id"] for c in s["categories"]]
    for k in range(2 * len(cats) - 1):
        api(base_url, f"/api/games/{gid}/roll", {"dice": [1, 2, 3, 4, 6]})
        api(base_url, f"/api/games/{gid}/score", {"category": cats[k // 2]})
    page = browser.new_page(viewport=PHONE)
    open_table(page, f"{base_url}/games/{gid}")
    assert page.inner_text("#turn-line") == "Bo's turn"
    page.fill("#type-input", "1 2 3 4 6")
    page.click("#type-form button[type=submit]")
    wait_idle(page)
    page.click(f'#options .option[data-category="{cats[-1]}"]')
    wait_idle(page)
    # Tied: Ann plays one extra turn, then Bo; the sums of their final dice decide.
    assert page.inner_text("#turn-line") == "Ann's extra turn (tie-break)"
    assert page.inner_text("#roll-line").startswith("Tie-break")
    assert not page.locator("#stand-actions").is_visible()
    page.fill("#type-input", "6 6 6 5 5")
    page.click("#type-form button[type=submit]")
    wait_idle(page)
    assert page.locator("#stand-actions").is_visible()
    assert not page.locator("#options-card").is_visible()
    page.click('#dice .die[data-index="0"]')
    page.click("#keep-toggle")
    page.click('#dice .die[data-index="1"]')
    page.click("#keep-toggle")
    page.click('#dice .die[data-index="2"]')
    page.click("#keep-toggle")
    page.fill("#type-input", "6 6")
    page.click("#type-form button[type=submit]")
    wait_idle(page)
    assert page_dice(page) == [6, 6, 6, 6, 6]
    page.click("#stand-button")
    wait_idle(page)
    assert page.inner_text("#turn-line") == "Bo's extra turn (tie-break)"
    page.fill("#type-input", "1 1 2 1 1")
    page.click("#type-form button[type=submit]")
    wait_idle(page)
    page.click("#stand-button")
    wait_idle(page)
    s = state(base_url, page)
    assert s["finished"] and s["winners"] == ["Ann"]
    assert s["tiebreak_sums"] == {"Ann": 30, "Bo": 6}
    winner = page.inner_text("#winner-line")
    assert winner.startswith("Ann wins the tie-break")
    assert "Ann 30" in winner and "Bo 6" in winner
    page.screenshot(path="/tmp/dice-tiebreak-phone.png", full_page=True)
