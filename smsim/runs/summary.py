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

from smsim.studies.ratings import elo_points
from smsim.stats import SUM_COLUMNS, Z_95, clustered_mean, clustered_rate, interval_text

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


SUM_FIELDS = ("won", "shared", "total", "cannons_lost", *VP_SOURCES)  # summed per group (church_vp among them)
HIST_BINS, SERIES_BINS, SIDES_BINS = 1000, 6, 5


class SummaryAccumulator:
    """Running sums from which every headline table follows exactly, fed a chunk of games at a
    time, so summarising a run of any size takes the memory of one chunk. Every sum is a whole
    number held in int64 (float64 only where ``stats`` reads it), so chunks add up exactly and in
    any order: the threads of a run merge their chunks as they finish and the tables do not
    depend on which finished first. Percentiles come from the integer VP histogram (the smallest
    VP with at least q of the seats at or below it).

    Intervals are those of ``smsim report`` (``smsim.stats``): the seats of one game are one
    cluster (they share its dice and its winner), and the cluster sums (``stats.SUM_COLUMNS``) of
    the win flag and the VP add up chunk by chunk, so the interval is exactly the one computed
    from every row at once.

    Fed either a chunk's engine arrays (``add_arrays``: what a run playing games uses, no table
    built) or its seat and game tables (``add``: a dataset read back); both reduce to the same
    columns (``dataset.summary_columns``) and the same sums (``chunk_sums``)."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, object], dict] = {}
        self.game_sums = {"games": 0, "rounds": 0, "aborted": 0, "shared_wins": 0, "attacks": 0}
        self.players = 0

    # -- feeding ------------------------------------------------------------------------------------
    def add(self, seats: pd.DataFrame, games: pd.DataFrame) -> None:
        """Add a chunk given as its seat and game tables (whole games: a game's seats together)."""
        seat_cols = {c: seats[c].to_numpy() for c in ("game", "seat", "won", "shared", "total", "cannons_lost",
                                                     "longest_series", "sides_completed", *VP_SOURCES)}  # fmt: skip
        policy = seats["policy"]
        if not isinstance(policy.dtype, pd.CategoricalDtype):
            policy = policy.astype("category")
        game_cols = {c: games[c].to_numpy() for c in GAME_COLUMNS}
        self.merge(chunk_sums(seat_cols, policy.cat.codes.to_numpy(), [str(c) for c in policy.cat.categories],
                              game_cols))  # fmt: skip

    def add_arrays(self, score: np.ndarray, player: np.ndarray, game_out: np.ndarray, policy_names: list[str],
                   first: int) -> None:  # fmt: skip
        """Add a chunk given as the engine's arrays (score, player: [G, P, F]; game_out: [G, F])."""
        self.merge(arrays_sums(score, player, game_out, policy_names, first))

    def merge(self, sums: dict) -> None:
        """Add the sums of one chunk (``chunk_sums``)."""
        for key, new in sums["groups"].items():
            acc = self.groups.get(key)
            if acc is None:
                self.groups[key] = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in new.items()}
                continue
            for k, v in new.items():
                if k in ("won_sums", "total_sums"):
                    acc[k][:-1] += v[:-1]
                    acc[k][-1] = max(acc[k][-1], v[-1])  # cluster_max: the most rows in one cluster
                else:
                    acc[k] += v
        for k, v in sums["games"].items():
            self.game_sums[k] += v
        if sums["players"]:
            self.players = sums["players"]

    def add_part(self, path, k: int) -> None:
        """Add part k of the dataset at ``path``, a row group (one chunk of games) at a time."""
        import pyarrow.parquet as pq

        from smsim.runs.dataset import part_name
        from smsim.runs.storage import reading

        with reading(path / "seats" / part_name(k)) as seats, reading(path / "games" / part_name(k)) as games:
            seat_file, game_file = pq.ParquetFile(seats), pq.ParquetFile(games)
            columns = [c for c in SEAT_COLUMNS if c in seat_file.schema_arrow.names]  # seat_vp: since format 3
            for g in range(seat_file.num_row_groups):
                self.add(with_seat_vp(seat_file.read_row_group(g, columns=columns).to_pandas()),
                         game_file.read_row_group(g, columns=list(GAME_COLUMNS)).to_pandas())  # fmt: skip

    # -- reading --------------------------------------------------------------------------------------
    def _sums(self, by: str, figure: str) -> pd.DataFrame:
        keys = sorted(key for b, key in self.groups if b == by)
        data = np.array([self.groups[by, key][f"{figure}_sums"] for key in keys], dtype=np.float64)
        return pd.DataFrame(data.reshape(len(keys), len(SUM_COLUMNS)), index=keys, columns=list(SUM_COLUMNS))

    def rates(self, by: str) -> pd.DataFrame:
        rows = {}
        won = clustered_rate(self._sums(by, "won"), "win")
        vp = clustered_mean(self._sums(by, "total"), "vp")
        for (b, key), acc in self.groups.items():
            if b != by:
                continue
            n = acc["n"]
            mean = acc["total"] / n
            lo, hi = won.loc[key, "win_lo"], won.loc[key, "win_hi"]
            vlo, vhi = vp.loc[key, "vp_lo"], vp.loc[key, "vp_hi"]
            cum = np.cumsum(acc["hist"])
            pct = {f"vp_p{q}": float(np.searchsorted(cum, q / 100 * n) - VP_OFFSET) for q in (10, 50, 90)}
            rows[key] = {"seats": n, "wins": int(acc["won"]), "shared_wins": int(acc["shared"]), "win_rate": acc["won"] / n,
                         "win_lo": lo, "win_hi": hi, "vp_mean": mean, "vp_lo": vlo, "vp_hi": vhi, **pct,
                         "cannons_lost": acc["cannons_lost"] / n}  # fmt: skip
        out = pd.DataFrame.from_dict(rows, orient="index").sort_index()
        out.index.name = by
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        policies = {key: acc for (b, key), acc in self.groups.items() if b == "policy"}
        names = sorted(policies)
        sources = pd.DataFrame({src: [policies[k][src] / policies[k]["n"] for k in names] for src in VP_SOURCES},
                               index=pd.Index(names, name="policy"))  # fmt: skip
        sources["total"] = [policies[k]["total"] / policies[k]["n"] for k in names]
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


