"""Decoding the bytes a phone or webcam uploads into a BGR image, EXIF orientation applied.

JPEG, PNG and WebP are decoded by OpenCV (libjpeg-turbo, libpng, libwebp): it writes BGR
directly, where Pillow would need an RGB->BGR copy that costs more than the decode of a large
photo. HEIC/HEIF (and the rarer BMP, GIF, TIFF, AVIF) go through Pillow and pillow-heif.
The header is always read first with Pillow's lazy open, which gives the size, the mode and the
EXIF orientation without touching the pixels, so a huge image is refused before any decoding.

Every failure becomes an :class:`~vision.errors.ImageDecodeError` (or its subclass
:class:`~vision.errors.ImageTooLargeError`) with a message a player can act on; nothing from
OpenCV or Pillow leaks out.
"""

from __future__ import annotations

import ctypes
import io
import math
import os
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt
import pillow_heif
from PIL import Image, ImageFile, UnidentifiedImageError

from vision.errors import ImageDecodeError, ImageTooLargeError

__all__ = [
    "MAX_PIXELS",
    "DecodedImage",
    "ImageInfo",
    "decode",
    "load_path",
    "probe",
    "reduction_factor",
]

#: Largest image accepted, in pixels (width x height). Bigger ones are refused unread.
MAX_PIXELS: Final = 50_000_000

#: Formats the lazy open may recognise. Restricting the list keeps Pillow from taking random
#: bytes for one of its lenient formats (TGA has no signature) and from running Ghostscript (EPS).
_WANTED_FORMATS: Final = ("JPEG", "PNG", "WEBP", "HEIF", "AVIF", "BMP", "GIF", "TIFF")
#: Formats decoded by OpenCV; the rest go through Pillow. Pillow calls a JPEG with a
#: multi-picture index (most phone photos) "MPO".
_JPEG_FORMATS: Final = frozenset({"JPEG", "MPO"})
_CV2_FORMATS: Final = _JPEG_FORMATS | {"PNG", "WEBP"}
#: pillow-heif already turns a HEIF image upright while decoding (libheif applies the irot/imir
#: boxes) and resets the EXIF tag to 1. Pillow's own AVIF plugin does not: it reports the
#: rotation as an EXIF orientation, applied here like a JPEG's.
_SELF_ORIENTING_FORMATS: Final = frozenset({"HEIF"})

#: Arrays inside the decoder: dtype and channel count vary until _to_bgr8 has run.
_Img = npt.NDArray[Any]

_REDUCED_FLAGS: Final = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}
_ORIENTATION_TAG: Final = 0x0112
_FORMAT_HINT: Final = "send a JPEG, PNG, WebP or HEIC photo"

# A truncated file must be an error, never half a grey photo.
ImageFile.LOAD_TRUNCATED_IMAGES = False
pillow_heif.register_heif_opener()
#: ``warnings.catch_warnings`` swaps process-wide state; two threads (the web app serves
#: uploads on several) interleaving it could leave the filters changed for good. The lazy open
#: it guards takes tens of microseconds, so holding a lock is cheap.
_WARNINGS_LOCK: Final = threading.Lock()

#: glibc's malloc (see ``_keep_freed_memory``): blocks up to this size come from the heap,
#: and freed memory is handed back to the system only past this much at its top.
_MMAP_THRESHOLD: Final = 32 * 1024 * 1024
_TRIM_THRESHOLD: Final = 64 * 1024 * 1024


def _keep_freed_memory() -> None:
    """Let glibc's malloc keep the memory a reading frees for the next one.

    A reading allocates and frees image-sized arrays (a few MB each) dozens of times. By
    default glibc maps each big one afresh or trims the heap after it is freed, so every
    reading faulted in about 3,000 new pages: some 8 ms of a 1920x1080 frame's CPU time,
    spent zeroing pages rather than reading dice. Fixed thresholds keep blocks of up to
    32 MB on the heap and up to 64 MB of freed memory in the process. Left alone when the
    ``MALLOC_*`` environment variables already tune them, and off glibc (no ``mallopt``).
    """
    if not sys.platform.startswith("linux"):
        return
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's <malloc.h>
    mallopt(m_mmap_threshold, _MMAP_THRESHOLD)
    mallopt(m_trim_threshold, _TRIM_THRESHOLD)


