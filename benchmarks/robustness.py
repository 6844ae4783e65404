"""How the reader holds up when the same labelled photos are taken by a worse camera or light.

Usage: ``python benchmarks/robustness.py DATASET_DIR [DATASET_DIR ...] [--split S ...]``

Each folder (laid out as ``vision.evaluate`` expects) is read as it is and then degraded in
turn by each of ``vision.evaluate``'s perturbations (blur, grain, underexposure, a tungsten
colour cast, heavy JPEG compression, and all but the last together); a Markdown table of
recall / precision / value / misread per folder and perturbation is printed. Read the
perturbations' meaning in :class:`vision.evaluate.Perturbation`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from vision.evaluate import find_splits
from vision.evaluate import main as evaluate

#: (column name, perturbation items); the first is the photos as they are.
CONDITIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("as taken", ()),
    ("blur 1.5 px", ("blur=1.5",)),
    ("grain 10", ("noise=10",)),
    ("dim (x0.45)", ("gain=0.45",)),
    ("tungsten", ("warm=0.35",)),
    ("JPEG q30", ("jpeg=30",)),
    ("blur 1, grain 6, x0.6", ("blur=1", "noise=6", "gain=0.6")),
)


def measure(folder: Path, splits: Sequence[str], items: Sequence[str]) -> dict[str, float]:
    """``vision.evaluate``'s overall summary for ``folder`` degraded by ``items``."""
    argv = [str(folder), "--json"]
    for s in splits:
        argv += ["--split", s]
    for item in items:
        argv += ["--perturb", item]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = evaluate(argv)
    if status != 0:
        raise SystemExit(f"vision.evaluate failed on {folder}")
    summary: dict[str, float] = json.loads(out.getvalue())["overall"]
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/robustness.py", description=__doc__)
    parser.add_argument("datasets", type=Path, nargs="+", help="labelled photo folders")
    parser.add_argument("--split", action="append", default=[], help="only these splits")
    args = parser.parse_args(argv)
    head = "| set | " + " | ".join(name for name, _ in CONDITIONS) + " |"
    print("recall / precision / value / misread, %")
    print()
    print(head)
    print("|---" * (len(CONDITIONS) + 1) + "|")
    for folder in args.datasets:
        cells = []
        for _name, items in CONDITIONS:
            s = measure(folder, args.split, items)
            cells.append(
                f"{100 * s['recall']:.1f} / {100 * s['precision']:.1f} / "
                f"{100 * s['value_accuracy']:.1f} / {100 * s['misread']:.1f}"
            )
            print(f"  {folder.name} {_name}: {cells[-1]}", file=sys.stderr, flush=True)
        names = [Path(sp.name).name for sp in find_splits(folder)]
        read = [n for n in names if not args.split or n in args.split]
        label = f"{folder.name} ({', '.join(read)})"
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
