"""``smsim learn``: a learned policy distilled from ``rollout`` by expert iteration.

Each round:

1. **Labels.** The student (round 1: the base heuristic, ``balanced``) plays games in every seat,
   at every player count of the plan in turn. Of each game's decisions a share (``rate``) is
   offered to the teacher, ``rollout`` with the plan's knobs and the student as its base and
   playout policy (``play.labels``): at each USE or PLACE decision it searches, every candidate
   it weighed becomes a label row: the learned policy's features of the move, and the search's
   mean outcome of it (win share plus ``margin`` times VP margin) with its standard error and
   playouts (soft targets: every candidate's value, not only the pick).
2. **Fit.** Per decision kind, a score of the move's features: linear plus a layer of
   ``hidden`` rectified units (``learned.MODEL``), fitted to the labels of every round so far
   on values centred within each decision (only differences between the moves of one decision
   matter to a pick), each candidate weighted by the inverse of its squared standard error
   (floored): the linear part first by weighted least squares with a ridge, then everything
   together by Adam from there (``fit_units``). numpy alone: the model is small (a few thousand
   numbers) and its gradient a few lines, so no fitting library is needed, and the fit is
   deterministic from the seed.
3. **Held out.** Every tenth part of the labels (the first among them) is never fitted on; on it the round prints, per
   decision kind, how often the student picks the teacher's move (agreement) and the mean
   regret: the teacher's value of its own pick minus its value of the student's.

Round k + 1's student plays round k + 1's games and is the teacher's base there: the teacher
searches over the student it is improving (expert iteration, Anthony et al. 2017).

A run that goes on from a committed model (``--from``) starts its own round 1; its fit can take
the labels of earlier runs' rounds too (``plan.labels_from``, ``earlier_labels``), so that a round
fits on every round's labels so far, however many sittings and folders they took. Fits on one
round's labels alone measured worse than fits on two rounds' (docs/policies.md, rounds 4 and 5).

A round that ended in an earlier sitting is not fitted again: its saved model
(``OUT/model-round-K.json``) is read as it is, since it taught the next round's labels (a fit by a
later smsim could differ from it).

Labels are a resumable Parquet dataset, ``OUT/labels/round-K/part-NNNNNN.parquet``: a part is a
fixed range of games, written whole (a temporary file renamed), so a run killed at any point
(kill -9 included) resumes at the first missing part, losing and repeating no decision. Every
label depends only on (seed, round, game, decision): the same command gives the same labels and
the same model file, byte for byte, on any number of threads.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from threadpoolctl import threadpool_limits

from smsim import __version__
from smsim import layout as L
from smsim.checks import positive, whole
from smsim.checks import threads as checks_threads
from smsim.engine.dice import seed_key
from smsim.errors import LearnError
from smsim.files import writing
from smsim.intervals import mean_and_interval
from smsim.play.labels import label_decision_nb
from smsim.play.loop import new_work
from smsim.play.search import new_search
from smsim.policies.heuristic_layout import PARAM_NAMES
from smsim.policies.learned import MAX_FEATURES, MAX_HIDDEN, N_PLACE_FEATURES, N_USE_FEATURES
from smsim.policies.model import Model, Units
from smsim.policies.registry import PolicySpec, line_up_marks, policy_arrays, resolve_policy, rollout_spec
from smsim.policies.rollout import ROLLOUT_PARAMS, UNGATED
from smsim.rules import Rules
from smsim.runs.folder import check_out, read_manifest, write_manifest
from smsim.runs.runner import on_threads
from smsim.studies.compare import compare

KINDS = {"USE": L.DECISION_USE, "PLACE": L.DECISION_PLACE}
N_FEATURES = {"USE": N_USE_FEATURES, "PLACE": N_PLACE_FEATURES}
FEATURE_COLUMNS = [f"f{i}" for i in range(MAX_FEATURES)]
SE_FLOOR = 0.02  # a candidate's standard error is at least this in its fitting weight
UNIT_DECAY = 1e-4  # weight decay of the rectified units (fit_units)
RESTARTS = 4  # fits from different seeded starts, the best in play kept (fit_model)
SELECTION_GAMES = 4000  # 4-player games that pick among them
SELECTION_SEED = 7_700_001  # their dice: plan.seed plus this (never a seed the figures are checked on)
GAIN_GAMES = 20_000  # 4-player games that measure each round's student against the one before
GAIN_SEED = 7_800_001  # their dice: plan.seed plus this (apart from the selection games and the figures)
MAX_DECISIONS = 10**8


@dataclass(frozen=True)
class LearnPlan:
    """What ``smsim learn`` does; the label directory records it and refuses another."""

    decisions: int = 20_000  # labelled decisions fitted on per round (held-out ones beside them)
    iterations: int = 1
    seed: int = 0
    players: tuple[int, ...] = (2, 3, 4, 5)  # game g is played at players[g % len(players)]
    base: str = "balanced"  # round 1's student: a heuristic (a preset or a .toml file)
    rate: float = 0.25  # share of a game's decisions offered to the teacher
    games_per_part: int = 8
    held_out_every: int = 10  # part p is held out where p % held_out_every == 0 (part 0 first)
    ridge: float = 0.01  # on the linear part, standardised features (fit_kind)
    hidden: int = 16  # rectified units per decision kind (0: linear)
    epochs: int = 60  # passes over the labels when fitting the units
    teacher: dict[str, float] = field(default_factory=dict)  # rollout knobs over ROLLOUT_DEFAULTS and UNGATED
    labels_from: tuple[str, ...] = ()  # earlier learn folders whose rounds' labels are fitted on too

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["players"] = list(self.players)
        if self.labels_from:
            d["labels_from"] = list(self.labels_from)
        else:  # a plan without them is written, and compared, as plans were before they existed
            del d["labels_from"]
        return d

    def held_out(self, part: int) -> bool:
        return part % self.held_out_every == 0


def verify_plan(plan: LearnPlan) -> PolicySpec:
    """Check the plan before anything is compiled; returns round 1's student."""
    whole(plan.decisions, "--decisions", low=1, high=MAX_DECISIONS, error=LearnError)
    whole(plan.iterations, "--iterations", low=1, high=100, error=LearnError)
    whole(plan.seed, "--seed", error=LearnError)
    for p in plan.players or ("none",):  # player counts, game by game
        whole(p, "--players", low=2, high=5, error=LearnError)
    whole(plan.hidden, "--hidden", low=0, high=MAX_HIDDEN, error=LearnError)
    whole(plan.epochs, "--epochs", low=1, high=10_000, error=LearnError)
    positive(plan.rate, "--rate", most=1, error=LearnError)
    base = resolve_policy(plan.base)
    if base.kind not in (L.PolicyKind.HEURISTIC, L.PolicyKind.LEARNED):
        raise LearnError(f"--base must be a heuristic or a learned model, not {base.name!r}")
    teacher_spec(plan, base)  # the knobs, checked as a rollout file's are
    for folder in plan.labels_from:
        read_plan(folder)  # a learn folder this smsim reads, or a one-line error
    return base