_keep_freed_memory()

# Import every Pillow plugin now rather than on the first WebP or HEIC, so the first photo's
# timing does not pay for it.
Image.init()
# Only the plugins this Pillow build has (Pillow raises KeyError for an unknown name).
_OPEN_FORMATS: Final = tuple(f for f in _WANTED_FORMATS if f in Image.OPEN)


@dataclass(frozen=True)
class ImageInfo:
    """What the header of an image says, read without decoding its pixels.

    ``width`` and ``height`` are the size as displayed, i.e. after the EXIF orientation
    (swapped for orientations 5-8). ``orientation`` is the EXIF orientation tag, 1-8 (1 when
    absent or invalid). ``format`` is Pillow's name ("JPEG", "MPO", "PNG", "WEBP", "HEIF", ...),
    ``mode`` Pillow's mode of the stored pixels ("RGB", "L", "RGBA", "CMYK", "I;16", "P", ...).
    """

    format: str
    width: int
    height: int
    orientation: int
    mode: str

    @property
    def pixels(self) -> int:
        return self.width * self.height


@dataclass(frozen=True, eq=False)
class DecodedImage:
    """A decoded photo, upright.

    ``image_bgr`` is HxWx3 uint8, BGR, C-contiguous, already turned by the EXIF orientation;
    it may be smaller than the photo when a ``max_side`` was asked for. ``width`` and
    ``height`` are the full displayed size of the photo in pixels. ``scale`` is decoded pixels
    per full-size pixel (1, 1/2, 1/4 or 1/8): a point ``(x, y)`` of ``image_bgr`` lies at
    ``((x + 0.5) / scale - 0.5, (y + 0.5) / scale - 0.5)`` in the full-size photo.
    """

    image_bgr: npt.NDArray[np.uint8]
    width: int
    height: int
    scale: float
    info: ImageInfo


def probe(data: bytes) -> ImageInfo:
    """Read the header of an encoded image: format, displayed size, orientation, mode.

    Raises ImageTooLargeError above ``MAX_PIXELS`` and ImageDecodeError when the bytes are
    empty or not an image of a supported format. Pixels are not decoded.
    """
    return _open(data)[0]


def reduction_factor(long_side: int, max_side: int | None) -> int:
    """The largest of 1, 2, 4, 8 that keeps ``ceil(long_side / k)`` at least ``max_side``.

    That is the JPEG DCT-scaling rule: the reduced image's long side never falls below
    ``max_side``; an image already no larger than ``max_side`` is kept at full size.
    """
    if max_side is None:
        return 1
    for k in (8, 4, 2):
        if math.ceil(long_side / k) >= max_side:
            return k
    return 1


def decode(data: bytes, *, max_side: int | None = None) -> DecodedImage:
    """Decode an encoded photo into an upright BGR uint8 image.

    With ``max_side`` (pixels), the image is decoded at 1/2, 1/4 or 1/8 of its size when its
    long side stays at least ``max_side`` (see :func:`reduction_factor`); JPEGs are then
    decoded directly at the reduced size (DCT scaling), other formats are decoded in full and
    shrunk by pixel averaging. Grayscale becomes three equal channels; 16-bit samples are
    scaled to 8 bits; palette images are expanded; CMYK is converted to BGR. Transparent
    pixels are composited onto white (a transparent background reads as a white table, not a
    black one); a fully opaque alpha channel is simply dropped.
    """
    if max_side is not None and (isinstance(max_side, bool) or max_side < 1):
        raise ValueError(f"max_side must be a positive number of pixels or None, got {max_side!r}")
    info, lazy = _open(data)
    k = reduction_factor(max(info.width, info.height), max_side)
    if info.format in _CV2_FORMATS:
        image = _decode_cv2(data, info, k)
    else:
        image = _decode_pillow(lazy, info)
    if info.format not in _JPEG_FORMATS and k > 1:
        h, w = image.shape[:2]
        image = cv2.resize(
            image, (math.ceil(w / k), math.ceil(h / k)), interpolation=cv2.INTER_AREA
        )
    if info.format not in _SELF_ORIENTING_FORMATS:
        image = _apply_orientation(image, info.orientation)
    return DecodedImage(
        image_bgr=np.ascontiguousarray(image, dtype=np.uint8),
        width=info.width,
        height=info.height,
        scale=1.0 / k,
        info=info,
    )


