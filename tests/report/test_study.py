"""report.study: the page of a study names its rules file and the printed rules, states every
headline change with its verdict and what is not settled, and its tables hold what it shows."""

import pandas as pd
import pytest

from smsim.errors import DatasetError
from smsim.intervals import NOT_SETTLED
from smsim.report.study import FIRST_SCREEN, verdict_lines
from smsim.report.write import write_study_report
from smsim.rules import Rules
from smsim.studies import study as S


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    from tests.helpers import figures_left_blank

    root = tmp_path_factory.mktemp("study-report")
    rules_file = root / "my-rules.toml"
    rules_file.write_text("cannon_penalty = 3\nfull_city_vp = 8\n")
    plan = S.plan_study(Rules.from_toml(str(rules_file)), [2], ["random", "greedy"], seed=2, first_games=300)
    result = S.run_study(plan, root / "study", max_games=600, threads=2, source=str(rules_file))
    with figures_left_blank():
        path = write_study_report(root / "study", root / "report")
    return result, path.read_text(), root


def test_the_page_names_the_rules_file_and_the_printed_rules(reported):
    _result, md, root = reported
    first = md.split(f"## {FIRST_SCREEN}")[1].split("\n## ")[0]
    assert str(root / "my-rules.toml") in md.splitlines()[0]
    assert "compared with the printed rules (docs/rules.md) on the same dice" in first
    assert "cannon penalty 5 → 3" in first and "full city" in first
    # the rules side by side, the changed fields marked
    rules = md.split("**Rules configuration**")[1]
    assert "| cannon_penalty | 3 | 5 | yes |" in rules


def test_every_headline_change_is_stated_with_its_verdict(reported):
    result, md, _ = reported
    lines = verdict_lines(result)
    head = result.table[result.table["headline"]]
    assert len(lines) == head.groupby(["players", "figure", "kind"]).ngroups
    for line, said, _ in lines:
        assert line in md
        assert said in ("holds for every bot", "bot-dependent", NOT_SETTLED)
    unsettled = [ln for ln, said, _ in lines if said == NOT_SETTLED]
    if unsettled:  # each with the games it needs
        assert all("more games" in ln for ln in unsettled)
        assert "**Not settled**" in md


def test_the_tables_hold_the_figures_shown(reported):
    _result, md, root = reported
    t = pd.read_csv(root / "report" / "tables" / "study_the_pirates.csv")
    shown = md.split("## The pirates")[1].split("\n## ")[0]
    for _, row in t.iterrows():
        assert f"{100 * row['change']:+.1f}" in shown or f"{row['change']:+.2f}" in shown
    assert set(t["figure"]) == {"cannons_changed_winner", "cannons_lost", "vp_cannon_vp"}


def test_a_report_is_not_written_over_a_result(reported):
    _, _, root = reported
    with pytest.raises(DatasetError, match="holds a study"):
        write_study_report(root / "study", root / "study")


def test_the_adapted_bot_and_the_compensation_have_their_sections(tmp_path):
    from smsim.report.study import study_page
    from smsim.studies.adapt import AdaptPlan

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(S, "ADAPT", AdaptPlan(budget=8, games=300, held_out_games=400))
        mp.setattr(S, "FAIRNESS_GAMES", 40)
        mp.setattr(S, "FAIRNESS_CHECK_GAMES", 40)
        plan = S.plan_study(
            Rules(rotation_cost=0),
            [2],
            ["balanced"],
            seed=1,
            skill=False,
            bonus=False,
            first_games=200,
            adapt=True,
            fairness=True,
        )
        result = S.run_study(plan, tmp_path / "s", max_games=200, threads=2)
    built = study_page(result)
    titles = [s.title for s in built.sections]
    assert "The bot adapted to these rules" in titles and "Seat compensation" in titles
    adapted = built.sections[titles.index("The bot adapted to these rules")]
    assert "better than the base" in adapted.blocks[0].text
    assert "L1 adapted (balanced tuned on these rules)" in built.opening[0].intro
    assert any("L1 adapted" in line for line, _ in built.findings)  # its changes are judged with the others


def test_the_printed_rules_alone_judge_each_figure_itself(tmp_path):
    from smsim.report.study import FIRST_SCREEN_PRINTED, study_page

    plan = S.plan_study(Rules(), [2], ["greedy"], seed=4, bonus=False, skill=False, first_games=300)
    result = S.run_study(plan, tmp_path / "printed", max_games=300, threads=2)
    built = study_page(result)
    assert built.title == "Saint Malo: the printed rules" and built.opening[0].title == FIRST_SCREEN_PRINTED
    assert "nothing to compare with" in built.opening[0].intro
    assert set(result.arm_games) == {"2p-greedy-study-mirror"}  # no printed arms: they would be the same games
    (line,) = [ln for ln, _ in built.findings]
    assert line.startswith("Start player's edge at 2 players: ") and "change" not in line


def test_a_study_with_the_balance_reports_studies_writes_the_whole_balance_report(tmp_path, monkeypatch):
    """``--balance``: the study's report is the balance report of its rules, its bonus arms the
    ablation of "What each bonus is worth", its changes the section "Rule changes studied". (The
    parts are played here by hand, one small mirror: studies/test_balance.py plays parts.)"""
    from smsim.runs.batch import simulate_to
    from tests.helpers import figures_left_blank

    rules = Rules(cannon_penalty=3)
    plan = S.plan_study(rules, [2], ["greedy"], seed=5, skill=False, first_games=200, balance=0.001)
    heard = []
    monkeypatch.setattr(S, "play_balance", lambda parts, folder, *a: heard.append((parts, folder)) or [])
    result = S.run_study(plan, tmp_path / "study", max_games=200, threads=2)
    ((parts, folder),) = heard
    assert folder == tmp_path / "study" / "balance" and "--rules" in parts[0].args  # under the study's rules
    assert result.balance == []
    mirror = folder / "mirror-2p"
    simulate_to(str(mirror), 200, 2, ["greedy"], seed=7, rules=rules, threads=2)
    result = S.read_study(tmp_path / "study")
    assert result.balance == [str(mirror)]
    with figures_left_blank():
        path = write_study_report(result, tmp_path / "report")
    md = path.read_text()
    assert md.startswith("# Saint Malo balance report: cannon penalty 5 → 3")
    assert "## Rule changes studied" in md and "## Wall bonuses" in md
    bonus = pd.read_csv(tmp_path / "report" / "tables" / "bonus_value.csv")
    table, _ = S.bonus_tables(result)
    assert list(bonus["games"]) == list(table["games"]) == [200] * 4
    assert bonus["vp_change"].tolist() == pytest.approx(table["vp_change"].tolist())
