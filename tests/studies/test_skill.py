"""Skill studies: the plan's cells, each matrix cell equal to the comparison it stands for, the
skill gap's paired change recomputed block by block, resumption cell by cell, and refusals."""

import numpy as np
import pandas as pd
import pytest

from smsim.errors import DatasetError, PolicyError, SimulationError, SkillError
from smsim.intervals import Z_95, mean_and_interval
from smsim.rules import Rules
from smsim.runs.folder import kind_of
from smsim.studies import skill as K
from smsim.studies.compare import compare
from smsim.studies.sweep import plan_variants


def test_cells_of_a_plan():
    four = K.plan_skill(4, ["random", "greedy", "balanced"], games=400, seed=1)
    assert [(c.row, c.col) for c in four.cells()] == [
        ("random", "greedy"),
        ("random", "balanced"),
        ("greedy", "random"),
        ("greedy", "balanced"),
        ("balanced", "random"),
        ("balanced", "greedy"),
    ]
    assert four.cells()[0].lineup(4) == ["random", "greedy", "greedy", "greedy"]
    # at 2 players a comparison of the two levels gives both cells: one per pair
    two = K.plan_skill(2, ["random", "greedy", "balanced"], games=400, seed=1, caps={"balanced": 100})
    assert [(c.row, c.col, c.games) for c in two.cells()] == [
        ("random", "greedy", 400),
        ("random", "balanced", 100),
        ("greedy", "balanced", 100),
    ]
    # variants add the skill gap's cell under each, with the baseline's once
    variants = plan_variants(vary=["side_defence=1,3"])
    gap = K.plan_skill(4, ["greedy", "random"], games=200, seed=1, variants=variants)
    assert [(c.variant, c.row, c.col) for c in gap.cells()][-3:] == [(0, *K.GAP), (1, *K.GAP), (2, *K.GAP)]
    with_gap = K.plan_skill(2, ["balanced", "learned"], games=200, seed=1, variants=variants)
    assert [(c.variant, c.row, c.col) for c in with_gap.cells()] == [
        (0, "balanced", "learned"),  # the matrix's cell serves the baseline
        (1, *K.GAP),
        (2, *K.GAP),
    ]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"levels": ["greedy"]}, SkillError, "at least 2 levels"),
        ({"levels": ["greedy", "greedy"]}, SkillError, "named twice"),
        ({"levels": ["greedy", "genius"]}, PolicyError, "genius"),
        ({"caps": {"walls": 10}}, SkillError, "--cap walls: not a level"),
        ({"caps": {"greedy": 0}}, SkillError, "--cap greedy must be a whole number from 1 to 10,000,000,000, not 0"),
        ({"players": 6}, SimulationError, "players"),
        ({"games": 0}, SimulationError, "games"),
    ],
)
def test_a_bad_plan_is_refused(kwargs, error, match):
    args = {"players": 2, "levels": ["greedy", "random"], "games": 10, "seed": 1, **kwargs}
    with pytest.raises(error, match=match):
        K.plan_skill(**args)


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    root = tmp_path_factory.mktemp("skill")
    variants = plan_variants(vary=["rotation_cost=0"])
    two = K.plan_skill(2, ["greedy", "balanced", "learned"], games=300, seed=11, variants=variants)
    three = K.plan_skill(3, ["random", "greedy"], games=150, seed=12)
    return {
        "two": (two, K.run_skill(two, root / "two", threads=2)),
        "three": (three, K.run_skill(three, root / "three", threads=2)),
        "root": root,
    }