def load_path(path: str | os.PathLike[str], *, max_side: int | None = None) -> DecodedImage:
    """Read an image file and :func:`decode` it.

    A missing file, a folder or an unreadable file is an ImageDecodeError naming the path.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError as exc:
        raise ImageDecodeError(f"{p}: no such file") from exc
    except IsADirectoryError as exc:
        raise ImageDecodeError(f"{p}: is a folder, not an image file") from exc
    except PermissionError as exc:
        raise ImageDecodeError(f"{p}: permission denied, the file cannot be read") from exc
    except OSError as exc:
        raise ImageDecodeError(f"{p}: cannot be read ({exc.strerror or exc})") from exc
    try:
        return decode(data, max_side=max_side)
    except ImageTooLargeError as exc:
        raise ImageTooLargeError(f"{p}: {exc}") from exc
    except ImageDecodeError as exc:
        raise ImageDecodeError(f"{p}: {exc}") from exc


# --- header -------------------------------------------------------------------------------


def _open(data: bytes) -> tuple[ImageInfo, Image.Image]:
    """Lazily open ``data`` with Pillow; the pixels are not decoded."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"data must be the bytes of an image file, got {type(data).__name__}")
    if len(data) == 0:
        raise ImageDecodeError("the file is empty (0 bytes); " + _FORMAT_HINT)
    try:
        # Pillow warns (and, past twice its own limit, raises) about decompression bombs; the
        # warning becomes an exception here so it is turned into our error, never printed.
        # Pillow may also warn about plugins that could not identify the file: not our concern.
        with _WARNINGS_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            lazy = Image.open(io.BytesIO(data), formats=_OPEN_FORMATS)
            fmt = lazy.format or "unknown"
            stored_w, stored_h = lazy.size
            mode = lazy.mode
            orientation = _orientation_of(lazy)
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise ImageTooLargeError(_too_large_message(None)) from exc
    except UnidentifiedImageError as exc:
        raise ImageDecodeError(_not_an_image_message(data)) from exc
    except Exception as exc:
        # Pillow's plugins raise a zoo of types (SyntaxError, OSError, struct.error, ...) on
        # a damaged header; all of them mean the same thing to a player.
        raise ImageDecodeError(
            f"the image header is damaged or cut short ({_short(exc)}); {_FORMAT_HINT}"
        ) from exc
    if fmt in _SELF_ORIENTING_FORMATS:
        orientation = _int_or(lazy.info.get("original_orientation"), 1)
        width, height = stored_w, stored_h  # already upright as pillow-heif reports it
    elif orientation >= 5:
        width, height = stored_h, stored_w
    else:
        width, height = stored_w, stored_h
    if width < 1 or height < 1:
        raise ImageDecodeError(f"the image claims a size of {width}x{height} pixels; it is damaged")
    info = ImageInfo(format=fmt, width=width, height=height, orientation=orientation, mode=mode)
    if info.pixels > MAX_PIXELS:
        raise ImageTooLargeError(_too_large_message(info))
    return info, lazy


def _orientation_of(lazy: Image.Image) -> int:
    try:
        value = lazy.getexif().get(_ORIENTATION_TAG, 1)
    except Exception:
        # A damaged EXIF block is common on edited photos; the pixels are still fine.
        return 1
    return _int_or(value, 1)


