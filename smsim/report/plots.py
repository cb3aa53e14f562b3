"""The report's figures, one function per kind (``smsim plot KIND DATASET``).

Each figure function takes a :class:`~smsim.report.tables.ReportData` and returns a ``(Figure,
caption)`` pair, or ``None`` when the data hold nothing to draw (the caption then says why in the
report). Figures are built on ``matplotlib.figure.Figure`` directly, without pyplot's global
state, so they can be made from threads and never open a window.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from smsim import layout as L
from smsim.intervals import MARGINS
from smsim.play.api import TracedGame, play_game
from smsim.report import ladder as LA
from smsim.report import tables as A
from smsim.rules import SIDE_NAMES, Rules
from smsim.runs.batch import run_games
from smsim.runs.dataset import VP_LABELS
from smsim.studies.ratings import elo
from smsim.studies.sweep import HEADLINE

Plot = tuple[Figure, str]
WIDTH = 3.6  # inches per panel


def _panels(n: int, title: str, sharey: bool = True) -> tuple[Figure, list]:
    fig = Figure(figsize=(max(WIDTH * n, 6.0), 3.8), layout="constrained")
    axes = fig.subplots(1, n, sharey=sharey, squeeze=False)[0]
    fig.suptitle(title)
    return fig, list(axes)


def _legend(ax, fontsize: str = "small") -> None:
    """The panel's legend beside it, outside its axes, so that it never covers data (the
    constrained layout makes room for it)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(
            handles,
            labels,
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0.0,
            fontsize=fontsize,
            frameon=False,
        )


def _games(data: A.ReportData) -> str:
    return f"{data.n_games:,} games"


def _by_players(table: pd.DataFrame) -> list[tuple[int, pd.DataFrame]]:
    return [(int(p), t) for p, t in table.groupby("players")]


def _player_panels(
    table: pd.DataFrame, title: str, xlabel: str, ylabel: str, sharey: bool = True
) -> tuple[Figure, list, list[tuple[int, pd.DataFrame]]]:
    """One panel per player count, titled and labelled: (figure, axes, [(players, rows), ...])."""
    parts = _by_players(table)
    fig, axes = _panels(len(parts), title, sharey)
    for ax, (players, _) in zip(axes, parts):
        ax.set_title(f"{players} players")
        ax.set_xlabel(xlabel)
    axes[0].set_ylabel(ylabel)
    return fig, axes, parts


def _bars(
    ax, table: pd.DataFrame, label_col: str, value: str, lo: str | None, hi: str | None, scale: float = 1.0
) -> None:
    x = np.arange(len(table))
    y = table[value].to_numpy(float) * scale
    err = None
    if lo and hi:
        err = np.vstack([y - table[lo].to_numpy(float) * scale, table[hi].to_numpy(float) * scale - y])
        err = np.nan_to_num(np.clip(err, 0, None))
    ax.bar(x, y, yerr=err, capsize=3, color="#4c72b0")
    ax.set_xticks(x, table[label_col].astype(str), rotation=45, ha="right")


def _policy_bars(t: pd.DataFrame, title: str, value: str, ylabel: str) -> Figure:
    """One panel per player count: ``value`` by policy with its 95% interval."""
    fig, axes, parts = _player_panels(t, title, "policy", ylabel)
    for ax, (_, tp) in zip(axes, parts):
        _bars(ax, tp, "policy", value, f"{value}_lo", f"{value}_hi")
    return fig


def church_series(data: A.ReportData) -> Plot | None:
    t = A.church_series(data)
    if t.empty:
        return None
    fig, axes, parts = _player_panels(
        t, "Longest church series by policy", "longest church series (churches)", "share of seats (%)"
    )
    for ax, (_, tp) in zip(axes, parts):
        for _, row in tp.iterrows():
            ax.plot(range(6), [row[f"longest_{k}"] * 100 for k in range(6)], marker="o", label=str(row["policy"]))
    _legend(axes[-1])
    return fig, (
        f"Share of seats whose longest church series has each length, by policy and player count "
        f"({_games(data)}, {len(data.seats):,} seats)."
    )


def church_vp(data: A.ReportData) -> Plot | None:
    t = A.church_series(data)
    if t.empty:
        return None
    fig = _policy_bars(t, "VP from church series by policy", "church_vp", "church VP per seat")
    return fig, f"Mean VP from church series per seat with 95% intervals ({_games(data)}, {len(data.seats):,} seats)."


def sides(data: A.ReportData) -> Plot | None:
    t = A.sides(data)
    if t.empty:
        return None
    agg = t.groupby(["policy", "side"], observed=True)[["n", "completed_count"]].sum().reset_index()
    fig, axes = _panels(1, "How often each side of the wall is completed")
    ax = axes[0]
    policies = list(dict.fromkeys(agg["policy"].astype(str)))
    width = 0.8 / len(SIDE_NAMES)
    x = np.arange(len(policies))
    for i, side in enumerate(SIDE_NAMES):
        rows = agg[agg["side"].astype(str) == side]
        rows = rows.set_index(rows["policy"].astype(str)).reindex(policies)
        rate = (rows["completed_count"] / rows["n"]).to_numpy(float) * 100
        ax.bar(x + (i - 1.5) * width, rate, width, label=f"{side} ({A._bonus_text(data.rules, i)})")
    ax.set_xticks(x, policies, rotation=45, ha="right")
    ax.set_xlabel("policy")
    ax.set_ylabel("seats completing the side (%)")
    _legend(ax)
    return fig, (
        f"Share of seats completing each side of their wall, by policy, all player counts together "
        f"({_games(data)}, {len(data.seats):,} seats); the legend gives each side's bonus."
    )


def side_rounds(data: A.ReportData) -> Plot | None:
    s = data.seats
    if s.empty or not any(s[f"{side}_completed"].any() for side in SIDE_NAMES):
        return None
    fig, axes = _panels(1, "Round in which each side is completed")
    ax = axes[0]
    top = int(max(s[f"{side}_round"].max() for side in SIDE_NAMES)) + 1
    n = 0
    for side in SIDE_NAMES:
        r = s.loc[s[f"{side}_completed"], f"{side}_round"].to_numpy(np.int64)
        n += len(r)
        counts = np.bincount(r, minlength=top)
        ax.plot(np.arange(1, top + 1), counts / max(len(r), 1) * 100, marker=".", label=f"{side} ({len(r):,})")
    ax.set_xlabel("round (1 = first)")
    ax.set_ylabel("share of completions (%)")
    _legend(ax)
    return fig, f"When sides are completed: the round of {n:,} side completions, by side ({_games(data)})."


