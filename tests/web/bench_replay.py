"""Timing of the event log: a finished 8-player five-dice-bonus game (416 actions).

Run from the repository root: ``python tests/web/bench_replay.py``. Prints the median time of
a GET of the state (a full replay) and of an action POST on a long game, in milliseconds.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from companion.web import create_app


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    client = create_app({"DATABASE": str(folder / "g.sqlite3")}).test_client()
    players = [f"P{i}" for i in range(8)]
    gid = client.post("/api/games", json={"game": "five-dice-bonus", "players": players})
    gid = gid.get_json()["id"]
    base = f"/api/games/{gid}"
    cats = [c["id"] for c in client.get(base).get_json()["categories"]]
    for cat in cats:
        for _ in players:
            client.post(f"{base}/roll", json={"dice": [1, 2, 3, 4, 6]})
            client.post(f"{base}/roll", json={"dice": [5, 5], "keep": [0, 1, 2]})
            client.post(f"{base}/correct", json={"index": 4, "value": 6})
            client.post(f"{base}/score", json={"category": cat})
    state = client.get(base).get_json()
    assert state["finished"], state
    gets, posts = [], []
    for _ in range(15):
        t = time.perf_counter()
        client.get(base)
        gets.append(time.perf_counter() - t)
        t = time.perf_counter()
        client.post(f"{base}/correct", json={"index": 0, "value": 3})  # refused: game over
        posts.append(time.perf_counter() - t)
    print(f"{state['version']} actions")
    print(f"GET state (full replay): {statistics.median(gets) * 1000:.1f} ms median")
    print(
        f"POST refused action (replay in a transaction): {statistics.median(posts) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
