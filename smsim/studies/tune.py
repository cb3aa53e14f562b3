"""Weights found by an optimizer (``smsim tune``): CMA-ES over the heuristic's weights, every
candidate scored by ``smsim.compare`` on the same dice, the winner checked on held-out dice.

- **Score.** A candidate is a weight vector; its score is its win share (a shared win split) in
  ``compare([candidate, *field], players, games, seed)``: every seat arrangement of the candidate
  and the field on each deal of the dice, so every seat equally. Every candidate is played on the
  *same* seed (common random numbers), so two candidates' scores differ by their weights, not by
  their dice. The first candidate scored is the base itself, so the winner is never worse than the
  base on the tuning dice; the last (once a whole generation has been told to CMA-ES) is its own
  estimate, the distribution's mean, which under noise is often better than the best sample.
- **Search space.** CMA-ES works on ``x``, one coordinate per searched weight, started at 0:
  ``weight = base + scale * x`` with ``scale = max(|base|, FLOOR_SCALE)``, so each weight moves
  in proportion to its own size (a weight of 3 VP and one of 0.05 VP are both searched), and a
  weight that is zero in the base moves on the floor scale (``church``, whose 0 reads as 1, starts
  from 1: ``ZERO_MEANS``). The initial step ``sigma`` is in those units (0.3: about 30% of each
  weight). Weights are rounded to ``DECIMALS`` decimals before they are played, so the file
  written holds exactly the weights that were scored.
- **Held out.** The winner then plays the base on dice it never tuned on: seed
  ``held_out_seed(seed)``, a 63-bit hash of the tuning seed (``HELD_OUT_LABEL``), not ``seed``
  or a neighbour of it. That comparison, with its 95% interval, is the honest estimate of what
  the tuning found; the tuning score of the best of many candidates is biased upwards.

>>> held_out_seed(7) != 7
True
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from smsim.checks import positive, whole
from smsim.checks import threads as checks_threads
from smsim.errors import TuneError
from smsim.files import write_file
from smsim.intervals import interval_text
from smsim.layout import PolicyKind
from smsim.play.api import verify_players
from smsim.policies.heuristics import PARAM_NAMES
from smsim.policies.registry import LATER_WEIGHTS, POLICIES, PRESETS, PolicySpec, resolve_policy
from smsim.rules import Rules
from smsim.runs.spec import MAX_GAMES
from smsim.studies.compare import Comparison, arrangements, compare

# a weight whose zero stands for another value (``church``: 0 reads as 1, face value) is searched
# from the value it stands for, not from a zero that is no multiplier at all
ZERO_MEANS = {"church": 1.0}
FLOOR_SCALE = 0.5  # VP: the search scale of a weight that is zero (or tiny) in the base
# switches, not values: searched only when named (--only); a tuned noise could leave [0, 1]
NOT_SEARCHED = ("exact_keep", "noise", "forgo")
DECIMALS = 3  # weights are played and written rounded to this many decimals
HELD_OUT_LABEL = "smsim tune held-out"  # hashed with the tuning seed into the held-out seed
OPTIMIZER_LABEL = "smsim tune cma"  # hashed with the tuning seed into CMA-ES's own seed


def _hash_seed(label: str, seed: int, bits: int) -> int:
    digest = hashlib.blake2b(f"{label}:{int(seed)}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - bits)


def held_out_seed(seed: int) -> int:
    """The seed of the held-out games of a tuning run on ``seed``: a 63-bit hash of it, so its
    dice share nothing with the tuning games of this or any nearby seed."""
    return _hash_seed(HELD_OUT_LABEL, seed, 63)


def _optimizer_seed(seed: int) -> int:
    """CMA-ES's seed: nonzero (cma reads 0 as "from the clock") and below 2**32 (numpy's limit)."""
    return 1 + _hash_seed(OPTIMIZER_LABEL, seed, 31)


@dataclass
class TuneProgress:
    """What ``tune`` reports after every candidate scored (``on_progress``) and once as the
    held-out games start (``phase == "held-out"``)."""

    phase: str  # "tuning" or "held-out"
    done: int  # candidates scored so far
    budget: int
    generation: int
    score: float  # the candidate just scored
    best: float  # the best score so far, with its 95% interval
    best_lo: float
    best_hi: float
    parity: float


@dataclass
class TuneResult:
    """What ``tune`` found: the winner (``spec``), its tuning score, every candidate scored
    (``history``) and the winner against the base on held-out dice (``held_out``)."""

    spec: PolicySpec  # the winner, named "tuned"
    base: PolicySpec
    field: list[str]  # the opponents' names
    searched: list[str]  # the weights searched
    score: float  # the winner's win share on the tuning dice, with its 95% interval
    score_lo: float
    score_hi: float
    base_score: float  # the base's own win share on the same dice
    parity: float  # the win share of a policy no better than the field, in the tuning comparison
    history: pd.DataFrame  # per candidate: generation, win share and interval, its searched weights
    held_out: Comparison  # the winner against the base on held-out dice
    held_out_parity: float
    seed: int
    held_out_seed: int
    players: int
    games: int
    held_out_games: int
    budget: int

    @property
    def weights(self) -> dict[str, float]:
        return self.spec.weights()

    @property
    def changed(self) -> dict[str, float]:
        """The winner's weights that differ from the base's."""
        base = self.base.weights()  # a later weight at its off value is left out of it
        return {k: v for k, v in self.weights.items() if v != base.get(k, LATER_WEIGHTS.get(k))}

    @property
    def held_out_share(self) -> tuple[float, float, float]:
        """The winner's win share against the base on held-out dice, with its 95% interval."""
        row = self.held_out.table.loc[self.spec.name]
        return float(row["win_share"]), float(row["win_lo"]), float(row["win_hi"])

    def description(self, command: str) -> str:
        share, lo, hi = self.held_out_share
        pct = {"scale": 100, "unit": "%"}
        return (
            f"found by `{command}`: CMA-ES over {len(self.searched)} weight(s), {len(self.history)} candidates "
            f"of {self.games:,} games on seed {self.seed} (tuning win share "
            f"{interval_text(self.score, self.score_lo, self.score_hi, **pct)}, base "
            f"{interval_text(self.base_score, **pct)}, parity {interval_text(self.parity, **pct)}); held out "
            f"against {self.base.name}: {interval_text(share, lo, hi, **pct)} (parity "
            f"{interval_text(self.held_out_parity, **pct)}) in "
            f"{self.held_out.blocks * self.held_out.games_per_block:,} "
            f"games on seed {self.held_out_seed}"
        )

    def toml(self, command: str) -> str:
        """The winner as a weights file: ``base`` (a preset) plus only the weights that differ
        from it, and a description of how it was found."""
        preset = _reference_preset(self.base, self.spec)
        ref = POLICIES[preset].weights()
        lines = [
            "# a weights file written by smsim tune: use it as --policy FILE",
            f"base = {_toml_str(preset)}",
            f"description = {_toml_str(self.description(command))}",
        ]
        lines += [f"{k} = {v!r}" for k, v in self.weights.items() if v != ref.get(k, LATER_WEIGHTS.get(k))]
        return "\n".join(lines) + "\n"


