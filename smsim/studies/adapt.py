"""Bots adapted to a rule variant: the heuristic's weights tuned on the variant's own rules.

A variant's effect measured with one bot is an effect on *that bot*: ``balanced``'s weights were
tuned for the printed rules, so under free rotation it still spends as if a rotation cost two
coins. A designer asks what the rule does to players who know it. The adapted bot is the nearest
answer smsim can give cheaply: ``balanced``'s weights searched again by the CMA-ES tuner
(``studies.tune``) on the variant's rules, starting from the printed-rules weights, against
``balanced`` itself, at a stated budget; then checked against ``balanced`` on held-out dice under
the same rules. It is not a strong player of the variant (the same heuristic's weights, a few
dozen candidates), and where its held-out share does not beat parity the tuner found nothing
(``Adapted.found_nothing``): the variant is then played by ``balanced`` itself, the best bot known
for it (weights that tuned well but lose to the base on dice they never saw are overfitted to the
tuning games; they stay in their file, unplayed).

Each adapted bot is stored in its sweep's folder (``adapted-bots/``): its weights file (a policy like
any other, ``--policy FILE``) and a JSON note of how it was found (the plan, the rules, the
seconds the tuning took, its held-out share against the base). A second run finds them and
tunes nothing again (``adapt``: the note must hold the same plan and rules, else it is refused
in one line rather than silently replaced).

>>> AdaptPlan().describe()["budget"]
24
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from smsim.errors import SweepError
from smsim.files import write_file
from smsim.layout import PolicyKind
from smsim.policies.registry import POLICIES, PolicySpec, resolve_policy
from smsim.rules import Rules
from smsim.studies.tune import TuneProgress, tune, write_weights

ADAPTED_DIR = "adapted"  # in a sweep folder: the sweep the adapted bots played
BOTS_DIR = "adapted-bots"  # in a sweep folder: their weights files and notes


@dataclass(frozen=True)
class AdaptPlan:
    """How a variant's bot is tuned: the base policy's weights searched by CMA-ES over ``budget``
    candidates of ``games`` games each against the base, at ``players`` players, on ``seed``; the
    winner then plays the base in ``held_out_games`` games on held-out dice."""

    base: str = "balanced"
    players: int = 4
    games: int = 400
    budget: int = 24
    seed: int = 0
    held_out_games: int = 2000

    def describe(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Adapted:
    """A variant's adapted bot: its policy, the file it is stored in, what tuning it cost and what
    it gained over the base on held-out dice under the variant's rules (win share of the adapted
    bot in games against the base, with its 95% interval, and the share a bot no better than the
    base would have)."""

    variant: str
    spec: PolicySpec
    path: str
    seconds: float
    share: float
    share_lo: float
    share_hi: float
    parity: float
    changed: dict[str, float]
    tuned: bool  # False: the base itself (the variant is the printed rules it was made for)

    @property
    def found_nothing(self) -> bool:
        """The held-out interval does not lie above parity: no better than the base here."""
        return self.tuned and not self.share_lo > self.parity

    def sentence(self) -> str:
        if not self.tuned:
            return f"{self.variant}: {self.spec.name} itself (these are the rules it was tuned for)"
        gain = (
            f"{100 * (self.share - self.parity):+.1f} points [{100 * (self.share_lo - self.parity):+.1f}, "
            f"{100 * (self.share_hi - self.parity):+.1f}] over parity against the base on held-out games"
        )
        found = (
            f"the tuner found nothing better than the base, so {self.spec.name} plays it"
            if self.found_nothing
            else "better than the base"
        )
        return f"{self.variant}: {found} ({gain}; tuned in {self.seconds:.0f} s)"


def check_base(base: str) -> None:
    """Only a built-in heuristic's weights can be tuned again."""
    if base not in POLICIES or POLICIES[base].kind != PolicyKind.HEURISTIC:
        heuristics = ", ".join(n for n, p in POLICIES.items() if p.kind == PolicyKind.HEURISTIC and "-" not in n)
        raise SweepError(f"--adapt tunes a built-in heuristic's weights; {base!r} is not one ({heuristics})")


