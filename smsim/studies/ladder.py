"""The ladder of play shown ordered, and Saint Malo's depth (``smsim ladder``).

A *rung* is a policy; the ladder lists them weakest first (``random greedy balanced learned
rollout-learned``). Each *step* (a rung over the one below it) is measured at each player count
two ways, on common dice:

- **head to head**: one seat of the upper rung, the lower rung in every other seat, every cyclic
  rotation of that line-up on each block's dice, exactly as ``smsim compare UPPER LOWER LOWER ...``
  plays it (``compare.play_round``). The figure is the upper seat's win share (a shared win split)
  minus parity (1 / players), and its mean VP minus the lower seats' mean VP, each with the normal
  95% interval over independent blocks.
- **against a fixed field** (``FIELD``: so that a step is not only self-play): the measured seat
  against heuristics of several styles. A block is one deal of the dice played by every window of
  ``players - 1`` consecutive field members (cyclically) as the other seats, each in every cyclic
  rotation of the seats: ``len(field) x players`` games, every field member as often in every
  seat. Each rung plays the same blocks (the same seed, the same arrangements), so a step's figure
  is the *paired* difference, block by block, of the measured seat's win share with the upper
  rung in it minus with the lower rung in it, with the normal interval over blocks.

A step's *verdict* reads the head-to-head interval against parity and the margin that matters
(``intervals.MARGINS["share"]``, 1 point): ``ordered`` (its low end at least the margin above
parity), ``ordered, small`` (above parity, by less than the margin), ``level`` (the interval
inside parity +- margin: a difference of style, not of strength), ``not settled`` or
``reversed``; ``clear_by`` says by how much the low end clears parity. The field's difference is
judged the same way against 0.

**Depth** (``depth_table``): the number of 60%-steps from the lowest rung to the top, read from the
2-player head-to-heads: the sum over the chain of logit(p_i) / logit(0.6), p_i the upper rung's
win share. Its interval is the delta method on each step's logit (se of logit p = se of p / (p (1 -
p))), the steps taken as independent and their variances added. They are not strictly independent
(every cell plays blocks 0, 1, ... of one seed, so the steps share their dice); that is said, not
corrected. A step whose interval reaches a win share of 1 (``random`` against ``greedy`` wins
nothing: 0 of 400 games) has no finite logit: it counts only by a lower bound, the logit of the
Wilson lower end of its share (n = its blocks, the independent units), and the depth is then a
lower bound (``bound`` = "at least"), which more games of that step raise. Rungs between two such
rungs (a weights file, say) measure the gap instead of bounding it.

The **check rung** (``check_rung``): the top rung's search at ``k`` times its budget (the knobs
``budget`` and ``place_budget`` scaled, every other knob as it is), added above the top rung: its
step over the top is how much one more step of strength still gains. It is left out of the depth.

On disk a ladder is a directory (``runs.folder`` kind ``ladder``): ``ladder.json`` (the plan,
written first), and per cell a folder of chunks under ``cells/``, each a Parquet file of a run of
blocks (its blocks' figures and what they cost), written whole. A rerun of the same plan plays
only the blocks no chunk holds, chunk by chunk across the cells (the first chunk of every cell
before any cell's second), so a run cut off (Ctrl-C, or ``hours`` spent) loses at most the chunks
in play, and a block's figures depend on (seed, block) alone: a resumed study's tables are those of
one uninterrupted run. ``steps.csv`` and ``depth.csv`` are written when a run ends.

>>> plan = plan_ladder(["random", "greedy", "balanced"], players=[2], games=48, seed=1)
>>> [(c.kind, c.players, c.rung, c.lower) for c in plan.cells()]  # doctest: +NORMALIZE_WHITESPACE
[('head-to-head', 2, 'greedy', 'random'), ('head-to-head', 2, 'balanced', 'greedy'),
 ('field', 2, 'random', None), ('field', 2, 'greedy', None), ('field', 2, 'balanced', None)]
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from smsim.checks import positive, whole
from smsim.checks import threads as checks_threads
from smsim.errors import DatasetError, LadderError
from smsim.files import write_file, writing
from smsim.intervals import MARGINS, MOVES, SAME, Z_95, margin_verdict, mean_and_interval, wilson_interval
from smsim.layout import PolicyKind
from smsim.play.api import verify_players
from smsim.policies.registry import PolicySpec, any_search, resolve_policy, rollout_spec, ship_policy
from smsim.policies.rollout import MAX_BUDGET
from smsim.rules import Rules
from smsim.runs.dataset import policy_identity
from smsim.runs.executors import Failed, Task, open_executor, threads_here
from smsim.runs.folder import check_out, read_manifest, write_manifest
from smsim.runs.spec import MAX_GAMES, default_threads, verify_games
from smsim.studies.compare import RoundGames, play_round_task

NOISY_RUNGS = ("greedy-noise-80", "greedy-noise-60", "greedy-noise-45", "greedy-noise-30", "greedy-noise-15")
"""Between ``random`` and ``greedy``, which ``random`` never beats: ``greedy`` with that share of its
decisions random, chosen by measurement so that each 2-player step is 80 to 90% (docs/ladder.md,
"Depth"), so that the depth from ``random`` is a figure, not a bound."""
DEFAULT_RUNGS = ("random", *NOISY_RUNGS, "greedy", "balanced", "learned")
"""The ladder ``smsim ladder`` plays unless told otherwise. The search rungs (``rollout-learned``
and above) cost 3 to 5 core-seconds a game, so, as in ``smsim skill``, they are asked for by name,
with a cap on their games (``--cap rollout-learned=1000``)."""

DEFAULT_PLAYERS = (2, 4)

FIELD = ("churches", "walls", "merchant", "builder", "jugglers", "balanced")
"""The fixed mixed field: the five archetypes of the hand-tuned family (church series, walls,
merchants, logs and houses, jugglers) and the tuned all-rounder, six styles a rung must beat to
be better than only its own kind. ``greedy`` and ``random`` are left out: every rung from
``balanced`` up beats them at least 88% of the time at 2 players (balanced over greedy: 87.8%
[86.8, 88.8], 4,000 games, seed 373738), and a field it nearly always beats hides the steps near
the top, which are the ones in question. The field is the same whatever the rungs."""

CHUNK_GAMES = 240
"""Games a chunk of a cell holds, about (whole blocks): what a cut-off run may lose per cell in play
(of a search rung at 4 core-seconds a game, 16 core-minutes)."""

HEAD, FIELD_CELL = "head-to-head", "field"
"""The two kinds of cell: a step head to head, and one rung against the field."""

SIXTY = math.log(0.6 / 0.4)
"""logit(0.6): one 60%-step, the unit of depth."""

ORDERED, SMALL, UNSIZED, LEVEL, NOT_SETTLED, REVERSED, NO_DATA = (
    "ordered",
    "ordered, small",
    "ordered, size not settled",
    "level",
    "not settled",
    "reversed",
    "no data",
)
"""A step's verdicts (``step_verdict``)."""

