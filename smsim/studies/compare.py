"""Comparisons of policies free of seat bias, with common random numbers (``smsim compare``).

A *block* is one deal of the dice (one game key) played once per seat arrangement:

- K policies for P seats, K == P: every permutation of the policies over the seats (P! games);
- K < P: the policies repeated to fill the table, every cyclic rotation of it (P games);
- K > P: every P-subset of the policies, each in every cyclic rotation;
- a line-up of P policies naming one more than once (``rollout balanced balanced balanced``):
  every cyclic rotation of that line-up (P games). A policy's win share is then the share of
  the block's wins its seats took together.

Every policy therefore sits in every seat equally, on the same dice as its rivals. Statistics
are computed per block (a policy's share of the block's wins, its mean VP in the block), and
blocks are independent, so the 95% intervals are normal intervals over blocks: honest even
though the games within a block are strongly correlated. Ratings are Plackett-Luce strengths
fitted to every game's final ranking (``smsim.studies.ratings``).
"""

from __future__ import annotations

import itertools
import math
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from smsim import layout as L
from smsim.checks import positive, whole
from smsim.checks import threads as checks_threads
from smsim.engine.scoring import SCORE_FIELD_NAMES
from smsim.errors import DatasetError, PolicyError, SimulationError
from smsim.files import write_file
from smsim.intervals import mean_and_interval
from smsim.play.api import verify_players
from smsim.policies.registry import PolicySpec, rebuild_policy, resolve_policy, ship_policy
from smsim.rules import Rules
from smsim.runs.dataset import ParquetStream, game_table, seat_table, with_seat_vp
from smsim.runs.executors import Failed, Task, open_executor, stop_event, threads_here
from smsim.runs.executors import check as check_cluster
from smsim.runs.folder import read_manifest, write_manifest
from smsim.runs.runner import play_chunks
from smsim.runs.spec import CHUNK_GAMES, default_threads, verify_games
from smsim.studies.ratings import Ratings, fit_plackett_luce

WON, TOTAL, RANK = (SCORE_FIELD_NAMES.index(f) for f in ("won", "total", "rank"))


def arrangements(names: list[str], players: int) -> list[list[int]]:
    """Seat arrangements of one block, as indices into ``names``."""
    k = len(names)
    if k == players:
        return [list(p) for p in itertools.permutations(range(k))]
    if k < players:
        base = [i % k for i in range(players)]
        return [base[r:] + base[:r] for r in range(players)]
    out = []
    for subset in itertools.combinations(range(k), players):
        out.extend(list(subset[r:]) + list(subset[:r]) for r in range(players))
    return out


@dataclass
class Comparison:
    """What ``compare`` found: per policy, per pair of policies, ratings, and the raw games
    (``seats`` and ``games``; None when ``compare`` was asked not to keep them)."""

    table: pd.DataFrame  # per policy: blocks, win share and its interval, mean VP and its interval
    pairs: pd.DataFrame  # per ordered pair (a, b): mean VP of a minus b in the same blocks, interval
    ratings: Ratings
    seats: pd.DataFrame | None
    games: pd.DataFrame | None
    blocks: int
    games_per_block: int
    players: int
    block_shares: np.ndarray | None = None  # [blocks, policies]: each block's win share (NaN: not seated)

    def max_width(self) -> float:
        return float((self.table["win_hi"] - self.table["win_lo"]).max())


@dataclass
class RoundGames:
    """The games of a round of blocks (first block, blocks): per block, seat arrangement and seat,
    the figures the comparison's statistics read (int64 [blocks, arrangements, players]) and,
    when asked for, each arrangement's seat and game tables (``play_round``)."""

    first: int
    blocks: int
    won: np.ndarray
    total: np.ndarray
    cannons: np.ndarray
    rank: np.ndarray
    tables: list[tuple[pd.DataFrame, pd.DataFrame]] | None = None


def _seats_of(arrs: list[list[int]], n_policies: int) -> np.ndarray:
    """seats[a, s, i]: 1 where policy i sits in seat s of arrangement a."""
    seats = np.zeros((len(arrs), len(arrs[0]), n_policies))
    for a, arrangement in enumerate(arrs):
        seats[a, np.arange(len(arrangement)), arrangement] = 1.0
    return seats


