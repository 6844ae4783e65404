"""Helpers of the browser tests: a phone's viewport, the JSON API, waiting for the table."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

PHONE = {"width": 375, "height": 812}
LAPTOP = {"width": 1280, "height": 900}


def api(base_url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST ``body`` as JSON to the running server; its JSON answer."""
    req = urllib.request.Request(
        base_url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as res:
        data: dict[str, Any] = json.load(res)
    return data


def wait_idle(page: Any) -> None:
    """Wait until the table page has no request in flight."""
    page.wait_for_selector('#table[data-busy="0"]', timeout=60_000)


def open_table(page: Any, url: str) -> None:
    """Open a game's table page at ``url`` and wait until its script has drawn it."""
    page.goto(url)
    page.wait_for_selector('#table[data-ready="1"]')


def start_from_page(page: Any, base_url: str, player: str, *, coach: bool = False) -> None:
    """Start a three-dice game for ``player`` from the new-game page and wait for the table."""
    page.goto(base_url + "/")
    page.check('input[name=game][value="three-dice"]')
    page.fill("#players input[name=player] >> nth=0", player)
    if coach:
        page.check("input[name=coach]")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector('#table[data-ready="1"]')