ESTIMATE, AT_LEAST, AT_MOST, UNBOUNDED = "estimate", "at least", "at most", "unbounded"
"""What a depth figure is (``step_depth``): a two-sided estimate, or a bound on one side only."""

BLOCK_COLUMNS = ["block", "share", "vp", "others_vp", "core_seconds"]
"""A chunk's table: per block, the measured seat's win share, its mean VP, the other seats' mean VP,
and the core-seconds the block took (a share of its chunk's wall time x threads)."""


# -- the plan -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    """One measured policy (``rung``) in one seat, at ``players`` players, over ``games`` games: head
    to head against ``lower`` in every other seat, or (``lower`` None) against the field."""

    kind: str
    players: int
    rung: str
    lower: str | None
    games: int
    per_block: int  # games of one block: every seat arrangement on one deal of the dice

    @property
    def blocks(self) -> int:
        return max(1, self.games // self.per_block)  # as compare rounds games to whole blocks

    def folder(self) -> str:
        what = f"{self.rung}-over-{self.lower}" if self.kind == HEAD else f"{self.rung}-field"
        return f"{self.players}p-{what}"


@dataclass(frozen=True)
class LadderPlan:
    """What a ladder plays: the ``rungs`` (policy names or files, weakest first; with ``check``, the
    top rung's search at ``check`` times its budget above them), at each of ``players``, ``games``
    games a cell (at most ``caps[name]`` in a cell with that rung), against ``field``, from ``seed``."""

    rungs: tuple[str, ...]
    players: tuple[int, ...]
    games: int
    seed: int
    caps: dict[str, int] = dataclasses.field(default_factory=dict)
    field: tuple[str, ...] = FIELD
    check: int = 0  # 0: no check rung
    rules: Rules = dataclasses.field(default_factory=Rules)
    check_field: bool = True  # False: the check rung is measured head to head only (its field cell not played)

    def specs(self) -> list[PolicySpec]:
        """The rungs' policies, weakest first, the check rung last."""
        specs = [resolve_policy(r) for r in self.rungs]
        return specs + [check_rung(specs[-1], self.check)] if self.check else specs

    def names(self) -> list[str]:
        return [s.name for s in self.specs()]

    def steps(self) -> list[tuple[str, str]]:
        names = self.names()
        return list(pairwise(names))

    def cell_games(self, *names: str) -> int:
        return min([self.games, *(self.caps[x] for x in names if x in self.caps)])

    def cells(self) -> list[Cell]:
        """Per player count, each step head to head, then each rung against the field."""
        out = []
        for p in self.players:
            out += [Cell(HEAD, p, upper, lower, self.cell_games(upper, lower), p) for lower, upper in self.steps()]
            out += [
                Cell(FIELD_CELL, p, name, None, self.cell_games(name), p * len(self.field))
                for name in (self.names()[: None if self.check_field or not self.check else -1] if self.field else ())
            ]
        return out

    def identity(self) -> dict:
        """What makes two runs the same ladder: a directory of another identity is refused."""
        specs = {s.name: s for s in [*self.specs(), *(resolve_policy(f) for f in self.field)]}
        return {
            "rungs": list(self.rungs),
            "players": list(self.players),
            "games": self.games,
            "seed": self.seed,
            "caps": dict(sorted(self.caps.items())),
            "field": list(self.field),
            "check": self.check,
            "policies": {name: policy_identity(spec) for name, spec in sorted(specs.items())},
            "rules": self.rules.to_dict(),
            **({} if self.check_field else {"check_field": False}),
        }


def check_rung(spec: PolicySpec | str, factor: int) -> PolicySpec:
    """The search policy ``spec`` at ``factor`` times its budget: its ``budget`` and
    ``place_budget`` scaled, every other knob (candidates, floor, stopping rule) as it is, named
    ``NAME-xFACTOR``. A policy that is no search, or a budget past the search's most, is refused.

    >>> check_rung("rollout-learned", 4).weights()["budget"], check_rung("rollout-learned", 4).name
    (1152.0, 'rollout-learned-x4')
    """
    spec = resolve_policy(spec)
    factor = whole(factor, "the check rung's factor", low=2, error=LadderError)
    if spec.kind != PolicyKind.ROLLOUT:
        raise LadderError(
            f"the check rung is a search at {factor} times its budget, but the top rung {spec.name!r} "
            "is no search (a rollout policy)"
        )
    knobs = spec.weights()
    for knob in ("budget", "place_budget"):
        knobs[knob] *= factor
        if knobs[knob] > MAX_BUDGET:
            raise LadderError(
                f"the check rung's {knob} would be {knobs[knob]:g}, past the search's most ({MAX_BUDGET})"
            )
    return rollout_spec(
        knobs, spec.base, name=f"{spec.name}-x{factor}", source=spec.source, candidate_policy=spec.chooser
    )


def _names(values) -> tuple[str, ...]:
    if isinstance(values, str):
        values = [values]
    return tuple(v.strip() for v in values if isinstance(v, str) and v.strip()) if values is not None else ()


def plan_ladder(
    rungs: list[str] = DEFAULT_RUNGS,
    players: list[int] = DEFAULT_PLAYERS,
    games: int = 2000,
    seed: int = 0,
    caps: dict[str, int] | None = None,
    field: list[str] = FIELD,
    check: int = 0,
    rules: Rules | None = None,
    check_field: bool = True,
) -> LadderPlan:
    """A ladder's plan, checked before anything is played: ``LadderError`` (or ``PolicyError``,
    ``SimulationError``) names what is wrong, in one line. An empty ``field`` measures every step
    head to head only (its field figures read ``no data``): what choosing a top rung needs."""
    rungs, field = _names(rungs), _names(field)
    if len(rungs) < 2 and not (len(rungs) == 1 and check):
        raise LadderError(f"a ladder needs at least 2 rungs, got {', '.join(rungs) or 'none'}")
    for r in rungs:
        resolve_policy(r)  # an unknown one: PolicyError, one line
    for f in field:  # none: every step head to head only (choosing a top rung needs no more)
        if resolve_policy(f).kind == PolicyKind.ROLLOUT:  # the field is cheap and fixed: heuristics
            raise LadderError(f"the field is of heuristics; {f!r} is a search")
    players = tuple(sorted({verify_players(p) for p in (players if isinstance(players, (list, tuple)) else [players])}))
    if not players:
        raise LadderError("give at least one player count")
    games = verify_games(games)
    check = 0 if check is None else whole(check, "check", low=0, error=LadderError)
    if check == 1:
        raise LadderError("check must be 0 (none) or a factor of at least 2")
    if not check_field and not check:
        raise LadderError("the check rung's field is left out only where there is a check rung (give check)")
    plan = LadderPlan(rungs, players, games, whole(seed, "seed", error=LadderError), {}, field, check, rules or Rules())
    names = plan.names()  # the check rung's refusal (no search at the top), one line
    if len(set(names)) != len(names):
        raise LadderError(f"a rung is named twice: {', '.join(names)}")
    checked = {}
    as_given = dict(zip(rungs, names))  # a rung given as a file is capped by its path or by its name
    for name, cap in (caps or {}).items():
        if as_given.get(name, name) not in names:
            raise LadderError(f"--cap {name}: not a rung of this ladder ({', '.join(names)})")
        checked[as_given.get(name, name)] = whole(cap, f"--cap {name}", low=1, high=MAX_GAMES, error=LadderError)
    return LadderPlan(rungs, players, games, plan.seed, checked, field, check, plan.rules, bool(check_field))


# -- playing ------------------------------------------------------------------------------------
def arrangements_of(cell: Cell, field_size: int) -> list[list[int]]:
    """The seat arrangements of one block of ``cell``, as indices into its policies (0: the measured
    rung; head to head 1: the lower rung; against the field 1 + i: the field's i-th policy).

    >>> arrangements_of(Cell(HEAD, 3, "b", "a", 30, 3), 6)
    [[0, 1, 1], [1, 1, 0], [1, 0, 1]]
    >>> arrangements_of(Cell(FIELD_CELL, 2, "b", None, 30, 6), 3)
    [[0, 1], [1, 0], [0, 2], [2, 0], [0, 3], [3, 0]]
    """
    if cell.kind == HEAD:
        lineups = [[0] + [1] * (cell.players - 1)]  # compare's line-up of a policy named in several seats
    else:
        lineups = [[0] + [1 + (w + j) % field_size for j in range(cell.players - 1)] for w in range(field_size)]
    return [lineup[r:] + lineup[:r] for lineup in lineups for r in range(cell.players)]


def block_figures(games: RoundGames, arrs: list[list[int]]) -> pd.DataFrame:
    """Per block of ``games``: the measured policy's (index 0, one seat in each arrangement) win
    share (its credit, a win shared by k counting 1/k, averaged over the arrangements), its mean VP,
    and the mean VP of every other seat; as ``compare`` computes a policy's block figures."""
    won = games.won.astype(np.float64)  # [blocks, arrangements, seats]
    winners = won.sum(axis=2, keepdims=True)
    credit = np.where(winners > 0, won / np.maximum(winners, 1), 0.0)
    measured = np.array([a.index(0) for a in arrs])
    at = np.arange(len(arrs))
    total = games.total.astype(np.float64)
    others = np.ones(total.shape[1:], dtype=bool)
    others[at, measured] = False
    return pd.DataFrame(
        {
            "block": np.arange(games.first, games.first + games.blocks, dtype=np.int64),
            "share": credit[:, at, measured].mean(axis=1),
            "vp": total[:, at, measured].mean(axis=1),
            "others_vp": total[:, others].mean(axis=1),
        }
    )


def play_chunk_task(
    first: int,
    n: int,
    arrs: list[list[int]],
    policies: list,
    names: list[str],
    players: int,
    seed: int,
    rules: dict,
    threads: int | None,
) -> pd.DataFrame | Failed:
    """Blocks first .. first + n - 1 of a cell as an executor's task: their figures
    (``BLOCK_COLUMNS``), each block charged its share of the chunk's wall time x threads."""
    threads = threads or threads_here() or default_threads()
    start = time.perf_counter()
    games = play_round_task(first, n, arrs, policies, names, players, seed, rules, threads, False)
    if isinstance(games, Failed):
        return games
    out = block_figures(games, arrs)
    out["core_seconds"] = (time.perf_counter() - start) * threads / n
    return out


def missing_chunks(done: np.ndarray, blocks: int, per_chunk: int) -> list[tuple[int, int]]:
    """The (first, blocks) chunks of blocks 0 .. blocks - 1 that no chunk in ``done`` holds, each
    at most ``per_chunk`` long and never across a block already played.

    >>> missing_chunks(np.array([2, 3, 7]), 10, 3)
    [(0, 2), (4, 3), (8, 2)]
    """
    have = np.zeros(blocks, dtype=bool)
    have[done[(done >= 0) & (done < blocks)]] = True
    out, b = [], 0
    while b < blocks:
        if have[b]:
            b += 1
            continue
        end = b
        while end < blocks and not have[end] and end - b < per_chunk:
            end += 1
        out.append((b, end - b))
        b = end
    return out


def _chunk_file(folder: Path, first: int, n: int) -> Path:
    return folder / f"blocks-{first:09d}-{first + n - 1:09d}.parquet"


def read_blocks(folder: Path) -> pd.DataFrame:
    """Every chunk of one cell's folder, by block (a damaged chunk: ``DatasetError``)."""
    frames = []
    for f in sorted(folder.glob("blocks-*.parquet")) if folder.is_dir() else []:
        try:
            frames.append(pq.read_table(f).to_pandas())
        except Exception as exc:  # pyarrow raises several kinds for a damaged file
            raise DatasetError(f"{str(f)!r} cannot be read ({exc})") from None
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=np.int64 if c == "block" else np.float64) for c in BLOCK_COLUMNS})
    out = pd.concat(frames, ignore_index=True).drop_duplicates("block").sort_values("block", ignore_index=True)
    return out[BLOCK_COLUMNS]