def _toml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _reference_preset(base: PolicySpec, winner: PolicySpec) -> str:
    """The preset the file is written over: the base when it is a preset, otherwise the preset
    from which the winner differs in the fewest weights."""
    if base.source == "built-in" and base.name in PRESETS:
        return base.name
    return min(PRESETS, key=lambda p: int(np.count_nonzero(POLICIES[p].params != winner.params)))


def _parity(n_policies: int, players: int) -> float:
    """The win share of the first of ``n_policies`` policies when all are equally strong: its
    seats' share of the table, over the games it plays (``compare`` credits it per game)."""
    arrs = [a for a in arrangements([str(i) for i in range(n_policies)], players) if 0 in a]
    return float(np.mean([a.count(0) / players for a in arrs]))


class _PrivateRandom:
    """cma draws from numpy's global generator; this keeps its draws apart from everyone else's
    (and everyone else's from it), so a run is determined by its seed alone."""

    def __init__(self, seed: int) -> None:
        outer = np.random.get_state()
        np.random.seed(seed)
        self.state = np.random.get_state()
        np.random.set_state(outer)

    def __enter__(self):
        self.outer = np.random.get_state()
        np.random.set_state(self.state)

    def __exit__(self, *exc):
        self.state = np.random.get_state()
        np.random.set_state(self.outer)
        return False


