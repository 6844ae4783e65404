"""Command line: render N random tray scenes with ground-truth JSON beside each image."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from PIL import Image

from .scene import CASES, sample_scene
from .truth import build_truth, validate_truth


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m tools.render_tray",
        description="Render photoreal dice-tray scenes (Mitsuba 3) with ground-truth JSON.",
    )
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--count", type=int, default=1, help="number of scenes (default 1)")
    p.add_argument("--seed", type=int, default=0, help="scene i uses seed SEED + i")
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--height", type=int, default=768)
    p.add_argument("--spp", type=int, default=32, help="samples per pixel")
    p.add_argument("--case", choices=CASES, default="mixed")
    p.add_argument("--dice", type=int, default=None, help="dice per scene (default: random 1-10)")
    p.add_argument("--format", choices=("png", "jpg"), default="png")
    p.add_argument("--quality", type=int, default=92, help="JPEG quality")
    p.add_argument("--prefix", default="scene", help="file name prefix")
    p.add_argument("--no-visibility", action="store_true", help="skip the top-face ray check")
    p.add_argument(
        "--skip-existing",
        action="store_true",
        help="leave scenes whose JSON already exists (resume an interrupted run)",
    )
    return p.parse_args(argv)


def dump_json(doc: object) -> str:
    """Indented JSON with every innermost list of numbers kept on one line (readable diffs)."""
    text = json.dumps(doc, indent=1)
    return re.sub(r"\[[^\[\]{}\"]*\]", lambda m: " ".join(m.group(0).split()), text) + "\n"


def render_one(
    seed: int,
    out: Path,
    *,
    case: str,
    dice: int | None,
    width: int,
    height: int,
    spp: int,
    fmt: str = "png",
    quality: int = 92,
    prefix: str = "scene",
    visibility: bool = True,
) -> Path:
    """Render one scene from `seed` into `out`; returns the JSON path."""
    from .render import render_scene

    spec = sample_scene(seed, case=case, dice=dice, width=width, height=height)
    stem = f"{prefix}_{seed:06d}"
    name = f"{stem}.{fmt}"
    img, vis = render_scene(spec, spp=spp, visibility=visibility)
    out.mkdir(parents=True, exist_ok=True)
    pil = Image.fromarray(img)
    if fmt == "jpg":
        pil.save(out / name, quality=quality)
    else:
        pil.save(out / name)
    truth = build_truth(spec, name, vis)
    problems = validate_truth(truth)
    if problems:
        raise RuntimeError(f"invalid ground truth for seed {seed}: {problems}")
    path = out / f"{stem}.json"
    path.write_text(dump_json(truth))
    return path


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.monotonic()
    for i in range(args.count):
        seed = args.seed + i
        t1 = time.monotonic()
        if args.skip_existing and (args.out / f"{args.prefix}_{seed:06d}.json").exists():
            print(f"[{i + 1}/{args.count}] seed {seed} exists, skipped", flush=True)
            continue
        path = render_one(
            seed,
            args.out,
            case=args.case,
            dice=args.dice,
            width=args.width,
            height=args.height,
            spp=args.spp,
            fmt=args.format,
            quality=args.quality,
            prefix=args.prefix,
            visibility=not args.no_visibility,
        )
        print(
            f"[{i + 1}/{args.count}] seed {seed} -> {path.with_suffix('')}.* "
            f"({time.monotonic() - t1:.1f} s)",
            flush=True,
        )
    print(f"done: {args.count} scenes in {time.monotonic() - t0:.1f} s", file=sys.stderr)
    return 0
