"""Rule-variant sweeps on common dice: the same games played under several rules configurations.

A *sweep* plays games 0 .. N-1 of one seed under each variant of the rules. Game g draws its dice
from the stream keyed by (seed, g) whatever the rules (docs/rules.md §8), so every variant meets
the same dice: a difference between two variants is measured on matched games (common random
numbers), and its *paired* interval is much narrower than two independent samples would give.

>>> variants = plan_variants(vary=["side_defence=1,3"])
>>> [v.name for v in variants]
['baseline', 'side_defence=1', 'side_defence=3']

The variants come from rules files (``--variant name=FILE.toml``) or from ``--vary
field=v1,v2,...`` (a full grid when several fields are varied, or each field alone around the
base rules with ``one_at_a_time``); the base rules (docs/rules.md, or ``--rules``) are always the
first variant, ``baseline``. On disk a sweep is a directory holding ``sweep.json`` (the manifest
naming the variants) and one ordinary dataset per variant under ``variants/`` (the ``simulate
--out`` format, each loadable with ``smsim.load``); like ``simulate`` it resumes where it stopped.

The headline metrics are computed per game (``game_metrics``): one value per game and metric, so
that a variant's figure and its paired difference from the baseline are means over games, with
normal 95% intervals over independent games (``variant_table``).
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from smsim.checks import threads as checks_threads
from smsim.errors import DatasetError, RulesError, SweepError
from smsim.intervals import MARGINS, NOT_SETTLED, Z_95, across_bots
from smsim.rules import FIELD_MEANING, Rules
from smsim.runs.batch import simulate_to
from smsim.runs.dataset import (
    VP_LABELS,
    VP_SOURCES,
    done_parts,
    game_table,
    part_name,
    policy_identity,
    seat_table,
    with_seat_vp,
)
from smsim.runs.executors import check as check_cluster
from smsim.runs.executors import open_executor
from smsim.runs.folder import check_out, read_manifest, write_manifest
from smsim.runs.runner import play_chunks
from smsim.runs.spec import default_threads, split_chunks, verify_batch, verify_run
from smsim.runs.storage import Remote, is_url, location, reading
from smsim.studies.adapt import ADAPTED_DIR, BOTS_DIR, Adapted, AdaptPlan, check_base
from smsim.studies.adapt import adapt as adapt_bot
from smsim.studies.tune import TuneProgress

BASELINE = "baseline"


# -- planning ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """One rules configuration of a sweep: its name, the fields it changes from the base rules
    (``varied``, as TOML values) and the rules themselves."""

    name: str
    varied: dict[str, Any]
    rules: Rules
    source: str | None = None  # the rules file it was read from, if any

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "varied": self.varied, "source": self.source, "rules": self.rules.to_dict()}


def _literal(field_name: str, text: str) -> Any:
    """A value of ``--vary`` as TOML reads it (a bare word such as ``person`` stays a word)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        if text and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
            return text
        raise SweepError(f"--vary {field_name}: {text!r} is not a value (write lists as [1, 2], words bare)") from None


def parse_vary(text: str) -> tuple[str, list[Any]]:
    """``field=v1,v2,...`` into (field, values). A list-valued field separates its values with
    ``;`` (``pirate_strengths=[1,3,6,8,10,12];[1,3,5,7,9,11]``), since its lists hold commas."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name or not values.strip():
        raise SweepError(f"--vary {text!r}: expected field=value1,value2,...")
    values = values.strip()
    parts = values.split(";") if values.startswith("[") or ";" in values else values.split(",")
    parsed = [_literal(name, p.strip()) for p in parts if p.strip()]
    if not parsed:
        raise SweepError(f"--vary {text!r}: no values")
    return name, parsed


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_value_text(v) for v in value) + "]"
    return str(value)


def variant_key(varied: dict[str, Any]) -> str:
    """``field=value`` pairs joined by spaces: the name (the key, in manifests and folders) of a
    generated variant. People read ``variant_name``."""
    return " ".join(f"{k}={_value_text(v)}" for k, v in varied.items()) or BASELINE


def _said(value: Any) -> str:
    """A rules value as a sentence writes it: ``[1, 3, 6]``, ``yes``, ``2``."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_said(v) for v in value) + "]"
    return str(value)


def _field_words(name: str) -> str:
    """A rules field in words: ``church_series_vp`` -> ``church series VP``."""
    return " ".join("VP" if w == "vp" else w for w in name.split("_"))


def variant_name(changes: dict[str, Any], defaults: Rules | dict[str, Any], name: str | None = None) -> str:
    """A variant in words, each field it changes with its change from ``defaults`` (the baseline's
    rules): ``side defence 2 → 1``; several joined by "; ". A variant named otherwise than by its
    changes (a shipped or ``NAME=FILE.toml`` variant) has its name after them in brackets:
    ``rotation cost 2 → 0 (free rotation)``. No change: ``the base rules``. The one name the report,
    its findings and the terminal give a variant."""
    was = defaults.to_dict() if isinstance(defaults, Rules) else dict(defaults)
    for k, v in changes.items():  # a seat compensation the rules leave out (none) is 0 for every seat
        if k not in was and isinstance(v, (list, tuple)):
            was[k] = [0] * len(v)
    said = "; ".join(f"{_field_words(k)} {_said(was.get(k, 'none'))} → {_said(v)}" for k, v in changes.items())
    if not name or name in (BASELINE, variant_key(changes)):
        name = shipped_name(changes, defaults)  # the same rules as a shipped variant: one name for both
    if name and name not in (BASELINE, variant_key(changes)):
        words = name.replace("-", " ").replace("_", " ")
        return f"{said} ({words})" if said else words
    return said or "the base rules"


