"""Label parts of an ``smsim learn`` round here, to be copied into the run's folder elsewhere.

    python scripts/label_parts.py --out runs/learn --round 1 --parts 180:310 --threads 16
    python scripts/label_parts.py --out runs/learn --round 1 --parts 3 --into /tmp/check   # one part again

A label depends only on (seed, round, game, decision), so a part labelled on another machine is
the part the run would have written itself, provided that machine computes as this one does:
``--into`` labels into another folder, where a part the run already holds can be labelled again
and compared (``--compare``). The run's own folder is never written to with ``--into``; without
it, parts go into ``--out`` as the run writes them (whole, each as it is done), and parts already
there are skipped. Copy the parts into ``OUT/labels/round-K/`` beside the run's; the run skips
them. Round K > 1 needs round K - 1's model (``OUT/model-round-{K-1}.json``) in ``--out``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from smsim.studies.learn import label_parts, part_path, read_part, read_plan, round_student


def part_range(text: str) -> list[int]:
    """``A:B`` (A to B - 1) or a single part number."""
    lo, _, hi = text.partition(":")
    return list(range(int(lo), int(hi))) if hi else [int(lo)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="the learn run's folder (its learn.json and models are read)")
    parser.add_argument("--round", type=int, required=True)
    parser.add_argument("--parts", required=True, help="A:B (parts A to B - 1) or one part number")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--into", default=None, help="write the parts here instead (a folder of its own)")
    parser.add_argument("--compare", action="store_true", help="with --into: compare each part with the run's")
    args = parser.parse_args()
    out = Path(args.out)
    plan, rules = read_plan(out)
    student = round_student(plan, out, args.round)
    into = Path(args.into) if args.into else out
    if args.into:
        into.mkdir(parents=True, exist_ok=True)
        shutil.copy(out / "learn.json", into / "learn.json")
    parts = part_range(args.parts)
    start = time.time()
    done = label_parts(plan, into, args.round, parts, student, rules, args.threads)
    print(f"labelled {len(done)} parts of round {args.round} in {time.time() - start:.0f} s", flush=True)
    if not args.compare:
        return 0
    same = True
    for p in parts:
        mine, theirs = part_path(into, args.round, p), part_path(out, args.round, p)
        if theirs.exists():
            equal = read_part(mine).equals(read_part(theirs))
            same &= equal
            print(f"part {p}: {'the same' if equal else 'DIFFERENT'} as {theirs}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