def _block_stats(games: RoundGames, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per block and policy: its win share (its seats' share of a game's win, a shared win split,
    averaged over the block's games it sat in) and its seats' mean VP; NaN where the policy did
    not play in the block (more policies than seats). ``seats``: ``_seats_of`` the arrangements."""
    won = games.won.astype(np.float64)
    winners = won.sum(axis=2, keepdims=True)
    credit = np.where(winners > 0, won / np.maximum(winners, 1), 0.0)
    credit_game = np.einsum("bas,asi->bai", credit, seats)  # each game's credit per policy
    sat = seats.any(axis=1)  # [a, i]: the policy plays in arrangement a
    with np.errstate(invalid="ignore", divide="ignore"):
        credit_block = (credit_game * sat).sum(axis=1) / sat.sum(axis=0)
        vp_block = np.einsum("bas,asi->bi", games.total.astype(np.float64), seats) / seats.sum(axis=(0, 1))
    return credit_block, vp_block


class _Tally:
    """What the tables need of every game, in memory that does not grow with the games: seats
    and cannons lost per policy, and each distinct final ranking with how often it occurred."""

    def __init__(self, n_policies: int) -> None:
        self.seats = np.zeros(n_policies, dtype=np.int64)
        self.cannons = np.zeros(n_policies, dtype=np.int64)
        self.rankings: dict[tuple[int, ...], int] = {}

    def add(self, games: RoundGames, arrs: list[list[int]], seats: np.ndarray) -> None:
        """Add a round's games; ``seats``: ``_seats_of`` the arrangements ``arrs``."""
        self.seats += games.blocks * seats.sum(axis=(0, 1)).astype(np.int64)
        self.cannons += np.einsum("bas,asi->i", games.cannons.astype(np.float64), seats).round().astype(np.int64)
        n, n_arr, players = games.rank.shape
        lineup = np.broadcast_to(np.asarray(arrs, dtype=np.int64), (n, n_arr, players))
        keys = np.concatenate([lineup, games.rank], axis=2).reshape(n * n_arr, 2 * players)
        uniq, counts = np.unique(keys, axis=0, return_counts=True)
        for key, count in zip(map(tuple, uniq.tolist()), counts.tolist()):
            self.rankings[key] = self.rankings.get(key, 0) + count

    def ranks(self, names: list[str]) -> pd.DataFrame:
        """The rankings as ``fit_plackett_luce`` reads them: one game per distinct ranking, with
        its ``count``."""
        rows = []
        for game, (key, count) in enumerate(sorted(self.rankings.items())):
            players = len(key) // 2
            rows.extend((game, names[key[s]], key[players + s], count) for s in range(players))
        return pd.DataFrame(rows, columns=["game", "policy", "rank", "count"])


def verify_compare(
    policies: list, players: int, games: int, precision: float | None = None
) -> tuple[int, int, list[PolicySpec], list[int] | None]:
    """``compare``'s input checked before anything is played: players, games, the policies
    (distinct ones, in order) and, for a line-up with a policy named in several seats, which
    policy sits in each seat (else None). Raises ``SimulationError`` or ``PolicyError``."""
    players = verify_players(players)
    games = verify_games(games)
    specs: list[PolicySpec] = [resolve_policy(p) for p in policies]
    if len(specs) < 2:
        raise SimulationError("compare needs at least 2 policies")
    names = [s.name for s in specs]
    lineup = None
    if len(set(names)) != len(names):
        # a line-up with a policy in several seats (``rollout balanced balanced balanced``): one
        # policy per seat, every cyclic rotation of the line-up in each block
        if len(names) != players:
            raise SimulationError(
                f"a policy named twice makes a line-up: give one policy per seat ({players}), got {', '.join(names)}"
            )
        distinct = list(dict.fromkeys(names))
        if len(distinct) < 2:
            raise SimulationError(f"compare needs at least 2 different policies, got {', '.join(names)}")
        by_name = {s.name: s for s in specs}
        for s in specs:
            if s is not by_name[s.name] and not np.array_equal(s.params, by_name[s.name].params):
                raise SimulationError(f"two different policies are named {s.name!r}")
        lineup = [distinct.index(n) for n in names]
        specs = [by_name[n] for n in distinct]
    if precision is not None:
        positive(precision, "precision", below=1)  # the width of a win share's interval
    return players, games, specs, lineup


def compare(
    policies: list,
    players: int,
    games: int,
    seed: int = 0,
    rules: Rules | None = None,
    precision: float | None = None,
    threads: int | None = None,
    on_progress=None,
    keep_games: bool = True,
    on_games=None,
    cluster=None,
) -> Comparison:
    """Compare policies over at most ``games`` games (rounded to whole blocks).

    With ``precision``, blocks are added in rounds until every policy's win-share interval is
    narrower than ``precision`` (full width), or ``games`` is reached. ``on_progress(games done,
    games at most, widest interval)`` is called after each round. ``on_games(seats, games)``
    receives the games' tables as they are played (``ComparisonWriter.add`` writes them); with
    ``keep_games=False`` they are not kept, and memory stays flat however many games are played.

    ``cluster``: play the rounds of blocks on a Dask distributed cluster (``smsim.runs.executors.dask``, a
    ``distributed.Client`` or an address such as ``"local:2"``). Workers play a round each and
    send its tables back; they are taken in order, so the result, the games and where
    ``precision`` stops are those of a run here (a few rounds beyond the stop are played and
    dropped).
    """

    players, games, specs, lineup = verify_compare(policies, players, games, precision)
    seed, threads = whole(seed, "seed"), checks_threads(threads)
    names = [s.name for s in specs]
    rules = rules or Rules()
    check_cluster(cluster)  # a bad address or a missing Dask: refused before any game
    arrs = arrangements(names, players) if lineup is None else [lineup[r:] + lineup[:r] for r in range(players)]
    per_block = len(arrs)
    max_blocks = max(1, games // per_block)
    # rounds of blocks: small enough to stop soon after the precision is reached, and to hold
    # about CHUNK_GAMES games at a time
    step = max(8, min(max_blocks, 200)) if precision is not None else max(1, min(max_blocks, CHUNK_GAMES // per_block))
    seat_frames, game_frames = [], []
    credit_rounds, vp_rounds = [], []  # per round: each new block's win share and mean VP per policy
    tally = _Tally(len(names))
    seated = _seats_of(arrs, len(names))  # which policy sits where, for every round's statistics
    done = 0
    rounds = [(first, min(step, max_blocks - first)) for first in range(0, max_blocks, step)]
    tables = keep_games or on_games is not None
    shipped = [ship_policy(s) for s in specs]
    tasks = [
        Task(
            play_round_task,
            (first, n, arrs, shipped, names, players, seed, rules.to_dict(), threads, tables),
            f"blocks-{first:09d}",
        )
        for first, n in rounds
    ]
    with open_executor(cluster) as executor:
        # a few rounds beyond the one summed are in play (on a cluster, twice its threads), so a
        # comparison that stops early (``precision``) leaves little work behind
        ahead = max(ROUNDS_AHEAD, 2 * executor.threads()) if executor.workers else ROUNDS_AHEAD
        played = executor.run(tasks, ordered=True, ahead=ahead)
        try:
            for (_, n), (_, round_games) in zip(rounds, played):
                tally.add(round_games, arrs, seated)
                for seats, g in round_games.tables or ():
                    if on_games is not None:
                        on_games(seats, g)
                    if keep_games:
                        seat_frames.append(seats)
                        game_frames.append(g)
                # a block's statistics depend on its own games only, so each round adds only its own
                # blocks: many rounds cost what one round of all their games would
                credit, vp = _block_stats(round_games, seated)
                credit_rounds.append(credit)
                vp_rounds.append(vp)
                done += n
                width = _max_width(np.concatenate(credit_rounds))
                if on_progress is not None:
                    on_progress(done * per_block, max_blocks * per_block, width)
                if precision is not None and width < precision:
                    break
        finally:
            played.close()  # the rounds still in play are stopped (on a cluster: cancelled)
    seats_all = pd.concat(seat_frames, ignore_index=True) if keep_games else None
    games_all = pd.concat(game_frames, ignore_index=True) if keep_games else None
    return _summarise(
        names,
        np.concatenate(credit_rounds),
        np.concatenate(vp_rounds),
        tally,
        done,
        per_block,
        players,
        seats_all,
        games_all,
    )


ROUNDS_AHEAD = 2  # rounds of blocks played beyond the one compare is summing, at most


def play_round(
    first: int,
    n: int,
    arrs: list[list[int]],
    specs: list[PolicySpec],
    names: list[str],
    players: int,
    seed: int,
    rules: Rules,
    threads: int,
    tables: bool = True,
    stop: threading.Event | None = None,
) -> RoundGames:
    """The games of blocks first .. first + n - 1, every seat arrangement of each, on ``threads``
    threads (``runner.play_chunks``; an arrangement's games are a chunk). With ``tables``, each
    arrangement's seat and game tables too, with each game's ``block``, ``arrangement`` and
    ``game_id`` (block * arrangements + arrangement), and the seats' ``policy_index``."""
    per_block = len(arrs)
    lineups = [[specs[i] for i in arrangement] for arrangement in arrs]
    shape = (n, per_block, players)
    games = RoundGames(
        first, n, *(np.zeros(shape, dtype=np.int64) for _ in range(4)), [None] * per_block if tables else None
    )

    def finish(a: int, score: np.ndarray, player: np.ndarray, game_out: np.ndarray) -> None:
        games.won[:, a] = score[:, :, WON]  # each arrangement its own column: threads never write the same cells
        games.total[:, a] = score[:, :, TOTAL]
        games.rank[:, a] = score[:, :, RANK]
        games.cannons[:, a] = player[:, :, L.CANNONS_LOST]
        if tables:
            games.tables[a] = _arrangement_tables(score, player, game_out, arrs, a, names, rules, first)

    play_chunks(
        [(first, n, a) for a in range(per_block)],
        players,
        [(lineup, rules) for lineup in lineups],
        seed,
        threads,
        finish,
        stop=stop,
    )
    return games


def play_round_task(
    first: int,
    n: int,
    arrs: list[list[int]],
    policies: list,
    names: list[str],
    players: int,
    seed: int,
    rules: dict,
    threads: int | None,
    tables: bool,
) -> RoundGames | Failed:
    """``play_round`` as an executor's task: plain-data arguments, on the executor's threads; a
    policy that breaks the interface is ``Failed`` (the same anywhere: not retried)."""
    try:
        specs = [rebuild_policy(p) for p in policies]
        return play_round(
            first,
            n,
            arrs,
            specs,
            names,
            players,
            seed,
            Rules.from_dict(rules),
            threads or threads_here() or default_threads(),
            tables,
            stop_event(),
        )
    except (SimulationError, PolicyError) as exc:
        return Failed(str(exc))


def _arrangement_tables(
    score: np.ndarray,
    player: np.ndarray,
    game_out: np.ndarray,
    arrs: list[list[int]],
    a: int,
    names: list[str],
    rules: Rules,
    first: int,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The seat and game tables of arrangement a's games in a round of blocks from ``first``."""
    n, players = score.shape[:2]
    arrangement = arrs[a]
    seats = seat_table(score, player, game_out, [names[i] for i in arrangement], rules, first)
    g = game_table(game_out, players, rules, first)
    for df in (seats, g):
        df["block"] = df["game"]
        df["arrangement"] = a
        df["game_id"] = df["game"] * len(arrs) + a
    seats["policy_index"] = np.tile(arrangement, n)
    seats["policy"] = pd.Categorical(seats["policy"].astype(str), categories=names)
    return seats, g


def _max_width(credit: np.ndarray) -> float:
    """The widest win-share interval among the policies (``Comparison.max_width``), from the
    win share of each policy in each block."""
    return float(max(hi - lo for _, lo, hi, _ in (mean_and_interval(credit[:, i]) for i in range(credit.shape[1]))))


def _summarise(
    names: list[str],
    credit: np.ndarray,
    vp: np.ndarray,
    tally: _Tally,
    blocks: int,
    per_block: int,
    players: int,
    seats: pd.DataFrame | None,
    games: pd.DataFrame | None,
) -> Comparison:
    """The comparison's tables from each block's win shares and mean VP (``_block_stats``) and
    the tally of all its games."""
    rows = []
    for i, name in enumerate(names):
        w, wlo, whi, nb = mean_and_interval(credit[:, i])
        v, vlo, vhi, _ = mean_and_interval(vp[:, i])
        rows.append(
            {
                "policy": name,
                "blocks": nb,
                "seats": int(tally.seats[i]),
                "win_share": w,
                "win_lo": wlo,
                "win_hi": whi,
                "vp_mean": v,
                "vp_lo": vlo,
                "vp_hi": vhi,
                "cannons_lost": int(tally.cannons[i]) / int(tally.seats[i]) if tally.seats[i] else math.nan,
            }
        )
    table = pd.DataFrame(rows).set_index("policy")
    pairs = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            diff = vp[:, i] - vp[:, j]  # nan where a block lacks one of them
            m, lo, hi, nb = mean_and_interval(diff)
            pairs.append({"a": a, "b": b, "blocks": nb, "vp_diff": m, "lo": lo, "hi": hi})
    ratings = fit_plackett_luce(tally.ranks(names))
    table = table.join(ratings.table[["strength", "elo", "se"]].rename(columns={"se": "log_strength_se"}))
    return Comparison(table, pd.DataFrame(pairs), ratings, seats, games, blocks, per_block, players, credit)


TABLES = {"policies": 0, "pairs": None, "ratings": 0}  # the result tables' CSV files, with their index column


class ComparisonWriter:
    """A comparison's directory: its games written as they are played (``seats.parquet`` and
    ``games.parquet``, one row group per chunk, under temporary names until ``finish``), then its
    tables (``policies.csv``, ``pairs.csv``, ``ratings.csv``) and ``manifest.json``, last. The
    directory is made at once, so an unwritable output fails before any game is played."""

    def __init__(self, out: str | Path) -> None:
        self.path = Path(out)
        self.path.mkdir(parents=True, exist_ok=True)
        self.seats = ParquetStream(self.path / "seats.parquet")
        self.games = ParquetStream(self.path / "games.parquet")

    def add(self, seats: pd.DataFrame, games: pd.DataFrame) -> None:
        self.seats.write(seats)
        self.games.write(games)

    def finish(self, result: Comparison, command: list[str], seed: int, rules: Rules) -> None:
        self.seats.close()
        self.games.close()
        write_file(self.path / "policies.csv", result.table.to_csv())  # TABLES: the names read_comparison reads
        write_file(self.path / "pairs.csv", result.pairs.to_csv(index=False))
        write_file(self.path / "ratings.csv", result.ratings.table.to_csv())
        write_manifest(
            self.path,
            "comparison",
            {
                "command": command,
                "seed": seed,
                "rules": rules.to_dict(),
                "policies": list(result.table.index),
                "blocks": result.blocks,
                "games_per_block": result.games_per_block,
            },
        )

    def abort(self) -> None:
        """Drop the games written so far (the directory keeps what it held before)."""
        self.seats.abort()
        self.games.abort()


def save_comparison(result: Comparison, out: str, command: list[str], seed: int, rules: Rules) -> None:
    """Write a comparison that kept its games (``compare(keep_games=True)``): the games, the
    result tables and a manifest (``ComparisonWriter``)."""
    if result.seats is None or result.games is None:
        raise ValueError(
            "this comparison kept no games (keep_games=False): pass on_games=ComparisonWriter(out).add "
            "to compare to write them as they are played"
        )
    writer = ComparisonWriter(out)
    try:
        writer.add(result.seats, result.games)
        writer.finish(result, command, seed, rules)
    except BaseException:
        writer.abort()
        raise


# -- reading a comparison's directory back ---------------------------------------------------------
@dataclass
class SavedComparison:
    """A comparison's directory read back (what ``ComparisonWriter`` wrote): its games, its
    result tables by name (``policies``, ``pairs``, ``ratings``; those present) and its manifest.
    ``seats`` and ``games`` carry the block's ``game`` index and ``game_id``, unique per game."""

    seats: pd.DataFrame
    games: pd.DataFrame
    tables: dict[str, pd.DataFrame]
    manifest: dict


def read_comparison(path: str | Path) -> SavedComparison:
    """Read a comparison directory written by ``smsim compare --out`` (``ComparisonWriter``)."""

    path = Path(path)
    manifest = read_manifest(path, "comparison")
    frames = []
    for name in ("seats", "games"):
        f = path / f"{name}.parquet"
        try:
            frames.append(pq.read_table(f).to_pandas())
        except Exception as exc:  # pyarrow raises several kinds for a damaged or missing file
            raise DatasetError(f"{str(f)!r} cannot be read ({exc})") from None
    tables = {
        name: pd.read_csv(path / f"{name}.csv", index_col=index)
        for name, index in TABLES.items()
        if (path / f"{name}.csv").is_file()
    }
    return SavedComparison(with_seat_vp(frames[0]), frames[1], tables, manifest)
