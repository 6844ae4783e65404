"""Make the repository's `tools` package importable under plain `pytest` too.

`python -m pytest` puts the working directory on sys.path, but the `pytest` script does not,
and `tools` is a development package that is not installed with the project.
"""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