@dataclass(frozen=True)
class Progress:
    """A chunk played and written: the cell, its blocks, the games played of the whole plan so far."""

    cell: Cell
    first: int
    blocks: int
    done: int  # games of the plan played, this chunk's included
    total: int  # games of the plan
    seconds: float  # core-seconds this chunk took


def chunk_order(todo: list[list], slow: list[bool]) -> list:
    """The order chunks are played in: the cells not ``slow`` (no search in them) first, so that a
    run cut off by ``hours`` has them whole (a search's chunk alone takes minutes); within each
    group breadth first, every cell's first missing chunk, then every cell's second, ..."""
    return [
        chunks[k]
        for group in (False, True)
        for k in range(max(map(len, todo), default=0))
        for chunks, s in zip(todo, slow)
        if s == group and k < len(chunks)
    ]


def run_ladder(
    plan: LadderPlan,
    out: str | Path,
    threads: int | None = None,
    command: list[str] = (),
    hours: float | None = None,
    chunk_games: int = CHUNK_GAMES,
    on_chunk: Callable[[Progress], None] | None = None,
) -> LadderResult:
    """Play the ladder's missing blocks into ``out``, chunk by chunk across the cells, and write its
    tables; returns the result (of the blocks played so far). With ``hours``, no chunk is started
    once that much time has passed (the chunks in play are dropped; a rerun plays them).
    ``chunk_games`` (about this many games a chunk) changes where a cut-off run stops, never a
    figure. ``on_chunk(progress)`` is called after each chunk is written."""
    threads = checks_threads(threads, error=LadderError)
    if hours is not None:
        hours = positive(hours, "hours", error=LadderError)
    deadline = None if hours is None else time.monotonic() + hours * 3600  # the budget counts from the call
    chunk_games = whole(chunk_games, "chunk_games", low=1, error=LadderError)
    path = Path(out)
    if not check_out(out, "ladder", plan.identity()):
        write_manifest(path, "ladder", {"plan": plan.identity(), "command": list(command)})
    specs = {s.name: s for s in [*plan.specs(), *(resolve_policy(f) for f in plan.field)]}
    shipped = {name: ship_policy(s) for name, s in specs.items()}
    cells = plan.cells()
    todo: list[list[tuple[Cell, int, int]]] = []  # per cell, its missing chunks in order
    total = done = 0
    for cell in cells:
        folder = path / "cells" / cell.folder()
        have = read_blocks(folder)["block"].to_numpy()
        per_chunk = max(1, chunk_games // cell.per_block)
        todo.append([(cell, first, n) for first, n in missing_chunks(have, cell.blocks, per_chunk)])
        total += cell.blocks * cell.per_block
        done += int(((have >= 0) & (have < cell.blocks)).sum()) * cell.per_block
    searching = [any_search([specs[x] for x in (cell.rung, cell.lower) if x is not None]) for cell in cells]
    order = chunk_order(todo, searching)
    tasks = []
    for cell, first, n in order:
        names = [cell.rung, cell.lower] if cell.kind == HEAD else [cell.rung, *plan.field]
        arrs = arrangements_of(cell, len(plan.field))
        tasks.append(
            Task(
                play_chunk_task,
                (
                    first,
                    n,
                    arrs,
                    [shipped[x] for x in names],
                    names,
                    cell.players,
                    plan.seed,
                    plan.rules.to_dict(),
                    threads,
                ),
                f"{cell.folder()}-{first:09d}",
            )
        )
    if tasks and (deadline is None or time.monotonic() < deadline):
        with open_executor(None) as executor:
            played = executor.run(tasks, ordered=True, ahead=1)
            try:
                for (cell, first, n), (_, frame) in zip(order, played):
                    folder = path / "cells" / cell.folder()
                    folder.mkdir(parents=True, exist_ok=True)
                    with writing(_chunk_file(folder, first, n)) as tmp:  # whole or not at all
                        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp)
                    done += n * cell.per_block
                    if on_chunk is not None:
                        on_chunk(Progress(cell, first, n, done, total, float(frame["core_seconds"].sum())))
                    if deadline is not None and time.monotonic() >= deadline:
                        break
            finally:
                played.close()  # the chunks still in play are stopped
    result = read_ladder(path)
    write_file(path / "steps.csv", result.steps.to_csv(index=False))
    write_file(path / "depth.csv", result.depth.to_csv(index=False))
    return result


