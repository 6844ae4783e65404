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
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vision.evaluate import Split, Tally, evaluate_split, find_splits, parse_perturbation

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


def measure(splits: Sequence[Split], items: Sequence[str]) -> dict[str, Any]:
    """``vision.evaluate``'s summary over the photos of ``splits``, each degraded by
    ``items``."""
    perturb = parse_perturbation(items)
    tally = Tally()
    for split in splits:
        for _img, result in evaluate_split(split, perturb=perturb):
            tally.add(result)
    return tally.summary()


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
        # Tray photos only: perturbations leave the crops sets as they are.
        chosen = [
            sp
            for sp in find_splits(folder)
            if sp.kind == "yolo" and (not args.split or Path(sp.name).name in args.split)
        ]
        cells = []
        for name, items in CONDITIONS:
            s = measure(chosen, items)
            cells.append(
                f"{100 * s['recall']:.1f} / {100 * s['precision']:.1f} / "
                f"{100 * s['value_accuracy']:.1f} / {100 * s['misread']:.1f}"
            )
            print(f"  {folder.name} {name}: {cells[-1]}", file=sys.stderr, flush=True)
        label = f"{folder.name} ({', '.join(Path(sp.name).name for sp in chosen)})"
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
