"""Errors of the reader.

VisionError
 +-- ImageDecodeError (also ValueError): the bytes are not an image we can decode
 |    +-- ImageTooLargeError: refused before decoding (over the pixel limit)
"""

from __future__ import annotations


class VisionError(Exception):
    """Base of every error the reader raises."""


class ImageDecodeError(VisionError, ValueError):
    """The input is not a readable image (empty, truncated, unknown format, ...)."""


class ImageTooLargeError(ImageDecodeError):
    """The image has more pixels than the reader accepts; raised before decoding."""