def bonus_value(data: A.ReportData) -> Plot | None:
    """The wall-bonus ablation (``tables.bonus_value``): one column of panels per player count, the
    sides in board order; above, the VP a side's bonus is worth (with minus without, the same seat
    in the same game) beside its face value, below the win share it is worth, in points; one
    marker per policy (level), each with its 95% interval."""
    t = A.bonus_value(data)
    if t.empty or t["vp_change"].isna().all():
        return None
    parts = _by_players(t)
    fig = Figure(figsize=(max(WIDTH * len(parts), 6.0), 6.4), layout="constrained")
    axes = fig.subplots(2, len(parts), sharex=True, sharey="row", squeeze=False)
    fig.suptitle("What each wall bonus is worth: with it minus without it, on the same dice")
    policies = list(dict.fromkeys(t["policy"].astype(str)))
    width = 0.7 / max(len(policies), 1)
    x = np.arange(len(SIDE_NAMES))
    colours = colormaps["tab10"].colors
    for col, (players, tp) in enumerate(parts):
        top, bottom = axes[0][col], axes[1][col]
        top.set_title(f"{players} players")
        for i, policy in enumerate(policies):
            rows = tp[tp["policy"].astype(str) == policy].set_index("side").reindex(list(SIDE_NAMES))
            if rows["vp_change"].isna().all():
                continue
            at = x + (i - (len(policies) - 1) / 2) * width
            for ax, key, scale in ((top, "vp_change", 1.0), (bottom, "win_change", 100.0)):
                y = rows[key].to_numpy(float) * scale
                err = np.vstack(
                    [y - rows[f"{key}_lo"].to_numpy(float) * scale, rows[f"{key}_hi"].to_numpy(float) * scale - y]
                )
                ax.errorbar(
                    at,
                    y,
                    yerr=np.nan_to_num(np.clip(err, 0, None)),
                    fmt="o",
                    capsize=3,
                    color=colours[i % len(colours)],
                    label=policy,
                )
        face = tp.drop_duplicates("side").set_index("side").reindex(list(SIDE_NAMES))["face_vp"].to_numpy(float)
        top.scatter(x, face, marker="_", s=400, color="#c44e52", zorder=3, label="face value")
        bonus = tp.drop_duplicates("side").set_index("side").reindex(list(SIDE_NAMES))["bonus"]
        bottom.set_xticks(
            x,
            [f"{side}\n" + textwrap.fill(str(b), 12) for side, b in zip(SIDE_NAMES, bonus.fillna(""))],
            fontsize="small",
        )  # a person's words wrapped: they would run into the next side's
        for ax in (top, bottom):
            ax.axhline(0, color="grey", lw=0.8)
    axes[0][0].set_ylabel("VP it is worth")
    axes[1][0].set_ylabel("win share it is worth (points)")
    _legend(axes[0][-1])
    games = "; ".join(
        f"at {p} players "
        + ", ".join(f"{int(g['games'].min()):,} games ({policy})" for policy, g in tp.groupby("policy", sort=False))
        for p, tp in parts
    )
    return fig, (
        "Each side's bonus by ablation: the same games played with one seat denied the bonus (every "
        "seat in turn), that seat's final VP and win share (shared wins split) in the games with it "
        "minus without it, with 95% intervals over games; the red dash is the bonus's face value in VP "
        f"(coins at the end-of-game rate; a person has none). Each setup played {games}."
    )


def wall_defence(data: A.ReportData) -> Plot | None:
    t = A.wall_defence(data)
    if t.empty:
        return None
    fig, axes, parts = _player_panels(
        t,
        "How often walls, not soldiers, carried the defence",
        "attack (strength rises)",
        "held attacks held by walls alone (%)",
    )
    for ax, (_, tp) in zip(axes, parts):
        for policy, tpp in tp.groupby("policy", observed=True):
            ax.plot(tpp["attack"], tpp["walls_carried"] * 100, marker="o", label=str(policy))
    _legend(axes[-1])
    return fig, (
        "Of the attacks a seat held, the share its completed sides alone would have held, by attack and "
        f"policy ({_games(data)})."
    )


def attack_rounds(data: A.ReportData) -> Plot | None:
    g = data.games
    cols = [f"attack_{k}_round" for k in range(1, len(data.rules.pirate_strengths) + 1)]
    if g.empty or not (g[cols] >= 0).any().any():
        return None
    fig, axes, parts = _player_panels(g, "Round of each pirate attack", "attack", "round (1 = first)")
    for ax, (_, gp) in zip(axes, parts):
        series = [gp.loc[gp[c] >= 0, c].to_numpy() + 1 for c in cols]
        keep = [i for i, v in enumerate(series) if len(v)]
        ax.boxplot([series[i] for i in keep], positions=[i + 1 for i in keep], whis=(5, 95), showfliers=False)
    return fig, (
        f"Rounds of the pirate attacks (boxes: quartiles; whiskers: 5th-95th percentile), by player "
        f"count ({_games(data)})."
    )


def cannons(data: A.ReportData) -> Plot | None:
    t = A.cannons(data)
    if t.empty:
        return None
    fig = _policy_bars(
        t, "Cannons lost to the pirates", "cannons_lost", f"cannons lost per seat ({data.rules.cannon_penalty} VP each)"
    )
    return fig, f"Mean cannons lost per seat with 95% intervals ({_games(data)}, {len(data.seats):,} seats)."


def defence(data: A.ReportData) -> Plot | None:
    t = A.defence_vs_strength(data)
    if t.empty:
        return None
    fig, axes, parts = _player_panels(t, "Defence against the strength of each attack", "attack", "defence")
    for ax, (_, tp) in zip(axes, parts):
        ax.errorbar(
            tp["attack"],
            tp["defence_p50"],
            yerr=[tp["defence_p50"] - tp["defence_p10"], tp["defence_p90"] - tp["defence_p50"]],
            fmt="o",
            capsize=3,
            label="defence (median, 10-90%)",
        )
        ax.step(tp["attack"], tp["strength"], where="mid", color="#c44e52", label="pirate strength")
    _legend(axes[-1])
    return fig, (
        "Seats' defence at each attack (median, 10th-90th percentile) against the pirates' strength, "
        f"by player count ({_games(data)})."
    )


def scores(data: A.ReportData) -> Plot | None:
    s = data.seats
    if s.empty:
        return None
    fig, axes = _panels(1, "Final score by policy")
    ax = axes[0]
    lo, hi = int(s["total"].min()), int(s["total"].max())
    bins = np.arange(lo, hi + 2) - 0.5 if hi - lo < 120 else 60
    for policy, sp in s.groupby("policy", observed=True):
        ax.hist(sp["total"], bins=bins, histtype="step", density=True, label=f"{policy} ({len(sp):,})")
    ax.set_xlabel("final VP")
    ax.set_ylabel("density")
    _legend(ax)
    return fig, f"Distribution of final scores by policy, all player counts together ({_games(data)})."


