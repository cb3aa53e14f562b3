"""Headline tables of a batch of games, for pandas users and the terminal (rich).

``summary_tables`` is the single source: ``smsim summary --format csv|json|markdown`` prints
its tables and ``print_summary`` renders the same numbers for the terminal.
"""

from __future__ import annotations

import pandas as pd
from rich.console import Console
from rich.table import Table

from smsim.stats import mean_interval, wilson_interval

VP_SOURCES = ("earned", "church_vp", "coins_vp", "logs_vp", "full_city_vp", "cannon_vp")


def _rate_rows(seats: pd.DataFrame, by: str) -> pd.DataFrame:
    g = seats.groupby(by, observed=True)
    out = pd.DataFrame({"seats": g.size(), "wins": g["won"].sum(), "shared_wins": g["shared"].sum()})
    out["win_rate"] = out["wins"] / out["seats"]
    bounds = [wilson_interval(w, n) for w, n in zip(out["wins"], out["seats"])]
    out["win_lo"] = [b[0] for b in bounds]
    out["win_hi"] = [b[1] for b in bounds]
    out["vp_mean"] = g["total"].mean()
    std = g["total"].std(ddof=1).fillna(0.0)
    out["vp_lo"] = [mean_interval(m, s, n)[0] for m, s, n in zip(out["vp_mean"], std, out["seats"])]
    out["vp_hi"] = [mean_interval(m, s, n)[1] for m, s, n in zip(out["vp_mean"], std, out["seats"])]
    for q in (10, 50, 90):
        out[f"vp_p{q}"] = g["total"].quantile(q / 100)
    out["cannons_lost"] = g["cannons_lost"].mean()
    return out


def policy_table(seats: pd.DataFrame) -> pd.DataFrame:
    """Win rate (shared wins count as wins) with its 95% Wilson interval, VP mean with its
    interval and percentiles, cannons lost; one row per policy."""
    return _rate_rows(seats, "policy")


def seat_table(seats: pd.DataFrame) -> pd.DataFrame:
    """The same by seat (seat 0 starts): the start-player advantage."""
    return _rate_rows(seats, "seat")


def summary_tables(seats: pd.DataFrame, games: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every headline table: by policy, by seat, VP by source, church series, sides completed,
    and the games."""
    g = seats.groupby("policy", observed=True)
    sources = g[list(VP_SOURCES)].mean()
    sources["total"] = g["total"].mean()
    series = pd.crosstab(seats["policy"], seats["longest_series"], normalize="index").reindex(
        columns=range(6), fill_value=0.0)  # fmt: skip
    series.columns = [f"longest_{k}" for k in range(6)]
    series["church_vp"] = g["church_vp"].mean()
    sides = pd.crosstab(seats["policy"], seats["sides_completed"], normalize="index").reindex(
        columns=range(5), fill_value=0.0)  # fmt: skip
    sides.columns = [f"sides_{k}" for k in range(5)]
    sides["mean"] = g["sides_completed"].mean()
    n = len(games)
    game_stats = pd.DataFrame({
        "games": [n], "players": [int(games["players"].iloc[0])] if n else [0],
        "rounds_mean": [games["rounds"].mean()], "aborted": [int(games["aborted"].sum())],
        "shared_wins": [int((games["winners"] > 1).sum())], "attacks_mean": [games["attacks"].mean()],
    }, index=pd.Index(["all"], name="games"))  # fmt: skip
    for t, name in ((sources, "policy"), (series, "policy"), (sides, "policy")):
        t.index.name = name
    return {"by_policy": policy_table(seats), "by_seat": seat_table(seats), "vp_by_source": sources,
            "church_series": series, "sides_completed": sides, "games": game_stats}  # fmt: skip


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def print_summary(seats: pd.DataFrame, games: pd.DataFrame, elapsed: float | None = None,
                  console: Console | None = None) -> None:
    """Print the headline tables for the terminal."""
    console = console or Console(width=max(100, Console().width))
    tables = summary_tables(seats, games)
    n_games = len(games)
    players = int(games["players"].iloc[0])
    speed = f", {n_games / elapsed:,.0f} games/s" if elapsed else ""
    console.print(
        f"[bold]{n_games:,} games[/], {players} players{speed}; mean {games['rounds'].mean():.1f} rounds, "
        f"{int(games['aborted'].sum())} aborted, {int((games['winners'] > 1).sum())} with a shared win"
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
    for col in ("policy", "earned in play", "churches", "coins", "logs", "full city", "cannons", "total"):
        t.add_column(col, justify="right")
    for key, row in tables["vp_by_source"].iterrows():
        t.add_row(str(key), *(f"{row[c]:.1f}" for c in VP_SOURCES), f"{row.total:.1f}")
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