def _note_path(folder: Path, stem: str) -> Path:
    return folder / f"{stem}.json"


def adapt(
    folder: str | Path,
    stem: str,
    variant: str,
    rules: Rules,
    plan: AdaptPlan = AdaptPlan(),
    threads: int | None = None,
    on_progress: Callable[[TuneProgress], None] | None = None,
) -> Adapted:
    """The bot adapted to ``rules`` (the variant ``variant``): read from ``folder`` (``STEM.toml``
    and ``STEM.json``) where an earlier run stored it under the same plan and rules, else tuned
    now and stored there. Rules equal to the printed ones get the base itself, untuned."""
    folder = Path(folder)
    check_base(plan.base)
    if rules == Rules():
        nan = float("nan")
        return Adapted(variant, POLICIES[plan.base], plan.base, 0.0, nan, nan, nan, nan, {}, False)
    weights, note = folder / f"{stem}.toml", _note_path(folder, stem)
    wanted = {"plan": plan.describe(), "rules": rules.to_dict()}
    if note.is_file() and weights.is_file():
        try:
            told = json.loads(note.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SweepError(f"cannot read the adapted bot's note {str(note)!r}: {exc}") from None
        if {k: told.get(k) for k in wanted} != wanted:
            raise SweepError(
                f"{str(note)!r} holds a bot adapted under another plan or other rules; "
                "remove it, or run the sweep as it was first run"
            )
        return _adapted(variant, told, resolve_policy(str(weights)), str(weights), POLICIES[plan.base])
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    result = tune(
        base=plan.base,
        players=plan.players,
        games=plan.games,
        budget=plan.budget,
        seed=plan.seed,
        held_out_games=plan.held_out_games,
        rules=rules,
        threads=threads,
        on_progress=on_progress,
    )
    seconds = time.perf_counter() - start
    write_weights(result, weights, f"smsim sweep --adapt (variant {variant})")
    share, lo, hi = result.held_out_share
    told = {
        **wanted,
        "variant": variant,
        "seconds": seconds,
        "share": share,
        "share_lo": lo,
        "share_hi": hi,
        "parity": result.held_out_parity,
        "changed": result.changed,
    }
    write_file(note, json.dumps(told, indent=1) + "\n")  # after the weights: a note means both are whole
    return _adapted(variant, told, resolve_policy(str(weights)), str(weights), POLICIES[plan.base])


def read_adapted(folder: str | Path, stem: str, variant: str, base: str) -> Adapted | None:
    """The bot ``adapt`` stored in ``folder`` as ``stem``, read without tuning anything; None where
    there is none (or its note is damaged)."""
    weights, note = Path(folder) / f"{stem}.toml", _note_path(Path(folder), stem)
    if not (weights.is_file() and note.is_file()):
        return None
    try:
        told = json.loads(note.read_text(encoding="utf-8"))
        return _adapted(variant, told, resolve_policy(str(weights)), str(weights), POLICIES[base])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _adapted(variant: str, told: dict, tuned: PolicySpec, path: str, base: PolicySpec) -> Adapted:
    """The bot that plays the variant: the tuned weights where they beat the base on held-out dice,
    else the base itself (the tuner found nothing; weights that lose to the base on dice they were
    not tuned on are no player of the variant: they stay in their file, unplayed)."""
    beats = float(told["share_lo"]) > float(told["parity"])
    return Adapted(
        variant,
        tuned if beats else base,
        path,
        float(told["seconds"]),
        float(told["share"]),
        float(told["share_lo"]),
        float(told["share_hi"]),
        float(told["parity"]),
        dict(told["changed"]),
        True,
    )


__all__ = ["ADAPTED_DIR", "BOTS_DIR", "AdaptPlan", "Adapted", "adapt", "check_base", "read_adapted"]