def arrays_sums(score: np.ndarray, player: np.ndarray, game_out: np.ndarray, policy_names: list[str],
                first: int) -> dict:  # fmt: skip
    """``chunk_sums`` of a chunk given as the engine's arrays: no table is built."""
    from smsim.runs.dataset import game_summary_columns, policy_codes, summary_columns

    codes, labels = policy_codes(policy_names, score.shape[0])
    return chunk_sums(summary_columns(score, player, first), codes, labels,
                      game_summary_columns(game_out, score.shape[1]))  # fmt: skip


SUMMED = (*SUM_FIELDS, "longest_series", "sides_completed")  # the columns tally_nb reads
FIGURES = ("won", "total")  # the figures with an interval: squares and cluster sums


def _group_sums(group: np.ndarray, n_groups: int, game: np.ndarray, values: np.ndarray) -> list[dict]:
    """Per group: rows, the sums of SUM_FIELDS, the histograms, and the cluster sums
    (``stats.SUM_COLUMNS``, a game being a cluster) of ``FIGURES``, all whole numbers
    (``tally.tally_nb``)."""
    from smsim.runs.tally import tally_nb

    figures = np.array([SUMMED.index(f) for f in FIGURES], dtype=np.int64)
    count, sums, squares, hist, series, sides, cluster = tally_nb(
        group, game, values, figures, n_groups, SUMMED.index("total"), VP_OFFSET, HIST_BINS,
        SUMMED.index("longest_series"), SERIES_BINS, SUMMED.index("sides_completed"), SIDES_BINS,
    )  # fmt: skip
    out = []
    for g in range(n_groups):
        acc = {"n": int(count[g]), **{f: int(sums[g, j]) for j, f in enumerate(SUM_FIELDS)}, "hist": hist[g],
               "series": series[g], "sides": sides[g]}  # fmt: skip
        for j, f in enumerate(FIGURES):  # in the order of stats.SUM_COLUMNS
            c = cluster[g, j]
            acc[f"{f}_sums"] = np.array([count[g], sums[g, figures[j]], squares[g, j], *c], dtype=np.int64)
        out.append(acc)
    return out