def test_every_cell_is_the_comparison_it_stands_for(studies):
    """Each matrix entry is the win share of the row's seats in ``compare ROW COL ...``, recomputed
    here with compare itself, and its interval the normal one over blocks."""
    for name in ("two", "three"):
        plan, result = studies[name]
        m = result.matrix.set_index(["row", "col"])
        for cell in plan.cells():
            if cell.variant:
                continue
            got = compare(cell.lineup(plan.players), plan.players, cell.games, seed=plan.seed)
            for row, col in (
                ((cell.row, cell.col), (cell.col, cell.row)) if plan.players == 2 else ((cell.row, cell.col),)
            ):
                want = got.table.loc[row]
                r = m.loc[(row, col)]
                assert (r.share, r.lo, r.hi) == pytest.approx((want.win_share, want.win_lo, want.win_hi), rel=1e-12)
                assert r.blocks == got.blocks and r.games == got.blocks * got.games_per_block
                assert r.parity == pytest.approx(1 / plan.players)
    # at 2 players the two cells of a pair share every game: their shares sum to 1
    m = studies["two"][1].matrix.set_index(["row", "col"])
    for row, col in [("greedy", "balanced"), ("balanced", "learned")]:
        assert m.loc[(row, col), "share"] + m.loc[(col, row), "share"] == pytest.approx(1.0)
    assert m.loc[("learned", "greedy"), "share"] > 0.8  # the ladder is a ladder
    three = studies["three"][1].matrix.set_index(["row", "col"])
    assert three.loc[("greedy", "random"), "share"] > 1 / 3 > three.loc[("random", "greedy"), "share"]


def test_the_skill_gap_and_its_paired_change(studies):
    """The gap is one learned seat's share minus parity; a variant's change is the mean over the
    same blocks of the difference of that share, with the normal interval of the differences."""
    plan, result = studies["two"]
    base = compare(list(K.GAP), 2, 300, seed=plan.seed).block_shares[:, 0]
    free = compare(list(K.GAP), 2, 300, seed=plan.seed, rules=plan.variants[1].rules).block_shares[:, 0]
    g = result.gaps.set_index("variant")
    m, lo, hi, _ = mean_and_interval(base)
    assert (g.loc["baseline", "gap"], g.loc["baseline", "gap_lo"], g.loc["baseline", "gap_hi"]) == pytest.approx(
        (m - 0.5, lo - 0.5, hi - 0.5), rel=1e-12
    )
    assert result.gap()[:3] == pytest.approx((m - 0.5, lo - 0.5, hi - 0.5), rel=1e-12)
    d, dlo, dhi, n = mean_and_interval(free - base)
    r = g.loc["rotation_cost=0"]
    assert (r["diff"], r.diff_lo, r.diff_hi, r.blocks) == (pytest.approx(d), pytest.approx(dlo), pytest.approx(dhi), n)
    half = Z_95 * np.sqrt(free.var(ddof=1) / n + base.var(ddof=1) / n)
    assert (r.unpaired_lo, r.unpaired_hi) == (pytest.approx(d - half), pytest.approx(d + half))
    assert r.changes == "rotation_cost = 0" and np.isfinite(r.rounds_diff)
    assert r.rounds_diff < 0  # free rotation ends games sooner
    assert K.gap_verdict(r["diff"], r.diff_lo, r.diff_hi) in K.GAP_VERDICTS


@pytest.mark.parametrize(
    "diff, lo, hi, margin, want",
    [
        (0.03, 0.02, 0.04, 0.01, "more skill"),  # wholly beyond the margin
        (-0.03, -0.04, -0.02, 0.01, "more luck"),
        (0.005, 0.001, 0.009, 0.01, "no change"),  # clear of 0, but inside the margin: the issue's +0.5 [+0.1, +0.9]
        (0.005, 0.001, 0.009, 0.0005, "more skill"),  # the same interval against a smaller margin
        (0.0, -0.009, 0.009, 0.01, "no change"),
        (0.012, 0.002, 0.022, 0.01, "not settled"),  # straddles the margin
        (0.0, -0.05, 0.05, 0.01, "not settled"),  # too wide to tell
        (0.01, 0.01, 0.03, 0.01, "more skill"),  # at the margin: a change that large
        (float("nan"), 0.0, 0.01, 0.01, "no data"),
    ],
)
def test_the_gap_verdict_is_judged_by_size(diff, lo, hi, margin, want):
    assert K.gap_verdict(diff, lo, hi, margin) == want
    assert want in K.GAP_VERDICTS