def recipe(plan: LearnPlan, student: PolicySpec, rules: Rules) -> dict[str, Any]:
    """How a round's model was made, for anyone to make it again (its model file records it with
    the round): the games' and labels' seed, the decisions fitted on, the player counts, the share
    of decisions searched, the teacher's knobs in full (``rollout`` over the student: budgets,
    candidates, the decisions it searches), the student it was taught over (a model by the SHA-256
    of its vector, ``model_digest``; a heuristic by its weights), whether the rules were the
    printed ones, and the smsim that made it."""
    parent = student.describe()
    return {
        "seed": plan.seed,
        "decisions": plan.decisions,
        "players": list(plan.players),
        "rate": plan.rate,
        "games_per_part": plan.games_per_part,
        "hidden": plan.hidden,
        "epochs": plan.epochs,
        "teacher": teacher_spec(plan, student).weights(),
        "student": {k: v for k, v in parent.items() if k != "weights" or "model_sha256" not in parent},
        "printed_rules": rules == Rules(),
        "smsim": __version__,
    }


def teacher_spec(plan: LearnPlan, student: PolicySpec) -> PolicySpec:
    """``rollout`` with the plan's knobs over ``student`` (every decision the knobs switch on
    searched: ``UNGATED``, as the shipped model was taught)."""
    return rollout_spec({**UNGATED, **plan.teacher}, student, name="teacher", where="--teacher")


def student_of(vector: np.ndarray | None, base: PolicySpec) -> PolicySpec:
    if vector is None:
        return base
    return PolicySpec("student", L.PolicyKind.LEARNED, vector)


# -- labels ------------------------------------------------------------------------------------
def part_games(plan: LearnPlan, part: int) -> range:
    """The games of part ``part``: a fixed range, the same on any machine and any number of threads."""
    return range(part * plan.games_per_part, (part + 1) * plan.games_per_part)


def part_table(part: int, per_game: list[list[tuple]]) -> pa.Table:
    """A part's label rows, its games' rows in game order."""
    rows = [r for game_rows in per_game for r in game_rows]
    columns: dict[str, Any] = {
        name: np.array([r[i] for r in rows], dtype=dtype) for i, (name, dtype) in enumerate(ROW_FIELDS)
    }
    feats = np.array([r[-1] for r in rows], dtype=np.float64).reshape(len(rows), MAX_FEATURES)
    for j, name in enumerate(FEATURE_COLUMNS):
        columns[name] = feats[:, j]
    columns["part"] = np.full(len(rows), part, dtype=np.int64)
    return pa.table(columns)


