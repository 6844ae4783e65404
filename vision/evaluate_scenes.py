"""Measure the reader and its flags on rendered scenes with ground truth (tools/render_tray).

Usage: ``python -m vision.evaluate_scenes DIR [--oracle] [--json] [--calibration FILE |
--true-profile] [--failures] [--evidence]``

Each ``*.json`` in ``DIR`` (with ``"dice"`` and ``"tray"``) names its image; per die it gives
the top-face value, the projected top-face centre, the silhouette, ``tilt_deg`` and the
``state`` (flat, leaning, off_tray). A reading matches a true die when its centre lies
inside the die's silhouette (nearest true centre first, one to one).

Measures (each a share of the matched dice of that kind; ``n`` says of how many):
leaning recall for tilts of 8-15 and of 15 degrees or more, flat dice wrongly flagged
leaning, off-tray recall, floor dice wrongly flagged off-tray, faces read right and faces
given a wrong value (not left uncertain) on flat in-tray dice, and detection recall (true
dice matched by a reading). ``--oracle`` places the dice from the ground truth instead of
reading them, to measure the flags alone. Without it each photo is read from its file's bytes
as ``dice-companion read`` reads it (a photo of 1920 px or more decoded at a reduced size).
``--true-profile`` reads each photo with a tray profile made from its own ground truth (the
floor's true outline and the true camera), as a perfect ``dice-companion calibrate`` from
where the camera stood would make it: what the flags give when the tray and camera are
known.

``--evidence`` studies the leaning rule instead: it takes each measure the rule weighs
(:class:`vision.flags.LeanEvidence`) for every in-tray die found, and says how many leaning
dice each measure alone would catch with a cut that no more than 0.5% of the flat dice pass
(the issue's false-leaning bound).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionError
from vision.flags import apply_flags, lean_evidence
from vision.result import DieReading

#: Measures reported, in order, with the target of issue 4 (share; "max" = at most).
TARGETS: dict[str, tuple[float, str]] = {
    "leaning_recall_15_plus": (0.98, "min"),
    "leaning_recall_8_15": (0.85, "min"),
    "false_leaning_flat": (0.005, "max"),
    "off_tray_recall": (0.99, "min"),
    "false_off_tray_floor": (0.005, "max"),
    "face_accuracy_flat": (0.995, "min"),
    "face_misread_flat": (0.0, "max"),
    "detection_recall": (0.0, "min"),
}


def scene_files(path: Path) -> list[Path]:
    """Ground-truth JSON files under ``path`` (renderer format: with "dice" and "tray")."""
    out = []
    for p in sorted(path.rglob("*.json")):
        try:
            doc = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and "dice" in doc and "tray" in doc and "image" in doc:
            out.append(p)
    return out


def is_scene_dir(path: Path) -> bool:
    """True when ``path`` holds at least one renderer ground-truth file."""
    return path.is_dir() and bool(scene_files(path))


def oracle_dice(truth: dict[str, Any]) -> tuple[DieReading, ...]:
    """Dice as a perfect reader would report them: true centres and top-face sizes."""
    out = []
    for d in truth["dice"]:
        sil = np.array(d["silhouette"], np.float32)
        area = float(cv2.contourArea(sil))
        size = _top_side_estimate(truth, d, area)
        out.append(
            DieReading(
                value=int(d["value"]),
                center=(float(d["center"][0]), float(d["center"][1])),
                size_px=size,
                confidence=1.0,
            )
        )
    return tuple(out)


def truth_profile(truth: dict[str, Any], image_bgr: npt.NDArray[np.uint8]) -> Any:
    """A :class:`calibration.profile.TrayProfile` of a scene made from its ground truth: the
    floor's outline, the camera (``K``, ``R``, ``t`` in millimetres) and the dice's median
    side in millimetres; the floor's colour measured in ``image_bgr`` inside the outline.
    None when the truth has no floor outline or camera."""
    from calibration.profile import TrayProfile, with_outside_share

    tray, cam = truth.get("tray") or {}, truth.get("camera") or {}
    polygon = tray.get("floor_polygon")
    if not polygon or "K" not in cam or not truth.get("dice"):
        return None
    h, w = image_bgr.shape[:2]
    sx, sy = w / float(truth["width"]), h / float(truth["height"])
    poly = np.array(polygon, np.float64) * np.array([sx, sy])
    inside = np.zeros((h, w), np.uint8)
    cv2.fillPoly(inside, [np.round(poly).astype(np.int32)], 255)
    lab = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB)[inside > 0].astype(np.float64)
    k = np.diag([sx, sy, 1.0]) @ np.array(cam["K"], np.float64)
    mid, spread = np.median(lab, axis=0), lab.std(axis=0)
    profile = TrayProfile(
        image_size=(w, h),
        polygon=tuple((float(x), float(y)) for x, y in poly),
        shape="rect" if tray.get("shape") == "rect" else "round",
        floor_lab=(float(mid[0]), float(mid[1]), float(mid[2])),
        floor_lab_std=(float(spread[0]), float(spread[1]), float(spread[2])),
        camera_k=tuple(tuple(float(v) for v in row) for row in k),
        camera_r=tuple(tuple(float(v) for v in row) for row in cam["R_world_to_cam"]),
        camera_t=tuple(float(v) for v in cam["t_world_to_cam_mm"]),
        die_units=float(np.median([d["size_mm"] for d in truth["dice"]])),
        tilt_deg=float(cam.get("tilt_deg", 0.0)),
        focal_known=True,
    )
    return with_outside_share(profile, image_bgr)


def _top_side_estimate(truth: dict[str, Any], d: dict[str, Any], sil_area: float) -> float:
    """Top-face side in pixels from the true camera (flat-die model) or the silhouette."""
    cam = truth.get("camera") or {}
    pos = d.get("position_mm")
    if "K" in cam and "R_world_to_cam" in cam and pos is not None:
        k = np.array(cam["K"], np.float64)
        r = np.array(cam["R_world_to_cam"], np.float64)
        t = np.array(cam["t_world_to_cam_mm"], np.float64)
        s = float(d["size_mm"])
        z = float(pos[2]) + 0.5 * s
        h = 0.5 * s
        pts = np.array(
            [[pos[0] + dx, pos[1] + dy, z] for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h))]
        )
        cam_pts = pts @ r.T + t
        uv = cam_pts @ k.T
        px = (uv[:, :2] / uv[:, 2:3]).astype(np.float32)
        return float(math.sqrt(abs(cv2.contourArea(px))))
    return math.sqrt(sil_area) * 0.85


def match(
    truth_dice: Sequence[dict[str, Any]], readings: Sequence[DieReading]
) -> list[tuple[int, int]]:
    """One-to-one ``(truth index, reading index)`` pairs: reading centre inside silhouette."""
    cands = []
    for i, d in enumerate(truth_dice):
        sil = np.array(d["silhouette"], np.float32).reshape(-1, 1, 2)
        for j, r in enumerate(readings):
            if cv2.pointPolygonTest(sil, (float(r.center[0]), float(r.center[1])), False) >= 0:
                dist = math.hypot(r.center[0] - d["center"][0], r.center[1] - d["center"][1])
                cands.append((dist, i, j))
    used_t: set[int] = set()
    used_r: set[int] = set()
    pairs = []
    for _dist, i, j in sorted(cands):
        if i in used_t or j in used_r:
            continue
        used_t.add(i)
        used_r.add(j)
        pairs.append((i, j))
    return pairs


class _Count:
    def __init__(self) -> None:
        self.hit = 0
        self.n = 0

    def add(self, ok: bool) -> None:
        self.n += 1
        self.hit += int(ok)

    def share(self) -> float | None:
        return self.hit / self.n if self.n else None


def evaluate_scene_dir(
    path: str | Path,
    *,
    oracle: bool = False,
    calibration: Any = None,
    true_profile: bool = False,
    failures: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Measure on every scene under ``path``; a dict of measures (see module docstring).
    With ``true_profile`` each scene is read with :func:`truth_profile` of its own truth
    instead of ``calibration``.

    Each measure is ``{"value": share or None, "hit": k, "n": n}``; ``scenes``,
    ``dice``, ``extra_readings`` and ``mean_ms`` (read plus flags per photo) are counts.
    ``failures``, when given, collects one record per wrong flag or missed flag, and one per
    flat in-tray die whose face was misread or asked about (with the value ``read``).
    """
    from vision.reader import read_bytes

    root = Path(path)
    counts = {k: _Count() for k in TARGETS}
    extra = 0
    n_dice = 0
    elapsed = []
    files = scene_files(root)
    for jf in files:
        truth = json.loads(jf.read_text())
        image_path = jf.parent / truth["image"]
        shown = None
        if oracle or true_profile:
            loaded = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            if loaded is None:
                continue
            shown = np.asarray(loaded, np.uint8)
        profile = truth_profile(truth, shown) if shown is not None and true_profile else calibration
        if shown is not None and oracle:
            start = time.perf_counter()
            flagged = apply_flags(shown, oracle_dice(truth), profile=profile)
            elapsed.append((time.perf_counter() - start) * 1000.0)
            dice = flagged.dice
        else:
            # As the ``read`` command and the web app read a photo: from its bytes, a
            # large one decoded at a reduced size.
            try:
                reading = read_bytes(image_path.read_bytes(), profile=profile)
            except (OSError, VisionError):
                continue  # a missing or unreadable image, skipped as before
            elapsed.append(reading.elapsed_ms)
            dice = reading.dice
        pairs = match(truth["dice"], dice)
        matched = {i: j for i, j in pairs}
        extra += len(dice) - len(pairs)
        for i, d in enumerate(truth["dice"]):
            n_dice += 1
            counts["detection_recall"].add(i in matched)
            if i not in matched:
                continue
            r = dice[matched[i]]
            state = d["state"]
            tilt = float(d.get("tilt_deg", 0.0))
            wrong = None
            if state == "leaning":
                if tilt >= 15:
                    counts["leaning_recall_15_plus"].add("leaning" in r.flags)
                elif tilt >= 8:
                    counts["leaning_recall_8_15"].add("leaning" in r.flags)
                if "leaning" not in r.flags and tilt >= 8:
                    wrong = "missed leaning"
            if state == "flat":
                counts["false_leaning_flat"].add("leaning" in r.flags)
                counts["face_accuracy_flat"].add(r.value == d["value"])
                counts["face_misread_flat"].add(r.value is not None and r.value != d["value"])
                if "leaning" in r.flags:
                    wrong = "false leaning"
                if r.value != d["value"] and failures is not None:
                    what = "face asked about" if r.value is None else "face misread"
                    failures.append({**_record(jf, i, d, r, what), "read": r.value})
            if state == "off_tray":
                counts["off_tray_recall"].add("off_tray" in r.flags)
                if "off_tray" not in r.flags:
                    wrong = "missed off_tray"
            else:
                counts["false_off_tray_floor"].add("off_tray" in r.flags)
                if "off_tray" in r.flags:
                    wrong = "false off_tray"
            if wrong and failures is not None:
                failures.append(_record(jf, i, d, r, wrong))
    out: dict[str, Any] = {}
    for k, c in counts.items():
        out[k] = {"value": c.share(), "hit": c.hit, "n": c.n}
    out["scenes"] = len(files)
    out["dice"] = n_dice
    out["extra_readings"] = extra
    out["mean_ms"] = float(np.mean(elapsed)) if elapsed else None
    return out


