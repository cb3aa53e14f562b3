"""The dataset a run writes: seat rows, game rows and a manifest (issue: batch simulation).

A dataset directory holds::

    manifest.json             what made it: smsim/numba versions, command, seed, players, games,
                              batch size, policies with their weights, the rules in full
    seats/part-000000.parquet one row per player per game, games [k*B, (k+1)*B) in part k
    games/part-000000.parquet one row per game
    rounds/part-000000.parquet  only where asked (``simulate --rounds``): one row per seat at the
                              start of every round and at the game's end (``layout.ROUND``)

Parts are written whole under a temporary name and renamed, so a part either exists complete or
not at all: an interrupted run never leaves a corrupt file, and resuming writes only the parts
missing. Every game depends only on (seed, game), so a resumed dataset equals an uninterrupted one.

The directory may also be an fsspec URL (``s3://bucket/run``, ``memory://...``): ``storage`` reads
and writes it, a part still reaching it whole or not at all.
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from smsim import layout as L
from smsim.engine.scoring import SCORE_FIELD_NAMES
from smsim.errors import DatasetError
from smsim.files import commit, temp_name
from smsim.rules import SIDE_NAMES, Rules
from smsim.runs import folder
from smsim.runs.storage import Remote, location, publish, reading, staging_file

if TYPE_CHECKING:
    from smsim.policies.registry import PolicySpec

MANIFEST = folder.KINDS["dataset"].file

# engine player fields -> dataset columns (the rest are derived below)
PLAYER_COLUMNS = {
    "coins_left": L.COINS,
    "logs_left": L.LOGS,
    "cannons_lost": L.CANNONS_LOST,
    "soldiers": L.SOLDIERS,
    "vp_citizen": L.VP_CITIZEN,
    "vp_priest": L.VP_PRIEST,
    "vp_houses": L.VP_HOUSES,
    "vp_juggler": L.VP_JUGGLER,
    "vp_noble": L.VP_NOBLE,
    "vp_wall_bonus": L.VP_WALL_BONUS,
    "coins_merchant": L.COINS_MERCHANT,
    "coins_wall_bonus": L.COINS_WALL_BONUS,
    "coins_rotation": L.COINS_ROTATION,
    "coins_delivery": L.COINS_DELIVERY,
    "logs_delivered": L.LOGS_DELIVERED,
    "logs_used": L.LOGS_USED,
    "dice_rotated": L.N_ROTATED,
    "passes": L.N_PASSES,
    "bonus_persons": L.BONUS_PERSONS,
}

# the final score's breakdown: the parts sum to ``total``. ``seat_vp`` is the seat compensation of a
# designer's variant (rules seat_vp, docs/rules.md §7), 0 in the printed game: tables for people
# show it only where a seat has some (``vp_sources``).
VP_SOURCES = ("earned", "church_vp", "coins_vp", "logs_vp", "full_city_vp", "cannon_vp", "seat_vp")

VP_LABELS = {
    "earned": "earned in play",
    "church_vp": "church series",
    "coins_vp": "coins left",
    "logs_vp": "logs left",
    "full_city_vp": "full city",
    "cannon_vp": "cannons lost",
    "seat_vp": "seat compensation",
    "total": "total",
    "vp_citizen": "citizens",
    "vp_priest": "priests",
    "vp_houses": "houses",
    "vp_juggler": "jugglers",
    "vp_noble": "nobles",
    "vp_wall_bonus": "wall bonuses",
}
"""Each source of the final score in words (``VP_SOURCES``, ``total`` and the parts of ``earned``):
the one label the page, its figures, the sweep's metrics and the terminal give it."""


def vp_sources(seat_vp: bool) -> tuple[str, ...]:
    """``VP_SOURCES``, without ``seat_vp`` where no seat has a VP compensation."""
    return VP_SOURCES if seat_vp else tuple(src for src in VP_SOURCES if src != "seat_vp")


def with_seat_vp(seats: pd.DataFrame) -> pd.DataFrame:
    """A seat table read from a dataset written before seat compensation existed gets its
    ``seat_vp`` column: 0, as it was then."""
    if len(seats.columns) and "seat_vp" not in seats:
        seats["seat_vp"] = np.zeros(len(seats), dtype=np.int16)
    return seats


