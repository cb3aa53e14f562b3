"""The knobs of the search policy ``rollout`` (its decisions are ``smsim.play.search``'s).

``rollout`` values each candidate of a decision it searches by playing continuations of the game
to the end, every seat played by its base policy, and picks the candidate with the best mean
outcome: the seat's win share (a shared win split) plus ``margin`` times its final VP margin
over the best other seat. Its knobs sit in the seat's ``params`` vector by this record; its base
policy is a separate heuristic weight vector.

>>> ROLLOUT_DEFAULTS["playouts"], ROLLOUT_DEFAULTS["search_use"]
(96.0, 1.0)
"""

from smsim import layout as L
from smsim.policies.heuristic_layout import N_PARAMS

ROLLOUT_PARAMS = L.Record("rollout knobs", "RO_", "N_ROLLOUT_PARAMS", (
    ("playouts", 1, "continuations per candidate (common dice across candidates)"),
    ("candidates", 1, "USE: most candidates searched, the base policy's best by its own values"),
    ("search_keep", 1, "1: search KEEP decisions (stop, or roll again the dice not showing one symbol)"),
    ("search_use", 1, "1: search USE decisions"),
    ("margin", 1, "weight of the final VP margin beside the win share (a tie-break)"),
))  # fmt: skip
ROLLOUT_PARAMS.export(globals())
assert ROLLOUT_PARAMS.size <= N_PARAMS

# Chosen by measurement (4 players, one rollout seat against three balanced, 200-300 games each,
# docs/policies.md): the win share alone is too noisy a signal, the VP margin beside it at 0.1
# (10 VP of margin weigh as much as a win) plays far stronger; searching KEEP decisions too
# doubled the cost without a measurable gain.
ROLLOUT_DEFAULTS: dict[str, float] = {
    "playouts": 96.0,
    "candidates": 6.0,
    "search_keep": 0.0,
    "search_use": 1.0,
    "margin": 0.1,
}
ROLLOUT_LIMITS: dict[str, tuple[float, float]] = {
    "playouts": (1, 4096),
    "candidates": (1, L.MAX_CANDS),
    "search_keep": (0, 1),
    "search_use": (0, 1),
    "margin": (0, 1),
}
ROLLOUT_BASE = "balanced"
