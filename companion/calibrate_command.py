"""``dice-companion calibrate``: save a tray profile from a photo taken where the camera stays."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

#: Decoding size for calibration: the floor is found on a small copy anyway; the camera
#: model is scaled to each photo's size when reading.
_CALIBRATION_SIDE = 1600


def register(sub: Any) -> None:
    p = sub.add_parser(
        "calibrate",
        help="find the tray floor in a photo and save a profile for `read --calibration`",
    )
    p.add_argument("photo", type=Path, metavar="PHOTO", help="the tray, empty or with dice")
    p.add_argument("--out", type=Path, required=True, help="profile file to write (JSON)")
    p.add_argument(
        "--tray-mm", type=_size, metavar="WIDTHxHEIGHT", help="inner floor size, e.g. 300x200"
    )
    p.add_argument("--die-mm", type=float, default=16.0, help="die side in mm (default 16)")
    p.add_argument("--json", action="store_true", help="print the profile as JSON")
    p.set_defaults(func=run)


def _size(text: str) -> tuple[float, float]:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*[xX×]\s*(\d+(?:\.\d+)?)\s*", text)
    if not m or float(m.group(1)) <= 0 or float(m.group(2)) <= 0:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in mm, e.g. 300x200, not {text!r}")
    return (float(m.group(1)), float(m.group(2)))


def run(args: argparse.Namespace) -> int:
    from calibration.errors import CalibrationError
    from calibration.profile import calibrate
    from vision.errors import VisionError
    from vision.flags import outline_refiner
    from vision.io import load_path
    from vision.reader import read_array

    if args.die_mm <= 0:
        print("dice-companion: error: --die-mm must be a positive size in mm", file=sys.stderr)
        return 2
    try:
        decoded = load_path(args.photo, max_side=_CALIBRATION_SIDE)
    except VisionError as exc:
        print(f"dice-companion: error: {exc}", file=sys.stderr)
        return 1
    image = decoded.image_bgr
    dice = read_array(image)
    try:
        profile = calibrate(
            image,
            tray_mm=args.tray_mm,
            die_mm=args.die_mm,
            dice=[(d.center, d.size_px) for d in dice],
            refine=outline_refiner(dice),
        )
    except CalibrationError as exc:
        print(f"dice-companion: error: {args.photo}: {exc}", file=sys.stderr)
        return 1
    # Keep the profile in the photo's full-size pixels, whatever size it was decoded at.
    profile = profile.scaled_to(decoded.width, decoded.height)
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        profile.save(args.out)
    except OSError as exc:
        print(f"dice-companion: error: cannot write {args.out}: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(profile.to_json()))
    else:
        tilt = f", camera tilt {profile.tilt_deg:.0f} degrees" if profile.tilt_deg else ""
        kind = "box" if profile.shape == "rect" else "round"
        print(
            f"{args.out}: {kind} tray floor with {len(profile.polygon)} outline points"
            f"{tilt}; {len(dice)} dice seen"
        )
    return 0