def _record(scene: Path, i: int, truth: dict[str, Any], r: DieReading, what: str) -> dict[str, Any]:
    """A ``failures`` record: what went wrong with true die ``i`` of ``scene``, read as ``r``."""
    return {
        "scene": scene.name,
        "die": i,
        "what": what,
        "value": truth["value"],
        "state": truth["state"],
        "placement": truth.get("placement"),
        "tilt_deg": float(truth.get("tilt_deg", 0.0)),
        "flags": list(r.flags),
        "evidence": list(r.evidence),
    }


#: The measures ``--evidence`` reports (fields of :class:`vision.flags.LeanEvidence`).
EVIDENCE = ("reach", "edge_gain", "face_tilt_deg")
#: Share of the flat dice that may pass ``--evidence``'s cut (the issue's false-leaning bound).
FLAT_PASS = 0.005


def evidence_rows(
    path: Path, *, oracle: bool = False, calibration: Any = None, true_profile: bool = False
) -> list[dict[str, Any]]:
    """One record per in-tray die found under ``path``: its true state and tilt, and the
    leaning rule's measures (:func:`vision.flags.lean_evidence`) taken in the image the flags
    see (the photo as ``read`` decodes it, or at full size with ``oracle``)."""
    from vision.io import decode
    from vision.params import DEFAULTS
    from vision.reader import read_array, rescaled

    rows = []
    for jf in scene_files(Path(path)):
        truth = json.loads(jf.read_text())
        try:
            decoded = decode(
                (jf.parent / truth["image"]).read_bytes(),
                max_side=None if oracle else DEFAULTS.work_max_side,
            )
        except (OSError, VisionError):
            continue
        image = decoded.image_bgr
        if oracle:
            dice: Sequence[DieReading] = oracle_dice(truth)
            found = dice
        else:
            dice = read_array(image)
            found = tuple(rescaled(d, 1.0 / decoded.scale) for d in dice)
        profile = truth_profile(truth, image) if true_profile else calibration
        evidence = lean_evidence(image, dice, profile=profile)
        for i, j in match(truth["dice"], found):
            d = truth["dice"][i]
            if d["state"] == "off_tray":
                continue
            ev = evidence[j]
            rows.append(
                {
                    "scene": jf.name,
                    "die": i,
                    "state": d["state"],
                    "tilt_deg": float(d.get("tilt_deg", 0.0)),
                    "placement": d.get("placement"),
                    "supports": ev.supports,
                    "overlap": ev.overlap,
                    **{k: getattr(ev, k) for k in EVIDENCE},
                }
            )
    return rows