def label_parts(
    plan: LearnPlan,
    out: str | Path,
    round_no: int,
    parts: list[int],
    student: PolicySpec,
    rules: Rules,
    threads: int | None,
    on_part: Callable[[int], None] | None = None,
) -> list[int]:
    """Label those of ``parts`` of round ``round_no`` not yet written, each written whole in the
    order given as soon as it and the parts before it are done; returns the parts labelled.

    Every game of every part is one slice of one pool of threads, so a core that finishes a short
    game takes the next, of this part or the next one: no core waits for a part's longest game.
    ``on_part(games)`` hears each part written."""
    out = Path(out)
    todo = [p for p in parts if not part_path(out, round_no, p).exists()]
    if not todo:
        return []
    slices = [(p, g, g + 1) for p in todo for g in part_games(plan, p)]

    def begin(p: int) -> dict[int, list[tuple]]:
        return {}

    def play(per_game: dict[int, list[tuple]], p: int, game: int, _: int) -> None:
        per_game[game] = label_game(plan, round_no, game, student, rules)

    def finish(per_game: dict[int, list[tuple]], p: int) -> pa.Table:
        return part_table(p, [per_game[g] for g in part_games(plan, p)])

    def use(p: int, table: pa.Table) -> None:
        write_part(part_path(out, round_no, p), table)
        if on_part is not None:
            on_part(plan.games_per_part)

    on_threads(slices, threads or os.cpu_count() or 1, play, finish, use, begin=begin)
    return todo


def round_student(plan: LearnPlan, out: str | Path, round_no: int) -> PolicySpec:
    """Round ``round_no``'s student as a run resuming in ``out`` plays it: the plan's base in round 1,
    else the model that round ``round_no - 1`` saved (an error if it has not been saved yet)."""
    base = verify_plan(plan)
    if round_no == 1:
        return student_of(None if base.kind == L.PolicyKind.HEURISTIC else base.params, base)
    path = Path(out) / f"model-round-{round_no - 1}.json"
    if not path.exists():
        raise LearnError(
            f"{str(path)!r} does not exist: round {round_no - 1} has not ended, so round {round_no} has no student yet"
        )
    return student_of(Model.load(path).vector(), base)


ROW_FIELDS = (
    ("round", np.int64),
    ("game", np.int64),
    ("players", np.int64),
    ("decision", np.int64),
    ("kind", np.int64),
    ("seat", np.int64),
    ("candidate", np.int64),
    ("row", np.int64),
    ("group", np.int64),
    ("teacher_pick", np.bool_),
    ("playouts", np.int64),
    ("value", np.float64),
    ("se", np.float64),
    ("win", np.float64),
    ("margin_vp", np.float64),
)


def label_game(plan: LearnPlan, round_no: int, game: int, student: PolicySpec, rules: Rules) -> list[tuple]:
    """Every label row of one game: its offered decisions that the teacher searches."""
    players = plan.players[game % len(plan.players)]
    specs = [student] * players
    kind, params, fns = policy_arrays(specs)
    knobs = teacher_spec(plan, student).params
    margin = float(knobs[ROLLOUT_PARAMS.offset("margin")])
    room = max(int(knobs[ROLLOUT_PARAMS.offset(k)]) for k in ("budget", "place_budget", "min_playouts"))
    rules_nb, crates, key = rules.to_nb(), rules.start_crate_cells(), seed_key(plan.seed)
    w, search = new_work(players), new_search(players, room)
    feats = np.zeros((L.MAX_CANDS, MAX_FEATURES))
    marks = line_up_marks(specs)
    total = label_decision_nb(key, game, -1, rules_nb, crates, kind, params, fns, marks, knobs, w, search, feats)[0]
    offered = np.flatnonzero(np.random.default_rng([plan.seed, round_no, game]).random(total) < plan.rate)
    out = []
    for d in offered:
        _, kind_d, m, pick, seat = label_decision_nb(
            key, game, int(d), rules_nb, crates, kind, params, fns, marks, knobs, w, search, feats
        )
        if m == 0:
            continue
        for c in range(m):
            src = int(search.same[c])
            t = int(search.played[c])
            win = search.win[src, :t]
            margin_vp = search.margin_vp[src, :t]
            value = win + margin * margin_vp
            se = float(value.std(ddof=1) / math.sqrt(t)) if t > 1 else 1.0
            out.append(
                (
                    round_no,
                    game,
                    players,
                    int(d),
                    int(kind_d),
                    int(seat),
                    c,
                    int(search.rows[c]),
                    src,
                    c == pick,
                    t,
                    float(value.mean()),
                    se,
                    float(win.mean()),
                    float(margin_vp.mean()),
                    feats[c].copy(),
                )
            )
    return out


