"""Helpers of the web tests: a small PNG, stand-in readings, a new game and a photo roll
through the API."""

from __future__ import annotations

import io
from typing import Any

from flask.testing import FlaskClient
from PIL import Image

from vision.result import DieReading, TrayReading


def png_bytes(width: int = 64, height: int = 48) -> bytes:
    """A small grey PNG: enough for the header check; the stand-in reader ignores pixels."""
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (90, 120, 90)).save(buf, "PNG")
    return buf.getvalue()


def die(
    value: int | None, x: float, *, flags: tuple[str, ...] = (), conf: float = 0.9
) -> DieReading:
    return DieReading(
        value=value,
        center=(x, 20.0),
        size_px=10.0,
        confidence=conf,
        flags=flags,
        outline=((x - 5, 15.0), (x + 5, 15.0), (x + 5, 25.0), (x - 5, 25.0)),
        evidence=tuple(f"{f} because the test says so" for f in flags),
    )


class FakeReader:
    """Returns the queued readings in order, whatever the photo shows."""

    def __init__(self) -> None:
        self.queue: list[tuple[DieReading, ...]] = []

    def push(self, *dice: DieReading) -> None:
        self.queue.append(dice)

    def __call__(self, data: bytes, **_: Any) -> TrayReading:
        dice = self.queue.pop(0)
        return TrayReading(width=64, height=48, elapsed_ms=1.5, dice=dice)


def photo_roll(
    client: FlaskClient, gid: str, keep: str | None = None, **fields: Any
) -> tuple[int, dict[str, Any]]:
    """Roll in game ``gid`` by uploading a photo (the stand-in reader says what it shows)."""
    data: dict[str, Any] = {"image": (io.BytesIO(png_bytes()), "tray.png"), **fields}
    if keep is not None:
        data["keep"] = keep
    res = client.post(
        f"/api/games/{gid}/roll",
        data=data,
        content_type="multipart/form-data",
        headers={"X-Dice-Companion": "1"},
    )
    return res.status_code, res.get_json()


def new_game(
    client: FlaskClient, game: str = "three-dice", players: list[str] | None = None, **options: Any
) -> dict[str, Any]:
    res = client.post("/api/games", json={"game": game, "players": players or ["Ann"], **options})
    assert res.status_code == 201, res.get_json()
    data: dict[str, Any] = res.get_json()
    return data