def evidence_table(rows: Sequence[dict[str, Any]]) -> str:
    """Per measure: the flat dice's median and the cut that at most :data:`FLAT_PASS` of them
    pass (a die without the measure counts as not passing), and the leaning dice beyond it."""
    flat = [r for r in rows if r["state"] == "flat"]
    steep = [r for r in rows if r["state"] == "leaning" and r["tilt_deg"] >= 15]
    mild = [r for r in rows if r["state"] == "leaning" and 8 <= r["tilt_deg"] < 15]
    lines = [
        "| measure | flat dice measured | flat median | cut (flat dice passing) "
        "| leaning 15°+ passing | leaning 8-15° passing | leaning 15°+ median |",
        "|---|---|---|---|---|---|---|",
    ]
    for k in EVIDENCE:
        values = sorted(float(r[k]) for r in flat if r[k] is not None)
        allowed = math.floor(FLAT_PASS * len(flat))
        if not values:
            continue
        cut = values[-1 - allowed] if allowed < len(values) else -math.inf
        steep_values = [float(r[k]) for r in steep if r[k] is not None]
        lines.append(
            f"| {k} | {len(values)}/{len(flat)} | {float(np.median(values)):.3f} "
            f"| {cut:.3f} ({_passing(flat, k, cut)}) | {_passing(steep, k, cut)} "
            f"| {_passing(mild, k, cut)} "
            f"| {float(np.median(steep_values)) if steep_values else float('nan'):.3f} |"
        )
    lines.append(
        f"\n{len(flat)} flat and {len(steep) + len(mild)} leaning dice found in the tray; a cut "
        f"lets at most {100 * FLAT_PASS:g}% of the flat dice pass"
    )
    return "\n".join(lines)


