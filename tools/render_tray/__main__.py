"""`python -m tools.render_tray ...`: see `cli.py`."""

from .cli import main

raise SystemExit(main())
