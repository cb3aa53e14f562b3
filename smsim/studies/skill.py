"""How much skill matters (``smsim skill``): the win-rate matrix of levels of play, and the
skill gap under rules variants, paired on common dice.

A *level* is a policy of the ladder of play strengths: ``random``, ``greedy``, and the three the
report measures its figures at (``LADDER``): ``balanced`` (L1), ``learned`` (L2) and ``rollout``
over ``learned`` (L3). A *cell* of the matrix is one seat of the row's level against the column's
level in every other seat, played as ``smsim compare ROW COL COL ...``: every cyclic rotation of
that line-up on each block's dice, so the row's seat sits in every seat equally. Its figure is
the row seat's win share (a shared win split) with the normal 95% interval over independent
blocks; parity is 1 / players. At 2 players one comparison of the two levels gives both cells.

The *skill gap* (``GAP``) is the matrix cell of one L2 seat against L1 opponents, minus parity:
how much better than its share a player who plays better does. Under each rules variant the
same cell is played with the same seed, so block b meets the same dice under every variant
(docs/rules.md §8); the gap's change from the baseline is the mean of per-block differences, a
*paired* interval much narrower than two independent samples would give. A gap that grows under
a variant makes the game more a game of skill; one that shrinks, more a game of luck.

On disk a skill study is a directory: ``skill.json`` (the plan, written first), one Parquet file
per finished cell under ``cells/`` (each block's win shares and mean game length), and the result
tables ``matrix.csv`` and ``gaps.csv`` (written last). A rerun of the same plan plays only the
cells that are missing, so an interrupted study loses at most the cell in play.

>>> plan = plan_skill(players=4, levels=["greedy", "balanced"], games=400, seed=1)
>>> [(c.row, c.col) for c in plan.cells()]
[('greedy', 'balanced'), ('balanced', 'greedy')]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from smsim.checks import threads as checks_threads
from smsim.checks import whole
from smsim.errors import DatasetError, SkillError
from smsim.files import write_file, writing
from smsim.intervals import MARGINS, MOVES, SAME, Z_95, margin_verdict, mean_and_interval
from smsim.play.api import verify_players
from smsim.policies.registry import resolve_policy
from smsim.rules import Rules
from smsim.runs.dataset import policy_identity
from smsim.runs.folder import check_out, read_manifest, write_manifest
from smsim.runs.spec import MAX_GAMES, verify_games
from smsim.studies.compare import compare
from smsim.studies.sweep import BASELINE, Variant, plan_variants

LADDER = ("balanced", "learned", "rollout-learned")
"""The report's three strengths of play, weakest first: L1, L2 and L3."""

LEVELS = ("random", "greedy", *LADDER)
"""The levels of the skill matrix, weakest first: two below the ladder, then the ladder."""

DEFAULT_LEVELS = ("random", "greedy", "balanced", "learned")
"""The matrix ``smsim skill`` plays unless told otherwise: L3 costs thousands of times L2 a game, so it
is asked for by name, with a cap on its games (``--cap rollout-learned=400``)."""

GAP = ("learned", "balanced")
"""The skill gap: one seat of the first (L2) against the second (L1) in every other seat."""


def level_name(policy: str) -> str:
    """``balanced`` -> ``L1 balanced``: a ladder level's name with its rank; others as they are."""
    return f"L{LADDER.index(policy) + 1} {policy}" if policy in LADDER else policy


@dataclass(frozen=True)
class Cell:
    """One comparison of the study: ``row`` in one seat against ``col`` in the others, under the
    rules of ``variant`` (its index in the plan's variants), over ``games`` games."""

    variant: int
    row: str
    col: str
    games: int

    def lineup(self, players: int) -> list[str]:
        return [self.row] + [self.col] * (players - 1)

    def file(self) -> str:
        return f"{self.variant:02d}-{self.row}-vs-{self.col}.parquet"


