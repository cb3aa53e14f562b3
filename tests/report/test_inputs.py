"""report.inputs: every kind of study a report reads is declared once (reader, rules, games,
section), sorted in one place, refused in one place when under other rules than the report's."""

import inspect

import pytest

from smsim.errors import DatasetError
from smsim.report import inputs as I
from smsim.report.outline import page
from smsim.report.write import report, write_report
from smsim.rules import Rules
from smsim.runs.batch import simulate_to
from smsim.runs.folder import KINDS
from smsim.studies.study import plan_study, run_study

DATA_KINDS = {"dataset", "comparison", "sweep", "bonus", "learn"}  # the tables' data, or not a report's input


def test_every_study_kind_a_folder_can_hold_is_declared_with_its_reader():
    readable = {kind for kind, d in I.DECLARED.items() if d.read is not None}
    assert readable == set(KINDS) - DATA_KINDS
    for kind, d in I.DECLARED.items():
        assert d.what and callable(d.rules) and callable(d.games), kind


def test_the_report_s_entry_points_take_a_handful_of_parameters():
    assert len(inspect.signature(write_report).parameters) <= 6
    assert len(inspect.signature(page).parameters) <= 6


def test_inputs_of_results_in_hand_and_an_unknown_kind():
    with pytest.raises(ValueError, match="no report input of kind lattice"):
        I.Inputs.of(lattice=[1])
    assert I.Inputs.of(ladder=[]).studies == {}


@pytest.fixture(scope="module")
def study_and_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    simulate_to(str(root / "mirror"), 60, 2, ["greedy"], seed=4, batch=30)
    plan = plan_study(Rules(cannon_penalty=3), [2], ["greedy"], seed=4, bonus=False, skill=False, first_games=200)
    run_study(plan, root / "study", max_games=200, threads=2, source="milder.toml")
    return root


def test_a_study_folder_beside_the_datasets_adds_its_section_and_first_screen_lines(study_and_data, figures_blank):
    """A kind added by its three places (its Kind, its declaration, its section): the report reads
    the folder, keeps its other rules (a study compares them by design) and shows its section."""
    root = study_and_data
    md = report([str(root / "mirror"), str(root / "study")], str(root / "report")).read_text()
    section = md.split("\n## Rule changes studied\n")[1].split("\n## ")[0]
    assert "milder.toml (cannon penalty 5 → 3 (milder cannons))" in section
    assert "Start player's edge at 2 players, change" in section
    first = md.split("\n## Key findings\n")[0]
    assert "**Rule changes studied**" in first and "verdicts settled" in first
    kinds = {str(root / x): k for x, k in (("mirror", "dataset"), ("study", "study"))}
    found, rest = I.read_inputs(list(kinds), kinds)
    (study,) = found.studies["study"]
    assert (study.path, study.rules, study.games) == (str(root / "study"), Rules(cannon_penalty=3), study.result.games)
    assert rest == [str(root / "mirror")]


def test_a_study_of_a_kind_that_must_share_the_rules_is_refused_in_one_place(study_and_data):
    from smsim.studies.study import read_study

    result = read_study(study_and_data / "study")
    inputs = I.Inputs({"ladder": [I.Study("ladder", "runs/l", Rules(rotation_cost=3), 10, result)]})
    with pytest.raises(
        DatasetError, match="'runs/l' is a ladder under other rules than the report's \\(rotation_cost\\)"
    ):
        I.check_rules(inputs, Rules())
    I.check_rules(I.Inputs.of(study=[result]), Rules())  # a study of a rules change: its own rules, by design


def test_a_study_folder_alone_gets_its_own_report_and_two_are_refused(study_and_data, tmp_path, figures_blank):
    root = study_and_data
    md = report([str(root / "study")], str(tmp_path / "alone")).read_text()
    assert md.startswith("# Saint Malo: milder.toml against the printed rules")
    with pytest.raises(DatasetError, match="a folder of smsim study is reported alone"):
        report([str(root / "study"), str(root / "study")], str(tmp_path / "two"))
