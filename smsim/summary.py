"""Headline tables of a batch of games, for pandas users and the terminal (rich).

``summary_tables`` is the single source: ``smsim summary --format csv|json|markdown`` prints
its tables and ``print_tables`` renders the same numbers for the terminal; ``print_comparison``
renders the tables of a comparison (``smsim compare``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table

from smsim.ratings import elo_points
from smsim.stats import Z_95, add_cluster_sums, cluster_sums, clustered_mean, clustered_rate

# the final score's breakdown: the parts sum to ``total``. ``seat_vp`` is the seat compensation of a
# designer's variant (rules seat_vp, docs/rules.md §7), 0 in the printed game: tables for people
# show it only where a seat has some (``vp_sources``).
VP_SOURCES = ("earned", "church_vp", "coins_vp", "logs_vp", "full_city_vp", "cannon_vp", "seat_vp")


def vp_sources(seat_vp: bool) -> tuple[str, ...]:
    """``VP_SOURCES``, without ``seat_vp`` where no seat has a VP compensation."""
    return VP_SOURCES if seat_vp else tuple(src for src in VP_SOURCES if src != "seat_vp")


def with_seat_vp(seats: pd.DataFrame) -> pd.DataFrame:
    """A seat table read from a dataset written before seat compensation existed gets its
    ``seat_vp`` column: 0, as it was then."""
    if len(seats.columns) and "seat_vp" not in seats:
        seats["seat_vp"] = np.zeros(len(seats), dtype=np.int16)
    return seats


SEAT_COLUMNS = ("game", "policy", "seat", "won", "shared", "total", "cannons_lost", "longest_series", "sides_completed",
                *VP_SOURCES)  # fmt: skip
GAME_COLUMNS = ("players", "rounds", "aborted", "winners", "attacks")
VP_OFFSET = 200  # VP histograms cover -200 .. 799


class SummaryAccumulator:
    """Running sums from which every headline table follows exactly, fed a part at a time, so
    summarising a dataset of any size takes the memory of one part. Percentiles come from the
    integer VP histogram (the smallest VP with at least q of the seats at or below it).

    Intervals are those of ``smsim report`` (``smsim.stats``): the seats of one game are one
    cluster (they share its dice and its winner), and the cluster sums of the win flag and the VP
    add up chunk by chunk, so the interval is exactly the one computed from every row at once."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, object], dict] = {}
        self.game_sums = {"games": 0, "rounds": 0.0, "aborted": 0, "shared_wins": 0, "attacks": 0.0}
        self.players = 0
        self.sums: dict[tuple[str, str], pd.DataFrame] = {}  # (by, figure) -> cluster sums per group

    def _group(self, by: str, key) -> dict:
        k = (by, key)
        if k not in self.groups:
            self.groups[k] = {"n": 0, "wins": 0, "shared": 0, "sum": 0.0, "cannons": 0.0,
                              "hist": np.zeros(1000, dtype=np.int64), "series": np.zeros(6, dtype=np.int64),
                              "sides": np.zeros(5, dtype=np.int64), "church_vp": 0.0,
                              **{src: 0.0 for src in VP_SOURCES}}  # fmt: skip
        return self.groups[k]

    def add(self, seats: pd.DataFrame, games: pd.DataFrame) -> None:
        for by in ("policy", "seat"):
            for figure in ("won", "total"):  # games never span chunks: their clusters are whole here
                new = cluster_sums([seats[by]], seats[figure], seats["game"])
                new.index = new.index.astype(str) if by == "policy" else new.index.astype(int)
                self.sums[by, figure] = add_cluster_sums(self.sums.get((by, figure)), new)
            for key, g in seats.groupby(by, observed=True):
                acc = self._group(by, str(key) if by == "policy" else int(key))
                total = g["total"].to_numpy(np.int64)
                acc["n"] += len(g)
                acc["wins"] += int(g["won"].sum())
                acc["shared"] += int(g["shared"].sum())
                acc["sum"] += float(total.sum())
                acc["cannons"] += float(g["cannons_lost"].sum())
                acc["hist"] += np.bincount(np.clip(total + VP_OFFSET, 0, 999), minlength=1000)
                acc["series"] += np.bincount(g["longest_series"].to_numpy(np.int64), minlength=6)[:6]
                acc["sides"] += np.bincount(g["sides_completed"].to_numpy(np.int64), minlength=5)[:5]
                for src in VP_SOURCES:
                    acc[src] += float(g[src].sum())
        n = len(games)
        if n:
            self.players = int(games["players"].iloc[0])
            self.game_sums["games"] += n
            self.game_sums["rounds"] += float(games["rounds"].sum())
            self.game_sums["aborted"] += int(games["aborted"].sum())
            self.game_sums["shared_wins"] += int((games["winners"] > 1).sum())
            self.game_sums["attacks"] += float(games["attacks"].sum())

    def add_part(self, path, k: int) -> None:
        """Add part k of the dataset at ``path``, a row group (one chunk of games) at a time."""
        import pyarrow.parquet as pq

        from smsim.dataset import part_name

        seat_file = pq.ParquetFile(path / "seats" / part_name(k))
        game_file = pq.ParquetFile(path / "games" / part_name(k))
        columns = [c for c in SEAT_COLUMNS if c in seat_file.schema_arrow.names]  # seat_vp: since format 3
        for g in range(seat_file.num_row_groups):
            self.add(with_seat_vp(seat_file.read_row_group(g, columns=columns).to_pandas()),
                     game_file.read_row_group(g, columns=list(GAME_COLUMNS)).to_pandas())  # fmt: skip

    def rates(self, by: str) -> pd.DataFrame:
        rows = {}
        won = clustered_rate(self.sums[by, "won"], "win")
        vp = clustered_mean(self.sums[by, "total"], "vp")
        for (b, key), acc in self.groups.items():
            if b != by:
                continue
            n = acc["n"]
            mean = acc["sum"] / n
            lo, hi = won.loc[key, "win_lo"], won.loc[key, "win_hi"]
            vlo, vhi = vp.loc[key, "vp_lo"], vp.loc[key, "vp_hi"]
            cum = np.cumsum(acc["hist"])
            pct = {f"vp_p{q}": float(np.searchsorted(cum, q / 100 * n) - VP_OFFSET) for q in (10, 50, 90)}
            rows[key] = {"seats": n, "wins": acc["wins"], "shared_wins": acc["shared"], "win_rate": acc["wins"] / n,
                         "win_lo": lo, "win_hi": hi, "vp_mean": mean, "vp_lo": vlo, "vp_hi": vhi, **pct,
                         "cannons_lost": acc["cannons"] / n}  # fmt: skip
        out = pd.DataFrame.from_dict(rows, orient="index").sort_index()
        out.index.name = by
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        policies = {key: acc for (b, key), acc in self.groups.items() if b == "policy"}
        names = sorted(policies)
        sources = pd.DataFrame({src: [policies[k][src] / policies[k]["n"] for k in names] for src in VP_SOURCES},
                               index=pd.Index(names, name="policy"))  # fmt: skip
        sources["total"] = [policies[k]["sum"] / policies[k]["n"] for k in names]
        series = pd.DataFrame([policies[k]["series"] / policies[k]["n"] for k in names],
                              index=pd.Index(names, name="policy"), columns=[f"longest_{i}" for i in range(6)])  # fmt: skip
        series["church_vp"] = sources["church_vp"]
        sides = pd.DataFrame([policies[k]["sides"] / policies[k]["n"] for k in names],
                             index=pd.Index(names, name="policy"), columns=[f"sides_{i}" for i in range(5)])  # fmt: skip
        sides["mean"] = [(policies[k]["sides"] * np.arange(5)).sum() / policies[k]["n"] for k in names]
        gs = self.game_sums
        n = max(gs["games"], 1)
        game_stats = pd.DataFrame({
            "games": [gs["games"]], "players": [self.players], "rounds_mean": [gs["rounds"] / n],
            "aborted": [gs["aborted"]], "shared_wins": [gs["shared_wins"]], "attacks_mean": [gs["attacks"] / n],
        }, index=pd.Index(["all"], name="games"))  # fmt: skip
        return {"by_policy": self.rates("policy"), "by_seat": self.rates("seat"), "vp_by_source": sources,
                "church_series": series, "sides_completed": sides, "games": game_stats}  # fmt: skip