def _passing(group: Sequence[dict[str, Any]], key: str, cut: float) -> str:
    """How many of ``group`` have measure ``key`` beyond ``cut``, as "k/n"."""
    hit = sum(r[key] is not None and float(r[key]) > cut for r in group)
    return f"{hit}/{len(group)}"


def table(result: dict[str, Any]) -> str:
    """The measures as a Markdown table with the issue's targets."""
    lines = ["| measure | value | n | target |", "|---|---|---|---|"]
    for k, (target, kind) in TARGETS.items():
        m = result[k]
        v = "-" if m["value"] is None else f"{100 * m['value']:.1f}%"
        t = "-" if target == 0 else f"{'>=' if kind == 'min' else '<='} {100 * target:g}%"
        lines.append(f"| {k} | {v} | {m['hit']}/{m['n']} | {t} |")
    lines.append(
        f"\n{result['scenes']} scenes, {result['dice']} dice, "
        f"{result['extra_readings']} readings matching no die, "
        f"{result['mean_ms'] or 0:.0f} ms per photo (read + flags)"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m vision.evaluate_scenes",
        description="Measure reading and leaning/off-tray flags on rendered ground-truth scenes.",
    )
    p.add_argument("folder", type=Path)
    p.add_argument(
        "--oracle",
        action="store_true",
        help="take dice positions from the ground truth (measures the flags alone)",
    )
    chosen = p.add_mutually_exclusive_group()
    chosen.add_argument("--calibration", type=Path, help="a tray profile to use for every scene")
    chosen.add_argument(
        "--true-profile",
        action="store_true",
        help="read each scene with a tray profile made from its own ground truth (the true"
        " floor outline and camera: what the flags give with a perfect calibration)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--failures",
        action="store_true",
        help="list every wrong or missed flag and every flat face not read right (JSON lines on"
        " stderr; two commits' lists compared show the dice a change moved)",
    )
    p.add_argument(
        "--evidence",
        action="store_true",
        help="study the leaning rule: how many leaning dice each of its measures alone would"
        " flag with a cut that at most 0.5%% of the flat dice pass (no flags are measured)",
    )
    args = p.parse_args(argv)
    if not is_scene_dir(args.folder):
        print(f"{args.folder}: no ground-truth scenes found", file=sys.stderr)
        return 2
    profile = None
    if args.calibration:
        from calibration.profile import TrayProfile

        profile = TrayProfile.load(args.calibration)
    if args.evidence:
        rows = evidence_rows(
            args.folder, oracle=args.oracle, calibration=profile, true_profile=args.true_profile
        )
        print(json.dumps(rows) if args.json else evidence_table(rows), flush=True)
        return 0
    fails: list[dict[str, Any]] = []
    result = evaluate_scene_dir(
        args.folder,
        oracle=args.oracle,
        calibration=profile,
        true_profile=args.true_profile,
        failures=fails,
    )
    try:
        print(json.dumps(result) if args.json else table(result), flush=True)
        if args.failures:
            for f in fails:
                print(json.dumps(f), file=sys.stderr)
    except BrokenPipeError:
        # A reader that stopped early (``| head``) is not an error.
        sys.stdout = None
    return 0


if __name__ == "__main__":
    sys.exit(main())
