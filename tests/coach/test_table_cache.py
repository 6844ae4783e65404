"""Tables are built once, kept on disk under a hash of the rules, rebuilt when the rules change."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from companion.coach import cache
from companion.coach.advice import TABLE_KIND, expected_final_score
from companion.coach.boxsolver import build_table
from companion.rules.games import THREE_DICE


def _load(game: object, directory: Path) -> bool:
    assert isinstance(game, type(THREE_DICE))
    _, built = cache.load_or_build(
        game.id, TABLE_KIND, game, lambda: build_table(game), directory=directory
    )
    return built


def test_a_table_is_built_once_then_read_from_disk(tmp_path: Path, fresh_memory: None) -> None:
    assert _load(THREE_DICE, tmp_path) is True
    files = list(tmp_path.glob("*.npy"))
    assert [f.name for f in files] == [
        f"three-dice-box-{cache.definition_hash(THREE_DICE, TABLE_KIND)}.npy"
    ]
    assert _load(THREE_DICE, tmp_path) is False  # from memory
    cache.forget()
    mtime = files[0].stat().st_mtime_ns
    assert _load(THREE_DICE, tmp_path) is False  # from disk
    assert files[0].stat().st_mtime_ns == mtime


def test_a_change_of_rules_builds_a_new_table(tmp_path: Path, fresh_memory: None) -> None:
    two_rolls = dataclasses.replace(THREE_DICE, rolls_per_turn=2)
    assert cache.definition_hash(two_rolls, TABLE_KIND) != cache.definition_hash(
        THREE_DICE, TABLE_KIND
    )
    assert _load(THREE_DICE, tmp_path) is True
    assert _load(two_rolls, tmp_path) is True
    # The stale table of the same game is removed.
    names = [f.name for f in tmp_path.glob("*.npy")]
    assert names == [f"three-dice-box-{cache.definition_hash(two_rolls, TABLE_KIND)}.npy"]
    assert expected_final_score(two_rolls, cache_dir=tmp_path) < expected_final_score(
        THREE_DICE, cache_dir=tmp_path
    )


def test_a_damaged_table_is_rebuilt(tmp_path: Path, fresh_memory: None) -> None:
    _load(THREE_DICE, tmp_path)
    (path,) = tmp_path.glob("*.npy")
    path.write_bytes(b"not a table")
    cache.forget()
    assert _load(THREE_DICE, tmp_path) is True
    assert expected_final_score(THREE_DICE, cache_dir=tmp_path) == pytest.approx(39.0252769)


def test_the_environment_can_move_the_cache(
    tmp_path: Path, fresh_memory: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "elsewhere"))
    assert cache.cache_dir() == tmp_path / "elsewhere"
    expected_final_score(THREE_DICE)
    assert len(list((tmp_path / "elsewhere").glob("three-dice-*.npy"))) == 1


def test_without_override_the_cache_is_the_user_cache_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    assert cache.cache_dir().name == "dice-companion"


def test_a_cache_that_cannot_be_written_still_gives_advice(
    tmp_path: Path, fresh_memory: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object) -> None:
        raise PermissionError("read-only")

    monkeypatch.setattr(cache, "_save", refuse)
    assert expected_final_score(THREE_DICE, cache_dir=tmp_path) == pytest.approx(39.0252769)
    assert list(tmp_path.glob("*.npy")) == []