def seat_advantage(data: A.ReportData) -> Plot | None:
    t = A.seat_advantage(data)
    if t.empty:
        return None
    fig, axes, parts = _player_panels(t, "Win rate by seat (seat 1 starts)", "seat", "win rate (%)", sharey=False)
    for ax, (players, tp) in zip(axes, parts):
        for i, (fld, tf) in enumerate(tp.groupby("field", observed=True)):
            y = tf["win"].to_numpy(float) * 100
            err = np.clip(np.vstack([y - tf["win_lo"] * 100, tf["win_hi"] * 100 - y]), 0, None)
            ax.errorbar(tf["seat"] + 1 + 0.08 * i, y, yerr=err, fmt="o", capsize=3, label=A.short_field(str(fld)))
        ax.axhline(100 / players, color="grey", ls="--", lw=0.8)
        ax.set_xticks(range(1, players + 1))
        _legend(ax)
    return fig, (
        "Win rate of each seat with 95% intervals; the dashed line is parity (1 / players); one marker "
        f"per table line-up ({_games(data)})."
    )


def game_length(data: A.ReportData) -> Plot | None:
    g = data.games
    if g.empty:
        return None
    fig, axes = _panels(1, "Game length")
    ax = axes[0]
    for players, gp in g.groupby("players"):
        counts = np.bincount(gp["rounds"].to_numpy(np.int64))
        ax.plot(np.arange(len(counts)), counts / len(gp) * 100, marker=".", label=f"{players} players ({len(gp):,})")
    ax.set_xlabel("rounds")
    ax.set_ylabel("share of games (%)")
    _legend(ax)
    return fig, f"Rounds per game by player count ({_games(data)})."


def vp_sources(data: A.ReportData) -> Plot | None:
    s = data.seats
    if s.empty:
        return None
    parts = [
        "vp_citizen",
        "vp_priest",
        "vp_houses",
        "vp_juggler",
        "vp_noble",
        "vp_wall_bonus",
        "church_vp",
        "coins_vp",
        "logs_vp",
        "full_city_vp",
        "cannon_vp",
    ] + (["seat_vp"] if any(data.rules.seat_vp) else [])
    mean = s.groupby("policy", observed=True)[parts].mean()
    fig, axes = _panels(1, "Where the VP come from")
    ax = axes[0]
    x = np.arange(len(mean))
    pos = np.zeros(len(mean))
    neg = np.zeros(len(mean))
    colours = colormaps["tab20"].colors
    for i, col in enumerate(parts):
        v = mean[col].to_numpy(float)
        base = np.where(v >= 0, pos, neg)
        ax.bar(x, v, bottom=base, color=colours[i], label=VP_LABELS[col])
        pos += np.where(v >= 0, v, 0)
        neg += np.where(v < 0, v, 0)
    ax.scatter(x, s.groupby("policy", observed=True)["total"].mean(), color="black", zorder=3, label="total")
    ax.set_xticks(x, mean.index.astype(str), rotation=45, ha="right")
    ax.set_xlabel("policy")
    ax.set_ylabel("mean VP per seat")
    ax.axhline(0, color="grey", lw=0.8)
    _legend(ax, "x-small")
    return fig, f"Mean VP per seat by source and policy, all player counts together ({_games(data)})."


def ratings(data: A.ReportData) -> Plot | None:
    rated = [src for src in data.sources if "ratings" in src.comparison]
    if not rated:
        return None
    fig, axes = _panels(len(rated), "Plackett-Luce ratings (Elo scale)", sharey=False)
    for ax, src in zip(axes, rated):
        t = src.comparison["ratings"].sort_values("elo", ascending=False).reset_index()
        t["policy"] = t[t.columns[0]]
        have_ci = {"lo", "hi"} <= set(t.columns)
        if have_ci:  # the interval of the log strength on the Elo scale
            t["elo_lo"] = elo(t["lo"])
            t["elo_hi"] = elo(t["hi"])
        # points from the mean rating, not bars from 0: an Elo rating has no zero, only differences
        x = np.arange(len(t))
        y = t["elo"].to_numpy(float)
        err = None
        if have_ci:
            err = np.nan_to_num(
                np.clip(np.vstack([y - t["elo_lo"].to_numpy(float), t["elo_hi"].to_numpy(float) - y]), 0, None)
            )
        far = _far_below(y)
        kept = None if err is None else err[:, ~far]
        ax.errorbar(x[~far], y[~far], yerr=kept, fmt="o", capsize=3, color="#4c72b0")
        ax.axhline(elo(0.0), color="grey", ls="--", lw=0.8)
        if far.any():  # a policy far below the rest (random) would squash them: marked at the foot, rating written
            low, high = ax.get_ylim()
            foot = low - 0.08 * (high - low)
            ax.set_ylim(foot - 0.12 * (high - low), high)
            for k in np.flatnonzero(far):
                ax.plot(x[k], foot, "v", color="#4c72b0", ms=8)
                ax.annotate(f"{y[k]:,.0f}", (x[k], foot), textcoords="offset points", xytext=(0, 7), ha="center",
                            fontsize="x-small", color="#4c72b0")  # fmt: skip
        ax.set_xticks(x, t["policy"].astype(str), rotation=45, ha="right")
        ax.set_title(f"{src.players} players")
        ax.set_xlabel("policy")
    axes[0].set_ylabel("rating (Elo scale)")
    games = sum(src.games for src in rated)
    return fig, (
        f"Ratings fitted to the final rankings of {games:,} comparison games, with 95% intervals; the "
        f"dashed line is the mean rating ({elo(0.0):,.0f}): only differences between ratings mean anything. "
        "A policy rated far below the rest (`random`) is marked by a triangle at the foot of its panel with its "
        "rating written above it, so that the others' differences stay readable; its interval is in the table."
    )


def _far_below(y: np.ndarray) -> np.ndarray:
    """The ratings far below the rest: the lowest, where its distance to the next is larger than the
    spread of all the others (each panel's `random`)."""
    far = np.zeros(len(y), dtype=bool)
    if len(y) < 3:
        return far
    order = np.argsort(y)
    rest = y[order[1:]]
    if rest[0] - y[order[0]] > rest[-1] - rest[0]:
        far[order[0]] = True
    return far


# -- rule variants (a sweep's table, not ReportData) ------------------------------------------------


def _variant_scale(unit: str) -> tuple[float, str]:
    return (100.0, " (%)") if unit == "rate" else (100.0, " (points)") if unit == "points" else (1.0, "")