def shipped_name(changes: dict[str, Any], defaults: Rules | dict[str, Any]) -> str | None:
    """The shipped variant (``named_variants``) whose rules these changes of ``defaults`` are, if
    any: a sweep's ``side_defence=3`` is ``three-defence-per-side``, and is named so."""
    if not changes:
        return None
    try:
        rules = Rules.from_dict(changes, defaults if isinstance(defaults, Rules) else Rules.from_dict(defaults))
    except (RulesError, TypeError, ValueError):
        return None
    held = rules.to_dict()
    return next((name for name, r in _shipped_rules().items() if r == held), None)


@functools.cache
def _shipped_rules() -> dict[str, dict[str, Any]]:
    return {name: Rules.from_toml(str(path)).to_dict() for name, (path, _) in named_variants().items()}


def variant_sentence(changes: dict[str, Any], defaults: Rules | dict[str, Any], name: str | None = None) -> str:
    """What a variant changes, in one plain sentence: a shipped variant's own line (its file's first
    comment), else each field's meaning (``rules.FIELD_MEANING``) with its change: "The coins a
    player pays to turn a die to another face: 2 → 1."."""
    shipped = named_variants()
    name = name if name in shipped else shipped_name(changes, defaults)
    if name in shipped:
        return shipped[name][1]
    if not changes:
        return "The base rules."
    was = defaults.to_dict() if isinstance(defaults, Rules) else dict(defaults)
    parts = [
        f"{FIELD_MEANING.get(k, _field_words(k))}: {_said(was.get(k, 'none'))} → {_said(v)}" for k, v in changes.items()
    ]
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def _variant(base: Rules, varied: dict[str, Any], name: str | None = None, source: str | None = None) -> Variant:
    try:
        rules = Rules.from_dict(varied, base)
    except RulesError as exc:
        label = f"variant {name!r}" if name else f"--vary {variant_key(varied)}"
        raise SweepError(f"{label}: {exc}") from None
    # as the rules hold them (a list of crates becomes tuples, say): names and manifests agree
    held = rules.to_dict()
    return Variant(name or variant_key(varied), {k: held[k] for k in varied}, rules, source)


def plan_variants(
    vary: list[str] = (),
    files: list[str] = (),
    one_at_a_time: bool = False,
    base: Rules | None = None,
) -> list[Variant]:
    """The variants of a sweep, the baseline (``base``) first.

    ``vary``: ``field=v1,v2`` strings; several give their full grid, or with ``one_at_a_time``
    each field alone with the others at the base value. ``files``: ``name=FILE.toml`` strings
    (or a ``FILE.toml``, or a shipped variant's name: ``named_variants``), each a rules variant on
    top of ``base``. A variant whose rules equal another's is kept once
    (the first name wins; one equal to the base rules is the baseline). Fewer than two distinct
    rules configurations, an unknown field or a value the rules refuse raise ``SweepError``."""
    base = base or Rules()
    variants = [Variant(BASELINE, {}, base)]
    fields = [parse_vary(v) for v in vary]
    names = [f for f, _ in fields]
    if len(set(names)) != len(names):
        dup = next(f for f in names if names.count(f) > 1)
        raise SweepError(f"--vary {dup} is given twice; list all its values in one --vary")
    if fields:
        if one_at_a_time or len(fields) == 1:
            combos = [{f: v} for f, values in fields for v in values]
        else:
            combos = [dict(zip(names, values)) for values in itertools.product(*(v for _, v in fields))]
        variants += [_variant(base, combo) for combo in combos]
    for text in files:
        name, path = _variant_file(text)
        try:
            rules = Rules.from_toml(path, base)
        except RulesError as exc:
            raise SweepError(f"variant {name!r}: {exc}") from None
        held, was = rules.to_dict(), base.to_dict()  # a seat field is left out of to_dict while empty
        varied = {k: held.get(k, []) for k in {**was, **held} if held.get(k, []) != was.get(k, [])}
        variants.append(Variant(name, varied, rules, _source(path)))
    unique: list[Variant] = []
    seen: dict[str, str] = {}
    for v in variants:
        key = json.dumps(v.rules.to_dict(), sort_keys=True)
        if key in seen:
            continue
        if any(u.name == v.name for u in unique):
            raise SweepError(f"two variants are named {v.name!r}")
        seen[key] = v.name
        unique.append(v)
    if len(unique) < 2:
        raise SweepError(
            "the sweep has one variant only (the baseline): give --vary values or --variant files that change the rules"
        )
    return unique


VARIANTS_DIR = Path(__file__).resolve().parents[1] / "variants"  # smsim/variants/
"""The named variants smsim ships: one TOML rules file each, its first comment line says what it changes."""


def _source(path: str | Path) -> str:
    """A variant's rules file as its sweep records it: a shipped one as ``smsim/variants/NAME.toml``
    (the same wherever smsim is installed, so that a sweep resumes under another checkout or
    environment), any other as given."""
    file = Path(path)
    if file.resolve().parent == VARIANTS_DIR:
        return f"smsim/variants/{file.name}"
    return str(path)


def named_variants() -> dict[str, tuple[Path, str]]:
    """The shipped variants: name -> (file, one-line description)."""
    out = {}
    for f in sorted(VARIANTS_DIR.glob("*.toml")):
        first = f.read_text(encoding="utf-8").splitlines()[0] if f.stat().st_size else ""
        out[f.stem] = (f, first.lstrip("# ").strip())
    return out


