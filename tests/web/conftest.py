"""Fixtures: an app on a temporary database, its test client, a stand-in reader."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import FakeReader

from companion.web import create_app


@pytest.fixture(scope="session")
def coach_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The coach's tables for the whole session (never the user's cache directory)."""
    return tmp_path_factory.mktemp("coach-cache")


@pytest.fixture
def app(tmp_path: Path, coach_cache: Path) -> Iterator[Flask]:
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "games.sqlite3"),
            "COACH_CACHE_DIR": str(coach_cache),
        }
    )
    yield app


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def reader(monkeypatch: pytest.MonkeyPatch) -> FakeReader:
    fake = FakeReader()
    import vision.reader

    monkeypatch.setattr(vision.reader, "read_bytes", fake)
    return fake