def summary_tables(seats: pd.DataFrame, games: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every headline table: by policy, by seat, VP by source, church series, sides completed,
    and the games."""
    acc = SummaryAccumulator()
    acc.add(seats, games)
    return acc.tables()


def summarise_dataset(path) -> tuple[dict[str, pd.DataFrame], int, int]:
    """The headline tables of a dataset on disk, part by part; (tables, games done, games planned)."""
    from pathlib import Path

    from smsim.dataset import done_parts, read_manifest

    path = Path(path)
    manifest = read_manifest(path)
    acc = SummaryAccumulator()
    for k in sorted(done_parts(path)):  # a row group (one chunk of games) at a time: flat memory
        acc.add_part(path, k)
    return acc.tables(), acc.game_sums["games"], manifest["run"]["games"]


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def print_tables(tables: dict[str, pd.DataFrame], elapsed: float | None = None, console: Console | None = None) -> None:
    """Print the headline tables for the terminal."""
    console = console or Console(width=max(100, Console().width))
    g = tables["games"].iloc[0]
    n_games = int(g["games"])
    speed = f", {n_games / elapsed:,.0f} games/s" if elapsed else ""
    console.print(
        f"[bold]{n_games:,} games[/], {int(g['players'])} players{speed}; mean {g['rounds_mean']:.1f} rounds, "
        f"{int(g['aborted'])} aborted, {int(g['shared_wins'])} with a shared win"
    )
    t = Table(title="Results by policy (shared wins count as wins; 95% intervals)")
    for col in ("policy", "seats", "win rate", "95% CI", "mean VP", "95% CI", "VP p10/p50/p90", "cannons lost"):
        t.add_column(col, justify="right")
    for key, row in tables["by_policy"].iterrows():
        t.add_row(str(key), f"{int(row.seats):,}", _pct(row.win_rate), f"{_pct(row.win_lo)} - {_pct(row.win_hi)}",
                  f"{row.vp_mean:.1f}", f"{row.vp_lo:.1f} - {row.vp_hi:.1f}",
                  f"{row.vp_p10:.0f} / {row.vp_p50:.0f} / {row.vp_p90:.0f}", f"{row.cannons_lost:.2f}")
    console.print(t)
    t = Table(title="Mean VP by source")
    sources = vp_sources(bool((tables["vp_by_source"]["seat_vp"] != 0).any()))
    headers = {"earned": "earned in play", "church_vp": "churches", "coins_vp": "coins", "logs_vp": "logs",
               "full_city_vp": "full city", "cannon_vp": "cannons", "seat_vp": "seat compensation"}  # fmt: skip
    for col in ("policy", *(headers[c] for c in sources), "total"):
        t.add_column(col, justify="right")
    for key, row in tables["vp_by_source"].iterrows():
        t.add_row(str(key), *(f"{row[c]:.1f}" for c in sources), f"{row.total:.1f}")
    console.print(t)
    t = Table(title="Longest church series (share of seats) and sides completed")
    for col in ("policy", *(f"series {k}" for k in range(6)), "mean sides"):
        t.add_column(col, justify="right")
    for key, row in tables["church_series"].iterrows():
        t.add_row(str(key), *(_pct(row[f"longest_{k}"]) for k in range(6)),
                  f"{tables['sides_completed'].loc[key, 'mean']:.2f}")
    console.print(t)
    t = Table(title="Results by seat (seat 0 starts)")
    for col in ("seat", "seats", "win rate", "95% CI", "mean VP", "95% CI"):
        t.add_column(col, justify="right")
    for key, row in tables["by_seat"].iterrows():
        t.add_row(str(key), f"{int(row.seats):,}", _pct(row.win_rate), f"{_pct(row.win_lo)} - {_pct(row.win_hi)}",
                  f"{row.vp_mean:.1f}", f"{row.vp_lo:.1f} - {row.vp_hi:.1f}")
    console.print(t)


def print_comparison(result, console: Console | None = None) -> None:
    """Print a comparison's tables (``smsim.comparison.Comparison``) for the terminal: per
    policy, then the mean VP difference of every pair."""
    console = console or Console(width=max(100, Console().width))
    played = result.blocks * result.games_per_block
    console.print(f"[bold]{played:,} games[/], {result.players} players: {result.blocks:,} blocks of "
                  f"{result.games_per_block} seat arrangements on the same dice")  # fmt: skip
    t = Table(title="Policies (95% intervals over blocks; shared wins split)")
    for col in ("policy", "win share", "95% CI", "mean VP", "95% CI", "cannons lost", "rating (Elo scale)"):
        t.add_column(col, justify="right")
    order = list(result.table.sort_values("win_share", ascending=False).index)
    for name in order:
        row = result.table.loc[name]
        t.add_row(name, _pct(row.win_share), f"{100 * row.win_lo:.1f} - {100 * row.win_hi:.1f}%",
                  f"{row.vp_mean:.1f}", f"{row.vp_lo:.1f} - {row.vp_hi:.1f}", f"{row.cannons_lost:.2f}",
                  f"{row.elo:.0f} +- {elo_points(Z_95 * row.log_strength_se):.0f}")  # fmt: skip
    console.print(t)
    t = Table(title="Mean VP difference, row minus column, in the same blocks (95% CI)")
    t.add_column("")
    for b in order:
        t.add_column(b, justify="right")
    pairs = result.pairs.set_index(["a", "b"])
    for a in order:
        cells = []
        for b in order:
            if a == b:
                cells.append("")
            else:
                r = pairs.loc[(a, b)]
                cells.append(f"{r.vp_diff:+.1f} [{r.lo:+.1f}, {r.hi:+.1f}]")
        t.add_row(a, *cells)
    console.print(t)


SWEEP_HEADINGS = {"start_edge": "start edge", "cannons_changed_winner": "cannons change winner",
                  "cannons_lost": "cannons lost", "vp_total": "VP per seat", "church_vp_share": "church VP share",
                  "rounds": "rounds"}  # fmt: skip
"""Short column headings of the headline metrics (``sweep.HEADLINE``) for narrow tables."""


def _metric_text(value: float, unit: str, signed: bool = False) -> str:
    if not np.isfinite(value):
        return "-"
    if unit == "points" and not signed:
        return f"{100 * value:+.1f} pts"
    if unit in ("rate", "points"):
        return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}%"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def print_sweep(table: pd.DataFrame, games: int, console: Console | None = None) -> None:
    """Print a sweep's headline metrics (``sweep.variant_table``) for the terminal: the baseline's
    value, then each variant's paired difference from it with its 95% interval, and how much the
    common dice narrowed those intervals."""
    from smsim.sweeps import BASELINE, HEADLINE, variance_reduction

    console = console or Console(width=max(140, Console().width))
    variants = list(dict.fromkeys(table["variant"]))
    console.print(f"[bold]{len(variants)} variants[/] x {games:,} games on common dice (game g has the same dice "
                  "in every variant)")  # fmt: skip
    t = Table(title="The baseline's values; each variant's paired difference from the baseline ± its 95% "
                    "interval (rates in points)")  # fmt: skip
    t.add_column("variant", no_wrap=True)
    rows = table.set_index(["variant", "metric"])
    for key in HEADLINE:
        t.add_column(SWEEP_HEADINGS[key], justify="right")
    for v in variants:
        cells = []
        for key in HEADLINE:
            r = rows.loc[(v, key)]
            if v == BASELINE:
                cells.append(_metric_text(r.value, r.unit))
            else:
                half = (r.diff_hi - r.diff_lo) / 2  # a normal interval: symmetric
                cells.append(f"{_metric_text(r['diff'], r.unit, True)} ± {_metric_text(half, r.unit)}".replace("%", ""))
        t.add_row(v, *cells)
    console.print(t)
    vr = variance_reduction(table)
    if len(vr):
        median = float(vr["narrower"].median())
        console.print(f"Paired intervals are {median:.2f}x narrower than two independent samples would give "
                      f"(median over {len(vr)} metrics; as many games as {median ** 2:.1f}x more unpaired).")  # fmt: skip
