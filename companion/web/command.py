"""``dice-companion serve``: run the web app with waitress.

Flask, waitress and segno are imported inside the handler so that the other sub-commands
start fast.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import secrets
import socket
import sys
from pathlib import Path
from typing import Any

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def register(sub: Any) -> None:
    """Add the ``serve`` sub-command to the ``dice-companion`` parser's subparsers."""
    p = sub.add_parser("serve", help="run the companion web app for the table")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1, this machine only; "
        "0.0.0.0 lets phones on the same network join with a secret link)",
    )
    p.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    p.add_argument(
        "--db",
        type=Path,
        default=None,
        help="the games database file (default: games.sqlite3 in the user data directory)",
    )
    p.add_argument("--threads", type=int, default=8, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """This machine's address on the local network, as phones would reach it."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            # No packet is sent: connecting a UDP socket only picks the outgoing interface.
            s.connect(("10.255.255.255", 1))
            address: str = s.getsockname()[0]
        except OSError:
            address = "127.0.0.1"
    return address


def session_key(db_path: Path) -> str:
    """The key that signs session cookies, kept beside the database (readable by its owner
    only) so that a restarted server still accepts the forms its pages showed."""
    path = db_path.with_name(db_path.name + ".session-key")
    try:
        key = path.read_text().strip()
        if len(key) >= 32:
            return key
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key)
    return key


def join_url(host: str, port: int, secret: str) -> str:
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/join/{secret}"


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    import segno
    import waitress

    from companion.web import create_app, default_db_path

    db_path = Path(args.db) if args.db else default_db_path()
    config: dict[str, Any] = {"DATABASE": str(db_path), "SECRET_KEY": session_key(db_path)}
    local = is_loopback(args.host)
    secret = None
    if local:
        # A page on another site cannot reach this server by renaming itself to 127.0.0.1
        # (DNS rebinding): requests must name this machine.
        config["TRUSTED_HOSTS"] = ["127.0.0.1", "localhost", "::1", "[::1]"]
    else:
        secret = secrets.token_urlsafe(16)
        config["JOIN_SECRET"] = secret
    app = create_app(config)
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"Dice companion: http://{shown}:{args.port}/", flush=True)
    print(f"Games are kept in {db_path}", flush=True)
    if secret is not None:
        url = join_url(args.host, args.port, secret)
        print("\nPlayers join from their phones with this link (it holds the table's secret):")
        print(f"  {url}\n")
        qr = segno.make(url, error="m")
        qr.terminal(out=sys.stdout, compact=True)
        print(f"On this machine, http://127.0.0.1:{args.port}/ needs no link.", flush=True)
    waitress.serve(
        app, host=args.host, port=args.port, threads=args.threads, ident="dice-companion"
    )
    return 0
