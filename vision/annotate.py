"""Draw the readings on a copy of the photo: outlines and values, flagged dice in another colour."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from vision.result import DieReading, TrayOutline

#: BGR colours: read dice green, flagged dice (uncertain, leaning, off tray) orange-red,
#: the tray floor blue.
OK_BGR = (60, 200, 40)
FLAGGED_BGR = (0, 90, 255)
TRAY_BGR = (255, 140, 0)


def annotate(
    image_bgr: npt.NDArray[np.uint8],
    dice: Sequence[DieReading],
    *,
    tray: TrayOutline | None = None,
) -> npt.NDArray[np.uint8]:
    """Return a copy of ``image_bgr`` (H, W, 3 uint8 BGR) with each die outlined and labelled.

    Positions in ``dice`` must be in ``image_bgr``'s pixels. The label is the value read
    ("?" when unknown) followed by the flags' initials; the die's index in reading order is
    drawn small beside it.
    """
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
        raise ValueError(
            f"image_bgr must be (H, W, 3) uint8, got {image_bgr.shape} {image_bgr.dtype}"
        )
    out = image_bgr.copy()
    h, w = out.shape[:2]
    thick = max(1, round(min(h, w) / 400))
    if tray is not None and tray.polygon:
        poly = np.array(tray.polygon, np.float32).round().astype(np.int32)
        cv2.polylines(out, [poly], True, TRAY_BGR, thick, cv2.LINE_AA)
    for index, die in enumerate(dice):
        colour = FLAGGED_BGR if die.flags else OK_BGR
        if die.outline:
            poly = np.array(die.outline, np.float32).round().astype(np.int32)
            cv2.polylines(out, [poly], True, colour, thick, cv2.LINE_AA)
        else:
            cx, cy = die.center
            r = die.size_px / 2
            cv2.rectangle(
                out, (round(cx - r), round(cy - r)), (round(cx + r), round(cy + r)), colour, thick
            )
        text = "?" if die.value is None else str(die.value)
        text += "".join(f[0].upper() for f in die.flags if f != "uncertain")
        font_scale = max(0.4, die.size_px / 60)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thick + 1)
        x = round(die.center[0] - tw / 2)
        y = round(die.center[1] - die.size_px * 0.55 - 4)
        if y - th < 0:
            y = round(die.center[1] + die.size_px * 0.55 + th + 4)
        cv2.putText(
            out,
            text,
            (x, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            (0, 0, 0),
            thick + 3,
            cv2.LINE_AA,
        )
        cv2.putText(
            out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, thick + 1, cv2.LINE_AA
        )
        cv2.putText(
            out,
            str(index),
            (x + tw + 2, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale * 0.5,
            colour,
            1,
            cv2.LINE_AA,
        )
    return out
