"""smsim's speed and memory, printed (never asserted by tests): medians of several runs.

    python scripts/bench.py                 # everything (several minutes)
    python scripts/bench.py --quick         # fewer games, no 10M memory run

Prints, for 2-5 players with `balanced`, `learned` and `random` in every seat: games per second on 1
thread and on all cores, beside the dice-only floor measured in the same run (the same dice
stream and three-roll keeps, no board) and the ratio game / floor; the first compile of a
heuristic line-up, of `learned` and of a `rollout` line-up (fresh processes on empty caches,
``--compile``); the end-to-end time of a warm `smsim simulate --games 10000`;
games per second of the search policy (one `rollout` seat and three `balanced`) beside
`balanced` alone; and the peak memory of `smsim simulate --out` for two run sizes, of the largest run written as
one part, and of it without `--out`; and each command (simulate with and without --out, compare,
sweep) end to end beside the engine on the same games: their speed ratio, the serial fraction and
the speed-up it implies on 16 and 64 cores (Amdahl); and `simulate --out` beside the kernel on 1
and 2 threads, on `random` and `balanced` (``--write``).

    python scripts/bench.py --commands      # that table alone
    python scripts/bench.py --compile --compile-runs 5   # first compiles on an empty cache, alone
    python scripts/bench.py --write --runs 5 --write-games 100000   # simulate --out / kernel, alone
    python scripts/bench.py --bad-input --runs 3   # each bad-input case on an empty cache
    python scripts/bench.py --search --runs 5 --games 40   # the search's cost per game
    python scripts/bench.py --advise --seed 2026           # `smsim advise` at every decision of a game
    python scripts/bench.py --learned --runs 7             # a `learned` mirror beside a `balanced` one
    python scripts/bench.py --exact --runs 5 --games 4000  # the exact keep's cost: per turn and in mirrors

``--search`` times, on one thread, 4-player games of one search seat against three `balanced`:
the search as it was before budgets (`rollout-flat`: 96 continuations for each of the base
policy's 6 best USE candidates), the shipped `rollout` and `rollout-deep`, each on the same
games in every run, runs interleaved, beside a `balanced` mirror; printed: core-seconds per game
(median of the runs), continuations per game, and each one's ratio to `rollout-flat` in the same
runs.

    python scripts/bench.py --dask-deployed --games 100000   # a scheduler and 2 worker processes

``--compile`` (also part of the whole bench) times the first compile of three line-ups, each
`smsim simulate` in a fresh process on an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary
directory): a heuristic line-up (`balanced`, 1,000 games), `learned` (200 games) and a `rollout`
line-up (one `rollout` seat and three `balanced`, 2 games: the compile is what is measured), the
kinds interleaved, ``--compile-runs`` of each; printed: the whole process and the `smsim: compiled
in N s` it reports on standard error, medians and ranges.

``--write`` (also part of the whole bench) times `simulate --out` beside the kernel alone
(``run_games``, the same games) and `simulate` without `--out` (``simulate_summary``), through the
Python API the command calls, on 1 and 2 threads, on `random` (where writing weighs most) and
`balanced`, 4 players, ``--write-games`` games a run (default parts of 10,000 games), all
interleaved, medians of ``--runs``; beside them, the time to encode and write the same games'
parts on one thread and nothing else (what `--out` may cost over `simulate` when the writing has a
core to itself). Printed: the medians, simulate / kernel, `--out` / kernel (each run's range too)
and `--out` minus `simulate`; the target: `--out` / kernel at least 0.92 on 1 and 2 threads.

``--learned`` times mirrors of `learned` and of `balanced` on one thread, on the same games, runs
interleaved, at 2-5 players; printed: games per second of each (median of the runs) and the
ratio learned / balanced of each run's pair (median, and the range). The target: at least 1/8.

``--dask-deployed`` starts `dask scheduler` and two `dask worker --nworkers 1 --nthreads 1`
processes on 127.0.0.1 (as tests/runs/executors/test_dask_deployed.py does), warms them, and times `smsim
simulate --out` end to end against them (each part on one engine thread, so two processes use
the two cores; and with the workers' default, the cores of the machine per part) beside the same
command without `--cluster` on every core, interleaved; printed: the play time the command reports
and the whole process, as games per second.

``--bad-input`` runs every bad-input case of tests/cli/test_cli.py (``cold_cases``) as a user would,
``smsim ARGS`` in a fresh process on an empty numba cache, and prints the slowest, the median and
the exit statuses: bad input must be answered before anything is compiled.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from smsim.engine.dice import dice_floor_nb, seed_key
from smsim.rules import Rules
from smsim.runs.batch import run_games
from smsim.runs.spec import default_threads


def median_rate(fn, games: int, runs: int) -> float:
    rates = []
    for r in range(runs):
        start = time.perf_counter()
        fn(r)
        rates.append(games / (time.perf_counter() - start))
    return statistics.median(rates)


def floor(games: int, players: int, rounds: int, threads: int, seed: int) -> None:
    out = np.zeros(games, dtype=np.int64)
    bounds = [games * i // threads for i in range(threads + 1)]

    def run(lo: int, hi: int) -> None:
        dice_floor_nb(seed_key(seed), lo, hi - lo, players, rounds, out[lo:hi])

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, bounds[:-1], bounds[1:]))


def smsim_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "smsim.cli", *args]


def timed(cmd: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def peak_rss_mb(cmd: list[str]) -> float:
    """Peak resident memory of a child process (Linux ru_maxrss is in KiB)."""
    code = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code, *cmd], check=True, capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def _median_seconds(fn, runs: int) -> float:
    times = []
    for r in range(runs):
        start = time.perf_counter()
        fn(r)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def command_rates(games: int, runs: int, cores: int, only: list[str] | None = None) -> None:
    """Each command end to end (through its Python API, in this process) beside the engine alone
    (``run_games``) on the same games, on 1 thread and on every core, all measured in this run.

    Printed per command: the speeds and their ratio at 1 thread and at every core; the *overhead*,
    the work outside the kernel on one thread (e1 - k1) over the kernel's time k1; the *serial*
    fraction, the part of that work that does not run in parallel, over k1: with c = k1 / kn the
    speed-up the kernel itself gets from the cores here, Amdahl's law for the command,
    en = (e1 - s) / c + s, gives s = (c en - e1) / (c - 1); and the speed-up over its own 1-thread
    rate that the command gets on 16 and 64 cores if the kernel scales linearly:
    (1 + o) / ((1 + o - s) / N + s), o and s as fractions of k1."""
    from smsim.runs.batch import simulate_summary, simulate_to
    from smsim.studies.compare import arrangements, compare
    from smsim.studies.sweep import plan_variants, play_sweep

    lineup = ["balanced", "greedy", "walls", "random"]
    arrs = arrangements(lineup, 4)  # compare's games: every seat arrangement of each block's dice
    blocks = games // len(arrs)
    variants = plan_variants(["side_defence=1,3"])
    root = tempfile.mkdtemp(prefix="smsim-bench-")
    fresh = (os.path.join(root, str(k)) for k in itertools.count())  # a new dataset directory per run
    cases = {
        "simulate --out": (
            lambda r, t: simulate_to(next(fresh), games, 4, ["balanced"], r, Rules(), threads=t),
            lambda r, t: run_games(games, 4, ["balanced"], r, Rules(), threads=t),
            games,
        ),
        "simulate": (
            lambda r, t: simulate_summary(games, 4, ["balanced"], r, Rules(), threads=t),
            lambda r, t: run_games(games, 4, ["balanced"], r, Rules(), threads=t),
            games,
        ),
        "compare (4 built-ins)": (
            lambda r, t: compare(lineup, 4, games, r, Rules(), threads=t, keep_games=False),
            lambda r, t: [run_games(blocks, 4, [lineup[i] for i in a], r, Rules(), threads=t) for a in arrs],
            blocks * len(arrs),
        ),
        "sweep (3 variants)": (
            lambda r, t: play_sweep(variants, games, 4, ["balanced"], r, t),
            lambda r, t: [run_games(games, 4, ["balanced"], r, v.rules, threads=t) for v in variants],
            games * len(variants),
        ),
    }
    print(f"\ncommands end to end beside the engine on the same games, 4 players, median of {runs} runs:")
    print(
        f"{'command':>22} {'games':>8} {'1t e2e/s':>10} {'1t kernel':>10} {'ratio':>6} {f'{cores}t e2e/s':>10} "
        f"{f'{cores}t kernel':>10} {'ratio':>6} {'overhead':>8} {'serial':>7} {'16 cores':>8} {'64 cores':>8}"
    )
    try:
        for label, (command, kernel, n) in cases.items():
            if only and not any(o in label for o in only):
                continue
            command(0, 1)  # warm: compile and load everything once
            times: dict[str, list[float]] = {"e1": [], "k1": [], "en": [], "kn": []}
            for r in range(runs):  # interleaved, so that a change in the machine's load hits all four alike
                for key, fn, t in (
                    ("e1", command, 1),
                    ("k1", kernel, 1),
                    ("en", command, cores),
                    ("kn", kernel, cores),
                ):
                    start = time.perf_counter()
                    fn(r, t)
                    times[key].append(time.perf_counter() - start)
            e1, k1, en, kn = (statistics.median(times[key]) for key in ("e1", "k1", "en", "kn"))
            overhead = max(0.0, e1 - k1) / k1
            c = k1 / kn
            serial = max(0.0, (c * en - e1) / (c - 1) / k1) if c > 1.05 else float("nan")
            amdahl = [(1 + overhead) / ((1 + overhead - serial) / n_cores + serial) for n_cores in (16, 64)]
            print(
                f"{label:>22} {n:>8,} {n / e1:>10,.0f} {n / k1:>10,.0f} {k1 / e1:>6.2f} {n / en:>10,.0f} "
                f"{n / kn:>10,.0f} {kn / en:>6.2f} {100 * overhead:>7.1f}% {100 * serial:>6.1f}% {amdahl[0]:>7.1f}x "
                f"{amdahl[1]:>7.1f}x"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def dask_deployed(games: int, runs: int, cores: int) -> None:
    """``smsim simulate`` on a scheduler and two worker processes started here beside the same run
    without ``--cluster``, medians of ``runs`` interleaved runs (``--dask-deployed``)."""
    import json
    import re
    import signal

    from distributed import Client

    from smsim.warmup import warmup

    work = tempfile.mkdtemp(prefix="smsim-dask-")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), os.environ.get("PYTHONPATH")])
        ),
    }
    procs: list[subprocess.Popen] = []

    def start(*args: str) -> None:  # in its own process group, so that it goes with what it started
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "dask", *args],
                cwd=work,
                env=env,
                start_new_session=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )

    def command(out: str, *extra: str) -> tuple[float, float]:
        """(seconds the command reports for playing, seconds of the whole process)"""
        start_time = time.perf_counter()
        done = subprocess.run(
            smsim_cmd("simulate", "-n", str(games), "-p", "4", "--policy", "balanced", "-q", "--out", out, *extra),
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start_time
        played = re.search(r"played now in ([0-9.]+) s", done.stdout)
        return float(played.group(1)), wall

    try:
        start(
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            os.path.join(work, "scheduler.json"),
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                with open(os.path.join(work, "scheduler.json")) as fh:
                    address = json.load(fh)["address"]
                break
            except (OSError, ValueError, KeyError):
                if time.monotonic() > deadline:
                    raise SystemExit("the scheduler did not start within 60 s") from None
                time.sleep(0.1)
        for i in (1, 2):
            start(
                "worker",
                address,
                "--nworkers",
                "1",
                "--nthreads",
                "1",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
                "--local-directory",
                os.path.join(work, f"worker-{i}"),
            )
        warmup(["play"])
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            client.run(warmup, ["play"])  # each worker loads the engine once, as `smsim warmup` would have
        cases = {
            "here, every core": ["--threads", str(cores)],
            "2 workers x 1 thread": ["--cluster", address, "--threads", "1"],
            f"2 workers x {cores} threads": ["--cluster", address],
        }
        fresh = (os.path.join(work, f"run-{k}") for k in itertools.count())  # a new dataset per run: none resumes
        for extra in cases.values():  # once each: the workers' first part, files cached
            command(next(fresh), *extra)
        times: dict[str, list[tuple[float, float]]] = {label: [] for label in cases}
        for _ in range(runs):  # interleaved, so that a change in the machine's load hits all alike
            for label, extra in cases.items():
                times[label].append(command(next(fresh), *extra))
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"\nsmsim simulate -n {games:,} -p 4 --policy balanced --out DIR, median of {runs} runs, scheduler and "
        f"workers on 127.0.0.1:"
    )
    print(f"{'where':>24} {'play s':>7} {'games/s':>9} {'process s':>9} {'games/s':>9}   play times")
    for label, rows in times.items():
        play = statistics.median(t for t, _ in rows)
        wall = statistics.median(w for _, w in rows)
        print(
            f"{label:>24} {play:>7.2f} {games / play:>9,.0f} {wall:>9.2f} {games / wall:>9,.0f}   "
            f"{', '.join(f'{t:.2f}' for t, _ in rows)}"
        )


def bad_input_times(runs: int) -> None:
    """Each bad-input case of the test suite, ``smsim ARGS`` in a fresh process on an empty cache."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from tests.cli.test_cli import cold_cases

    work = tempfile.mkdtemp(prefix="smsim-bad-input-")
    try:
        cases = cold_cases(__import__("pathlib").Path(work))
        times, statuses = [], []
        for args, _ in cases:
            per_run = []
            for _ in range(runs):
                cache = tempfile.mkdtemp(prefix="smsim-cold-", dir=work)
                env = {**os.environ, "NUMBA_CACHE_DIR": cache}
                start = time.perf_counter()
                done = subprocess.run(smsim_cmd(*args), env=env, capture_output=True)
                per_run.append(time.perf_counter() - start)
                statuses.append(done.returncode)
            times.append((statistics.median(per_run), args))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    times.sort(reverse=True)
    print(
        f"bad input on an empty cache: {len(times)} cases, median of {runs} fresh processes each; exit statuses "
        f"{sorted(set(statuses))}"
    )
    print(f"  median case {statistics.median(t for t, _ in times):.2f} s, slowest {times[0][0]:.2f} s")
    for t, args in times[:5]:
        print(f"  {t:5.2f} s  smsim {' '.join(args)}")


