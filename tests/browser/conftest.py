"""Browser tests: a served companion on a temporary database, Debian's chromium via Playwright,
and tray photos (sample_images/ first, drawn ones when no sample fits)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from trays import draw_tray

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_images"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.fixture(scope="session")
def coach_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The coach's tables for the session's servers (never the user's cache directory)."""
    return tmp_path_factory.mktemp("coach-cache")


@pytest.fixture
def base_url(tmp_path: Path, coach_cache: Path) -> Iterator[str]:
    """A companion served by waitress on a free port, like ``dice-companion serve``."""
    port = _free_port()
    env = {**os.environ, "DICE_COMPANION_CACHE_DIR": str(coach_cache)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.web",
            "serve",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "games.sqlite3"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("the companion did not start") from None
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


def _clean_samples(n_dice: int) -> list[tuple[Path, list[int]]]:
    """Sample photos showing exactly ``n_dice`` dice, every one flat in the tray."""
    found = []
    for truth_path in sorted(SAMPLES.glob("*.json")):
        try:
            truth = json.loads(truth_path.read_text())
        except (OSError, ValueError):
            continue
        dice = truth.get("dice") if isinstance(truth, dict) else None
        if not isinstance(dice, list) or len(dice) != n_dice:
            continue
        if any(d.get("state", "flat") != "flat" for d in dice):
            continue
        image = truth_path.parent / str(truth.get("image", ""))
        if not image.is_file():
            candidates = [
                p for p in truth_path.parent.glob(truth_path.stem + ".*") if p.suffix != ".json"
            ]
            if not candidates:
                continue
            image = candidates[0]
        found.append((image, [int(d["value"]) for d in dice]))
    return found


@pytest.fixture
def scenes(tmp_path: Path) -> Any:
    """``scenes(n, count)``: photos with their true values, samples first, drawn ones after."""

    def pick(n_dice: int, count: int) -> list[tuple[Path, list[int]]]:
        found = _clean_samples(n_dice)
        out = [found[k % len(found)] for k in range(count)] if found else []
        if not out:
            patterns = [
                [4, 4, 2, 6, 5, 1, 3, 3, 5, 2],
                [6, 6, 1, 3, 2, 5, 5, 4, 1, 6],
                [1, 2, 3, 3, 3, 6, 2, 4, 5, 1],
            ]
            for k in range(count):
                values = patterns[k % len(patterns)][:n_dice]
                out.append((draw_tray(values, tmp_path / f"drawn_{n_dice}_{k}.jpg"), values))
        return out

    return pick
