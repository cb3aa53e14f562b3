"""The built-in bots by name: code, parameters and a one-line description (STYLE §4)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smsim.policies.dispatch import PolicyKind
from smsim.policies.heuristics import GREEDY_DEFAULTS, N_PARAMS


class PolicyError(ValueError):
    """An unknown or malformed policy; the message names it."""


@dataclass(frozen=True)
class PolicySpec:
    name: str
    kind: PolicyKind
    params: np.ndarray  # float64[N_PARAMS]
    description: str


POLICIES: dict[str, PolicySpec] = {
    "random": PolicySpec(
        "random", PolicyKind.RANDOM, np.zeros(N_PARAMS), "uniform among the legal choices at every decision"
    ),
    "greedy": PolicySpec(
        "greedy", PolicyKind.GREEDY, GREEDY_DEFAULTS.copy(),
        "the most immediate VP this turn, with small values on coins, logs, crates and walls",
    ),
}  # fmt: skip


def resolve_policies(names: list[str] | tuple[str, ...] | None, n_players: int) -> list[PolicySpec]:
    """One policy per seat from one name (for every seat) or exactly one per seat."""
    names = list(names or ["greedy"])
    if len(names) == 1:
        names = names * n_players
    if len(names) != n_players:
        raise PolicyError(f"got {len(names)} policies for {n_players} players; give 1 or {n_players}")
    specs = []
    for name in names:
        if name not in POLICIES:
            raise PolicyError(f"unknown policy {name!r}; known: {', '.join(POLICIES)}")
        specs.append(POLICIES[name])
    return specs


def policy_arrays(specs: list[PolicySpec]) -> tuple[np.ndarray, np.ndarray]:
    """``policy_kind`` int64[P] and ``policy_params`` float64[P, N_PARAMS] for the engine."""
    kind = np.array([int(s.kind) for s in specs], dtype=np.int64)
    params = np.stack([s.params.astype(np.float64) for s in specs])
    return kind, params