def part_path(out: Path, round_no: int, part: int) -> Path:
    return out / "labels" / f"round-{round_no}" / f"part-{part:06d}.parquet"


def write_part(path: Path, table: pa.Table) -> None:
    """Whole or not at all (``files.writing``: a kill leaves at most a stray temporary file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with writing(path) as tmp:
        pq.write_table(table, tmp)


def read_part(path: Path) -> pd.DataFrame:
    try:
        return pq.read_table(path).to_pandas()
    except (OSError, pa.ArrowInvalid) as exc:
        raise LearnError(f"{path}: not a readable label part ({exc}); remove it and run again") from None


def round_labels(
    plan: LearnPlan,
    out: Path,
    round_no: int,
    student: PolicySpec,
    rules: Rules,
    threads: int | None,
    on_progress: Callable[[str, int], None] | None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The round's training and held-out labels: parts read where written, labelled where not,
    in part order until ``plan.decisions`` training decisions; the training set is the first
    ``plan.decisions`` of them, the held-out set the held-out parts up to the last part used."""
    frames: list[pd.DataFrame] = []
    training = 0
    part = 0
    batch = max(4, 2 * (threads or os.cpu_count() or 1))  # parts a pool is given: a short tail each

    def on_part(games: int) -> None:
        if on_progress is not None:
            on_progress(f"round {round_no}", games)

    while training < plan.decisions:
        label_parts(plan, out, round_no, list(range(part, part + batch)), student, rules, threads, on_part)
        for p in range(part, part + batch):
            df = read_part(part_path(out, round_no, p))
            frames.append(df)
            if not plan.held_out(p):
                training += df.groupby(["game", "decision"]).ngroups if len(df) else 0
            if training >= plan.decisions:
                break
        part += batch
    labels = pd.concat(frames, ignore_index=True)
    held = labels[labels["part"].map(plan.held_out)]
    train = labels[~labels["part"].map(plan.held_out)]
    keys = train[["game", "decision"]].drop_duplicates().head(plan.decisions)
    train = train.merge(keys, on=["game", "decision"])
    return train, held


def read_round_labels(plan: LearnPlan, out: Path, round_no: int) -> pd.DataFrame:
    """Round ``round_no``'s training labels in ``out`` as its run fitted on them, read and never
    labelled: its training parts in order up to ``plan.decisions`` decisions (``round_labels``)."""
    frames: list[pd.DataFrame] = []
    training = part = 0
    while training < plan.decisions:
        path = part_path(out, round_no, part)
        if not path.exists():
            raise LearnError(
                f"{str(out)!r}: round {round_no}'s labels stop at part {part}, short of its "
                f"{plan.decisions:,} decisions; run that folder's command again to finish them"
            )
        if not plan.held_out(part):
            frames.append(read_part(path))
            training += frames[-1].groupby(["game", "decision"]).ngroups if len(frames[-1]) else 0
        part += 1
    train = pd.concat(frames, ignore_index=True)
    keys = train[["game", "decision"]].drop_duplicates().head(plan.decisions)
    return train.merge(keys, on=["game", "decision"])


def earlier_labels(plan: LearnPlan, out: Path, rules: Rules) -> tuple[list[pd.DataFrame], list[dict[str, Any]]]:
    """The training labels of every ended round of the folders ``plan.labels_from``, in the order
    given, and each round's recipe as its saved model records it. Their rows are numbered as
    rounds below 1, in that order, so that they sort before this run's own rounds: a fit on them
    and this run's labels is the fit of every round so far, as within one run (DAgger's
    aggregate). A folder must hold labels of these rules and at least one ended round."""
    rounds: list[tuple[Path, LearnPlan, int]] = []
    for folder in map(Path, plan.labels_from):
        if folder.resolve() == out.resolve():
            raise LearnError(f"--labels-from {str(folder)!r} is this run's own folder (--out)")
        their_plan, their_rules = read_plan(folder)
        if their_rules.to_dict() != rules.to_dict():
            raise LearnError(f"--labels-from {str(folder)!r}: its games were played under other rules than this run's")
        ended = 0
        while (folder / f"model-round-{ended + 1}.json").exists():
            ended += 1
        if ended == 0:
            raise LearnError(f"--labels-from {str(folder)!r}: no round of it has ended (no model-round-1.json)")
        rounds += [(folder, their_plan, k) for k in range(1, ended + 1)]
    frames, recipes = [], []
    for i, (folder, their_plan, k) in enumerate(rounds):
        df = read_round_labels(their_plan, folder, k)
        if missing := [c for c in FEATURE_COLUMNS if c not in df.columns]:
            raise LearnError(f"--labels-from {str(folder)!r}: its labels lack the features {', '.join(missing)}")
        frames.append(df.assign(round=i + 1 - len(rounds)))
        training = Model.load(folder / f"model-round-{k}.json").training
        record = training.get("rounds", [{}])[k - 1] if isinstance(training, dict) else {}
        recipes.append({"folder": folder.name, "round": k, **record.get("recipe", {})})
    return frames, recipes