def policy_codes(policy_names: list[str], n_games: int) -> tuple[np.ndarray, list[str]]:
    """The seats' policies, game after game, as codes into their sorted names: (codes, names)."""
    categories = sorted(set(policy_names))
    codes = np.array([categories.index(name) for name in policy_names], dtype=np.int8)
    return np.tile(codes, n_games), categories


# highest set bit + 1 of a 5-bit mask (bit k-1: a series of length k), and the set bits of a side mask
_HIGHEST_BIT = np.array([int(m).bit_length() for m in range(32)], dtype=np.int8)
_SIDES_SET = np.array([bin(m).count("1") for m in range(1 << L.N_SIDES)], dtype=np.int8)
_SERIES_BITS = 1 << np.arange(5)


def longest_series(flat_score: np.ndarray) -> np.ndarray:
    """Per seat row, the longest church series it scored (0: none)."""
    series = flat_score[:, [SCORE_FIELD_NAMES.index(f"series_{k}") for k in range(1, 6)]]
    return _HIGHEST_BIT[(series > 0) @ _SERIES_BITS]


def sides_completed(flat_player: np.ndarray) -> np.ndarray:
    """Per seat row, how many sides of its city it completed."""
    return _SIDES_SET[flat_player[:, L.SIDES_DONE] & ((1 << L.N_SIDES) - 1)]


def summary_columns(score: np.ndarray, player: np.ndarray, first: int) -> dict[str, np.ndarray]:
    """The seat columns the headline tables read (``summary.SummaryAccumulator``), straight from
    the engine's arrays, as ``seat_table`` has them: game, seat, won, shared, total, cannons
    lost, longest series, sides completed and the VP by source."""

    n_games, n_players = score.shape[:2]
    flat_score = score.reshape(n_games * n_players, -1)
    flat_player = player.reshape(n_games * n_players, -1)
    cols = {
        "game": np.repeat(np.arange(first, first + n_games, dtype=np.int64), n_players),
        "seat": np.tile(np.arange(n_players, dtype=np.int8), n_games),
    }
    for name in ("won", "shared", "total", *VP_SOURCES):
        cols[name] = flat_score[:, SCORE_FIELD_NAMES.index(name)]
    cols["cannons_lost"] = flat_player[:, L.CANNONS_LOST]
    cols["longest_series"] = longest_series(flat_score)
    cols["sides_completed"] = sides_completed(flat_player)
    return cols


def game_summary_columns(game_out: np.ndarray, n_players: int) -> dict[str, np.ndarray]:
    """The game columns the headline tables read, straight from the engine's ``game_out``."""
    return {
        "players": np.full(len(game_out), n_players, dtype=np.int8),
        "rounds": game_out[:, L.G_ROUNDS],
        "aborted": game_out[:, L.G_ABORTED],
        "winners": game_out[:, L.G_WINNERS],
        "attacks": game_out[:, L.G_ATTACKS],
    }


