"""Uploaded photos: stored under generated names only, beside the database.

A photo is saved as ``<uuid4 hex>.<ext>`` with the extension of the format found in its
header (never the client's file name). Its web reading is saved beside it as
``<uuid4 hex>.json`` so that a roll typed by hand after a failed reading can still cite the
photo. Formats a browser cannot show (HEIC, AVIF, TIFF) get a JPEG copy ``<uuid4 hex>.view.jpg``.
"""

from __future__ import annotations

import json
import re
import uuid
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


def load_reading(photos_dir: Path, name: str) -> dict[str, Any]:
    """The reading saved with a stored photo, or PhotoError."""
    check_name(name)
    path = photos_dir / f"{name.partition('.')[0]}.json"
    if not path.is_file():
        raise PhotoError(f"no stored photo is named {name!r}")
    reading: dict[str, Any] = json.loads(path.read_text())
    return reading


def discard(photos_dir: Path, name: str) -> None:
    """Remove a photo that no action cites (its roll was refused)."""
    stem = name.partition(".")[0]
    for path in (photos_dir / name, photos_dir / f"{stem}.json", photos_dir / f"{stem}.view.jpg"):
        path.unlink(missing_ok=True)