def variant_differences(table: pd.DataFrame, title: str) -> Plot | None:
    """Each variant's paired difference from the baseline in the headline metrics, with its 95%
    interval: one panel per metric, one row per variant."""
    t = table[(table["variant"] != "baseline") & table["metric"].isin(HEADLINE)]
    if t.empty:
        return None
    variants = list(dict.fromkeys(t["variant"]))
    fig = Figure(figsize=(WIDTH * 3, max(4.5, 1.6 + 0.6 * len(variants))), layout="constrained")
    axes = fig.subplots(2, 3, sharey=True, squeeze=False).ravel()
    fig.suptitle(title)
    y = np.arange(len(variants))[::-1]
    for ax, key in zip(axes, HEADLINE):
        tm = t[t["metric"] == key].set_index("variant").reindex(variants)
        if tm["label"].isna().all():
            ax.set_visible(False)
            continue
        unit = tm["unit"].dropna().iloc[0]
        scale, suffix = _variant_scale(unit)
        suffix = " (points)" if unit == "rate" else suffix  # a difference of rates
        x = tm["diff"].to_numpy(float) * scale
        err = np.nan_to_num(np.clip(np.vstack([x - tm["diff_lo"] * scale, tm["diff_hi"] * scale - x]), 0, None))
        ax.errorbar(x, y, xerr=err, fmt="o", capsize=3, color="#4c72b0")
        ax.axvline(0, color="grey", ls="--", lw=0.8)
        ax.set_title(tm["label"].dropna().iloc[0], fontsize="small")
        ax.set_xlabel("difference from baseline" + suffix, fontsize="small")
    axes[0].set_yticks(y, variants, fontsize="small")
    axes[3].set_yticks(y, variants, fontsize="small")
    return fig, (
        "Each variant's difference from the baseline in the headline metrics, with its paired 95% interval "
        "(the same games on the same dice); the dashed line is no difference."
    )


def _order(values: list) -> list:
    try:
        return sorted(values)
    except TypeError:  # lists of several lengths, or words: the order they were given
        return values


def variant_effects(
    table: pd.DataFrame, varied: dict[str, tuple[str, object]], baseline_values: dict[str, object], title: str
) -> list[tuple[str, Plot]]:
    """For each rules field varied alone (``varied``: variant name -> (field, value)): the headline
    metrics against the field's value, baseline included, with 95% intervals. Returns
    (field, plot) pairs."""
    out = []
    fields = list(dict.fromkeys(f for f, _ in varied.values()))
    for fld in fields:
        was = baseline_values.get(fld, "none")  # an empty seat compensation is left out of the rules' dict
        points = [("baseline", was)] + [(v, val) for v, (f, val) in varied.items() if f == fld]
        order = _order([val for _, val in points])
        points.sort(key=lambda p: order.index(p[1]))
        labels = [str(val).replace(" ", "") for _, val in points]
        fig = Figure(figsize=(WIDTH * 3, 6.2), layout="constrained")
        axes = fig.subplots(2, 3, squeeze=False).ravel()
        words = fld.replace("_", " ")  # the field in words, as the variants' names say it
        fig.suptitle(f"{title}: {words}")
        x = np.arange(len(points))
        for ax, key in zip(axes, HEADLINE):
            tm = table[table["metric"] == key].set_index("variant")
            if tm.empty:
                ax.set_visible(False)
                continue
            scale, suffix = _variant_scale(tm["unit"].iloc[0])
            rows = tm.reindex([v for v, _ in points])
            yv = rows["value"].to_numpy(float) * scale
            err = np.nan_to_num(np.clip(np.vstack([yv - rows["lo"] * scale, rows["hi"] * scale - yv]), 0, None))
            ax.errorbar(x, yv, yerr=err, fmt="-o", capsize=3, color="#4c72b0")
            base = [i for i, (v, _) in enumerate(points) if v == "baseline"]
            ax.plot(x[base], yv[base], "s", color="#dd8452", ms=8, zorder=3)  # the caption says what the square is
            ax.set_xticks(x, labels, rotation=30 if max(map(len, labels)) > 4 else 0, ha="right", fontsize="small")
            ax.set_title(tm["label"].iloc[0], fontsize="small")
            ax.set_ylabel(suffix.strip(" ()") or tm["unit"].iloc[0], fontsize="small")
            ax.set_xlabel(words, fontsize="small")
        out.append(
            (
                fld,
                (
                    fig,
                    f"The headline metrics against {words} (the other rules at the baseline), with 95% "
                    "intervals; the square is the baseline.",
                ),
            )
        )
    return out


def fairness_figure(results: list) -> Plot | None:
    """Win share of each seat on the held-out games of ``smsim fairness``, without and with the
    compensation found (``smsim.studies.fairness.FairnessResult``), with 95% intervals against parity; one
    panel per player count (the "before" of the first result of a player count, an "after" per
    result). Seats are numbered from 1 as in the report's seat figure. None without results."""
    if not results:
        return None
    by_players: dict[int, list] = {}
    for r in results:
        by_players.setdefault(int(r.players), []).append(r)
    counts = sorted(by_players)
    fig, axes = _panels(len(counts), "Win share by seat before and after compensation (seat 1 starts)", sharey=False)
    for ax, players in zip(axes, counts):
        group = by_players[players]
        marks = [("before", group[0], "before", "grey")]
        marks += [("after", r, f"after: {r.by} {list(r.compensation)}", f"C{i}") for i, r in enumerate(group)]
        for i, (when, r, label, colour) in enumerate(marks):
            t = r.table
            y = t[when].to_numpy(float) * 100
            err = np.clip(
                np.vstack([y - t[f"{when}_lo"].to_numpy(float) * 100, t[f"{when}_hi"].to_numpy(float) * 100 - y]),
                0,
                None,
            )
            x = t["seat"].to_numpy(int) + 1 + 0.12 * (i - (len(marks) - 1) / 2)
            ax.errorbar(x, y, yerr=err, fmt="o", capsize=3, color=colour, label=label)
        ax.axhline(100 / players, color="grey", ls="--", lw=0.8)
        ax.set_xticks(range(1, players + 1))
        ax.set_title(f"{players} players")
        ax.set_xlabel("seat")
        _legend(ax)
    axes[0].set_ylabel("win share (%)")
    checks = sorted({(int(r.check_games), int(r.check_seed)) for r in results})
    games = ", ".join(f"{n:,} games on seed {seed}" for n, seed in checks)
    policies = ", ".join(sorted({str(r.policy) for r in results}))
    return fig, (
        "Win share of each seat (a shared win split between the winners) on held-out games, without "
        "(before) and with (after) the per-seat compensation smsim fairness found, with 95% intervals; "
        f"the dashed line is parity (1 / players); {policies} in every seat; {games}."
    )


