"""Best-play tables on disk: computed once per rules definition, kept in the user's cache dir.

The file name carries a hash of the game's full definition (the repr of its frozen dataclass,
which names every scorer, bonus and count) and of the solver's version, so any change to the
rules or the solver builds a new table; older tables of the same game are then removed.
Nothing here is ever committed: the tables live outside the repository.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

#: Bump when the solver's meaning or layout changes, so old tables are not reused.
SOLVER_VERSION = "1"

#: Environment variable overriding the cache directory (tests and read-only homes).
CACHE_ENV = "DICE_COMPANION_CACHE_DIR"

_MEMORY: dict[Path, npt.NDArray[np.float64]] = {}


def definition_hash(game: object, kind: str) -> str:
    """First 16 hex digits of sha256 over the solver version, the table kind and repr(game)."""
    text = f"{SOLVER_VERSION}\n{kind}\n{game!r}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The directory for tables: ``override``, else $DICE_COMPANION_CACHE_DIR, else the user
    cache directory of ``dice-companion`` (platformdirs)."""
    if override is not None:
        return Path(override)
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("dice-companion"))


def table_path(game_id: str, kind: str, game: object, directory: Path) -> Path:
    return directory / f"{game_id}-{kind}-{definition_hash(game, kind)}.npy"


def load_or_build(
    game_id: str,
    kind: str,
    game: object,
    build: Callable[[], npt.NDArray[np.float64]],
    *,
    directory: str | os.PathLike[str] | None = None,
) -> tuple[npt.NDArray[np.float64], bool]:
    """The table from memory, else from disk, else built and saved; and whether it was built.

    Saving is atomic (a temporary file renamed into place), so a reader never sees half a
    table; a file that does not load is rebuilt.
    """
    folder = cache_dir(directory)
    path = table_path(game_id, kind, game, folder)
    if path in _MEMORY:
        return _MEMORY[path], False
    if path.exists():
        try:
            table: npt.NDArray[np.float64] = np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            pass
        else:
            _MEMORY[path] = table
            return table, False
    table = build()
    # A read-only or full disk costs a rebuild next time, never the advice itself.
    with contextlib.suppress(OSError):
        _save(table, path)
    _MEMORY[path] = table
    return table, True


def _save(table: npt.NDArray[np.float64], path: Path) -> None:
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=path.stem, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, table, allow_pickle=False)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    # Tables of the same game and kind under an older definition are stale.
    for old in folder.glob(path.stem.rsplit("-", 1)[0] + "-*.npy"):
        if old != path:
            old.unlink(missing_ok=True)


def forget() -> None:
    """Drop the tables held in memory (the files stay)."""
    _MEMORY.clear()