@dataclass
class SkillPlan:
    """What a skill study plays: the levels of its matrix at ``players`` players, ``games`` games a
    cell (at most ``caps[level]`` in a cell with that level), and the skill gap under each of
    ``variants`` beyond the first (the baseline); every cell from ``seed``."""

    players: int
    levels: tuple[str, ...]
    games: int
    seed: int
    caps: dict[str, int] = field(default_factory=dict)
    variants: list[Variant] = field(default_factory=list)

    def cell_games(self, *levels: str) -> int:
        return min([self.games, *(self.caps[x] for x in levels if x in self.caps)])

    def gap_games(self) -> int:
        return self.cell_games(*GAP)

    def cells(self) -> list[Cell]:
        """The matrix's cells at the baseline (at 2 players one per pair: it gives both), then the
        skill gap's cell under every variant (the baseline's once, in the matrix or first)."""
        out = []
        for i, row in enumerate(self.levels):
            for j, col in enumerate(self.levels):
                if i != j and (self.players > 2 or i < j):
                    out.append(Cell(0, row, col, self.cell_games(row, col)))
        if len(self.variants) > 1:
            base_gap = Cell(0, *GAP, self.gap_games())
            if not any(self._same(c, base_gap) for c in out):
                out.append(base_gap)
            out += [Cell(k, *GAP, self.gap_games()) for k in range(1, len(self.variants))]
        return out

    def _same(self, a: Cell, b: Cell) -> bool:
        if a.variant != b.variant or a.games != b.games:
            return False
        return (a.row, a.col) == (b.row, b.col) or (self.players == 2 and (a.row, a.col) == (b.col, b.row))

    def identity(self) -> dict:
        """What makes two runs the same study: a directory of another identity is refused."""
        return {
            "players": self.players,
            "levels": list(self.levels),
            "games": self.games,
            "seed": self.seed,
            "caps": dict(sorted(self.caps.items())),
            "policies": {name: policy_identity(resolve_policy(name)) for name in sorted({*self.levels, *GAP})},
            "variants": [v.describe() for v in self.variants]
            or [{"name": BASELINE, "varied": {}, "rules": Rules().to_dict()}],
        }


def plan_skill(
    players: int,
    levels: list[str] = DEFAULT_LEVELS,
    games: int = 20_000,
    seed: int = 0,
    caps: dict[str, int] | None = None,
    variants: list[Variant] = (),
    rules: Rules | None = None,
) -> SkillPlan:
    """A skill study's plan, checked before anything is played: ``SkillError`` names what is wrong."""
    players = verify_players(players)
    games = verify_games(games)
    levels = tuple(levels)
    if len(levels) < 2:
        raise SkillError(f"a skill matrix needs at least 2 levels, got {', '.join(levels) or 'none'}")
    if len(set(levels)) != len(levels):
        raise SkillError(f"a level is named twice: {', '.join(levels)}")
    for name in levels:
        resolve_policy(name)  # an unknown one: PolicyError, one line
    caps = dict(caps or {})
    for name, cap in caps.items():
        if name not in (*levels, *GAP):
            raise SkillError(f"--cap {name}: not a level of this study ({', '.join(levels)})")
        caps[name] = whole(cap, f"--cap {name}", low=1, high=MAX_GAMES, error=SkillError)
    variants = list(variants)
    if variants and variants[0].name != BASELINE:
        raise SkillError("the first variant must be the baseline")
    if rules is not None and variants and variants[0].rules != rules:
        raise SkillError("the baseline variant's rules are not the study's rules")
    if rules is not None and not variants and rules != Rules():
        variants = [Variant(BASELINE, {}, rules)]
    return SkillPlan(players, levels, games, whole(seed, "seed", error=SkillError), caps, variants)


# -- playing ------------------------------------------------------------------------------------
def _rules_of(plan: SkillPlan, k: int) -> Rules:
    return plan.variants[k].rules if plan.variants else Rules()


