"""Headline tables of a batch of games, as DataFrames, from running sums.

``summary_tables`` is the single source: ``smsim summary --format csv|json|markdown`` prints
its tables and ``report.terminal.print_tables`` renders the same numbers for the terminal. The
sums of a chunk of games (``arrays_sums``) merge in any order (``SummaryAccumulator``), so a run's
tables come out the same on any executor and after a resume.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from smsim.errors import DatasetError
from smsim.runs.dataset import (
    VP_SOURCES,
    done_parts,
    game_summary_columns,
    part_name,
    policy_codes,
    read_manifest,
    summary_columns,
    with_seat_vp,
)
from smsim.runs.storage import location, reading
from smsim.runs.tally import tally_nb
from smsim.stats import SUM_COLUMNS, clustered_mean, clustered_rate

SEAT_COLUMNS = (
    "game",
    "policy",
    "seat",
    "won",
    "shared",
    "total",
    "cannons_lost",
    "longest_series",
    "sides_completed",
    *VP_SOURCES,
)
GAME_COLUMNS = ("players", "rounds", "aborted", "winners", "attacks")
VP_OFFSET = 200  # VP histograms cover -200 .. 799


SUM_FIELDS = (
    "won",
    "shared",
    "win_share",
    "total",
    "cannons_lost",
    *VP_SOURCES,
)  # summed per group (church_vp among them)
WIN_UNITS = 60
"""A seat's share of its game's win is counted in sixtieths (1/k of a win shared by k = 1 to 5
winners is a whole number of them), so its sums stay whole numbers that add up exactly."""
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
        seat_cols = {
            c: seats[c].to_numpy()
            for c in (
                "game",
                "seat",
                "won",
                "shared",
                "total",
                "cannons_lost",
                "longest_series",
                "sides_completed",
                *VP_SOURCES,
            )
        }
        policy = seats["policy"]
        if not isinstance(policy.dtype, pd.CategoricalDtype):
            policy = policy.astype("category")
        game_cols = {c: games[c].to_numpy() for c in GAME_COLUMNS}
        self.merge(
            chunk_sums(seat_cols, policy.cat.codes.to_numpy(), [str(c) for c in policy.cat.categories], game_cols)
        )

    def add_arrays(
        self, score: np.ndarray, player: np.ndarray, game_out: np.ndarray, policy_names: list[str], first: int
    ) -> None:
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
                if k.endswith("_sums"):  # cluster sums (stats.SUM_COLUMNS)
                    acc[k][:-1] += v[:-1]
                    acc[k][-1] = max(acc[k][-1], v[-1])  # cluster_max: the most rows in one cluster
                else:
                    acc[k] += v
        for k, v in sums["games"].items():
            self.game_sums[k] += v
        if sums["players"]:
            self.players = sums["players"]

    def sums(self) -> dict:
        """Everything added so far as the sums of one chunk: ``merge`` adds them to another
        accumulator (a part's sums, sent back by whoever played it)."""
        return {"groups": self.groups, "games": dict(self.game_sums), "players": self.players}

    def add_part(self, path, k: int) -> None:
        """Add part k of the dataset at ``path``, a row group (one chunk of games) at a time. A part
        that cannot be read (cut short, say) raises ``DatasetError``, as ``dataset.load`` does."""

        try:
            with reading(path / "seats" / part_name(k)) as seats, reading(path / "games" / part_name(k)) as games:
                seat_file, game_file = pq.ParquetFile(seats), pq.ParquetFile(games)
                columns = [c for c in SEAT_COLUMNS if c in seat_file.schema_arrow.names]  # seat_vp: since format 3
                for g in range(seat_file.num_row_groups):
                    self.add(
                        with_seat_vp(seat_file.read_row_group(g, columns=columns).to_pandas()),
                        game_file.read_row_group(g, columns=list(GAME_COLUMNS)).to_pandas(),
                    )
        except (OSError, pa.ArrowInvalid) as exc:
            raise DatasetError(f"{str(path)!r}: a part cannot be read ({exc})") from None

    # -- reading --------------------------------------------------------------------------------------
    def _sums(self, by: str, figure: str, unit: int = 1) -> pd.DataFrame:
        """The cluster sums of ``figure`` per group, its values divided by ``unit``."""
        keys = sorted(key for b, key in self.groups if b == by)
        data = np.array([self.groups[by, key][f"{figure}_sums"] for key in keys], dtype=np.float64)
        out = pd.DataFrame(data.reshape(len(keys), len(SUM_COLUMNS)), index=keys, columns=list(SUM_COLUMNS))
        for col, power in (("total", 1), ("total_sq", 2), ("cluster_sq", 2), ("cluster_cross", 1)):
            out[col] /= unit**power
        return out

    def rates(self, by: str) -> pd.DataFrame:
        """Per group: seats, wins and shared wins, the win rate (a shared win split between its
        winners, so the seats add up to 100%) with its interval (``stats.grouped_share``), and the VP."""
        rows = {}
        won = clustered_rate(self._sums(by, "win_share", WIN_UNITS), "win")  # as stats.grouped_share
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
            rows[key] = {
                "seats": n,
                "wins": int(acc["won"]),
                "shared_wins": int(acc["shared"]),
                "win_rate": acc["win_share"] / WIN_UNITS / n,
                "win_lo": lo,
                "win_hi": hi,
                "vp_mean": mean,
                "vp_lo": vlo,
                "vp_hi": vhi,
                **pct,
                "cannons_lost": acc["cannons_lost"] / n,
            }
        out = pd.DataFrame.from_dict(rows, orient="index").sort_index()
        out.index.name = by
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        policies = {key: acc for (b, key), acc in self.groups.items() if b == "policy"}
        names = sorted(policies)
        sources = pd.DataFrame(
            {src: [policies[k][src] / policies[k]["n"] for k in names] for src in VP_SOURCES},
            index=pd.Index(names, name="policy"),
        )
        sources["total"] = [policies[k]["total"] / policies[k]["n"] for k in names]
        series = pd.DataFrame(
            [policies[k]["series"] / policies[k]["n"] for k in names],
            index=pd.Index(names, name="policy"),
            columns=[f"longest_{i}" for i in range(6)],
        )
        series["church_vp"] = sources["church_vp"]
        sides = pd.DataFrame(
            [policies[k]["sides"] / policies[k]["n"] for k in names],
            index=pd.Index(names, name="policy"),
            columns=[f"sides_{i}" for i in range(5)],
        )
        sides["mean"] = [(policies[k]["sides"] * np.arange(5)).sum() / policies[k]["n"] for k in names]
        gs = self.game_sums
        n = max(gs["games"], 1)
        game_stats = pd.DataFrame(
            {
                "games": [gs["games"]],
                "players": [self.players],
                "rounds_mean": [gs["rounds"] / n],
                "aborted": [gs["aborted"]],
                "shared_wins": [gs["shared_wins"]],
                "attacks_mean": [gs["attacks"] / n],
            },
            index=pd.Index(["all"], name="games"),
        )
        return {
            "by_policy": self.rates("policy"),
            "by_seat": self.rates("seat"),
            "vp_by_source": sources,
            "church_series": series,
            "sides_completed": sides,
            "games": game_stats,
        }


def arrays_sums(
    score: np.ndarray, player: np.ndarray, game_out: np.ndarray, policy_names: list[str], first: int
) -> dict:
    """``chunk_sums`` of a chunk given as the engine's arrays: no table is built."""

    codes, labels = policy_codes(policy_names, score.shape[0])
    return chunk_sums(
        summary_columns(score, player, first), codes, labels, game_summary_columns(game_out, score.shape[1])
    )


SUMMED = (*SUM_FIELDS, "longest_series", "sides_completed")  # the columns tally_nb reads
FIGURES = ("win_share", "total")  # the figures with an interval: squares and cluster sums


def _group_sums(group: np.ndarray, n_groups: int, game: np.ndarray, values: np.ndarray) -> list[dict]:
    """Per group: rows, the sums of SUM_FIELDS, the histograms, and the cluster sums
    (``stats.SUM_COLUMNS``, a game being a cluster) of ``FIGURES``, all whole numbers
    (``tally.tally_nb``)."""

    figures = np.array([SUMMED.index(f) for f in FIGURES], dtype=np.int64)
    count, sums, squares, hist, series, sides, cluster = tally_nb(
        group,
        game,
        values,
        figures,
        n_groups,
        SUMMED.index("total"),
        VP_OFFSET,
        HIST_BINS,
        SUMMED.index("longest_series"),
        SERIES_BINS,
        SUMMED.index("sides_completed"),
        SIDES_BINS,
    )
    out = []
    for g in range(n_groups):
        acc = {
            "n": int(count[g]),
            **{f: int(sums[g, j]) for j, f in enumerate(SUM_FIELDS)},
            "hist": hist[g],
            "series": series[g],
            "sides": sides[g],
        }
        for j, f in enumerate(FIGURES):  # in the order of stats.SUM_COLUMNS
            c = cluster[g, j]
            acc[f"{f}_sums"] = np.array([count[g], sums[g, figures[j]], squares[g, j], *c], dtype=np.int64)
        out.append(acc)
    return out


def chunk_sums(
    seat_cols: dict[str, np.ndarray],
    policy_codes: np.ndarray,
    policy_labels: list[str],
    game_cols: dict[str, np.ndarray],
) -> dict:
    """The sums of one chunk of whole games that ``SummaryAccumulator.merge`` adds: per policy and
    per seat (``("policy", name)``, ``("seat", s)``), and over the games. ``seat_cols`` holds
    ``game``, ``seat`` and the summary columns (``dataset.summary_columns``)."""
    game = np.ascontiguousarray(seat_cols["game"], dtype=np.int64)
    rows = len(game)
    values = np.empty((rows, len(SUMMED)), dtype=np.int64)
    for j, f in enumerate(SUMMED):
        if f != "win_share":
            values[:, j] = seat_cols[f]
    if rows:  # a seat's share of its game's win, in WIN_UNITS: the winners of a game share it
        won = np.asarray(seat_cols["won"], dtype=np.int64)
        winners = np.bincount(game - game.min(), weights=won).astype(np.int64)[game - game.min()]
        values[:, SUMMED.index("win_share")] = won * WIN_UNITS // np.maximum(winners, 1)
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
        "games": n,
        "rounds": int(np.sum(game_cols["rounds"], dtype=np.int64)),
        "aborted": int(np.count_nonzero(game_cols["aborted"])),
        "shared_wins": int(np.count_nonzero(np.asarray(game_cols["winners"]) > 1)),
        "attacks": int(np.sum(game_cols["attacks"], dtype=np.int64)),
    }
    return {"groups": groups, "games": game_sums, "players": int(game_cols["players"][0]) if n else 0}


def summary_tables(seats: pd.DataFrame, games: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every headline table: by policy, by seat, VP by source, church series, sides completed,
    and the games."""
    acc = SummaryAccumulator()
    acc.add(seats, games)
    return acc.tables()


def summarise_dataset(path) -> tuple[dict[str, pd.DataFrame], int, int]:
    """The headline tables of a dataset on disk, part by part; (tables, games done, games planned)."""

    path = location(path)  # a local directory or a URL
    manifest = read_manifest(path)
    acc = SummaryAccumulator()
    for k in sorted(done_parts(path)):  # a row group (one chunk of games) at a time: flat memory
        acc.add_part(path, k)
    return acc.tables(), acc.game_sums["games"], manifest["run"]["games"]
