"""Every die the reader returns, written down and compared between two versions of the code.

    python tools/compare_readings.py dump OUT.json DIR [DIR ...] [--jobs N]
    python tools/compare_readings.py diff BEFORE.json AFTER.json [--dice]

``dump`` reads every photo of every labelled split under each DIR (the YOLO layout
``python -m vision.evaluate`` reads: ``images/`` beside ``labels/``) with the reader that
comes first on the path, and writes per photo its size, its labelled dice and every die
read (value, centre, size, confidence, flags, evidence). Run it once on each version of the
code (``PYTHONPATH=WORKTREE`` for a ``git worktree`` of the other commit: run by its path,
the script imports only ``vision``, so older commits without it are read too), then ``diff``
prints the outcome counts of both (each labelled die right, asked about, misread or not
found, and the readings that match no die, as ``vision.evaluate`` matches them) and every
photo whose readings differ in anything, with how its outcomes moved (``--dice``: the dice
that differ, too). A change that should move no reading is checked die by die this way,
not only by the evaluation's percentages.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from vision.evaluate import IMAGE_SUFFIXES, Truth, find_splits, match_image, yolo_truth

OUTCOMES = ("right", "unsure", "misread", "missed", "extra")


def _photos(dirs: Sequence[Path]) -> Iterator[tuple[str, Path, Path]]:
    """Each labelled photo under ``dirs``: its name (from the folder given on, so that two
    checkouts' dumps name it alike), the photo and its label file."""
    for root in dirs:
        for split in find_splits(root):
            if split.kind != "yolo":
                continue
            for img in sorted((split.root / "images").iterdir()):
                if img.suffix.lower() in IMAGE_SUFFIXES:
                    name = (Path(root.resolve().name) / img.relative_to(root)).as_posix()
                    yield name, img, split.root / "labels" / (img.stem + ".txt")


def _read_one(job: tuple[str, str, str]) -> tuple[str, dict[str, Any]]:
    from vision.reader import read_bytes

    name, img, label = job[0], Path(job[1]), Path(job[2])
    reading = read_bytes(img.read_bytes())
    truth = yolo_truth(label, reading.width, reading.height)
    return name, {
        "size": [reading.width, reading.height],
        "truth": [[t.value, list(t.box or ())] for t in truth],
        "dice": [
            [
                d.value,
                [round(c, 2) for c in d.center],
                round(d.size_px, 2),
                round(d.confidence, 4),
                list(d.flags),
                list(d.evidence),
            ]
            for d in reading.dice
        ],
    }


def dump(out: Path, dirs: Sequence[Path], jobs: int) -> int:
    work = [(name, str(img), str(label)) for name, img, label in _photos(dirs)]
    if not work:
        print("no labelled photos under " + ", ".join(map(str, dirs)), file=sys.stderr)
        return 2
    photos: dict[str, Any] = {}
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            photos.update(pool.map(_read_one, work, chunksize=8))
    else:
        photos.update(map(_read_one, work))
    out.write_text(json.dumps(photos, sort_keys=True))
    print(f"{len(photos)} photos, {sum(len(p['dice']) for p in photos.values())} dice read")
    return 0


def outcomes(photo: dict[str, Any]) -> Counter[str]:
    """How the dice read in one dumped photo fare against its labels."""
    truth = [Truth(v, box=(b[0], b[1], b[2], b[3])) for v, b in photo["truth"]]
    result = match_image(truth, [(tuple(d[1]), d[0]) for d in photo["dice"]])
    tally: Counter[str] = Counter()
    for true, read in result.matched:
        tally["right" if read == true else "unsure" if read is None else "misread"] += 1
    tally["missed"] += len(result.missed)
    tally["extra"] += result.extra
    return tally


def diff(before: dict[str, Any], after: dict[str, Any], show_dice: bool) -> int:
    totals = {"before": Counter[str](), "after": Counter[str]()}
    changed = []
    for name in sorted(set(before) | set(after)):
        a, b = before.get(name), after.get(name)
        if a is not None:
            totals["before"].update(outcomes(a))
        if b is not None:
            totals["after"].update(outcomes(b))
        if a is None or b is None or a["dice"] != b["dice"]:
            changed.append((name, a, b))
    for which, tally in totals.items():
        print(f"{which:6s} " + "  ".join(f"{k} {tally[k]}" for k in OUTCOMES))
    print(f"{len(changed)} of {len(set(before) | set(after))} photos read differently")
    for name, a, b in changed:
        if a is None or b is None:
            print(f"  {name}: only in {'after' if a is None else 'before'}")
            continue
        oa, ob = outcomes(a), outcomes(b)
        moved = "  ".join(f"{k} {oa[k]}->{ob[k]}" for k in OUTCOMES if oa[k] != ob[k])
        print(f"  {name}: {moved or 'same outcomes'}")
        if show_dice:
            was = [json.dumps(d) for d in a["dice"]]
            now = [json.dumps(d) for d in b["dice"]]
            for d in was:
                if d not in now:
                    print(f"    - {d}")
            for d in now:
                if d not in was:
                    print(f"    + {d}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/compare_readings.py", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_dump = sub.add_parser("dump", help="read every labelled photo and write its dice")
    p_dump.add_argument("out", type=Path)
    p_dump.add_argument("dirs", type=Path, nargs="+")
    p_dump.add_argument("--jobs", type=int, default=2, help="processes reading (default 2)")
    p_diff = sub.add_parser("diff", help="compare two dumps")
    p_diff.add_argument("before", type=Path)
    p_diff.add_argument("after", type=Path)
    p_diff.add_argument("--dice", action="store_true", help="print the dice that differ")
    args = parser.parse_args(argv)
    if args.command == "dump":
        return dump(args.out, args.dirs, max(1, args.jobs))
    try:
        before = json.loads(args.before.read_text())
        after = json.loads(args.after.read_text())
    except (OSError, ValueError) as exc:
        print(f"cannot read a dump: {exc}", file=sys.stderr)
        return 2
    return diff(before, after, args.dice)


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # the listing cut short by a pager or ``head``
        sys.stderr.close()
        raise SystemExit(0) from None