def play_cell(plan: SkillPlan, cell: Cell, threads: int | None = None, on_progress=None) -> pd.DataFrame:
    """One cell's games: per block, the win share of the row's seat (and at 2 players the
    column's) and the block's mean game length."""
    result = compare(
        cell.lineup(plan.players),
        plan.players,
        cell.games,
        seed=plan.seed,
        rules=_rules_of(plan, cell.variant),
        threads=threads,
        on_progress=on_progress,
        keep_games=True,
    )
    names = list(result.table.index)
    shares = result.block_shares
    rounds = result.games.groupby("block")["rounds"].mean().sort_index().to_numpy(np.float64)
    out = pd.DataFrame(
        {
            "block": np.arange(result.blocks, dtype=np.int64),
            "row_share": shares[:, names.index(cell.row)],
            "col_share": shares[:, names.index(cell.col)] if plan.players == 2 else np.nan,
            "rounds": rounds,
        }
    )
    return out


def run_skill(
    plan: SkillPlan,
    out: str | Path,
    threads: int | None = None,
    command: list[str] = (),
    on_cell: Callable[[int, int, Cell], None] | None = None,
    on_progress=None,
) -> SkillResult:
    """Play the study's missing cells into ``out`` and write its tables; returns the result.
    ``on_cell(k, cells, cell)`` is called before cell k is played or read."""
    path = Path(out)
    if not check_out(out, "skill", plan.identity()):
        write_manifest(path, "skill", {"plan": plan.identity(), "command": list(command)})
    (path / "cells").mkdir(parents=True, exist_ok=True)
    cells = plan.cells()
    for k, cell in enumerate(cells):
        if on_cell is not None:
            on_cell(k, len(cells), cell)
        f = path / "cells" / cell.file()
        if not f.is_file():
            frame = play_cell(plan, cell, threads, on_progress)
            with writing(f) as tmp:  # whole or not at all: an interrupted cell is played again
                pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp)
    result = read_skill(path)
    write_file(path / "matrix.csv", result.matrix.to_csv(index=False))
    write_file(path / "gaps.csv", result.gaps.to_csv(index=False))
    return result


def skill(
    players: int,
    out: str | Path,
    levels: list[str] = DEFAULT_LEVELS,
    games: int = 20_000,
    seed: int = 0,
    caps: dict[str, int] | None = None,
    vary: list[str] = (),
    variants: list[str] = (),
    rules: Rules | None = None,
    threads: int | None = None,
) -> SkillResult:
    """A skill study from Python, as ``smsim skill``: the matrix of ``levels`` at ``players``
    players and, with ``vary`` (``field=v1,v2``) or ``variants`` (shipped names or
    ``NAME=FILE.toml``), the skill gap under each, each field alone around ``rules``.

    >>> result = smsim.skill(4, "runs/skill4", games=8000)   # doctest: +SKIP
    >>> result.matrix, result.gap()                          # doctest: +SKIP
    """
    threads = checks_threads(threads, error=SkillError)
    planned = plan_variants(list(vary), list(variants), True, rules) if vary or variants else []
    return run_skill(plan_skill(players, levels, games, seed, caps, planned, rules), out, threads)