def seat_columns(
    score: np.ndarray, player: np.ndarray, game_out: np.ndarray, policy_names: list[str], rules: Rules, first: int
) -> dict[str, np.ndarray]:
    """The seat table's columns (``seat_table``) from the engine's arrays (score, player: [G, P, F]),
    ``policy`` as codes into the sorted policy names (``policy_codes``)."""
    n_games, n_players = score.shape[:2]
    games = np.arange(first, first + n_games, dtype=np.int64)
    cols: dict[str, Any] = {
        "game": np.repeat(games, n_players),
        "players": np.full(n_games * n_players, n_players, dtype=np.int8),
        "seat": np.tile(np.arange(n_players, dtype=np.int8), n_games),
        "policy": policy_codes(policy_names, n_games)[0],
    }
    flat_score = score.reshape(n_games * n_players, -1)
    flat_player = player.reshape(n_games * n_players, -1)
    for i, name in enumerate(SCORE_FIELD_NAMES):
        cols[name if name != "empty" else "empty_left"] = flat_score[:, i].astype(np.int16)
    cols["won"] = cols["won"].astype(bool)
    cols["shared"] = cols["shared"].astype(bool)
    cols["longest_series"] = longest_series(flat_score)
    cols["church_count"] = flat_score[:, [SCORE_FIELD_NAMES.index(f"churches_{k}") for k in range(1, 6)]].sum(1)
    for name, field in PLAYER_COLUMNS.items():
        cols[name] = flat_player[:, field].astype(np.int32)
    done = flat_player[:, L.SIDES_DONE]
    broken = flat_player[:, L.SIDES_BROKEN]
    cols["sides_completed"] = sides_completed(flat_player)
    for i, side in enumerate(SIDE_NAMES):
        cols[f"walls_{side}"] = flat_player[:, L.SIDE_WALLS + i].astype(np.int8)
        cols[f"{side}_completed"] = ((done >> i) & 1).astype(bool)
        cols[f"{side}_destroyed"] = ((broken >> i) & 1).astype(bool)
        cols[f"{side}_round"] = flat_player[:, L.SIDE_ROUND + i].astype(np.int16)  # -1: never completed
    seat = cols["seat"].astype(np.int64)
    for kind in ("coins", "vp", "person"):
        sides = [i for i in range(L.N_SIDES) if rules.wall_bonus_kind[i] == kind]
        # a side completed by a seat that wall_bonus_seats leaves out gave it nothing
        cols[f"bonuses_{kind}"] = (
            sum(((done >> i) & (rules.wall_bonus_seats[i] >> seat) & 1) for i in sides).astype(np.int8)
            if sides
            else np.zeros(len(done), dtype=np.int8)
        )
    cols["coins_gained"] = cols["coins_merchant"] + cols["coins_wall_bonus"]
    cols["coins_spent"] = cols["coins_rotation"] + cols["coins_delivery"]
    cols["logs_gained"] = cols["logs_delivered"]
    cols["spaces_filled"] = (L.N_SPACES - cols["empty_left"]).astype(np.int8)
    cols["rounds"] = np.repeat(game_out[:, L.G_ROUNDS], n_players).astype(np.int16)
    cols["attacks_faced"] = np.repeat(game_out[:, L.G_ATTACKS], n_players).astype(np.int8)
    for row in range(len(rules.pirate_strengths)):
        cols[f"defence_attack_{row + 1}"] = flat_player[:, L.ATTACK_DEFENCE + row].astype(np.int16)
    for row in range(len(rules.pirate_strengths)):
        cols[f"sides_attack_{row + 1}"] = flat_player[:, L.ATTACK_SIDES + row].astype(np.int8)
    cols["rank"] = cols["rank"].astype(np.int8)
    return cols


def seat_table(
    score: np.ndarray, player: np.ndarray, game_out: np.ndarray, policy_names: list[str], rules: Rules, first: int
) -> pd.DataFrame:
    """One row per player per game from the engine's arrays (score, player: [G, P, F])."""
    cols = seat_columns(score, player, game_out, policy_names, rules, first)
    cols["policy"] = pd.Categorical.from_codes(cols["policy"], categories=sorted(set(policy_names)))
    return pd.DataFrame(cols)


def seat_arrow(
    score: np.ndarray, player: np.ndarray, game_out: np.ndarray, policy_names: list[str], rules: Rules, first: int
) -> pa.Table:
    """``seat_table`` as an Arrow table, built from the engine's arrays without pandas (what a
    dataset part is written from: the same values, read back as the same table)."""
    return arrow_table(seat_columns(score, player, game_out, policy_names, rules, first), sorted(set(policy_names)))


def arrow_table(cols: dict[str, np.ndarray], policies: list[str] | None = None) -> pa.Table:
    """Columns as an Arrow table, ``policy`` (codes into ``policies``) as the dictionary column
    pandas writes for a categorical."""
    arrays = {
        name: pa.DictionaryArray.from_arrays(col, pa.array(policies, pa.string())) if name == "policy" else col
        for name, col in cols.items()
    }
    return pa.table(arrays)


ROUND_COLUMNS = L.ROUND.columns()


