"""The rules configuration: every number and [decision] of docs/rules.md §7 as one field.

``Rules()`` reproduces docs/rules.md exactly. A variant is a TOML file that overrides a few fields::

    # no-rotation.toml: dice may not be turned at all (a cost no one can pay)
    rotation_cost = 1000
    allow_pass = true

>>> r = Rules()
>>> r.church_series_vp
(1, 4, 8, 13, 20)
>>> r.pirate_row_boxes(4)
8
>>> Rules.from_dict({"rotation_cost": 3}).rotation_cost
3
>>> Rules.from_dict({"rotation_cost": -1})
Traceback (most recent call last):
...
smsim.errors.RulesError: rules field 'rotation_cost': must be >= 0, got -1

The jitted core never sees this class: :meth:`Rules.to_nb` flattens it into an ``int64``
vector whose layout is given by the ``R_*`` index constants below.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from smsim.errors import RulesError
from smsim.layout import (
    CORNERS,
    MAX_PIRATE_ROWS,
    MAX_PLAYERS,
    N_SIDES,
    N_SPACES,
    SIZE,
    BonusKind,
    Record,
    Side,
    cell_index,
)

SIDE_NAMES: tuple[str, ...] = tuple(side.name.lower() for side in Side)
ALL_SEATS = (1 << MAX_PLAYERS) - 1
"""A ``wall_bonus_seats`` mask of every seat: the printed game."""
BONUS_KINDS: tuple[str, ...] = tuple(kind.name.lower() for kind in BonusKind)


@dataclass(frozen=True)
class Rules:
    """Every rule number of Saint Malo; the defaults are docs/rules.md.

    Sides are always listed in the order top, right, bottom, left.
    """

    # §1 start
    start_coins: int = 3
    start_logs: int = 2
    # [decision] printed crates: docs/rules.md §2, after a public implementation
    start_crates: tuple[tuple[int, int], ...] = ((1, 1), (1, 2), (2, 1), (3, 1))
    # §3 rotation
    rotation_cost: int = 2
    # §5 log delivery: per delivery, whatever the number of logs
    log_delivery_cost: int = 2
    # [decision] wall bonuses, docs/rules.md §2: kind per side and its amount
    # (for "person" the amount is the highest number of heads the free person may stand for)
    wall_bonus_kind: tuple[str, ...] = ("person", "coins", "vp", "coins")
    wall_bonus_amount: tuple[int, ...] = (3, 2, 3, 2)
    # A study's device, not the printed game (docs/rules.md §7): per side, a bit mask of the seats
    # that receive its bonus (bit s = seat s). A seat left out still completes the side (its
    # defence counts) but gains nothing from it: the wall-bonus ablation (smsim bonus-value).
    wall_bonus_seats: tuple[int, ...] = (ALL_SEATS,) * N_SIDES
    side_defence: int = 2
    soldier_defence: int = 1
    # §5 cross: VP of a church series of length 1..5
    church_series_vp: tuple[int, ...] = (1, 4, 8, 13, 20)
    # §5 head: the persons' effects
    citizen_vp: int = 1
    priest_vp_per_church: int = 1
    architect_max_houses: int = 3
    house_vp: int = 3
    merchant_coins_per_crate: int = 1
    juggler_vp_per_type: int = 2
    noble_vp: int = 7
    # §6 pirates: a row has pirate_boxes_per_player * P boxes
    pirate_boxes_per_player: int = 2
    pirate_strengths: tuple[int, ...] = (1, 3, 6, 8, 10, 12)
    # §4 final scoring
    full_city_vp: int = 5
    coins_per_vp: int = 2
    vp_per_log: int = 1
    cannon_penalty: int = 5
    # [decision] §3: may a player use zero dice although a legal use exists?
    allow_pass: bool = False
    # §4: not a rule of the game but the engine's safety cap; a game reaching it is reported aborted
    max_rounds: int = 200
    # A designer's variant, not the printed game (docs/rules.md §7): compensation per seat, index =
    # seat (0 = the start player); a seat past the end of the list gets 0. Extra start coins
    # (may be negative down to -start_coins), and VP added to the final score before ranks.
    seat_coins: tuple[int, ...] = ()
    seat_vp: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for name in LATE_FIELDS:  # Rules(seat_coins=[0, np.int64(1)]) from Python: plain ints in a tuple
            values = getattr(self, name)
            if isinstance(values, (list, tuple)):
                values = tuple(int(x) if isinstance(x, np.integer) else x for x in values)
                object.__setattr__(self, name, values)
        verify_rules(self)

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_dict(cls, overrides: dict[str, Any], base: Rules | None = None) -> Rules:
        """A copy of ``base`` (default: docs/rules.md) with ``overrides`` applied and checked."""
        base = base or cls()
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for name, raw in overrides.items():
            if name not in known:
                raise RulesError(f"unknown rules field {name!r}")
            values[name] = _coerce(name, raw, getattr(base, name))
        return dataclasses.replace(base, **values)

    @classmethod
    def from_toml(cls, path: str | Path, base: Rules | None = None) -> Rules:
        """Read a variant file: a TOML table of fields to override."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RulesError(f"cannot read rules file {str(path)!r}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise RulesError(f"rules file {str(path)!r} is not valid TOML: not UTF-8 text") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RulesError(f"rules file {str(path)!r} is not valid TOML: {exc}") from None
        return cls.from_dict(data, base)

    def with_overrides(self, assignments: list[str]) -> Rules:
        """Apply ``field=value`` strings (the CLI's ``--rule``); values are TOML literals."""
        data: dict[str, Any] = {}
        for text in assignments:
            name, sep, value = text.partition("=")
            if not sep:
                raise RulesError(f"--rule {text!r}: expected field=value")
            name = name.strip()
            try:
                data[name] = tomllib.loads(f"v = {value.strip()}")["v"]
            except tomllib.TOMLDecodeError:
                data[name] = value.strip()  # a bare word such as person or true
        return Rules.from_dict(data, self)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON/TOML-able values, the form written into traces and manifests.

        The fields added since datasets were first written (``LATE_FIELDS``) are left out while
        at their default (the printed game): the rules of every trace, dataset manifest and run
        identity written before they existed stay the same, so those datasets still resume and
        report beside new ones."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in LATE_FIELDS and v == f.default:
                continue
            if isinstance(v, tuple):
                v = [list(x) if isinstance(x, tuple) else x for x in v]
            out[f.name] = v
        return out

    def to_toml(self, header: str = "") -> str:
        """The rules as a variant file (``--rules FILE``) listing every field of ``to_dict``;
        ``header`` becomes comment lines at the top."""
        lines = [f"# {line}" if line else "#" for line in header.splitlines()]
        for name, value in self.to_dict().items():
            lines.append(f"{name} = {_toml_value(value)}")
        return "\n".join(lines) + "\n"

    # -- derived numbers --------------------------------------------------------------------
    def seat_start_coins(self, seat: int) -> int:
        """The coins ``seat`` starts with: ``start_coins`` and its ``seat_coins`` (docs/rules.md §1, §7)."""
        return self.start_coins + (self.seat_coins[seat] if seat < len(self.seat_coins) else 0)

    def side_bonus(self, side: int, seat: int) -> tuple[str, int]:
        """The bonus (kind, amount) ``seat`` receives for completing ``side``: ("none", 0) where
        ``wall_bonus_seats`` leaves it out (docs/rules.md §7)."""
        if not (self.wall_bonus_seats[side] >> seat) & 1:
            return "none", 0
        return self.wall_bonus_kind[side], self.wall_bonus_amount[side]

    def pirate_row_boxes(self, n_players: int) -> int:
        """Boxes in one row of the pirate track (docs/rules.md §6)."""
        return self.pirate_boxes_per_player * n_players

    def start_crate_cells(self) -> np.ndarray:
        """The printed crates as cell indices r * 7 + c, ``int64``, for the jitted core."""
        return np.array([cell_index(r, c) for r, c in self.start_crates], dtype=np.int64)

    def to_nb(self) -> np.ndarray:
        """The flat ``int64`` vector the jitted core reads, indexed by the ``R_*`` constants."""
        at = RULES_RECORD.offset
        v = np.zeros(RULES_RECORD.size, dtype=np.int64)
        for name, width, _ in RULES_RECORD.fields:
            if width == 1 and name != "n_pirate_rows":
                v[at(name)] = int(getattr(self, name))
        for side in Side:
            v[at("wall_bonus_kind") + side] = BONUS_KINDS.index(self.wall_bonus_kind[side])
            v[at("wall_bonus_amount") + side] = self.wall_bonus_amount[side]
            v[at("wall_bonus_seats") + side] = self.wall_bonus_seats[side]
        v[at("church_series_vp")] = 0  # a series of length 0
        v[at("church_series_vp") + 1 : at("church_series_vp") + 6] = self.church_series_vp
        v[at("n_pirate_rows")] = len(self.pirate_strengths)
        v[at("pirate_strengths") : at("pirate_strengths") + len(self.pirate_strengths)] = self.pirate_strengths
        for name in SEAT_FIELDS:  # zeros past the list
            values = getattr(self, name)
            v[at(name) : at(name) + len(values)] = values
        return v


