"""Many games: the batch API (``batch``: ``simulate``, ``simulate_to``, ``simulate_summary``),
a run's checked inputs (``spec``), the pool that plays chunks of games (``runner``), the
datasets on disk (``dataset``, ``storage``), the running sums and headline tables (``tally``,
``summary``), and the executors that carry tasks out (``executors``: local threads, Dask).

May import: the facts, ``engine``, ``policies`` and ``play``. Never ``studies``, ``report`` or
``cli``.
"""