def _variant_file(text: str) -> tuple[str, str]:
    """``--variant`` as (name, file): ``NAME=FILE.toml``, a ``FILE.toml`` (named after it), or the
    name of a shipped variant (``named_variants``)."""
    name, sep, path = (s.strip() for s in text.partition("="))
    if sep:
        if not name or not path:
            raise SweepError(f"--variant {text!r}: expected NAME=FILE.toml, FILE.toml or a shipped variant's name")
        return name, path
    if text.endswith(".toml"):
        return Path(text).stem, text
    shipped = named_variants()
    if text not in shipped:
        raise SweepError(
            f"--variant {text!r}: no such shipped variant (smsim variants lists them: "
            f"{', '.join(shipped)}); give NAME=FILE.toml for your own"
        )
    return text, str(shipped[text][0])


def variant_dir(i: int, name: str) -> str:
    """``variants/NN-slug``: a directory name any filesystem takes, unique by its number."""
    slug = re.sub(r"[^A-Za-z0-9_.=-]+", "_", name).strip("_")[:60] or "variant"
    return f"variants/{i:02d}-{slug}"


# -- per-game metrics ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """A headline metric: its column in ``game_metrics``, words and unit (rate, points, vp, count,
    rounds) and the group of the report it belongs to."""

    key: str
    label: str
    unit: str
    group: str


VP_PARTS = (*VP_SOURCES, "total")  # the breakdown of the final score, as every table has it
SEAT_COLUMNS = tuple(
    dict.fromkeys(
        ("game", "seat", "policy", "won", "cannons_lost", "empty_left", "longest_series", "sides_completed", *VP_PARTS)
    )
)  # the seat columns game_metrics reads


HEADLINE = ("start_edge", "cannons_changed_winner", "cannons_lost", "vp_total", "church_vp_share", "rounds")
"""The metrics a sweep's terminal table, the report's first variants table and its figures show."""

SWEEP_HEADINGS = {
    "start_edge": "start edge",
    "cannons_changed_winner": "cannons change winner",
    "cannons_lost": "cannons lost",
    "vp_total": "VP per seat",
    "church_vp_share": "church VP share",
    "rounds": "rounds",
}
"""Short column headings of the headline metrics for narrow tables (the terminal's and the page's)."""


def metrics_for(players: int, n_attacks: int, policies: list[str], seat_vp: bool = False) -> list[Metric]:
    """Every headline metric of a sweep at ``players`` players: the order of the report's tables
    (the VP of a seat compensation only where a variant gives one: ``seat_vp``)."""
    out = [
        Metric(f"win_seat_{s}", f"Seat {s + 1}{' (the start player)' if s == 0 else ''} wins", "rate", "seats")
        for s in range(players)
    ]  # the key counts seats from 0 as the data do, the label from 1 as people do
    out.append(Metric("start_edge", "Start player's edge (win rate - parity)", "points", "seats"))
    out.append(Metric("cannons_changed_winner", "Cannon losses change the winner", "rate", "pirates"))
    out.append(Metric("cannons_lost", "Cannons lost per seat", "count", "pirates"))
    out += [
        Metric(f"attack_{k}_held", f"Attack {k} held by a seat", "rate", "pirates") for k in range(1, n_attacks + 1)
    ]
    out += [
        Metric(f"vp_{p}", f"Mean VP per seat: {VP_LABELS[p]}", "vp", "vp")
        for p in VP_PARTS
        if seat_vp or p != "seat_vp"
    ]
    out.append(Metric("church_vp_share", "Church VP share of total VP", "rate", "vp"))
    out.append(Metric("longest_series", "Longest church series per seat", "count", "vp"))
    out.append(Metric("sides_completed", "Sides completed per seat", "count", "city"))
    out.append(Metric("rounds", "Game length (rounds)", "rounds", "game"))
    if len(set(policies)) > 1:
        out += [Metric(f"win_share_{p}", f"Win share of {p}", "rate", "policies") for p in sorted(set(policies))]
    return out


def game_metrics(seats: pd.DataFrame, games: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    """One row per game (indexed by ``game``), one column per headline metric (``metrics_for``):
    the game's value of it, NaN where the game has none (an attack that never came)."""
    games = games.sort_values("game")
    s = with_seat_vp(seats.sort_values(["game", "seat"]))  # a copy; seat_vp 0 where it was written before it existed
    n = len(games)
    players = int(games["players"].iloc[0]) if n else 0
    if n and len(s) != n * players:
        raise DatasetError(f"the seat table has {len(s)} rows for {n} games of {players} players")

    def grid(col: str) -> np.ndarray:
        return s[col].to_numpy(np.float64).reshape(n, players)

    won = grid("won")
    with np.errstate(invalid="ignore", divide="ignore"):  # a shared win split between its winners: the seats add
        share = np.nan_to_num(won / won.sum(axis=1, keepdims=True))  # up to one win a game, parity is 1 / players
    total = grid("total")
    out: dict[str, np.ndarray] = {}
    for seat in range(players):
        out[f"win_seat_{seat}"] = share[:, seat]
    out["start_edge"] = share[:, 0] - 1.0 / players if players else np.zeros(0)
    out["cannons_changed_winner"] = (
        _winners(total, grid("empty_left")) != _winners(total - grid("cannon_vp"), grid("empty_left"))
    ).astype(np.float64)
    out["cannons_lost"] = grid("cannons_lost").mean(axis=1)
    for k, strength in enumerate(rules.pirate_strengths, start=1):
        col = f"defence_attack_{k}"
        if col not in s:
            continue
        defence = grid(col)
        came = defence >= 0
        held = np.where(came, defence >= strength, False).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[f"attack_{k}_held"] = np.where(came.any(axis=1), held / came.sum(axis=1), np.nan)
    for part in VP_PARTS:
        out[f"vp_{part}"] = grid(part).mean(axis=1)
    vp = total.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):  # a game whose seats hold no VP between them has no share
        out["church_vp_share"] = np.where(vp > 0, grid("church_vp").sum(axis=1) / vp, np.nan)
    out["longest_series"] = grid("longest_series").mean(axis=1)
    out["sides_completed"] = grid("sides_completed").mean(axis=1)
    out["rounds"] = games["rounds"].to_numpy(np.float64)
    policies = s["policy"].astype(str).to_numpy().reshape(n, players)
    if n and len(set(policies[0])) > 1:
        for p in sorted(set(policies[0])):
            out[f"win_share_{p}"] = np.where(policies == p, share, 0.0).sum(axis=1)
    return pd.DataFrame(out, index=pd.Index(games["game"].to_numpy(np.int64), name="game"))


