"""The rules configuration (docs/rules.md §7)."""

import numpy as np
import pytest

from smsim.errors import RulesError
from smsim.rules import Rules, load_rules


def test_defaults_are_rules_md():
    r = Rules()
    assert (r.start_coins, r.start_logs) == (3, 2)
    assert r.start_crates == ((1, 1), (1, 2), (2, 1), (3, 1))
    assert (r.rotation_cost, r.log_delivery_cost) == (2, 2)
    assert r.wall_bonus_kind == ("person", "coins", "vp", "coins")
    assert r.wall_bonus_amount == (3, 2, 3, 2)
    assert (r.side_defence, r.soldier_defence) == (2, 1)
    assert r.church_series_vp == (1, 4, 8, 13, 20)
    assert (r.citizen_vp, r.priest_vp_per_church, r.house_vp, r.noble_vp) == (1, 1, 3, 7)
    assert (r.architect_max_houses, r.merchant_coins_per_crate, r.juggler_vp_per_type) == (3, 1, 2)
    assert r.pirate_strengths == (1, 3, 6, 8, 10, 12)
    assert [r.pirate_row_boxes(p) for p in (2, 3, 4, 5)] == [4, 6, 8, 10]
    assert (r.full_city_vp, r.coins_per_vp, r.vp_per_log, r.cannon_penalty) == (5, 2, 1, 5)
    assert r.allow_pass is False