# -- reading and the tables -----------------------------------------------------------------------
@dataclass
class SkillResult:
    """A skill study's tables: ``matrix`` (one row per cell: the row level's seat's win share
    against the column level, interval, blocks, games, parity) and ``gaps`` (one row per variant:
    the skill gap with its interval, its paired change from the baseline, the unpaired interval
    the same games would give independently, and the change in game length); ``gaps`` is empty
    where the study has no variants beyond its baseline."""

    path: str
    players: int
    seed: int
    levels: tuple[str, ...]
    matrix: pd.DataFrame
    gaps: pd.DataFrame
    variants: list[dict]
    command: str

    def gap(self) -> tuple[float, float, float, int] | None:
        """The baseline's skill gap (value, lo, hi, games), or None where the study lacks its cell."""
        if len(self.gaps) and self.gaps["variant"].iloc[0] == BASELINE:
            r = self.gaps.iloc[0]
            return float(r.gap), float(r.gap_lo), float(r.gap_hi), int(r.blocks) * self.players
        m = self.matrix
        r = m[(m["row"] == GAP[0]) & (m["col"] == GAP[1])]
        if r.empty or not np.isfinite(r["share"].iloc[0]):
            return None
        p = 1.0 / self.players
        return (
            float(r["share"].iloc[0] - p),
            float(r["lo"].iloc[0] - p),
            float(r["hi"].iloc[0] - p),
            int(r["games"].iloc[0]),
        )


def _summary(x: np.ndarray) -> tuple[float, float, float, int]:
    return mean_and_interval(np.asarray(x, dtype=np.float64))


def read_skill(path: str | Path) -> SkillResult:
    """Read a skill study's directory (finished cells; a cell not yet played is left out)."""
    path = Path(path)
    manifest = read_manifest(path, "skill")
    ident = manifest["plan"]
    players = int(ident["players"])
    variants = ident["variants"]
    plan = SkillPlan(
        players,
        tuple(ident["levels"]),
        int(ident["games"]),
        int(ident["seed"]),
        {k: int(v) for k, v in ident.get("caps", {}).items()},
        [Variant(v["name"], v.get("varied", {}), Rules.from_dict(v["rules"])) for v in variants],
    )
    parity = 1.0 / players
    rows, per_variant = [], {}
    for cell in plan.cells():
        f = path / "cells" / cell.file()
        if not f.is_file():
            continue
        try:
            blocks = pq.read_table(f).to_pandas()
        except Exception as exc:  # pyarrow raises several kinds for a damaged file
            raise DatasetError(f"{str(f)!r} cannot be read ({exc})") from None
        games = len(blocks) * players  # compare plays whole blocks of one game per seat
        if cell.variant == 0 and cell.row in plan.levels and cell.col in plan.levels:
            pairs = [(cell.row, cell.col, blocks["row_share"])]
            if players == 2:
                pairs.append((cell.col, cell.row, blocks["col_share"]))
            for row, col, shares in pairs:
                share, lo, hi, n = _summary(shares)
                rows.append(
                    {
                        "players": players,
                        "row": row,
                        "col": col,
                        "share": share,
                        "lo": lo,
                        "hi": hi,
                        "blocks": n,
                        "games": games,
                        "parity": parity,
                    }
                )
        if (cell.row, cell.col) == GAP:
            per_variant.setdefault(cell.variant, blocks)
        elif players == 2 and (cell.col, cell.row) == GAP:  # the matrix's cell of the pair, read from L2's side
            per_variant.setdefault(cell.variant, blocks.assign(row_share=blocks["col_share"]))
    matrix = pd.DataFrame(rows, columns=["players", "row", "col", "share", "lo", "hi", "blocks", "games", "parity"])
    gaps = _gap_table(per_variant, variants, parity) if len(variants) > 1 else pd.DataFrame(columns=GAP_COLUMNS)
    return SkillResult(
        str(path),
        players,
        int(ident["seed"]),
        plan.levels,
        matrix,
        gaps,
        variants,
        " ".join(manifest.get("command", [])),
    )


GAP_COLUMNS = [
    "variant",
    "changes",
    "gap",
    "gap_lo",
    "gap_hi",
    "blocks",
    "diff",
    "diff_lo",
    "diff_hi",
    "unpaired_lo",
    "unpaired_hi",
    "rounds",
    "rounds_diff",
    "rounds_diff_lo",
    "rounds_diff_hi",
]