def _winners(score: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Per game, the mask of the seats ranked first by ``score``, ties broken by more empty spaces
    (docs/rules.md §4)."""
    top = score == score.max(axis=1, keepdims=True)
    best_empty = np.where(top, empty, -1).max(axis=1, keepdims=True)
    first = top & (empty == best_empty)
    return (first * (1 << np.arange(score.shape[1]))).sum(axis=1)


# -- statistics over variants -------------------------------------------------------------------------
def variant_table(
    per_variant: dict[str, pd.DataFrame], metrics: list[Metric], baseline: str = BASELINE, paired: bool = True
) -> pd.DataFrame:
    """The tidy table of a sweep: one row per variant and metric with the metric's mean over games
    and its 95% interval (``value``, ``lo``, ``hi``, ``games``), its difference from the baseline
    (``diff``) with the **paired** interval over matched games (``diff_lo``, ``diff_hi``: the normal
    interval of the mean of per-game differences) and the interval two independent samples of the
    same sizes would give (``unpaired_lo``, ``unpaired_hi``), and ``narrower``: how many times
    narrower the paired interval is. With ``paired=False`` (variants not played on the same dice)
    the difference's interval is the unpaired one."""
    base = per_variant[baseline]
    rows = []
    for name, m in per_variant.items():
        for metric in metrics:
            row: dict[str, Any] = {
                "variant": name,
                "metric": metric.key,
                "label": metric.label,
                "unit": metric.unit,
                "group": metric.group,
            }
            x = m[metric.key].to_numpy(np.float64) if metric.key in m else np.full(len(m), np.nan)
            row.update(_mean(x))
            b = base[metric.key] if metric.key in base else pd.Series(np.nan, index=base.index)
            if name == baseline:  # the reference itself: no difference to state
                row.update(_difference(pd.Series(dtype=np.float64), b, False))
            else:
                row.update(_difference(pd.Series(x, index=m.index), b, paired))
            rows.append(row)
    return pd.DataFrame(rows + _seat_gap_rows(per_variant, baseline, paired))


SEAT_GAP = Metric("seat_gap", "Widest gap between two seats' win rates", "points", "seats")
"""A designer's fairness figure beside the start player's edge: the gap between the seats that win
most and least often. Not a mean over games: its rows are added by ``variant_table`` (``_seat_gap_rows``)."""


def _seat_gap_rows(per_variant: dict[str, pd.DataFrame], baseline: str, paired: bool) -> list[dict[str, Any]]:
    """Each variant's widest gap between two seats' win rates (``SEAT_GAP``): per game, the win
    share of the seat that wins most often in that variant's games minus that of the one that wins
    least often, its mean with the 95% interval over games, and its change from the baseline's
    (paired game by game where the variants met the same dice). The two seats are chosen on the
    same games: where every seat is near parity the gap leans high by about the noise of one seat's
    share (a few tenths of a point at 50,000 games)."""
    seats = [c for c in per_variant[baseline].columns if re.fullmatch(r"win_seat_\d+", c)]
    if len(seats) < 2:
        return []
    gaps = {}
    for name, m in per_variant.items():
        means = m[seats].mean()
        gaps[name] = m[means.idxmax()] - m[means.idxmin()]
    rows = []
    for name, x in gaps.items():
        row: dict[str, Any] = {
            "variant": name,
            "metric": SEAT_GAP.key,
            "label": SEAT_GAP.label,
            "unit": SEAT_GAP.unit,
            "group": SEAT_GAP.group,
        }
        row.update(_mean(x.to_numpy(np.float64)))
        same = name == baseline  # the reference itself: no difference to state
        row.update(_difference(pd.Series(dtype=np.float64) if same else x, gaps[baseline], not same and paired))
        rows.append(row)
    return rows


def _mean(x: np.ndarray) -> dict[str, float]:
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return {"value": np.nan, "lo": np.nan, "hi": np.nan, "games": 0}
    half = Z_95 * x.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
    return {"value": float(x.mean()), "lo": float(x.mean() - half), "hi": float(x.mean() + half), "games": n}


def _difference(x: pd.Series, base: pd.Series, paired: bool) -> dict[str, float]:
    """The difference of two per-game metric series (x - base): paired over the games both hold,
    and as if the two were independent samples."""
    a, b = x.dropna(), base.dropna()
    nan = {
        "diff": np.nan,
        "diff_lo": np.nan,
        "diff_hi": np.nan,
        "unpaired_lo": np.nan,
        "unpaired_hi": np.nan,
        "narrower": np.nan,
        "paired_games": 0,
    }
    if len(a) < 2 or len(b) < 2:
        return nan
    unpaired_se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    diff = float(a.mean() - b.mean())
    out = {"diff": diff, "unpaired_lo": diff - Z_95 * unpaired_se, "unpaired_hi": diff + Z_95 * unpaired_se}
    if not paired:
        return {**nan, **out, "diff_lo": out["unpaired_lo"], "diff_hi": out["unpaired_hi"]}
    both = pd.concat([x, base], axis=1, join="inner").dropna()
    d = both.iloc[:, 0].to_numpy() - both.iloc[:, 1].to_numpy()
    if len(d) < 2:
        return {**nan, **out}
    paired_se = d.std(ddof=1) / np.sqrt(len(d))
    mean = float(d.mean())
    narrower = unpaired_se / paired_se if paired_se > 0 else np.inf
    return {
        **out,
        "diff": mean,
        "diff_lo": mean - Z_95 * paired_se,
        "diff_hi": mean + Z_95 * paired_se,
        "narrower": float(narrower),
        "paired_games": len(d),
    }


def variance_reduction(table: pd.DataFrame) -> pd.DataFrame:
    """Per metric, over the non-baseline variants: the median of how many times narrower the
    paired interval of the difference is than the unpaired one (``narrower``), and the games a
    pair of independent samples would need for the paired interval's width (``narrower`` squared)."""
    order = list(dict.fromkeys(table["metric"]))
    t = table[(table["variant"] != BASELINE) & np.isfinite(table["narrower"])]
    out = t.groupby(["metric", "label"], sort=False)["narrower"].median().rename("narrower").reset_index()
    out = out.sort_values("metric", key=lambda m: m.map(order.index), kind="stable").reset_index(drop=True)
    out["games_factor"] = out["narrower"] ** 2
    return out


# -- running -------------------------------------------------------------------------------------------
@dataclass
class SweepProgress:
    """Reported after every chunk of games of any variant: games done of the whole sweep, speed,
    and the variant being played."""

    done: int
    total: int
    elapsed: float
    games_per_second: float
    variant: str
    variant_index: int
    variants: int
    workers: int = 0  # on a cluster: its workers (0: this machine alone)


@dataclass
class SweepResult:
    """A sweep on disk: its directory, variants, the tidy table of headline metrics per variant
    (``variant_table``) and the games this call played."""

    path: str | None
    variants: list[Variant]
    table: pd.DataFrame
    played: int
    metrics: dict[str, pd.DataFrame] = field(default_factory=dict)  # per variant: game_metrics
    adapted: list[Adapted] = field(default_factory=list)  # per variant, its adapted bot (--adapt)
    adapted_table: pd.DataFrame | None = None  # the adapted bots' variant_table (--adapt)


def sweep_identity(variants: list[Variant], games: int, players: int, specs, seed: int, batch: int) -> dict:

    return {
        "games": games,
        "players": players,
        "seed": seed,
        "batch": batch,
        "policies": [policy_identity(s) for s in specs],
        "variants": [v.describe() for v in variants],
    }


def run_sweep(
    out: str | Path,
    variants: list[Variant],
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    batch: int | None = None,
    threads: int | None = None,
    command: list[str] | None = None,
    on_progress: Callable[[SweepProgress], None] | None = None,
    cluster=None,
    adapt: AdaptPlan | None = None,
    on_adapt: Callable[[str, TuneProgress | None], None] | None = None,
) -> SweepResult:
    """Play ``games`` games of every variant into the sweep directory ``out`` (one dataset per
    variant) and return its table. Resumable: run it again and only missing parts are played.

    ``cluster``: play the parts on a Dask distributed cluster, as ``simulate_to`` does (a
    ``distributed.Client`` or an address; one connection for every variant, played in turn).

    ``adapt``: also play every variant with a bot adapted to it (``studies.adapt``): the line-up's
    seats of ``adapt.base`` given that base's weights tuned on the variant's rules, stored in
    ``out/adapted-bots/`` and played in ``out/adapted/`` as a sweep of its own on the same dice
    (``adapted_table``).
    ``on_adapt(variant, progress)`` hears the tuning (``progress`` None once a bot is ready)."""
    run = verify_run(games, players, policies, seed)
    games, players, specs = run.games, run.players, run.lineup
    batch = verify_batch(batch, games)
    check_cluster(cluster)  # a bad address or a missing Dask: refused before the directory is made
    path = location(out)  # a local directory, or a URL (a scheme not installed: refused here)
    if adapt is not None:
        check_adapt(adapt, specs, path)
    identity = sweep_identity(variants, games, players, specs, seed, batch)
    # one executor for every variant; on a cluster, connected before anything is written
    with open_executor(cluster) as executor:
        try:  # anything but this sweep's directory is refused before a file in it is touched
            start_sweep(path, identity, command)
        except OSError as exc:
            raise DatasetError(f"cannot write to {str(path)!r}: {exc.strerror or exc}") from None
        played = _play_variants(
            path, variants, games, players, specs, seed, batch, threads, command, on_progress, executor
        )
        bots: list[Adapted] = []
        if adapt is not None:
            lineups, bots = adapted_lineups(path / BOTS_DIR, variants, specs, adapt, threads, on_adapt)
            played += _play_adapted(
                path / ADAPTED_DIR,
                variants,
                games,
                players,
                lineups,
                seed,
                batch,
                threads,
                command,
                on_progress,
                executor,
            )
    table, metrics = sweep_table(path, with_metrics=True)
    return SweepResult(str(path), variants, table, played, metrics, bots, adapted_table(path) if bots else None)


def start_sweep(path, identity: dict, command) -> None:
    """Write the sweep's manifest, unless ``path`` holds this sweep already (``check_out``: any
    other folder is refused before a file in it is touched)."""
    if not check_out(path, "sweep", identity):
        write_manifest(
            path,
            "sweep",
            {
                "sweep": identity,
                "command": command or [],
                "variant_dirs": [variant_dir(i, v["name"]) for i, v in enumerate(identity["variants"])],
            },
        )


def check_adapt(plan: AdaptPlan, specs, path) -> None:
    """``--adapt`` refused before anything is played: the base must be a built-in heuristic the
    line-up plays, and the sweep a local directory (the tuner writes its files there)."""
    check_base(plan.base)
    if plan.base not in [s.name for s in specs]:
        raise SweepError(
            f"--adapt gives the line-up's {plan.base} seats weights tuned on each variant; the line-up "
            f"({', '.join(s.name for s in specs)}) has none"
        )
    if isinstance(path, Remote):
        raise SweepError("--adapt needs a local directory: the tuned weights are written beside the sweep")


def adapted_name(base: str) -> str:
    """The name an adapted bot plays under in every variant's dataset (its weights are in the
    dataset's manifest): one name, so that per-policy figures line up across the variants."""
    return f"{base}-adapted"


def adapted_lineups(
    folder: Path, variants: list[Variant], specs, plan: AdaptPlan, threads, on_adapt=None
) -> tuple[list[list], list[Adapted]]:
    """Per variant, the line-up with ``plan.base``'s seats played by the bot adapted to it, and
    that bot."""
    lineups, bots = [], []
    for i, v in enumerate(variants):
        stem = f"{plan.base}@{variant_dir(i, v.name).split('/', 1)[1]}"
        heard = None if on_adapt is None else (lambda p, name=v.name: on_adapt(name, p))
        bot = adapt_bot(folder, stem, v.name, v.rules, plan, threads, heard)
        if on_adapt is not None:
            on_adapt(v.name, None)
        played = replace(bot.spec, name=adapted_name(plan.base))
        lineups.append([played if s.name == plan.base else s for s in specs])
        bots.append(bot)
    return lineups, bots


def _play_adapted(path, variants, games, players, lineups, seed, batch, threads, command, on_progress, executor) -> int:
    """The adapted bots' sweep: a sweep directory of its own, each variant its own line-up."""
    identity = sweep_identity(variants, games, players, lineups[0], seed, batch)
    identity["adapted"] = [[policy_identity(s) for s in lineup] for lineup in lineups]
    start_sweep(path, identity, command)
    return _play_variants(
        path, variants, games, players, lineups, seed, batch, threads, command, on_progress, executor, per_variant=True
    )


def adapted_table(path: str | Path, with_metrics: bool = False):
    """The tidy table of a sweep's adapted bots (``sweep_table`` of ``path/adapted``), or None
    where the sweep was played without ``--adapt``."""
    where = location(path) / ADAPTED_DIR
    try:
        read_manifest(where, "sweep")
    except DatasetError:
        return None
    return sweep_table(where, with_metrics=with_metrics)


def _play_variants(
    path,
    variants: list[Variant],
    games: int,
    players: int,
    specs,
    seed: int,
    batch: int,
    threads: int | None,
    command,
    on_progress,
    executor,
    per_variant: bool = False,
) -> int:
    """Each variant's dataset in turn; the games this call played. ``per_variant``: ``specs`` is
    a line-up per variant."""
    start = time.perf_counter()
    total = games * len(variants)
    done_before = played_before = 0
    for i, v in enumerate(variants):

        def report(p, i=i, v=v, done_before=done_before, played_before=played_before) -> None:
            if on_progress is None:
                return
            elapsed = time.perf_counter() - start
            played = played_before + round(p.games_per_second * p.elapsed)  # this call's games, not resumed ones
            on_progress(
                SweepProgress(
                    done_before + p.done,
                    total,
                    elapsed,
                    played / elapsed if elapsed > 0 else 0.0,
                    v.name,
                    i,
                    len(variants),
                    p.workers,
                )
            )

        result = simulate_to(
            str(path / variant_dir(i, v.name)),
            games,
            players,
            specs[i] if per_variant else specs,
            seed,
            v.rules,
            batch=batch,
            threads=threads,
            command=command,
            on_progress=report,
            cluster=executor,
        )
        played_before += result.played
        done_before += games
    return played_before


def sweep(
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    vary: list[str] = (),
    variants: list[str] = (),
    one_at_a_time: bool = False,
    rules: Rules | None = None,
    out: str | Path | None = None,
    batch: int | None = None,
    threads: int | None = None,
    on_progress: Callable[[SweepProgress], None] | None = None,
    cluster=None,
    adapt: AdaptPlan | None = None,
) -> pd.DataFrame:
    """Play a rule-variant sweep and return its tidy table of headline metrics per variant
    (``variant_table``: ``variant``, ``metric``, ``value`` with ``lo``/``hi``, ``diff`` from the
    baseline with its paired ``diff_lo``/``diff_hi``, ...).

    ``vary``: ``["side_defence=1,2,3", ...]``; ``variants``: ``["name=FILE.toml", ...]``. With
    ``out`` the games are written as a resumable sweep directory (``smsim sweep --out``); without
    it they are played in memory and only their per-game metrics kept. ``cluster`` (with ``out``):
    the parts are played on a Dask distributed cluster (``run_sweep``, docs/cluster.md). ``adapt``
    (with ``out``): every variant also played by a bot adapted to it (``run_sweep``; its table:
    ``adapted_table(out)``, the effects under both bots: ``effects_across_bots``).

    >>> import smsim
    >>> t = smsim.sweep(2000, players=4, policies=["balanced"], vary=["side_defence=1,3"])  # doctest: +SKIP
    >>> t[t.metric == "cannons_lost"][["variant", "value", "diff", "diff_lo", "diff_hi"]]  # doctest: +SKIP
    """
    plan = plan_variants(list(vary), list(variants), one_at_a_time, rules)
    threads = checks_threads(threads, error=SweepError)
    if cluster is not None and out is None:
        raise SweepError("a sweep on a cluster needs out: the workers write the variants' datasets there")
    if adapt is not None and out is None:
        raise SweepError("adapt needs out: the adapted bots' weights and games are kept there")
    if out is not None:
        return run_sweep(
            out,
            plan,
            games,
            players,
            policies,
            seed,
            batch,
            threads,
            on_progress=on_progress,
            cluster=cluster,
            adapt=adapt,
        ).table
    return play_sweep(plan, games, players, policies, seed, threads, on_progress).table


def play_sweep(
    variants: list[Variant],
    games: int,
    players: int = 4,
    policies: list | None = None,
    seed: int = 0,
    threads: int | None = None,
    on_progress: Callable[[SweepProgress], None] | None = None,
) -> SweepResult:
    """A sweep played in memory: per variant, chunk after chunk, only the per-game metrics kept."""

    run = verify_run(games, players, policies, seed)
    games, players, specs = run.games, run.players, run.lineup
    start = time.perf_counter()
    names = [s.name for s in specs]
    # every variant's chunks on one pool of threads, variant after variant: no wait between variants
    chunks = [(first, n, i) for i in range(len(variants)) for first, n in split_chunks(0, games)]
    frames: list[list[pd.DataFrame]] = [[] for _ in variants]  # per variant, its chunks' metrics in order
    heard = [0, 0]  # games whose metrics are kept, the variant of the last chunk

    def finish(c: int, score, player, game_out) -> pd.DataFrame:
        first, _, i = chunks[c]
        rules = variants[i].rules
        seats = seat_table(score, player, game_out, names, rules, first)
        return game_metrics(seats, game_table(game_out, players, rules, first), rules)

    def keep(c: int, metrics: pd.DataFrame) -> None:
        frames[chunks[c][2]].append(metrics)
        heard[0] += chunks[c][1]
        heard[1] = chunks[c][2]

    def poll() -> None:
        if on_progress is None:
            return
        done, now = heard
        elapsed = time.perf_counter() - start
        on_progress(
            SweepProgress(
                done,
                games * len(variants),
                elapsed,
                done / elapsed if elapsed else 0.0,
                variants[now].name,
                now,
                len(variants),
            )
        )

    play_chunks(
        chunks,
        players,
        [(specs, v.rules) for v in variants],
        seed,
        threads or default_threads(),
        finish,
        poll,
        use=keep,
    )
    per_variant = {v.name: pd.concat(frames[i]) for i, v in enumerate(variants)}
    done = games * len(variants)
    metrics = metrics_for(
        players,
        max(len(v.rules.pirate_strengths) for v in variants),
        names,
        any(any(v.rules.seat_vp) for v in variants),
    )
    return SweepResult(None, variants, variant_table(per_variant, metrics), done, per_variant)


# -- reading a sweep back ------------------------------------------------------------------------------
READ_COLUMNS = {"seats": SEAT_COLUMNS, "games": ("game", "players", "rounds")}


def _read(path: Path | Remote, table: str, extra: tuple[str, ...] = ()) -> pd.DataFrame:
    frames = []
    for k in sorted(done_parts(path)):
        f = path / table / part_name(k)
        try:
            with reading(f) as source:
                file = pq.ParquetFile(source)
                cols = [c for c in (*READ_COLUMNS[table], *extra) if c in file.schema_arrow.names]
                df = file.read(columns=cols).to_pandas()
            frames.append(with_seat_vp(df) if table == "seats" else df)  # seat_vp: since format 3
        except Exception as exc:  # pyarrow raises several kinds for a damaged file
            raise DatasetError(f"{str(f)!r} cannot be read ({exc})") from None
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(READ_COLUMNS[table]))


