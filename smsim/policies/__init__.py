"""Policies (bots): who decides what, given the candidates the engine lists: the heuristic family
(``heuristics``, ``features``), the search policy's knobs (``rollout``), the interface a user's
policy implements (``interface``) and the registry of names, presets and files (``registry``).

May import: the facts and ``smsim.engine``. Never the loop (``play``) or anything above.
"""

from smsim.errors import PolicyError  # noqa: F401  (where the registry and its users have always found it)
