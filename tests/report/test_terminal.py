"""The terminal's tables (smsim.report.terminal): what a run prints, one way for every interval."""

import io
import re

import numpy as np
import pandas as pd
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
    out = _printed(*simulate(200, 2, ["balanced"], seed=6))
    assert re.search(r"\d+\.\d% \[\d+\.\d, \d+\.\d\]", out)  # 51.5% [46.6, 56.4]
    assert "±" not in out and " - " not in out.replace(" / ", "")


def test_the_terminal_writes_intervals_and_missing_figures_one_way():
    """Every cell of a figure with its interval is ``intervals.interval_text``'s, and a missing
    figure the one mark ``intervals.MISSING``, not "nan" or a hyphen."""
    from smsim.intervals import MISSING, interval_text

    tables = summary_tables(*simulate(200, 2, ["balanced"], seed=6))
    row = tables["by_seat"].iloc[0]
    seat0 = interval_text(row.win_rate, row.win_lo, row.win_hi, scale=100, unit="%")
    tables["by_policy"].loc[:, ["win_rate", "vp_mean"]] = np.nan
    tables["church_series"].loc[:, "longest_0"] = np.nan
    buf = io.StringIO()
    print_tables(tables, console=Console(file=buf, width=200))
    out = buf.getvalue()
    assert seat0 in out and re.search(r"\d+\.\d% \[\d+\.\d, \d+\.\d\]", seat0)
    by_policy = next(line for line in out.splitlines() if line.startswith("│") and "balanced" in line)
    assert by_policy.count(MISSING) == 2 and "nan" not in out.lower()
    series = out[out.index("Longest church series") :].splitlines()
    assert any(MISSING in line and "balanced" in line for line in series)


def test_the_sweep_table_writes_a_missing_baseline_value_as_the_one_mark():
    from smsim.intervals import MISSING
    from smsim.report.terminal import print_sweep
    from smsim.studies.sweep import BASELINE, HEADLINE

    rows = []
    for k, key in enumerate(HEADLINE):
        unit = (
            "points"
            if key == "start_edge"
            else "rate"
            if key in ("cannons_changed_winner", "church_vp_share")
            else "vp"
        )
        for variant in (BASELINE, "other"):
            rows.append(
                {
                    "variant": variant,
                    "metric": key,
                    "label": key,
                    "unit": unit,
                    "group": "game",
                    "value": np.nan if k == 0 else 0.25,
                    "lo": 0.2,
                    "hi": 0.3,
                    "diff": 0.01,
                    "diff_lo": -0.01,
                    "diff_hi": 0.03,
                    "unpaired_lo": -0.05,
                    "unpaired_hi": 0.07,
                    "narrower": 3.0,
                }
            )
    buf = io.StringIO()
    print_sweep(pd.DataFrame(rows), 100, console=Console(file=buf, width=300))
    out = buf.getvalue()
    baseline = next(line for line in out.splitlines() if line.startswith(f"│ {BASELINE}"))
    assert MISSING in baseline and "25.0%" in baseline and "nan" not in out
    other = next(line for line in out.splitlines() if line.startswith("│ other"))
    assert "+1.0 [-1.0, +3.0]" in other and "+0.01 [-0.01, +0.03]" in other


def _console_text(printer, *args) -> str:
    buf = io.StringIO()
    printer(*args, console=Console(file=buf, width=200, highlight=False))
    return buf.getvalue()


def _tune_result(score=0.55, held=(0.52, 0.5, 0.54), changed=None):
    from types import SimpleNamespace

    from smsim.policies.heuristic_layout import PARAM_NAMES

    params = np.zeros(len(PARAM_NAMES))
    params[PARAM_NAMES.index("wall")] = 1.0
    base = SimpleNamespace(name="balanced", params=params)
    table = pd.DataFrame({"win_share": [held[0]], "win_lo": [held[1]], "win_hi": [held[2]]}, index=["tuned"])
    return SimpleNamespace(
        searched=["wall"],
        base=base,
        history=pd.DataFrame({"g": range(6)}),
        field=["balanced"],
        changed=changed or {"wall": 1.5},
        score=score,
        score_lo=score - 0.02,
        score_hi=score + 0.02,
        base_score=0.5,
        parity=0.5,
        held_out_share=held,
        held_out_parity=0.5,
        held_out=SimpleNamespace(blocks=100, games_per_block=4, table=table),
        held_out_seed=9,
    )


def test_the_tuning_printout_writes_its_rates_one_way():
    from smsim.report.terminal import print_tune

    text = _console_text(print_tune, _tune_result(), 300, 4, 2)
    assert "tuned 1 weight(s) of balanced: 6 candidates of 300 games, 4 players, against balanced, seed 2" in text
    assert "best on the tuning dice: 55.0% [53.0, 57.0] (the base 50.0%, parity 50.0%)" in text
    assert "held out (400 games on seed 9): tuned against balanced 52.0% [50.0, 54.0] (parity 50.0%): not shown" in text
    assert "changed: wall 1 -> 1.5" in text
    assert "better than the base" in _console_text(print_tune, _tune_result(held=(0.56, 0.54, 0.58)), 300, 4, 2)
    missing = _console_text(print_tune, _tune_result(score=float("nan")), 300, 4, 2)
    assert "best on the tuning dice: – (the base 50.0%" in missing and "nan" not in missing
    narrow = io.StringIO()  # a line is never folded at the terminal's width: the lines are read by scripts
    print_tune(_tune_result(), 300, 4, 2, console=Console(file=narrow, width=40))
    assert narrow.getvalue() == text
    # a weight the base's weights() leaves out at its neutral value (exact_keep 0), tuned with --only
    # (found by the long argument property test: it raised KeyError)
    knob = _console_text(print_tune, _tune_result(changed={"wall": 1.5, "exact_keep": -0.021}), 300, 4, 2)
    assert "changed: wall 1 -> 1.5, exact_keep 0 -> -0.021" in knob


def test_a_round_of_learn_prints_agreement_as_rates_and_the_kept_fit():
    from smsim.report.terminal import print_learn_round

    table = pd.DataFrame(
        {
            "kind": ["keep", "use"],
            "decisions": [1200, 30],
            "agreement": [0.812, float("nan")],
            "regret": [0.0123, 0.5],
            "base_agreement": [0.7, 0.6],
            "base_regret": [0.02, 0.4],
        }
    )
    text = _console_text(print_learn_round, 2, table, [0.31, 0.345])
    assert "round 2: held-out decisions (teacher: rollout over the round 1 student)" in text
    assert "81.2%" in text and "70.0%" in text and "1,200" in text and "0.0123" in text
    assert "–" in text and "nan" not in text
    assert "31.0%, 34.5%; kept fit 2" in text
