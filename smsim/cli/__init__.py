"""The ``smsim`` command: a thin click layer over the Python API.

Bad input ends with one line ``Error: ...`` on stderr and exit status 2, never a traceback.
One module per group of commands (``game``, ``runs``, ``studies``, ``sweep``, ``learn``, ``ladder``,
``feel``, ``reports``, ``catalog``, ``study``),
what they share in ``common`` and the progress displays in ``progress``.

May import: every layer. The commands import the Python API inside their functions, so that
loading the command line (``smsim --help``, a typo) loads neither numba nor matplotlib.
"""

from __future__ import annotations

from typing import Any

# each module adds its commands to the group
from smsim.cli import catalog, feel, game, ladder, learn, reports, runs, studies, study, sweep  # noqa: F401
from smsim.cli.common import cli

__all__ = ["cli", "main"]


def main(argv: list[str] | None = None) -> Any:
    """The console script ``smsim``."""
    return cli.main(args=argv, prog_name="smsim")


if __name__ == "__main__":  # pragma: no cover
    main()