def _toml_value(value: Any) -> str:
    """A TOML literal of a rules value: a bool, whole number, word or (nested) list of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


# Layout of Rules.to_nb(); the jitted core reads rules[R_*].
RULES_RECORD = Record(
    "rules",
    "R_",
    "N_RULE_FIELDS",
    (
        ("start_coins", 1, ""),
        ("start_logs", 1, ""),
        ("rotation_cost", 1, ""),
        ("log_delivery_cost", 1, ""),
        ("side_defence", 1, ""),
        ("soldier_defence", 1, ""),
        ("citizen_vp", 1, ""),
        ("priest_vp_per_church", 1, ""),
        ("architect_max_houses", 1, ""),
        ("house_vp", 1, ""),
        ("merchant_coins_per_crate", 1, ""),
        ("juggler_vp_per_type", 1, ""),
        ("noble_vp", 1, ""),
        ("pirate_boxes_per_player", 1, ""),
        ("n_pirate_rows", 1, "len(pirate_strengths)"),
        ("full_city_vp", 1, ""),
        ("coins_per_vp", 1, ""),
        ("vp_per_log", 1, ""),
        ("cannon_penalty", 1, ""),
        ("allow_pass", 1, "0 or 1"),
        ("max_rounds", 1, ""),
        ("wall_bonus_kind", N_SIDES, "a BonusKind per side, in Side order"),
        ("wall_bonus_amount", N_SIDES, "in Side order"),
        ("church_series_vp", 6, "VP of a series of length 0..5"),
        ("pirate_strengths", MAX_PIRATE_ROWS, "the strength of each row, zeros past the last"),
        ("seat_coins", MAX_PLAYERS, "extra start coins per seat, zeros past the list"),
        ("seat_vp", MAX_PLAYERS, "VP added to each seat's final score, zeros past the list"),
        ("wall_bonus_seats", N_SIDES, "per side in Side order, the mask of the seats that receive its bonus"),
    ),
)
RULES_RECORD.export(globals())


# the per-seat compensation fields: a designer's variant, empty in the printed game
SEAT_FIELDS = ("seat_coins", "seat_vp")
# fields added after datasets were first written: Rules.to_dict leaves them out at their default
LATE_FIELDS = (*SEAT_FIELDS, "wall_bonus_seats")

FIELD_MEANING: dict[str, str] = {
    "start_coins": "the coins each player starts with",
    "start_logs": "the logs each player starts with",
    "start_crates": "the crates printed on each city at the start",
    "rotation_cost": "the coins a player pays to turn a die to another face",
    "log_delivery_cost": "the coins a delivery of logs costs",
    "wall_bonus_kind": "what completing each wall side gives (top, right, bottom, left)",
    "wall_bonus_amount": "how much each wall side's bonus gives (top, right, bottom, left)",
    "wall_bonus_seats": "the seats that receive each side's bonus",
    "side_defence": "the defence a completed wall side adds against the pirates",
    "soldier_defence": "the defence each soldier adds against the pirates",
    "church_series_vp": "the VP of a church series of 1 to 5 churches",
    "citizen_vp": "the VP of each citizen",
    "priest_vp_per_church": "the VP a priest scores per church",
    "architect_max_houses": "the most houses an architect builds",
    "house_vp": "the VP of each house",
    "merchant_coins_per_crate": "the coins a merchant earns per crate",
    "juggler_vp_per_type": "the VP a juggler scores per type of person",
    "noble_vp": "the VP of each noble",
    "pirate_boxes_per_player": "the boxes of each pirate row per player",
    "pirate_strengths": "the attack strength of each pirate row",
    "full_city_vp": "the VP for a city with every space built",
    "coins_per_vp": "the coins that score one VP at the end",
    "vp_per_log": "the VP each log left scores at the end",
    "cannon_penalty": "the VP a player loses for each cannon lost to the pirates",
    "allow_pass": "whether a player may use no die although a use exists",
    "max_rounds": "the engine's cap on rounds",
    "seat_coins": "the extra start coins of each seat, the start player first",
    "seat_vp": "the VP added to each seat's final score, the start player first",
}
"""What each rules field means, in a phrase of the game's words: a variant's plain sentence
(``studies.sweep.variant_sentence``) says what it changes with it."""

# -- validation -------------------------------------------------------------------------------
_NON_NEGATIVE = (
    "start_coins",
    "start_logs",
    "rotation_cost",
    "log_delivery_cost",
    "side_defence",
    "soldier_defence",
    "citizen_vp",
    "priest_vp_per_church",
    "architect_max_houses",
    "house_vp",
    "merchant_coins_per_crate",
    "juggler_vp_per_type",
    "noble_vp",
    "full_city_vp",
    "vp_per_log",
    "cannon_penalty",
)


MAX_NUMBER = 10**9  # the largest number of any field: far beyond any game, far from int64 overflow


def _fail(name: str, what: str) -> None:
    raise RulesError(f"rules field {name!r}: {what}")


def _coerce(name: str, raw: Any, default: Any) -> Any:
    """Turn a TOML value into the field's type, refusing anything of another shape."""
    if isinstance(default, bool):
        if not isinstance(raw, bool):
            if isinstance(raw, str) and raw.lower() in ("true", "false"):
                return raw.lower() == "true"
            _fail(name, f"must be true or false, got {raw!r}")
        return raw
    if isinstance(default, int):
        if isinstance(raw, bool) or not isinstance(raw, int):
            _fail(name, f"must be a whole number, got {raw!r}")
        return raw
    if isinstance(default, tuple):
        if not isinstance(raw, (list, tuple)):
            _fail(name, f"must be a list, got {raw!r}")
        if name == "start_crates":
            cells = []
            for item in raw:
                if (
                    not isinstance(item, (list, tuple))
                    or len(item) != 2
                    or not all(isinstance(x, int) and not isinstance(x, bool) for x in item)
                ):
                    _fail(name, f"each crate must be [row, column], got {item!r}")
                cells.append((int(item[0]), int(item[1])))
            return tuple(cells)
        kind = str if name == "wall_bonus_kind" else int
        for item in raw:
            if kind is int and (isinstance(item, bool) or not isinstance(item, int)):
                _fail(name, f"must be a list of whole numbers, got {raw!r}")
            if kind is str and not isinstance(item, str):
                _fail(name, f"must be a list of words, got {raw!r}")
        return tuple(raw)
    raise AssertionError(f"no coercion for field {name}")  # pragma: no cover


