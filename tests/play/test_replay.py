"""The replay page's data (play/replay.py): every step of games at every player count against the
engine's own figures of each turn and its final cities, and traces that cannot be replayed
refused in one line."""

import copy

import pytest

from smsim.errors import TraceError
from smsim.play.api import play_game
from smsim.play.referee import format_city, start_city
from smsim.play.replay import games_of, replay_game, vp_by_round
from smsim.rules import Rules

GAMES = [
    (2, 11, ["balanced", "greedy"]),
    (3, 12, ["random"]),
    (4, 13, ["learned", "balanced", "walls", "random"]),
    (5, 14, ["greedy"]),
]


@pytest.fixture(scope="module", params=GAMES, ids=[f"{g[0]}p" for g in GAMES])
def played(request):
    players, seed, policies = request.param
    records = play_game(players, seed, 0, policies, Rules()).records
    return records, replay_game(games_of(records)[0])


def letters(text: str) -> str:
    return text.replace(" ", "").replace("\n", "")


def test_every_step_agrees_with_the_engines_own_figures_of_each_turn(played):
    records, data = played
    turns = [r for r in records if r["type"] == "turn"]
    assert len(data["steps"]) == len(turns) + 1
    start = letters(format_city(start_city(Rules())))
    assert all(seat["city"] == start for seat in data["steps"][0]["seats"])
    for step, turn in zip(data["steps"][1:], turns):
        assert (step["turn"]["round"], step["turn"]["seat"], step["turn"]["rolls"]) == (
            turn["round"],
            turn["seat"],
            turn["rolls"],
        )
        for seat, engine in zip(step["seats"], turn["after"]):
            assert (seat["coins"], seat["logs"], seat["vp"], seat["cannons_lost"], seat["defence"]) == (
                engine["coins"],
                engine["logs"],
                engine["vp"],
                engine["cannons"],
                engine["defence"],
            )
    end = next(r for r in records if r["type"] == "end")
    assert [s["city"] for s in data["steps"][-1]["seats"]] == [letters(c) for c in end["cities"]]
    assert [s["score"] for s in data["steps"][-1]["seats"]] == [s["total"] for s in end["scores"]]


def test_the_course_is_the_score_at_each_rounds_start_and_at_the_end(played):
    records, data = played
    end = next(r for r in records if r["type"] == "end")
    course = vp_by_round(data)
    rules = Rules()
    at_start = rules.start_coins // rules.coins_per_vp + rules.start_logs * rules.vp_per_log  # what a seat holds
    assert len(course) == end["rounds"] + 1 and course[0] == [at_start] * data["header"]["players"]
    assert course[-1] == [s["total"] for s in end["scores"]]


def test_a_trace_that_cannot_be_replayed_is_refused_in_one_line():
    records = play_game(2, 3, 0, ["balanced"], Rules()).records
    game = games_of(records)[0]
    bad = copy.deepcopy(game)
    bad[3]["after"][0]["coins"] += 1
    with pytest.raises(TraceError, match="after: seat 0 coins expected") as err:
        replay_game(bad, "game.jsonl")
    assert "\n" not in str(err.value) and str(err.value).startswith("game.jsonl: ")
    with pytest.raises(TraceError, match="has no end line"):
        replay_game(game[:-1])
    with pytest.raises(TraceError, match='expected a "game" line'):
        replay_game([{"type": "turn"}])
