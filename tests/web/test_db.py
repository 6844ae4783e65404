"""The database file: schema version, migrations, WAL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.web import db


def test_a_new_file_is_migrated_to_the_current_version(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "games.sqlite3"
    assert db.migrate(path) == db.SCHEMA_VERSION
    conn = db.connect(path)
    assert db.schema_version(conn) == db.SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    conn.close()


def test_migrating_twice_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    db.migrate(path)
    assert db.migrate(path) == db.SCHEMA_VERSION


def test_an_old_file_is_upgraded_step_by_step(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE schema_version (version INTEGER NOT NULL);"
        "INSERT INTO schema_version VALUES (1);" + db.MIGRATIONS[0]
    )
    conn.execute("INSERT INTO games VALUES ('g1', 'three-dice', '[\"Ann\"]', '{}', 'x')")
    conn.commit()
    conn.close()
    assert db.migrate(path) == db.SCHEMA_VERSION
    conn = db.connect(path)
    assert conn.execute("SELECT id FROM games").fetchall()[0][0] == "g1"
    indexes = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")]
    assert "games_by_created" in indexes
    conn.close()


def test_a_file_from_a_newer_program_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    db.migrate(path)
    conn = db.connect(path)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.close()
    with pytest.raises(db.SchemaTooNewError, match="upgrade"):
        db.migrate(path)


def test_a_failed_transaction_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    db.migrate(path)
    conn = db.connect(path)
    with pytest.raises(RuntimeError), db.immediate(conn):
        conn.execute("INSERT INTO games VALUES ('g1', 'three-dice', '[]', '{}', 'x')")
        raise RuntimeError("boom")
    assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    conn.close()


def test_the_session_key_survives_a_restart(tmp_path: Path) -> None:
    from companion.web.command import session_key

    db_path = tmp_path / "games.sqlite3"
    first = session_key(db_path)
    assert session_key(db_path) == first and len(first) == 64
    assert (tmp_path / "games.sqlite3.session-key").stat().st_mode & 0o077 == 0
