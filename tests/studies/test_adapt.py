"""Bots adapted to a rule variant (smsim.studies.adapt) and the sweep that plays them (sweep --adapt)."""

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from smsim.cli import cli
from smsim.errors import SweepError
from smsim.intervals import BOT_DEPENDENT, HOLDS, NOT_SETTLED
from smsim.policies.registry import POLICIES, resolve_policy
from smsim.rules import Rules
from smsim.runs.dataset import load
from smsim.studies.adapt import AdaptPlan, adapt
from smsim.studies.sweep import (
    ADAPTED_DIR,
    adapted_name,
    adapted_table,
    effects_across_bots,
    plan_variants,
    run_sweep,
    sweep_table,
)

TINY = AdaptPlan(players=2, games=40, budget=4, seed=3, held_out_games=160)  # as the command line plans it
FREE_ROTATION = Rules(rotation_cost=0)


@pytest.fixture(scope="module")
def adapted_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("adapt") / "sw"
    variants = plan_variants(vary=["rotation_cost=0"])
    heard = []
    result = run_sweep(
        out,
        variants,
        60,
        2,
        ["balanced", "greedy"],
        seed=3,
        threads=1,
        adapt=TINY,
        on_adapt=lambda v, p: heard.append((v, p)),
    )
    return out, variants, result, heard


def test_the_printed_rules_get_the_base_itself(tmp_path):
    bot = adapt(tmp_path, "b", "baseline", Rules(), TINY)
    assert not bot.tuned and bot.spec is POLICIES["balanced"] and not bot.found_nothing
    assert not list(tmp_path.iterdir())  # nothing tuned, nothing written


def test_a_variant_gets_weights_tuned_on_its_rules_stored_and_reused(tmp_path):
    bot = adapt(tmp_path, "balanced@free", "free rotation", FREE_ROTATION, TINY)
    assert bot.tuned and bot.seconds > 0 and 0 <= bot.share_lo <= bot.share <= bot.share_hi <= 1
    assert bot.parity == pytest.approx(0.5)
    note = json.loads((tmp_path / "balanced@free.json").read_text())
    assert note["plan"] == TINY.describe() and note["rules"] == FREE_ROTATION.to_dict()
    stored = resolve_policy(str(tmp_path / "balanced@free.toml"))
    played = POLICIES["balanced"].params if bot.found_nothing else stored.params  # what it found, if anything
    assert np.array_equal(played, bot.spec.params)
    assert bot.found_nothing == (bot.share_lo <= bot.parity)
    assert ("found nothing" in bot.sentence()) == bot.found_nothing and "tuned in" in bot.sentence()
    again = adapt(tmp_path, "balanced@free", "free rotation", FREE_ROTATION, TINY)  # read back, not tuned again
    assert again.seconds == bot.seconds and np.array_equal(again.spec.params, bot.spec.params)
    with pytest.raises(SweepError, match="another plan or other rules"):
        adapt(tmp_path, "balanced@free", "free rotation", Rules(rotation_cost=1), TINY)


@pytest.mark.parametrize("low, plays", [(0.52, "tuned"), (0.5, "base"), (0.44, "base")])
def test_weights_that_do_not_beat_the_base_on_held_out_dice_are_not_played(tmp_path, low, plays):
    """The adapted bot is the tuned weights only where their held-out interval lies above parity;
    weights that merely tie, or lose on dice they never saw, leave the base to play the variant,
    their file kept and the tuner said to have found nothing."""
    from smsim.studies.adapt import _adapted

    tuned = replace(POLICIES["balanced"], name="tuned", params=POLICIES["balanced"].params * 1.1)
    told = {"seconds": 9.0, "share": low + 0.02, "share_lo": low, "share_hi": low + 0.04, "parity": 0.5, "changed": {}}
    bot = _adapted("cannon_penalty=7", told, tuned, str(tmp_path / "w.toml"), POLICIES["balanced"])
    assert (bot.spec is tuned) == (plays == "tuned") and bot.found_nothing == (plays == "base")
    assert ("so balanced plays it" in bot.sentence()) == (plays == "base")


def test_only_a_built_in_heuristic_is_adapted(tmp_path):
    for base in ("learned", "random", "nobody"):
        with pytest.raises(SweepError, match="built-in heuristic"):
            adapt(tmp_path, "x", "v", FREE_ROTATION, AdaptPlan(base=base))


