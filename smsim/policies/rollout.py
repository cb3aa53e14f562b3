"""The knobs of the search policy ``rollout`` (its decisions are ``smsim.play.search``'s).

``rollout`` values each candidate of a decision it searches by playing continuations of the game
to the end, every seat played by its base policy, and picks the candidate with the best mean
outcome: the seat's win share (a shared win split) plus ``margin`` times its final VP margin
over the best other seat. A decision gets ``budget`` continuations, spent by sequential halving
(every candidate ``min_playouts`` first, then equal rounds, the worse half dropped after each)
and stopped early once the leader's paired advantage over the runner-up exceeds ``stop_se``
standard errors. Its knobs sit in the seat's ``params`` vector by this record; its base policy
is a separate weight vector.

>>> ROLLOUT_DEFAULTS["search_use"], ROLLOUT_DEFAULTS["halving"]
(1.0, 1.0)
"""

from smsim import layout as L
from smsim.policies.heuristic_layout import N_PARAMS

ROLLOUT_PARAMS = L.Record(
    "rollout knobs",
    "RO_",
    "N_ROLLOUT_PARAMS",
    (
        ("budget", 1, "continuations per searched KEEP or USE decision (in all; flat: budget / candidates each)"),
        ("place_budget", 1, "continuations per searched PLACE decision"),
        ("candidates", 1, "USE: most candidates searched, the base policy's best by its own values"),
        ("place_candidates", 1, "PLACE: most cells searched, the base policy's best by its own values"),
        ("place_gap", 1, "PLACE: leave out cells the base policy values this many VP below its pick (0: keep all)"),
        ("min_playouts", 1, "continuations every candidate gets before any is dropped, grouped or the search stops"),
        ("stop_se", 1, "stop once the leader beats the runner-up by this many paired standard errors (0: never)"),
        ("halving", 1, "1: sequential halving; 0: racing alone (drop_se > 0), or flat: budget / candidates each"),
        ("drop_se", 1, "drop a candidate once the leader beats it by this many paired standard errors (0: never)"),
        (
            "switch_se",
            1,
            "pick another than the base policy's pick only if it beats it by this many (0: the best mean)",
        ),
        ("group", 1, "1: candidates identical on every continuation so far share their continuations"),
        ("search_keep", 1, "1: search KEEP decisions (stop, or roll again the dice not showing one symbol)"),
        ("search_use", 1, "1: search USE decisions"),
        ("search_place", 1, "1: search PLACE decisions (the cell of each crate, wall, church, person, house)"),
        ("margin", 1, "weight of the final VP margin beside the win share (a tie-break)"),
        (
            "clear_gap",
            1,
            "USE, PLACE: leave the decision to the base policy where it values its pick this much above "
            "every other move (0: search every one)",
        ),
    ),
)
ROLLOUT_PARAMS.export(globals())
assert ROLLOUT_PARAMS.size <= N_PARAMS

# Chosen by measurement (docs/policies.md, "How the defaults were chosen"): the VP margin beside
# the win share at 0.1 (10 VP of margin weigh as much as a win); the budget, floor and stopping
# bound by scripts/search_quality.py and one rollout seat against three balanced.
ROLLOUT_DEFAULTS: dict[str, float] = {
    "budget": 128.0,
    "place_budget": 64.0,
    "candidates": 6.0,
    "place_candidates": 6.0,
    "place_gap": 1.0,
    "min_playouts": 8.0,
    "stop_se": 3.0,
    "halving": 1.0,
    "drop_se": 0.0,
    "switch_se": 0.0,
    "group": 1.0,
    "search_keep": 0.0,
    "search_use": 1.0,
    "search_place": 1.0,
    "margin": 0.1,
    "clear_gap": 0.75,
}
# Knobs added since the first search datasets and models, at the values that play as before they
# existed: what a manifest written before them stands for (``runs.dataset``), and what ``smsim
# learn``'s teacher keeps (its figures were measured so).
UNGATED: dict[str, float] = {"clear_gap": 0.0}
# budget: the search scratch holds every continuation's result (4 arrays of MAX_CANDS x budget)
MAX_BUDGET = 16384
ROLLOUT_LIMITS: dict[str, tuple[float, float]] = {
    "budget": (1, MAX_BUDGET),
    "place_budget": (1, MAX_BUDGET),
    "candidates": (1, L.MAX_CANDS),
    "place_candidates": (1, L.MAX_CANDS),
    "place_gap": (0, 1000),
    "min_playouts": (1, MAX_BUDGET),
    "stop_se": (0, 100),
    "halving": (0, 1),
    "drop_se": (0, 100),
    "switch_se": (0, 100),
    "group": (0, 1),
    "search_keep": (0, 1),
    "search_use": (0, 1),
    "search_place": (0, 1),
    "margin": (0, 1),
    "clear_gap": (0, 1000),
}
WHOLE_KNOBS = ("budget", "place_budget", "candidates", "place_candidates", "min_playouts")
SWITCHES = ("halving", "group", "search_keep", "search_use", "search_place")
# today's search before budgets: 96 continuations for each of the base policy's 6 best USE
# candidates, no halving, no grouping, no early stop, USE decisions alone (the yardstick of
# scripts/bench.py; every switch named, so that no later default leaks into it)
FLAT_KNOBS: dict[str, float] = {
    "budget": 576.0,
    "candidates": 6.0,
    "halving": 0.0,
    "group": 0.0,
    "stop_se": 0.0,
    "search_place": 0.0,
    "search_keep": 0.0,
    **UNGATED,
}
# The search over the learned policy that the report's top level (L3, ``rollout-learned``) plays:
# chosen by measurement (docs/ladder.md, "The top level, chosen"), the cheapest candidate of
# scripts/ladder_runs.py whose head-to-head step over ``learned`` has its 95% interval's low end
# above parity + 2 points at 2 and at 4 players (seed 4,370,001, 1,000 games each); reported on a
# seed of its own (4,370,002). The gate leaves to ``learned`` a decision it leads by 0.03 of its
# units (win share plus a tenth of the VP margin), which halves the search's cost.
TOP_LEVEL: dict[str, float] = {"budget": 288.0, "place_budget": 144.0, "min_playouts": 16.0, "clear_gap": 0.03}
ROLLOUT_BASE = "balanced"
# the shipped knob sets beside the defaults (docs/policies.md: how each was chosen)
ROLLOUT_PRESETS: dict[str, dict[str, float]] = {
    "rollout-deep": {
        "budget": 288.0,
        "min_playouts": 16.0,
        "search_place": 1.0,
        "place_budget": 144.0,
        "place_gap": 1.0,
        **UNGATED,
    },
}