def seat_parity(data: A.ReportData) -> Plot | None:
    """The report's headline figure: every seat's win rate minus parity, in points, with its 95%
    interval, one series per player count, from the games of the at-a-glance table
    (``tables.glance_sources``: the dataset measuring the seats alone with the most games)."""

    chosen = [(p, i) for p, i in A.glance_sources(data).items() if data.sources[i].fair_seating]
    if not chosen:
        return None
    fig, axes = _panels(1, "Win rate by seat against parity (seat 1 starts)")
    ax = axes[0]
    for k, (players, i) in enumerate(chosen):
        sub = data.select([i])
        t = A.seat_advantage(sub)
        y = (t["win"].to_numpy(float) - 1 / players) * 100
        err = np.clip(
            np.vstack([y - (t["win_lo"] - 1 / players) * 100, (t["win_hi"] - 1 / players) * 100 - y]), 0, None
        )
        ax.errorbar(
            t["seat"] + 1 + 0.1 * (k - (len(chosen) - 1) / 2),
            y,
            yerr=err,
            fmt="-o",
            capsize=3,
            label=f"{players} players ({sub.n_games:,} games, {A.short_field(data.sources[i].field)})",
        )
    ax.axhline(0, color="grey", ls="--", lw=0.8)
    ax.set_xticks(range(1, max(p for p, _ in chosen) + 1))
    ax.set_xlabel("seat (1 starts)")
    ax.set_ylabel("win rate minus parity (points)")
    _legend(ax)
    games = sum(data.sources[i].games for _, i in chosen)
    return fig, (
        "Each seat's win rate minus parity (1 / players), in percentage points, with 95% intervals; the "
        f"dashed line is parity; one line per player count, one dataset each ({games:,} games)."
    )