def test_the_sweep_plays_each_variant_with_its_adapted_bot_on_the_same_dice(adapted_sweep):
    out, _, result, heard = adapted_sweep
    assert [b.tuned for b in result.adapted] == [False, True]
    assert [v for v, p in heard if p is None] == ["baseline", "rotation_cost=0"]
    base_data = load(out / ADAPTED_DIR / "variants" / "00-baseline")
    variant_data = load(out / ADAPTED_DIR / "variants" / "01-rotation_cost=0")
    # the line-up's balanced seat plays as the adapted bot, under one name; the others as asked
    assert set(variant_data.seats["policy"]) == {adapted_name("balanced"), "greedy"}
    assert set(base_data.seats["policy"]) == {adapted_name("balanced"), "greedy"}
    # the baseline's adapted bot is balanced itself: the baseline's games are the asked sweep's
    asked = load(out / "variants" / "00-baseline")
    pd.testing.assert_frame_equal(
        base_data.seats.drop(columns="policy"), asked.seats.drop(columns="policy"), check_categorical=False
    )
    assert result.adapted_table is not None
    pd.testing.assert_frame_equal(result.adapted_table, adapted_table(out))
    assert adapted_table(out / ADAPTED_DIR) is None  # a sweep played without --adapt (this one) has none
    assert sweep_table(out).equals(result.table)


def test_a_rerun_tunes_and_plays_nothing_again(adapted_sweep):
    out, variants, result, _ = adapted_sweep
    heard = []
    again = run_sweep(
        out,
        variants,
        60,
        2,
        ["balanced", "greedy"],
        seed=3,
        threads=1,
        adapt=TINY,
        on_adapt=lambda v, p: heard.append(p),
    )
    assert again.played == 0 and all(p is None for p in heard)
    pd.testing.assert_frame_equal(again.adapted_table, result.adapted_table)


def test_adapt_is_refused_without_the_base_in_the_line_up(tmp_path):
    with pytest.raises(SweepError, match="has none"):
        run_sweep(tmp_path / "s", plan_variants(vary=["rotation_cost=0"]), 10, 2, ["greedy"], adapt=TINY)
    assert not (tmp_path / "s").exists()


def effect(variant, metric, unit, d, lo, hi):
    return {
        "variant": variant,
        "metric": metric,
        "label": metric,
        "unit": unit,
        "group": "g",
        "diff": d,
        "diff_lo": lo,
        "diff_hi": hi,
    }


def test_effects_across_bots_match_each_bots_table_and_the_verdict_rule():
    base = [
        effect("baseline", m, u, np.nan, np.nan, np.nan)
        for m, u in (("cannons_changed_winner", "rate"), ("rounds", "rounds"))
    ]
    one = pd.DataFrame(
        [
            *base,
            effect("free", "cannons_changed_winner", "rate", 0.047, 0.03, 0.06),
            effect("free", "rounds", "rounds", -6.0, -6.2, -5.8),
        ]
    )
    two = pd.DataFrame(
        [
            *base,
            effect("free", "cannons_changed_winner", "rate", -0.144, -0.16, -0.13),
            effect("free", "rounds", "rounds", -3.77, -3.9, -3.6),
        ]
    )
    across = effects_across_bots({"learned": one, "balanced": two}).set_index("metric")
    assert list(across.index) == ["cannons_changed_winner", "rounds"]  # the baseline has no effect
    assert across.loc["cannons_changed_winner", "verdict"] == BOT_DEPENDENT
    assert across.loc["rounds", "verdict"] == HOLDS
    assert (across.loc["rounds", "low"], across.loc["rounds", "high"]) == (-6.0, -3.77)
    assert (
        across.loc["cannons_changed_winner", "learned lo"] == 0.03
        and across.loc["cannons_changed_winner", "balanced"] == -0.144
    )
    reach = two["diff"].abs() + 1.0  # an interval that reaches across 0
    wide = two.assign(diff_lo=two["diff"] - reach, diff_hi=two["diff"] + reach)
    assert set(effects_across_bots({"learned": one, "balanced": wide})["verdict"]) == {NOT_SETTLED}


