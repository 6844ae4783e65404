"""Time reading a tray photo at three sizes, decode included, beside plain ``cv2.imread``.

    python benchmarks/bench_read.py [--repeat N] [--images DIR] [--max-side PX] [--pillow]

Runs on one core (``os.sched_setaffinity(0, {0})`` and ``cv2.setNumThreads(1)``) and prints a
Markdown table of median times in milliseconds. Every timed step starts from the file on disk
(page cache), as ``cv2.imread`` does: the decode and reader columns include reading the bytes.
The reader is timed three ways: finding the tray in each photo and flagging dice, without the
tray flags, and with a tray profile that ``dice-companion calibrate`` made from the same photo
beforehand (as a player calibrates once from where the camera stays).

Without ``--images`` it makes its own JPEGs (quality 92) at 640x480, 1920x1080 and 4032x3024
from a tray scene drawn with OpenCV (a wooden table, a felt floor, five dice with shadows),
with a little sensor-like noise so the files are about as large as a camera's: the same scene
on every machine, so that runs in different sessions time the same work. With ``--images DIR``
it times the photos in DIR as they are (``--images sample_images``: the renderer's photoreal
scenes, whose wood and felt textures cost the reader far more than the drawn scene does).
"""

from __future__ import annotations

import argparse
import io
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vision import io as vio  # noqa: E402  (needs the path above when run from a checkout)
from vision.errors import ImageDecodeError  # noqa: E402

SIZES = ((640, 480), (1920, 1080), (4032, 3024))
PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif", ".avif"}
NA_READER = "n/a (vision.reader not available)"
#: The clock the steps are timed with (see --clock).
CLOCK: Callable[[], float] = time.perf_counter

