"""The sections on how the game feels (report/feel.py): figures first, the tables and the
at-a-glance lines from hand-built shapes and what-matters tables; and the whole path from
`smsim simulate --rounds`, `smsim winprob` and `smsim matters --out` to the written report."""

import numpy as np
import pandas as pd
import pytest

from smsim.report import plots as P
from smsim.report.feel import FEEL_TITLE, MATTERS_TITLE, feel_section, matters_section
from smsim.report.findings import FIRST_SCREEN_TITLE
from smsim.studies.matters import MattersResult, rank_agreement, ranked
from smsim.studies.shape import shape_of
from tests.studies.test_shape import positions


def two_games():
    """2-player positions of two games (the shape test's): seat 0 wins the first, seat 1 the second."""
    p = positions(
        [
            (0, 0, [0, 0], [41, 41]),
            (0, 1, [5, 3], [38, 39]),
            (0, 2, [4, 6], [35, 34]),
            (0, 3, [10, 8], [30, 31]),
            (1, 0, [0, 0], [41, 41]),
            (1, 1, [2, 2], [39, 39]),
            (1, 2, [7, 7], [3, 5]),
        ]
    )
    prob = np.array([[0.5, 0.5], [0.6, 0.4], [0.3, 0.7], [1, 0], [0.5, 0.5], [0.45, 0.55], [0, 1]])
    result = shape_of(p, prob, "hand")
    result.source = "hand"
    return result


def matters_table():
    rows = [
        {
            "policy": pol,
            "players": 2,
            "part": part,
            "games": 400,
            "blocks": 200,
            "share": 0.5 - loss,
            "share_lo": 0.49 - loss,
            "share_hi": 0.51 - loss,
            "loss": loss,
            "loss_lo": loss - 0.01,
            "loss_hi": loss + 0.01,
            "vp_loss": 10 * loss,
            "vp_lo": 10 * loss - 0.1,
            "vp_hi": 10 * loss + 0.1,
            "verdict": "matters" if loss > 0.02 else "can be ignored",
        }
        for pol, losses in (("balanced", [0.2, 0.1, 0.0]), ("learned", [0.25, 0.05, 0.01]))
        for part, loss in zip(["churches", "walls", "crates"], losses)
    ]
    table = ranked(pd.DataFrame(rows))
    table.attrs["seed"] = 38
    return MattersResult(table, rank_agreement(table))


def test_the_feel_section_shows_its_figures_first_then_the_shape_and_says_it_in_short():
    section, glance = feel_section(
        [two_games()],
        [
            {
                "players": 2,
                "positions": 10,
                "games": 2,
                "brier": 0.2,
                "brier_uniform": 0.25,
                "ece_points": 1.5,
                "reliability": [],
            }
        ],
    )
    assert section.title == FEEL_TITLE
    kinds = [(b.kind, b.name) for b in section.blocks]
    assert kinds[:2] == [("figure", "winprob-fan"), ("figure", "comebacks")]
    assert ("table", "game_shape") in kinds and ("table", "winprob_calibration") in kinds
    shape = next(b for b in section.blocks if b.name == "game_shape").shown
    assert list(shape.columns) == ["figure", "2 players, hand"]
    assert shape.iloc[0, 1].startswith("1.00 [")  # lead changes by VP: 2 in one game, none in the other
    # no winner fell below 10% (0 of 2: Wilson's interval), both were decided at the end, both by 2 VP or less
    assert glance == [
        "2 players, `hand`: 1.0 lead changes a game by VP; the winner fell below 10% and came back in "
        "0.0% [0.0, 65.8] of games; decided 0.0 rounds before the end; 100% of games won by 2 VP or less."
    ]


def test_without_shapes_or_studies_the_sections_say_what_to_run():
    section, glance = feel_section([], [])
    assert section.blocks[0].kind == "missing" and "simulate --rounds" in section.blocks[0].text and not glance
    section, glance = matters_section([])
    assert section.blocks[0].kind == "missing" and "smsim matters --out" in section.blocks[0].text