def test_variant_file_overrides_some_fields(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text('rotation_cost = 3\nallow_pass = true\nwall_bonus_kind = ["vp", "vp", "vp", "vp"]\n')
    r = load_rules(path)
    assert (r.rotation_cost, r.allow_pass, r.wall_bonus_kind) == (3, True, ("vp",) * 4)
    assert r.start_coins == 3


def test_rule_overrides_from_the_command_line():
    r = load_rules(None, ["allow_pass=true", "pirate_strengths=[2, 4]", "cannon_penalty=4"])
    assert r.allow_pass and r.pirate_strengths == (2, 4) and r.cannon_penalty == 4


def test_to_dict_round_trips():
    r = Rules(start_crates=((1, 3),), rotation_cost=1)
    assert Rules.from_dict(r.to_dict()) == r


@pytest.mark.parametrize(
    "overrides, field",
    [
        ({"colour": 3}, "unknown rules field 'colour'"),
        ({"rotation_cost": "two"}, "'rotation_cost': must be a whole number"),
        ({"rotation_cost": -2}, "'rotation_cost': must be >= 0"),
        ({"log_delivery_cost": -1}, "'log_delivery_cost': must be >= 0"),
        ({"pirate_boxes_per_player": 0}, "'pirate_boxes_per_player': a pirate row needs at least 1 box"),
        ({"church_series_vp": [1, 4, 8, 13]}, "'church_series_vp': must list 5 values"),
        ({"start_crates": [[7, 1]]}, "'start_crates': crate \\(7, 1\\) is off the 7 x 7 grid"),
        ({"start_crates": [[0, 0]]}, "'start_crates': crate \\(0, 0\\) is on a tower"),
        ({"start_crates": [[1]]}, "'start_crates': each crate must be"),
        ({"wall_bonus_kind": ["vp", "gold", "vp", "vp"]}, "'wall_bonus_kind': unknown bonus 'gold'"),
        ({"allow_pass": 3}, "'allow_pass': must be true or false"),
        ({"pirate_strengths": []}, "'pirate_strengths': must list 1 to"),
        ({"seat_coins": 2}, "'seat_coins': must be a list"),
        ({"seat_coins": [0, 1.5]}, "'seat_coins': must be a list of whole numbers"),
        ({"seat_coins": [0, 1, 1, 2, 2, 3]}, "'seat_coins': at most 5 values"),
        ({"seat_coins": [0, 0, -4]}, "'seat_coins': seat 2 would start with -1 coins"),
        ({"start_coins": 1, "seat_coins": [0, -2]}, "'seat_coins': seat 1 would start with -1 coins"),
        ({"seat_vp": [0, True]}, "'seat_vp': must be a list of whole numbers"),
        ({"seat_vp": [0, 1, 2, 3, 4, 5]}, "'seat_vp': at most 5 values"),
        ({"side_defence": 10**40}, "'side_defence': must be from -1,000,000,000 to 1,000,000,000"),
        ({"seat_vp": [0, -(2**63)]}, "'seat_vp': must be from"),
        ({"pirate_strengths": [1, 3, 2**64]}, "'pirate_strengths': must be from"),
        ({"wall_bonus_seats": 31}, "'wall_bonus_seats': must be a list"),
        ({"wall_bonus_seats": [31, 31, 31]}, "'wall_bonus_seats': must list 4 seat masks"),
        ({"wall_bonus_seats": [31, 32, 31, 31]}, "'wall_bonus_seats': the right mask must be from 0 to 31"),
        ({"wall_bonus_seats": [31, 31, 31, -1]}, "'wall_bonus_seats': the left mask must be from 0 to 31"),
        ({"wall_bonus_seats": [31, 31, False, 31]}, "'wall_bonus_seats': must be a list of whole numbers"),
    ],
)
def test_impossible_values_are_refused_naming_the_field(overrides, field):
    with pytest.raises(RulesError, match=field):
        Rules.from_dict(overrides)


def test_bad_toml_and_missing_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("rotation_cost = = 2")
    with pytest.raises(RulesError, match="is not valid TOML"):
        load_rules(bad)
    with pytest.raises(RulesError, match="cannot read rules file"):
        load_rules(tmp_path / "missing.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    with pytest.raises(RulesError, match="is not valid TOML: not UTF-8 text"):
        load_rules(binary)


# -- seat compensation: a designer's variant (docs/rules.md §7) -------------------------------------
def test_seat_compensation_defaults_to_none_and_stays_out_of_to_dict():
    """The printed game has none; its rules dict (traces, manifests, run identities) is as before."""
    r = Rules()
    assert r.seat_coins == () and r.seat_vp == ()
    assert "seat_coins" not in r.to_dict() and "seat_vp" not in r.to_dict()
    c = Rules(seat_coins=(0, 1), seat_vp=(0, -1, 2))
    assert c.to_dict()["seat_coins"] == [0, 1] and c.to_dict()["seat_vp"] == [0, -1, 2]
    assert Rules.from_dict(c.to_dict()) == c


def test_seat_compensation_from_toml_and_the_command_line(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text("seat_coins = [0, 1, 2, 3]\nseat_vp = [0, -1]\n")
    assert load_rules(path).seat_coins == (0, 1, 2, 3) and load_rules(path).seat_vp == (0, -1)
    r = load_rules(None, ["seat_coins=[0,1,2,3]", "seat_vp=[0, 2]"])
    assert (r.seat_coins, r.seat_vp) == ((0, 1, 2, 3), (0, 2))
    assert Rules(seat_coins=[0, np.int64(2)]).seat_coins == (0, 2)  # a list from Python: plain ints
    assert type(Rules(seat_coins=[0, np.int64(2)]).seat_coins[1]) is int


def test_negative_seat_coins_down_to_zero_start_coins_are_allowed():
    r = Rules(seat_coins=(0, -3))
    assert [r.seat_start_coins(s) for s in range(4)] == [3, 0, 3, 3]


def test_seat_compensation_in_the_engine_vector():
    """to_nb: one entry per seat up to 5, zeros past the list."""
    from smsim import rules as R

    v = Rules(seat_coins=(0, 1, 2), seat_vp=(0, -3)).to_nb()
    assert R.RULES_RECORD.width("seat_coins") == R.RULES_RECORD.width("seat_vp") == 5
    assert list(v[R.R_SEAT_COINS : R.R_SEAT_COINS + 5]) == [0, 1, 2, 0, 0]
    assert list(v[R.R_SEAT_VP : R.R_SEAT_VP + 5]) == [0, -3, 0, 0, 0]
    assert not Rules().to_nb()[R.R_SEAT_COINS : R.R_SEAT_VP + 5].any()


# -- wall_bonus_seats: the wall-bonus ablation's device (docs/rules.md §7) ------------------------------
def test_wall_bonus_seats_default_to_every_seat_and_stay_out_of_to_dict():
    """The printed game gives every seat every bonus; its rules dict is as before the field existed,
    and a manifest written before it (no such key) reads as the printed game."""
    from smsim.rules import normalised

    r = Rules()
    assert r.wall_bonus_seats == (31, 31, 31, 31)
    assert "wall_bonus_seats" not in r.to_dict() and "wall_bonus_seats" not in r.to_toml()
    assert normalised(r.to_dict()) == r.to_dict() and Rules.from_dict(r.to_dict()) == r
    d = Rules(wall_bonus_seats=(31, 29, 31, 31))
    assert d.to_dict()["wall_bonus_seats"] == [31, 29, 31, 31] and Rules.from_dict(d.to_dict()) == d
    assert load_rules(None, ["wall_bonus_seats=[31, 29, 31, 31]"]) == d
    assert type(Rules(wall_bonus_seats=[31, np.int64(29), 31, 31]).wall_bonus_seats[1]) is int


def test_side_bonus_names_what_a_seat_receives():
    r = Rules(wall_bonus_seats=(31 & ~0b100, 31, 31, 0))
    assert r.side_bonus(0, 0) == ("person", 3) and r.side_bonus(0, 2) == ("none", 0)
    assert r.side_bonus(1, 2) == ("coins", 2) and all(r.side_bonus(3, s) == ("none", 0) for s in range(5))


def test_wall_bonus_seats_in_the_engine_vector():
    from smsim import rules as R

    v = Rules(wall_bonus_seats=(1, 2, 4, 8)).to_nb()
    assert list(v[R.R_WALL_BONUS_SEATS : R.R_WALL_BONUS_SEATS + 4]) == [1, 2, 4, 8]
    assert list(Rules().to_nb()[R.R_WALL_BONUS_SEATS : R.R_WALL_BONUS_SEATS + 4]) == [31] * 4