def round_table(rows: tuple[np.ndarray, np.ndarray, np.ndarray]) -> pd.DataFrame:
    """One row per seat per round snapshot (``runner.RoundRows``): game, round (the rounds played:
    the game's end), seat, then the seat's position (``layout.ROUND``)."""
    return pd.DataFrame(round_columns(rows))


def round_columns(rows: tuple[np.ndarray, np.ndarray, np.ndarray]) -> dict[str, np.ndarray]:
    """``round_table``'s columns."""
    game, rnd, positions = rows
    n, n_players = positions.shape[:2]
    flat = positions.reshape(n * n_players, -1)
    cols: dict[str, Any] = {
        "game": np.repeat(game, n_players),
        "round": np.repeat(rnd, n_players),
        "seat": np.tile(np.arange(n_players, dtype=np.int8), n),
    }
    for i, name in enumerate(ROUND_COLUMNS):
        cols[name] = flat[:, i]
    return cols


def game_table(game_out: np.ndarray, n_players: int, rules: Rules, first: int) -> pd.DataFrame:
    """One row per game: rounds, attacks and their rounds, who filled their city and ended it."""
    return pd.DataFrame(game_columns(game_out, n_players, rules, first))


def game_columns(game_out: np.ndarray, n_players: int, rules: Rules, first: int) -> dict[str, np.ndarray]:
    """``game_table``'s columns."""
    n_games = game_out.shape[0]
    filled = game_out[:, L.G_FILLED]
    cols: dict[str, Any] = {
        "game": np.arange(first, first + n_games, dtype=np.int64),
        "players": np.full(n_games, n_players, dtype=np.int8),
        "rounds": game_out[:, L.G_ROUNDS].astype(np.int16),
        "aborted": game_out[:, L.G_ABORTED].astype(bool),
        "attacks": game_out[:, L.G_ATTACKS].astype(np.int8),
        "boxes": game_out[:, L.G_BOXES].astype(np.int16),
        "winners": game_out[:, L.G_WINNERS].astype(np.int8),
        "filled_seats": filled.astype(np.int8),  # bit s: seat s's city was full
        # the game ends after the round in which the first city fills; within that round the
        # lowest seat that filled its city did it first
        "ended_by": np.where(filled > 0, np.log2(np.maximum(filled & -filled, 1)).astype(np.int8), -1).astype(np.int8),
    }
    for row in range(len(rules.pirate_strengths)):
        cols[f"attack_{row + 1}_round"] = game_out[:, L.G_ATTACK_ROUND + row].astype(np.int16)
    return cols


# -- on disk --------------------------------------------------------------------------------------
def part_name(k: int) -> str:
    return f"part-{k:06d}.parquet"


def parquet_options(schema: pa.Schema) -> dict[str, Any]:
    """How a table is written to Parquet, chosen by measurement (docs/dataset.md, "The parts"):
    LZ4, no column statistics (smsim never filters on them), the game number delta-encoded (it
    counts up, and a dictionary of unique numbers is wasted work), every other column
    dictionary-encoded (small integers, a few dozen values each). A chunk of 10,000 four-player
    games (seats and games) is written in 30 ms, 0.83 MB, where zstd with statistics took 39 ms
    for 0.70 MB: at 2 threads the writing's CPU is taken from the games."""
    delta = [name for name in schema.names if name == "game"]
    return {
        "compression": "lz4",
        "write_statistics": False,
        "use_dictionary": [name for name in schema.names if name not in delta],
        "column_encoding": dict.fromkeys(delta, "DELTA_BINARY_PACKED"),
    }


