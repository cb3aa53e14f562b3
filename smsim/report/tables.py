"""The balance tables behind ``smsim report`` and ``smsim plot``, from the seat and game tables.

Every function takes a :class:`ReportData` (the seats and games of one or more datasets, their
rules and where they came from) and returns a pandas DataFrame with plain numeric columns, one row
per group; rates come with Wilson 95% intervals (``*_lo``, ``*_hi``) and means with normal ones.
Notebook users get the same tables as the report:

>>> import smsim
>>> tables = smsim.report_tables(["runs/p4", "runs/cmp4"])   # doctest: +SKIP
>>> tables["seat_advantage"]                                # doctest: +SKIP

Intervals are 95%. Rows are grouped in clusters that may be correlated: the seats of one game, and
in a ``compare`` dataset all the games of one block (they share their dice). Where a group holds
several rows of a cluster, a rate's Wilson interval uses n deflated by the design effect (the
cluster-robust variance over the binomial one, at least 1) and a mean's standard error is the
larger of the independent and the cluster-robust one; where every row is its own cluster these
are the plain Wilson and normal intervals. The arithmetic is ``smsim.stats`` (``grouped_rate``,
``grouped_mean``), the same path ``smsim summary`` takes.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from smsim.errors import DatasetError
from smsim.intervals import MARGINS, difference_interval, margin_verdict
from smsim.rules import SIDE_NAMES, Rules
from smsim.runs.dataset import (  # the breakdown of the final score, one list for every table
    VP_LABELS,
    done_parts,
    part_name,
    vp_sources,
    with_seat_vp,
)
from smsim.runs.folder import kind_of, read_manifest
from smsim.runs.storage import is_url
from smsim.stats import grouped_mean, grouped_rate, grouped_share
from smsim.studies.bonus import TABLE_COLUMNS as BONUS_COLUMNS
from smsim.studies.bonus import bonus_text, read_bonus
from smsim.studies.compare import read_comparison
from smsim.studies.ladder import DEPTH_COLUMNS, step_verdict
from smsim.studies.skill import LADDER, LEVELS, level_name
from smsim.studies.sweep import read_sweep, variant_set_from_datasets, variant_set_from_sweep

BY = ["players", "policy"]
SIZES = range(1, 6)
LEVEL_ORDER = LEVELS
"""The policies of the levels of play and below them, weakest first (``studies.skill.LEVELS``): the
order of the rows of the dice decisions."""
EARNED_SOURCES = ("vp_citizen", "vp_priest", "vp_houses", "vp_juggler", "vp_noble", "vp_wall_bonus")


@dataclass
class Source:
    """One dataset read into a report."""

    path: str
    kind: str  # "simulate" or "compare"
    players: int
    games: int
    field: str  # who sat at the table: the seat policies, or the policies a comparison rotated
    command: str
    seed: int | None
    comparison: dict[str, pd.DataFrame] = field(default_factory=dict)  # compare: policies, pairs, ratings
    fair_seating: bool = False  # seat effects alone: one policy in every seat, or every arrangement
    seat_policies: tuple[str, ...] = ()  # simulate: the policy of each seat
    planned: int = 0  # the games the run was started for (a resumable run may hold fewer so far)
    level: int = 0  # a mirror of the ladder's level k (1 = L1); 0: not a level of the ladder
    number: int = 0  # its rows' ``source`` value: its place among the datasets read

    @property
    def upper_level(self) -> bool:
        """A mirror of a level above the first: described by the ladders alone."""
        return self.level > 1


@dataclass
class ReportData:
    """Seats and games of every dataset given (``source`` and ``field`` columns say which),
    their common rules and their provenance."""

    seats: pd.DataFrame
    games: pd.DataFrame
    rules: Rules
    sources: list[Source]
    # the wall-bonus ablations among the folders (studies.bonus.TABLE_COLUMNS, every player count
    # and policy): no rows of a source, so every selection keeps them whole (``bonus_value``)
    bonus: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=BONUS_COLUMNS))

    @property
    def n_games(self) -> int:
        return len(self.games)

    def select(self, indices: list[int]) -> ReportData:
        """The rows and provenance of the sources ``indices`` (places in ``sources``) alone (rows
        keep their ``source`` number and cluster, so intervals are the same as in the whole)."""
        keep = sorted(set(indices))
        numbers = [self.sources[i].number for i in keep]

        def pick(df: pd.DataFrame) -> pd.DataFrame:
            return df[df["source"].isin(numbers)].reset_index(drop=True) if len(df) else df

        return ReportData(pick(self.seats), pick(self.games), self.rules, [self.sources[i] for i in keep], self.bonus)

    def main(self) -> ReportData:
        """Every source but the mirrors of the ladder's upper levels: what the report's tables
        describe (the upper levels are set beside the first in the ladders alone)."""
        if not any(src.upper_level for src in self.sources):
            return self
        return self.select([i for i, src in enumerate(self.sources) if not src.upper_level])


# -- reading -------------------------------------------------------------------------------------
def _narrow(df: pd.DataFrame) -> pd.DataFrame:
    """Smallest integer dtypes: a report of millions of games must fit in memory."""
    for col in df.columns:
        if pd.api.types.is_integer_dtype(df[col]) and df[col].dtype.itemsize > 1:
            df[col] = pd.to_numeric(df[col], downcast="integer")
    return df


def _read_parquets(files: list[Path], seats: bool = False) -> pd.DataFrame:
    frames = []
    for f in files:
        try:
            df = _narrow(pq.read_table(f).to_pandas())
            frames.append(with_seat_vp(df) if seats else df)
        except Exception as exc:  # pyarrow raises several kinds for a damaged file
            raise DatasetError(f"{str(f)!r} cannot be read ({exc})") from None
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def kinds_of(paths: list[str | Path], kinds: dict[str, str | None] | None = None) -> dict[str, str | None]:
    """What each path holds (``folder.kind_of``), asked once: those ``kinds`` already says are kept."""
    return {str(p): kind_of(p) for p in paths if str(p) not in (kinds or {})} | (kinds or {})


def _read_one(path: Path, kind: str | None) -> tuple[pd.DataFrame, pd.DataFrame, dict, Source]:
    if kind == "comparison":
        saved = read_comparison(path)
        manifest = saved.manifest
        seats, games = _narrow(saved.seats), _narrow(saved.games)
        for df in (seats, games):  # the games of a block share its index; game_id is unique
            if "game_id" in df:
                df["game"] = df["game_id"]
        policies = manifest.get("policies", [])
        rules = manifest["rules"]
        src = Source(
            str(path),
            "compare",
            int(games["players"].iloc[0]) if len(games) else 0,
            len(games),
            f"compare: {', '.join(policies)} (every seat arrangement)",
            " ".join(manifest.get("command", [])),
            manifest.get("seed"),
            saved.tables,
            fair_seating=True,
        )
        return seats, games, rules, src
    manifest = read_manifest(path, "dataset")  # refuses anything but a dataset, with a clear message
    parts = sorted(done_parts(path))
    seats = _read_parquets([path / "seats" / part_name(k) for k in parts], seats=True)
    games = _read_parquets([path / "games" / part_name(k) for k in parts])
    run = manifest["run"]
    names = [p["name"] for p in run["policies"]]
    src = Source(
        str(path),
        "simulate",
        int(run["players"]),
        len(games),
        "seats: " + ", ".join(names),
        " ".join(manifest.get("command", []))
        if isinstance(manifest.get("command"), list)
        else str(manifest.get("command", "")),
        run.get("seed"),
        fair_seating=len(set(names)) == 1,
        seat_policies=tuple(names),
        planned=int(run.get("games", len(games))),
    )
    return seats, games, run["rules"], src


def read_report_data(
    paths: list[str | Path], ladder: tuple[str, ...] = LADDER, kinds: dict[str, str | None] | None = None
) -> ReportData:
    """Read datasets (``smsim simulate --out``) and comparisons (``smsim compare --out``) for one
    report. They must share their rules: a report describes one rules configuration (rules
    variants are compared beside it: ``split_variants``). Wall-bonus ablations (``smsim
    bonus-value --out``) among ``paths`` are read into ``ReportData.bonus`` (``bonus_value``);
    they must be under the same rules, one per player count and policy.

    ``ladder``: the policies of the strengths of play, weakest first (``studies.skill.LADDER``:
    ``balanced``, ``learned``, ``rollout-learned``). A mirror dataset (one policy in every seat)
    of one of them is a sample of that level (``Source.level``); the levels above the first are
    kept out of the report's tables and set beside the first in the ladders (``report.ladder``).
    ``kinds``: what each path holds, where the caller asked already (``kinds_of``)."""
    if not paths:
        raise DatasetError("no dataset given")
    kinds = kinds_of(paths, kinds)
    ablations = [p for p in paths if kinds[str(p)] == "bonus"]
    paths = [p for p in paths if kinds[str(p)] != "bonus"]
    if not paths:
        raise DatasetError("no dataset given beside the wall-bonus ablations")
    seat_frames, game_frames, sources = [], [], []
    rules_dict = None
    for i, p in enumerate(paths):
        path = Path(p)
        if not path.is_dir():
            raise DatasetError(f"{str(path)!r} is not a directory")
        seats, games, rules, src = _read_one(path, kinds[str(p)])
        src.number = i
        if src.kind == "simulate" and len(set(src.seat_policies)) == 1 and src.seat_policies[0] in ladder:
            src.level = ladder.index(src.seat_policies[0]) + 1
        if rules_dict is None:
            rules_dict, first = rules, path
        elif rules != rules_dict:
            diff = sorted(k for k in set(rules) | set(rules_dict) if rules.get(k) != rules_dict.get(k))
            raise DatasetError(
                f"{str(path)!r} uses other rules than {str(first)!r} ({', '.join(diff)}); "
                "report one rules configuration at a time"
            )
        if len(seats):
            # rows that share dice or a table: a comparison's block, else one game
            for df in (seats, games):
                unit = df["block"] if "block" in df else df["game"]
                df["cluster"] = np.int64(i) << 40 | unit.to_numpy(np.int64)
            seats["source"] = i
            seats["field"] = src.field
            games["source"] = i
            games["field"] = src.field
        seat_frames.append(seats)
        game_frames.append(games)
        sources.append(src)
    seats = (
        pd.concat([f for f in seat_frames if len(f)], ignore_index=True)
        if any(len(f) for f in seat_frames)
        else pd.DataFrame()
    )
    games = (
        pd.concat([f for f in game_frames if len(f)], ignore_index=True)
        if any(len(f) for f in game_frames)
        else pd.DataFrame()
    )
    for df in (seats, games):
        for col in ("policy", "field"):
            if col in df:
                df[col] = df[col].astype("category")
    rules = Rules.from_dict(rules_dict)
    return ReportData(seats, games, rules, sources, _ablations(ablations, rules))


def _ablations(paths: list[str | Path], rules: Rules) -> pd.DataFrame:
    """The wall-bonus ablations' tables (``studies.bonus``), one of each player count and policy,
    each made under the report's rules."""
    frames, seen = [], {}
    for p in paths:
        result = read_bonus(p)
        if result.rules != rules:
            diff = sorted(
                k
                for k in set(result.rules.to_dict()) | set(rules.to_dict())
                if result.rules.to_dict().get(k) != rules.to_dict().get(k)
            )
            raise DatasetError(
                f"{str(p)!r} is a wall-bonus ablation under other rules than the report's "
                f"({', '.join(diff)}); report one rules configuration at a time"
            )
        key = (result.players, result.policy)
        if key in seen:
            raise DatasetError(
                f"{str(p)!r} and {seen[key]!r} are both wall-bonus ablations of {key[0]} players and {key[1]}; give one"
            )
        seen[key] = str(p)
        if len(result.table):
            frames.append(result.table)
    return pd.concat(frames, ignore_index=True)[BONUS_COLUMNS] if frames else pd.DataFrame(columns=BONUS_COLUMNS)