def dataset_metrics(path: str | Path, rules: Rules) -> pd.DataFrame:
    """``game_metrics`` of one dataset directory, reading only the columns they need."""
    path = location(path)
    attack_cols = tuple(f"defence_attack_{k}" for k in range(1, len(rules.pirate_strengths) + 1))
    seats = _read(path, "seats", attack_cols)
    games = _read(path, "games")
    return game_metrics(seats, games, rules)


@dataclass
class SweepData:
    """A sweep read back: its manifest, variants (in order, baseline first) and dataset paths."""

    path: str
    manifest: dict[str, Any]
    variants: list[Variant]
    dirs: list[Path | Remote]

    @property
    def players(self) -> int:
        return int(self.manifest["sweep"]["players"])

    @property
    def policies(self) -> list[str]:
        return [p["name"] for p in self.manifest["sweep"]["policies"]]


def read_sweep(path: str | Path) -> SweepData:
    path = location(path)
    manifest = read_manifest(path, "sweep")
    try:
        described = manifest["sweep"]["variants"]
        variants = [Variant(v["name"], v["varied"], Rules.from_dict(v["rules"]), v.get("source")) for v in described]
        dirs = [path / d for d in manifest["variant_dirs"]]
    except (KeyError, TypeError, RulesError) as exc:
        raise DatasetError(f"{str(path)!r}: sweep.json is damaged ({exc})") from None
    return SweepData(str(path), manifest, variants, dirs)


