"""The balance report's studies, declared once: what ``smsim study --balance`` plays beside its
own arms, so that a study of any rules (the printed ones: ``make report``) writes the whole balance
report of those rules, with its changes from the printed rules on it.

Each ``Part`` is one ``smsim`` command line of a study the report reads (mirror datasets, the
heuristics compared, the skill matrix, rule-variant sweeps, the seat compensation, the keep regret,
the ladder of play, the search's mirrors) and the folder it writes under ``DIR/balance``. A part is
run as its own ``smsim`` process: its manifest records the command, so a reader can run any part
again by hand, and a part still playing when the time is up is ended without losing what it wrote
(every part resumes where it stopped, or is skipped once its result is there). The game counts
are the committed baseline's (``scale`` shrinks them for a rehearsal); the seeds are the study's
seed plus a fixed offset a part, so that ``--seed 2026`` plays the committed baseline's games.

The wall-bonus values and the skill gap at L2 among L1 are not parts: the study's own arms measure
them, played until their verdicts settle (``studies.study``), and the report reads them from there.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from smsim.errors import StudyError
from smsim.files import write_file
from smsim.policies.registry import POLICIES, PolicyKind
from smsim.rules import Rules
from smsim.runs.folder import kind_of
from smsim.studies.sweep import named_variants

LADDER = ("balanced", "learned", "rollout-learned")  # L1, L2, L3: studies.skill.LADDER
MIRROR_GAMES = 150_000
COMPARE_GAMES = 112_000
SEARCH_GAMES = {2: 5_000, 3: 2_000, 4: 5_000, 5: 2_000}  # L3 mirrors per player count
SEARCH_BATCH = 25  # small parts: an interrupted run of this slow sample loses little
SKILL_GAMES = 40_000
SKILL_LEVELS = ("random", "greedy", "balanced", "learned")
SKILL_SEARCH_PLAYERS = (2,)  # L3 in the matrix: one search seat a game, at 2 players only
SKILL_SEARCH_GAMES = 200
SKILL_SEARCH_ALONE = (4,)  # L3 against L2 alone (the full matrix would seat three L3 in 4 cells)
SKILL_SEARCH_ALONE_GAMES = 160  # a cell: 40 blocks of every seat rotation
FAIRNESS_GAMES = 40_000
FAIRNESS_CHECK_GAMES = 100_000
REGRET_PLAYERS = 4
REGRET_GAMES = 4_000  # a mirror a policy
REGRET_SEARCH_GAMES = 40  # one search seat against learned: 1 to 5 core-s a game
LADDER_RUNGS = (  # random, greedy with 80 to 15% of its decisions random (ladder.NOISY_RUNGS), greedy, the levels
    "random",
    "greedy-noise-80",
    "greedy-noise-60",
    "greedy-noise-45",
    "greedy-noise-30",
    "greedy-noise-15",
    "greedy",
    *LADDER,
)
LADDER_PLAYERS = (2, 4)
LADDER_GAMES = 4_000  # a cell
LADDER_SEARCH_GAMES = 1_000  # a cell with the search in it (--cap)
SWEEP_PLAYERS = 4
SWEEP_GAMES = 50_000
ADAPT_BUDGET = 96  # L1's weights tuned again on each variant: candidates, games a candidate
ADAPT_GAMES = 1000
SWEEP = (  # each field alone, on both sides of the printed value where it has two
    "side_defence=1,3",
    "soldier_defence=0,2",
    "rotation_cost=1,3",
    "cannon_penalty=3,7",
    "full_city_vp=0,10",
    "pirate_strengths=[1,3,6,8,9,10];[1,3,6,8,11,14]",
)
# each part's seed: the study's seed plus its offset (and the players), apart from every other
# part's, as the committed baseline's were (``--seed 2026`` plays its games)
OFFSETS = {
    "mirror": 0,
    "compare": 10,
    "search": 20,
    "sweep": 30,
    "fairness": 40,
    "learned": 60,
    "skill": 70,
    "skill-search": 80,
    "regret": 94,
    "regret-search": 99,
    "ladder": 100,
}


@dataclass(frozen=True)
class Part:
    """One study of the balance report: ``name`` (its folder under ``DIR/balance``), the ``smsim``
    command that plays it (``args``, without ``--out``), ``done`` (a file whose presence says the part
    needs nothing more: it does not resume, so it is played once) and ``timed`` (ended when the time
    is up: the search's slow samples, which the report reads as far as they got)."""

    name: str
    args: tuple[str, ...]
    done: str = ""
    timed: bool = False


def _heuristics() -> list[str]:
    """The heuristics compared: every built-in heuristic and ``random`` (the learned policy and
    the searches are levels of the ladder, measured by their mirrors and the skill matrix)."""
    return [name for name, spec in POLICIES.items() if spec.kind in (PolicyKind.HEURISTIC, PolicyKind.RANDOM)]


def balance_parts(
    players: tuple[int, ...], seed: int, rules_file: str = "", scale: float = 1.0, printed: bool = True
) -> list[Part]:
    """The parts of a balance report at ``players``, in the order they are played (the search's
    slow samples last): under the rules of ``rules_file`` (none: the printed rules), the counts of
    the committed baseline times ``scale``. ``printed``: the rules are the printed ones, so the shipped
    variants are swept too (under other rules, the one-at-a-time sweep around them stands alone)."""

    def n(games: int) -> str:
        return str(max(1, int(games * scale)))

    rules = ("--rules", rules_file) if rules_file else ()
    quiet = ("--quiet",)
    vary = tuple(a for v in SWEEP for a in ("--vary", v))
    adapt = ("--adapt", "--adapt-budget", str(ADAPT_BUDGET), "--adapt-games", str(ADAPT_GAMES))
    parts: list[Part] = []
    for p in players:
        for name, level, offset in (
            ("mirror", LADDER[0], OFFSETS["mirror"]),
            ("learned", LADDER[1], OFFSETS["learned"]),
        ):
            parts.append(
                Part(
                    f"{name}-{p}p",
                    ("simulate", "--games", n(MIRROR_GAMES), "--players", str(p), "--policy", level)
                    + ("--seed", str(seed + offset + p), *rules, *quiet),
                )
            )
    for p in players:
        parts.append(
            Part(
                f"compare-{p}p",
                ("compare", *_heuristics(), "--players", str(p), "--games", n(COMPARE_GAMES))
                + ("--seed", str(seed + OFFSETS["compare"] + p), *rules),
                done="manifest.json",
            )
        )
    if SWEEP_PLAYERS in players:
        sweeps = [("variants", vary + ("--one-at-a-time",))]
        if printed:
            sweeps.append(("shipped", tuple(a for v in named_variants() for a in ("--variant", v))))
        for name, what in sweeps:
            for level, suffix in ((LADDER[0], ""), (LADDER[1], "-learned")):
                parts.append(
                    Part(
                        f"{name}-{SWEEP_PLAYERS}p{suffix}",
                        ("sweep", *what, "--players", str(SWEEP_PLAYERS), "--policy", level, "--games", n(SWEEP_GAMES))
                        + ("--seed", str(seed + OFFSETS["sweep"] + SWEEP_PLAYERS))
                        + (adapt if level == LADDER[0] else ())
                        + (*rules, *quiet),
                    )
                )
    for p in players:
        levels = [*SKILL_LEVELS, *(LADDER[2:] if p in SKILL_SEARCH_PLAYERS else ())]
        extra: tuple[str, ...] = ()
        if p in SKILL_SEARCH_PLAYERS:
            extra += ("--cap", f"{LADDER[2]}={n(SKILL_SEARCH_GAMES)}")
        if p == SWEEP_PLAYERS:  # the skill gap under each variant of the sweep (and each shipped one)
            extra += vary
            if printed:
                extra += tuple(a for v in named_variants() for a in ("--variant", v))
        parts.append(
            Part(
                f"skill-{p}p",
                ("skill", "--players", str(p), "--levels", ",".join(levels), "--games", n(SKILL_GAMES))
                + ("--seed", str(seed + OFFSETS["skill"] + p), *extra, *rules, *quiet),
            )
        )
    for p in (q for q in SKILL_SEARCH_ALONE if q in players):  # L3 against L2 head to head
        parts.append(
            Part(
                f"skill-{p}p-search",
                ("skill", "--players", str(p), "--levels", ",".join(LADDER[1:]), "--games", n(SKILL_SEARCH_ALONE_GAMES))
                + ("--seed", str(seed + OFFSETS["skill-search"] + p), *rules, *quiet),
            )
        )
    for p in players:
        for by in ("coins", "vp"):
            parts.append(
                Part(
                    f"fairness-{p}p-{by}",
                    ("fairness", "--players", str(p), "--policy", LADDER[0], "--by", by, "--games", n(FAIRNESS_GAMES))
                    + ("--check-games", n(FAIRNESS_CHECK_GAMES), "--seed", str(seed + OFFSETS["fairness"] + p))
                    + (*rules, *quiet),
                    done="fairness.json",
                )
            )
    if REGRET_PLAYERS in players:
        parts.append(
            Part(
                f"regret-{REGRET_PLAYERS}p",
                ("regret", *_heuristics(), LADDER[1], "learned-exact", "--players", str(REGRET_PLAYERS))
                + ("--games", n(REGRET_GAMES), "--seed", str(seed + OFFSETS["regret"]))
                + (*rules, *quiet),
            )
        )
        parts.append(
            Part(
                f"regret-{REGRET_PLAYERS}p-search",
                ("regret", LADDER[2], "--against", LADDER[1], "--players", str(REGRET_PLAYERS))
                + ("--games", n(REGRET_SEARCH_GAMES), "--seed", str(seed + OFFSETS["regret-search"]))
                + (*rules, *quiet),
            )
        )
    ladder_players = [p for p in LADDER_PLAYERS if p in players]
    if ladder_players:
        parts.append(
            Part(
                "ladder",
                ("ladder", "--rungs", ",".join(LADDER_RUNGS), "--players", ",".join(map(str, ladder_players)))
                + ("--games", n(LADDER_GAMES), "--cap", f"{LADDER[2]}={n(LADDER_SEARCH_GAMES)}")
                + ("--seed", str(seed + OFFSETS["ladder"]), *rules, *quiet),
                timed=True,
            )
        )
    for p in players:  # L3 last: the slowest, and the report reads what is done
        parts.append(
            Part(
                f"search-{p}p",
                ("simulate", "--games", n(SEARCH_GAMES[p]), "--players", str(p), "--policy", LADDER[2])
                + ("--seed", str(seed + OFFSETS["search"] + p), "--batch", str(SEARCH_BATCH), *rules, *quiet),
                timed=True,
            )
        )
    return parts


BALANCE_DIR = "balance"  # the parts' folders, under the study's folder
TIMINGS = "timings.tsv"  # each part's wall time, appended: UTC time, seconds, command


def play_balance(
    parts: list[Part],
    folder: str | Path,
    deadline: float | None = None,
    threads: int | None = None,
    on_step: Callable[[str], None] | None = None,
) -> list[str]:
    """Play ``parts`` into ``folder`` in order, each as its own ``smsim`` process, each skipped
    where its result is already there; with ``deadline`` (``time.monotonic()``), no part begins once
    it has passed and a timed part still playing then is ended (what it wrote stays: a rerun goes
    on). Returns the folders the report reads: the parts that hold a result, whole or so far."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    say = on_step or (lambda words: None)
    for part in parts:
        if part.done and (folder / part.name / part.done).is_file():
            continue
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            say(f"out of time before {part.name}: the report stands on the parts done")
            break
        args = [*part.args, "--out", str(folder / part.name)]
        if threads is not None:
            args += ["--threads", str(threads)]
        say(f"{part.name}: smsim {shlex.join(part.args)}")
        start = time.perf_counter()
        try:
            subprocess.run(
                [sys.executable, "-m", "smsim.cli", *args],
                check=True,
                stdout=subprocess.DEVNULL,
                timeout=left if part.timed else None,
            )
        except subprocess.TimeoutExpired:
            say(f"{part.name}: stopped at the time limit; what it wrote stays")
        except subprocess.CalledProcessError as exc:
            raise StudyError(f"{part.name}: smsim {shlex.join(args)} failed (exit status {exc.returncode})") from None
        seconds = time.perf_counter() - start
        with (folder / TIMINGS).open("a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\t{seconds:.1f}\tsmsim {shlex.join(args)}\n")
    return held(parts, folder)


def held(parts: list[Part], folder: str | Path) -> list[str]:
    """The folders of ``parts`` under ``folder`` that hold a result, whole or so far: what the
    report reads (a part not begun is left out)."""
    return [str(Path(folder) / p.name) for p in parts if kind_of(Path(folder) / p.name) is not None]


def rules_file_of(rules: Rules, folder: Path) -> str:
    """The rules written where the parts read them (``--rules``); the printed rules: none."""
    if rules == Rules():
        return ""
    path = folder / "rules.toml"
    write_file(path, rules.to_toml("# the study's rules, read by its balance parts (--rules)"))
    return str(path)