def test_the_gap_verdict_defaults_to_the_points_margin():
    from smsim.intervals import MARGINS

    m = MARGINS["points"]
    assert K.gap_verdict(2 * m, 1.5 * m, 2.5 * m) == "more skill"
    assert K.gap_verdict(0.6 * m, 0.2 * m, 0.9 * m) == "no change"
    assert K.gap_verdict(m, 0.5 * m, 1.5 * m) == "not settled"


def test_a_study_resumes_cell_by_cell(studies, monkeypatch):
    plan, result = studies["three"]
    path = studies["root"] / "three"
    before = {f: (path / f).read_bytes() for f in ("matrix.csv", "gaps.csv")}
    (path / "cells" / plan.cells()[1].file()).unlink()
    (path / "cells" / ".stray.parquet.tmp").write_bytes(b"cut")  # a cell cut short: never read
    played = []
    real = K.play_cell
    monkeypatch.setattr(K, "play_cell", lambda p, c, *a, **k: played.append(c) or real(p, c, *a, **k))
    again = K.run_skill(plan, path, threads=1)
    assert played == [plan.cells()[1]]  # only the missing cell, on another thread count
    assert {f: (path / f).read_bytes() for f in before} == before
    pd.testing.assert_frame_equal(again.matrix, result.matrix)


def test_another_plan_or_a_foreign_directory_is_refused(studies, tmp_path):
    plan, _ = studies["three"]
    other = K.plan_skill(3, ["random", "greedy"], games=151, seed=12)
    with pytest.raises(DatasetError, match="holds a different skill study \\(its games differs"):
        K.run_skill(other, studies["root"] / "three")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "x.txt").write_text("x")
    with pytest.raises(DatasetError, match="holds no skill study"):
        K.run_skill(plan, tmp_path / "foreign")
    with pytest.raises(DatasetError, match="local directory"):
        K.run_skill(plan, "memory://skill")
    assert kind_of(tmp_path / "foreign") is None and kind_of(studies["root"] / "three") == "skill"
    with pytest.raises(DatasetError, match="not a skill study"):
        K.read_skill(tmp_path / "foreign")


def test_a_study_under_other_rules_plays_them():
    variant = Rules(rotation_cost=0)
    plan = K.plan_skill(2, ["greedy", "random"], games=10, seed=1, rules=variant)
    assert plan.variants[0].rules == variant and plan.identity()["variants"][0]["rules"] == variant.to_dict()
    assert (
        K.plan_skill(2, ["greedy", "random"], games=10, seed=1).identity()["variants"][0]["rules"] == Rules().to_dict()
    )


def test_the_python_entry_point_and_the_printout(tmp_path):
    import io

    from rich.console import Console

    import smsim
    from smsim.report.terminal import print_skill

    result = smsim.skill(2, tmp_path / "s", levels=["greedy", "random"], games=40, seed=3, variants=["free-rotation"])
    assert result.matrix[["row", "col"]].values.tolist() == [["greedy", "random"], ["random", "greedy"]]
    assert result.gaps["variant"].tolist() == ["baseline", "free-rotation"]
    buf = io.StringIO()
    print_skill(result, Console(file=buf, width=200))
    out = buf.getvalue()
    assert "One seat of the row's level against the column's" in out and "parity 50.0%" in out
    share = result.matrix.iloc[0]
    assert f"{100 * share.share:.1f}% [{100 * share.lo:.1f}, {100 * share.hi:.1f}]" in out
    assert (
        "skill gap (one learned seat against balanced, minus parity)" in out
        and "rotation cost 2 → 0 (free rotation)" in out
    )