def verify_tune_input(
    base, against, players: int, games: int, budget: int, only
) -> tuple[PolicySpec, list[PolicySpec], list[str]]:
    """Check ``tune``'s input before any game: the base (a heuristic), the field, the counts
    and the weights to search. Raises ``TuneError`` (or ``PolicyError``) in one line."""
    verify_players(players)
    whole(games, "games", low=1, high=MAX_GAMES, error=TuneError)
    whole(budget, "budget", low=1, high=MAX_GAMES, error=TuneError)
    base_spec = resolve_policy(base)
    if base_spec.kind != PolicyKind.HEURISTIC:
        raise TuneError(
            f"base {base_spec.name!r} is not the heuristic (a preset or a .toml weights file); "
            f"only its weights can be tuned"
        )
    field_specs = [resolve_policy(p) for p in (against or [base_spec])]
    names = [s.name for s in field_specs]
    if len(set(names)) != len(names):
        raise TuneError(f"the field must be distinct policies, got {', '.join(names)}")
    searched = [n for n in PARAM_NAMES if n not in NOT_SEARCHED] if not only else list(only)
    unknown = [n for n in searched if n not in PARAM_NAMES]
    if unknown:
        raise TuneError(f"unknown weight(s) {', '.join(map(repr, unknown))}; known: {', '.join(PARAM_NAMES)}")
    if len(set(searched)) != len(searched):
        raise TuneError(f"weights to search given twice: {', '.join(searched)}")
    return base_spec, field_specs, searched


def _free_name(wanted: str, taken: set[str]) -> str:
    name = wanted
    while name in taken:
        name += "'"
    return name