class ParquetStream:
    """One Parquet file written a table at a time (one row group each) under a temporary name
    (``.NAME.tmp-PID``) that ``close`` syncs and renames into place (``files.commit``): the file
    exists complete or not at all. ``abort`` removes what was written. At a URL (``storage.Remote``) the temporary
    file is local and ``close`` uploads it whole (``storage.publish``)."""

    def __init__(self, final: Path | Remote) -> None:
        self.final = final
        self.tmp: Path | None = final.with_name(temp_name(final)) if isinstance(final, Path) else None
        self.writer: pq.ParquetWriter | None = None

    def write(self, table: pa.Table | pd.DataFrame) -> None:
        if isinstance(table, pd.DataFrame):
            table = pa.Table.from_pandas(table, preserve_index=False, nthreads=1)  # the run's threads write in parallel
        if self.writer is None:
            if self.tmp is None:
                self.tmp = staging_file(self.final)
            self.writer = pq.ParquetWriter(self.tmp, table.schema, **parquet_options(table.schema))
        self.writer.write_table(table)

    def close(self) -> None:
        if self.writer is None:  # nothing written: no file
            return
        self.writer.close()
        self.writer = None
        if isinstance(self.final, Path):
            commit(self.tmp, self.final)  # synced and renamed into place (smsim.files)
            return
        try:
            publish(self.tmp, self.final)
        finally:
            self.tmp.unlink(missing_ok=True)

    def abort(self) -> None:
        if self.writer is not None:
            with contextlib.suppress(OSError):
                self.writer.close()
            self.writer = None
        if self.tmp is not None:
            self.tmp.unlink(missing_ok=True)


def tables_of(rounds: bool) -> tuple[str, ...]:
    """The tables of a dataset, in the order a part is put in place: the games last."""
    return ("seats", "rounds", "games") if rounds else ("seats", "games")


class PartWriter:
    """Part k of every table, written a chunk of games at a time (``ParquetStream``); ``close``
    puts the seats (and round snapshots) in place, then the games: a part counts as done only
    when all are there, and writing it takes the memory of one chunk, whatever its size."""

    def __init__(self, out: Path | Remote, k: int, rounds: bool = False) -> None:
        self.files = {}
        for sub in tables_of(rounds):
            (out / sub).mkdir(parents=True, exist_ok=True)
            self.files[sub] = ParquetStream(out / sub / part_name(k))

    def write(self, seats: pa.Table, games: pa.Table, rounds: pa.Table | None = None) -> None:
        self.files["seats"].write(seats)
        if rounds is not None:
            self.files["rounds"].write(rounds)
        self.files["games"].write(games)

    def close(self) -> None:
        for file in self.files.values():  # the games last
            file.close()

    def abort(self) -> None:
        """Drop what was written of the part (a later run writes it again)."""
        for file in self.files.values():
            file.abort()


def done_parts(out: Path | Remote, rounds: bool = False) -> set[int]:
    """Parts present in every table (the round snapshots' too, where the run records them)."""

    def parts(sub: str) -> set[int]:
        tables = out / sub
        if not tables.is_dir():
            return set()
        return {int(p.name[5:11]) for p in tables.glob("part-*.parquet") if p.name[5:11].isdigit()}

    return set.intersection(*(parts(sub) for sub in tables_of(rounds)))


def records_rounds(identity: dict[str, Any]) -> bool:
    """Whether the run ``identity`` (a manifest's ``run``) records round snapshots."""
    return bool(identity.get("rounds", False))


def read_manifest(path: str | Path | Remote) -> dict[str, Any]:
    """A dataset's manifest (``folder.read_manifest``): ``run`` holds the run's identity."""
    return folder.read_manifest(path, "dataset")