def test_a_shipped_variant_asked_for_twice_is_named_where_it_is_played():
    """A sweep's ``side_defence=3`` has the rules of the shipped ``three-defence-per-side``: one
    name for both (``sweep.variant_name``), wherever it is played."""
    from smsim.studies.sweep import variant_name

    variants = plan_variants(
        vary=["side_defence=1,3"], files=["three-defence-per-side", "free-rotation"], one_at_a_time=True
    )
    assert [v.name for v in variants] == ["baseline", "side_defence=1", "side_defence=3", "free-rotation"]
    names = [variant_name(v.varied, Rules(), v.name) for v in variants[1:]]
    assert names == [
        "side defence 2 → 1",
        "side defence 2 → 3 (three defence per side)",
        "rotation cost 2 → 0 (free rotation)",
    ]


def _study(players: int, cells: dict) -> K.SkillResult:
    m = pd.DataFrame(
        [
            {
                "players": players,
                "row": r,
                "col": c,
                "share": v,
                "lo": lo,
                "hi": hi,
                "blocks": 50,
                "games": 200,
                "parity": 1.0 / players,
            }
            for (r, c), (v, lo, hi) in cells.items()
        ]
    )
    return K.SkillResult("s", players, 1, K.LADDER, m, pd.DataFrame(columns=K.GAP_COLUMNS), [], "")


def test_levels_are_ordered_only_where_the_head_to_head_clears_parity():
    """A level is the stronger of two neighbours only where its seat's interval among the lower
    lies above parity; level only where the interval lies inside parity ± the margin (not
    ordered: style); holding parity but wider, not settled, with the games that would settle it;
    the lower level's seat among the upper (the only cell played) is read the other way."""
    two = _study(2, {("learned", "balanced"): (0.64, 0.63, 0.65), ("rollout-learned", "learned"): (0.49, 0.43, 0.55)})
    assert K.ordered_levels([two], 2) == {("balanced", "learned"): True, ("learned", "rollout-learned"): K.UNSETTLED}
    t = K.head_to_heads([two])
    assert list(t["standing"]) == [K.STRONGER, K.UNSETTLED] and list(t["games"]) == [200, 200]
    assert t["settle"].tolist()[1] == 7200  # 200 games x (6 points of half-width / a margin of 1) ** 2
    level = _study(
        2, {("learned", "balanced"): (0.64, 0.63, 0.65), ("rollout-learned", "learned"): (0.50, 0.495, 0.506)}
    )
    assert K.ordered_levels([level], 2) == {("balanced", "learned"): True, ("learned", "rollout-learned"): False}
    assert K.head_to_heads([level])["standing"].tolist() == [K.STRONGER, K.PARITY]
    assert K.head_to_heads([two], margin=0.08)["standing"].tolist() == [K.STRONGER, K.PARITY]  # a wider margin
    four = _study(4, {("balanced", "learned"): (0.14, 0.13, 0.15), ("learned", "rollout-learned"): (0.30, 0.27, 0.33)})
    assert K.ordered_levels([four], 4) == {("balanced", "learned"): True, ("learned", "rollout-learned"): False}
    assert K.head_to_heads([four])["standing"].tolist() == [K.STRONGER, K.WEAKER]
    assert K.ordered_levels([two, four], 3) == {}


@pytest.mark.parametrize(
    "lo, hi, standing",
    [
        (0.52, 0.56, "stronger"),
        (0.44, 0.48, "weaker"),
        (0.495, 0.505, "parity"),  # inside parity ± 1 point: level
        (0.491, 0.559, "not settled"),  # the L3 over L2, 480 games: holds parity, reaches past the margin
        (0.49, 0.51, "not settled"),  # touching the margin is not inside it
    ],
)
def test_a_level_is_level_only_inside_the_margin(lo, hi, standing):
    assert K.standing_of(lo, hi, 0.5, 0.01) == standing


def test_the_games_to_settle_a_head_to_head_fall_with_its_width():
    assert K.games_to_settle(0.491, 0.559, 480, 0.01) == 5549
    assert K.games_to_settle(0.495, 0.505, 4000, 0.01) == 4000  # settled already: its own games
    assert K.games_to_settle(0.4, float("nan"), 100, 0.01) == 0
