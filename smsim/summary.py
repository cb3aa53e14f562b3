"""Headline tables of a batch of games, for the terminal (rich) and for pandas users."""

from __future__ import annotations

import pandas as pd
from rich.console import Console
from rich.table import Table

from smsim.stats import mean_interval, wilson_interval

VP_SOURCES = ("earned", "church_vp", "coins_vp", "logs_vp", "full_city_vp", "cannon_vp")


def _rate_rows(seats: pd.DataFrame, by: str) -> pd.DataFrame:
    g = seats.groupby(by, observed=True)
    out = pd.DataFrame({"seats": g.size(), "wins": g["won"].sum(), "shared": g["shared"].sum()})
    out["win_rate"] = out["wins"] / out["seats"]
    bounds = [wilson_interval(w, n) for w, n in zip(out["wins"], out["seats"])]
    out["win_lo"] = [b[0] for b in bounds]
    out["win_hi"] = [b[1] for b in bounds]
    out["vp_mean"] = g["total"].mean()
    std = g["total"].std(ddof=1).fillna(0.0)
    out["vp_lo"] = [mean_interval(m, s, n)[0] for m, s, n in zip(out["vp_mean"], std, out["seats"])]
    out["vp_hi"] = [mean_interval(m, s, n)[1] for m, s, n in zip(out["vp_mean"], std, out["seats"])]
    for col in VP_SOURCES:
        out[col] = g[col].mean()
    out["cannons_lost"] = g["cannons_lost"].mean()
    return out


def policy_table(seats: pd.DataFrame) -> pd.DataFrame:
    """Win rate (shared wins count as wins) with its 95% Wilson interval, VP and its sources."""
    return _rate_rows(seats, "policy")


def seat_table(seats: pd.DataFrame) -> pd.DataFrame:
    return _rate_rows(seats, "seat")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def print_summary(seats: pd.DataFrame, games: pd.DataFrame, elapsed: float | None = None,
                  console: Console | None = None) -> None:
    """Print the headline tables: results by policy, VP by source, results by seat."""
    console = console or Console(width=max(100, Console().width))
    n_games = len(games)
    players = int(games["players"].iloc[0])
    speed = f", {n_games / elapsed:,.0f} games/s" if elapsed else ""
    console.print(
        f"[bold]{n_games:,} games[/], {players} players{speed}; mean {games['rounds'].mean():.1f} rounds, "
        f"{int(games['aborted'].sum())} aborted, {int((games['winners'] > 1).sum())} with a shared win"
    )
    by_policy = policy_table(seats)
    t = Table(title="Results by policy (shared wins count as wins; 95% intervals)")
    for col in ("policy", "seats", "win rate", "95% CI", "mean VP", "95% CI", "cannons lost"):
        t.add_column(col, justify="right")
    for key, row in by_policy.iterrows():
        t.add_row(str(key), f"{int(row.seats):,}", _pct(row.win_rate), f"{_pct(row.win_lo)} - {_pct(row.win_hi)}",
                  f"{row.vp_mean:.1f}", f"{row.vp_lo:.1f} - {row.vp_hi:.1f}", f"{row.cannons_lost:.2f}")
    console.print(t)
    t = Table(title="Mean VP by source")
    for col in ("policy", "earned in play", "churches", "coins", "logs", "full city", "cannons", "total"):
        t.add_column(col, justify="right")
    for key, row in by_policy.iterrows():
        t.add_row(str(key), *(f"{row[c]:.1f}" for c in VP_SOURCES), f"{row.vp_mean:.1f}")
    console.print(t)
    t = Table(title="Results by seat (seat 0 starts)")
    for col in ("seat", "seats", "win rate", "95% CI", "mean VP", "95% CI"):
        t.add_column(col, justify="right")
    for key, row in seat_table(seats).iterrows():
        t.add_row(str(key), f"{int(row.seats):,}", _pct(row.win_rate), f"{_pct(row.win_lo)} - {_pct(row.win_hi)}",
                  f"{row.vp_mean:.1f}", f"{row.vp_lo:.1f} - {row.vp_hi:.1f}")
    console.print(t)
