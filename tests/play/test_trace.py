"""Trace records follow docs/trace.md."""

import itertools
import json

from smsim.play.api import play_game
from smsim.play.trace import read_jsonl, series_lengths, write_jsonl

TURN_KEYS = {"type", "round", "seat", "rolls", "rerolled", "use", "rotation_cost", "delivery_cost", "cells",
             "houses", "bonuses", "swords", "attacks", "after", "decisions"}  # fmt: skip
SCORE_KEYS = {"seat", "earned", "churches", "series", "church_vp", "coins", "logs", "cannons", "full_city",
              "seat_vp", "total", "empty", "rank", "won", "shared"}  # fmt: skip


def test_series_lengths_longest_first():
    assert series_lengths([1, 1, 0, 0, 1]) == [5, 2, 1]
    assert series_lengths([0, 0, 0, 0, 0]) == []


def test_records_have_the_documented_shape(tmp_path):
    records = play_game(5, 3, 1, ["greedy", "random"] * 2 + ["greedy"]).records
    assert records[0]["type"] == "game" and records[0]["players"] == 5
    turns = records[1:-1]
    assert all(set(t) == TURN_KEYS for t in turns)
    assert all(1 <= len(t["rolls"]) <= 3 and len(t["rerolled"]) == len(t["rolls"]) - 1 for t in turns)
    assert all(len(t["after"]) == 5 for t in turns)
    assert sum(len(t["attacks"]) for t in turns) <= 6
    assert any(t["attacks"] and len(t["attacks"][0]["defence"]) == 5 for t in turns)
    end = records[-1]
    assert all(set(sc) == SCORE_KEYS for sc in end["scores"])
    assert all(len(city.splitlines()) == 7 for city in end["cities"])
    path = tmp_path / "t.jsonl"
    with open(path, "w") as fh:
        write_jsonl(records, fh)
    assert list(read_jsonl(path.read_text().splitlines())) == json.loads(json.dumps(records))


def test_turns_number_their_decisions_contiguously_and_the_end_counts_them():
    """Turn i asked decisions [first, end): numbering starts at 0, each turn starts where the
    last ended, the end line holds the total, and each turn asked at least its keep-or-roll
    questions, the use of the dice and one placement per cell the action filled."""
    records = play_game(4, 11, 2, ["balanced", "random", "greedy", "walls"]).records
    turns, end = records[1:-1], records[-1]
    assert turns[0]["decisions"][0] == 0
    for a, b in itertools.pairwise(turns):
        assert a["decisions"][1] == b["decisions"][0]
    assert turns[-1]["decisions"][1] == end["decisions"]
    for t in turns:
        first, stop = t["decisions"]
        keeps = len(t["rerolled"]) + (1 if len(t["rolls"]) < 3 else 0)
        assert stop - first >= keeps + 1 + len(t["cells"]) + len(t["houses"])
