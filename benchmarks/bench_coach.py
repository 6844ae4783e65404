"""Time the coach: building each game's table, its size on disk, and one piece of advice.

    python benchmarks/bench_coach.py [--repeat N] [--skip-win]

Runs on one core: the process is pinned with ``os.sched_setaffinity(0, {0})`` and the BLAS
and OpenMP thread counts are set to 1 in the environment before numpy is imported. Tables are
built from scratch into a temporary cache directory. Build times are given as wall time and as
the process's CPU time (the CPU time is the fairer figure on a shared machine). Advice latency
is the median over N situations with the table already loaded, drawn with a fixed seed.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from companion.coach import cache, tendice  # noqa: E402
from companion.coach.advice import advise, expected_final_score, load_table  # noqa: E402
from companion.rules import find_game  # noqa: E402
from companion.rules.games import BoxGame, ThrowGame  # noqa: E402


def pin_to_one_core() -> bool:
    try:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    except (AttributeError, OSError):
        return False
    return True


def timed(build: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    build()
    return time.perf_counter() - wall, time.process_time() - cpu


def median_ms(calls: list[Callable[[], object]]) -> float:
    times = []
    for call in calls:
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def box_situations(game: BoxGame, n: int, folder: Path) -> list[Callable[[], object]]:
    """Random mid-game situations: some boxes filled with points they can hold, random dice."""
    from companion.rules.evaluate import possible_points

    rng = random.Random(6)
    calls: list[Callable[[], object]] = []
    for _ in range(n):
        open_ = list(game.categories)
        rng.shuffle(open_)
        filled = {
            c.id: rng.choice(sorted(possible_points(game, c.id)))
            for c in open_[: rng.randrange(len(open_))]
        }
        dice = [rng.randint(1, 6) for _ in range(game.dice_count)]
        roll = rng.randint(1, game.rolls_per_turn)
        calls.append(partial(advise, game, dice, roll, filled, cache_dir=folder))
    return calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="situations for the latency")
    parser.add_argument("--skip-win", action="store_true", help="skip the ten-dice win table")
    args = parser.parse_args(argv)
    pinned = pin_to_one_core()
    print(f"one core: {'pinned' if pinned else 'NOT pinned'}; numpy {np.__version__}")
    print()
    print("| game | table | build wall (s) | build CPU (s) | file | advice (median ms) | value |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="bench_coach_") as tmp:
        folder = Path(tmp)
        for game_id in ("three-dice", "five-dice", "five-dice-bonus"):
            game = find_game(game_id)
            assert isinstance(game, BoxGame)
            cache.forget()
            wall, cpu = timed(partial(load_table, game, cache_dir=folder))
            (path,) = folder.glob(f"{game_id}-box-*.npy")
            size = path.stat().st_size
            advise(game, [1] * game.dice_count, 1, cache_dir=folder)
            latency = median_ms(box_situations(game, args.repeat, folder))
            value = expected_final_score(game, cache_dir=folder)
            print(
                f"| `{game_id}` | expected score per state | {wall:.2f} | {cpu:.2f} "
                f"| {size / 1e6:.2f} MB | {latency:.2f} | {value:.7f} |"
            )
        ten = find_game("ten-dice")
        assert isinstance(ten, ThrowGame)
        tendice.turn_policy.cache_clear()
        wall, cpu = timed(lambda: tendice.turn_policy(ten))
        policy = tendice.turn_policy(ten)
        rng = random.Random(6)
        states = [(rng.randrange(0, 4000, 50), rng.randint(1, 9)) for _ in range(args.repeat)]
        latency = median_ms([partial(policy.value, t, n) for t, n in states])
        print(
            f"| `ten-dice` | turn policy (memory only) | {wall:.2f} | {cpu:.2f} | - "
            f"| {latency:.3f} | {policy.fresh_turn:.4f} points per turn |"
        )
        if not args.skip_win:
            wall, cpu = timed(lambda: tendice.win_table(ten, cache_dir=folder))
            (path,) = folder.glob("ten-dice-win-*.npy")
            table = tendice.win_table(ten, cache_dir=folder)
            calls: list[Callable[[], object]] = []
            for _ in range(args.repeat):
                a, b = rng.randrange(0, 9000, 50), rng.randrange(0, 9000, 50)
                t, n = rng.randrange(50, 1000, 50), rng.randint(1, 9)
                calls.append(partial(tendice.win_choice, ten, a, b, t, n, cache_dir=folder))
            latency = median_ms(calls)
            print(
                f"| `ten-dice` | chance to win, 2 players | {wall:.2f} | {cpu:.2f} "
                f"| {path.stat().st_size / 1e6:.2f} MB | {latency:.2f} "
                f"| {table[0, 0]:.6f} first player at 0-0 |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