def test_the_matters_section_ranks_the_parts_and_says_whether_the_strengths_agree():
    section, glance = matters_section([matters_table()])
    assert section.title == MATTERS_TITLE
    assert [b.kind for b in section.blocks] == ["figure", "table"]
    shown = section.blocks[1].shown
    assert list(shown[shown["policy"] == "balanced"]["part"]) == ["churches", "walls", "crates"]
    assert shown.iloc[0]["win share lost, points [95% CI]"] == "+20.0 [+19.0, +21.0]"
    assert glance[0].startswith("2 players, `balanced`: most worth churches (+20.0 points), walls (+10.0 points)")
    assert "worth under the 1-point margin: crates" in glance[0]
    assert (
        glance[-1]
        == "2 players: the parts ranked by `balanced` and by `learned` agree with Spearman's rho 1.00 over 3 parts."
    )


def test_the_figures_draw_what_they_are_given_and_nothing_from_nothing():
    fan = P.winprob_fan([two_games()])
    assert fan is not None and "fan" in fan[1]
    assert P.comeback_curves([two_games()]) is not None
    assert P.matters_figure(matters_table().table) is not None
    assert P.matters_figure(matters_table().table.iloc[0:0]) is None and P.winprob_fan([]) is None


def test_the_report_reads_round_snapshots_a_model_and_a_matters_study(run, tmp_path):
    """The whole path at a small scale: the report gains both sections, with their figures written."""
    for players in (2, 4):
        assert (
            run(
                "simulate",
                "-n",
                "600",
                "-p",
                str(players),
                "--policy",
                "balanced",
                "--seed",
                str(70 + players),
                "--rounds",
                "--out",
                str(tmp_path / f"b{players}"),
                "--quiet",
            ).exit_code
            == 0
        )
    assert run("winprob", str(tmp_path / "b2"), str(tmp_path / "b4"), "--out", str(tmp_path / "wp.json")).exit_code == 0
    assert (
        run(
            "simulate",
            "-n",
            "600",
            "-p",
            "4",
            "--policy",
            "balanced",
            "--seed",
            "74",
            "--rounds",
            "--rule",
            "side_defence=3",
            "--out",
            str(tmp_path / "d3"),
            "--quiet",
        ).exit_code
        == 0
    )  # the 4-player games, otherwise
    made = run(
        "matters",
        "--policy",
        "balanced",
        "--part",
        "churches",
        "--part",
        "nobles",
        "-p",
        "2",
        "-p",
        "4",
        "-n",
        "200",
        "--out",
        str(tmp_path / "m"),
    )
    assert made.exit_code == 0, made.output
    out = run(
        "report",
        str(tmp_path / "b2"),
        str(tmp_path / "b4"),
        str(tmp_path / "d3"),
        str(tmp_path / "m"),
        "--winprob",
        str(tmp_path / "wp.json"),
        "--out",
        str(tmp_path / "r"),
    )
    assert out.exit_code == 0, out.output
    page = (tmp_path / "r" / "report.md").read_text()
    assert f"## {FEEL_TITLE}" in page and f"## {MATTERS_TITLE}" in page
    for written in [tmp_path / "r" / "report.md", *(tmp_path / "r" / "tables").glob("*.csv")]:
        assert str(tmp_path) not in written.read_text(), written.name  # datasets by their folders, no machine path
    shapes = pd.read_csv(tmp_path / "r" / "tables" / "game_shape.csv")
    assert {d.split("/")[-1] for d in shapes["dataset"]} == {"b2", "b4"}
    assert not any(d.startswith("/") for d in shapes["dataset"])  # under the folder that holds them all
    for name in ("winprob-fan", "comebacks", "what-matters"):
        assert (tmp_path / "r" / "figures" / f"{name}.png").stat().st_size > 1000
    # the first screen answers what the sections measure, and names once what these data do not answer
    first = page.split(f"## {FIRST_SCREEN_TITLE}\n")[1].split("\n## ")[0]
    for title in (FEEL_TITLE, MATTERS_TITLE):
        said = _section_list(page.split(f"## {title}\n")[1].split("\n## ")[0], "In short")
        assert said and _section_list(first, title) == said
    unanswered = [line for line in _section_list(first, "Design verdicts") if "not measured" in line]
    assert unanswered == [] and first.count("Not answered by these data: ") == 1
    assert "What is each wall bonus worth?" in first.split("Not answered by these data: ")[1].split("\n")[0]
    assert pd.read_csv(tmp_path / "r" / "tables" / "what_matters.csv")["part"].nunique() == 2
    paired = pd.read_csv(tmp_path / "r" / "tables" / "game_shape_variants.csv")
    assert set(paired["variant"]) == {"side defence 2 → 3 (three defence per side)"} and (paired["players"] == 4).all()
    assert (paired.loc[paired["figure"] == "rounds", "games"] == 600).all()
    plain = run("simulate", "-n", "40", "-p", "2", "--policy", "balanced", "--out", str(tmp_path / "plain"), "--quiet")
    assert plain.exit_code == 0
    refused = run(
        "report", str(tmp_path / "plain"), "--winprob", str(tmp_path / "wp.json"), "--out", str(tmp_path / "q")
    )
    assert refused.exit_code == 2 and "no dataset given records round snapshots" in refused.output


