"""The sums of a chunk of seat rows per group, in one compiled pass (``summary.SummaryAccumulator``).

The headline tables of a run follow from whole-number sums per group of seats (a policy, a
seat): its rows, the sum of every summed column, the sums of squares of the figures with an
interval, histograms, and the cluster sums of those figures with a game as the cluster
(``stats.SUM_COLUMNS``). Computed with numpy they took one pass over the rows per column and
group (about 15 ms a 10,000-game chunk, more than a percent of the engine's time); this is one
pass, released from the GIL, on the thread that played the chunk. Every sum is an int64, so chunks
add up exactly in any order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

N_CLUSTER = 5  # per figure: clusters, sum of (cluster total)^2, of total x rows, of rows^2, most rows


@njit(cache=True, nogil=True)
def tally_nb(
    group, game, values, figures, n_groups, hist_col, hist_offset, n_hist, series_col, n_series, sides_col, n_sides
):
    """Sums per group of the rows (``group[r]`` in 0 .. n_groups - 1, ``game[r]`` its game).

    values: int64[rows, F], the summed columns; figures: the columns with squares and cluster
    sums. Returns count[G], sums[G, F], squares[G, K], hist[G, n_hist] (of values[:, hist_col]
    + hist_offset, clipped), series[G, n_series] and sides[G, n_sides] (of those columns,
    clipped), cluster[G, K, N_CLUSTER]."""
    rows, n_fields = values.shape
    k = len(figures)
    count = np.zeros(n_groups, dtype=np.int64)
    sums = np.zeros((n_groups, n_fields), dtype=np.int64)
    squares = np.zeros((n_groups, k), dtype=np.int64)
    hist = np.zeros((n_groups, n_hist), dtype=np.int64)
    series = np.zeros((n_groups, n_series), dtype=np.int64)
    sides = np.zeros((n_groups, n_sides), dtype=np.int64)
    cluster = np.zeros((n_groups, k, N_CLUSTER), dtype=np.int64)
    if rows == 0:
        return count, sums, squares, hist, series, sides, cluster
    g0, g1 = game[0], game[0]
    for r in range(rows):
        g0 = min(g0, game[r])
        g1 = max(g1, game[r])
    n_cells = (g1 - g0 + 1) * n_groups
    cell_n = np.zeros(n_cells, dtype=np.int64)
    cell_y = np.zeros((n_cells, k), dtype=np.int64)
    for r in range(rows):
        g = group[r]
        count[g] += 1
        for f in range(n_fields):
            sums[g, f] += values[r, f]
        for j in range(k):
            y = values[r, figures[j]]
            squares[g, j] += y * y
        hist[g, min(max(values[r, hist_col] + hist_offset, 0), n_hist - 1)] += 1
        series[g, min(max(values[r, series_col], 0), n_series - 1)] += 1
        sides[g, min(max(values[r, sides_col], 0), n_sides - 1)] += 1
        c = (game[r] - g0) * n_groups + g
        cell_n[c] += 1
        for j in range(k):
            cell_y[c, j] += values[r, figures[j]]
    for c in range(n_cells):
        n = cell_n[c]
        if n == 0:
            continue
        g = c % n_groups
        for j in range(k):
            y = cell_y[c, j]
            cluster[g, j, 0] += 1
            cluster[g, j, 1] += y * y
            cluster[g, j, 2] += y * n
            cluster[g, j, 3] += n * n
            cluster[g, j, 4] = max(cluster[g, j, 4], n)
    return count, sums, squares, hist, series, sides, cluster