def advise_times(seed: int, players: int = 4) -> None:
    """Wall time of `smsim advise --players P --seed S --decision D --json`, warm, a fresh
    process for every decision of game 0: what a user waits for."""
    from smsim.play.api import play_game

    decisions = play_game(players, seed, 0).records[-1]["decisions"]
    subprocess.run(
        smsim_cmd("advise", "--players", str(players), "--seed", str(seed), "--decision", "0", "--json"),
        check=True,
        capture_output=True,
    )  # warm the cache
    times = []
    for d in range(decisions):
        start = time.perf_counter()
        out = subprocess.run(
            smsim_cmd("advise", "--players", str(players), "--seed", str(seed), "--decision", str(d), "--json"),
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        wall = time.perf_counter() - start
        advice = json.loads(out)
        moves = sum(len(c["moves"]) for c in advice["candidates"])
        times.append((wall, d, advice["kind"], moves, len(advice["candidates"])))
    walls = sorted(t[0] for t in times)
    print(
        f"`smsim advise --players {players} --seed {seed} --decision D --json`, warm, every decision of game 0 "
        f"({decisions}): median {statistics.median(walls):.2f} s, 90th percentile {walls[int(0.9 * len(walls))]:.2f} s,"
        f" slowest {walls[-1]:.2f} s"
    )
    print(
        "the five slowest: "
        + "; ".join(
            f"decision {d} ({kind}, {moves} moves in {rows} rows) {w:.2f} s"
            for w, d, kind, moves, rows in sorted(times, reverse=True)[:5]
        )
    )
    largest = max(times, key=lambda t: t[3])
    print(
        f"the most moves: decision {largest[1]} ({largest[2]}, {largest[3]} moves in {largest[4]} rows) "
        f"{largest[0]:.2f} s"
    )


def search_cost(games: int, runs: int, extra: list[str] | None = None) -> None:
    from smsim.play.search import SEARCH_TOTALS
    from smsim.policies.registry import POLICIES, resolve_policy, rollout_spec
    from smsim.policies.rollout import FLAT_KNOBS

    flat = rollout_spec(FLAT_KNOBS, POLICIES["balanced"], name="rollout-flat")
    seats = {"rollout-flat": flat, "rollout": POLICIES["rollout"], "rollout-deep": POLICIES["rollout-deep"]}
    for ref in extra or []:
        seats[ref] = resolve_policy(ref)
    lineups = {name: [spec, "balanced", "balanced", "balanced"] for name, spec in seats.items()}
    for lineup in lineups.values():
        run_games(2, 4, lineup, 10**6, Rules(), threads=1)  # compile
    seconds: dict[str, list[float]] = {name: [] for name in lineups}
    continuations: dict[str, list[float]] = {name: [] for name in lineups}
    balanced = []
    for r in range(runs):
        for name, lineup in lineups.items():  # interleaved: the machine's load falls on each alike
            before = SEARCH_TOTALS[0]
            start = time.process_time()
            run_games(games, 4, lineup, 1000 + r, Rules(), threads=1)
            seconds[name].append((time.process_time() - start) / games)
            continuations[name].append((SEARCH_TOTALS[0] - before) / games)
        start = time.process_time()
        run_games(games * 100, 4, ["balanced"], 1000 + r, Rules(), threads=1)
        balanced.append((time.process_time() - start) / (games * 100))
    flat_s = [statistics.median(seconds["rollout-flat"])]
    print(
        f"search cost, 4 players, one search seat and three balanced, {games} games a run, median of {runs} runs, "
        f"1 thread (CPU time)"
    )
    width = max(14, *(len(name) for name in lineups))
    print(f"{'seat':>{width}} {'core-s/game':>12} {'continuations/game':>19} {'vs flat':>8} {'vs flat, each run':>30}")
    for name in lineups:
        ratios = [a / b for a, b in zip(seconds[name], seconds["rollout-flat"])]
        print(
            f"{name:>{width}} {statistics.median(seconds[name]):>12.4f} "
            f"{statistics.median(continuations[name]):>19,.0f} "
            f"{statistics.median(seconds[name]) / flat_s[0]:>8.3f} {' '.join(f'{x:.3f}' for x in ratios):>30}"
        )
    b = statistics.median(balanced)
    print(
        f"{'balanced x4':>{width}} {b:>12.6f} {'':>19} {b / flat_s[0]:>8.5f}   (the search seat costs "
        f"{statistics.median(seconds['rollout']) / b:,.0f} x a balanced game)"
    )


def mirror_speed(games: int, runs: int, players_list: list[int], policies: tuple[str, ...]) -> None:
    """Mirrors of each policy on 1 thread, the same games, runs interleaved: games per second
    (median of the runs) and each run's ratio to the first policy's (median and range)."""
    first = policies[0]
    print(
        f"mirrors on 1 thread beside {first}, {games:,} games a run, median of {runs} runs (interleaved); "
        f"games/s, then the ratio to {first} (median, range):"
    )
    print(f"{'players':>7} " + " ".join(f"{p:>24}" for p in policies))
    for players in players_list:
        for policy in policies:
            run_games(200, players, [policy], 1, Rules(), threads=1)  # compiled and warm
        rates: dict[str, list[float]] = {policy: [] for policy in policies}
        for r in range(runs):
            for policy in rates:
                start = time.perf_counter()
                run_games(games, players, [policy], r, Rules(), threads=1)
                rates[policy].append(games / (time.perf_counter() - start))
        cells = []
        for policy in policies:
            ratios = [a / b for a, b in zip(rates[policy], rates[first])]
            cells.append(
                f"{statistics.median(rates[policy]):>8,.0f} {statistics.median(ratios):.3f} "
                f"({min(ratios):.3f}-{max(ratios):.3f})"
            )
        print(f"{players:>7} " + " ".join(f"{c:>24}" for c in cells))


def learned_speed(games: int, runs: int, players_list: list[int]) -> None:
    print("learned beside balanced (the target: at least 1/8):")
    mirror_speed(games, runs, players_list, ("balanced", "learned"))


def exact_speed(games: int, runs: int, players_list: list[int]) -> None:
    """The exact keep's cost: its turn's dynamic programme alone (``exact_keep.fill_keep_tables_nb``
    on a real turn table, median of runs of 100,000 calls) and mirrors of balanced, balanced-exact,
    learned and learned-exact."""
    import numpy as np
    from numba import njit

    from smsim import layout as L
    from smsim.play.loop import MEMO_SIZE
    from smsim.policies import exact_keep as X
    from smsim.policies import heuristic_layout as HL
    from smsim.policies.features import fill_turn_table_nb
    from smsim.policies.registry import POLICIES

    @njit
    def repeat(n, params, occ, player, pirates, memo, rules, scratch):
        for _ in range(n):
            X.fill_keep_tables_nb(params, player, memo, 0, rules, scratch)

    params, rules = POLICIES["balanced"].params, Rules().to_nb()
    occ = np.zeros((4, L.N_CELL_CODES), dtype=np.uint64)
    occ[:, L.CELL_EMPTY] = L.SPACES_MASK  # an empty city, 4 coins and 4 of every counter
    player = np.full((4, L.N_PLAYER_FIELDS), 4, dtype=np.int64)
    player[:, L.N_EMPTY] = L.N_SPACES
    pirates = np.zeros(2, dtype=np.int64)
    memo, scratch = np.zeros(MEMO_SIZE), np.zeros(HL.USE_TABLE_SHAPE)
    fill_turn_table_nb(params, occ, player, pirates, memo, 0, rules)
    repeat(10, params, occ, player, pirates, memo, rules, scratch)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        repeat(100_000, params, occ, player, pirates, memo, rules, scratch)
        times.append((time.perf_counter() - start) / 100_000 * 1e6)
    print(
        f"exact keep: one turn's dynamic programme {statistics.median(times):.2f} us (median of {runs} runs of "
        f"100,000; range {min(times):.2f}-{max(times):.2f})"
    )
    mirror_speed(games, runs, players_list, ("balanced", "balanced-exact", "learned", "learned-exact"))


COMPILE_KINDS = {  # what a first run compiles: the kind of line-up -> `smsim simulate` arguments
    "heuristic (balanced)": ["-n", "1000", "-p", "4", "--policy", "balanced"],
    "learned": ["-n", "200", "-p", "4", "--policy", "learned"],
    "rollout + 3 balanced": ["-n", "2", "-p", "4", "--policy", "rollout,balanced,balanced,balanced"],
}


def compile_times(runs: int) -> None:
    """The first compile of each kind of line-up (``COMPILE_KINDS``): `smsim simulate` in a fresh
    process on an empty numba cache, the kinds interleaved, ``runs`` of each (``--compile``)."""
    import re

    walls: dict[str, list[float]] = {kind: [] for kind in COMPILE_KINDS}
    compiles: dict[str, list[float]] = {kind: [] for kind in COMPILE_KINDS}
    for _ in range(runs):
        for kind, args in COMPILE_KINDS.items():  # interleaved: the machine's load falls on each alike
            empty = tempfile.mkdtemp(prefix="smsim-cold-")
            try:
                start = time.perf_counter()
                done = subprocess.run(
                    smsim_cmd("simulate", *args, "-q"),
                    env={**os.environ, "NUMBA_CACHE_DIR": empty},
                    check=True,
                    capture_output=True,
                    text=True,
                )
                walls[kind].append(time.perf_counter() - start)
            finally:
                shutil.rmtree(empty, ignore_errors=True)
            said = re.search(r"smsim: compiled in ([0-9.]+) s", done.stderr)
            compiles[kind].append(float(said.group(1)) if said else float("nan"))
    print(
        f"\nfirst compile: `smsim simulate ARGS -q` in a fresh process on an empty cache, median of {runs} "
        f"(interleaved); 'compiled' is the line it prints (whole seconds):"
    )
    print(f"{'line-up':>22} {'process s':>10} {'range':>13} {'compiled s':>11}   smsim simulate ARGS")
    for kind, args in COMPILE_KINDS.items():
        print(
            f"{kind:>22} {statistics.median(walls[kind]):>10.1f} {min(walls[kind]):>6.1f}-{max(walls[kind]):<6.1f} "
            f"{statistics.median(compiles[kind]):>11.0f}   {' '.join(args)}"
        )
    print("(where the time goes: python scripts/compile_profile.py)")


def write_ratios(games: int, runs: int, policies: list[str], threads_list: list[int]) -> None:
    """``simulate --out`` (``simulate_to``) and ``simulate`` (``simulate_summary``) beside the kernel
    alone (``run_games``) on the same games, and the parts' encoding and writing alone, on each of
    ``threads_list``, for each policy in every seat, everything interleaved (``--write``)."""
    from smsim.runs.batch import simulate_summary, simulate_to
    from smsim.runs.dataset import PartWriter, arrow_table, game_columns, seat_arrow
    from smsim.runs.spec import default_batch, split_chunks
    from smsim.runs.storage import location

    players, seed = 4, 7
    root = tempfile.mkdtemp(prefix="smsim-bench-write-")
    fresh = (os.path.join(root, str(k)) for k in itertools.count())  # a new dataset directory per run
    batch = default_batch(games)

    part_games = min(games, batch)

    def write_alone(policy: str, arrays: list) -> float:
        """Seconds to turn the games into tables and write them as parts, on this thread alone:
        the first part's chunks, timed, scaled to the run's games."""
        writer = PartWriter(location(next(fresh)), 0)
        start = time.perf_counter()
        for (first, _), (score, player, game_out) in arrays:
            writer.write(
                seat_arrow(score, player, game_out, [policy] * players, Rules(), first),
                arrow_table(game_columns(game_out, players, Rules(), first)),
            )
        writer.close()
        return (time.perf_counter() - start) * games / part_games

    cases = {
        "kernel": lambda p, t: run_games(games, players, [p], seed, Rules(), threads=t),
        "simulate": lambda p, t: simulate_summary(games, players, [p], seed, Rules(), threads=t),
        "simulate --out": lambda p, t: simulate_to(next(fresh), games, players, [p], seed, Rules(), threads=t),
    }
    times: dict[tuple[str, int, str], list[float]] = {}
    try:
        chunk_arrays = {}
        for policy in policies:  # warm: everything compiled and loaded; the chunks' arrays to write alone
            simulate_to(next(fresh), 2000, players, [policy], seed, Rules(), threads=1)
            chunk_arrays[policy] = [
                ((first, n), run_games(n, players, [policy], seed, Rules(), first=first))
                for first, n in split_chunks(0, part_games)
            ]
        for _ in range(runs):  # interleaved, so that a change in the machine's load hits all alike
            for policy in policies:
                for threads in threads_list:
                    for label, fn in cases.items():
                        start = time.perf_counter()
                        fn(policy, threads)
                        times.setdefault((policy, threads, label), []).append(time.perf_counter() - start)
                times.setdefault((policy, 0, "write"), []).append(write_alone(policy, chunk_arrays[policy]))
                for stale in os.listdir(root):
                    shutil.rmtree(os.path.join(root, stale), ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"\n`simulate --out` beside the kernel on the same games ({games:,} games, {players} players, parts of "
        f"{batch:,}), median of {runs} interleaved runs; target: --out / kernel >= 0.92:"
    )
    print(
        f"{'policy':>9} {'threads':>7} {'kernel s':>9} {'simulate s':>10} {'--out s':>8} {'sim/kernel':>10} "
        f"{'out/kernel':>10} {'each run':>11} {'out - sim':>9} {'write alone':>11}"
    )
    for policy in policies:
        alone = statistics.median(times[(policy, 0, "write")])
        for threads in threads_list:
            k, sim, out = (times[(policy, threads, label)] for label in cases)
            km, sm, om = (statistics.median(x) for x in (k, sim, out))
            each = [a / b for a, b in zip(k, out)]
            print(
                f"{policy:>9} {threads:>7} {km:>9.2f} {sm:>10.2f} {om:>8.2f} {km / sm:>10.3f} {km / om:>10.3f} "
                f"{min(each):>5.2f}-{max(each):<5.2f} {om - sm:>+8.2f}s {alone:>10.2f}s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000, help="games per speed run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--policy", nargs="+", default=["balanced", "learned", "random"])
    parser.add_argument("--memory-games", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--memory-policy", default="random")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory runs")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="--games 4000 --runs 3 --memory-games 20000 200000 --compile-runs 1 --write-games 40000",
    )
    parser.add_argument("--commands", action="store_true", help="only the commands beside the engine")
    parser.add_argument("--compile", action="store_true", help="only the first compiles on an empty cache")
    parser.add_argument("--compile-runs", type=int, default=5, help="fresh processes per line-up for the compiles")
    parser.add_argument("--write", action="store_true", help="only `simulate --out` beside the kernel")
    parser.add_argument("--write-games", type=int, default=100_000, help="games per run of the --write table")
    parser.add_argument("--write-threads", type=int, nargs="+", default=[1, 2], help="threads of the --write table")
    parser.add_argument(
        "--write-policy", nargs="+", default=["random", "balanced"], help="policies of the --write table"
    )
    parser.add_argument("--command", action="append", help="with --commands: only the commands whose name holds this")
    parser.add_argument("--bad-input", action="store_true", help="only the bad-input cases on an empty cache")
    parser.add_argument("--search", action="store_true", help="only the search's cost per game (--games per run)")
    parser.add_argument("--search-policy", action="append", help="with --search: also this search policy (a TOML)")
    parser.add_argument("--learned", action="store_true", help="only a learned mirror beside a balanced one")
    parser.add_argument("--exact", action="store_true", help="only the exact keep's cost, per turn and in mirrors")
    parser.add_argument("--advise", action="store_true", help="only `smsim advise` at every decision of one game")
    parser.add_argument("--seed", type=int, default=2026, help="with --advise: the game's seed")
    parser.add_argument(
        "--dask-deployed",
        action="store_true",
        help="only `simulate --out` on a scheduler and two worker processes beside a run here",
    )
    args = parser.parse_args()
    if args.bad_input:
        bad_input_times(args.runs)
        return
    if args.search:
        search_cost(args.games, args.runs, args.search_policy)
        return
    if args.advise:
        advise_times(args.seed)
        return
    if args.learned:
        learned_speed(args.games, args.runs, args.players)
        return
    if args.exact:
        exact_speed(args.games, args.runs, args.players)
        return
    if args.dask_deployed:
        dask_deployed(args.games, args.runs, default_threads())
        return
    if args.quick:
        args.games, args.runs, args.memory_games = 4000, 3, [20_000, 200_000]
        args.compile_runs, args.write_games = 1, 40_000
    cores = default_threads()
    import numba

    print(f"smsim bench: {cores} cores, numba {numba.__version__}, median of {args.runs} runs of {args.games:,} games")
    if args.commands:
        command_rates(args.games, args.runs, cores, args.command)
        return
    if args.compile:
        compile_times(args.compile_runs)
        return
    if args.write:
        write_ratios(args.write_games, args.runs, args.write_policy, args.write_threads)
        return

    compile_times(args.compile_runs)  # first compiles: fresh processes, empty caches
    run_games(64, 2, ["random"], 0, Rules())  # warm this process
    warm = statistics.median(
        timed(smsim_cmd("simulate", "-n", "10000", "-p", "4", "--policy", "balanced", "-q")) for _ in range(3)
    )
    print(f"warm `smsim simulate --games 10000 --players 4 --policy balanced`, end to end: {warm:.2f} s\n")

    print(
        f"{'players':>7} {'policy':>9} {'rounds':>6} {'1 thread':>10} {f'{cores} threads':>10} {'scaling':>7} "
        f"{'floor 1t':>10} {'floor/game':>10}   games/s"
    )
    for players in args.players:
        for policy in args.policy:
            _, _, game_out = run_games(2000, players, [policy], 99, Rules())
            rounds = int(round(game_out[:, 0].mean()))  # noqa: RUF046 (numpy 1.x's round gives a float64)
            one = median_rate(
                lambda r: run_games(args.games, players, [policy], r, Rules(), threads=1),  # noqa: B023 (called at once)
                args.games,
                args.runs,
            )
            many = median_rate(
                lambda r: run_games(args.games, players, [policy], r, Rules(), threads=cores),  # noqa: B023 (called at once)
                args.games,
                args.runs,
            )
            floor(100, players, rounds, 1, 0)
            fl = median_rate(lambda r: floor(args.games, players, rounds, 1, r), args.games, args.runs)  # noqa: B023 (called at once)
            print(
                f"{players:>7} {policy:>9} {rounds:>6} {one:>10,.0f} {many:>10,.0f} {many / one:>6.2f}x "
                f"{fl:>10,.0f} {fl / one:>9.1f}x"
            )

    # the search policy: one rollout seat against three balanced, beside balanced alone
    rollout_games = max(4, args.games // 1000)
    run_games(2, 4, ["rollout", "balanced", "balanced", "balanced"], 99, Rules(), threads=1)  # compile
    lineups = {"balanced x4": ["balanced"], "rollout + 3 balanced": ["rollout", "balanced", "balanced", "balanced"]}
    print(f"\nsearch, 4 players, median of {args.runs} runs ({rollout_games} games for rollout):")
    print(f"{'line-up':>22} {'1 thread':>10} {f'{cores} threads':>10} {'scaling':>7} {'core-s/game':>11}")
    for label, lineup in lineups.items():
        n = rollout_games if "rollout" in label else args.games
        one = median_rate(lambda r: run_games(n, 4, lineup, r, Rules(), threads=1), n, args.runs)  # noqa: B023 (called at once)
        many = median_rate(lambda r: run_games(n, 4, lineup, r, Rules(), threads=cores), n, args.runs)  # noqa: B023 (called at once)
        print(f"{label:>22} {one:>10,.2f} {many:>10,.2f} {many / one:>6.2f}x {1 / one:>11.4f}")

    command_rates(args.games, args.runs, cores)
    write_ratios(args.write_games, args.runs, args.write_policy, args.write_threads)

    print(f"\npeak memory of `smsim simulate` ({args.memory_policy}, 4 players):")
    largest = max(args.memory_games)
    runs = [(f"--out, {n:,} games", n, ["--out"]) for n in args.memory_games]
    runs += [
        (f"--out --batch {largest:,} (one part), {largest:,} games", largest, ["--batch", str(largest), "--out"]),
        (f"without --out, {largest:,} games", largest, []),
    ]
    for label, n, extra in [] if args.no_memory else runs:
        out = tempfile.mkdtemp(prefix="smsim-mem-")
        try:
            start = time.perf_counter()
            cmd = smsim_cmd("simulate", "-n", str(n), "-p", "4", "--policy", args.memory_policy, "-q", *extra)
            if extra and extra[-1] == "--out":
                cmd.append(os.path.join(out, "d"))
            mb = peak_rss_mb(cmd)
            print(f"  {label}: {mb:,.0f} MB peak, {time.perf_counter() - start:,.0f} s")
        finally:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