def _paired(x: pd.Series, base: pd.Series) -> tuple[float, float, float, float, float]:
    """Mean of x minus base over the blocks both have: the paired interval, and the unpaired one."""
    both = pd.concat([x.rename("x"), base.rename("b")], axis=1).dropna()
    d, lo, hi, _ = _summary(both["x"] - both["b"])
    se = math.sqrt(both["x"].var(ddof=1) / len(both) + both["b"].var(ddof=1) / len(both)) if len(both) > 1 else math.inf
    return d, lo, hi, d - Z_95 * se, d + Z_95 * se


def _gap_table(per_variant: dict[int, pd.DataFrame], variants: list[dict], parity: float) -> pd.DataFrame:
    base = per_variant.get(0)
    rows = []
    for k, v in enumerate(variants):
        blocks = per_variant.get(k)
        if blocks is None:
            continue
        share, lo, hi, n = _summary(blocks["row_share"])
        row = {
            "variant": v["name"],
            "changes": ", ".join(f"{a} = {b}" for a, b in v.get("varied", {}).items()),
            "gap": share - parity,
            "gap_lo": lo - parity,
            "gap_hi": hi - parity,
            "blocks": n,
            "rounds": float(blocks["rounds"].mean()),
        }
        if k > 0 and base is not None:
            s, b = blocks.set_index("block"), base.set_index("block")
            row.update(
                dict(
                    zip(
                        ["diff", "diff_lo", "diff_hi", "unpaired_lo", "unpaired_hi"],
                        _paired(s["row_share"], b["row_share"]),
                    )
                )
            )
            rd, rlo, rhi, _, _ = _paired(s["rounds"], b["rounds"])
            row.update({"rounds_diff": rd, "rounds_diff_lo": rlo, "rounds_diff_hi": rhi})
        rows.append(row)
    return pd.DataFrame(rows, columns=GAP_COLUMNS)


GAP_VERDICTS = ("more skill", "more luck", "no change", "not settled", "no data")
"""What a variant can do to the skill gap (``gap_verdict``)."""


def gap_verdict(diff: float, lo: float, hi: float, margin: float = MARGINS["points"]) -> str:
    """What a variant does to the skill gap, judged by size from its paired 95% interval
    (``intervals.margin_verdict``) against ``margin`` (points of win share as a fraction: 0.01 is
    1 point): "more skill" or "more luck" where the interval lies wholly beyond the margin,
    "no change" where it lies inside it, "not settled" otherwise, "no data" where a number is missing.

    >>> gap_verdict(0.005, 0.001, 0.009), gap_verdict(0.005, 0.001, 0.009, margin=0.0005)
    ('no change', 'more skill')
    >>> gap_verdict(-0.03, -0.04, -0.02), gap_verdict(0.01, -0.002, 0.022)
    ('more luck', 'not settled')
    """
    if not all(np.isfinite(x) for x in (diff, lo, hi)):
        return "no data"
    said = margin_verdict(lo, hi, margin)
    if said == MOVES:
        return "more skill" if diff > 0 else "more luck"
    return "no change" if said == SAME else "not settled"


# -- the levels against one another -------------------------------------------------------------------
STRONGER, PARITY, WEAKER, UNSETTLED = "stronger", "parity", "weaker", "not settled"
"""A level against the one below it: its head-to-head interval above parity, inside parity ± the
margin (level), below parity, or holding parity but reaching past the margin (not settled: too
few games to say they are level) (``standing_of``)."""


def standing_of(lo: float, hi: float, parity: float, margin: float = MARGINS["share"]) -> str:
    """A head-to-head's 95% interval of the upper level's win share against parity: ``STRONGER``
    above it, ``WEAKER`` below it, ``PARITY`` (level) only where it lies inside parity ± ``margin``,
    else ``UNSETTLED``.

    >>> standing_of(0.52, 0.56, 0.5), standing_of(0.495, 0.505, 0.5), standing_of(0.491, 0.559, 0.5)
    ('stronger', 'parity', 'not settled')
    """
    if lo > parity:
        return STRONGER
    if hi < parity:
        return WEAKER
    return PARITY if parity - margin < lo and hi < parity + margin else UNSETTLED