def _section_list(md: str, heading: str) -> list[str]:
    """The items of the list under the bold ``heading`` in a page's Markdown."""
    if f"**{heading}**" not in md:
        return []
    after = md.split(f"**{heading}**\n\n")[1]
    return [line[2:] for line in after.split("\n\n")[0].splitlines() if line.startswith("- ")]


def test_each_player_counts_panel_lists_the_parts_in_its_own_order():
    two = matters_table().table
    four = two.assign(players=4, loss=lambda t: np.where(t["part"] == "walls", 0.3, t["loss"]))
    table = ranked(pd.concat([two, four], ignore_index=True))
    fig, _ = P.matters_figure(table)
    labels = [[t.get_text() for t in ax.get_yticklabels()] for ax in fig.axes]
    assert labels == [["churches", "walls", "crates"], ["walls", "churches", "crates"]]  # best first, from the top
    assert [ax.yaxis_inverted() for ax in fig.axes] == [True, True]


def test_the_luck_section_shows_each_match_and_says_it_in_short():
    from smsim.report.feel import LUCK_TITLE, luck_section
    from smsim.studies.luck import LuckPlan, LuckResult

    values = {
        "gap": (0.15, 0.14, 0.16),
        "gap_adjusted": (0.145, 0.135, 0.155),
        "narrower": (1.12,) * 3,
        "narrower_games": (1.25,) * 3,
        "explained": (0.356,) * 3,
        "explained_own": (0.174,) * 3,
        "luck_mean": (0.0, -0.01, 0.01),
        "games_to_lead": (18,) * 3,
        "games_to_lead_adjusted": (16,) * 3,
    }
    table = pd.DataFrame([(k, k, *v) for k, v in values.items()], columns=["figure", "label", "value", "lo", "hi"])
    table.attrs["blocks"] = 2000
    result = LuckResult(LuckPlan("learned", "balanced", 2, 2000, 38), table, None, None)
    section, glance = luck_section([result])
    assert section.title == LUCK_TITLE and [b.kind for b in section.blocks] == ["figure", "table"]
    assert glance == [
        "2 players, `learned` against `balanced`: the dice explain 35.6% of a seat's result (17.4% its own "
        "rolls); the gap +15.0 [+14.0, +16.0] points as played, +14.5 [+13.5, +15.5] with the luck taken "
        "out (1.12 x narrower)."
    ]
    shown = section.blocks[1].shown.iloc[0]
    assert shown["leads with 95% after"] == "18 games (16 adjusted)" and shown["endgame"] == "under 25 empty spaces"
    assert luck_section([])[0].blocks[0].kind == "missing"


