"""Policies by name: the built-in bots, weights files, and users' jitted functions (STYLE §4).

A policy given on the command line or to the API is one of:

- a built-in name: ``random`` or a preset of the heuristic (``greedy``, ``balanced``, ...);
- a weights file ``path.toml``: ``base = "balanced"`` (optional) and weights by name, e.g.
  ``pirate_next = 1.2``; any weight vector is a policy;
- a user's function ``path.py:name``, jitted with ``smsim.policies.interface.POLICY_SIG``;
- the search policies (``rollout``, ``rollout-deep``, ``rollout-learned``), or a TOML file
  ``base = "rollout"`` with its knobs (``policies/rollout.py``), ``playout_policy`` (the
  policy its continuations play) and ``candidate_policy`` (the policy that orders its
  candidates and decides where it does not search; default the playout policy);
- a learned model ``path.json`` written by ``smsim learn`` (``policies/model.py``), or the
  built-in ``learned``, shipped as package data (``policies/data/learned.json``);
- a preset played with noise, ``PRESET-noise-PERCENT`` (``greedy-noise-60``): that share of its
  decisions, in percent, picked uniformly at random (the weight ``noise``), the rungs of the
  ladder between ``random`` and ``greedy`` (docs/ladder.md, Depth).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import tomllib
import warnings
from collections import namedtuple
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from smsim.errors import PolicyError
from smsim.layout import FORGO_ALL, FORGO_PARTS, PolicyKind
from smsim.policies import heuristic_layout as HL
from smsim.policies.exact_keep import EXACT
from smsim.policies.heuristics import N_PARAMS, PARAM_NAMES, PARAMS
from smsim.policies.interface import MAX_SEATS, POLICY_SIG, placeholder_policy
from smsim.policies.learned_layout import LEARNED
from smsim.policies.model import Model, model_digest  # loads policies/learned.py, whose code the mark stands for
from smsim.policies.rollout import (
    ROLLOUT_BASE,
    ROLLOUT_DEFAULTS,
    ROLLOUT_LIMITS,
    ROLLOUT_PARAMS,
    ROLLOUT_PRESETS,
    SWITCHES,
    TOP_LEVEL,
    UNGATED,
    WHOLE_KNOBS,
)

# heuristic weights added after the first datasets, at the value that plays as they did
LATER_WEIGHTS: dict[str, float] = {"exact_keep": 0.0, "noise": 0.0, "forgo": 0.0}
# weights that are not a value in VP: a share, a mask of parts (lowest, highest)
WEIGHT_RANGES: dict[str, tuple[float, float]] = {"noise": (0.0, 1.0), "forgo": (0.0, float(FORGO_ALL))}
WHOLE_WEIGHTS = ("forgo",)  # a mask: a whole number


@dataclass(frozen=True)
class PolicySpec:
    name: str
    kind: PolicyKind
    params: np.ndarray = field(repr=False)  # float64[N_PARAMS]
    description: str = ""
    fn: Any = None  # a POLICY_SIG function for PolicyKind.USER
    source: str = "built-in"
    base: PolicySpec | None = None  # ROLLOUT: the policy its continuations are played with
    # ROLLOUT: the policy that orders its candidates and decides where it does not search (None: ``base``)
    chooser: PolicySpec | None = None

    def weights(self) -> dict[str, float]:
        """The named weights (a rollout's knobs, a learned model's base heuristic; empty for
        random and user policies)."""
        if self.kind == PolicyKind.ROLLOUT:
            return {name: float(self.params[ROLLOUT_PARAMS.offset(name)]) for name in ROLLOUT_DEFAULTS}
        if self.kind not in (PolicyKind.HEURISTIC, PolicyKind.LEARNED):
            return {}
        # LEARNED: its base first; a weight added since runs were first written is left out at
        # the value that plays as before it existed, so that those runs resume (LATER_WEIGHTS)
        return {
            name: float(self.params[i])
            for i, name in enumerate(PARAM_NAMES)
            if LATER_WEIGHTS.get(name) != float(self.params[i])
        }

    def describe(self) -> dict[str, Any]:
        """What a manifest records of the policy."""
        out = {"name": self.name, "kind": self.kind.name.lower(), "source": self.source, "weights": self.weights()}
        if self.kind == PolicyKind.LEARNED:  # the whole model, by its vector's digest
            out["model_sha256"] = model_digest(self.params)
        if self.base is not None:
            out["playout_policy"] = self.base.describe()
        if self.chooser is not None:
            out["candidate_policy"] = self.chooser.describe()
        return out

    @property
    def decider(self) -> PolicySpec:
        """The policy that decides where this one does not search: itself, or a rollout's
        candidate policy."""
        return self.chooser or self.base or self

    @property
    def player(self) -> PolicySpec:
        """The policy that plays this seat in continuations: itself, or a rollout's playout policy."""
        return self.base or self


