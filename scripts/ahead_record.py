"""Make the record of a first compile that the package ships (smsim/runs/ahead.py, ``runs/data/``).

    python scripts/ahead_record.py

Compiles, in a fresh process on an empty cache, the loops of a heuristic line-up and of a
learned one (the first line-ups ``make demo`` and ``smsim warmup`` compile) alone
(``SMSIM_COMPILE_AHEAD=record``), each writing what its handed functions met; then copies
that record into ``smsim/runs/data/`` under the name of this numba and Python version. Run it
after a change to the loop's signatures or to ``ahead.HANDED``: a stale record costs the
helper's core and no time here, and ``tests/runs/test_ahead.py`` (slow) says when it is stale.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from smsim.runs.ahead import SHIPPED, record_name

COMPILE = (
    "from smsim.rules import Rules\n"
    "from smsim.runs.batch import run_games\n"
    "run_games(2, 4, ['balanced', 'greedy', 'walls', 'random'], 1, Rules(), threads=1)\n"
    "run_games(2, 2, ['learned', 'balanced'], 1, Rules(), threads=1)\n"
)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="smsim-ahead-") as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "SMSIM_COMPILE_AHEAD")}
        env["SMSIM_CACHE_DIR"], env["SMSIM_COMPILE_AHEAD"] = tmp, "record"  # alone, whatever is shipped
        subprocess.run([sys.executable, "-c", COMPILE], env=env, check=True)
        made = Path(tmp) / record_name()
        SHIPPED.mkdir(exist_ok=True)
        shutil.copyfile(made, SHIPPED / made.name)
        print(f"written: {SHIPPED / made.name} ({made.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
