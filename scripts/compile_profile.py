"""Where the first compile of the engine goes: per jitted function, per compiler stage.

Runs in this process with an empty numba cache (a new temporary directory unless --cache is
given, so that the machine's own cache is never touched), then plays what ``smsim simulate``
plays on its first run: one game of each policy given (default balanced, 4 players). Prints

- the time to import numba and smsim (before anything compiles);
- each compiled specialisation: its own time (callees compiled during it are subtracted) and
  its total, the number of specialisations per function;
- the time by compiler stage (typing, numba's rewrites, lowering to LLVM IR, LLVM's
  optimisation and machine code, writing the cache).

    python scripts/compile_profile.py [--policy balanced] [--players 4] [--top 15] [--search]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict

# CPU seconds of this process: the compile runs on one thread, and on a shared machine its CPU
# time is steadier than the wall clock (both totals are printed)
clock = time.process_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", action="append", help="a policy to compile for (repeatable; default balanced)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--search", action="store_true", help="also compile the search policy (rollout)")
    parser.add_argument("--top", type=int, default=15, help="rows of the per-function table")
    parser.add_argument(
        "--sizes",
        action="store_true",
        help="count the LLVM instructions each function's linked module holds after optimisation (slows the compile)",
    )
    parser.add_argument("--cache", help="numba cache directory (default: a new empty temporary one, removed after)")
    parser.add_argument(
        "--default-gc", action="store_true", help="Python's default garbage collection (smsim compiles with rarer ones)"
    )
    args = parser.parse_args()
    os.environ["NUMBA_CACHE_DIR"] = args.cache or tempfile.mkdtemp(prefix="smsim-compile-profile-")
    try:
        profile(args)
    finally:
        if not args.cache:
            shutil.rmtree(os.environ["NUMBA_CACHE_DIR"], ignore_errors=True)


def profile(args: argparse.Namespace) -> None:

    t0 = clock()
    import numba  # noqa: F401

    t_numba = clock() - t0
    from numba.core import event as ev
    from numba.core.caching import Cache
    from numba.core.codegen import CPUCodeLibrary, JITCodeLibrary

    import smsim.runs.batch  # noqa: F401  (the engine's modules, no compile yet)

    t_import = clock() - t0

    own: dict[str, float] = defaultdict(float)
    total: dict[str, float] = defaultdict(float)
    specs: dict[str, int] = defaultdict(int)
    stack: list[list] = []  # [name, start, time spent in nested compiles]

    class Compiles(ev.Listener):
        def on_start(self, event):
            disp = event.data["dispatcher"]
            name = f"{disp.py_func.__module__.removeprefix('smsim.')}.{disp.py_func.__qualname__}"
            stack.append([name, clock(), 0.0])

        def on_end(self, event):
            name, start, nested = stack.pop()
            spent = clock() - start
            own[name] += spent - nested
            total[name] += spent
            specs[name] += 1
            if stack:
                stack[-1][2] += spent

    # compiler stages: numba's front end (typing, rewrites, lowering to LLVM IR) is what is left
    # of a function's own time after LLVM's optimisation, machine code and the cache write
    stages: dict[str, float] = defaultdict(float)
    sizes: dict[str, int] = defaultdict(int)  # LLVM instructions optimised per function (with --sizes)

    def timed(cls, method, stage):
        inner = getattr(cls, method)

        def wrapper(self, *a, **k):
            start = clock()
            try:
                return inner(self, *a, **k)
            finally:
                stages[stage] += clock() - start

        setattr(cls, method, wrapper)

    timed(CPUCodeLibrary, "_optimize_functions", "LLVM function passes (per function, at lowering)")
    timed(CPUCodeLibrary, "_optimize_final_module", "LLVM module passes (callees linked in, inlining)")
    timed(JITCodeLibrary, "_finalize_specific", "machine code (the linked module)")
    timed(Cache, "save_overload", "writing the cache")
    if args.sizes:
        finalize = CPUCodeLibrary._optimize_final_module

        def counted(self):
            finalize(self)
            if stack:
                n = sum(1 for f in self._final_module.functions for b in f.blocks for _ in b.instructions)
                sizes[stack[-1][0]] += n

        CPUCodeLibrary._optimize_final_module = counted

    ev.register("numba:compile", Compiles())

    from smsim.rules import Rules
    from smsim.runs.batch import run_games
    from smsim.warmup import compiling

    gc_setting = contextlib.nullcontext() if args.default_gc else compiling()
    gc_setting.__enter__()

    policies = list(dict.fromkeys(args.policy or ["balanced"]))
    wall = time.perf_counter()
    start = clock()
    for name in policies:
        run_games(1, args.players, [name], 0, Rules(), threads=1)
    t_play = clock() - start
    t_search = 0.0
    if args.search:
        start = clock()
        from smsim.policies.registry import POLICIES, rollout_spec

        quick = rollout_spec(
            {"budget": 2, "min_playouts": 1, "candidates": 2, "search_place": 1, "place_budget": 2},
            POLICIES["balanced"],
        )  # the same code, short games
        run_games(1, args.players, [quick] + ["balanced"] * (args.players - 1), 0, Rules(), threads=1)
        t_search = clock() - start

    wall = time.perf_counter() - wall
    gc_setting.__exit__(None, None, None)
    print(
        f"cache: {os.environ['NUMBA_CACHE_DIR']}; CPU seconds unless said (wall clock of the games: {wall:.1f} s, "
        f"load average {os.getloadavg()[0]:.1f})"
    )
    print(f"import numba {t_numba:.2f} s, numba + smsim {t_import:.2f} s")
    print(
        f"first games ({', '.join(policies)}; {args.players} players): {t_play:.1f} s"
        + (f"; search policy: {t_search:.1f} s" if args.search else "")
    )
    print(
        f"\n{'own s':>7} {'total s':>8} {'specs':>5}"
        + (f" {'LLVM ins':>9}" if args.sizes else "")
        + "  function (own: without the callees compiled during it)"
    )
    ranked = sorted(own, key=own.get, reverse=True)
    for name in ranked[: args.top]:
        print(
            f"{own[name]:>7.2f} {total[name]:>8.2f} {specs[name]:>5}"
            + (f" {sizes[name]:>9,}" if args.sizes else "")
            + f"  {name}"
        )
    rest = ranked[args.top :]
    if rest:
        print(f"{sum(own[n] for n in rest):>7.2f} {'':>8} {sum(specs[n] for n in rest):>5}  {len(rest)} others")
    print(f"{sum(own.values()):>7.2f} {'':>8} {sum(specs.values()):>5}  all {len(own)} functions")
    print("\nby stage:")
    front = t_play + t_search - sum(stages.values())
    for name, spent in sorted(
        {**stages, "the rest: numba's front end (typing, rewrites, lowering to LLVM IR)": front}.items(),
        key=lambda kv: -kv[1],
    ):
        print(f"{spent:>7.2f}  {name}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
