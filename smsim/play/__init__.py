"""One game: the jitted game loop (``loop``), the search policy's playouts (``search``), the
one-game API (``api``: ``play_game``, ``score_city``), its trace (``trace``; the file read and
written by ``tracefile``) and narration (``narrate``), the board text format (``board``) and the
independent referee (``referee``, which imports neither the engine nor numba).

May import: the facts (``smsim.errors``, ``layout``, ``rules``, ``stats``), ``smsim.engine`` and
``smsim.policies``. Never ``runs``, ``studies``, ``report`` or ``cli``.
"""
