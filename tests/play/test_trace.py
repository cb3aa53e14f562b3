"""Trace records follow docs/trace.md; a trace file is read by one reader (play/tracefile.py)."""

import itertools
import json
import pickle

import pytest

from smsim.errors import SmsimError, TraceError
from smsim.play.api import play_game
from smsim.play.trace import series_lengths
from smsim.play.tracefile import iter_jsonl, read_jsonl, write_jsonl

TURN_KEYS = {
    "type",
    "round",
    "seat",
    "rolls",
    "rerolled",
    "use",
    "rotation_cost",
    "delivery_cost",
    "cells",
    "houses",
    "bonuses",
    "swords",
    "attacks",
    "after",
    "decisions",
}
SCORE_KEYS = {
    "seat",
    "earned",
    "churches",
    "series",
    "church_vp",
    "coins",
    "logs",
    "cannons",
    "full_city",
    "seat_vp",
    "total",
    "empty",
    "rank",
    "won",
    "shared",
}


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
    assert read_jsonl(path) == json.loads(json.dumps(records))


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


# -- the reader ----------------------------------------------------------------------------------
def refused(path) -> TraceError:
    with pytest.raises(TraceError) as info:
        read_jsonl(path)
    assert isinstance(info.value, SmsimError) and "\n" not in str(info.value)
    return info.value


def test_a_good_file_is_read_in_order_with_line_numbers(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type": "game", "seed": 1}\n{"type": "turn"}\r\n{"type": "end"}')  # CRLF; no last newline
    assert read_jsonl(path) == [{"type": "game", "seed": 1}, {"type": "turn"}, {"type": "end"}]
    assert [n for n, _ in iter_jsonl(str(path))] == [1, 2, 3]


def test_blank_lines_are_skipped_and_counted(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('\n{"type": "game"}\n   \n\n{"type": "end"}\n\n')
    assert list(iter_jsonl(path)) == [(2, {"type": "game"}), (5, {"type": "end"})]


def test_a_line_cut_off_names_the_file_and_the_line(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text('{"type": "game"}\n{"type": "turn", "seat": 0}\n{"type": "end", "sco')
    error = refused(path)
    assert str(error) == f"{str(path)!r} is not a trace (docs/trace.md): line 3: cut off, the file ends inside it"
    assert error.detail == "line 3: cut off, the file ends inside it"


def test_the_records_before_a_bad_line_are_read(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"type": "game"}\n{"type": "turn"\n{"type": "end"}\n')
    lines = iter_jsonl(path)
    assert next(lines) == (1, {"type": "game"})
    with pytest.raises(TraceError, match=r"line 2: not valid JSON \(Expecting ',' delimiter: column 16\)$"):
        next(lines)


@pytest.mark.parametrize(
    "content, detail",
    [
        (b"", "the file is empty"),
        (b"\n \n\t\n", "the file has only blank lines"),
        (b'{"type": "game"}\nseat,policy\n', "line 2: not valid JSON (Expecting value: column 1)"),
        (b'{"type": "game"}\n[1, 2]\n', "line 2: an array, not an object"),
        (b'"game"\n', "line 1: a string, not an object"),
        (b'{"type": "game"}\n\xff\xfe\n', "line 2: not UTF-8 text"),
    ],
)
def test_a_file_that_is_not_a_trace_is_refused_in_one_line(tmp_path, content, detail):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    error = refused(path)
    assert error.detail == detail
    assert str(error) == f"{str(path)!r} is not a trace (docs/trace.md): {detail}"


def test_a_missing_file_is_refused(tmp_path):
    path = tmp_path / "nope.jsonl"
    error = refused(path)
    assert str(error) == error.detail == f"cannot read trace {str(path)!r}: No such file or directory"
    assert "cannot read trace" in str(refused(tmp_path))  # a directory


def test_a_trace_error_survives_pickling():
    error = pickle.loads(pickle.dumps(TraceError("'x' is not a trace (docs/trace.md): line 1: ...", "line 1: ...")))
    assert str(error).endswith("line 1: ...") and error.detail == "line 1: ..."
