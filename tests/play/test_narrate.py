"""The readable account of ``smsim play``."""

from smsim.play.api import play_game
from smsim.play.narrate import narrate


def test_every_turn_is_told_and_the_cities_drawn_match_the_end():
    records = play_game(3, 12, 0, ["greedy", "random", "greedy"]).records
    text = narrate(records)
    n_turns = len(records) - 2
    assert (
        text.count("seat 0 (greedy): rolled")
        + text.count("seat 1 (random): rolled")
        + text.count("seat 2 (greedy): rolled")
        == n_turns
    )
    # the last drawing, rebuilt from the turns, is the engine's final cities
    lines = text.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("seat 0 ") and "seat 1" in line)
    drawn = lines[start + 1 : start + 8]
    for s, city in enumerate(records[-1]["cities"]):
        mine = [row.split("    ")[s] for row in drawn]
        assert mine == city.splitlines()
    assert "Game over after" in text


def test_quiet_prints_only_the_result():
    records = play_game(2, 1, 0, ["greedy"]).records
    text = narrate(records, quiet=True)
    assert "Round 1" not in text and "Game over" in text