def test_a_rules_variants_shape_is_shown_as_its_paired_difference_in_points():
    from smsim.studies.shape import shape_difference

    base = two_games()
    other = two_games()
    other.per_game = other.per_game.assign(
        margin=[4.0, 0.0], lead_changes_vp=[0, 0]
    )  # the same games, played otherwise
    diff = shape_difference(base, other).assign(variant="side defence 2 → 3")
    section, _ = feel_section([base], [], diff)
    shown = next(b for b in section.blocks if b.name == "game_shape_variants").shown
    assert list(shown.columns) == ["figure", "side defence 2 → 3, 2 players"]
    rows = shown.set_index("figure")["side defence 2 → 3, 2 players"]
    assert rows["lead changes a game, by VP"].startswith("-1.00 [")  # 2 and 0 changes before, none now
    assert rows["games decided by 2 VP or less"].startswith("-50.0 [")  # in points: 1 of 2 games no longer close
    assert rows["winner's final margin"].startswith("+1.0 [")  # 2 VP more in game 0, none in game 1


@pytest.mark.own_loop  # a learned model per level, forgoing parts: loops of their own
def test_a_model_a_level_each_dataset_read_under_the_model_of_its_own_policy(run, tmp_path):
    """Two levels' mirror games and a model fitted on each: every dataset is read under its own
    level's model (the calibration of each is that model's on its games), a dataset of a policy
    no model was fitted on is refused in one line, and a single model still reads every dataset."""
    from smsim.report.write import feel_of
    from smsim.studies.winprob import WinProbModel, calibration_summary, read_positions

    for policy in ("balanced", "greedy"):
        for tag, seed in (("fit", 80), ("", 90)):
            assert (
                run(
                    "simulate",
                    "-n",
                    "400",
                    "-p",
                    "2",
                    "--policy",
                    policy,
                    "--seed",
                    str(seed),
                    "--rounds",
                    "--out",
                    str(tmp_path / f"{policy}{tag}"),
                    "--quiet",
                ).exit_code
                == 0
            )
        assert run("winprob", str(tmp_path / f"{policy}fit"), "--out", str(tmp_path / f"{policy}.json")).exit_code == 0
        assert WinProbModel.load(tmp_path / f"{policy}.json").policies == {policy}
    paths = [str(tmp_path / "balanced"), str(tmp_path / "greedy")]
    models = [str(tmp_path / "greedy.json"), str(tmp_path / "balanced.json")]
    shapes, calibration, _ = feel_of(paths, models)
    assert [(s.policy, c["policy"]) for s, c in zip(shapes, calibration)] == [
        ("balanced", "balanced"),
        ("greedy", "greedy"),
    ]
    for path, c in zip(paths, calibration):
        own = calibration_summary(WinProbModel.load(tmp_path / f"{c['policy']}.json"), read_positions(path))
        assert c["brier"] == own["brier"]
    other = calibration_summary(WinProbModel.load(tmp_path / "balanced.json"), read_positions(paths[1]))
    assert other["brier"] != calibration[1]["brier"]  # greedy's games were not read under balanced's model
    single = feel_of(paths, str(tmp_path / "balanced.json"))[1]
    assert single[1]["brier"] == other["brier"]
    refused = run("report", *paths, "--winprob", models[1], "--winprob", models[1], "--out", str(tmp_path / "q"))
    assert refused.exit_code == 2 and "more than one --winprob model was fitted on 'balanced'" in refused.output
    assert (
        run(
            "simulate",
            "-n",
            "40",
            "-p",
            "2",
            "--policy",
            "random",
            "--rounds",
            "--out",
            str(tmp_path / "random"),
            "--quiet",
        ).exit_code
        == 0
    )
    refused = run(
        "report",
        *paths,
        str(tmp_path / "random"),
        *[x for m in models for x in ("--winprob", m)],
        "--out",
        str(tmp_path / "q"),
    )
    assert refused.exit_code == 2 and "no --winprob model was fitted on 'random' games" in refused.output
    assert "Traceback" not in refused.output