Bgr = npt.NDArray[Any]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    global CLOCK
    CLOCK = time.thread_time if args.clock == "cpu" else time.perf_counter
    pinned = pin_to_one_core()
    max_side = args.max_side or default_max_side()
    read_bytes = load_reader()

    with tempfile.TemporaryDirectory(prefix="bench_read_") as tmp:
        if args.images is not None:
            photos = sorted(
                p for p in Path(args.images).iterdir() if p.suffix.lower() in PHOTO_SUFFIXES
            )
            if not photos:
                print(f"no photos ({', '.join(sorted(PHOTO_SUFFIXES))}) in {args.images}")
                return 1
            source = f"the photos in {args.images}"
        else:
            photos, source = make_test_photos(Path(tmp), quality=args.quality)

        print(f"# Reading benchmark: {source}")
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        clock = "CPU time of the thread" if args.clock == "cpu" else "wall time"
        print(f"# {pinned}; cv2.setNumThreads(1); median {clock} of {args.repeat} runs, in ms;")
        print(f"# steps run round-robin; load average at start {load} on {os.cpu_count()} CPUs.")
        print("# Every column starts from the file on disk: the decode and reader times include")
        print(f"# reading the bytes. Reduced decode: vision.io.decode(data, max_side={max_side}).")
        print()
        header = [
            "image",
            "file",
            "(a) cv2.imread",
            "decode full",
            f"(b) decode max_side={max_side}",
            "(c) read_bytes",
            "(c)/(a)",
            "(d) read_bytes, no tray flags",
            "(d)/(a)",
            "(e) read_bytes with a tray profile",
            "(e)/(a)",
        ]
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for path in photos:
            profile = make_profile(path, Path(tmp)) if read_bytes is not None else None
            row = table_row(
                path, args.repeat, max_side, read_bytes, profile, named=args.images is not None
            )
            print(row, flush=True)

        if args.pillow:
            print()
            compare_pillow(photos, args.repeat)
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per step (median)")
    parser.add_argument("--images", type=Path, default=None, help="time the photos in DIR")
    parser.add_argument(
        "--max-side",
        type=int,
        default=None,
        help="max_side for the reduced decode (default: the reader's working size, else 960)",
    )
    parser.add_argument("--quality", type=int, default=92, help="JPEG quality of made photos")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall: time.perf_counter (default); cpu: time.thread_time, the CPU time of this "
        "thread alone, steadier on a machine shared with other work",
    )
    parser.add_argument(
        "--pillow", action="store_true", help="also time Pillow's JPEG decoding (draft) for each"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def pin_to_one_core() -> str:
    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to one core (os.sched_setaffinity(0, {{{core}}}))"
    return "NOT pinned to one core (no sched_setaffinity here)"


def default_max_side() -> int:
    try:
        from vision.params import DEFAULTS
    except ImportError:
        return 960
    return int(getattr(DEFAULTS, "work_max_side", 960))


def load_reader() -> Callable[..., Any] | None:
    try:
        from vision.reader import read_bytes
    except ImportError:
        return None
    return read_bytes


def interleaved_medians(steps: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median ms of each step, the steps run round-robin so that load from other processes
    falls on all of them alike (their ratios stay fair on a shared machine)."""
    for step in steps.values():
        step()  # warm-up: first-call costs (plugin imports, allocator growth) are not the point
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(repeat):
        for name, step in steps.items():
            t0 = CLOCK()
            step()
            times[name].append(CLOCK() - t0)
    return {name: statistics.median(ts) * 1000.0 for name, ts in times.items()}


def make_profile(path: Path, folder: Path) -> Any:
    """The tray profile ``dice-companion calibrate`` makes from ``path`` (the camera is
    calibrated once, from where it stays), or None when it finds no tray there."""
    out = folder / (path.stem + ".tray.json")
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "calibrate", str(path), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return None
    from calibration.profile import TrayProfile

    return TrayProfile.load(out)


def table_row(
    path: Path,
    repeat: int,
    max_side: int,
    read_bytes: Callable[..., Any] | None,
    profile: Any = None,
    *,
    named: bool = False,
) -> str:
    """One row of the table for the photo at ``path``, labelled by its size and format (and
    with ``named``, its file name first: the photos of ``--images`` differ in more than size)."""
    try:
        info = vio.probe(path.read_bytes())
        label = f"{info.width}x{info.height} {info.format}"
        if named:
            label = f"{path.name}: {label}"
    except ImageDecodeError as exc:
        return f"| {path.name} | - | error: {exc} | | | | | | | | |"
    size = f"{path.stat().st_size / 1e6:.2f} MB"
    k = vio.reduction_factor(max(info.width, info.height), max_side)

    steps: dict[str, Callable[[], object]] = {
        "full": lambda: vio.decode(path.read_bytes()),
        "reduced": lambda: vio.decode(path.read_bytes(), max_side=max_side),
    }
    if cv2.imread(str(path), cv2.IMREAD_COLOR) is not None:
        steps["imread"] = lambda: cv2.imread(str(path), cv2.IMREAD_COLOR)
    c_text, ratio, d_text, d_ratio = NA_READER, "n/a", NA_READER, "n/a"
    if read_bytes is not None:
        try:
            read_bytes(path.read_bytes())
        except Exception as exc:  # the reader is someone else's work in progress
            c_text = f"error: {type(exc).__name__}: {exc}"
        else:
            steps["reader"] = lambda: read_bytes(path.read_bytes())
            steps["no_tray"] = lambda: read_bytes(path.read_bytes(), tray_flags=False)
            if profile is not None:
                steps["profile"] = lambda: read_bytes(path.read_bytes(), profile=profile)
    ms = interleaved_medians(steps, repeat)
    a = ms.get("imread")
    if "reader" in ms:
        c_text = f"{ms['reader']:.1f}"
        ratio = f"{ms['reader'] / a:.2f}x" if a else "n/a"
        d_text = f"{ms['no_tray']:.1f}"
        d_ratio = f"{ms['no_tray'] / a:.2f}x" if a else "n/a"
    e_text, e_ratio = "n/a (no tray found)", "n/a"
    if "profile" in ms:
        e_text = f"{ms['profile']:.1f}"
        e_ratio = f"{ms['profile'] / a:.2f}x" if a else "n/a"
    a_text = f"{a:.1f}" if a is not None else "n/a (cv2 cannot read it)"
    return (
        f"| {label} | {size} | {a_text} | {ms['full']:.1f} | {ms['reduced']:.1f} (1/{k}) "
        f"| {c_text} | {ratio} | {d_text} | {d_ratio} | {e_text} | {e_ratio} |"
    )


def compare_pillow(photos: list[Path], repeat: int) -> None:
    """Pillow's JPEG decoding (with draft for 1/2, 1/4, 1/8) to a BGR array, beside OpenCV's."""
    print("| image | k | cv2.imdecode | Pillow draft+load | Pillow to BGR array | EXIF tag |")
    print("|---|---|---|---|---|---|")
    for path in photos:
        data = path.read_bytes()
        info = vio.probe(data)
        if info.format not in ("JPEG", "MPO"):
            continue
        for k in (1, 2, 4, 8):
            cv, pil_load, pil_bgr, exif = _decoders(data, k)
            ms = interleaved_medians(
                {"cv": cv, "pil_load": pil_load, "pil_bgr": pil_bgr, "exif": exif}, repeat
            )
            print(
                f"| {info.width}x{info.height} | 1/{k} | {ms['cv']:.1f} | "
                f"{ms['pil_load']:.1f} | {ms['pil_bgr']:.1f} | "
                f"{ms['exif']:.3f} (Pillow lazy open) |"
            )


def _decoders(data: bytes, k: int) -> tuple[Callable[[], object], ...]:
    """Four steps to time on one JPEG at 1/k: OpenCV, Pillow to its image, Pillow to BGR, EXIF."""
    from PIL import Image

    flag = {
        1: cv2.IMREAD_COLOR,
        2: cv2.IMREAD_REDUCED_COLOR_2,
        4: cv2.IMREAD_REDUCED_COLOR_4,
        8: cv2.IMREAD_REDUCED_COLOR_8,
    }[k] | cv2.IMREAD_IGNORE_ORIENTATION
    buf = np.frombuffer(data, np.uint8)

    def cv() -> object:
        return cv2.imdecode(buf, flag)

    def pil_load() -> Image.Image:
        im = Image.open(io.BytesIO(data))
        if k > 1:
            im.draft("RGB", (math.ceil(im.width / k), math.ceil(im.height / k)))
        im.load()
        return im

    def pil_bgr() -> object:
        return cv2.cvtColor(np.asarray(pil_load()), cv2.COLOR_RGB2BGR)

    def exif() -> object:
        return Image.open(io.BytesIO(data)).getexif().get(0x0112)

    return cv, pil_load, pil_bgr, exif


# --- test photos ----------------------------------------------------------------------------


def make_test_photos(folder: Path, *, quality: int) -> tuple[list[Path], str]:
    rng = np.random.default_rng(7)
    photos = []
    for w, h in SIZES:
        scene = add_sensor_noise(draw_tray(w, h, rng), rng)
        path = folder / f"tray_{w}x{h}.jpg"
        cv2.imwrite(str(path), scene, [cv2.IMWRITE_JPEG_QUALITY, quality])
        photos.append(path)
    return photos, f"a drawn tray scene, JPEG quality {quality}"


def add_sensor_noise(image: Bgr, rng: np.random.Generator, sigma: float = 4.5) -> Bgr:
    """Gaussian noise of ``sigma`` grey levels: a camera's JPEG is that much harder to compress."""
    noise = rng.normal(0.0, sigma, image.shape).astype(np.float32)
    out: Bgr = np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return out


def draw_tray(w: int, h: int, rng: np.random.Generator) -> Bgr:
    """A table, a felt tray floor and five dice with shadows, drawn in proportion to w x h."""
    u = min(w, h) / 1000.0  # one unit = a thousandth of the short side
    # wooden table: streaks along x
    grain = rng.normal(0, 1, (max(2, h // 8), 1)).astype(np.float32)
    grain = cv2.resize(cv2.GaussianBlur(grain, (1, 9), 0), (w, h)) * 18.0
    table = np.empty((h, w, 3), np.float32)
    table[:] = (60, 105, 150)
    table += grain[..., None]
    img = np.clip(table, 0, 255).astype(np.uint8)
    # tray floor with a rim
    x0, y0, x1, y1 = int(0.12 * w), int(0.1 * h), int(0.88 * w), int(0.9 * h)
    cv2.rectangle(img, (x0, y0), (x1, y1), (30, 30, 35), int(30 * u) + 1)
    cv2.rectangle(img, (x0, y0), (x1, y1), (55, 90, 40), -1)
    fibres = rng.normal(0, 6, (h // 4 + 1, w // 4 + 1)).astype(np.float32)
    felt = cv2.resize(fibres, (w, h))[..., None]
    floor = img[y0:y1, x0:x1].astype(np.float32) + felt[y0:y1, x0:x1]
    img[y0:y1, x0:x1] = np.clip(floor, 0, 255).astype(np.uint8)
    # dice
    side = 120 * u
    for i, value in enumerate((4, 4, 2, 6, 1)):
        cx = x0 + (x1 - x0) * (0.2 + 0.15 * i) + rng.uniform(-20, 20) * u
        cy = y0 + (y1 - y0) * (0.35 + 0.3 * (i % 2)) + rng.uniform(-20, 20) * u
        draw_die(img, (cx, cy), side, float(rng.uniform(0, 90)), value)
    blur = max(1, int(1.2 * u)) | 1
    return cv2.GaussianBlur(img, (blur, blur), 0)


def draw_die(img: Bgr, center: tuple[float, float], side: float, angle: float, value: int) -> None:
    box = cv2.boxPoints((center, (side, side), angle)).astype(np.int32)
    shadow = box + np.array([int(0.12 * side), int(0.1 * side)], np.int32)
    cv2.fillConvexPoly(img, shadow, (25, 45, 20), lineType=cv2.LINE_AA)
    cv2.fillConvexPoly(img, box, (235, 238, 240), lineType=cv2.LINE_AA)
    spots = {
        1: [(0, 0)],
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    }[value]
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    for sx, sy in spots:
        dx, dy = sx * 0.27 * side, sy * 0.27 * side
        px = center[0] + dx * ca - dy * sa
        py = center[1] + dx * sa + dy * ca
        cv2.circle(
            img,
            (round(px), round(py)),
            max(1, round(0.09 * side)),
            (20, 20, 25),
            -1,
            lineType=cv2.LINE_AA,
        )


if __name__ == "__main__":
    raise SystemExit(main())
