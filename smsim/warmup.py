"""Compile the engine ahead of a run: ``smsim warmup``, for a fresh install, cluster workers and CI images.

numba compiles the engine the first time a process plays a game and keeps the machine code in
its on-disk cache (``smsim/_cache.py``); later processes load it in about a second. ``warmup``
plays one small game on each path that commands take, so the compile happens now, not inside
the first timed run. The parts:

- ``play``: the play loop of ``simulate``, ``compare``, ``sweep``, ``tune`` and ``fairness``.
  One compiled loop serves every heuristic, weights-file and user policy, at any number of
  players and under any rules: a policy is data or a function of a fixed signature, and the
  rules are an array;
- ``learned``: the loop of line-ups with a learned seat (``learned``, a model file): the same
  loop with the learned policy's features and model compiled in, which a heuristic line-up never
  waits for;
- ``search``: the loop of line-ups with a searching seat (``rollout``);
- ``trace``: one game with its trace (``smsim play``, ``smsim.play_game``);
- ``advise``: the continuations of ``smsim advise`` and ``smsim play --advise``.

``warmup()`` compiles ``play`` by default; pass the parts wanted, or ``ALL``. Each part is cached
on its own (``smsim/_cache.py``): an edit of the learned policy leaves ``play`` compiled.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from smsim.play.api import play_game
from smsim.policies.registry import POLICIES, rollout_spec
from smsim.rules import Rules
from smsim.runs.ahead import compiling
from smsim.runs.batch import run_games, simulate_summary
from smsim.studies.advise import advise

PARTS = {
    "play": "the play loop (simulate, compare, sweep, tune, fairness; heuristic and user policies)",
    "learned": "the play loop of line-ups with a learned seat",
    "search": "the play loop of line-ups with a searching seat (rollout)",
    "trace": "one game with its trace (smsim play)",
    "advise": "continuations from a decision (smsim advise)",
}
ALL = tuple(PARTS)


@dataclass(frozen=True)
class Part:
    name: str
    description: str
    seconds: float  # wall clock, compile or load
    compiled: bool  # False: every function it needs was already in the cache


def _play() -> None:

    simulate_summary(1, 2, ["balanced"], 0, Rules(), threads=1)  # the play loop and the headline sums


def _learned() -> None:

    simulate_summary(1, 2, ["learned"], 0, Rules(), threads=1)


def _search() -> None:

    # the fewest playouts: the search's code is the same, its games much shorter
    quick = rollout_spec(
        {"budget": 2, "min_playouts": 1, "candidates": 2, "search_place": 1, "place_budget": 2}, POLICIES["random"]
    )
    run_games(1, 2, [quick, "random"], 0, Rules(), threads=1)


def _trace() -> None:

    play_game(2, 0, 0, ["random"])


def _advise() -> None:

    advise(players=2, seed=0, game=0, decision=0, policies=["random"], playouts=1)


_RUN = {"play": _play, "learned": _learned, "search": _search, "trace": _trace, "advise": _advise}


def warmup(parts: tuple[str, ...] | list[str] = ("play",)) -> list[Part]:
    """Compile (or load from the cache) the code of each part named (``PARTS``; ``ALL`` for
    every one). Returns, per part, the seconds it took and whether anything was compiled."""
    # numba's event recorder, imported here: numba at this module's top would make it, and all it
    # imports, part of the compiled-code cache key (_cache.py), which an edit here must not reset
    from numba.core.event import install_recorder

    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise ValueError(f"unknown part {unknown[0]!r}; parts: {', '.join(PARTS)}")
    done = []
    with compiling():
        for name in dict.fromkeys(parts):
            start = time.perf_counter()
            with install_recorder("numba:compile") as compiles:
                _RUN[name]()
            done.append(Part(name, PARTS[name], time.perf_counter() - start, bool(compiles.buffer)))
    return done