def sweep_table(path: str | Path, with_metrics: bool = False):
    """The tidy table of a sweep directory (``variant_table``); with ``with_metrics`` also the
    per-game metrics of each variant."""
    data = read_sweep(path)
    per_variant = {v.name: dataset_metrics(d, v.rules) for v, d in zip(data.variants, data.dirs)}
    metrics = metrics_for(
        data.players,
        max(len(v.rules.pirate_strengths) for v in data.variants),
        data.policies,
        any(any(v.rules.seat_vp) for v in data.variants),
    )
    table = variant_table(per_variant, metrics)
    return (table, per_variant) if with_metrics else table


def effects_across_bots(tables: dict[str, pd.DataFrame], margins: dict[str, float] | None = None) -> pd.DataFrame:
    """Each variant's effect on each metric under several bots played on the same dice (``tables``:
    bot -> its ``variant_table``, the first bot's rows and order kept): per bot its paired
    difference from the baseline with its 95% interval (columns ``BOT``, ``BOT lo``, ``BOT hi``),
    one verdict across the bots (``intervals.across_bots`` against the metric's unit's margin:
    holds for every bot, bot-dependent, not settled) and the range of the bots' values (``low``,
    ``high``: the size to state). A metric a bot's table lacks, or the baseline, has no row."""
    margins = MARGINS if margins is None else margins
    bots = list(tables)
    indexed = {b: t.set_index(["variant", "metric"]) for b, t in tables.items()}
    rows = []
    for _, r in tables[bots[0]].iterrows():
        if r["variant"] == BASELINE or not all((r["variant"], r["metric"]) in indexed[b].index for b in bots):
            continue
        row: dict[str, Any] = {k: r[k] for k in ("variant", "metric", "label", "unit", "group")}
        effects = []
        for b in bots:
            e = indexed[b].loc[(r["variant"], r["metric"])]
            effects.append((float(e["diff"]), float(e["diff_lo"]), float(e["diff_hi"])))
            row.update({b: effects[-1][0], f"{b} lo": effects[-1][1], f"{b} hi": effects[-1][2]})
        margin = margins.get(r["unit"], np.nan)
        if np.isfinite(margin):
            row["verdict"], row["low"], row["high"] = across_bots(effects, margin)
        else:
            row["verdict"], row["low"], row["high"] = NOT_SETTLED, np.nan, np.nan
        rows.append(row)
    return pd.DataFrame(rows)


