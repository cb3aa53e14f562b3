"""The jitted rules of Saint Malo: plain arrays in, arrays and records out; no pandas, no I/O.

May import: the facts (``smsim.layout``, ``smsim.rules``) and numba. Never the bots
(``policies``), the loop (``play``) or anything above.
"""
