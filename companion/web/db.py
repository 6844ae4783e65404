"""The SQLite file that holds every game: connection, schema version and migrations.

One file, WAL journal, foreign keys on, ``synchronous=FULL`` (a confirmed action survives the
server being killed). Connections run in autocommit mode; every change is made inside
:func:`immediate`, a ``BEGIN IMMEDIATE`` transaction, so two requests changing the same game
are serialised by SQLite's write lock and the second one sees the first one's result.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flask import Flask, current_app, g

#: Ordered migrations: ``MIGRATIONS[k]`` brings a database from version ``k`` to ``k + 1``.
#: Append new ones; never edit one that has shipped.
MIGRATIONS: tuple[str, ...] = (
    # 1: games and their actions (event log; the state is rebuilt by replaying them).
    """
    CREATE TABLE games (
        id       TEXT PRIMARY KEY,
        game     TEXT NOT NULL,
        players  TEXT NOT NULL,
        options  TEXT NOT NULL,
        created  TEXT NOT NULL
    );
    CREATE TABLE actions (
        game_id  TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq      INTEGER NOT NULL,
        kind     TEXT NOT NULL,
        payload  TEXT NOT NULL,
        created  TEXT NOT NULL,
        photo    TEXT,
        reading  TEXT,
        PRIMARY KEY (game_id, seq)
    );
    """,
    # 2: list recent games quickly on the home page.
    "CREATE INDEX games_by_created ON games(created);",
)

SCHEMA_VERSION = len(MIGRATIONS)


class SchemaTooNewError(RuntimeError):
    """The database was written by a newer version of the program."""


def connect(path: str | Path) -> sqlite3.Connection:
    """Open the database file in autocommit mode with WAL, foreign keys and a busy timeout."""
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=30.0, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: BEGIN IMMEDIATE, COMMIT on success, ROLLBACK on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def schema_version(conn: sqlite3.Connection) -> int:
    """The version recorded in the file (0 for a new, empty file)."""
    has = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if not has:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(path: str | Path) -> int:
    """Create or upgrade the database at ``path``; returns the schema version it is now at."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = connect(path)
    try:
        # WAL is a property of the file; set it once, outside any transaction.
        conn.execute("PRAGMA journal_mode = WAL")
        with immediate(conn):
            version = schema_version(conn)
            if version > SCHEMA_VERSION:
                raise SchemaTooNewError(
                    f"{path} has schema version {version}; this program knows up to "
                    f"{SCHEMA_VERSION}: upgrade dice-companion"
                )
            if version == 0:
                conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
                conn.execute("INSERT INTO schema_version VALUES (0)")
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("UPDATE schema_version SET version = ?", (step + 1,))
        return SCHEMA_VERSION
    finally:
        conn.close()


def get_db() -> sqlite3.Connection:
    """The request's connection, opened on first use and closed at teardown."""
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    conn: sqlite3.Connection = g.db
    return conn


def close_db(_exc: BaseException | None = None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


def init_app(app: Flask) -> None:
    """Migrate the app's database and close each request's connection at teardown."""
    migrate(app.config["DATABASE"])
    app.teardown_appcontext(close_db)