# -- fit ---------------------------------------------------------------------------------------
def kind_arrays(labels: pd.DataFrame, kind: str) -> tuple[np.ndarray, ...]:
    """``kind``'s labels in a fixed order: features x, values y, weights 1 / max(se, SE_FLOOR)^2
    and each row's decision (0, 1, ... in order)."""
    n_f = N_FEATURES[kind]
    df = labels[labels["kind"] == KINDS[kind]].sort_values(["round", "game", "decision", "candidate"])
    x = df[FEATURE_COLUMNS[:n_f]].to_numpy()
    wt = 1.0 / np.maximum(df["se"].to_numpy(), SE_FLOOR) ** 2
    return x, df["value"].to_numpy(), wt, decision_of(df)


def decision_of(df: pd.DataFrame) -> np.ndarray:
    """Each label row's decision, numbered 0, 1, ... in (round, game, decision) order."""
    key = df["round"].to_numpy() * (1 << 40) + df["game"].to_numpy() * (1 << 16) + df["decision"].to_numpy()
    return np.unique(key, return_inverse=True)[1]


def centred(v: np.ndarray, wt: np.ndarray, group: np.ndarray) -> np.ndarray:
    """``v`` minus its weighted mean within each decision (columns of a 2-d ``v`` alike)."""
    sw = np.bincount(group, weights=wt)
    if v.ndim == 1:
        return v - (np.bincount(group, weights=wt * v) / sw)[group]
    means = np.stack([np.bincount(group, weights=wt * v[:, j]) for j in range(v.shape[1])], axis=1) / sw[:, None]
    return v - means[group]


