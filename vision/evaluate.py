"""Measure the reader on a folder of labelled photos.

Usage: ``python -m vision.evaluate DATASET_DIR [--split S] [--json] [--failures DIR] [--zoom F]
[--perturb NAME=VALUE ...]``

Layouts understood anywhere under ``DATASET_DIR`` (each folder found is one "split"):

- YOLO: ``<split>/images/*.jpg`` with ``<split>/labels/<stem>.txt``, lines
  ``class cx cy w h`` normalised to [0, 1], ``class = face - 1``;
- crops: ``<split>/<face>/*.jpg``, one die per image, the folder name is its face (measures
  pip counting alone: the crop's face is read by ``vision._count.read_face``).

A reading matches a labelled die when its centre lies inside the label's box (or within the
label's radius of a labelled centre); matching is one to one, nearest first.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision._count import read_face
from vision.params import DEFAULTS, ReaderParams
from vision.reader import read_bytes
from vision.result import DieReading

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")
#: Column index of "uncertain" (value None) in the confusion matrix; columns 0-5 are 1-6.
UNCERTAIN_COL = 6
#: Frames of one video share this prefix (``512_1_mp4-101_jpg.rf....``).
_VIDEO = re.compile(r"^(.+?)_mp4-")


@dataclass(frozen=True)
class Truth:
    """One labelled die: its value and a box ``(x0, y0, x1, y1)`` or a centre and radius (px)."""

    value: int
    box: tuple[float, float, float, float] | None = None
    center: tuple[float, float] | None = None
    radius: float = 0.0

    def contains(self, point: tuple[float, float]) -> bool:
        x, y = point
        if self.box is not None:
            x0, y0, x1, y1 = self.box
            return x0 <= x <= x1 and y0 <= y <= y1
        if self.center is not None:
            return bool(np.hypot(x - self.center[0], y - self.center[1]) <= self.radius)
        return False

    def anchor(self) -> tuple[float, float]:
        if self.box is not None:
            x0, y0, x1, y1 = self.box
            return (0.5 * (x0 + x1), 0.5 * (y0 + y1))
        assert self.center is not None
        return self.center


@dataclass(frozen=True)
class ImageResult:
    """How one photo was read: matched ``(true, read)`` values, misses and extras."""

    matched: tuple[tuple[int, int | None], ...]
    missed: tuple[int, ...]
    extra: int
    elapsed_ms: float

    @property
    def exact(self) -> bool:
        return not self.missed and not self.extra and all(t == r for t, r in self.matched)


def match_image(
    truth: Sequence[Truth],
    read: Sequence[tuple[tuple[float, float], int | None]],
    elapsed_ms: float = 0.0,
) -> ImageResult:
    """Match readings ``(centre, value)`` to labelled dice one to one, nearest pairs first."""
    pairs = []
    for i, t in enumerate(truth):
        ax, ay = t.anchor()
        for j, (c, _v) in enumerate(read):
            if t.contains(c):
                pairs.append((float(np.hypot(c[0] - ax, c[1] - ay)), i, j))
    pairs.sort()
    used_t: set[int] = set()
    used_r: set[int] = set()
    matched = []
    for _dist, i, j in pairs:
        if i in used_t or j in used_r:
            continue
        used_t.add(i)
        used_r.add(j)
        matched.append((truth[i].value, read[j][1]))
    missed = tuple(t.value for i, t in enumerate(truth) if i not in used_t)
    return ImageResult(tuple(matched), missed, len(read) - len(used_r), elapsed_ms)


@dataclass
class Tally:
    """Counts over many photos."""

    images: int = 0
    truth: int = 0
    read: int = 0
    matched: int = 0
    correct: int = 0
    exact: int = 0
    ms: list[float] = field(default_factory=list)
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((6, 7), np.int64))

    def add(self, r: ImageResult) -> None:
        self.images += 1
        self.truth += len(r.matched) + len(r.missed)
        self.read += len(r.matched) + r.extra
        self.matched += len(r.matched)
        self.correct += sum(1 for t, v in r.matched if t == v)
        self.exact += int(r.exact)
        self.ms.append(r.elapsed_ms)
        for t, v in r.matched:
            self.confusion[t - 1, UNCERTAIN_COL if v is None else v - 1] += 1

    def merge(self, other: Tally) -> None:
        self.images += other.images
        self.truth += other.truth
        self.read += other.read
        self.matched += other.matched
        self.correct += other.correct
        self.exact += other.exact
        self.ms.extend(other.ms)
        self.confusion += other.confusion

    def summary(self) -> dict[str, float | int | list[list[int]]]:
        def ratio(a: int, b: int) -> float:
            return round(a / b, 4) if b else 1.0

        return {
            "images": self.images,
            "dice": self.truth,
            "recall": ratio(self.matched, self.truth),
            "precision": ratio(self.matched, self.read),
            "value_accuracy": ratio(self.correct, self.matched),
            # Matched dice reported uncertain (the player is asked), and read with a wrong
            # value (a silent misread: the one that starts a dispute).
            "uncertain": ratio(int(self.confusion[:, UNCERTAIN_COL].sum()), self.matched),
            "misread": ratio(
                self.matched - self.correct - int(self.confusion[:, UNCERTAIN_COL].sum()),
                self.matched,
            ),
            "exact_photos": ratio(self.exact, self.images),
            "ms_mean": round(float(np.mean(self.ms)), 1) if self.ms else 0.0,
            "ms_p95": round(float(np.percentile(self.ms, 95)), 1) if self.ms else 0.0,
            "confusion": self.confusion.tolist(),
        }


@dataclass(frozen=True)
class Split:
    """A folder of labelled photos in one of the understood layouts."""

    name: str
    root: Path
    kind: str  # "yolo" or "crops"


def find_splits(root: Path) -> list[Split]:
    """Every labelled folder under ``root`` (``root`` itself included), sorted by name."""
    found: list[Split] = []

    def name_of(p: Path) -> str:
        rel = p.relative_to(root).as_posix()
        return root.name if rel == "." else rel

    for p in sorted([root, *(d for d in root.rglob("*") if d.is_dir())]):
        if (p / "images").is_dir() and (p / "labels").is_dir():
            found.append(Split(name_of(p), p, "yolo"))
        elif any((p / str(f)).is_dir() for f in range(1, 7)) and not (p / "images").exists():
            found.append(Split(name_of(p), p, "crops"))
    return found


def _images(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)


def yolo_truth(label: Path, width: int, height: int) -> list[Truth]:
    """Labelled dice of one photo from a YOLO label file (class = face - 1)."""
    out: list[Truth] = []
    if not label.exists():
        return out
    for line in label.read_text().split("\n"):
        parts = line.split()
        if len(parts) < 5:
            continue
        cls = int(float(parts[0]))
        cx, cy, bw, bh = (float(v) for v in parts[1:5])
        out.append(
            Truth(
                cls + 1,
                box=(
                    (cx - bw / 2) * width,
                    (cy - bh / 2) * height,
                    (cx + bw / 2) * width,
                    (cy + bh / 2) * height,
                ),
            )
        )
    return out


def evaluate_split(
    split: Split,
    params: ReaderParams = DEFAULTS,
    failures: Path | None = None,
    zoom: float = 1.0,
    perturb: Perturbation | None = None,
) -> Iterator[tuple[Path, ImageResult]]:
    """Read every photo of ``split``; yield each photo with how it was read.

    With ``zoom`` other than 1 each labelled photo is first resized by that factor, and with
    ``perturb`` it is degraded as that says (see :class:`Perturbation`); either way it is
    then saved again as a JPEG (quality 95 unless ``perturb`` sets one).
    """
    if split.kind == "yolo":
        for img in _images(split.root / "images"):
            if zoom == 1.0 and (perturb is None or perturb.is_identity()):
                data = img.read_bytes()
            else:
                data = _prepared(img, zoom, perturb or Perturbation())
            reading = read_bytes(data, params=params)
            truth = yolo_truth(
                split.root / "labels" / (img.stem + ".txt"), reading.width, reading.height
            )
            result = match_image(
                truth, [(d.center, d.value) for d in reading.dice], reading.elapsed_ms
            )
            if failures is not None and not result.exact:
                _write_failure(failures, split, img, reading.dice, truth, data)
            yield img, result
    else:
        for face in range(1, 7):
            folder = split.root / str(face)
            if not folder.is_dir():
                continue
            for img in _images(folder):
                start = time.perf_counter()
                raw = cv2.imdecode(np.frombuffer(img.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
                if raw is None:
                    continue
                image = np.asarray(raw, dtype=np.uint8)
                # The die fills the crop: its face is counted by the single-face counter.
                h, w = image.shape[:2]
                fc = read_face(image)
                dice = (
                    DieReading(
                        fc.value,
                        (w / 2.0, h / 2.0),
                        float(min(h, w)),
                        fc.confidence,
                        () if fc.value is not None else ("uncertain",),
                    ),
                )
                ms = (time.perf_counter() - start) * 1000.0
                # A crop holds one die: take the reading nearest its centre.
                read: list[tuple[tuple[float, float], int | None]] = []
                if dice:
                    d = min(dice, key=lambda d: np.hypot(d.center[0] - w / 2, d.center[1] - h / 2))
                    read = [(d.center, d.value)]
                truth = [Truth(face, box=(0.0, 0.0, float(w), float(h)))]
                result = match_image(truth, read, ms)
                if failures is not None and not result.exact:
                    _write_failure(failures, split, img, dice, truth)
                yield img, result


@dataclass(frozen=True)
class Perturbation:
    """How to degrade a labelled photo before reading it, as another camera or light would.

    ``blur``: Gaussian sigma in pixels (a camera out of focus); ``noise``: sigma of added
    Gaussian noise in grey levels (a dim room, a small sensor); ``gain``: brightness factor
    (0.4: underexposed); ``gamma``: tone curve exponent on [0, 1] levels; ``warm``: colour
    cast, red times (1 + warm) and blue divided by it (0.3: tungsten light; negative: cold);
    ``jpeg``: JPEG quality of the copy that is read (95 when 0). The noise is seeded by the
    photo's name, so a run is repeatable.
    """

    blur: float = 0.0
    noise: float = 0.0
    gain: float = 1.0
    gamma: float = 1.0
    warm: float = 0.0
    jpeg: int = 0

    def is_identity(self) -> bool:
        return self == Perturbation()

    def apply(self, image: npt.NDArray[np.uint8], seed: int) -> npt.NDArray[np.uint8]:
        """The degraded copy of a BGR uint8 image (same shape)."""
        out = image.astype(np.float32)
        if self.blur > 0:
            out = np.asarray(cv2.GaussianBlur(out, (0, 0), self.blur), np.float32)
        if self.warm:
            out[..., 2] *= 1.0 + self.warm
            out[..., 0] /= 1.0 + self.warm
        if self.gain != 1.0 or self.gamma != 1.0:
            out = 255.0 * (np.clip(out * self.gain / 255.0, 0.0, 1.0) ** self.gamma)
        if self.noise > 0:
            out += np.random.default_rng(seed).normal(0.0, self.noise, out.shape).astype(np.float32)
        return np.asarray(np.clip(out + 0.5, 0, 255), np.uint8)


def parse_perturbation(items: Sequence[str]) -> Perturbation:
    """A :class:`Perturbation` from ``NAME=VALUE`` items; ValueError names a bad one."""
    fields = {f: type(getattr(Perturbation(), f)) for f in Perturbation.__dataclass_fields__}
    values: dict[str, float | int] = {}
    for item in items:
        name, _, text = item.partition("=")
        if name not in fields:
            raise ValueError(f"unknown perturbation {name!r} (known: {', '.join(fields)})")
        try:
            values[name] = fields[name](text)
        except ValueError:
            raise ValueError(f"bad value for {name}: {text!r}") from None
    p = Perturbation(**values)  # type: ignore[arg-type]
    if p.blur < 0 or p.noise < 0 or p.gain <= 0 or p.gamma <= 0 or p.warm <= -1:
        raise ValueError("blur and noise must be >= 0, gain and gamma > 0, warm > -1")
    if p.jpeg and not 5 <= p.jpeg <= 100:
        raise ValueError("jpeg quality must be between 5 and 100")
    return p


def _prepared(img: Path, zoom: float, perturb: Perturbation) -> bytes:
    """The photo at ``img`` resized by ``zoom`` and degraded by ``perturb``, as JPEG bytes."""
    raw = cv2.imdecode(np.frombuffer(img.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    if raw is None:
        return img.read_bytes()  # let the reader say what is wrong with it
    image = np.asarray(raw, np.uint8)
    if zoom != 1.0:
        interpolation = cv2.INTER_AREA if zoom < 1.0 else cv2.INTER_CUBIC
        image = np.asarray(
            cv2.resize(image, None, fx=zoom, fy=zoom, interpolation=interpolation), np.uint8
        )
    image = perturb.apply(image, seed=zlib.crc32(img.name.encode()))
    quality = perturb.jpeg or 95
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return bytes(buf) if ok else img.read_bytes()


def _write_failure(
    folder: Path,
    split: Split,
    img: Path,
    dice: Sequence[DieReading],
    truth: Sequence[Truth],
    data: bytes | None = None,
) -> None:
    """Write ``img`` annotated with its readings and labels; drawn on ``data`` (the photo as
    it was read: zoomed or degraded) when given."""
    from vision.annotate import annotate

    raw = (
        cv2.imread(str(img), cv2.IMREAD_COLOR)
        if data is None
        else cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    )
    if raw is None:
        return
    out = annotate(np.asarray(raw, dtype=np.uint8), dice)
    for t in truth:
        if t.box is not None:
            x0, y0, x1, y1 = (round(v) for v in t.box)
            cv2.rectangle(out, (x0, y0), (x1, y1), (255, 255, 0), 1)
            cv2.putText(
                out,
                str(t.value),
                (x0, y1 + 12),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.4,
                (255, 255, 0),
                1,
                cv2.LINE_AA,
            )
    if max(out.shape[:2]) < 400:
        out = np.asarray(
            cv2.resize(out, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST), dtype=np.uint8
        )
    folder.mkdir(parents=True, exist_ok=True)
    name = split.name.replace("/", "_") + "__" + img.parent.name + "_" + img.stem + ".png"
    cv2.imwrite(str(folder / name), out)


def _table(rows: list[tuple[str, dict[str, float | int | list[list[int]]]]]) -> str:
    head = (
        f"{'split':<34} {'photos':>6} {'dice':>6} {'recall':>7} {'precis':>7} "
        f"{'value':>7} {'unsure':>7} {'misread':>7} {'exact':>7} {'ms':>6} {'ms p95':>7}"
    )
    lines = [head, "-" * len(head)]
    for name, s in rows:
        lines.append(
            f"{name:<34} {s['images']:>6} {s['dice']:>6} {s['recall']:>7.2%} "
            f"{s['precision']:>7.2%} {s['value_accuracy']:>7.2%} {s['uncertain']:>7.2%} "
            f"{s['misread']:>7.2%} {s['exact_photos']:>7.2%} "
            f"{s['ms_mean']:>6.1f} {s['ms_p95']:>7.1f}"
        )
    return "\n".join(lines)


def _confusion_text(confusion: list[list[int]]) -> str:
    lines = ["true\\read " + " ".join(f"{v:>5}" for v in ["1", "2", "3", "4", "5", "6", "?"])]
    for t, row in enumerate(confusion, start=1):
        lines.append(f"{t:>9} " + " ".join(f"{v:>5}" for v in row))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate", description=__doc__)
    parser.add_argument("dataset", type=Path, help="folder of labelled photos (any depth)")
    parser.add_argument("--split", action="append", help="only splits with this last name")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--failures", type=Path, help="write annotated misread photos here")
    parser.add_argument(
        "--by-video",
        action="store_true",
        help="also report per video (frames named like name_mp4-N...)",
    )
    parser.add_argument(
        "--zoom",
        type=float,
        default=1.0,
        help="resize every labelled photo by this factor first (2.5: a close-up; 0.5: afar)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a reader parameter (vision.params.ReaderParams), e.g. max_upscale=1.5",
    )
    parser.add_argument(
        "--perturb",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="degrade every labelled tray photo first (crops are read as they are): "
        "blur=SIGMA, noise=SIGMA, gain=F, gamma=G, warm=F, jpeg=QUALITY (another camera or "
        "light; see Perturbation)",
    )
    args = parser.parse_args(argv)
    params = DEFAULTS
    for item in args.param:
        name, _, value = item.partition("=")
        if name not in ReaderParams._fields:
            parser.error(f"unknown reader parameter: {name}")
        kind = type(getattr(DEFAULTS, name))
        try:
            params = params._replace(**{name: _bool(value) if kind is bool else kind(value)})
        except ValueError:
            parser.error(f"bad value for {name}: {value}")
    try:
        perturb = parse_perturbation(args.perturb)
    except ValueError as exc:
        parser.error(str(exc))
    if not 0.1 <= args.zoom <= 10.0:
        parser.error(f"--zoom must be between 0.1 and 10: {args.zoom}")
    if not args.dataset.is_dir():
        parser.error(f"not a folder: {args.dataset}")
    splits = find_splits(args.dataset)
    if not splits:
        from vision.evaluate_scenes import is_scene_dir
        from vision.evaluate_scenes import main as scenes_main

        if is_scene_dir(args.dataset):
            # The renderer's ground truth (image + JSON): reading and the tray flags.
            return scenes_main([str(args.dataset), *(["--json"] if args.json else [])])
    if args.split:
        splits = [s for s in splits if Path(s.name).name in args.split]
    if not splits:
        parser.error(f"no labelled photos found under {args.dataset}")
    overall = Tally()
    rows = []
    videos: dict[str, Tally] = {}
    for split in splits:
        tally = Tally()
        results = evaluate_split(
            split, params=params, failures=args.failures, zoom=args.zoom, perturb=perturb
        )
        for img, result in results:
            tally.add(result)
            m = _VIDEO.match(img.name)
            if args.by_video and m:
                videos.setdefault(m.group(1), Tally()).add(result)
        overall.merge(tally)
        rows.append((split.name, tally.summary()))
    if len(rows) > 1:
        rows.append(("overall", overall.summary()))
    video_rows = [(name, t.summary()) for name, t in sorted(videos.items())]
    if args.json:
        out = {"splits": dict(rows), "overall": overall.summary()}
        if video_rows:
            out["videos"] = dict(video_rows)
        print(json.dumps(out))
    else:
        print(_table(rows))
        if video_rows:
            print()
            print(_table(video_rows))
        print()
        print("confusion (all splits; rows true face, columns face read, ? = uncertain)")
        print(_confusion_text(overall.summary()["confusion"]))  # type: ignore[arg-type]
    return 0


def _bool(text: str) -> bool:
    """A switch's value on the command line: 1/0, true/false, yes/no, on/off."""
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def _run() -> int:
    try:
        return main()
    except BrokenPipeError:
        # The reader of the table went away (``| head``): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(_run())
