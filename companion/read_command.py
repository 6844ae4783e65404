"""``dice-companion read``: read tray photos from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("read", help="read the dice in tray photos")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="JPEG, PNG, WebP or HEIC photos")
    p.add_argument("--json", action="store_true", help="one JSON object per image, one per line")
    p.add_argument("--annotate", metavar="DIR", type=Path, help="write outlined copies here")
    p.add_argument("--say", action="store_true", help="speak the faces through espeak-ng")
    p.add_argument("--calibration", metavar="FILE", type=Path, help="tray profile from `calibrate`")
    p.set_defaults(func=run)


def _plain(result: dict[str, Any]) -> str:
    dice = result["dice"]
    faces = " ".join(str(v) for v in result["faces"]) or ("no dice" if not dice else "no face")
    reroll = ", ".join(f"#{i + 1} ({'/'.join(dice[i]['flags'])})" for i in result["reroll"])
    line = f"{faces} — reroll {reroll or 'none'}"
    unread = [i for i, d in enumerate(dice) if d["value"] is None]
    if unread:
        line += f" — unread {', '.join(f'#{i + 1}{_why(dice[i])}' for i in unread)}"
    return line


def _why(die: dict[str, Any]) -> str:
    """The kind of evidence a die asked about was left uncertain by, as `` (glare)``: the
    part before the colon of its ``uncertain`` flag's sentence; "" when it has none."""
    flags, evidence = die["flags"], die.get("evidence", [])
    if "uncertain" not in flags or flags.index("uncertain") >= len(evidence):
        return ""
    kind, colon, _rest = evidence[flags.index("uncertain")].partition(":")
    return f" ({kind})" if colon else ""


def _annotate(path: Path, reading: Any, out_dir: Path) -> Path:
    import cv2

    from vision.annotate import annotate
    from vision.io import load_path
    from vision.reader import rescaled, rescaled_tray

    decoded = load_path(path, max_side=2048)
    dice = [rescaled(d, decoded.scale) for d in reading.dice]
    tray = None if reading.tray is None else rescaled_tray(reading.tray, decoded.scale)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{path.stem}.annotated.jpg"
    ok = cv2.imwrite(str(target), annotate(decoded.image_bgr, dice, tray=tray))
    if not ok:
        raise OSError(f"could not write {target}")
    return target


def run(args: argparse.Namespace) -> int:
    from calibration.errors import CalibrationError
    from calibration.profile import TrayProfile
    from companion.cli import UsageError
    from companion.web.reading import reading_json
    from vision.errors import VisionError
    from vision.reader import read_bytes
    from vision.speech import speak

    profile = None
    if args.calibration is not None:
        try:
            profile = TrayProfile.load(args.calibration)
        except CalibrationError as exc:
            raise UsageError(str(exc)) from None
    failed = 0
    for name in args.images:
        path = Path(name)
        try:
            reading = read_bytes(path.read_bytes(), profile=profile)
        except (VisionError, OSError) as exc:
            failed += 1
            message = str(exc)
            if isinstance(exc, OSError):
                message = f"cannot open the file: {exc.strerror or exc}"
            if args.json:
                print(json.dumps({"image": name, "error": message}), flush=True)
            else:
                print(f"{name}: error: {message}", file=sys.stderr, flush=True)
            continue
        result = reading_json(reading, name)
        if args.json:
            print(json.dumps(result), flush=True)
        else:
            prefix = f"{name}: " if len(args.images) > 1 else ""
            print(prefix + _plain(result), flush=True)
            for note in reading.notes:
                print(f"  note: {note}")
        if args.annotate is not None:
            try:
                written = _annotate(path, reading, args.annotate)
            except (VisionError, OSError) as exc:
                print(f"{name}: could not annotate: {exc}", file=sys.stderr)
                failed += 1
            else:
                if not args.json:
                    print(f"  annotated: {written}")
        if args.say:
            said = speak(result["speech"])
            if not said.ok:
                print(f"{name}: {said.message}", file=sys.stderr)
    return 1 if failed else 0