def verify_rules(rules: Rules) -> None:
    """Raise :class:`RulesError` naming the first field that cannot be played."""
    for f in fields(rules):  # the jitted core reads every number as an int64 (Rules.to_nb) and adds them up
        value = getattr(rules, f.name)
        for x in value if isinstance(value, tuple) else (value,):
            if isinstance(x, int) and not isinstance(x, bool) and abs(x) > MAX_NUMBER:
                _fail(f.name, f"must be from -{MAX_NUMBER:,} to {MAX_NUMBER:,}, got {x}")
    for name in _NON_NEGATIVE:
        value = getattr(rules, name)
        if value < 0:
            _fail(name, f"must be >= 0, got {value}")
    if rules.pirate_boxes_per_player < 1:
        _fail("pirate_boxes_per_player", f"a pirate row needs at least 1 box, got {rules.pirate_boxes_per_player}")
    if not 1 <= len(rules.pirate_strengths) <= MAX_PIRATE_ROWS:
        _fail("pirate_strengths", f"must list 1 to {MAX_PIRATE_ROWS} row strengths, got {len(rules.pirate_strengths)}")
    if any(s < 0 for s in rules.pirate_strengths):
        _fail("pirate_strengths", "strengths must be >= 0")
    if len(rules.church_series_vp) != 5:
        _fail("church_series_vp", f"must list 5 values (series of length 1 to 5), got {len(rules.church_series_vp)}")
    if any(v < 0 for v in rules.church_series_vp):
        _fail("church_series_vp", "values must be >= 0")
    if len(rules.wall_bonus_kind) != N_SIDES:
        _fail("wall_bonus_kind", f"must list {N_SIDES} kinds ({', '.join(SIDE_NAMES)})")
    for kind in rules.wall_bonus_kind:
        if kind not in BONUS_KINDS:
            _fail("wall_bonus_kind", f"unknown bonus {kind!r}; expected one of {', '.join(BONUS_KINDS)}")
    if len(rules.wall_bonus_amount) != N_SIDES:
        _fail("wall_bonus_amount", f"must list {N_SIDES} amounts ({', '.join(SIDE_NAMES)})")
    for kind, amount in zip(rules.wall_bonus_kind, rules.wall_bonus_amount):
        if amount < 0:
            _fail("wall_bonus_amount", f"must be >= 0, got {amount}")
        if kind == "person" and not 1 <= amount <= 5:
            _fail("wall_bonus_amount", f"a person bonus stands for 1 to 5 heads, got {amount}")
    masks = rules.wall_bonus_seats
    if not isinstance(masks, tuple) or any(isinstance(x, bool) or not isinstance(x, int) for x in masks):
        _fail("wall_bonus_seats", f"must be a list of whole numbers, got {masks!r}")
    if len(masks) != N_SIDES:
        _fail("wall_bonus_seats", f"must list {N_SIDES} seat masks ({', '.join(SIDE_NAMES)})")
    for side, mask in zip(SIDE_NAMES, rules.wall_bonus_seats):
        if not 0 <= mask <= ALL_SEATS:
            _fail("wall_bonus_seats", f"the {side} mask must be from 0 to {ALL_SEATS} (bit s = seat s), got {mask}")
    if rules.coins_per_vp < 1:
        _fail("coins_per_vp", f"must be >= 1, got {rules.coins_per_vp}")
    if rules.max_rounds < 1:
        _fail("max_rounds", f"must be >= 1, got {rules.max_rounds}")
    if rules.architect_max_houses > 5:
        _fail("architect_max_houses", f"must be <= 5, got {rules.architect_max_houses}")
    seen = set()
    for r, c in rules.start_crates:
        if not (0 <= r < SIZE and 0 <= c < SIZE):
            _fail("start_crates", f"crate ({r}, {c}) is off the {SIZE} x {SIZE} grid")
        if cell_index(r, c) in CORNERS:
            _fail("start_crates", f"crate ({r}, {c}) is on a tower")
        if (r, c) in seen:
            _fail("start_crates", f"crate ({r}, {c}) is listed twice")
        seen.add((r, c))
    if len(seen) >= N_SPACES:
        _fail("start_crates", "the printed crates may not fill the whole city")
    for name in SEAT_FIELDS:
        values = getattr(rules, name)
        if not isinstance(values, tuple) or any(isinstance(x, bool) or not isinstance(x, int) for x in values):
            _fail(name, f"must be a list of whole numbers, got {values!r}")
        if len(values) > MAX_PLAYERS:
            _fail(name, f"at most {MAX_PLAYERS} values (one per seat, the start player first), got {len(values)}")
    for seat, extra in enumerate(rules.seat_coins):
        if rules.start_coins + extra < 0:
            _fail(
                "seat_coins",
                f"seat {seat} would start with {rules.start_coins + extra} coins "
                f"(start_coins {rules.start_coins} + {extra}); a seat starts with >= 0",
            )


def normalised(fields_: dict[str, Any]) -> dict[str, Any]:
    """A rules dict as written into a manifest, in today's form: fields added to ``Rules`` since it
    was written take their defaults (docs/rules.md), so a dataset keeps its identity across
    versions. A dict this version cannot read is returned as it is (and compares unequal)."""
    try:
        return Rules.from_dict(fields_).to_dict()
    except (RulesError, TypeError, AttributeError):
        return fields_


def load_rules(path: str | Path | None = None, overrides: list[str] | None = None) -> Rules:
    """docs/rules.md, or the variant at ``path``, with ``field=value`` overrides applied."""
    rules = Rules.from_toml(path) if path else Rules()
    if overrides:
        rules = rules.with_overrides(list(overrides))
    return rules