# -- variants for a report ------------------------------------------------------------------------------
@dataclass
class VariantSet:
    """Rules variants a report compares: the variants of one sweep, or datasets whose rules differ
    from the report's, each set beside a baseline dataset of the same players and policies.
    ``paired``: every variant played the baseline's games on the baseline's dice (a sweep, or
    datasets of the same seed and policies), so differences have paired intervals."""

    label: str
    players: int
    policies: list[str]
    games: int
    seed: int | None
    paired: bool
    variants: list[Variant]
    metrics: dict[str, pd.DataFrame]
    dirs: list[str]
    adapted: VariantSet | None = None  # the same variants played by bots adapted to each (sweep --adapt)
    bots: list[dict] = field(default_factory=list)  # per variant tuned, its adapted bot's note (studies.adapt)
    root: str = ""  # the folder the datasets are named from in a report (``shown_dirs``)

    def shown_dirs(self) -> list[str]:
        """The datasets as a report names them: their folders under the one that holds the sweep
        (or, for datasets beside a baseline, under the one that holds them all), never a path of
        the machine that played them."""
        return [os.path.relpath(d, self.root) if self.root and not is_url(d) else d for d in self.dirs]

    def table(self) -> pd.DataFrame:
        n_attacks = max(len(v.rules.pirate_strengths) for v in self.variants)
        seat_vp = any(any(v.rules.seat_vp) for v in self.variants)
        return variant_table(
            self.metrics, metrics_for(self.players, n_attacks, self.policies, seat_vp), paired=self.paired
        )


