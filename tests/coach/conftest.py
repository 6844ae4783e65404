"""Fixtures of the coach tests: one temporary table cache for the whole session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.coach import cache


@pytest.fixture(scope="session")
def coach_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache directory shared by the tests that only read tables (each built once)."""
    return tmp_path_factory.mktemp("coach-cache")


@pytest.fixture
def fresh_memory() -> Iterator[None]:
    """Forget the tables held in memory before and after the test, so it sees the disk."""
    cache.forget()
    yield
    cache.forget()