def chunk_sums(seat_cols: dict[str, np.ndarray], policy_codes: np.ndarray, policy_labels: list[str],
               game_cols: dict[str, np.ndarray]) -> dict:  # fmt: skip
    """The sums of one chunk of whole games that ``SummaryAccumulator.merge`` adds: per policy and
    per seat (``("policy", name)``, ``("seat", s)``), and over the games. ``seat_cols`` holds
    ``game``, ``seat`` and the summary columns (``dataset.summary_columns``)."""
    game = np.ascontiguousarray(seat_cols["game"], dtype=np.int64)
    rows = len(game)
    values = np.empty((rows, len(SUMMED)), dtype=np.int64)
    for j, f in enumerate(SUMMED):
        values[:, j] = seat_cols[f]
    groups: dict[tuple[str, object], dict] = {}
    codes = np.ascontiguousarray(policy_codes, dtype=np.int64)
    present = set(np.unique(codes).tolist())
    for g, acc in enumerate(_group_sums(codes, len(policy_labels), game, values)):
        if g in present:
            groups["policy", policy_labels[g]] = acc
    seat = np.ascontiguousarray(seat_cols["seat"], dtype=np.int64)
    for s, acc in enumerate(_group_sums(seat, int(seat.max()) + 1 if rows else 0, game, values)):
        groups["seat", s] = acc
    n = len(game_cols["rounds"])
    game_sums = {
        "games": n, "rounds": int(np.sum(game_cols["rounds"], dtype=np.int64)),
        "aborted": int(np.count_nonzero(game_cols["aborted"])),
        "shared_wins": int(np.count_nonzero(np.asarray(game_cols["winners"]) > 1)),
        "attacks": int(np.sum(game_cols["attacks"], dtype=np.int64)),
    }  # fmt: skip
    return {"groups": groups, "games": game_sums, "players": int(game_cols["players"][0]) if n else 0}