def described_now(info: Any) -> Any:
    """A policy as ``PolicySpec.describe`` recorded it (a manifest's), with every rollout knob
    added since it was written at the value that plays as before the knob existed (``UNGATED``):
    the same policy, so its run resumes."""
    if not isinstance(info, dict):
        return info
    info = dict(info)
    if info.get("kind") == "rollout" and isinstance(info.get("weights"), dict):
        info["weights"] = {**UNGATED, **info["weights"]}
    for role in ("playout_policy", "candidate_policy"):
        if role in info:
            info[role] = described_now(info[role])
    return info


def weight_vector(weights: dict[str, float], base: np.ndarray | None = None, where: str = "weights") -> np.ndarray:
    """A params vector from named weights over ``base`` (default all zero)."""
    params = np.zeros(N_PARAMS) if base is None else base.astype(np.float64).copy()
    for name, value in weights.items():
        if name not in PARAM_NAMES:
            raise PolicyError(f"{where}: unknown weight {name!r}; known: {', '.join(PARAM_NAMES)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise PolicyError(f"{where}: weight {name!r} must be a number, got {value!r}")
        lo, hi = WEIGHT_RANGES.get(name, (None, None))
        if lo is not None and not lo <= value <= hi:
            raise PolicyError(f"{where}: weight {name!r} must be from {lo:g} to {hi:g}, got {value!r}")
        if name in WHOLE_WEIGHTS and value != int(value):
            raise PolicyError(f"{where}: weight {name!r} must be a whole number, got {value!r}")
        params[PARAM_NAMES.index(name)] = float(value)
    return params


_GREEDY = dict(coin=0.4, log=0.8, crate=0.2, wall=0.3, defence=0.5, outer_break=1.5, bonus_person=2.0)
# the archetypes: a hand-tuned all-rounder (coordinate search against greedy, then its log weight
# against a field of builder, walls, churches and greedy) with their theme emphasised
_HAND_TUNED = dict(
    coin=1.0,
    log=1.5,
    wall=0.8,
    wall_progress=1.0,
    pirate_next=0.9,
    pirate_later=0.5,
    church_potential=0.9,
    merchant_spot=1.0,
    outer_break=1.0,
    fill=0.05,
    finish=0.7,
    keep_margin=0.1,
    lookahead=1.0,
    bonus_person=3.0,
)
# balanced: found by `smsim tune --base balanced --against balanced --players 4 --games 16000
# --budget 240 --seed 2027 --held-out-games 200000` (CMA-ES over all 20 weights, from the
# hand-tuned all-rounder above); on held-out dice it won 55.9% [55.7, 56.2] of 200,000 games
# against it (two seats each, parity 50%) and 30.2% [29.2, 31.1] of 48,000 as one seat against
# three (parity 25%). lookahead only switches on (> 0), so its 1.83 is written as 1.
_BALANCED = dict(
    coin=1.443,
    log=2.557,
    crate=-0.901,
    crate_cluster=0.015,
    wall=1.054,
    wall_progress=1.727,
    defence=-0.025,
    pirate_next=1.701,
    pirate_later=0.359,
    church_potential=0.969,
    church_cluster=-0.105,
    person_cluster=0.015,
    merchant_spot=0.489,
    outer_break=1.532,
    fill=0.031,
    finish=0.397,
    keep_margin=-0.024,
    lookahead=1.0,
    bonus_person=3.188,
    church=1.509,
)
PRESETS: dict[str, tuple[dict[str, float], str]] = {
    "greedy": (_GREEDY, "the most immediate VP this turn, with small values on coins, logs, crates and walls"),
    "churches": (
        {**_HAND_TUNED, "church": 1.6, "church_cluster": 0.8, "wall": 0.3, "wall_progress": 0.3},
        "ascending church series, churches clustered so priests bless several",
    ),
    "walls": (
        {
            **_HAND_TUNED,
            "wall": 1.5,
            "wall_progress": 2.0,
            "defence": 0.5,
            "pirate_next": 1.2,
            "pirate_later": 1.0,
            "church_potential": 0.3,
        },
        "complete sides early for bonuses and defence, soldiers as attacks near",
    ),
    "merchant": (
        {**_HAND_TUNED, "crate": 0.2, "crate_cluster": 0.4, "coin": 1.4, "merchant_spot": 1.5},
        "crate clusters and merchants beside them; coins spent on rotations",
    ),
    "builder": (
        {**_HAND_TUNED, "log": 2.5},
        "logs delivered early, then architects with houses",
    ),
    "jugglers": (
        {**_HAND_TUNED, "person_cluster": 2.0, "merchant_spot": 0.2},
        "varied persons clustered together, then jugglers among them",
    ),
    "balanced": (
        _BALANCED,
        "weighs everything: pirate timing against defence, series gaps, intact sides, space and the end, the dice odds",
    ),
}

POLICIES: dict[str, PolicySpec] = {
    "random": PolicySpec(
        "random", PolicyKind.RANDOM, np.zeros(N_PARAMS), "uniform among the legal choices at every decision"
    ),
}
for _name, (_weights, _text) in PRESETS.items():
    POLICIES[_name] = PolicySpec(_name, PolicyKind.HEURISTIC, weight_vector(_weights), _text)


def with_exact_keeps(spec: PolicySpec, name: str) -> PolicySpec:
    """``spec`` (a heuristic or learned policy) with its keep decisions solved exactly for the
    turn's values of the uses (``exact_keep``: ``policies/exact_keep.py``), under a new name."""
    params = spec.params.copy()
    params[PARAMS.offset("exact_keep")] = 1.0
    text = f"{spec.name} with exact keeps (dynamic programming over the turn's dice)"
    return replace(spec, name=name, params=params, description=text)


POLICIES["balanced-exact"] = with_exact_keeps(POLICIES["balanced"], "balanced-exact")

NOISE_NAME = "-noise-"
"""``PRESET-noise-PERCENT``: a preset with that share of its decisions played at random."""


def noisy_preset(ref: str) -> PolicySpec | None:
    """The policy ``PRESET-noise-PERCENT`` names (``greedy-noise-60``: ``greedy``, 60% of its
    decisions picked uniformly at random, the weight ``noise``), or None where ``ref`` is no such
    name. These are names, not entries of ``POLICIES``: the ladder's rungs between ``random`` and
    ``greedy`` are chosen by measurement (docs/ladder.md), and any level can be named.

    >>> noisy_preset("greedy-noise-60").weights()["noise"], noisy_preset("greedy")
    (0.6, None)
    """
    preset, sep, percent = ref.rpartition(NOISE_NAME)
    if not sep or preset not in PRESETS:
        return None
    if not percent.isdigit() or str(int(percent)) != percent or int(percent) > 100:
        raise PolicyError(f"policy {ref!r}: the noise must be a whole percent from 0 to 100, as in {preset}-noise-60")
    params = POLICIES[preset].params.copy()
    params[PARAMS.offset("noise")] = int(percent) / 100
    text = f"{preset} with {percent}% of its decisions picked uniformly at random"
    return replace(POLICIES[preset], name=ref, params=params, description=text)


WITHOUT_NAME = "-without-"
"""``POLICY-without-PART[+PART...]``: a built-in policy that never plays those parts of the game."""


def forgo_mask(parts: list[str] | str, where: str = "parts") -> int:
    """The forgo mask of ``parts`` (names of ``layout.FORGO_PARTS``, a list or joined by "+").

    >>> forgo_mask("churches+walls"), forgo_mask(["nobles"])
    (3, 2048)
    """
    names = parts.split("+") if isinstance(parts, str) else list(parts)
    mask = 0
    for part in names:
        if part not in FORGO_PARTS:
            raise PolicyError(f"{where}: unknown part {part!r}; the parts a player may forgo: {', '.join(FORGO_PARTS)}")
        mask |= 1 << FORGO_PARTS.index(part)
    if not names:
        raise PolicyError(f"{where}: name at least one part ({', '.join(FORGO_PARTS)})")
    return mask


def forgoing(spec: PolicySpec, parts: list[str] | str) -> PolicySpec:
    """``spec`` (a heuristic or learned policy) forbidden ``parts`` of the game, its moves masked
    in the loop and its keeps valuing those uses at nothing, named ``NAME-without-PART+PART``."""
    if spec.kind not in (PolicyKind.HEURISTIC, PolicyKind.LEARNED):
        raise PolicyError(f"policy {spec.name!r}: only a heuristic or learned policy can forgo parts of the game")
    names = parts.split("+") if isinstance(parts, str) else list(parts)
    mask = forgo_mask(names, f"policy {spec.name}{WITHOUT_NAME}{'+'.join(names)}")
    params = spec.params.copy()
    params[PARAMS.offset("forgo")] = float(int(params[PARAMS.offset("forgo")]) | mask)
    label = "+".join(p for p in FORGO_PARTS if mask >> FORGO_PARTS.index(p) & 1)
    return replace(
        spec,
        name=f"{spec.name}{WITHOUT_NAME}{label}",
        params=params,
        description=f"{spec.name}, never playing its {label.replace('+', ', ')}",
    )


def forgoing_preset(ref: str) -> PolicySpec | None:
    """The policy ``POLICY-without-PARTS`` names (``balanced-without-churches``,
    ``learned-without-walls+soldiers``), or None where ``ref`` is no such name.

    >>> forgoing_preset("balanced-without-churches").weights()["forgo"], forgoing_preset("balanced")
    (1.0, None)
    """
    base, sep, parts = ref.partition(WITHOUT_NAME)
    if not sep or base not in POLICIES:
        return None
    return forgoing(POLICIES[base], parts)


SEARCHABLE = (PolicyKind.HEURISTIC, PolicyKind.RANDOM, PolicyKind.USER, PolicyKind.LEARNED)


def rollout_spec(
    knobs: dict[str, Any],
    playout_policy: PolicySpec,
    name: str = "rollout",
    source: str = "built-in",
    where: str = "rollout",
    candidate_policy: PolicySpec | None = None,
) -> PolicySpec:
    """The search policy with ``knobs`` over its defaults, continuations played by
    ``playout_policy``, candidates ordered (and the decisions it does not search made) by
    ``candidate_policy`` (None: the playout policy)."""
    values = dict(ROLLOUT_DEFAULTS)
    for key, value in knobs.items():
        if key not in ROLLOUT_DEFAULTS:
            raise PolicyError(
                f"{where}: unknown rollout parameter {key!r}; known: {', '.join(ROLLOUT_DEFAULTS)}, "
                f"playout_policy, candidate_policy"
            )
        if isinstance(value, bool) and key in SWITCHES:
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise PolicyError(f"{where}: rollout parameter {key!r} must be a number, got {value!r}")
        lo, hi = ROLLOUT_LIMITS[key]
        whole = key in WHOLE_KNOBS or key in SWITCHES
        if not lo <= value <= hi or (whole and value != int(value)):
            kind = "a whole number" if whole else "a number"
            raise PolicyError(f"{where}: rollout parameter {key!r} must be {kind} from {lo:g} to {hi:g}, got {value!r}")
        values[key] = float(value)
    for role, policy in (("playout", playout_policy), ("candidate", candidate_policy)):
        if policy is not None and policy.kind not in SEARCHABLE:
            raise PolicyError(
                f"{where}: the {role} policy must be a heuristic, random, learned or a user policy, not {policy.name!r}"
            )
    if candidate_policy is not None and candidate_policy.describe() == playout_policy.describe():
        candidate_policy = None  # the same policy: the default
    if (
        candidate_policy is not None
        and candidate_policy.kind == PolicyKind.USER
        and playout_policy.kind == PolicyKind.USER
    ):  # a seat holds one user function
        raise PolicyError(f"{where}: the candidate and playout policies cannot be two different user functions")
    params = np.zeros(N_PARAMS)
    for key, value in values.items():
        params[ROLLOUT_PARAMS.offset(key)] = value
    searched = [k for k in ("KEEP", "USE", "PLACE") if values[f"search_{k.lower()}"]]
    spend = (
        f"{int(values['budget'])} continuations a decision"
        if values["halving"] or values["drop_se"]
        else f"{int(values['budget']) // int(values['candidates'])} continuations a candidate"
    )
    if values["search_place"]:
        spend += f" ({int(values['place_budget'])} a placement)"
    if values["halving"]:
        spend += " by sequential halving"
    if values["clear_gap"]:
        spend += f", where its base leads by less than {values['clear_gap']:g}"
    chooser = candidate_policy or playout_policy
    text = (
        f"search: the candidates of its {', '.join(searched) or 'no'} decisions valued by {spend}, played by "
        f"{playout_policy.name}; elsewhere plays as {chooser.name}"
    )
    if candidate_policy is not None:
        text += ", which orders the candidates"
    return PolicySpec(
        name, PolicyKind.ROLLOUT, params, text, source=source, base=playout_policy, chooser=candidate_policy
    )


LEARNED_FILE = Path(__file__).parent / "data" / "learned.json"


def load_model_file(path: str | Path, name: str | None = None, source: str | None = None) -> PolicySpec:
    """A learned policy from a model file (``policies/model.py``): data, checked field by field."""
    model = Model.load(path)
    return PolicySpec(
        name or Path(path).name.removesuffix(".json"),
        PolicyKind.LEARNED,
        model.vector(),
        model.description,
        source=source or str(path),
    )


POLICIES["learned"] = load_model_file(LEARNED_FILE, "learned", "built-in")
POLICIES["learned-exact"] = with_exact_keeps(POLICIES["learned"], "learned-exact")
POLICIES["rollout"] = rollout_spec({}, POLICIES[ROLLOUT_BASE])
for _name, _knobs in ROLLOUT_PRESETS.items():
    POLICIES[_name] = rollout_spec(_knobs, POLICIES[ROLLOUT_BASE], name=_name)
# the search over the learned policy, the strongest play shipped: the report's top level (TOP_LEVEL)
POLICIES["rollout-learned"] = rollout_spec(TOP_LEVEL, POLICIES["learned"], name="rollout-learned")


def load_weights_file(path: str) -> PolicySpec:
    """A heuristic policy from a TOML weights file (optional ``base`` preset, then weights)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PolicyError(f"policy {path!r}: cannot read weights file ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"policy {path!r}: not valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise PolicyError(f"policy {path!r}: not valid TOML (not UTF-8 text)") from None
    base_name = data.pop("base", None)
    description = data.pop("description", None)
    if base_name == "rollout":
        playout = data.pop("playout_policy", ROLLOUT_BASE)
        if not isinstance(playout, str):
            raise PolicyError(f"policy {path!r}: playout_policy must be a policy name or file, got {playout!r}")
        if playout.endswith(".toml") and not Path(playout).is_absolute():
            playout = str(p.parent / playout)
        chooser = data.pop("candidate_policy", None)
        if chooser is not None and not isinstance(chooser, str):
            raise PolicyError(f"policy {path!r}: candidate_policy must be a policy name or file, got {chooser!r}")
        if chooser is not None and chooser.endswith(".toml") and not Path(chooser).is_absolute():
            chooser = str(p.parent / chooser)
        spec = rollout_spec(
            data,
            resolve_policy(playout),
            name=p.stem,
            source=str(p),
            where=f"policy {path!r}",
            candidate_policy=None if chooser is None else resolve_policy(chooser),
        )
        return spec if description is None else replace(spec, description=str(description))
    description = str(description or f"weights from {p.name}")
    base = None
    if base_name is not None:
        if base_name not in PRESETS:
            raise PolicyError(f"policy {path!r}: unknown base {base_name!r}; presets: {', '.join(PRESETS)}, rollout")
        base = POLICIES[base_name].params
    params = weight_vector(data, base, where=f"policy {path!r}")
    return PolicySpec(p.stem, PolicyKind.HEURISTIC, params, description, source=str(p))


def _import_file(path: Path):
    """Import a policy file under its natural module name (its stem), as ``import stem`` would:
    numba's on-disk cache of its functions refers to that name, whoever compiled them first. A
    different file already imported under that name gets a name derived from its path."""
    resolved = path.resolve()
    name = path.stem
    existing = sys.modules.get(name)
    if existing is not None:
        if getattr(existing, "__file__", None) and Path(existing.__file__).resolve() == resolved:
            return existing
        name = "smsim_policy_" + hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    if not name.isidentifier():
        name = "smsim_policy_" + hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(name, resolved)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_user_policy(ref: str) -> PolicySpec:
    """``path.py:name``: a function of the file jitted with POLICY_SIG."""
    # numba here, not at the top: it would make the registry part of the compiled-code cache key
    from numba.core.registry import CPUDispatcher

    path, _, name = ref.rpartition(":")
    p = Path(path)
    if not p.is_file():
        raise PolicyError(f"policy {ref!r}: no file {path!r}")
    try:
        module = _import_file(p)
    except Exception as exc:  # the user's file failed to import: say so in one line
        raise PolicyError(f"policy {ref!r}: importing {path!r} failed: {type(exc).__name__}: {exc}") from None
    if not hasattr(module, name):
        raise PolicyError(f"policy {ref!r}: {path!r} has no {name!r}")
    fn = getattr(module, name)
    if not isinstance(fn, CPUDispatcher):
        raise PolicyError(f"policy {ref!r}: {name!r} is not jitted; decorate it with @njit(POLICY_SIG)")
    if list(fn.signatures) != [POLICY_SIG.args]:
        raise PolicyError(
            f"policy {ref!r}: {name!r} must be jitted with exactly smsim.policies.interface.POLICY_SIG "
            f"(found {len(fn.signatures)} signature(s)); see docs/policies.md"
        )
    params = getattr(module, f"{name}_params", None)
    params = np.zeros(N_PARAMS) if params is None else np.resize(np.asarray(params, dtype=np.float64), N_PARAMS)
    doc = (fn.__doc__ or "").strip().splitlines()
    return PolicySpec(name, PolicyKind.USER, params, doc[0] if doc else f"user policy {ref}", fn=fn, source=ref)


def resolve_policy(ref: str | PolicySpec) -> PolicySpec:
    if isinstance(ref, PolicySpec):
        return ref
    if not isinstance(ref, str) or not ref:
        raise PolicyError(f"a policy must be a name, a weights file or file.py:function, got {ref!r}")
    if ref in POLICIES:
        return POLICIES[ref]
    noisy = noisy_preset(ref)
    if noisy is not None:
        return noisy
    restricted = forgoing_preset(ref)
    if restricted is not None:
        return restricted
    if ref.endswith(".toml"):
        return load_weights_file(ref)
    if ref.endswith(".json"):
        return load_model_file(ref)
    if ".py:" in ref:
        return load_user_policy(ref)
    raise PolicyError(
        f"unknown policy {ref!r}; built-in: {', '.join(POLICIES)} (or PRESET-noise-PERCENT, "
        f"a .toml weights file, a .json model file, or file.py:function)"
    )


def resolve_policies(refs: list | tuple | None, n_players: int) -> list[PolicySpec]:
    """One policy per seat from one (for every seat) or exactly one per seat."""
    refs = list(refs or ["balanced"])
    if len(refs) == 1:
        refs = refs * n_players
    if len(refs) != n_players:
        raise PolicyError(f"got {len(refs)} policies for {n_players} players; give 1 or {n_players}")
    return [resolve_policy(r) for r in refs]


def policy_arrays(specs: list[PolicySpec]) -> tuple[np.ndarray, np.ndarray, tuple]:
    """``kind`` int64[P], ``params`` float64[P, N_PARAMS] and the 5-tuple of functions."""
    kind = np.array([int(s.kind) for s in specs], dtype=np.int64)
    params = np.ascontiguousarray(np.stack([s.params.astype(np.float64) for s in specs]))
    placeholder = placeholder_policy()
    fns = [next((p.fn for p in (s.decider, s.player) if p.kind == PolicyKind.USER), placeholder) for s in specs]
    fns += [placeholder] * (MAX_SEATS - len(fns))
    return kind, params, tuple(fns)


def base_arrays(specs: list[PolicySpec]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``base_kind`` int64[P] and ``base_params`` float64[P, N_PARAMS], who decides where a seat
    does not search; ``playout_kind`` and ``playout_params``, who plays every seat in continuations."""
    arrays = []
    for role in ("decider", "player"):
        chosen = [getattr(s, role) for s in specs]
        arrays.append(np.array([int(c.kind) for c in chosen], dtype=np.int64))
        arrays.append(np.ascontiguousarray(np.stack([c.params.astype(np.float64) for c in chosen])))
    return tuple(arrays)


# The compiled parts a line-up's play loop holds, by the types of its marks (``line_up_marks``).
Marks = namedtuple("Marks", ["learned", "exact", "forgo"])


def line_up_marks(specs: list[PolicySpec]) -> Marks:
    """What the play loop's ``Seats.marks`` and its entries take: ``learned`` is ``LEARNED`` where
    some seat's policy, the policy deciding for it where it does not search, or the one playing it
    in continuations is the learned policy, and ``exact`` is ``EXACT`` where one of those keeps
    exactly (the ``exact_keep`` weight of a heuristic or of a learned policy's base), and
    ``forgo`` is ``FORGO`` where one forgoes parts of the game (the ``forgo`` weight), each None
    otherwise, so that a line-up without them compiles (and waits for) none of their code
    (``learned_layout.learned_nb``, ``heuristics.heuristic_keep_nb``)."""
    deciders = [p for s in specs for p in (s, s.decider, s.player)]
    learned = any(p.kind == PolicyKind.LEARNED for p in deciders)
    exact = any(
        p.kind in (PolicyKind.HEURISTIC, PolicyKind.LEARNED) and p.params[HL.P_EXACT_KEEP] > 0.0 for p in deciders
    )
    forgo = any(p.kind in (PolicyKind.HEURISTIC, PolicyKind.LEARNED) and p.params[HL.P_FORGO] != 0.0 for p in deciders)
    return Marks(LEARNED if learned else None, EXACT if exact else None, HL.FORGO if forgo else None)


def any_search(specs: list[PolicySpec]) -> bool:
    return any(s.kind == PolicyKind.ROLLOUT for s in specs)


# numba marks first-class functions experimental; smsim pins numba and tests the contract
warnings.filterwarnings("ignore", message="First-class function type feature is experimental")


# -- policies shipped as plain data (to a cluster's workers, or between a run's tasks) ----------
@dataclass(frozen=True)
class UserPolicyRef:
    """A user's ``file.py:function`` policy as a worker rebuilds it: the file must be at the same
    absolute path on every worker (a shared filesystem) and hold the same bytes as here."""

    spec: Any  # the PolicySpec without its jitted function
    path: str
    name: str
    sha256: str


def ship_policy(spec):
    """What a worker needs to rebuild ``spec``: the spec itself (plain data: name, kind, weights),
    with a user's jitted function replaced by a reference to its file."""

    if spec.base is not None:
        spec = replace(spec, base=ship_policy(spec.base))
    if spec.chooser is not None:
        spec = replace(spec, chooser=ship_policy(spec.chooser))
    if spec.kind != PolicyKind.USER:
        return spec
    file, _, name = spec.source.rpartition(":")
    path = Path(file).resolve()
    return UserPolicyRef(replace(spec, fn=None), str(path), name, hashlib.sha256(path.read_bytes()).hexdigest())


def rebuild_policy(shipped):
    """The PolicySpec ``ship_policy`` shipped, on a worker."""

    if isinstance(shipped, UserPolicyRef):
        path = Path(shipped.path)
        if not path.is_file():
            raise PolicyError(
                f"policy {shipped.spec.source!r}: no file {shipped.path!r} on this worker "
                "(a user's policy file must be at the same path on every worker)"
            )
        if hashlib.sha256(path.read_bytes()).hexdigest() != shipped.sha256:
            raise PolicyError(
                f"policy {shipped.spec.source!r}: {shipped.path!r} differs on this worker from the client's copy"
            )
        fn = load_user_policy(f"{shipped.path}:{shipped.name}").fn
        return replace(shipped.spec, fn=fn)
    if shipped.base is not None:
        shipped = replace(shipped, base=rebuild_policy(shipped.base))
    if shipped.chooser is not None:
        shipped = replace(shipped, chooser=rebuild_policy(shipped.chooser))
    return shipped
