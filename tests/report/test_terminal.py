"""The terminal's tables (smsim.report.terminal): what a run prints, one way for every interval."""

import io

from rich.console import Console

from smsim.report.terminal import print_tables
from smsim.runs.batch import simulate
from smsim.runs.summary import summary_tables


def test_the_printed_breakdown_shows_seat_compensation_only_where_there_is_some():
    from smsim.rules import Rules

    def printed(rules):
        buf = io.StringIO()
        seats, games = simulate(200, 2, ["balanced"], seed=6, rules=rules)
        print_tables(summary_tables(seats, games), console=Console(file=buf, width=200))
        return buf.getvalue()

    assert "seat compensation" not in printed(Rules())
    assert "seat compensation" in printed(Rules(seat_vp=(0, 2)))


def _printed(seats, games) -> str:
    buf = io.StringIO()
    print_tables(summary_tables(seats, games), console=Console(file=buf, width=200))
    return buf.getvalue()


def test_a_line_up_of_fixed_seats_says_its_rates_mix_policy_and_seat():
    """Distinct policies each in one seat: the policy rates are seat rates too, so the printout
    says so and points at compare, and the seat table (the same rows again) is left out."""
    fixed = _printed(*simulate(200, 3, ["balanced", "greedy", "walls"], seed=6))
    assert "mix the policy's strength with its seat's edge" in fixed and "smsim compare balanced greedy walls" in fixed
    assert "Results by seat" not in fixed
    mirror = _printed(*simulate(200, 3, ["balanced"], seed=6))
    assert "Results by seat" in mirror and "seat's edge" not in mirror
    shared = _printed(*simulate(200, 4, ["balanced", "greedy", "balanced", "greedy"], seed=6))
    assert "Results by seat" in shared and "seat's edge" not in shared  # two seats each: by seat says more


def test_intervals_print_as_value_and_bounds():
    import re

    out = _printed(*simulate(200, 2, ["balanced"], seed=6))
    assert re.search(r"\d+\.\d% \[\d+\.\d, \d+\.\d\]", out)  # 51.5% [46.6, 56.4]
    assert "±" not in out and " - " not in out.replace(" / ", "")