# -- building blocks -----------------------------------------------------------------------------
def _add_rate(out: pd.DataFrame, rate: pd.DataFrame, name: str) -> None:
    """Join the rate ``name`` and its interval from a ``grouped_rate`` table into ``out``."""
    for col in (name, f"{name}_lo", f"{name}_hi"):
        out[col] = rate[col]


def _empty(columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(columns=columns)


# -- church series -------------------------------------------------------------------------------
def church_series(data: ReportData) -> pd.DataFrame:
    """Per player count and policy: church VP, churches built, series per seat and the longest
    series, as a distribution (share of seats whose longest series has length 0..5)."""
    s = data.seats
    if s.empty:
        return _empty(BY)
    out = grouped_mean(s, BY, s["church_vp"], "church_vp")
    out.insert(0, "seats", s.groupby(BY, observed=True).size())
    out["churches"] = s.groupby(BY, observed=True)["church_count"].mean()
    out["series"] = s[[f"series_{k}" for k in SIZES]].sum(axis=1).groupby([s[b] for b in BY], observed=True).mean()
    out["longest_mean"] = s.groupby(BY, observed=True)["longest_series"].mean()
    for k in range(6):
        _add_rate(out, grouped_rate(s, BY, s["longest_series"] == k, f"longest_{k}"), f"longest_{k}")
    return out.reset_index()


def church_sizes(data: ReportData) -> pd.DataFrame:
    """Per player count and policy: churches of each size built per seat, and the share of seats
    that built at least one of that size (with its interval)."""
    s = data.seats
    if s.empty:
        return _empty(BY)
    grouped = s.groupby(BY, observed=True)
    out = pd.DataFrame({"seats": grouped.size()})
    for k in SIZES:
        out[f"size_{k}_per_seat"] = grouped[f"churches_{k}"].mean()
        r = grouped_rate(s, BY, s[f"churches_{k}"] > 0, f"size_{k}_built")
        out[[f"size_{k}_built", f"size_{k}_built_lo", f"size_{k}_built_hi"]] = r[
            [f"size_{k}_built", f"size_{k}_built_lo", f"size_{k}_built_hi"]
        ]
    return out.reset_index()


def series_lengths(data: ReportData) -> pd.DataFrame:
    """Per player count and policy: church series of each length 1..5 per seat."""
    s = data.seats
    if s.empty:
        return _empty(BY)
    out = s.groupby(BY, observed=True)[[f"series_{k}" for k in SIZES]].mean()
    out.insert(0, "seats", s.groupby(BY, observed=True).size())
    return out.reset_index()


def priests(data: ReportData) -> pd.DataFrame:
    """Per player count and policy: VP priests earned per seat, and how often a seat's priests
    earned anything."""
    s = data.seats
    if s.empty:
        return _empty(BY)
    out = grouped_mean(s, BY, s["vp_priest"], "priest_vp")
    r = grouped_rate(s, BY, s["vp_priest"] > 0, "priest_scored")
    out.insert(0, "seats", r["n"])
    out[["priest_scored", "priest_scored_lo", "priest_scored_hi"]] = r[
        ["priest_scored", "priest_scored_lo", "priest_scored_hi"]
    ]
    return out.reset_index()


# -- wall bonuses --------------------------------------------------------------------------------
def _bonus_text(rules: Rules, i: int) -> str:
    return bonus_text(rules, i)


def sides(data: ReportData) -> pd.DataFrame:
    """Per player count, policy and side: how often the side was completed (interval), the mean
    and median round of completion (0-based) among seats that completed it, and its bonus."""
    s = data.seats
    if s.empty:
        return _empty(BY + ["side"])
    rows = []
    for i, side in enumerate(SIDE_NAMES):
        r = grouped_rate(s, BY, s[f"{side}_completed"], "completed")
        done = s[s[f"{side}_completed"]]
        rounds = done.groupby(BY, observed=True)[f"{side}_round"]
        r["round_mean"] = rounds.mean()
        r["round_median"] = rounds.median()
        r["side"] = pd.Categorical([side] * len(r), categories=list(SIDE_NAMES))
        r["bonus"] = _bonus_text(data.rules, i)
        rows.append(r.reset_index())
    out = pd.concat(rows, ignore_index=True)
    cols = BY + [
        "side",
        "bonus",
        "n",
        "completed_count",
        "completed",
        "completed_lo",
        "completed_hi",
        "round_mean",
        "round_median",
    ]
    return out[cols].sort_values(BY + ["side"], kind="stable").reset_index(drop=True)


def bonus_value(data: ReportData) -> pd.DataFrame:
    """What each side's bonus is worth to a seat, by ablation: the same games played with one seat
    denied that bonus (each seat in turn), per player count, level of play and side (board order:
    top, right, bottom, left); its value by the rules (face VP: VP as they are, coins at the
    end-of-game rate, a person none), the games of each setup, and the seat's win share (shared
    wins split) and final VP with the bonus minus without it, each with its 95% interval over games;
    the share of seats that completed the side with and without its bonus. Empty where no ablation
    was given (``studies.bonus``, ``smsim bonus-value``)."""
    t = data.bonus
    if t.empty:
        return pd.DataFrame(columns=BONUS_COLUMNS)
    out = t.assign(_side=t["side"].map(list(SIDE_NAMES).index), _level=t["policy"].map(_level_order))
    out = out.sort_values(["players", "_level", "policy", "_side"], kind="stable")
    return out.drop(columns=["_side", "_level"]).reset_index(drop=True)[BONUS_COLUMNS]


def _level_order(policy: str) -> int:
    """The ladder's levels first, weakest first; other policies after them."""
    return LADDER.index(policy) if policy in LADDER else len(LADDER)


AGREE_COLUMNS = [
    "players",
    "policy",
    "sides",
    "win_diff",
    "win_diff_lo",
    "win_diff_hi",
    "vp_diff",
    "vp_diff_lo",
    "vp_diff_hi",
    "agree",
    "verdict",
]


def sides_agree(table: pd.DataFrame, margins: dict[str, float] = MARGINS) -> pd.DataFrame:
    """Whether sides with the same bonus are worth the same, per player count and policy of a
    ``bonus_value`` table: for each pair of sides whose bonus reads alike (the printed game's
    right and left, 2 coins each), the second's value minus the first's in win share and VP, with
    the 95% interval of a difference of two independent figures (``intervals.difference_interval``;
    the two share their baseline games, which only narrows the true interval). ``agree``: both
    intervals hold 0. ``verdict``: the size rule (``intervals.margin_verdict``) on the VP
    difference with ``margins["vp"]``: "the same", "moves" or "not settled"."""
    rows = []
    for (players, policy), g in table.groupby(["players", "policy"], sort=False):
        g = g.reset_index(drop=True)
        for i in range(len(g)):
            for j in range(i + 1, len(g)):
                a, b = g.iloc[i], g.iloc[j]
                if a["bonus"] != b["bonus"]:
                    continue
                win = difference_interval(
                    *(tuple(float(r[f"win_change{x}"]) for x in ("", "_lo", "_hi")) for r in (a, b))
                )
                vp = difference_interval(
                    *(tuple(float(r[f"vp_change{x}"]) for x in ("", "_lo", "_hi")) for r in (a, b))
                )
                agree = all(lo <= 0 <= hi for _, lo, hi in (win, vp))
                rows.append(
                    {
                        "players": players,
                        "policy": policy,
                        "sides": f"{b['side']} - {a['side']}",
                        "win_diff": win[0],
                        "win_diff_lo": win[1],
                        "win_diff_hi": win[2],
                        "vp_diff": vp[0],
                        "vp_diff_lo": vp[1],
                        "vp_diff_hi": vp[2],
                        "agree": agree,
                        "verdict": margin_verdict(vp[1], vp[2], margins["vp"]),
                    }
                )
    return pd.DataFrame(rows, columns=AGREE_COLUMNS)


def _attack_rows(data: ReportData) -> pd.DataFrame:
    """One row per seat per attack that came: players, policy, row (1-based), strength, defence,
    complete sides."""
    s = data.seats
    frames = []
    for row, strength in enumerate(data.rules.pirate_strengths, start=1):
        col = f"defence_attack_{row}"
        if s.empty or col not in s:
            continue
        came = s[col] >= 0
        if not came.any():
            continue
        part = s.loc[came, BY + (["cluster"] if "cluster" in s else [])].copy()
        part["attack"] = row
        part["strength"] = strength
        part["defence"] = s.loc[came, col].astype(np.int64)
        part["sides"] = s.loc[came, f"sides_attack_{row}"].astype(np.int64) if f"sides_attack_{row}" in s else -1
        frames.append(part)
    if not frames:
        return _empty(BY + ["attack", "strength", "defence", "sides"])
    return pd.concat(frames, ignore_index=True)


def wall_defence(data: ReportData) -> pd.DataFrame:
    """Per player count, policy and attack: how often the seat held (defence >= strength), how
    often its complete sides alone would have held (``walls_held``), and of the attacks it held,
    the share its walls carried (``walls_carried`` = walls alone held / held); plus the mean share
    of defence that came from walls."""
    a = _attack_rows(data)
    if a.empty:
        return _empty(BY + ["attack"])
    by = BY + ["attack"]
    walls = a["sides"] * data.rules.side_defence
    held = a["defence"] >= a["strength"]
    out = grouped_rate(a, by, held, "held")
    r = grouped_rate(a, by, walls >= a["strength"], "walls_held")
    out[["walls_held", "walls_held_lo", "walls_held_hi"]] = r[["walls_held", "walls_held_lo", "walls_held_hi"]]
    c = grouped_rate(a[held], by, (walls >= a["strength"])[held], "walls_carried")
    out = out.join(c[["walls_carried", "walls_carried_lo", "walls_carried_hi"]])
    defended = a["defence"] > 0
    share = grouped_mean(a[defended], by, (walls / a["defence"])[defended], "wall_share_of_defence")
    out = out.join(share)
    out.insert(0, "strength", a.groupby(by, observed=True)["strength"].first())
    return out.reset_index()


# -- pirate losses -------------------------------------------------------------------------------
def attacks(data: ReportData) -> pd.DataFrame:
    """Per player count and attack (row of the pirate track): how often it came (interval) and
    its round (0-based) when it did: mean, 10th, 50th and 90th percentile."""
    g = data.games
    if g.empty:
        return _empty(["players", "attack"])
    rows = []
    for row, strength in enumerate(data.rules.pirate_strengths, start=1):
        col = f"attack_{row}_round"
        if col not in g:
            continue
        r = grouped_rate(g, ["players"], g[col] >= 0, "came").rename(columns={"n": "games"})
        came = g[g[col] >= 0].groupby("players")[col]
        r["round_mean"] = came.mean()
        for q in (10, 50, 90):
            r[f"round_p{q}"] = came.quantile(q / 100)
        r.insert(0, "strength", strength)
        r.insert(0, "attack", row)
        rows.append(r.drop(columns="came_count").reset_index())
    return pd.concat(rows, ignore_index=True) if rows else _empty(["players", "attack"])


def attacks_per_game(data: ReportData) -> pd.DataFrame:
    """Per player count: mean attacks per game (interval) and the share of games with 0..N attacks."""
    g = data.games
    if g.empty:
        return _empty(["players"])
    out = grouped_mean(g, ["players"], g["attacks"], "attacks")
    out.insert(0, "games", g.groupby("players").size())
    for k in range(len(data.rules.pirate_strengths) + 1):
        _add_rate(out, grouped_rate(g, ["players"], g["attacks"] == k, f"share_{k}"), f"share_{k}")
    return out.reset_index()


def cannons(data: ReportData) -> pd.DataFrame:
    """Per player count and policy: cannons lost per seat (interval), their VP, and how often a
    seat lost at least one."""
    s = data.seats
    if s.empty:
        return _empty(BY)
    out = grouped_mean(s, BY, s["cannons_lost"], "cannons_lost")
    out["cannon_vp"] = s.groupby(BY, observed=True)["cannon_vp"].mean()
    r = grouped_rate(s, BY, s["cannons_lost"] > 0, "lost_any")
    out.insert(0, "seats", r["n"])
    out[["lost_any", "lost_any_lo", "lost_any_hi"]] = r[["lost_any", "lost_any_lo", "lost_any_hi"]]
    return out.reset_index()


def defence_vs_strength(data: ReportData) -> pd.DataFrame:
    """Per player count and attack: its strength, the seats' mean, 10th, 50th and 90th percentile
    defence, and how often a seat held (interval)."""
    a = _attack_rows(data)
    if a.empty:
        return _empty(["players", "attack"])
    by = ["players", "attack"]
    out = grouped_rate(a, by, a["defence"] >= a["strength"], "held")
    grouped = a.groupby(by)["defence"]
    out.insert(0, "strength", a.groupby(by)["strength"].first())
    out.insert(1, "defence_mean", grouped.mean())
    for q in (10, 50, 90):
        out[f"defence_p{q}"] = grouped.quantile(q / 100)
    return out.reset_index()


def _winner_sets(s: pd.DataFrame, score: pd.Series) -> pd.Series:
    """Per game (source, game): the seats ranked first by ``score``, ties broken by more empty
    spaces (docs/rules.md §4), as a bit mask."""
    key = [s["source"], s["game"]]
    best = score.groupby(key).transform("max")
    top = score == best
    best_empty = s["empty_left"].where(top, -1).groupby(key).transform("max")
    first = top & (s["empty_left"] == best_empty)
    bits = pd.Series(np.left_shift(first.to_numpy(np.int64), s["seat"].to_numpy(np.int64)), index=s.index)
    return bits.groupby(key).sum()


def cannons_changed_winner(data: ReportData) -> pd.DataFrame:
    """Per player count: how often the winners would differ if no cannon had been lost (scores
    without the cannon penalty, same tie-break), with its interval."""
    s = data.seats
    if s.empty:
        return _empty(["players"])
    actual = _winner_sets(s, s["total"].astype(np.int64))
    without = _winner_sets(s, s["total"].astype(np.int64) - s["cannon_vp"].astype(np.int64))
    per_game = s.groupby(["source", "game"])
    changed = actual != without
    df = pd.DataFrame(
        {
            "players": per_game["players"].first(),
            "changed": changed,
            "cluster": per_game["cluster"].first() if "cluster" in s else 0,
        }
    )
    return grouped_rate(df, ["players"], df["changed"], "changed").rename(columns={"n": "games"}).reset_index()


# -- outcomes ------------------------------------------------------------------------------------
def win_share(seats: pd.DataFrame) -> pd.Series:
    """Each seat row's share of its game's win: 1 for a sole winner, 1/k for each of k winners
    who share the win, 0 for the others. The seats of a game add up to one win, so the win rates
    of a player count's seats add up to 100% and parity is 1 / players. The winners of a game are
    its seats with ``won`` (the game table's ``winners``); a game is its ``source`` and ``game``."""
    won = seats["won"].astype(np.float64)
    keys = [seats[c] for c in ("source", "game") if c in seats]
    winners = won.groupby(keys, observed=True).transform("sum")
    return (won / winners.where(winners > 0)).fillna(0.0)


def scores(data: ReportData) -> pd.DataFrame:
    """Per player count and policy: final VP mean (interval), standard deviation and percentiles,
    and the win rate (a shared win split between its winners: ``win_share``) with its interval
    (``stats.grouped_share``)."""
    s = data.seats
    if s.empty:
        return _empty(BY)
    out = grouped_mean(s, BY, s["total"], "vp")
    grouped = s.groupby(BY, observed=True)["total"]
    out["vp_sd"] = grouped.std(ddof=1)
    for q in (10, 50, 90):
        out[f"vp_p{q}"] = grouped.quantile(q / 100)
    r = grouped_share(s, BY, win_share(s), "win")
    out.insert(0, "seats", r["n"])
    out[["win", "win_lo", "win_hi"]] = r[["win", "win_lo", "win_hi"]]
    return out.reset_index()


def seat_advantage(data: ReportData) -> pd.DataFrame:
    """Per player count, field (who sat at the table) and seat (0 starts: seat 1 on the page): the
    win rate (a shared win split between its winners: ``win_share``, so the seats add up to 100%)
    with its interval (``stats.grouped_share``) beside parity (1 / players), and the mean VP.
    ``fair_seating`` says whether the seat's effect is measured alone: the same policy in every
    seat, or a comparison's every arrangement; with different fixed policies per seat, seat and
    policy are confounded."""
    s = data.seats
    if s.empty:
        return _empty(["players", "field", "seat"])
    by = ["players", "field", "seat"]
    out = grouped_share(s, by, win_share(s), "win")
    out["parity"] = 1.0 / out.index.get_level_values("players")
    out = out.join(grouped_mean(s, by, s["total"], "vp"))
    fair = {src.field: src.fair_seating for src in data.sources}
    out["fair_seating"] = [fair.get(f, False) for f in out.index.get_level_values("field")]
    return out.reset_index()


def game_length(data: ReportData) -> pd.DataFrame:
    """Per player count: rounds per game, mean (interval) and percentiles, and the games the
    engine's safety cap stopped."""
    g = data.games
    if g.empty:
        return _empty(["players"])
    out = grouped_mean(g, ["players"], g["rounds"], "rounds")
    grouped = g.groupby("players")["rounds"]
    out.insert(0, "games", grouped.size())
    for q in (10, 50, 90):
        out[f"rounds_p{q}"] = grouped.quantile(q / 100)
    out["aborted"] = g.groupby("players")["aborted"].sum()
    return out.reset_index()


def _sources(data: ReportData) -> tuple[str, ...]:
    """The final score's parts (``dataset.VP_SOURCES``); ``seat_vp`` only where the rules give a
    seat VP compensation (a designer's variant, docs/rules.md §7), to spare the printed game's
    report a column of zeros."""
    return vp_sources(any(data.rules.seat_vp))


def vp_by_source(data: ReportData) -> pd.DataFrame:
    """Per player count and policy: mean VP from each source (they sum to the total; ``seat_vp``,
    the seat compensation, only where the rules give one), and the VP earned during play split by
    its source."""
    s = data.seats
    if s.empty:
        return _empty(BY)
    out = s.groupby(BY, observed=True)[list(_sources(data)) + ["total"] + list(EARNED_SOURCES)].mean()
    out.insert(0, "seats", s.groupby(BY, observed=True).size())
    return out.reset_index()


def game_end(data: ReportData) -> pd.DataFrame:
    """Per player count and field: how the game ended: the share of games ended by each seat
    filling its city first (``seat_0``, the start player's, is seat 1 on the page), the share in
    which two or more cities were full at the end, and the share the engine's safety cap stopped
    (``aborted_share``), each with its interval."""
    g = data.games
    if g.empty:
        return _empty(["players", "field"])
    by = ["players", "field"]
    out = pd.DataFrame({"games": g.groupby(by, observed=True).size()})
    for seat in range(int(g["players"].max())):
        rate = grouped_rate(g, by, g["ended_by"] == seat, f"seat_{seat}")
        _add_rate(out, rate, f"seat_{seat}")
        out.loc[
            out.index.get_level_values("players") <= seat, [f"seat_{seat}", f"seat_{seat}_lo", f"seat_{seat}_hi"]
        ] = np.nan
    full = g["filled_seats"].map(lambda m: bin(int(m)).count("1"))
    _add_rate(out, grouped_rate(g, by, full > 1, "several_full"), "several_full")
    _add_rate(out, grouped_rate(g, by, g["aborted"].astype(bool), "aborted_share"), "aborted_share")
    out = out.reset_index()
    seat_cols = [c for k in range(int(g["players"].max())) for c in (f"seat_{k}", f"seat_{k}_lo", f"seat_{k}_hi")]
    rest = [c for c in out.columns if c not in seat_cols and c not in ("players", "field", "games")]
    return out[["players", "field", "games", *seat_cols, *rest]]


TABLES: dict[str, Callable[[ReportData], pd.DataFrame]] = {
    "church_series": church_series,
    "church_sizes": church_sizes,
    "series_lengths": series_lengths,
    "priests": priests,
    "sides": sides,
    "bonus_value": bonus_value,
    "wall_defence": wall_defence,
    "attacks_per_game": attacks_per_game,
    "attacks": attacks,
    "cannons": cannons,
    "defence_vs_strength": defence_vs_strength,
    "cannons_changed_winner": cannons_changed_winner,
    "scores": scores,
    "seat_advantage": seat_advantage,
    "game_length": game_length,
    "vp_by_source": vp_by_source,
    "game_end": game_end,
}


def report_tables(paths: list[str | Path]) -> dict[str, pd.DataFrame]:
    """Every table of ``smsim report`` for these datasets, by name (the keys of ``TABLES``)."""
    data = read_report_data(paths)
    return {name: fn(data) for name, fn in TABLES.items()}


# -- the headline figures ------------------------------------------------------------------------
def church_vp_share(data: ReportData) -> pd.DataFrame:
    """Per player count and policy: church VP as a share of all final VP (the sum of ``church_vp``
    over the sum of ``total``: the ratio of ``vp_by_source``'s two means). Its interval is the
    delta method's: the cluster-aware interval (``grouped_mean``) of the mean of the linearised
    values (church VP - share x total) / mean total, which is 0, moved onto the share."""
    s = data.seats
    if s.empty:
        return _empty(BY)
    g = s.groupby(BY, observed=True)
    church, total = s["church_vp"].astype(np.float64), s["total"].astype(np.float64)
    share_row = church.groupby([s[b] for b in BY], observed=True).transform("sum") / total.groupby(
        [s[b] for b in BY], observed=True
    ).transform("sum")
    mean_total = total.groupby([s[b] for b in BY], observed=True).transform("mean")
    lin = grouped_mean(s, BY, (church - share_row * total) / mean_total, "z")
    share = g["church_vp"].sum().astype(np.float64) / g["total"].sum().astype(np.float64)
    out = pd.DataFrame({"seats": g.size(), "church_vp_share": share})
    out["church_vp_share_lo"] = share + (lin["z_lo"] - lin["z"])
    out["church_vp_share_hi"] = share + (lin["z_hi"] - lin["z"])
    return out.reset_index()


def vp_source_means(data: ReportData) -> pd.DataFrame:
    """Per player count, policy and ``vp_source`` (``_sources`` and ``total``): the mean VP per seat
    from it, as in ``vp_by_source``, with its interval (``grouped_mean``)."""
    s = data.seats
    if s.empty:
        return _empty(BY + ["vp_source", "vp", "vp_lo", "vp_hi"])
    rows = []
    for src in (*_sources(data), "total"):
        m = grouped_mean(s, BY, s[src], "vp").reset_index()
        m.insert(len(BY), "vp_source", src)
        rows.append(m)
    return pd.concat(rows, ignore_index=True)


@dataclass(frozen=True)
class Figure:
    """One headline figure of a sample: what it is, its value with its 95% interval, the rows it
    averages (``n``: seats, games, attacks met or completers, for its effect size) and its parity
    (NaN where it has none)."""

    figure: str
    item: str
    label: str
    unit: str  # "rate" (of yes-or-no rows), "share" (of VP, shown in percent), "vp" or "rounds"
    section: str  # the report section it heads
    value: float
    lo: float
    hi: float
    n: int
    parity: float = np.nan


def unit_form(unit: str, signed: bool = False, words: bool = False, fit: bool = False) -> dict:
    """How the report and the terminal write a figure of ``unit`` (``intervals.interval_text``'s
    options): a rate or a share in percent, a difference of rates ("points", or a signed rate) in
    signed points, anything else (VP, rounds, counts) with two decimals. ``words``: a sentence's
    unit after the value (" points", " VP", " rounds"; "%" always); ``fit``: a percentage to the
    decimals its interval needs rather than one."""
    if unit in ("rate", "share", "points"):
        pct = unit != "points" and not signed
        return {
            "digits": None if fit else 1,
            "scale": 100,
            "signed": not pct,
            "unit": "%" if pct else " points" if words else "",
            "guard": () if pct else _guard(MARGINS["points"]),
        }
    return {
        "digits": 2,
        "signed": signed,
        "unit": {"vp": " VP", "rounds": " rounds"}.get(unit, "") if words else "",
        "guard": _guard(MARGINS.get(unit, math.nan)) if signed else (),
    }


def _guard(margin: float) -> tuple[float, ...]:
    """The thresholds a difference's verdict judges it against (``intervals.interval_text``'s
    ``guard``): no change, and the margin on either side; a rounded bound never crosses them."""
    return (0.0,) if not math.isfinite(margin) else (-margin, 0.0, margin)


RATE, POINTS, POINTS_SAID = unit_form("rate"), unit_form("points"), unit_form("points", words=True)
"""A rate in percent, ``63.1% [62.0, 64.2]``, and a difference of rates in points, ``+5.2 [+4.9, +5.5]``,
in a sentence ``+5.2 points [+4.9, +5.5]``."""


HEADLINE_SECTIONS = {
    "church_vp_share": "Church series",
    "wall_bonus": "Wall bonuses",
    "cannons_changed_winner": "Pirate losses",
    "attack_held": "Pirate losses",
    "seat_win": "Outcomes",
    "vp_by_source": "Outcomes",
    "game_length": "Outcomes",
}
"""Each headline figure and the section it heads, in the report's order."""

VP_SOURCE_SECTIONS = {"church_vp": "Church series", "cannon_vp": "Pirate losses"}
"""The VP sources shown in their own topic's section rather than under outcomes."""


def headline_figures(data: ReportData) -> list[Figure]:
    """The headline figures of a mirror sample of one player count, in the report's order, each
    from the report's own table: ``church_vp_share``, ``bonus_value`` (its ``vp_change``: the
    ablation of the sample's player count and policy, where one was given; ``n`` its games),
    ``cannons_changed_winner``, ``defence_vs_strength``, ``seat_advantage``, ``vp_source_means``
    and ``game_length``. ``n`` is the independent units behind a figure: its games (the games an
    attack came, for an attack), since the seats of a game are not independent of each other."""
    out: list[Figure] = []
    games = data.n_games
    sec = HEADLINE_SECTIONS
    for r in church_vp_share(data).itertuples():
        out.append(
            Figure(
                "church_vp_share",
                "",
                "Church VP share of total VP",
                "share",
                sec["church_vp_share"],
                r.church_vp_share,
                r.church_vp_share_lo,
                r.church_vp_share_hi,
                games,
            )
        )
    for r in sample_bonus_value(data).itertuples():
        if np.isfinite(r.vp_change):
            out.append(
                Figure(
                    "wall_bonus",
                    r.side,
                    f"The {r.side} side's bonus ({r.bonus}): VP it is worth, with minus without",
                    "vp",
                    sec["wall_bonus"],
                    r.vp_change,
                    r.vp_change_lo,
                    r.vp_change_hi,
                    int(r.games),
                )
            )
    for r in cannons_changed_winner(data).itertuples():
        out.append(
            Figure(
                "cannons_changed_winner",
                "",
                "Cannon losses change the winner",
                "rate",
                sec["cannons_changed_winner"],
                r.changed,
                r.changed_lo,
                r.changed_hi,
                int(r.games),
            )
        )
    for r in defence_vs_strength(data).itertuples():
        out.append(
            Figure(
                "attack_held",
                str(r.attack),
                f"Attack {r.attack} (strength {r.strength}) held by a seat",
                "rate",
                sec["attack_held"],
                r.held,
                r.held_lo,
                r.held_hi,
                int(r.n) // int(r.players),
            )
        )
    for r in seat_advantage(data).itertuples():
        who = " (the start player)" if r.seat == 0 else ""
        out.append(
            Figure(
                "seat_win",
                str(r.seat),
                f"Seat {r.seat + 1}{who} wins",
                "rate",
                sec["seat_win"],
                r.win,
                r.win_lo,
                r.win_hi,
                int(r.n),
                r.parity,
            )
        )
    for r in vp_source_means(data).itertuples():
        out.append(
            Figure(
                "vp_by_source",
                r.vp_source,
                f"Mean VP per seat: {VP_LABELS[r.vp_source]}",
                "vp",
                VP_SOURCE_SECTIONS.get(r.vp_source, sec["vp_by_source"]),
                r.vp,
                r.vp_lo,
                r.vp_hi,
                games,
            )
        )
    for r in game_length(data).itertuples():
        out.append(
            Figure(
                "game_length",
                "",
                "Game length (rounds)",
                "rounds",
                sec["game_length"],
                r.rounds,
                r.rounds_lo,
                r.rounds_hi,
                int(r.games),
            )
        )
    return out


def sample_bonus_value(data: ReportData) -> pd.DataFrame:
    """The rows of ``bonus_value`` that describe the sample itself: its player counts, and the
    policies its mirror datasets play (a level of the ladder is one of them)."""
    t = bonus_value(data)
    if t.empty:
        return t
    players = {src.players for src in data.sources}
    mirrors = {src.seat_policies[0] for src in data.sources if len(set(src.seat_policies)) == 1}
    return t[t["players"].isin(players) & t["policy"].isin(mirrors)]


# -- rule variants -------------------------------------------------------------------------------
def _rules_of(path: Path, kind: str | None) -> tuple[dict, str, dict | None]:
    """A dataset's or comparison's rules, its kind ("simulate" or "compare") and a dataset's run."""
    if not path.is_dir():
        raise DatasetError(f"{str(path)!r} is not a directory")
    if kind == "comparison":
        return read_manifest(path, kind)["rules"], "compare", None
    run = read_manifest(path, "dataset")["run"]
    return run["rules"], "simulate", run


def split_variants(paths: list[str | Path], kinds: dict[str, str | None] | None = None) -> tuple[list[str], list]:
    """The datasets a report describes, and the rules variants it compares (``sweep.VariantSet``).

    A sweep directory (``smsim sweep --out``) gives its variants; when only sweeps are given, the
    report describes their baselines. Datasets whose rules differ are variants too: the report
    describes those with the standard rules (docs/rules.md), or else those with the first one's
    rules, and sets each other one beside a dataset it describes of the same players (the same
    policies and seed where there is one: then the differences are paired). ``kinds``: what each
    path holds, where the caller asked already (``kinds_of``). Wall-bonus ablations are handed
    on among the datasets described (``read_report_data`` reads them into ``ReportData.bonus``)."""

    kinds = kinds_of(paths, kinds)
    sweeps = [Path(p) for p in paths if kinds[str(p)] == "sweep"]
    ablations = [str(p) for p in paths if kinds[str(p)] == "bonus"]  # handed on to read_report_data
    rest = [Path(p) for p in paths if kinds[str(p)] not in ("sweep", "bonus")]
    sets = [variant_set_from_sweep(p) for p in sweeps]
    if not rest:
        return [str(read_sweep(p).dirs[0]) for p in sweeps] + ablations, sets
    found = {p: _rules_of(p, kinds[str(p)]) for p in rest}
    standard = Rules().to_dict()
    main_rules = standard if any(r == standard for r, _, _ in found.values()) else found[rest[0]][0]
    main = [p for p in rest if found[p][0] == main_rules]
    groups: dict[Path, list[Path]] = {}
    for p in rest:
        rules, kind, run = found[p]
        if rules == main_rules:
            continue
        if kind != "simulate":
            raise DatasetError(
                f"{str(p)!r} is a comparison with other rules than the report's; only `smsim "
                "simulate` datasets can be compared as rules variants"
            )
        names = [q["name"] for q in run["policies"]]

        def closeness(b: Path, run=run, names=names) -> tuple[int, int]:
            other = found[b][2]
            same_policies = [q["name"] for q in other["policies"]] == names
            return (same_policies, same_policies and other["seed"] == run["seed"])

        bases = [b for b in main if found[b][1] == "simulate" and found[b][2]["players"] == run["players"]]
        if not bases:
            raise DatasetError(
                f"{str(p)!r} uses other rules than the report's datasets, and none of them is a "
                f"`smsim simulate` dataset of {run['players']} players to compare it with"
            )
        groups.setdefault(max(bases, key=closeness), []).append(p)
    sets += [variant_set_from_datasets(b, others) for b, others in groups.items()]
    return [str(p) for p in main] + ablations, sets


# -- which games the headline describes ---------------------------------------------------------
def glance_sources(data: ReportData) -> dict[int, int]:
    """Per player count, the source whose games the at-a-glance row, the headline rows of every
    table and the seat, cannon, attack and wall findings describe: the mirror of the ladder's
    first level (L1, ``balanced`` in every seat) where there is one, else the dataset with the
    most games among those that measure the seat effect alone (one policy in every seat, or a
    comparison's every arrangement), else the one with the most games. One source, so that one
    game count stands behind every number of a row, and the ladder's L1 is the same games."""
    best: dict[int, tuple[bool, bool, int, int]] = {}
    for i, src in enumerate(data.sources):
        if src.upper_level or src.games == 0:
            continue
        key = (src.level == 1, src.fair_seating, src.games, -i)
        if src.players not in best or key > best[src.players]:
            best[src.players] = key
    return {p: -k[3] for p, k in sorted(best.items())}


def glance_data(data: ReportData) -> ReportData:
    """The at-a-glance sources' games alone (``glance_sources``)."""
    return data.select(list(glance_sources(data).values()))


def short_field(field: str) -> str:
    """A legend label for a table line-up (``ReportData`` field)."""
    kind, _, names = field.partition(": ")
    names = names.replace(" (every seat arrangement)", "").split(", ")
    if kind == "compare":
        return f"compare, {len(names)} policies"
    return f"all {names[0]}" if len(set(names)) == 1 else ", ".join(names)[:40]


# -- the ladder of play, shown ordered (smsim ladder), and the dice decisions (smsim regret) --------
LADDER_STEP_COLUMNS = [
    "players",
    "lower",
    "upper",
    "check",
    "parity",
    "head_games",
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
    "field_games",
    "field_diff",
    "field_lo",
    "field_hi",
    "field_verdict",
    "field",
    "seed",
]


def ladder_steps(ladders: list, margin: float = MARGINS["share"]) -> pd.DataFrame:
    """Each step of the ladders given (``studies.ladder.LadderResult``s) at each player count, one
    row (``LADDER_STEP_COLUMNS``): the upper rung's head-to-head win share with its interval, its
    edge over parity and VP over the lower seats, and against the fixed field the paired difference
    of the seat's win share, upper minus lower, each with its games (``field``: who the field is);
    the check rung's step marked.
    The verdicts are ``studies.ladder.step_verdict``'s, judged here against ``margin`` (the report's
    ``MARGINS["share"]``, as ``smsim ladder`` judges them), so that ``--margin`` moves them too.
    Two ladders measuring the same step at the same player count are refused (give one)."""
    rows, seen = [], {}
    for res in ladders:
        for r in res.steps.itertuples():
            key = (int(r.players), r.lower, r.upper)
            if key in seen:
                raise DatasetError(
                    f"{res.path!r} and {seen[key]!r} both measure the step {r.lower} → {r.upper} at "
                    f"{key[0]} players; give one"
                )
            seen[key] = res.path
            rows.append(
                {
                    **{c: getattr(r, c) for c in LADDER_STEP_COLUMNS if hasattr(r, c)},
                    "players": int(r.players),
                    "check": bool(r.check),
                    "head_games": int(r.head_games),
                    "field_games": int(r.field_games),
                    "verdict": step_verdict(r.edge, r.edge_lo, r.edge_hi, margin),
                    "field_verdict": step_verdict(r.field_diff, r.field_lo, r.field_hi, margin),
                    "field": ", ".join(res.plan.field),
                    "seed": res.plan.seed,
                }
            )
    t = pd.DataFrame(rows, columns=LADDER_STEP_COLUMNS)
    return t.sort_values(["check", "players"], kind="stable", ignore_index=True) if len(t) else t


def ladder_depth(ladders: list) -> pd.DataFrame:
    """The depth tables of the ladders given (``studies.ladder.depth_table``: per 2-player step its
    60%-steps, then the chain from the lowest rung to the top and, where that is only a bound, the
    part measured), one after the other with each ladder's seed."""
    frames = [res.depth.assign(seed=res.plan.seed) for res in ladders if len(res.depth)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*DEPTH_COLUMNS, "seed"])