def variant_set_from_sweep(path: str | Path) -> VariantSet:
    data = read_sweep(path)
    metrics = {v.name: dataset_metrics(d, v.rules) for v, d in zip(data.variants, data.dirs)}
    games = min(len(m) for m in metrics.values())
    here = location(path)
    adapted, bots = None, []
    if isinstance(here, Path) and (here / ADAPTED_DIR / "sweep.json").is_file():
        adapted = variant_set_from_sweep(here / ADAPTED_DIR)
        for note in sorted((here / BOTS_DIR).glob("*.json")):
            try:
                bots.append(json.loads(note.read_text(encoding="utf-8")))
            except (OSError, ValueError) as exc:
                raise DatasetError(f"cannot read the adapted bot's note {str(note)!r}: {exc}") from None
    return VariantSet(
        f"sweep {os.path.basename(os.path.normpath(data.path))}",
        data.players,
        data.policies,
        games,
        data.manifest["sweep"].get("seed"),
        True,
        data.variants,
        metrics,
        [str(d) for d in data.dirs],
        adapted,
        bots,
        "" if is_url(data.path) else os.path.dirname(os.path.abspath(data.path)),
    )


def variant_set_from_datasets(baseline: str | Path, others: list[str | Path]) -> VariantSet:
    """Datasets (``simulate --out``) whose rules differ from ``baseline``'s, as variants of it,
    each named by the rules fields it changes."""

    def run_of(path) -> dict:
        return read_manifest(path, "dataset")["run"]

    base_run = run_of(baseline)
    base_rules = Rules.from_dict(base_run["rules"])
    names = [p["name"] for p in base_run["policies"]]
    variants = [Variant(BASELINE, {}, base_rules, str(baseline))]
    metrics = {BASELINE: dataset_metrics(baseline, base_rules)}
    paired = True
    for path in others:
        run = run_of(path)
        rules = Rules.from_dict(run["rules"])
        held, was = rules.to_dict(), base_rules.to_dict()
        varied = {k: v for k, v in held.items() if was.get(k) != v}  # a field left out of to_dict at its default
        name = variant_key(varied)
        while name in metrics:
            name += "'"
        variants.append(Variant(name, varied, rules, str(path)))
        metrics[name] = dataset_metrics(path, rules)
        same_table = run["players"] == base_run["players"] and [p["name"] for p in run["policies"]] == names
        paired &= same_table and run["seed"] == base_run["seed"]
    games = min(len(m) for m in metrics.values())
    return VariantSet(
        f"datasets beside {os.path.basename(os.path.normpath(str(baseline)))}",
        int(base_run["players"]),
        names,
        games,
        base_run.get("seed"),
        paired,
        variants,
        metrics,
        [str(baseline), *map(str, others)],
        root=os.path.dirname(os.path.commonpath([os.path.abspath(p) for p in [baseline, *others]])),
    )