def fit_kind(
    labels: pd.DataFrame, kind: str, ridge: float, hidden: int = 0, seed: int = 0, epochs: int = 12, restart: int = 0
) -> tuple[np.ndarray, Units | None]:
    """``kind``'s coefficients, and its units where ``hidden`` > 0 (``fit_units``). The linear
    part: weighted least squares on values centred within each decision, weights 1 / max(se,
    SE_FLOOR)^2, a ridge of ``ridge`` on the features standardised (each feature's weighted
    spread within decisions scaled to 1); a feature that never varies within a decision gets 0.

    On one BLAS thread: a BLAS splits a matrix product among its threads, and the split changes
    the order of the sums, so on a machine with another number of cores the same labels gave
    another model (products apart by 1e-14 after two passes, fits apart in play after sixty). On
    one thread the fit is the same on every machine, byte for byte (and no slower here)."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _fit_kind(labels, kind, ridge, hidden, seed, epochs, restart)


def _fit_kind(
    labels: pd.DataFrame, kind: str, ridge: float, hidden: int, seed: int, epochs: int, restart: int
) -> tuple[np.ndarray, Units | None]:
    n_f = N_FEATURES[kind]
    x, y, wt, group = kind_arrays(labels, kind)
    if len(y) == 0:
        return np.zeros(n_f), (empty_units(hidden, n_f) if hidden else None)
    xc, yc = centred(x, wt, group), centred(y, wt, group)
    a = xc.T @ (xc * wt[:, None])
    b = xc.T @ (wt * yc)
    scale = np.sqrt(np.maximum(np.diag(a) / wt.sum(), 1e-12))
    beta = np.linalg.solve(a / np.outer(scale, scale) + np.eye(n_f) * max(ridge, 1e-9) * wt.sum(), b / scale) / scale
    if hidden == 0:
        return beta, None
    return fit_units(x, y, wt, group, beta, scale, hidden, ridge, seed, epochs, restart)


def empty_units(hidden: int, n_f: int) -> Units:
    return Units([[0.0] * n_f for _ in range(hidden)], [0.0] * hidden, [0.0] * hidden)


def fit_units(
    x: np.ndarray,
    y: np.ndarray,
    wt: np.ndarray,
    group: np.ndarray,
    beta: np.ndarray,
    scale: np.ndarray,
    hidden: int,
    ridge: float,
    seed: int,
    epochs: int,
    restart: int = 0,
) -> tuple[np.ndarray, Units]:
    """The linear coefficients and a layer of ``hidden`` rectified units, trained together from
    the linear fit by Adam on the same centred, weighted squared error, in mini-batches of whole
    decisions, with weight decay ``ridge`` on the linear part and UNIT_DECAY on the units, over
    the standardised features; the epoch of least error on a tenth of the decisions kept aside
    (drawn from ``seed``) is returned. ``restart`` seeds the start and the shuffles."""
    rng = np.random.default_rng(seed)
    mu = np.average(x, axis=0, weights=wt)
    z = (x - mu) / scale
    n_groups = int(group.max()) + 1
    order_groups = rng.permutation(n_groups)
    aside = np.zeros(n_groups, dtype=bool)
    aside[order_groups[: n_groups // 10]] = True
    fit_groups = order_groups[n_groups // 10 :]
    starts = np.searchsorted(group, np.arange(n_groups + 1))  # rows are sorted by decision
    rows_aside = np.flatnonzero(aside[group])
    p = train_units(
        z,
        y,
        wt,
        group,
        beta * scale,
        hidden,
        ridge,
        epochs,
        fit_groups,
        starts,
        rows_aside,
        np.random.default_rng([seed, restart]),
    )
    # back to the raw features: w . (x - mu) / scale + b = (w / scale) . x + (b - (w / scale) . mu)
    w_raw = p["w"] / scale
    units = Units([list(row) for row in w_raw], list(p["b"] - w_raw @ mu), list(p["a"]))
    return p["beta"] / scale, units


def train_units(z, y, wt, group, beta, hidden, ridge, epochs, fit_groups, starts, rows_aside, rng) -> dict:
    """One fit of ``fit_units`` from a seeded start: the parameters of its epoch of least
    centred error on the decisions kept aside."""
    n_f = z.shape[1]
    params = {
        "beta": beta.copy(),
        "w": rng.normal(0.0, 1.0 / np.sqrt(n_f), (hidden, n_f)),
        "b": np.full(hidden, 0.1),
        "a": rng.normal(0.0, 0.01, hidden),
    }
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}

    def loss_and_grads(rows: np.ndarray, grads: bool):
        g = np.unique(group[rows], return_inverse=True)[1]
        zr, w = z[rows], wt[rows]
        pre = zr @ params["w"].T + params["b"]
        act = np.maximum(pre, 0.0)
        r = centred(zr @ params["beta"] + act @ params["a"] - y[rows], w, g)
        total = w.sum()
        loss = float(np.sum(w * r * r) / total)
        if not grads:
            return loss, None
        df = 2.0 * w * r / total
        dpre = np.outer(df, params["a"]) * (pre > 0.0)
        return loss, {
            "beta": zr.T @ df + 2 * ridge * params["beta"],
            "w": dpre.T @ zr + 2 * UNIT_DECAY * params["w"],
            "b": dpre.sum(axis=0),
            "a": act.T @ df + 2 * UNIT_DECAY * params["a"],
        }

    best = (loss_and_grads(rows_aside, False)[0], {k: v.copy() for k, v in params.items()})
    step, lr, per_batch = 0, 1e-3, 400  # decisions a batch
    for _ in range(epochs):
        shuffled = fit_groups[rng.permutation(len(fit_groups))]
        for i in range(0, len(shuffled), per_batch):
            chosen = shuffled[i : i + per_batch]
            rows = np.concatenate([np.arange(starts[c], starts[c + 1]) for c in np.sort(chosen)])
            _, grads = loss_and_grads(rows, True)
            step += 1
            for k, grad in grads.items():
                m, v = moments[k]
                m *= 0.9
                m += 0.1 * grad
                v *= 0.999
                v += 0.001 * grad * grad
                params[k] -= lr * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        loss = loss_and_grads(rows_aside, False)[0]
        if loss < best[0]:
            best = (loss, {k: v.copy() for k, v in params.items()})
    return best[1]


def fit_model(
    labels: pd.DataFrame,
    base: PolicySpec,
    plan: LearnPlan,
    training: dict[str, Any],
    rules: Rules | None = None,
    threads: int | None = None,
) -> tuple[Model, list[float]]:
    """The model fitted to ``labels``: RESTARTS fits from seeded starts, and of those the one
    whose seat wins most against three of the base heuristic in SELECTION_GAMES 4-player games
    (every seat rotation, common dice, a seed of its own: plan.seed + SELECTION_SEED). Fits from
    different starts err alike on held-out labels yet play apart by several points of win share,
    so they are told apart by play. Returns the model and every fit's win share."""
    weights = base.weights()
    heuristic = {name: weights[name] for name in PARAM_NAMES if name in weights}  # a later weight off: left out
    description = f"a model fitted to rollout's values of moves by smsim learn (seed {plan.seed})"
    fits, shares = [], []
    for restart in range(RESTARTS if plan.hidden else 1):
        use, use_units = fit_kind(labels, "USE", plan.ridge, plan.hidden, plan.seed, plan.epochs, restart)
        place, place_units = fit_kind(labels, "PLACE", plan.ridge, plan.hidden, plan.seed + 1, plan.epochs, restart)
        model = Model(
            heuristic, list(use), list(place), use_units, place_units, training=training, description=description
        )
        fits.append(model)
        if plan.hidden:
            shares.append(selection_share(model, plan, rules, threads))
    best = int(np.argmax(shares)) if shares else 0
    return fits[best], shares