def summary_tables(seats: pd.DataFrame, games: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every headline table: by policy, by seat, VP by source, church series, sides completed,
    and the games."""
    acc = SummaryAccumulator()
    acc.add(seats, games)
    return acc.tables()


def summarise_dataset(path) -> tuple[dict[str, pd.DataFrame], int, int]:
    """The headline tables of a dataset on disk, part by part; (tables, games done, games planned)."""
    from smsim.runs.dataset import done_parts, read_manifest
    from smsim.runs.storage import location

    path = location(path)  # a local directory or a URL
    manifest = read_manifest(path)
    acc = SummaryAccumulator()
    for k in sorted(done_parts(path)):  # a row group (one chunk of games) at a time: flat memory
        acc.add_part(path, k)
    return acc.tables(), acc.game_sums["games"], manifest["run"]["games"]


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rate(value: float, lo: float, hi: float) -> str:
    return interval_text(value, lo, hi, scale=100, unit="%")


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
    t = Table(title="Results by policy (shared wins count as wins; [95% interval])")
    for col in ("policy", "seats", "win rate", "mean VP", "VP p10/p50/p90", "cannons lost"):
        t.add_column(col, justify="right")
    for key, row in tables["by_policy"].iterrows():
        t.add_row(str(key), f"{int(row.seats):,}", _rate(row.win_rate, row.win_lo, row.win_hi),
                  interval_text(row.vp_mean, row.vp_lo, row.vp_hi),
                  f"{row.vp_p10:.0f} / {row.vp_p50:.0f} / {row.vp_p90:.0f}", f"{row.cannons_lost:.2f}")  # fmt: skip
    console.print(t)
    if fixed_seats(tables):
        names = " ".join(str(k) for k in tables["by_policy"].index)
        console.print(f"Each policy sat in one seat only, so these rates mix the policy's strength with its seat's "
                      f"edge; `smsim compare {names}` plays every policy in every seat on the same dice.")  # fmt: skip
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
    if fixed_seats(tables):  # the seat table would repeat the policy table row for row
        return
    t = Table(title="Results by seat (seat 0 starts; [95% interval])")
    for col in ("seat", "seats", "win rate", "mean VP"):
        t.add_column(col, justify="right")
    for key, row in tables["by_seat"].iterrows():
        t.add_row(str(key), f"{int(row.seats):,}", _rate(row.win_rate, row.win_lo, row.win_hi),
                  interval_text(row.vp_mean, row.vp_lo, row.vp_hi))  # fmt: skip
    console.print(t)


def fixed_seats(tables: dict[str, pd.DataFrame]) -> bool:
    """Whether every policy of the run sat in one seat only (a line-up of distinct policies):
    then its policy rates are its seat's, and by-seat rows say nothing more."""
    by_policy, by_seat = tables["by_policy"], tables["by_seat"]
    return len(by_policy) > 1 and len(by_policy) == len(by_seat)


def print_comparison(result, console: Console | None = None) -> None:
    """Print a comparison's tables (``smsim.studies.compare.Comparison``) for the terminal: per
    policy, then the mean VP difference of every pair."""
    console = console or Console(width=max(100, Console().width))
    played = result.blocks * result.games_per_block
    console.print(f"[bold]{played:,} games[/], {result.players} players: {result.blocks:,} blocks of "
                  f"{result.games_per_block} seat arrangements on the same dice. Every policy sat in every seat "
                  f"equally often, so its win share is its own, free of the seats' edge.")  # fmt: skip
    t = Table(title="Policies ([95% interval] over blocks; shared wins split)")
    for col in ("policy", "win share", "mean VP", "cannons lost", "rating (Elo scale)"):
        t.add_column(col, justify="right")
    order = list(result.table.sort_values("win_share", ascending=False).index)
    for name in order:
        row = result.table.loc[name]
        half = elo_points(Z_95 * row.log_strength_se)
        t.add_row(name, _rate(row.win_share, row.win_lo, row.win_hi), interval_text(row.vp_mean, row.vp_lo, row.vp_hi),
                  f"{row.cannons_lost:.2f}", interval_text(row.elo, row.elo - half, row.elo + half, digits=0))  # fmt: skip
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
                cells.append(interval_text(r.vp_diff, r.lo, r.hi, signed=True))
        t.add_row(a, *cells)
    console.print(t)


SWEEP_HEADINGS = {"start_edge": "start edge", "cannons_changed_winner": "cannons change winner",
                  "cannons_lost": "cannons lost", "vp_total": "VP per seat", "church_vp_share": "church VP share",
                  "rounds": "rounds"}  # fmt: skip
"""Short column headings of the headline metrics (``sweep.HEADLINE``) for narrow tables."""


def _metric_text(value: float, unit: str) -> str:
    """A baseline's value: a rate in percent, points (a difference of rates) signed."""
    if not np.isfinite(value):
        return "-"
    if unit == "points":
        return f"{100 * value:+.1f} pts"
    if unit == "rate":
        return f"{100 * value:.1f}%"
    return f"{value:.2f}"


def print_sweep(table: pd.DataFrame, games: int, console: Console | None = None) -> None:
    """Print a sweep's headline metrics (``sweep.variant_table``) for the terminal: the baseline's
    value, then each variant's paired difference from it with its 95% interval, and how much the
    common dice narrowed those intervals."""
    from smsim.studies.sweep import BASELINE, HEADLINE, variance_reduction

    console = console or Console(width=max(140, Console().width))
    variants = list(dict.fromkeys(table["variant"]))
    console.print(f"[bold]{len(variants)} variants[/] x {games:,} games on common dice (game g has the same dice "
                  "in every variant)")  # fmt: skip
    t = Table(title="The baseline's values; each variant's paired difference from the baseline [95% interval] "
                    "(rates in points)")  # fmt: skip
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
                scale = 100 if r.unit in ("rate", "points") else 1
                cells.append(interval_text(r["diff"], r.diff_lo, r.diff_hi, digits=1 if scale == 100 else 2,
                                           signed=True, scale=scale))  # fmt: skip
        t.add_row(v, *cells)
    console.print(t)
    vr = variance_reduction(table)
    if len(vr):
        median = float(vr["narrower"].median())
        console.print(f"Paired intervals are {median:.2f}x narrower than two independent samples would give "
                      f"(median over {len(vr)} metrics; as many games as {median ** 2:.1f}x more unpaired).")  # fmt: skip