def ladder(
    out: str | Path,
    rungs: list[str] = DEFAULT_RUNGS,
    players: list[int] = DEFAULT_PLAYERS,
    games: int = 2000,
    seed: int = 0,
    caps: dict[str, int] | None = None,
    field: list[str] = FIELD,
    check: int = 0,
    rules: Rules | None = None,
    threads: int | None = None,
    hours: float | None = None,
    check_field: bool = True,
) -> LadderResult:
    """A ladder from Python, as ``smsim ladder``: each step of ``rungs`` measured head to head and
    against the field at each of ``players``, and the depth; resumes a run cut off in ``out``.

    >>> result = ladder("runs/ladder", games=400, players=[2])   # doctest: +SKIP
    >>> result.steps, result.depth                                # doctest: +SKIP
    """
    threads = checks_threads(threads, error=LadderError)
    plan = plan_ladder(rungs, players, games, seed, caps, field, check, rules, check_field)
    return run_ladder(plan, out, threads, hours=hours)


# -- the figures ----------------------------------------------------------------------------------
def step_verdict(edge: float, lo: float, hi: float, margin: float = MARGINS["share"]) -> str:
    """A step judged by its interval of win share above parity (or of a paired difference):
    ``ordered`` where the low end is at least ``margin`` above 0, ``ordered, small`` where the
    whole interval lies above 0 and below the margin, ``ordered, size not settled`` where it lies
    above 0 but reaches past the margin (above parity, but whether by more than the margin is not
    known: never called small), ``reversed`` where the high end is below 0, ``level`` where the
    interval lies inside (-margin, margin) (``intervals.margin_verdict``: a difference of style,
    not of strength), else ``not settled``; ``no data`` where a number is missing.

    >>> step_verdict(0.05, 0.03, 0.07), step_verdict(0.007, 0.004, 0.009), step_verdict(0, -0.005, 0.005)
    ('ordered', 'ordered, small', 'level')
    >>> step_verdict(0.013, 0.009, 0.016), step_verdict(-0.05, -0.07, -0.03), step_verdict(0.01, -0.01, 0.03)
    ('ordered, size not settled', 'reversed', 'not settled')
    """
    if not all(np.isfinite(x) for x in (edge, lo, hi)):
        return NO_DATA
    said = margin_verdict(lo, hi, margin)
    if lo > 0:
        return ORDERED if said == MOVES else SMALL if said == SAME else UNSIZED
    if hi < 0:
        return REVERSED
    return LEVEL if said == SAME else NOT_SETTLED