# -- resuming a run ---------------------------------------------------------------------------------
def policy_identity(spec: PolicySpec) -> dict[str, Any]:
    """What a manifest records of a policy, with a hash of a user policy's file."""

    info = spec.describe()
    if spec.fn is not None:
        path = Path(spec.source.rpartition(":")[0])
        info["file_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return info


def run_identity(
    games: int, players: int, specs: list[PolicySpec], seed: int, rules: Rules, batch: int, rounds: bool = False
) -> dict:
    """The fields that make two runs the same run: a directory is resumed only by its own. The
    round snapshots are named only where recorded, so a dataset written before them resumes."""
    return {
        "games": games,
        "players": players,
        "seed": seed,
        "batch": batch,
        "policies": [policy_identity(s) for s in specs],
        "rules": rules.to_dict(),
        **({"rounds": True} if rounds else {}),
    }


def open_run(path: Path | Remote, identity: dict[str, Any], command: list[str]) -> set[int]:
    """Make ``path`` the dataset of the run ``identity`` and return the parts it already holds.

    An empty or missing directory gets the run's manifest (no parts); a dataset of the same run
    is resumed (its finished parts are kept, the leftovers of a write cut short removed); a
    directory that is not a dataset, or holds a different run, is refused with a
    ``DatasetError`` before anything in it is touched (``folder.check_out``)."""
    if not folder.check_out(path, "dataset", identity):
        try:
            tables = {
                "seats": "one row per player per game",
                "games": "one row per game",
                "rounds": "one row per player at the start of every round and at the end",
            }
            folder.write_manifest(
                path,
                "dataset",
                {
                    "run": identity,
                    "command": command,
                    "tables": {
                        t: tables[t] for t in ("seats", "games", "rounds") if t in tables_of(records_rounds(identity))
                    },
                },
            )
        except OSError as exc:
            raise DatasetError(f"cannot write to {str(path)!r}: {exc.strerror or exc}") from None
    for stale in path.glob("*/.part-*.tmp-*"):  # a write cut short by a kill: never a finished part
        stale.unlink(missing_ok=True)
    return done_parts(path, records_rounds(identity))


@dataclass
class Dataset:
    """A dataset read back: the seat and game tables and the manifest."""

    seats: pd.DataFrame
    games: pd.DataFrame
    manifest: dict[str, Any]

    @property
    def complete(self) -> bool:
        return len(self.games) == self.manifest["run"]["games"]


def read_part(file: Path | Remote, columns: list[str] | None = None) -> pd.DataFrame:
    """One Parquet file of a dataset (a part), local or at a URL."""
    with reading(file) as source:
        return pq.read_table(source, columns=columns).to_pandas()


def load(path: str | Path) -> Dataset:
    """Read a dataset directory written by ``smsim simulate --out`` (complete or not): a local
    path, or a URL such as ``s3://bucket/run`` (``storage.location``)."""
    path = location(path)
    manifest = read_manifest(path)
    parts = sorted(done_parts(path))
    try:
        seats = [with_seat_vp(read_part(path / "seats" / part_name(k))) for k in parts]
        games = [read_part(path / "games" / part_name(k)) for k in parts]
    except (OSError, pa.ArrowInvalid) as exc:
        raise DatasetError(f"{str(path)!r}: a part cannot be read ({exc})") from None
    if not parts:
        return Dataset(pd.DataFrame(), pd.DataFrame(), manifest)
    seat_df = pd.concat(seats, ignore_index=True)
    seat_df["policy"] = seat_df["policy"].astype("category")
    return Dataset(seat_df, pd.concat(games, ignore_index=True), manifest)


def load_rounds(path: str | Path, columns: list[str] | None = None) -> pd.DataFrame:
    """The round snapshots of a dataset written with ``smsim simulate --rounds`` (``round_table``'s
    columns, or those of ``columns`` beside game, round and seat), of its finished parts. A
    dataset written without them is refused in one line (``DatasetError``) naming the option."""
    path = location(path)
    manifest = read_manifest(path)
    if not records_rounds(manifest.get("run", {})):
        raise DatasetError(
            f"{str(path)!r} holds no round snapshots: it was written without --rounds "
            "(smsim simulate --rounds, or simulate_to(..., rounds=True), records them)"
        )
    if columns is not None:
        unknown = sorted(set(columns) - set(ROUND_COLUMNS))
        if unknown:
            raise DatasetError(
                f"no round snapshot column {', '.join(unknown)}; the columns are {', '.join(ROUND_COLUMNS)}"
            )
        columns = ["game", "round", "seat", *[c for c in ROUND_COLUMNS if c in columns]]
    parts = sorted(done_parts(path, rounds=True))
    try:
        tables = [read_part(path / "rounds" / part_name(k), columns) for k in parts]
    except (OSError, pa.ArrowInvalid) as exc:
        raise DatasetError(f"{str(path)!r}: a part cannot be read ({exc})") from None
    if not tables:
        return round_table(
            (np.zeros(0, np.int64), np.zeros(0, np.int16), np.zeros((0, 0, L.N_ROUND_FIELDS), np.int16))
        )[columns or slice(None)]
    return pd.concat(tables, ignore_index=True)