KEEP_REGRET_COLUMNS = [
    "players",
    "policy",
    "level",
    "against",
    "oracle",
    "seat_games",
    "keeps_per_game",
    "regret_per_game",
    "regret_lo",
    "regret_hi",
    "regret_per_keep",
    "errors_per_game",
    "error_rate",
    "seed",
]


def keep_regret(regrets: list[pd.DataFrame]) -> pd.DataFrame:
    """The keep-regret tables given (``studies.regret.read_regret``), one row per policy judged
    (``KEEP_REGRET_COLUMNS``): its level's name (``studies.skill.level_name``), the line-up it was
    judged in (``against``: empty for a mirror), the stated value (``oracle``), the keep regret per
    game in VP with its 95% interval, per keep decision, and the error rate (keeps losing more than
    ``policies.exact_keep.ERROR_VP``). The levels of the ladder first, weakest first, then the
    rest in the order given; a policy judged twice in one line-up at one player count is refused."""
    rows, seen = [], {}
    for t in regrets:
        a = t.attrs
        for r in t.itertuples():
            key = (int(a["players"]), r.policy, a.get("against"), a.get("oracle"))
            if key in seen:
                raise DatasetError(
                    f"{a.get('path', '')!r} and {seen[key]!r} both judge the keeps of {r.policy} at "
                    f"{key[0]} players in one line-up; give one"
                )
            seen[key] = a.get("path", "")
            rows.append(
                {
                    "players": key[0],
                    "policy": r.policy,
                    "level": level_name(r.policy),
                    "against": a.get("against") or "",
                    "oracle": a.get("oracle", ""),
                    **{c: getattr(r, c) for c in KEEP_REGRET_COLUMNS[5:-1]},
                    "seed": a.get("seed"),
                }
            )
    t = pd.DataFrame(rows, columns=KEEP_REGRET_COLUMNS)
    rank = [LEVEL_ORDER.index(p) if p in LEVEL_ORDER else len(LEVEL_ORDER) for p in t["policy"]]
    return (
        t.assign(_rank=rank).sort_values(["players", "_rank"], kind="stable", ignore_index=True).drop(columns="_rank")
    )


def naming_root(paths: list[str]):
    """How a report names the datasets it read: by their folders under the one that holds them all
    (``runs/...`` as the user gave them, never the machine's absolute path), in a table's paths and
    in the commands that wrote them. Returns the function that rewrites a text so."""
    local = [os.path.abspath(p) for p in paths if p and not is_url(p)]
    if not local:
        return lambda text: text
    root = os.path.dirname(os.path.commonpath(local))
    prefix = root.rstrip(os.sep) + os.sep

    def shown(text):
        if not isinstance(text, str):
            return text
        if os.path.isabs(text) and text.startswith(prefix):
            return text[len(prefix) :]
        return text.replace(prefix, "")

    return shown
