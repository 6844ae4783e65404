"""``python -m companion.web serve ...``: the ``serve`` command without the rest of the CLI."""

from __future__ import annotations

import argparse
import sys

from companion.web.command import register


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.web")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
