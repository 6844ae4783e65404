"""Uploaded photos: stored under generated names only, beside the database.

A photo is saved as ``<uuid4 hex>.<ext>`` with the extension of the format found in its
header (never the client's file name). Its web reading is saved beside it as
``<uuid4 hex>.json`` so that a roll typed by hand after a failed reading can still cite the
photo. Formats a browser cannot show (HEIC, AVIF, TIFF) get a JPEG copy ``<uuid4 hex>.view.jpg``.

A photo that no action cites is an orphan: one whose reading needed help and was then retaken
instead of typed. :func:`sweep` deletes orphans a day old, and those of a game that has
ended (the reading of such a photo names its game): nobody can cite them any more, and a
photo of a table is not kept without a reason. Photos that an action cites are never deleted:
they are the game's evidence.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from companion.web.errors import PhotoError

#: Pillow's format names (as reported by ``vision.io.probe``) and the extension stored.
EXTENSIONS = {
    "JPEG": "jpg",
    "MPO": "jpg",
    "PNG": "png",
    "WEBP": "webp",
    "HEIF": "heic",
    "AVIF": "avif",
    "BMP": "bmp",
    "GIF": "gif",
    "TIFF": "tif",
}
#: Extensions every browser shows as they are.
BROWSER_SAFE = {"jpg", "png", "webp", "gif", "bmp"}
NAME = re.compile(r"^[0-9a-f]{32}\.(?:view\.jpg|[a-z]{3,4})$")
#: Files of a stored photo: the photo, its reading and its JPEG copy share the stem.
FILE = re.compile(r"^([0-9a-f]{32})\.(?:view\.jpg|json|[a-z]{3,4})$")
#: Age (seconds) after which a photo that no action cites is deleted.
ORPHAN_AGE_S = 24 * 3600


def check_name(name: str) -> str:
    """The name if it is one this module generated, else PhotoError (no paths, no guesses)."""
    if not NAME.match(name):
        raise PhotoError(f"{name!r} is not the name of a stored photo")
    return name


def save(photos_dir: Path, data: bytes) -> str:
    """Check the header (size limit, format), store the bytes, return the generated name.

    Raises ``vision.errors.ImageDecodeError`` (ImageTooLargeError over 50 megapixels).
    """
    from vision.io import probe

    info = probe(data)
    ext = EXTENSIONS.get(info.format, "img")
    name = f"{uuid.uuid4().hex}.{ext}"
    photos_dir.mkdir(parents=True, exist_ok=True)
    (photos_dir / name).write_bytes(data)
    if ext not in BROWSER_SAFE:
        _save_view_copy(photos_dir, name, data)
    return name


def _save_view_copy(photos_dir: Path, name: str, data: bytes) -> None:
    import cv2

    from vision.io import decode

    image = decode(data, max_side=2000).image_bgr
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])
    if ok:
        (photos_dir / view_name(name)).write_bytes(buf.tobytes())


def view_name(name: str) -> str:
    """The file a browser is sent for a stored photo (the JPEG copy for HEIC and the like)."""
    stem, _, ext = name.partition(".")
    return name if ext in BROWSER_SAFE else f"{stem}.view.jpg"


def save_reading(photos_dir: Path, name: str, reading: dict[str, Any]) -> None:
    stem = name.partition(".")[0]
    (photos_dir / f"{stem}.json").write_text(json.dumps(reading))


def load_reading(photos_dir: Path, name: str, *, game: str | None = None) -> dict[str, Any]:
    """The reading saved with a stored photo, or PhotoError (also when the photo was taken
    for another game than ``game``)."""
    check_name(name)
    path = photos_dir / f"{name.partition('.')[0]}.json"
    if not path.is_file():
        raise PhotoError(f"no stored photo is named {name!r}")
    reading: dict[str, Any] = json.loads(path.read_text())
    if game is not None and reading.get("game", game) != game:
        raise PhotoError(f"the photo {name!r} was taken for another game")
    return reading


def sweep(
    photos_dir: Path,
    cited: Iterable[str],
    *,
    game: str | None = None,
    max_age_s: float = ORPHAN_AGE_S,
    now: float | None = None,
) -> list[str]:
    """Delete the photos no action cites that are older than ``max_age_s`` seconds, or that
    were taken for ``game`` (a game that has ended). ``cited`` are stored photo names.

    Returns the stems deleted. Files that vanish or resist meanwhile are left alone.
    """
    if not photos_dir.is_dir():
        return []
    keep = {name.partition(".")[0] for name in cited}
    stems: dict[str, list[Path]] = {}
    for path in photos_dir.iterdir():
        m = FILE.match(path.name)
        if m and m.group(1) not in keep:
            stems.setdefault(m.group(1), []).append(path)
    now = time.time() if now is None else now
    gone = []
    for stem, files in stems.items():
        try:
            oldest = min(f.stat().st_mtime for f in files)
        except OSError:
            continue
        expired = now - oldest > max_age_s
        if not expired and game is not None:
            expired = _game_of(photos_dir / f"{stem}.json") == game
        if expired:
            for f in files:
                with contextlib.suppress(OSError):
                    f.unlink()
            gone.append(stem)
    return sorted(gone)


def _game_of(sidecar: Path) -> str | None:
    try:
        reading = json.loads(sidecar.read_text())
    except (OSError, ValueError):
        return None
    game = reading.get("game") if isinstance(reading, dict) else None
    return game if isinstance(game, str) else None


def discard(photos_dir: Path, name: str) -> None:
    """Remove a photo that no action cites (its roll was refused)."""
    stem = name.partition(".")[0]
    for path in (photos_dir / name, photos_dir / f"{stem}.json", photos_dir / f"{stem}.view.jpg"):
        path.unlink(missing_ok=True)