def yardstick(plan: LearnPlan) -> PolicySpec:
    """The field a student is measured against: the base heuristic, or a learned base's own base
    heuristic, with its keeps as the heuristic's own (``exact_keep`` off), as the targets name it."""
    base = resolve_policy(plan.base)
    params = base.params.copy()
    params[PARAM_NAMES.index("exact_keep")] = 0.0
    return PolicySpec("base", L.PolicyKind.HEURISTIC, params)


def selection_share(model: Model, plan: LearnPlan, rules: Rules | None, threads: int | None) -> float:
    """The win share of one seat of ``model`` against three of the yardstick (4 players)."""
    student = PolicySpec("student", L.PolicyKind.LEARNED, model.vector())
    base = yardstick(plan)
    result = compare(
        [student, base, base, base],
        4,
        SELECTION_GAMES,
        plan.seed + SELECTION_SEED,
        rules=rules,
        threads=threads,
        keep_games=False,
    )
    return float(result.table.loc["student", "win_share"])


def field_blocks(student: PolicySpec, plan: LearnPlan, rules: Rules | None, threads: int | None) -> np.ndarray:
    """Each block's win share of one seat of ``student`` against three of the yardstick: GAIN_GAMES
    4-player games on seed plan.seed + GAIN_SEED, a block being one game in every seat rotation."""
    student = replace(student, name="student")
    base = yardstick(plan)
    result = compare(
        [student, base, base, base],
        4,
        GAIN_GAMES,
        plan.seed + GAIN_SEED,
        rules=rules,
        threads=threads,
        keep_games=False,
    )
    return result.block_shares[:, 0]


def round_gain(blocks: np.ndarray, before: np.ndarray) -> dict[str, float]:
    """A round's student against the one before, on the same games: its share against the field
    and the paired difference (mean, 95% interval over blocks)."""
    mean, lo, hi, _ = mean_and_interval(blocks - before)
    return {"share": float(blocks.mean()), "gain": mean, "gain_lo": lo, "gain_hi": hi}


def converged(gains: list[dict[str, float]], until_gain: float | None) -> bool:
    """Two rounds in a row gained less than ``until_gain`` (a share: 0.01 is a point)."""
    return until_gain is not None and len(gains) >= 2 and all(g["gain"] < until_gain for g in gains[-2:])


# -- held out ----------------------------------------------------------------------------------
def judge(labels: pd.DataFrame, model: Model | None) -> pd.DataFrame:
    """Per decision kind: decisions, the model's agreement with the teacher's pick and its mean
    regret (the teacher's value of its pick minus its value of the model's), and the same for the
    base policy's own pick (candidate 0). ``model`` None: the base alone."""
    rows = []
    for kind, code in KINDS.items():
        df = labels[labels["kind"] == code].sort_values(["round", "game", "decision", "candidate"])
        if df.empty:
            continue
        x = df[FEATURE_COLUMNS[: N_FEATURES[kind]]].to_numpy()
        score = np.zeros(len(df)) if model is None else model.score(kind, x)
        group = decision_of(df)
        cand = df["candidate"].to_numpy()
        # the model's pick: its best score, the earlier candidate on a tie (none: the base's pick)
        order = np.lexsort((cand, -score if model is not None else cand, group))
        first = np.r_[True, group[order][1:] != group[order][:-1]]
        pick = order[first]
        base = np.flatnonzero(cand == 0)
        teacher = np.flatnonzero(df["teacher_pick"].to_numpy())
        same, value = df["group"].to_numpy(), df["value"].to_numpy()
        n = len(pick)
        if not (len(base) == len(teacher) == n):
            raise LearnError("labels: every decision needs one base candidate and one teacher pick")
        rows.append(
            dict(
                kind=kind,
                decisions=n,
                agreement=float(np.mean(same[pick] == same[teacher])),
                regret=float(np.mean(value[teacher] - value[pick])),
                base_agreement=float(np.mean(same[base] == same[teacher])),
                base_regret=float(np.mean(value[teacher] - value[base])),
            )
        )
    return pd.DataFrame(rows)


# -- the whole run -----------------------------------------------------------------------------
@dataclass
class LearnResult:
    model: Model
    rounds: list[pd.DataFrame]  # per round: ``judge`` of the round's student on its held-out labels
    decisions: list[int]  # training decisions labelled per round
    cpu_seconds: float  # labelling and fitting, this run (parts read from disk cost nothing)


def check_out_dir(out: str | Path, plan: LearnPlan, rules: Rules | None = None) -> bool:
    """A label directory is this plan's under these rules (True: it resumes) or new; another's is refused."""
    return check_out(out, "learn", {"plan": plan.to_dict(), "rules": (rules or Rules()).to_dict()})


