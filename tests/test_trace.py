"""Trace records follow docs/trace.md."""

import json

from smsim.sim import play_game
from smsim.trace import read_jsonl, series_lengths, write_jsonl

TURN_KEYS = {"type", "round", "seat", "rolls", "rerolled", "use", "rotation_cost", "delivery_cost", "cells",
             "houses", "bonuses", "swords", "attacks", "after"}  # fmt: skip
SCORE_KEYS = {"seat", "earned", "churches", "series", "church_vp", "coins", "logs", "cannons", "full_city",
              "total", "empty", "rank", "won", "shared"}  # fmt: skip


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
