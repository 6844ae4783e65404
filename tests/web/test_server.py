"""The served app: simultaneous requests on one turn, and a server killed mid-game."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from web_helpers import new_game


def _race(app: Flask, url: str, bodies: list[dict[str, Any]]) -> list[int]:
    """Send every body at the same moment from its own thread and client."""
    barrier = threading.Barrier(len(bodies))
    statuses: list[int] = [0] * len(bodies)

    def fire(k: int) -> None:
        client = app.test_client()
        barrier.wait()
        statuses[k] = client.post(url, json=bodies[k]).status_code

    threads = [threading.Thread(target=fire, args=(k,)) for k in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def test_simultaneous_scores_on_one_turn_give_one_success(app: Flask) -> None:
    client = app.test_client()
    gid = new_game(client, players=["Ann", "Bo"])["id"]
    client.post(f"/api/games/{gid}/roll", json={"dice": [4, 4, 2]})
    cats = ["ones", "twos", "threes", "fours", "fives", "sixes"] * 3
    statuses = _race(app, f"/api/games/{gid}/score", [{"category": c} for c in cats])
    assert sorted(statuses) == [200] + [409] * (len(cats) - 1)
    state = client.get(f"/api/games/{gid}").get_json()
    assert len(state["sheets"][0]["entries"]) == 1 and state["current_player"] == "Bo"
    assert state["version"] == 2


def test_simultaneous_rolls_with_the_same_version_give_one_success(app: Flask) -> None:
    client = app.test_client()
    gid = new_game(client)["id"]
    bodies = [{"dice": [1 + k % 6, 2, 3], "version": 0} for k in range(12)]
    statuses = _race(app, f"/api/games/{gid}/roll", bodies)
    assert sorted(statuses) == [200] + [409] * 11
    assert client.get(f"/api/games/{gid}").get_json()["roll_number"] == 1


# -- a real server ------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _serve_command() -> list[str]:
    """``dice-companion serve`` when the CLI has it, else the web package's own entry."""
    exe = shutil.which("dice-companion") or str(Path(sys.executable).parent / "dice-companion")
    if Path(exe).exists():
        done = subprocess.run([exe, "serve", "--help"], capture_output=True, check=False)
        if done.returncode == 0:
            return [exe, "serve"]
    return [sys.executable, "-m", "companion.web", "serve"]


class Server:
    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.port = _free_port()
        self.proc = subprocess.Popen(
            [*_serve_command(), "--port", str(self.port), "--db", str(self.db)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def call(self, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=data,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as res:
                return res.status, json.load(res)
        except urllib.error.HTTPError as err:
            with err:
                return err.code, json.load(err)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "games.sqlite3")
    yield s
    if s.proc is not None and s.proc.poll() is None:
        s.kill()


def test_a_server_killed_mid_game_loses_nothing_confirmed(server: Server) -> None:
    server.start()
    status, state = server.call("/api/games", {"game": "three-dice", "players": ["Ann", "Bo"]})
    assert status == 201
    gid = state["id"]
    assert server.call(f"/api/games/{gid}/roll", {"dice": [5, 5, 1]})[0] == 200
    assert server.call(f"/api/games/{gid}/score", {"category": "fives"})[0] == 200
    assert server.call(f"/api/games/{gid}/roll", {"dice": [2, 2, 3]})[0] == 200
    server.kill()
    server.start()
    status, state = server.call(f"/api/games/{gid}")
    assert status == 200
    assert state["sheets"][0]["boxes"] == {"fives": 10}
    assert state["current_player"] == "Bo" and state["roll_number"] == 1
    assert [d["value"] for d in state["dice"]] == [2, 2, 3]
    status, state = server.call(f"/api/games/{gid}/score", {"category": "twos"})
    assert status == 200 and state["totals"] == [10, 4]
    status, page = server.call(f"/api/games/{gid}/history")
    assert [a["kind"] for a in page["actions"]] == ["roll", "score", "roll", "score"]
    # Phones racing over HTTP on the next turn: one score counts.
    server.call(f"/api/games/{gid}/roll", {"dice": [6, 6, 6]})
    statuses: list[int] = []
    barrier = threading.Barrier(8)

    def fire(category: str) -> None:
        barrier.wait()
        statuses.append(server.call(f"/api/games/{gid}/score", {"category": category})[0])

    threads = [
        threading.Thread(target=fire, args=(c,)) for c in ["sixes", "ones", "twos", "threes"] * 2
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200] + [409] * 7
    assert len(server.call(f"/api/games/{gid}")[1]["sheets"][0]["entries"]) == 2


def test_a_lan_server_prints_a_join_link_and_refuses_strangers(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.web",
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "g.sqlite3"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "needs no link" in line:
                break
        text = "".join(lines)
        link = next(w for w in text.split() if "/join/" in w)
        secret = link.rsplit("/", 1)[1]
        assert "█" in text or "▀" in text  # the QR code, drawn with block characters
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        server = Server(tmp_path / "g.sqlite3")
        server.port = port
        body = {"game": "three-dice", "players": ["Ann"]}
        # The server's own machine needs no secret.
        assert server.call("/api/games", body)[0] == 201
        lan_host = link.split("//", 1)[1].rsplit(":", 1)[0]
        if lan_host.startswith("127."):
            pytest.skip("this machine has no network address to act as a stranger from")
        stranger = urllib.request.Request(
            f"http://{lan_host}:{port}/api/games",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(stranger, timeout=10)
        with refused.value as err:
            assert err.code == 403 and "join link" in json.load(err)["error"]
        req = urllib.request.Request(
            f"http://{lan_host}:{port}/api/games",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-Join-Secret": secret},
        )
        with urllib.request.urlopen(req, timeout=10) as res:
            assert res.status == 201
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