def read_plan(out: str | Path) -> tuple[LearnPlan, Rules]:
    """The plan and rules a label directory records (``smsim learn`` wrote them when it began)."""
    manifest = read_manifest(out, "learn")
    try:
        recorded = manifest["plan"]
        plan = LearnPlan(
            **{**recorded, "players": tuple(recorded["players"]), "labels_from": tuple(recorded.get("labels_from", ()))}
        )
    except (TypeError, KeyError) as exc:
        raise LearnError(f"{str(out)!r}: learn.json records no plan this smsim reads ({exc})") from None
    return plan, Rules.from_dict(manifest.get("rules", {}))


def saved_round(path: Path, plan: LearnPlan, round_no: int) -> Model:
    """Round ``round_no``'s model as an earlier sitting saved it. It is read, not fitted again: the
    next round's labels were taught over it, and a fit by a later smsim could differ. A model that
    this plan did not write is refused."""
    model = Model.load(path)
    training = model.training if isinstance(model.training, dict) else {}
    rounds = training.get("rounds") if isinstance(training.get("rounds"), list) else []
    numbers = [r.get("round") if isinstance(r, dict) else None for r in rounds]
    if training.get("plan") != plan.to_dict() or numbers != list(range(1, round_no + 1)):
        raise LearnError(
            f"{str(path)!r} was not saved by this plan's round {round_no}; remove it (and the rounds "
            "after it) to fit it again"
        )
    return model


def learn(
    plan: LearnPlan,
    out: str | Path,
    rules: Rules | None = None,
    threads: int | None = None,
    on_progress: Callable[[str, int], None] | None = None,
    on_round: Callable[[int, pd.DataFrame, list[float], dict[str, float]], None] | None = None,
    command: list[str] = (),
    until_gain: float | None = None,
) -> LearnResult:
    """Run the plan's rounds into ``out`` (resumable) and return the last round's model.

    After each round its student plays GAIN_GAMES against three of the yardstick on the same games
    as the student before it (round 1: the base), and the paired gain is recorded in the model's
    training record. ``until_gain``: stop before ``plan.iterations`` once two rounds in a row
    gained less than this share (0.01: a point); a later run with more rounds goes on."""
    rules = rules or Rules()
    base = verify_plan(plan)
    threads = checks_threads(threads, error=LearnError)
    all_train, earlier = earlier_labels(plan, Path(out), rules)  # read, or refused, before anything is written
    if not check_out_dir(out, plan, rules):  # as given: a URL is refused, not made a local folder
        write_manifest(out, "learn", {"plan": plan.to_dict(), "rules": rules.to_dict(), "command": list(command)})
    out = Path(out)
    start = time.process_time()
    judged: list[pd.DataFrame] = []
    decisions: list[int] = []
    model = None
    history = []
    before = field_blocks(round_student(plan, out, 1), plan, rules, threads)
    gains: list[dict[str, float]] = []
    for round_no in range(1, plan.iterations + 1):
        if converged(gains, until_gain):
            break
        student = round_student(plan, out, round_no)  # round K's student is the model round K - 1 saved
        train, held = round_labels(plan, out, round_no, student, rules, threads, on_progress)
        all_train.append(train)
        decisions.append(int(train.groupby(["game", "decision"]).ngroups))
        saved = out / f"model-round-{round_no}.json"
        if saved.exists():  # ended in an earlier sitting: as saved, since it taught the next round's labels
            model = saved_round(saved, plan, round_no)
            history = list(model.training["rounds"])
            shares = list(history[-1]["selection_shares"])
        else:
            labels = pd.concat(all_train, ignore_index=True)
            training = {"plan": plan.to_dict(), "rounds": history}
            model, shares = fit_model(labels, base, plan, training, rules, threads)
        table = judge(held, model)
        judged.append(table)
        blocks = field_blocks(student_of(model.vector(), base), plan, rules, threads)
        gains.append(round_gain(blocks, before) if not saved.exists() else history[-1]["against_field"])
        before = blocks
        if not saved.exists():
            history.append(
                {
                    "round": round_no,
                    "decisions": decisions[-1],
                    "selection_shares": [round(x, 4) for x in shares],
                    "held_out": json.loads(table.round(4).to_json(orient="records")),
                    "against_field": {k: round(v, 4) for k, v in gains[-1].items()},
                    "recipe": recipe(plan, student, rules) | ({"labels_from": earlier} if earlier else {}),
                }
            )
            model.training = {"plan": plan.to_dict(), "rounds": list(history)}
            model.save(saved)
        if on_round is not None:
            on_round(round_no, table, shares, gains[-1])
    return LearnResult(model, judged, decisions, time.process_time() - start)


__all__ = [
    "LearnPlan",
    "LearnResult",
    "fit_model",
    "judge",
    "label_parts",
    "learn",
    "read_plan",
    "round_student",
    "verify_plan",
]
