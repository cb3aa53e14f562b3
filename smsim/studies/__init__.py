"""Studies built on runs of many games: ``compare`` (policies seat-fairly, with ratings from
``ratings``), ``sweep`` (rule variants on common dice), ``fairness`` (the per-seat compensation),
``tune`` (the heuristic's weights by CMA-ES) and ``advise`` (the search's advice on one decision).

May import: the facts, ``engine``, ``policies``, ``play`` and ``runs``. Never ``report`` or ``cli``.
"""
