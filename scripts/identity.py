"""Byte-identity check for a change that must not move results: run a fixed set of smsim commands
on fixed seeds, then hash every file they wrote and every command's printed output.

    python scripts/identity.py run OUT        # run the commands into OUT, write OUT/digests.json
    python scripts/identity.py diff A B       # compare two runs' digests: exit 1 on any difference

Manifests (``*.json`` files that describe a folder) are listed but compared only by name, since
they carry timestamps and smsim's version; Parquet parts, CSV, TOML, model files and the commands'
printed tables (with times and rates blanked) are compared byte by byte. The commands run inside
OUT, so the paths they print and write are the same from run to run. Run it at the commit before a
change and after it, on the same machine (``smsim`` from the virtual environment on PATH).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

# name, arguments; {out} is the run's folder. Small, but every kind of folder and printout.
COMMANDS: list[tuple[str, list[str]]] = [
    (
        "simulate",
        [
            "simulate",
            "-n",
            "30000",
            "-p",
            "4",
            "--policy",
            "balanced,random,greedy,balanced",
            "-s",
            "11",
            "--batch",
            "7000",
            "--threads",
            "2",
            "-q",
            "-o",
            "{out}/sim",
        ],
    ),
    ("simulate-print", ["simulate", "-n", "20000", "-p", "3", "-s", "12", "--threads", "2", "-q"]),
    ("summary-csv", ["summary", "{out}/sim", "--format", "csv"]),
    ("summary-markdown", ["summary", "{out}/sim", "--format", "markdown"]),
    (
        "compare",
        [
            "compare",
            "balanced",
            "greedy",
            "walls",
            "-p",
            "3",
            "-n",
            "3000",
            "-s",
            "5",
            "--threads",
            "2",
            "-o",
            "{out}/cmp",
        ],
    ),
    (
        "sweep",
        [
            "sweep",
            "--vary",
            "side_defence=1,2",
            "-n",
            "4000",
            "-p",
            "3",
            "-s",
            "9",
            "--threads",
            "2",
            "-q",
            "-o",
            "{out}/sweep",
        ],
    ),
    (
        "sweep-csv",
        [
            "sweep",
            "--vary",
            "side_defence=1,2",
            "-n",
            "4000",
            "-p",
            "3",
            "-s",
            "9",
            "--threads",
            "2",
            "-q",
            "--format",
            "csv",
            "-o",
            "{out}/sweep",
        ],
    ),
    (
        "fairness",
        [
            "fairness",
            "-p",
            "3",
            "--by",
            "coins",
            "-n",
            "3000",
            "-s",
            "3",
            "--max",
            "2",
            "--threads",
            "2",
            "-q",
            "-o",
            "{out}/fair",
        ],
    ),
    (
        "skill",
        [
            "skill",
            "-p",
            "3",
            "--levels",
            "random,greedy,balanced",
            "-n",
            "1000",
            "-s",
            "4",
            "--threads",
            "2",
            "-q",
            "-o",
            "{out}/skill",
        ],
    ),
    (
        "tune",
        [
            "tune",
            "-p",
            "3",
            "-n",
            "300",
            "-b",
            "6",
            "-s",
            "2",
            "--held-out-games",
            "600",
            "--threads",
            "2",
            "-q",
            "-o",
            "{out}/tuned.toml",
        ],
    ),
    (
        "learn",
        [
            "learn",
            "-o",
            "{out}/learn",
            "-n",
            "300",
            "-k",
            "1",
            "-s",
            "6",
            "-p",
            "3",
            "--knob",
            "budget=16",
            "--threads",
            "2",
            "-q",
        ],
    ),
]
COMPARED = {".parquet", ".csv", ".toml", ".npz", ".npy", ".md", ".txt"}
# the time a command took and its rate differ from run to run: replaced before hashing
TIMING = re.compile(rb"[0-9][0-9,]*(?:\.[0-9]+)?(?= ?(?:s\b|games/s|core-hours|core-s|ms\b|min\b))")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def run(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=False)
    digests: dict[str, str] = {}
    for name, args in COMMANDS:  # run inside OUT, so the paths written into files are the same
        argv = ["smsim", *[a.format(out=".") for a in args]]
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, cwd=out)
        took = time.perf_counter() - start
        print(f"{name:18} exit {done.returncode}  {took:6.1f} s", flush=True)
        if done.returncode != 0:
            print(done.stderr.decode()[-2000:], file=sys.stderr)
        digests[f"stdout:{name}"] = digest(TIMING.sub(b"#", done.stdout))
        digests[f"exit:{name}"] = str(done.returncode)
    for path in sorted(p for p in out.rglob("*") if p.is_file() and p.name != "digests.json"):
        key = str(path.relative_to(out))
        if path.suffix in COMPARED or path.name.startswith("model"):  # a learned model is data, not a manifest
            digests[key] = digest(path.read_bytes())
        else:
            digests[key] = "(listed)"
    (out / "digests.json").write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    print(f"{len(digests)} digests in {out / 'digests.json'}")


def diff(a: Path, b: Path) -> int:
    da = json.loads((a / "digests.json").read_text())
    db = json.loads((b / "digests.json").read_text())
    differ = 0
    for key in sorted(set(da) | set(db)):
        if da.get(key) != db.get(key):
            differ += 1
            print(f"differs: {key}  {da.get(key)}  {db.get(key)}")
    same = len(set(da) & set(db)) - sum(1 for k in set(da) & set(db) if da[k] != db[k])
    print(f"{same} identical, {differ} different")
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "run":
        run(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        sys.exit(diff(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        sys.exit(__doc__)