STEP_COLUMNS = [
    "players",
    "lower",
    "upper",
    "check",
    "parity",
    "head_games",
    "head_blocks",
    "head_share",
    "head_lo",
    "head_hi",
    "edge",
    "edge_lo",
    "edge_hi",
    "vp_diff",
    "vp_lo",
    "vp_hi",
    "verdict",
    "clear_by",
    "field_games",
    "field_blocks",
    "field_upper",
    "field_lower",
    "field_diff",
    "field_lo",
    "field_hi",
    "field_verdict",
]


def _figure(values: pd.Series) -> tuple[float, float, float, int]:
    return mean_and_interval(values.to_numpy(np.float64))


def steps_table(plan: LadderPlan, blocks: dict[Cell, pd.DataFrame]) -> pd.DataFrame:
    """One row per step and player count (``STEP_COLUMNS``): head to head, the upper seat's win share
    with its interval, its edge over parity and VP difference over the lower seats, the verdict and
    by how much the low end clears parity; against the field, each rung's win share on the blocks
    both played and the paired difference, upper minus lower, with its verdict. A cell not yet
    played gives NaN figures and 0 games."""
    fields = {(c.players, c.rung): (c, b) for c, b in blocks.items() if c.kind == FIELD_CELL}
    check = plan.names()[-1] if plan.check else None
    rows = []
    for cell, b in blocks.items():
        if cell.kind != HEAD:
            continue
        parity = 1.0 / cell.players
        share, lo, hi, n = _figure(b["share"])
        vp, vlo, vhi, _ = _figure(b["vp"] - b["others_vp"])
        edge = (share - parity, lo - parity, hi - parity)
        row = {
            "players": cell.players,
            "lower": cell.lower,
            "upper": cell.rung,
            "check": cell.rung == check,
            "parity": parity,
            "head_games": n * cell.per_block,
            "head_blocks": n,
            "head_share": share,
            "head_lo": lo,
            "head_hi": hi,
            "edge": edge[0],
            "edge_lo": edge[1],
            "edge_hi": edge[2],
            "vp_diff": vp,
            "vp_lo": vlo,
            "vp_hi": vhi,
            "verdict": step_verdict(*edge),
            "clear_by": edge[1],
        }
        if (cell.players, cell.rung) not in fields:  # the check rung measured head to head only
            row.update(
                {
                    "field_games": 0,
                    "field_blocks": 0,
                    "field_upper": math.nan,
                    "field_lower": math.nan,
                    "field_diff": math.nan,
                    "field_lo": math.nan,
                    "field_hi": math.nan,
                    "field_verdict": NO_DATA,
                }
            )
            rows.append(row)
            continue
        (fu, bu), (_, bl) = fields[cell.players, cell.rung], fields[cell.players, cell.lower]
        lower = bl.set_index("block")[["share"]].rename(columns={"share": "share_lower"})
        both = bu.set_index("block")[["share"]].join(lower, how="inner")  # the blocks both rungs played
        d, dlo, dhi, m = _figure(both["share"] - both["share_lower"])
        row.update(
            {
                "field_games": m * fu.per_block,
                "field_blocks": m,
                "field_upper": float(both["share"].mean()),
                "field_lower": float(both["share_lower"].mean()),
                "field_diff": d,
                "field_lo": dlo,
                "field_hi": dhi,
                "field_verdict": step_verdict(d, dlo, dhi),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows, columns=STEP_COLUMNS)


def step_depth(share: float, lo: float, hi: float, blocks: int) -> tuple[float, float, float, float, str]:
    """One step in 60%-steps: (steps, lo, hi, se, bound) from the upper rung's 2-player win share
    ``share`` and its 95% interval over ``blocks`` blocks. Where the interval lies inside (0, 1),
    logit(share) / logit(0.6) with the delta method's interval (se of the logit = se of the share /
    (share (1 - share)), the share's se being its interval's half-width / 1.96): an ``estimate``.
    Where it reaches 1, only a lower bound, ``at least`` the logit of the Wilson lower end of the
    share over ``blocks`` (NaN steps and se, an infinite hi); where it reaches 0, ``at most``, the
    same on the other side; both, or no data: ``unbounded``.

    >>> [round(x, 4) for x in step_depth(0.6, 0.55, 0.65, 100)[:4]]
    [1.0, 0.4862, 1.5138, 0.2622]
    >>> step_depth(1.0, 1.0, 1.0, 200)[4], round(step_depth(1.0, 1.0, 1.0, 200)[1], 2)
    ('at least', 9.75)
    """
    nan = math.nan
    if not all(np.isfinite(x) for x in (share, lo, hi)) or blocks < 1 or (lo <= 0 and hi >= 1):
        return nan, -math.inf, math.inf, nan, UNBOUNDED
    if hi >= 1:
        bound = wilson_interval(share * blocks, blocks)[0]
        return nan, math.log(bound / (1 - bound)) / SIXTY if bound > 0 else -math.inf, math.inf, nan, AT_LEAST
    if lo <= 0:
        bound = wilson_interval(share * blocks, blocks)[1]
        return nan, -math.inf, math.log(bound / (1 - bound)) / SIXTY if bound < 1 else math.inf, nan, AT_MOST
    steps = math.log(share / (1 - share)) / SIXTY
    se = (hi - lo) / (2 * Z_95) / (share * (1 - share)) / SIXTY
    return steps, steps - Z_95 * se, steps + Z_95 * se, se, ESTIMATE


def chain_depth(rows: list[tuple[float, float, float, float, str]]) -> tuple[float, float, float, float, str]:
    """The sum of the steps ``step_depth`` gives: (depth, lo, hi, se, bound). The estimates add,
    their variances too (the steps taken as independent: the delta method on independent logits);
    a step known only by a bound adds that bound to the same side of the interval and makes the
    depth a bound (``at least``: no finite high end, no point figure).

    >>> [round(x, 4) for x in chain_depth([step_depth(0.6, 0.55, 0.65, 100), step_depth(0.75, 0.7, 0.8, 100)])[:4]]
    [3.7095, 2.8749, 4.5441, 0.4258]
    """
    if not rows:
        return math.nan, math.nan, math.nan, math.nan, UNBOUNDED
    est = [r for r in rows if r[4] == ESTIMATE]
    total = sum(r[0] for r in est)
    se = math.sqrt(sum(r[3] ** 2 for r in est))
    lo = total - Z_95 * se + sum(r[1] for r in rows if r[4] != ESTIMATE)
    hi = total + Z_95 * se + sum(r[2] for r in rows if r[4] != ESTIMATE)
    kinds = {r[4] for r in rows} - {ESTIMATE}
    bound = ESTIMATE if not kinds else kinds.pop() if len(kinds) == 1 and UNBOUNDED not in kinds else UNBOUNDED
    if bound == UNBOUNDED:
        lo, hi = -math.inf, math.inf
    return (total if bound == ESTIMATE else math.nan), lo, hi, (se if bound == ESTIMATE else math.nan), bound


DEPTH_COLUMNS = [
    "row",
    "lower",
    "upper",
    "share",
    "lo",
    "hi",
    "blocks",
    "games",
    "steps",
    "steps_lo",
    "steps_hi",
    "steps_se",
    "bound",
]
DEPTH_ANCHOR = "greedy"
"""The second foot of the depth: the first sensible player, the most VP each turn. The depth
from ``random`` counts levels of play no one plays (the dice chosen at random, the noisy greedy
rungs), and how finely its steep bottom is cut moves it (docs/ladder.md); from ``greedy`` it
counts the levels a player who already takes the points in front of them can still climb, nearer
to what a published depth counts from (a person who has just learned the game)."""
STEP_ROW, DEPTH_ROW, MEASURED_ROW, FROM_ANCHOR_ROW = "step", "depth", "measured part", f"from {DEPTH_ANCHOR}"
"""The rows of a depth table: one step; the depth from the lowest rung to the top; where the depth
is only a bound, the top steps that are estimates, summed (the part of the ladder measured); and
the depth from ``DEPTH_ANCHOR`` to the top where that rung is in the chain above its foot."""


def _chain_row(kind: str, rows: list[dict], parts: list[tuple]) -> dict:
    d = chain_depth(parts)
    return {
        "row": kind,
        "lower": rows[0]["lower"],
        "upper": rows[-1]["upper"],
        "share": math.nan,
        "lo": math.nan,
        "hi": math.nan,
        "blocks": sum(r["blocks"] for r in rows),
        "games": sum(r["games"] for r in rows),
        "steps": d[0],
        "steps_lo": d[1],
        "steps_hi": d[2],
        "steps_se": d[3],
        "bound": d[4],
    }


def depth_table(steps: pd.DataFrame) -> pd.DataFrame:
    """Saint Malo's depth from a steps table (``steps_table``): one row per 2-player step of the
    ladder (the check rung's left out) in 60%-steps (``step_depth``), then the chain from the lowest
    rung to the top (``chain_depth``; ``share`` NaN), where that is only a bound the top steps
    that are estimates, summed (``MEASURED_ROW``), and where ``DEPTH_ANCHOR`` is a rung above the
    lowest, the chain from it to the top (``FROM_ANCHOR_ROW``). Empty where the ladder has no
    2-player step."""
    two = steps[(steps["players"] == 2) & ~steps["check"].astype(bool)]
    rows, parts = [], []
    for r in two.itertuples():
        part = step_depth(r.head_share, r.head_lo, r.head_hi, int(r.head_blocks))
        parts.append(part)
        rows.append(
            {
                "row": STEP_ROW,
                "lower": r.lower,
                "upper": r.upper,
                "share": r.head_share,
                "lo": r.head_lo,
                "hi": r.head_hi,
                "blocks": int(r.head_blocks),
                "games": int(r.head_games),
                "steps": part[0],
                "steps_lo": part[1],
                "steps_hi": part[2],
                "steps_se": part[3],
                "bound": part[4],
            }
        )
    out = list(rows)
    if rows:
        out.append(_chain_row(DEPTH_ROW, rows, parts))
        top = len(parts)
        while top > 0 and parts[top - 1][4] == ESTIMATE:
            top -= 1
        if 0 < top < len(parts):  # the depth is a bound; the estimates above the last bound still add up
            out.append(_chain_row(MEASURED_ROW, rows[top:], parts[top:]))
        foot = next((k for k, r in enumerate(rows) if r["lower"] == DEPTH_ANCHOR), 0)
        if foot > 0:
            out.append(_chain_row(FROM_ANCHOR_ROW, rows[foot:], parts[foot:]))
    return pd.DataFrame(out, columns=DEPTH_COLUMNS)


# -- reading ----------------------------------------------------------------------------------------
@dataclass
class LadderResult:
    """A ladder's tables: ``steps`` (``steps_table``), ``depth`` (``depth_table``) and ``cells`` (per
    cell: games planned and played, and core-seconds a game: what each rung costs)."""

    path: str
    plan: LadderPlan
    steps: pd.DataFrame
    depth: pd.DataFrame
    cells: pd.DataFrame
    command: str

    @property
    def complete(self) -> bool:
        return bool((self.cells["played"] >= self.cells["games"]).all())


def plan_of(manifest: dict) -> LadderPlan:
    """The plan a ladder's manifest records (``LadderPlan.identity``)."""
    ident = manifest["plan"]
    return LadderPlan(
        tuple(ident["rungs"]),
        tuple(int(p) for p in ident["players"]),
        int(ident["games"]),
        int(ident["seed"]),
        {k: int(v) for k, v in ident.get("caps", {}).items()},
        tuple(ident["field"]),
        int(ident.get("check", 0)),
        Rules.from_dict(ident["rules"]),
        bool(ident.get("check_field", True)),
    )


def read_ladder(path: str | Path) -> LadderResult:
    """Read a ladder's directory: the tables of the blocks played so far (a cell not yet played
    gives NaN figures)."""
    path = Path(path)
    manifest = read_manifest(path, "ladder")
    plan = plan_of(manifest)
    blocks, rows = {}, []
    for cell in plan.cells():
        b = read_blocks(path / "cells" / cell.folder())
        b = b[b["block"] < cell.blocks]
        blocks[cell] = b
        played = len(b) * cell.per_block
        rows.append(
            {
                "kind": cell.kind,
                "players": cell.players,
                "rung": cell.rung,
                "lower": cell.lower,
                "games": cell.blocks * cell.per_block,
                "played": played,
                "core_seconds_per_game": float(b["core_seconds"].sum()) / played if played else math.nan,
            }
        )
    steps = steps_table(plan, blocks)
    return LadderResult(
        str(path), plan, steps, depth_table(steps), pd.DataFrame(rows), " ".join(manifest.get("command", []))
    )


__all__ = [
    "CHUNK_GAMES",
    "DEFAULT_PLAYERS",
    "DEFAULT_RUNGS",
    "NOISY_RUNGS",
    "FIELD",
    "HEAD",
    "Cell",
    "chunk_order",
    "LadderPlan",
    "LadderResult",
    "Progress",
    "block_figures",
    "chain_depth",
    "check_rung",
    "depth_table",
    "ladder",
    "missing_chunks",
    "plan_ladder",
    "read_ladder",
    "run_ladder",
    "step_depth",
    "step_verdict",
    "steps_table",
]