def games_to_settle(lo: float, hi: float, games: int, margin: float = MARGINS["share"]) -> int:
    """About how many games a head-to-head needs for its interval to be as narrow as parity ± the
    margin (half-width ``margin``: the width at which it can be called level), from its interval on
    ``games`` games (the half-width falls as one over the root of the games).

    >>> games_to_settle(0.491, 0.559, 480, 0.01)
    5549
    """
    half = (hi - lo) / 2
    if not (np.isfinite(half) and half > 0 and games > 0):
        return 0
    return max(int(games), math.ceil(round(games * (half / margin) ** 2, 6)))  # rounded: no 7,201 for 7,200


STYLE_NOT_STRENGTH = "a difference of style, not of strength"
"""What the report calls a difference between two levels that are not ordered (``ordered_levels``)."""


def head_to_heads(skills: list, margin: float = MARGINS["share"]) -> pd.DataFrame:
    """Per player count, each ladder level against the one below it, from the skill studies'
    matrices: the upper level's seat's win share against the lower in every other seat (or, where
    only that cell was played, the lower's seat against the upper, read the other way), its
    interval, games and parity, and whether the upper is ``STRONGER``, at ``PARITY`` (the interval
    inside parity ± ``margin``: a difference of style, not of strength), ``WEAKER`` or
    ``UNSETTLED`` (``standing_of``), with the games that would settle it (``settle``)."""
    rows = []
    for res in sorted(skills, key=lambda r: r.players):
        m = res.matrix
        for lower, upper in pairwise(LADDER):
            if any(rw["players"] == res.players and rw["upper"] == upper for rw in rows):
                continue  # two studies of one player count: the first one read
            for seat, (row, col) in (("upper", (upper, lower)), ("lower", (lower, upper))):
                cell = m[(m["row"] == row) & (m["col"] == col)]
                if len(cell) and np.isfinite(cell["share"].iloc[0]):
                    c = cell.iloc[0]
                    parity = float(c["parity"])
                    standing = standing_of(float(c["lo"]), float(c["hi"]), parity, margin)
                    if seat == "lower":  # the lower level's seat among the upper, read the other way
                        standing = {STRONGER: WEAKER, WEAKER: STRONGER}.get(standing, standing)
                    rows.append(
                        {
                            "players": res.players,
                            "lower": lower,
                            "upper": upper,
                            "seat": seat,
                            "share": float(c["share"]),
                            "lo": float(c["lo"]),
                            "hi": float(c["hi"]),
                            "games": int(c["games"]),
                            "parity": parity,
                            "standing": standing,
                            "settle": games_to_settle(float(c["lo"]), float(c["hi"]), int(c["games"]), margin),
                        }
                    )
                    break
    cols = ["players", "lower", "upper", "seat", "share", "lo", "hi", "games", "parity", "standing", "settle"]
    return pd.DataFrame(rows, columns=cols)


def step_order(standing: str) -> bool | str:
    """What a step between two levels may say of a figure that moves across it: True (the upper is
    the stronger: a difference of strength), ``UNSETTLED`` (too few games to say: the step sets no
    verdict or direction), False (level, or the lower the stronger: a difference of style)."""
    return True if standing == STRONGER else UNSETTLED if standing == UNSETTLED else False


def ordered_levels(skills: list, players: int) -> dict[tuple[str, str], bool | str]:
    """Per pair of neighbouring ladder levels measured at ``players`` players, (lower, upper): what
    their head-to-head says of the step (``step_order``). Where it is False, the report calls a
    difference between the two a difference of style, not of strength; where ``UNSETTLED``, it
    says there are too few games at the upper level."""
    t = head_to_heads(skills)
    t = t[t["players"] == players]
    return {(r.lower, r.upper): step_order(r.standing) for r in t.itertuples()}