def _int_or(value: object, default: int) -> int:
    if isinstance(value, int) and 1 <= value <= 8:
        return value
    return default


def _too_large_message(info: ImageInfo | None) -> str:
    limit = f"the limit is {MAX_PIXELS // 1_000_000} megapixels"
    if info is None:
        return f"the image is far too large to read; {limit}. Send a smaller photo."
    mp = info.pixels / 1e6
    return (
        f"the image is too large: {info.width}x{info.height} pixels ({mp:.0f} megapixels); "
        f"{limit}. Send a smaller photo."
    )


def _sniff(head: bytes) -> str | None:
    """The format a file's first bytes announce, whether or not the rest is sound."""
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    if head[4:8] == b"ftyp" and head[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"hevc"):
        return "HEIC"
    return None


def _not_an_image_message(data: bytes) -> str:
    head = bytes(data[:512])
    announced = _sniff(head)
    if announced is not None:
        return (
            f"the file starts like a {announced} image but its header is damaged or cut short; "
            "send the photo again"
        )
    if b"\x00" not in head:
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            # Text cut in the middle of a multi-byte character still counts as text.
            if exc.start < len(head) - 4:
                return "the file is not an image (unknown format); " + _FORMAT_HINT
        return "the file is not an image (it contains text); " + _FORMAT_HINT
    return "the file is not an image (unknown format); " + _FORMAT_HINT


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= 80 else text[:77] + "..."


# --- pixels --------------------------------------------------------------------------------


def _decode_cv2(data: bytes, info: ImageInfo, k: int) -> _Img:
    """Decode JPEG (at 1/k by DCT scaling), PNG or WebP with OpenCV, orientation not applied."""
    if info.format == "PNG" and not _png_is_complete(data):
        # Caught before libpng, which would also print its own complaint to stderr.
        raise ImageDecodeError(_truncated_message(info))
    buf = np.frombuffer(data, dtype=np.uint8)
    # Orientation is applied by us for every format, from the tag the header gave.
    if info.format in _JPEG_FORMATS:
        flags = _REDUCED_FLAGS[k] | cv2.IMREAD_IGNORE_ORIENTATION
    else:
        flags = cv2.IMREAD_UNCHANGED  # keeps alpha and 16-bit samples; never re-orients
    try:
        image = cv2.imdecode(buf, flags)
    except cv2.error as exc:
        raise ImageDecodeError(
            f"the {_format_name(info)} image could not be decoded ({_short(exc)})"
        ) from exc
    if image is None or image.size == 0:
        if _looks_truncated(data, info):
            raise ImageDecodeError(_truncated_message(info))
        raise ImageDecodeError(
            f"the {_format_name(info)} image data is damaged and could not be decoded; "
            "send the photo again"
        )
    return _to_bgr8(image)


def _decode_pillow(lazy: Image.Image, info: ImageInfo) -> _Img:
    """Decode with Pillow (HEIC and the rarer formats), orientation not applied."""
    try:
        lazy.load()
        im = lazy
        if im.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
            return _to_bgr8(np.asarray(im))
        if im.mode not in ("RGB", "RGBA"):
            # A palette with transparency goes to RGBA, the conversion Pillow does not warn about.
            has_alpha = im.mode in ("LA", "PA", "La") or "transparency" in im.info
            im = im.convert("RGBA" if has_alpha else "RGB")
        rgb = np.asarray(im)
    except ImageDecodeError:
        raise
    except Exception as exc:
        if "truncated" in str(exc).lower():
            raise ImageDecodeError(_truncated_message(info)) from exc
        raise ImageDecodeError(
            f"the {_format_name(info)} image data is damaged and could not be decoded "
            f"({_short(exc)}); send the photo again"
        ) from exc
    code = cv2.COLOR_RGBA2BGRA if rgb.ndim == 3 and rgb.shape[2] == 4 else cv2.COLOR_RGB2BGR
    return _to_bgr8(cv2.cvtColor(rgb, code))