def tune(
    base: str | PolicySpec = "balanced",
    against: list | None = None,
    players: int = 4,
    games: int = 2000,
    budget: int = 60,
    seed: int = 0,
    only: list[str] | None = None,
    held_out_games: int | None = None,
    sigma: float = 0.3,
    popsize: int | None = None,
    rules: Rules | None = None,
    threads: int | None = None,
    on_progress: Callable[[TuneProgress], None] | None = None,
) -> TuneResult:
    """Search the heuristic's weights with CMA-ES (module docstring).

    ``budget`` candidates are scored, each in at most ``games`` games (whole ``compare`` blocks)
    against ``against`` (default: the base) on seed ``seed``; ``only`` restricts the weights
    searched (default all of ``PARAM_NAMES``). The winner then plays the base in
    ``held_out_games`` games (default ``4 * games``) on ``held_out_seed(seed)``.
    """
    import cma  # the CMA-ES library loads only when a tuning runs

    base_spec, field_specs, searched = verify_tune_input(base, against, players, games, budget, only)
    games, budget, seed = int(games), int(budget), whole(seed, "seed", error=TuneError)
    held_out_games = whole(
        4 * games if held_out_games is None else held_out_games,
        "held_out_games",
        low=1,
        high=MAX_GAMES,
        error=TuneError,
    )
    popsize = None if popsize is None else whole(popsize, "popsize", low=2, error=TuneError)
    threads = checks_threads(threads, error=TuneError)
    sigma = positive(sigma, "sigma", error=TuneError)
    rules = rules or Rules()
    idx = np.array([PARAM_NAMES.index(n) for n in searched])
    origin = base_spec.params.astype(np.float64).copy()
    start = np.array([ZERO_MEANS.get(n, 0.0) if origin[i] == 0.0 else origin[i] for n, i in zip(searched, idx)])
    scale = np.maximum(np.abs(start), FLOOR_SCALE)
    cand_name = _free_name("candidate", {s.name for s in field_specs})
    parity = _parity(1 + len(field_specs), players)

    def decode(x: np.ndarray) -> np.ndarray:
        params = origin.copy()
        params[idx] = np.round(start + scale * np.asarray(x, dtype=np.float64), DECIMALS)
        params[idx] = np.where(params[idx] == start, origin[idx], params[idx])  # unmoved: the base's own
        return params

    rows: list[dict] = []
    best: dict | None = None

    def score(params: np.ndarray, generation: int) -> float:
        nonlocal best
        spec = PolicySpec(cand_name, PolicyKind.HEURISTIC, params)
        row = compare([spec, *field_specs], players, games, seed, rules, threads=threads, keep_games=False).table.loc[
            cand_name
        ]
        entry = {
            "candidate": len(rows),
            "generation": generation,
            "win_share": float(row["win_share"]),
            "win_lo": float(row["win_lo"]),
            "win_hi": float(row["win_hi"]),
            "vp_mean": float(row["vp_mean"]),
            **{n: float(params[i]) for n, i in zip(searched, idx)},
            "params": params,
        }
        rows.append(entry)
        if best is None or entry["win_share"] > best["win_share"]:  # ties keep the earlier one
            best = entry
        if on_progress is not None:
            on_progress(
                TuneProgress(
                    "tuning",
                    len(rows),
                    budget,
                    generation,
                    entry["win_share"],
                    best["win_share"],
                    best["win_lo"],
                    best["win_hi"],
                    parity,
                )
            )
        return entry["win_share"]

    score(origin.copy(), 0)  # the base itself: the reference, and the winner if nothing beats it
    opts = {"seed": _optimizer_seed(seed), "verbose": -9}
    if popsize is not None:
        opts["popsize"] = popsize
    rng = _PrivateRandom(opts["seed"])
    with rng:
        es = cma.CMAEvolutionStrategy(np.zeros(len(idx)), sigma, opts)
    # the last candidate is CMA-ES's mean, once a whole generation can be told (before that its
    # mean is the base, already scored)
    with_mean = budget - 2 >= es.popsize
    for_cma = budget - 1 - int(with_mean)
    generation = 0
    while for_cma > 0:
        generation += 1
        with rng:
            xs = es.ask()
        xs = xs[:for_cma]
        values = [-score(decode(x), generation) for x in xs]  # CMA-ES minimises
        for_cma -= len(xs)
        if len(xs) == es.popsize:  # a generation cut short by the budget is scored, not told
            with rng:
                es.tell(xs, values)
    if with_mean:
        score(decode(es.result.xfavorite), generation + 1)

    assert best is not None
    taken = {base_spec.name}
    tuned = PolicySpec(
        _free_name("tuned", taken), PolicyKind.HEURISTIC, best["params"].copy(), f"smsim tune of {base_spec.name}"
    )
    if on_progress is not None:
        on_progress(
            TuneProgress(
                "held-out",
                len(rows),
                budget,
                generation,
                best["win_share"],
                best["win_share"],
                best["win_lo"],
                best["win_hi"],
                parity,
            )
        )
    h_seed = held_out_seed(seed)
    held = compare([tuned, base_spec], players, held_out_games, h_seed, rules, threads=threads, keep_games=False)
    history = pd.DataFrame([{k: v for k, v in r.items() if k != "params"} for r in rows]).set_index("candidate")
    return TuneResult(
        spec=tuned,
        base=base_spec,
        field=[s.name for s in field_specs],
        searched=searched,
        score=best["win_share"],
        score_lo=best["win_lo"],
        score_hi=best["win_hi"],
        base_score=rows[0]["win_share"],
        parity=parity,
        history=history,
        held_out=held,
        held_out_parity=_parity(2, players),
        seed=seed,
        held_out_seed=h_seed,
        players=players,
        games=games,
        held_out_games=held_out_games,
        budget=budget,
    )


# -- the weights file ----------------------------------------------------------------------------
def check_out(path: str | Path, force: bool) -> Path:
    """Refuse an output that exists (without ``force``) or cannot be written, before any game."""
    p = Path(path)
    if p.suffix != ".toml":
        raise TuneError(f"--out must be a .toml file (a policy is read by its extension), got {str(p)!r}")
    if p.is_dir():
        raise TuneError(f"--out {str(p)!r} is a directory")
    if p.exists() and not force:
        raise TuneError(f"--out {str(p)!r} exists; pass --force to replace it")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise TuneError(f"cannot write {str(p)!r}: no directory {str(folder)!r}")
    try:  # the one sure test of writability: make (and drop) a file beside it
        fd, probe = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".probe", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise TuneError(f"cannot write {str(p)!r}: {exc.strerror}") from None
    return p


def write_weights(result: TuneResult, path: str | Path, command: str) -> None:
    """Write the winner's weights file whole: a reader sees the old file or the new one, never a
    part (``files.write_file``)."""
    write_file(path, result.toml(command))


__all__ = [
    "DECIMALS",
    "FLOOR_SCALE",
    "TuneError",
    "TuneProgress",
    "TuneResult",
    "check_out",
    "held_out_seed",
    "tune",
    "write_weights",
]
