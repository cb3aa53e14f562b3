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


def print_summary(seats: pd.DataFrame, games: pd.DataFrame, elapsed: float | None = None) -> None:
    console = Console()
    n_games = len(games)
    players = int(games["players"].iloc[0])
    speed = f", {n_games / elapsed:,.0f} games/s" if elapsed else ""
    console.print(
        f"[bold]{n_games:,} games[/], {players} players{speed}; mean {games['rounds'].mean():.1f} rounds, "
        f"{int(games['aborted'].sum())} aborted, {int((games['winners'] > 1).sum())} with a shared win"
    )
    for title, table in (("by policy", policy_table(seats)), ("by seat", seat_table(seats))):
        t = Table(title=f"Results {title} (95% intervals)")
        for col in ("", "seats", "win rate", "mean VP", "earned", "churches", "coins", "logs", "full city",
                    "cannons", "cannons lost"):  # fmt: skip
            t.add_column(col, justify="right")
        for key, row in table.iterrows():
            t.add_row(
                str(key), f"{int(row.seats):,}",
                f"{100 * row.win_rate:5.1f}% [{100 * row.win_lo:.1f}, {100 * row.win_hi:.1f}]",
                f"{row.vp_mean:5.1f} [{row.vp_lo:.1f}, {row.vp_hi:.1f}]",
                f"{row.earned:.1f}", f"{row.church_vp:.1f}", f"{row.coins_vp:.1f}", f"{row.logs_vp:.1f}",
                f"{row.full_city_vp:.1f}", f"{row.cannon_vp:.1f}", f"{row.cannons_lost:.2f}",
            )  # fmt: skip
        console.print(t)