def test_sweep_adapt_on_the_command_line(adapted_sweep, tmp_path):
    out, *_ = adapted_sweep
    runner = CliRunner()
    args = ["sweep", "--vary", "rotation_cost=0", "-n", "60", "-p", "2", "--policy", "balanced", "--policy", "greedy"]
    args += ["--seed", "3", "--threads", "1", "-q", "--adapt", "--adapt-budget", "4", "--adapt-games", "40"]
    result = runner.invoke(cli, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Adapted bots" in result.output and "across bots" in result.output
    assert "itself (these are the rules it was tuned for)" in result.output
    for refused, words in (
        (["sweep", "--vary", "rotation_cost=0", "-n", "10", "--adapt"], "--adapt needs --out"),
        (["sweep", "--vary", "rotation_cost=0", "-n", "10", "--adapt-budget", "3"], "give --adapt too"),
        (
            [
                "sweep",
                "--vary",
                "rotation_cost=0",
                "-n",
                "10",
                "--policy",
                "greedy",
                "--adapt",
                "--out",
                str(tmp_path / "g"),
            ],
            "has none",
        ),
    ):
        answer = runner.invoke(cli, refused)
        assert answer.exit_code == 2 and words in answer.output and "Traceback" not in answer.output, answer.output
    assert not (tmp_path / "g").exists()


def test_the_report_sets_each_effect_under_both_bots_with_the_verdict_across_them(adapted_sweep):
    """The variants section's table of effects under the bot asked for and the adapted bot: each
    row's values are the two sweeps' own differences, its verdict the rule's on them."""
    from smsim.intervals import MARGINS, across_bots
    from smsim.report.studies import variants_section
    from smsim.studies.sweep import HEADLINE, variant_set_from_sweep

    out, *_ = adapted_sweep
    vs = variant_set_from_sweep(out)
    assert vs.adapted is not None and [b["variant"] for b in vs.bots] == ["rotation_cost=0"]
    section, _ = variants_section([vs])
    block = next(b for b in section.blocks if b.name == "variants_0_across_bots")
    asked = sweep_table(out).set_index(["variant", "metric"])
    played = adapted_table(out).set_index(["variant", "metric"])
    assert list(block.table["metric"]) == list(HEADLINE)
    for r, said in zip(block.table.itertuples(index=False), block.shown["across bots"]):
        a, b = asked.loc[("rotation_cost=0", r.metric)], played.loc[("rotation_cost=0", r.metric)]
        effects = [(x["diff"], x["diff_lo"], x["diff_hi"]) for x in (a, b)]
        assert said == across_bots(effects, MARGINS[r.unit])[0]
    assert "rotation cost 2 → 0 (free rotation)" in set(block.shown["variant"])  # the shipped rules, named so
    # the adapted bots' own table: each bot's held-out gain, with its interval, and its tuning time
    bots = next(b for b in section.blocks if b.name == "variants_0_adapted_bots")
    note = vs.bots[0]
    row = bots.shown.iloc[0]
    assert row["variant"] == "rotation cost 2 → 0 (free rotation)" and row["tuning, s"] == f"{note['seconds']:.0f}"
    gain = row["against balanced, held out: win share above parity [95% CI]"]
    assert gain.startswith(f"{100 * (note['share'] - note['parity']):+.1f} [")
    assert row["what the tuner found"].startswith("beats" if note["share_lo"] > note["parity"] else "nothing")
    assert row["held-out games"] == f"{TINY.held_out_games:,}" and "4 candidates of 40 games" in bots.text
    assert variant_set_from_sweep(out / ADAPTED_DIR).adapted is None


def test_another_bots_sweep_on_the_same_dice_joins_the_verdict_across_bots(adapted_sweep, tmp_path):
    """A sweep of the same variants by another line-up on the same seed (the report's L2 beside L1)
    is a third bot of the table across bots; one on other dice is not."""
    from smsim.intervals import MARGINS, across_bots
    from smsim.report.studies import ADAPTED_LABEL, variants_section
    from smsim.studies.sweep import variant_set_from_sweep

    out, variants, *_ = adapted_sweep
    run_sweep(tmp_path / "greedy", variants, 60, 2, ["greedy"], seed=3, threads=1)
    run_sweep(tmp_path / "other-dice", variants, 60, 2, ["random"], seed=4, threads=1)
    sets = [variant_set_from_sweep(x) for x in (out, tmp_path / "greedy", tmp_path / "other-dice")]
    section, _ = variants_section(sets)
    block = next(b for b in section.blocks if b.name == "variants_0_across_bots")
    bots = [c[: -len(" [95% CI]")] for c in block.shown.columns if c.endswith(" [95% CI]")]
    assert bots == ["balanced, greedy", ADAPTED_LABEL, "greedy"]
    tables = [sweep_table(out), adapted_table(out), sweep_table(tmp_path / "greedy")]
    tables = [t.set_index(["variant", "metric"]) for t in tables]
    for r, said in zip(block.table.itertuples(index=False), block.shown["across bots"]):
        effects = [tuple(t.loc[("rotation_cost=0", r.metric), ["diff", "diff_lo", "diff_hi"]]) for t in tables]
        assert said == across_bots(effects, MARGINS[r.unit])[0]
    assert not any(b.name.endswith("across_bots") for b in section.blocks if b.name != "variants_0_across_bots")


def test_the_python_sweep_adapts_into_its_folder_and_needs_one(adapted_sweep, tmp_path):
    import smsim

    out, _, result, _ = adapted_sweep
    with pytest.raises(SweepError, match="adapt needs out"):
        smsim.sweep(10, players=2, policies=["balanced"], vary=["rotation_cost=0"], adapt=TINY)
    table = smsim.sweep(60, 2, ["balanced", "greedy"], seed=3, vary=["rotation_cost=0"], out=out, threads=1, adapt=TINY)
    pd.testing.assert_frame_equal(table, result.table)
    pd.testing.assert_frame_equal(smsim.adapted_table(out), result.adapted_table)


def test_variants_of_our_own_through_sweep_adapt_and_report(tmp_path, figures_blank):
    """Rules variants not among the shipped ones, through ``smsim sweep --adapt`` and ``smsim
    report``: every row of the report's table across bots holds each bot's own difference (the
    sweep's, the adapted bots', another line-up's on the same dice) and the verdict the rule gives
    on them."""
    from smsim.intervals import MARGINS, across_bots

    runner = CliRunner()
    own = ["--vary", "cannon_penalty=9", "--vary", "pirate_strengths=[2,4,6,8,10,12]", "--one-at-a-time"]
    common = [*own, "-n", "60", "-p", "2", "--seed", "5", "--threads", "1", "-q"]
    made = runner.invoke(
        cli,
        ["sweep", *common, "--policy", "balanced", "--adapt", "--adapt-budget", "4", "--adapt-games", "40"]
        + ["--out", str(tmp_path / "l1")],
    )
    assert made.exit_code == 0, made.output
    made = runner.invoke(cli, ["sweep", *common, "--policy", "greedy", "--out", str(tmp_path / "greedy")])
    assert made.exit_code == 0, made.output
    made = runner.invoke(cli, ["report", str(tmp_path / "l1"), str(tmp_path / "greedy"), "--out", str(tmp_path / "r")])
    assert made.exit_code == 0, made.output
    across = pd.read_csv(tmp_path / "r" / "tables" / "variants_0_across_bots.csv")
    bots = {
        "L1 balanced": sweep_table(tmp_path / "l1"),
        "adapted to each variant": adapted_table(tmp_path / "l1"),
        "greedy": sweep_table(tmp_path / "greedy"),
    }
    keys = {"cannon penalty 5 → 9": "cannon_penalty=9", "pirate strengths [1, 3, 6, 8, 10, 12] → [2, 4, 6, 8, 10, 12]":
            "pirate_strengths=[2,4,6,8,10,12]"}  # fmt: skip
    assert set(across["variant"]) == set(keys) and len(across) == 2 * 6  # every headline effect of both
    for _, r in across.iterrows():
        effects = []
        for bot, t in bots.items():
            own_row = t[(t["variant"] == keys[r["variant"]]) & (t["metric"] == r["metric"])].iloc[0]
            assert r[bot] == pytest.approx(own_row["diff"], nan_ok=True)
            effects.append((own_row["diff"], own_row["diff_lo"], own_row["diff_hi"]))
        assert r["verdict"] == across_bots(effects, MARGINS[r["unit"]])[0]
