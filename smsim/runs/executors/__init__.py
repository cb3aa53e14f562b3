"""Executors: they are handed tasks (a picklable function and its arguments) and hand back the
results, knowing nothing of what the tasks do. ``local``: a pool of threads on this machine;
``dask``: a Dask distributed cluster (docs/cluster.md).

May import: the facts (``smsim.errors``) only.
"""