def _panel_rows(rows: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """A ladder figure's panels: (title, verdict rows). Win rates by seat give two panels, the
    start player's and the last seat's; VP by source under outcomes only the total."""
    out = []
    for (figure, item), g in rows.groupby(["figure", "item"], sort=False):
        if figure == "seat_win":
            if item != "0":
                continue
            last = rows[
                (rows["figure"] == "seat_win") & (rows["item"].astype(str) == (rows["players"] - 1).astype(str))
            ]
            out.append(("The start player's win rate", g))
            out.append(("The last seat's win rate", last))
        elif figure == "vp_by_source" and g["section"].iloc[0] == "Outcomes" and item != "total":
            continue
        else:
            out.append((str(g["label"].iloc[0]), g))
    return out


CHANGE_UNITS = {"rate": "points", "share": "points", "points": "points", "vp": "VP", "rounds": "rounds"}
"""The y-axis unit of a ladder panel, the change from L1 of a figure of each unit."""


def verdict_word(row) -> str:
    """A ladder verdict in a panel's few words: "stable", "rises", "falls", "both ways",
    "not settled", "one level"."""
    if row["verdict"] == "strength-dependent":
        return {"moves both ways": "both ways"}.get(
            row["direction"], str(row["direction"]).replace(" with strength", "")
        )
    return str(row["verdict"])


def ladder_figure(rows: pd.DataFrame, section: str) -> Plot | None:
    """A section's headline figures across the levels of play (``report.ladder.ladder_verdicts``
    rows): one panel per figure, its change from L1 at each level with that change's 95% interval
    (L1 at 0), one line per player count, on axes that show the margin the verdict judged by
    (shaded: a change inside it is one that does not matter) and the verdict of each line in the
    panel's key. Panels of one unit share their y-axis, so that a small change looks small."""
    levels = [k for k in range(1, 10) if f"L{k}" in rows and rows[f"L{k}"].notna().any()]
    panels = _panel_rows(rows)
    if not levels or not panels:
        return None
    cols = min(4, len(panels))
    n_rows = -(-len(panels) // cols)
    fig = Figure(figsize=(3.2 * cols + 0.4, 3.5 * n_rows + 0.6), layout="constrained")
    axes = fig.subplots(n_rows, cols, squeeze=False).ravel()
    fig.suptitle(f"{section} across strengths of play: the change from L1")
    players = sorted(rows["players"].unique())
    colours = colormaps["viridis"](np.linspace(0.0, 0.85, max(len(players), 2)))
    names = {k: next((p for p in rows[f"L{k}_policy"] if p), f"L{k}") for k in levels}
    spans: dict[str, list[float]] = {}  # per unit: the lowest and highest y drawn, for a shared axis
    units = [str(g["unit"].iloc[0]) if len(g) else "vp" for _, g in panels]
    for ax, (title, g), unit in zip(axes, panels, units):
        scale = 100.0 if unit in ("rate", "share", "points") else 1.0
        margin = float(g["margin"].iloc[0]) * scale if len(g) and "margin" in g else np.nan
        if np.isfinite(margin) and margin > 0:
            ax.axhspan(-margin, margin, color="grey", alpha=0.18, lw=0, label="_margin")
        ax.axhline(0, color="grey", ls="--", lw=0.8)
        span = spans.setdefault(unit, [-margin if np.isfinite(margin) else 0.0, margin if np.isfinite(margin) else 0.0])
        for c, p in enumerate(players):
            r = g[g["players"] == p]
            if r.empty or not np.isfinite(r.iloc[0]["L1"]):
                continue
            r = r.iloc[0]
            ks = [1] + [k for k in levels[1:] if np.isfinite(r.get(f"L{k}_change", np.nan))]
            x = np.array(ks, dtype=float) + 0.06 * (c - (len(players) - 1) / 2)
            y = np.array([0.0] + [r[f"L{k}_change"] * scale for k in ks[1:]])
            lo = np.array([0.0] + [r[f"L{k}_change_lo"] * scale for k in ks[1:]])
            hi = np.array([0.0] + [r[f"L{k}_change_hi"] * scale for k in ks[1:]])
            ax.errorbar(
                x,
                y,
                yerr=np.clip(np.vstack([y - lo, hi - y]), 0, None),
                fmt="-o",
                ms=4,
                capsize=3,
                color=colours[c],
                label=f"{p} players: {verdict_word(r)}",
            )
            span[0], span[1] = min(span[0], float(np.nanmin(lo))), max(span[1], float(np.nanmax(hi)))
        ax.set_title(textwrap.fill(title, 40), fontsize="small")
        ax.set_xticks(levels, [f"L{k}\n{names[k]}" for k in levels], fontsize="x-small")
        ax.set_xlim(min(levels) - 0.4, max(levels) + 0.4)
        ax.set_ylabel(
            f"change from L1 ({CHANGE_UNITS.get(unit, unit)})" if unit in CHANGE_UNITS else "change from L1",
            fontsize="small",
        )
        handles, labels = ax.get_legend_handles_labels()
        if handles:  # the verdicts under the panel, never on its data
            ax.legend(
                handles,
                labels,
                loc="upper center",
                bbox_to_anchor=(0.5, -0.22),
                fontsize="x-small",
                frameon=False,
                ncols=2 if len(handles) > 2 else 1,
                handlelength=1.2,
                columnspacing=0.8,
            )
    for ax, unit in zip(axes, units):
        low, high = spans[unit]
        pad = 0.08 * (high - low) if high > low else 1.0
        ax.set_ylim(low - pad, high + pad)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    games = ", ".join(f"L{k} {names[k]}: {int(rows[f'L{k}_games'].max()):,} games" for k in levels)
    margins = (
        "; ".join(
            f"{CHANGE_UNITS.get(u, u)} ±{m * (100 if u in ('rate', 'share', 'points') else 1):g}"
            for u, m in rows.groupby("unit")["margin"].first().items()
        )
        if "margin" in rows
        else ""
    )
    return fig, (
        f"{section}: each headline figure's change from L1 at each level of play, with its 95% interval "
        f"(L1 at 0); one line per player count ({games}, at most, per player count). The shaded band is "
        f"the smallest change that matters ({margins}): a step inside it is the same, one wholly beyond it "
        "moves. Each line's verdict is in its panel's key; panels of one unit share their axis."
    )


def skill_gap_figure(t: pd.DataFrame) -> Plot | None:
    """The skill gap per player count (``report.studies.skill_section``'s table), with its 95% interval."""
    if t.empty:
        return None
    fig, axes = _panels(1, "Skill gap: one learned seat against balanced")
    ax = axes[0]
    y = t["gap"].to_numpy(float) * 100
    err = np.clip(np.vstack([y - t["gap_lo"] * 100, t["gap_hi"] * 100 - y]), 0, None)
    ax.errorbar(t["players"], y, yerr=err, fmt="-o", capsize=4, color="#4c72b0")
    ax.axhline(0, color="grey", ls="--", lw=0.8)
    ax.set_xticks(t["players"])
    ax.set_xlabel("players")
    ax.set_ylabel("win share minus parity (points)")
    return fig, (
        "The skill gap: the win share of one `learned` seat against `balanced` in every other seat, minus "
        f"parity, with 95% intervals over blocks ({int(t['games'].sum()):,} games, every seat rotation on "
        "shared dice)."
    )


def skill_variants_figure(g: pd.DataFrame, players: int, margin: float = MARGINS["points"]) -> Plot | None:
    """Each variant's change of the skill gap from the baseline, with its paired 95% interval, on
    axes that shade the margin (``studies.skill.gap_verdict``: a change inside it is no change)."""
    t = g.iloc[1:]
    t = t[np.isfinite(t["diff"].astype(float))]
    if t.empty:
        return None
    fig = Figure(figsize=(WIDTH * 2.4, max(2.8, 1.3 + 0.34 * len(t))), layout="constrained")
    ax = fig.subplots()
    fig.suptitle(f"The skill gap under each rules variant, {players} players")
    y = np.arange(len(t))[::-1]
    x = t["diff"].to_numpy(float) * 100
    err = np.clip(np.vstack([x - t["diff_lo"] * 100, t["diff_hi"] * 100 - x]), 0, None)
    if np.isfinite(margin) and margin > 0:
        ax.axvspan(-100 * margin, 100 * margin, color="grey", alpha=0.18, lw=0)
    ax.errorbar(x, y, xerr=err, fmt="o", capsize=3, color="#4c72b0")
    ax.axvline(0, color="grey", ls="--", lw=0.8)
    ax.set_yticks(y, t["variant"], fontsize="small")
    ax.set_xlabel("change of the skill gap from the baseline, points\n(right: more skill; left: more luck)")
    games = int(g["blocks"].iloc[0]) * players
    return fig, (
        f"Each variant's change of the skill gap (one `learned` seat among `balanced`) from the baseline's, "
        f"with its paired 95% interval ({games:,} games per variant on the same dice). The shaded band is "
        f"the smallest change that matters (±{LA.margin_text('points', margin)}): a variant whose interval lies wholly "
        "beyond it makes the game more a game of skill (right) or of luck (left), one inside it changes "
        "nothing that matters."
    )


def ladder_steps_figure(t: pd.DataFrame, margin: float = MARGINS["share"]) -> Plot | None:
    """Each rung's step over the rung below (``tables.ladder_steps``: the section "Levels of play"'s
    table), one panel per player count: the head-to-head edge over parity and the paired difference
    against the field, each with its 95% interval, on axes that shade the margin (a step inside it
    is level: a difference of style, not of strength). The steps are rows, named in full on the
    left (a step's name is long: as columns they overlapped), the lowest at the top."""
    t = t[np.isfinite(t["edge"].astype(float))]
    if t.empty:
        return None

    def name(r) -> str:
        return f"{r.lower} → {r.upper}" + (" (check)" if r.check else "")

    counts = sorted({int(p) for p in t["players"]})
    steps = list(dict.fromkeys(name(r) for r in t.itertuples()))
    fig = Figure(figsize=(max(3.6 * len(counts) + 2.6, 6.0), 1.5 + 0.34 * len(steps)), layout="constrained")
    axes = list(fig.subplots(1, len(counts), sharey=True, squeeze=False)[0])
    fig.suptitle("Each rung over the rung below")
    for ax, p in zip(axes, counts):
        rows = t[t["players"] == p]
        at = np.array([steps.index(name(r)) for r in rows.itertuples()], dtype=float)
        for shift, (value, lo, hi, label, color) in zip(
            (-0.15, 0.15),
            (
                ("edge", "edge_lo", "edge_hi", "head to head (above parity)", "#4c72b0"),
                ("field_diff", "field_lo", "field_hi", "against the field (paired)", "#dd8452"),
            ),
        ):
            x = rows[value].to_numpy(float) * 100
            err = np.clip(np.vstack([x - rows[lo].to_numpy(float) * 100, rows[hi].to_numpy(float) * 100 - x]), 0, None)
            err = np.where(np.isfinite(err), err, 0.0)  # a bound not measured (one block): the point alone
            ax.errorbar(x, at + shift, xerr=err, fmt="o", capsize=3, color=color, label=label)
        if np.isfinite(margin) and margin > 0:
            ax.axvspan(-100 * margin, 100 * margin, color="grey", alpha=0.18, lw=0)
        ax.axvline(0, color="grey", ls="--", lw=0.8)
        ax.set_title(f"{p} players", fontsize="medium")
        ax.set_xlabel("points")
        ax.grid(axis="y", color="#eeeeee", lw=0.6)
    axes[0].set_yticks(np.arange(len(steps)), steps, fontsize="small")
    axes[0].set_ylim(len(steps) - 0.5, -0.5)  # the lowest rung's step at the top, as the table reads
    _legend(axes[-1])
    games = int(t["head_games"].sum() + t["field_games"].sum())
    return fig, (
        f"Each rung's step over the rung below, per player count: one seat of the upper rung among the lower "
        "head to head (its win share minus parity) and, against the fixed field, the same seat's win share "
        "with the upper rung minus with the lower on the same games (paired), each with its 95% interval "
        f"over blocks ({games:,} games). The shaded band is the margin (±{LA.margin_text('share', margin)}): "
        "a step inside it is level, a difference of style, not of strength."
    )


# -- how the game feels (studies.shape, studies.matters) ----------------------------------------------
def _shape_panels(shapes: list, title: str, xlabel: str, ylabel: str) -> tuple[Figure, list, list]:
    """One panel per player count (the first dataset of each), titled and labelled."""
    by = {}
    for r in shapes:
        by.setdefault(r.players, []).append(r)
    counts = sorted(by)
    fig, axes = _panels(len(counts), title)
    for ax, p in zip(axes, counts):
        ax.set_title(f"{p} players")
        ax.set_xlabel(xlabel)
    axes[0].set_ylabel(ylabel)
    return fig, axes, [by[p] for p in counts]


def winprob_fan(shapes: list) -> Plot | None:
    """Per player count, the eventual winner's win probability at each round: its middle half and
    its 10-90% band over the games, the median, and the fair share 1/P (``shape.winner_by_round``)."""
    shapes = [r for r in shapes if r.winner_by_round is not None and len(r.winner_by_round)]
    if not shapes:
        return None
    fig, axes, groups = _shape_panels(
        shapes, "How the winner's chance grows, round by round", "round", "the winner's win probability"
    )
    for ax, group in zip(axes, groups):
        for i, r in enumerate(group):
            w = r.winner_by_round[r.winner_by_round["games"] >= 20]  # a band of a handful of games says nothing
            colour = colormaps["tab10"](i)
            ax.fill_between(
                w["round"],
                w["q10"],
                w["q90"],
                color=colour,
                alpha=0.15,
                lw=0,
                label="10-90% of games" if i == 0 else None,
            )
            ax.fill_between(
                w["round"], w["q25"], w["q75"], color=colour, alpha=0.3, lw=0, label="middle half" if i == 0 else None
            )
            ax.plot(w["round"], w["q50"], color=colour, lw=2, label=f"median, {r.policy}")
        ax.axhline(1 / group[0].players, color="grey", ls="--", lw=0.8, label="fair share")
        ax.set_ylim(0, 1)
    _legend(axes[-1])
    sizes = ", ".join(f"{r.policy} at {r.players} players {len(r.per_game):,}" for r in shapes)
    return fig, (
        "The win-probability fan: at the start of each round, the eventual winner's chance of winning as the "
        "model saw it then (bands over the games whose winner was alone; rounds reached by fewer than 20 "
        f"games left out). Games: {sizes}. A fan that rises early says the game is decided early; a wide "
        "one, that winners often came from behind."
    )


def comeback_curves(shapes: list) -> Plot | None:
    """Per player count, the share of games whose winner's win probability fell to x or below at
    some round, for x from 0 to 1/P (a comeback from x); the share whose winner was last by VP is
    marked on the curve's legend."""
    shapes = [r for r in shapes if len(r.per_game)]
    if not shapes:
        return None
    fig, axes, groups = _shape_panels(
        shapes, "Comebacks: how low the winner had fallen", "winner's lowest chance, at most (%)", "share of games (%)"
    )
    for ax, group in zip(axes, groups):
        top = 1 / group[0].players
        x = np.linspace(0, min(1.0, 2 * top), 101)
        for i, r in enumerate(group):
            low = r.per_game.loc[r.per_game["single_winner"], "winner_lowest"].dropna().to_numpy(float)
            if not len(low):
                continue
            share = (low[None, :] <= x[:, None]).mean(axis=1)
            last = r.figures.set_index("figure").loc["winner_was_last", "value"]
            ax.plot(
                x * 100,
                share * 100,
                color=colormaps["tab10"](i),
                lw=2,
                label=f"{r.policy}: winner last by VP\nat some round in {100 * last:.0f}%",
            )
        ax.axvline(10, color="grey", ls=":", lw=0.8)
        ax.axvline(100 * top, color="grey", ls="--", lw=0.8)
        ax.set_ylim(0, 100)
        ax.legend(loc="lower right", fontsize="x-small", frameon=False)
    return fig, (
        "Comeback curves: the share of games (whose winner was alone) in which the winner's chance fell to "
        "the value on the axis or below at some round before the end, in percent; the dotted line is 10% "
        "(the comeback of the shape table), the dashed one the fair share 1/P. A curve that climbs early "
        "means winners often came from far behind."
    )


def luck_figure(results: list) -> Plot | None:
    """Per luck match (``studies.luck``), the share of a seat's result its luck explains, every seat's
    dice and its own rolls alone, and how much narrower the gap's interval is with the luck taken out."""
    if not results:
        return None
    labels = [f"{r.plan.players}p: {r.plan.policy}\nagainst {r.plan.against}" for r in results]
    figures = [r.table.set_index("figure")["value"] for r in results]
    fig, axes = _panels(2, "Luck against skill", sharey=False)
    x = np.arange(len(results))
    axes[0].bar(x - 0.2, [100 * f["explained"] for f in figures], 0.4, color="#4c72b0", label="every seat's dice")
    axes[0].bar(x + 0.2, [100 * f["explained_own"] for f in figures], 0.4, color="#dd8452", label="its own rolls")
    axes[0].set_ylabel("share of a seat's result explained (%)")
    axes[0].legend(loc="upper left", fontsize="x-small", frameon=False)
    axes[1].bar(x - 0.2, [f["narrower"] for f in figures], 0.4, color="#4c72b0", label="paired on common dice")
    axes[1].bar(x + 0.2, [f["narrower_games"] for f in figures], 0.4, color="#55a868", label="games alone")
    axes[1].axhline(1, color="grey", lw=0.8)
    axes[1].set_ylabel("interval narrower by (x)")
    axes[1].legend(loc="upper left", fontsize="x-small", frameon=False)
    for ax in axes:
        ax.set_xticks(x, labels, fontsize="x-small")
        ax.set_ylim(0, ax.get_ylim()[1] * 1.3)  # headroom: the legend above the bars
    return fig, (
        "Luck against skill: the share of a seat's result (beyond its policy and seat) that the luck of the "
        "dice explains, every seat's dice and its own rolls alone (left), and how much narrower the skill "
        "gap's 95% interval is with the luck taken out, on the match's paired rotations and were each game "
        "played alone (right)."
    )


def matters_figure(table: pd.DataFrame) -> Plot | None:
    """Per player count, each part's loss to the seat that forgoes it (``studies.matters``), one bar
    per strength, with 95% intervals, parts in the order of the first strength's ranking."""
    if table.empty:
        return None
    policies = list(dict.fromkeys(table["policy"]))
    fig, axes, parts = _player_panels(
        table, "What matters: the wins a seat loses forgoing each part", "win share lost (points)", "", sharey=False
    )  # each count its own order
    fig.set_size_inches(max(WIDTH * len(parts) * 1.4, 6.0), 0.3 * table["part"].nunique() + 1.8)
    for ax, (_, at) in zip(axes, parts):
        order = at[at["policy"] == policies[0]].sort_values("rank")["part"].tolist()
        order += [x for x in dict.fromkeys(at["part"]) if x not in order]
        y = np.arange(len(order))
        height = 0.8 / len(policies)
        for i, pol in enumerate(policies):
            rows = at[at["policy"] == pol].set_index("part").reindex(order)
            v = rows["loss"].to_numpy(float) * 100
            err = np.nan_to_num(np.clip(np.vstack([v - rows["loss_lo"] * 100, rows["loss_hi"] * 100 - v]), 0, None))
            ax.barh(
                y + (i - (len(policies) - 1) / 2) * height,
                v,
                height,
                xerr=err,
                capsize=2,
                color=colormaps["tab10"](i),
                label=pol,
            )
        ax.set_yticks(y, order)
        ax.invert_yaxis()
        ax.axvline(0, color="grey", lw=0.8)
        ax.axvline(MARGINS["share"] * 100, color="grey", ls=":", lw=0.8)
    _legend(axes[-1])
    return fig, (
        "What each part of the game is worth: the win share one seat loses when it forgoes the part, "
        "against the same policy in every other seat, every seat rotation on the same dice, in points "
        "with 95% intervals, one bar per strength of play; the dotted line is the 1-point margin (a part "
        "below it can be ignored)."
    )


PLOTS: dict[str, Callable[[A.ReportData], Plot | None]] = {
    "church-series": church_series,
    "church-vp": church_vp,
    "sides": sides,
    "side-rounds": side_rounds,
    "bonus-value": bonus_value,
    "wall-defence": wall_defence,
    "attack-rounds": attack_rounds,
    "cannons": cannons,
    "defence": defence,
    "scores": scores,
    "seat-advantage": seat_advantage,
    "game-length": game_length,
    "vp-sources": vp_sources,
    "ratings": ratings,
    "seat-parity": seat_parity,
}


# -- one picture of the game: the final cities of a median game ---------------------------------------
CITY_LOOK = {  # per cell code: (fill, symbol, symbol colour); the symbols of the board text format
    L.Cell.EMPTY: ("#ffffff", "", "k"),
    L.Cell.TOWER: ("#4d4d4d", "", "w"),
    L.Cell.WALL: ("#8c6d46", "", "w"),
    L.Cell.CRATE: ("#e0a458", "C", "k"),
    L.Cell.HOUSE: ("#c44e52", "H", "w"),
    **{c: ("#9ecae1", str(k), "k") for k, c in enumerate(L.CHURCH_CELLS, start=1)},
    **{L.Cell(L.PERSON_0 + int(p)): ("#a1d99b", L.CELL_CHAR[L.Cell(L.PERSON_0 + int(p))], "k") for p in L.Person},
}
"""How a city's cell is drawn: walls brown, towers grey, crates C, houses H, a church its size,
a person its letter (c citizen, s soldier, p priest, a architect, m merchant, j juggler, n noble)."""


def median_game(
    players: int = 4, policy: str = "balanced", games: int = 101, seed: int = 2026, rules: Rules | None = None
) -> tuple[int, TracedGame]:
    """The game of ``games`` games of ``seed`` (``policy`` in every seat) whose winner's VP is the
    median (the lowest game index among equals), replayed alone with its final cities."""
    rules = rules or Rules()
    score, _, _ = run_games(games, players, [policy], seed, rules, threads=1)
    won = score[:, :, L.S_WON] > 0
    top = np.where(won, score[:, :, L.S_TOTAL], -(10**9)).max(axis=1)
    order = np.argsort(top, kind="stable")
    game = int(order[(games - 1) // 2])
    return game, play_game(players, seed, game, [policy], rules)


def median_game_figure(
    players: int = 4, policy: str = "balanced", games: int = 101, seed: int = 2026, rules: Rules | None = None
) -> Plot:
    """One picture of the game: each seat's final city in the median game (``median_game``), drawn
    as the board is (the 7 x 7 grid, towers at the corners, the outer ring the wall)."""
    game, traced = median_game(players, policy, games, seed, rules)
    total, won = traced.score[:, L.S_TOTAL], traced.score[:, L.S_WON]
    fig = Figure(figsize=(1.9 * players, 2.45), layout="constrained")  # small: the first screen holds it
    axes = fig.subplots(1, players, squeeze=False)[0]
    for seat, ax in enumerate(axes):
        city = traced.city[seat]
        for r in range(L.SIZE):
            for c in range(L.SIZE):
                fill, symbol, ink = CITY_LOOK[L.Cell(int(city[L.cell_index(r, c)]))]
                y = L.SIZE - 1 - r
                ax.add_patch(Rectangle((c, y), 1, 1, facecolor=fill, edgecolor="#bbbbbb", lw=0.6))
                if symbol:
                    ax.text(
                        c + 0.5, y + 0.5, symbol, ha="center", va="center", fontsize=8, color=ink, fontweight="bold"
                    )
        ax.set_xlim(0, L.SIZE)
        ax.set_ylim(0, L.SIZE)
        ax.set_aspect("equal")
        ax.set_axis_off()
        ax.set_title(
            f"seat {seat + 1}{' (start)' if seat == 0 else ''}: {int(total[seat])} VP"  # people count from 1
            f"{', won' if won[seat] else ''}",
            fontsize="small",
        )
    fig.suptitle(f"The final cities of a median {players}-player game")
    return fig, (
        f"Each seat's city at the end of game {game:,} of seed {seed} (`{policy}` in every seat, "
        f"{players} players): of {games:,} games, the one whose winner's VP is the median. Drawn as the "
        "board is: towers grey at the corners, walls brown on the outer ring, C crate, H house, a "
        "church by its size (1-5), a person by its letter (c citizen, s soldier, p priest, a architect, "
        "m merchant, j juggler, n noble)."
    )