def _to_bgr8(image: _Img) -> _Img:
    """Any OpenCV-decoded array (gray, BGR, BGRA; 8/16-bit, int32 or float) -> HxWx3 uint8 BGR."""
    if image.dtype == np.uint16:
        image = cv2.convertScaleAbs(image, alpha=255.0 / 65535.0)
    elif image.dtype in (np.int32, np.uint32, np.int64):
        image = np.clip(image, 0, 65535).astype(np.uint16)
        image = cv2.convertScaleAbs(image, alpha=255.0 / 65535.0)
    elif image.dtype in (np.float32, np.float64):
        scale = 255.0 if float(np.nanmax(image, initial=0.0)) <= 1.0 else 1.0
        image = cv2.convertScaleAbs(np.nan_to_num(image), alpha=scale)
    elif image.dtype == np.bool_:
        image = image.astype(np.uint8) * 255
    elif image.dtype != np.uint8:
        raise ImageDecodeError(f"unsupported pixel type {image.dtype}; {_FORMAT_HINT}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    channels = image.shape[2]
    if channels == 3:
        return image
    if channels == 4:
        return _composite_on_white(image)
    if channels == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if channels == 2:  # gray + alpha
        gray = cv2.cvtColor(np.ascontiguousarray(image[:, :, 0]), cv2.COLOR_GRAY2BGR)
        bgra = np.dstack([gray, image[:, :, 1]])
        return _composite_on_white(bgra)
    raise ImageDecodeError(f"unsupported image with {channels} channels; {_FORMAT_HINT}")


def _composite_on_white(bgra: _Img) -> _Img:
    alpha = bgra[:, :, 3]
    bgr = np.ascontiguousarray(bgra[:, :, :3])
    if int(alpha.min()) == 255:
        return bgr
    a = alpha.astype(np.float32) * (1.0 / 255.0)
    a3 = cv2.merge([a, a, a])
    out = bgr.astype(np.float32) * a3 + 255.0 * (1.0 - a3)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _apply_orientation(image: _Img, orientation: int) -> _Img:
    """Turn stored pixels upright by the EXIF orientation tag (1-8)."""
    if orientation == 2:
        return cv2.flip(image, 1)
    if orientation == 3:
        return cv2.rotate(image, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(image, 0)
    if orientation == 5:  # transpose: mirror about the main diagonal
        return cv2.transpose(image)
    if orientation == 6:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:  # transverse: mirror about the anti-diagonal
        return cv2.rotate(cv2.transpose(image), cv2.ROTATE_180)
    if orientation == 8:
        return cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return image


def _png_is_complete(data: bytes) -> bool:
    # Bytes after IEND are tolerated, so look in the tail first and fall back to a full search.
    return b"IEND" in data[-1024:] or data.rfind(b"IEND") >= 0


def _looks_truncated(data: bytes, info: ImageInfo) -> bool:
    if info.format in _JPEG_FORMATS:
        # A complete JPEG ends with the EOI marker (an EXIF thumbnail has one too, so only the
        # end of the file tells). Data a phone appends after EOI (motion photos) does not stop
        # OpenCV, so we only get here when the photo itself is broken.
        return not bytes(data[-64:]).rstrip(b"\x00").endswith(b"\xff\xd9")
    if info.format == "PNG":
        return not _png_is_complete(data)
    if info.format == "WEBP" and len(data) >= 8 and data[:4] == b"RIFF":
        return int.from_bytes(data[4:8], "little") + 8 > len(data)
    return False


def _truncated_message(info: ImageInfo) -> str:
    return (
        f"the {_format_name(info)} file is truncated: it ends before the image data does "
        "(an interrupted upload or copy?); send the photo again"
    )


def _format_name(info: ImageInfo) -> str:
    return {"MPO": "JPEG", "WEBP": "WebP", "HEIF": "HEIC"}.get(info.format, info.format)
