"""Reports: the files written, each table against a recomputation from the dataset with pandas,
well-formed pages for tiny and empty datasets, and refusals."""

import html
import html.parser
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from smsim.errors import DatasetError, SmsimError
from smsim.report import findings as F
from smsim.report import ladder as LA
from smsim.report.inputs import Inputs
from smsim.report.render import MAX_COLUMNS, display_table, markdown_table, slug, split_columns
from smsim.report.tables import TABLES, read_report_data
from smsim.report.write import write_report
from smsim.rules import Rules
from smsim.runs.batch import simulate_to
from tests.helpers import figures_left_blank

SECTIONS = [
    "Levels of play",
    "At a glance",
    "Church series",
    "Wall bonuses",
    "Pirate losses",
    "Outcomes",
    "Heuristics compared",
    "How much skill matters",
    "Data and rules",
]
TOP = [F.FIRST_SCREEN_TITLE, "Key findings"]  # the first screen, then the findings, above the sections


def raw_seats(path: str) -> pd.DataFrame:
    files = sorted(Path(path, "seats").glob("part-*.parquet"))
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


@pytest.fixture(scope="module")
def written(session_report):
    """The report of the 4-player run, the 2-player mirror and the comparison: the session's one
    (conftest.py: ``smsim report``, that is ``write_report(read_report_data(paths), out)``), which
    these tests only read."""
    out, paths, _ = session_report
    return out, paths


@pytest.fixture(scope="module")
def tiny_report(report_datasets, tmp_path_factory):
    """report.md of the 3-game dataset, written by the notebook API (``smsim.make_report``, the
    Python side of ``smsim report``): the tiny page's test and the API's test read it."""
    import smsim

    return smsim.make_report([report_datasets["tiny"]], str(tmp_path_factory.mktemp("tiny-report") / "report"))


@pytest.fixture(scope="module")
def two_report(report_datasets, tmp_path_factory):
    """report.md of the 2-player mirror alone (one level of play), written once for the tests that
    read its text (its figures left blank: the session's report is the drawn one)."""
    with figures_left_blank():
        return write_report(
            read_report_data([report_datasets["two"]]), tmp_path_factory.mktemp("two-report") / "report"
        )


class Collector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.images, self.h2 = [], [], []
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "img":
            self.images.append(dict(attrs)["src"])
        self._in_h2 = tag == "h2"

    def handle_data(self, data):
        if self._in_h2:
            self.h2.append(data)
            self._in_h2 = False


def test_no_table_or_page_names_a_path_of_the_machine(written):
    """The datasets are named by their folders under the one that holds them all (and so are the
    commands that wrote them), not by the absolute paths of the machine that made the report."""
    import os

    out, paths = written
    root = os.path.dirname(os.path.commonpath([os.path.abspath(p) for p in paths]))
    texts = {f.name: f.read_text() for f in [out / "report.md", out / "report.html", *(out / "tables").glob("*.csv")]}
    assert not [name for name, text in texts.items() if root in text]
    md = texts["report.md"]
    for p in paths[:3]:  # the datasets (the last is the wall-bonus study, named in its own section)
        assert f"| {os.path.relpath(p, root)} |" in md


def test_files_sections_and_figures(written):
    out, _ = written
    md = (out / "report.md").read_text()
    assert [line[3:] for line in md.splitlines() if line.startswith("## ")] == [*TOP, *SECTIONS]
    figures = re.findall(r"!\[([\w-]+)\]\(figures/([\w-]+)\.png\)", md)
    assert len(figures) >= 13
    for _name, file in figures:
        for ext in ("png", "svg"):
            assert (out / "figures" / f"{file}.{ext}").stat().st_size > 1000
    page = Collector()
    page.feed((out / "report.html").read_text())
    assert page.h2 == [*TOP, *SECTIONS]
    assert len(page.images) == len(figures)  # the same figures, embedded: the page travels alone
    assert all(src.startswith("data:image/png;base64,") for src in page.images)
    assert "figures/" not in "".join(page.images)
    # every figure's caption says how many games stand behind it
    captions = re.findall(r"^\*(.+)\* \(\[SVG\]", md, flags=re.M)
    assert len(captions) == len(figures) and all(re.search(r"[\d,]+ (comparison )?games", c) for c in captions)


def test_every_table_written_matches_its_recomputation(written):
    out, paths = written
    data = read_report_data(paths)
    csvs = sorted((out / "tables").glob("*.csv"))
    names = {f.stem for f in csvs}
    assert set(TABLES) <= names  # every analysis table is in the report
    for name in TABLES:
        written_table = pd.read_csv(out / "tables" / f"{name}.csv")
        fresh = TABLES[name](data).reset_index(drop=True)
        assert list(written_table.columns) == [str(c) for c in fresh.columns], name
        for col in fresh.columns:
            if pd.api.types.is_numeric_dtype(fresh[col]) and not pd.api.types.is_bool_dtype(fresh[col]):
                np.testing.assert_allclose(
                    written_table[col].to_numpy(float),
                    fresh[col].to_numpy(float),
                    rtol=1e-9,
                    equal_nan=True,
                    err_msg=f"{name}.{col}",
                )


def _md_rows(md: str, heading_start: str) -> list[list[str]]:
    """The rows of the whole table after the bold line starting with ``heading_start``: the one
    folded in ``<details>`` where the page shows headline rows first, its column parts (a wide
    table is split) joined row by row."""
    lines = md.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(f"**{heading_start}"))
    end = next((k for k in range(i + 1, len(lines)) if lines[k].startswith(("**", "#", "</details>"))), len(lines))
    start = next((k for k in range(i + 1, end) if lines[k].startswith("<details>")), i)
    parts, table = [], []
    for line in lines[start + 1 : end] + [""]:
        if line.startswith("|"):
            table.append([c.strip() for c in line.strip("|").split("|")])
        elif table:
            parts.append(table[2:])  # after the header and the rule
            table = []
    return [[c for cells in row for c in cells] for row in zip(*parts)]


def test_shown_numbers_equal_plain_pandas(written):
    """Numbers on the page, recomputed from the parquet parts with plain pandas."""
    out, paths = written
    md = (out / "report.md").read_text()
    seats = pd.concat([raw_seats(paths[0]), raw_seats(paths[1])], ignore_index=True)
    # a seat's win: its share of the game's (a shared win split between its winners); a game is its players and number
    seats["share"] = seats["won"] / seats.groupby(["players", "game"])["won"].transform("sum")

    # final scores: mean VP and win rate by player count and policy
    rows = _md_rows(md, "Final scores and win rates")
    shown = {(int(r[0]), r[1]): r for r in rows}
    assert len(shown) == 5 + 3  # 4 + 1 policies from the runs, 3 from the comparison
    for (players, policy), g in seats.groupby(["players", "policy"]):
        r = shown[(players, policy)]
        assert r[3].startswith(f"{g['total'].mean():.1f} [") or r[3].startswith(f"{g['total'].mean():.2f} [")
        assert f"{100 * g['share'].mean():.1f}%" in " ".join(r)

    # cannons lost per seat
    rows = {(int(r[0]), r[1]): r for r in _md_rows(md, "Cannons lost")}
    for (players, policy), g in seats.groupby(["players", "policy"]):
        assert rows[(players, policy)][3].split(" [")[0] == f"{g['cannons_lost'].mean():.2f}"

    # sides completed: the top side's rate
    rows = [r for r in _md_rows(md, "Sides completed") if r[2] == "top" and r[0] != "3"]  # 3: the comparison
    assert len(rows) == 5
    for r in rows:
        g = seats[(seats["players"] == int(r[0])) & (seats["policy"] == r[1])]
        assert f"{100 * g['top_completed'].mean():.1f}%" == r[5].split(" [")[0]

    # seat advantage in the 2-player mirror
    rows = [r for r in _md_rows(md, "Win rate by seat") if r[1] == "seats: balanced, balanced"]
    two = seats[seats["players"] == 2]
    assert [r[2] for r in rows] == ["1", "2"]  # seats numbered from 1 on the page
    assert [r[4].split(" [")[0] for r in rows] == [f"{100 * two[two.seat == s]['share'].mean():.1f}%" for s in (0, 1)]


def test_rates_come_with_intervals(written):
    """Every percentage on the page carries its interval, except parity (1 / players, exact)."""
    out, _ = written
    header = None
    for line in (out / "report.md").read_text().splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if header is None:
            header = cells
            continue
        for name, cell in zip(header, cells):
            if name != "parity" and re.fullmatch(r"-?[\d.]+%", cell):
                raise AssertionError(f"a rate without its interval in column {name!r}: {line}")


@pytest.mark.parametrize(
    "name, says",
    [
        (
            "tiny",
            [
                "No comparison among these data",
                "No skill study among these data",
                "No strength check was possible: these data hold no mirror games of the ladder's levels",
            ],
        ),
        ("empty", ["No games in these data.", "not in these data (no rows)", "no seats in these data"]),
    ],
)
def test_tiny_and_empty_reports_are_well_formed(request, report_datasets, tmp_path, name, says):
    if name == "tiny":  # the page smsim.make_report wrote (test_notebook_api_returns_the_report_tables)
        path = request.getfixturevalue("tiny_report")
    else:
        path = write_report(read_report_data([report_datasets[name]]), tmp_path)
    md = path.read_text()
    assert [line[3:] for line in md.splitlines() if line.startswith("## ")] == [*TOP, *SECTIONS]
    for text in says:
        assert text in md
    page = Collector()
    page.feed(path.with_suffix(".html").read_text())
    assert page.h2 == [*TOP, *SECTIONS]
    assert "| max_rounds | 200 |" in md  # the rules, in full
    # every question is answered in its order, what the data cannot tell said so, nothing stated from them
    items = _findings(md)
    assert len(items) == len(F.DESIGN_ORDER)
    assert items[0].startswith("1. The start player's edge")
    assert ("not settled" if name == "tiny" else "is not measured here") in items[0]


def test_refusals(report_datasets, tmp_path):
    with pytest.raises(DatasetError, match="holds an smsim dataset"):
        write_report(read_report_data([report_datasets["tiny"]]), report_datasets["two"])
    with pytest.raises(DatasetError, match="not an smsim dataset"):
        read_report_data([str(tmp_path)])
    variant = Rules().with_overrides(["cannon_penalty=4"])
    simulate_to(str(tmp_path / "variant"), 3, 2, ["random"], seed=1, rules=variant)
    with pytest.raises(DatasetError, match="cannon_penalty"):
        read_report_data([report_datasets["two"], str(tmp_path / "variant")])


def test_display_puts_intervals_in_brackets():
    t = pd.DataFrame(
        {
            "policy": ["a"],
            "win": [0.5],
            "win_lo": [0.4],
            "win_hi": [0.6],
            "win_count": [5],
            "vp": [41.25],
            "vp_lo": [40.0],
            "vp_hi": [42.5],
        }
    )
    d = display_table(t)
    assert list(d.columns) == ["policy", "win [95% CI]", "vp [95% CI]"]
    assert d.iloc[0].tolist() == ["a", "50.0% [40.0, 60.0]", "41.2 [40.0, 42.5]"]  # the one form: interval_text
    assert markdown_table(t).splitlines()[0] == "| policy | win [95% CI] | vp [95% CI] |"


def test_notebook_api_returns_the_report_tables(written, tiny_report):
    import smsim

    _out, paths = written
    tables = smsim.report_tables(paths)
    assert set(tables) == set(TABLES)
    pd.testing.assert_frame_equal(
        tables["scores"].reset_index(drop=True), TABLES["scores"](read_report_data(paths)).reset_index(drop=True)
    )
    assert tiny_report.is_file()  # what smsim.make_report returned (the fixture called it)


def test_regenerating_changes_no_figure(written, tmp_path):
    out, paths = written  # the session's report (``smsim report``, that is write_report), written again
    write_report(read_report_data(paths), tmp_path / "b")
    figures = sorted((out / "figures").iterdir())
    assert len(figures) >= 30 and {f.suffix for f in figures} == {".png", ".svg"}
    assert sorted(f.name for f in figures) == sorted(f.name for f in (tmp_path / "b" / "figures").iterdir())
    for f in figures:
        assert f.read_bytes() == (tmp_path / "b" / "figures" / f.name).read_bytes(), f.name


# -- three strengths of play --------------------------------------------------------------------------
LADDER = ("balanced", "learned", "cheap")  # a cheap search stands in for L3: fast enough for a test


@pytest.fixture(scope="module")
def ladder(report_datasets, ladder_datasets, tmp_path_factory):
    """Mirrors of three levels at 4 players (the session's ``ladder_datasets``: 400 games of
    balanced and of learned, 24 of a cheap search), a skill study with a variant, and the report
    of them beside the 4-player run of mixed seats; and the same report without the upper levels.
    The mirrors are copied in here (bal4, lrn4, ro4): the session's stay as they were."""
    from smsim.studies.skill import plan_skill, run_skill
    from smsim.studies.sweep import plan_variants

    root = tmp_path_factory.mktemp("ladder-page")
    for name, key in (("bal4", "bal4"), ("lrn4", "lrn4"), ("ro4", "cheap4")):
        shutil.copytree(ladder_datasets[key], root / name)
    plan = plan_skill(
        4, ["greedy", "balanced", "learned"], games=80, seed=34, variants=plan_variants(files=["free-rotation"])
    )
    skill = run_skill(plan, root / "skill4", threads=2)
    from smsim.studies.bonus import plan_bonus, run_bonus

    for level, seed in (("balanced", 21), ("learned", 22)):  # the wall bonuses' ablations at L1 and L2
        run_bonus(plan_bonus(4, level, games=40, seed=seed), root / f"bonus-{level}", threads=2)
    main = [str(root / "bal4"), report_datasets["four"]]
    data = read_report_data(
        [*main, str(root / "lrn4"), str(root / "ro4"), str(root / "bonus-balanced"), str(root / "bonus-learned")],
        ladder=LADDER,
    )
    with figures_left_blank():  # both read for their text and tables alone (the figures: test_plots)
        write_report(data, root / "report", Inputs.of(skill=[skill]))
        write_report(read_report_data(main, ladder=LADDER), root / "plain")
    return root


def _section(md: str, title: str) -> str:
    return md.split(f"\n## {title}\n")[1].split("\n## ")[0]


def test_the_findings_come_in_a_designers_order_and_the_levels_near_the_top(ladder):
    """The findings answer the designer's questions in their order, each judged by the margin rule;
    the levels of play come first among the sections."""
    md = (ladder / "report" / "report.md").read_text()
    items = _findings(md)
    assert len(items) == len(F.DESIGN_ORDER)
    for line, start in zip(
        items,
        (
            "The start player's edge",
            "The pirates decide",
            "Each wall bonus is worth",
            "The skill gap",
            "The rules variants",
            "How the rules variants",
        ),
    ):
        assert line.split(". ", 1)[1].startswith(start), line
    assert items[4].endswith("([How much skill matters](#how-much-skill-matters))")  # no sweep: the skill study's
    found = F.report_findings(
        read_report_data([str(ladder / "bal4"), str(ladder / "lrn4"), str(ladder / "ro4")], ladder=LADDER)
    )
    assert [f.key for f in found] == list(F.DESIGN_ORDER)
    assert {f.verdict for f in found} <= {F.MOVES, F.SAME, F.NOT_SETTLED, F.NOT_MEASURED}
    assert md.index("\n## Levels of play\n") < md.index("\n## At a glance\n")
    assert "L1 `balanced`: the built-in heuristic" in _section(md, "Levels of play")


def test_each_section_opens_with_its_ladder(ladder):
    """The four sections on the game open with their ladder: a figure, then a row per figure with
    its value and interval at every level measured, and a verdict; the games behind each level are
    said once, in the caption, not in every cell."""
    from smsim.report.ladder import VERDICTS

    md = (ladder / "report" / "report.md").read_text()
    for title in ("Church series", "Wall bonuses", "Pirate losses", "Outcomes"):
        sec = _section(md, title)
        assert sec.split("\n### ")[1].startswith("Across strengths of play"), title
        topic = sec.split("### Across strengths of play")[1].split("\n### ")[0]
        assert topic.index("![ladder-") < topic.index("across strengths of play:")
        assert "<details>" not in topic  # a ladder is shown whole, every row
        header, *rows = [r for r in topic.splitlines() if r.startswith("| ") and "---" not in r]
        assert rows, title
        # L1, L2 and L3 (cheap: 24 games at 4 players), the wall bonuses' L1 and L2 (their ablations)
        levels = sum(1 for c in header.strip("| ").split(" | ") if re.match(r"L\d ", c) and "change" not in c)
        assert levels == (2 if title == "Wall bonuses" else 3), header
        for row in rows:
            cells = row.strip("| ").split(" | ")
            for cell in cells[2 : 2 + levels]:
                assert cell == "not measured" or (INTERVAL.search(cell) and not GAMES.search(cell)), row
            for cell in cells[
                2 + levels : 1 + 2 * levels
            ]:  # the change from L1 at L2 and L3, signed, with its interval
                assert cell == "not measured" or re.match(r"[+-]\d+\.\d+ (points|VP|rounds)? ?\[[+-]", cell), row
            assert cells[-1].split(":")[0] in VERDICTS, row
        said = "L1 40 games; L2 40 games" if title == "Wall bonuses" else "L1 400 games; L2 400 games; L3 24 games"
        assert f"the games behind each level: {said}" in topic  # the wall bonuses': their ablations' games
        t = pd.read_csv(ladder / "report" / "tables" / f"ladder_{slug(title).replace('-', '_')}.csv")
        assert len(t) == len(rows) and set(t["section"]) == {title}
        assert {"L2_change", "L2_change_lo", "L2_change_hi", "L3_change", "margin"} <= set(t.columns)
        assert (t["L2_change"] - (t["L2"] - t["L1"])).abs().max() < 1e-12
    # the top counts the verdicts per player count
    glance = _section(md, "At a glance")
    counts = pd.read_csv(ladder / "report" / "tables" / "strength_check.csv")
    assert counts["players"].tolist() == [4]
    assert counts.loc[0, list(VERDICTS)].sum() == counts.loc[0, "figures"]
    assert "L1 balanced: 400 games, L2 learned: 400 games, L3 cheap: 24 games" in glance
    assert "| 4 | L1 balanced: 400 games" in glance
    assert LA.margins_sentence() in glance  # the margins the verdicts were judged by, near the strength check


def test_upper_levels_stay_out_of_the_other_tables(ladder):
    """Every table but the ladders is the same with or without the upper levels; they are listed
    among the datasets."""
    plain = {f.name for f in (ladder / "plain" / "tables").glob("*.csv")}
    for name in sorted(plain - {"strength_check.csv"}):
        if name.startswith("ladder_"):
            continue
        assert (ladder / "plain" / "tables" / name).read_text() == (ladder / "report" / "tables" / name).read_text(), (
            name
        )
    md = (ladder / "report" / "report.md").read_text()
    assert "| simulate (level L3) | 4 | 24 |" in md and "| simulate (level L2) | 4 | 400 |" in md
    plain_md = (ladder / "plain" / "report.md").read_text()
    assert "No strength check was possible: these data hold the mirror games of one level of play only" in plain_md


def test_a_small_two_level_report_says_not_settled_and_one_level_no_check(two_report, ladder, tmp_path, figures_blank):
    data = read_report_data([str(ladder / "bal4"), str(ladder / "ro4")], ladder=("balanced", "cheap"))
    write_report(data, tmp_path / "small")
    t = pd.read_csv(tmp_path / "small" / "tables" / "strength_check.csv")
    assert t.loc[0, "not settled"] > 0
    # 24 games rule out no change of a point or a quarter round: only a figure too small to move
    # by its margin at all (coins left, in VP) can be stable
    rows = pd.concat([pd.read_csv(f) for f in (tmp_path / "small" / "tables").glob("ladder_*.csv")])
    stable = rows[rows["verdict"] == "stable"]
    assert len(stable) == t.loc[0, "stable"] and (stable["L2_hi"] - stable["L2_lo"] < stable["margin"]).all()
    md = (tmp_path / "small" / "report.md").read_text()
    assert "not settled: too few games at L2 (L1 → L2 not settled (" in md  # 24 games: a level with too few
    one = two_report.read_text()  # the 2-player mirror alone
    assert "No strength check was possible" in _section(one, "At a glance")


def test_headline_rows_and_the_glance_table_stand_on_the_same_games(ladder):
    """One source per figure: a section's headline rows are computed on the at-a-glance games, so
    "cannons change the winner" reads the same in its section as at a glance; the whole table,
    pooled over every line-up, is folded below and labelled so."""
    md = (ladder / "report" / "report.md").read_text()
    glance = pd.read_csv(ladder / "report" / "tables" / "at_a_glance.csv").set_index("players")
    topic = _section(md, "Pirate losses").split("**Did the cannons change the winner?")[1].split("\n### ")[0]
    short = topic.split("<details>")[0]
    row = next(r for r in short.splitlines() if r.startswith("| 4 |"))
    assert f"{100 * glance.loc[4, 'changed']:.1f}% [" in row
    assert "Headline rows: the at-a-glance games (all balanced, 400 games)" in topic
    assert "The whole table, pooled over all 2 datasets:" in topic


def test_the_skill_section(ladder):
    md = (ladder / "report" / "report.md").read_text()
    sec = _section(md, "How much skill matters")
    assert (
        "**In short**" in sec and "The skill gap (one `learned` seat among `balanced`, minus parity): 4 players" in sec
    )
    matrix = pd.read_csv(ladder / "report" / "tables" / "skill_4p_matrix.csv")
    assert len(matrix) == 6 and set(matrix["games"]) == {80}
    table = sec.split("**The win-rate matrix")[1].split("**The skill gap under")[0]
    rows = [r for r in table.splitlines() if r.startswith("| L")]
    assert len(rows) == 2 and all(len(INTERVAL.findall(r)) == 2 for r in rows)
    assert "rotation cost 2 → 0 (free rotation): " in sec and re.search(r"rounds \[[\d.]+, [\d.]+\] sooner", sec)
    gaps = pd.read_csv(ladder / "report" / "tables" / "skill_4p_variants.csv")
    assert gaps["variant"].tolist() == ["baseline", "rotation cost 2 → 0 (free rotation)"]


def test_report_cli_reads_levels_and_skill_studies(ladder, report_datasets, tmp_path, figures_blank):
    from click.testing import CliRunner

    from smsim.cli import cli

    runner = CliRunner()
    res = runner.invoke(
        cli,
        ["report", str(ladder / "bal4"), str(ladder / "lrn4"), str(ladder / "skill4"), "--out", str(tmp_path / "r")],
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r" / "tables" / "skill_4p_matrix.csv").is_file()
    counts = pd.read_csv(tmp_path / "r" / "tables" / "strength_check.csv")
    assert counts.loc[0, "levels"] == "L1 balanced: 400 games, L2 learned: 400 games"
    res = runner.invoke(cli, ["report", str(ladder / "skill4"), "--out", str(tmp_path / "s")])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "Error: no dataset given beside the studies (fairness results, skill studies, ladders, keep-regret studies); "
        "a folder of smsim study is reported alone"
    ]


# -- the page as a designer reads it ------------------------------------------------------------------
INTERVAL = re.compile(r"-?[\d.,]+(?:%| points| VP| rounds)? \[[-+]?[\d.,]+, [-+]?[\d.,]+\]")  # interval_text's
GAMES = re.compile(r"\b\d[\d,]* (?:paired )?games\b")


class Page(html.parser.HTMLParser):
    """Ids, in-page links, the first h2 and the header cells of every table row of an HTML page."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.h2, self.table_widths = set(), [], [], []
        self._h2 = False
        self._cells = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        self._h2 = tag == "h2"
        if tag == "tr":
            self._cells = 0
        elif tag in ("td", "th") and self._cells is not None:
            self._cells += 1

    def handle_endtag(self, tag):
        if tag == "tr":
            self.table_widths.append(self._cells)
            self._cells = None

    def handle_data(self, data):
        if self._h2:
            self.h2.append(data)
            self._h2 = False


def _findings(md: str) -> list[str]:
    section = md.split("## Key findings")[1].split("\n## ")[0]
    return [line for line in section.splitlines() if re.match(r"\d+\. ", line)]


def test_findings_open_the_page_each_with_interval_and_games(written):
    out, _ = written
    md = (out / "report.md").read_text()
    assert [line for line in md.splitlines() if line.startswith("## ")][:2] == [f"## {t}" for t in TOP]
    items = _findings(md)
    assert len(items) == len(F.DESIGN_ORDER)
    for line in items:  # each measured answer with its interval and games
        assert "is not measured here" in line or (INTERVAL.search(line) and GAMES.search(line)), line
    page = Page()
    page.feed((out / "report.html").read_text())
    assert page.h2[:2] == TOP
    # the HTML states the same findings (code spans aside)
    text = re.sub(r"<[^>]+>", "", (out / "report.html").read_text())
    for line in items:
        sentence = line.split(". ", 1)[1].rsplit(" ([", 1)[0].replace("`", "")
        assert html.unescape(text).count(sentence) == 1, sentence


def test_contents_links_lead_to_headings(written):
    out, _ = written
    md = (out / "report.md").read_text()
    anchors = {slug(line.lstrip("#").strip()) for line in md.splitlines() if re.match(r"#{2,3} ", line)}
    links = re.findall(r"\]\(#([^)]+)\)", md)
    assert len(links) >= len(SECTIONS) and set(links) <= anchors
    assert set(re.findall(r"\]\(#([^)]+)\)", md.split("\n## ")[0])) == {slug(t) for t in [*TOP, *SECTIONS]}
    page = Page()
    page.feed((out / "report.html").read_text())
    assert page.links and set(page.links) <= page.ids
    assert {slug(t) for t in [*TOP, *SECTIONS]} <= set(page.links)


def test_no_table_wider_than_the_page(written):
    out, _ = written
    page = Page()
    page.feed((out / "report.html").read_text())
    assert page.table_widths and max(page.table_widths) <= MAX_COLUMNS
    for line in (out / "report.md").read_text().splitlines():
        if line.startswith("|"):
            assert len(line.strip("|").split(" | ")) <= MAX_COLUMNS, line
    # a wide table is split, and each part keeps its key columns
    parts = split_columns(TABLES["church_sizes"](read_report_data(written[1])))
    assert len(parts) > 1 and all(list(p.columns[:2]) == ["players", "policy"] for p in parts)


def test_sections_show_figure_first_then_headline_rows_then_the_whole_table(written):
    out, _ = written
    md = (out / "report.md").read_text()
    pirates = md.split("## Pirate losses")[1].split("\n## ")[0]
    topic = pirates.split("### Cannons lost")[1].split("\n### ")[0]
    assert topic.index("![cannons]") < topic.index("**Cannons lost.") < topic.index("<details>")
    assert "([CSV](tables/cannons.csv))" in topic  # its headline rows are rows of the whole table: one CSV
    short = topic.split("**Cannons lost.")[1].split("<details>")[0]
    header = next(r for r in short.splitlines() if r.startswith("| "))
    assert header == "| players | policy | seats | cannons lost [95% CI] | cannons lost VP | lost any [95% CI] |"
    assert (out / "tables" / "cannons.csv").is_file()
    page = (out / "report.html").read_text()
    assert page.count("<details>") >= 10 and 'href="tables/cannons.csv"' in page


def _numbers(cells: list[str]) -> list[str]:
    return [t for c in cells for t in re.findall(r"[-+]?\d[\d,]*(?:\.\d+)?", c) if t not in ("95",)]


def _holds(csv: Path, shown: list[str]) -> list[str]:
    """The numbers shown that the CSV holds nowhere, rounded as shown (at scale 1 or 100: percent)."""
    t = pd.read_csv(csv)
    values = t.select_dtypes("number").to_numpy(float).ravel()
    values = values[np.isfinite(values)]
    words = " ".join(str(x) for x in t.select_dtypes(exclude="number").to_numpy().ravel())
    missing = []
    for token in shown:
        x = float(token.replace(",", ""))
        digits = len(token.split(".")[1]) if "." in token else 0
        near = any((np.abs(values * k - x) <= 0.5 * 10**-digits + 1e-9).any() for k in (1, 100))
        if not near and token not in words:
            missing.append(token)
    return missing


@pytest.mark.parametrize("pooled", [False, True])
def test_each_csv_link_holds_the_figures_shown_beside_it(written, report_datasets, tmp_path, pooled):
    """A table's headline rows stand on the at-a-glance games and its whole table on every dataset
    pooled: each has its own CSV, linked beside it, holding the numbers the page shows there (the
    session's report, whose headline rows are rows of its tables, and one with a second 4-player
    dataset, whose whole tables pool both)."""
    out, _ = written
    if pooled:
        simulate_to(str(tmp_path / "mirror4"), 120, 4, ["balanced"], seed=8)
        with figures_left_blank():
            out = write_report(read_report_data([report_datasets["four"], str(tmp_path / "mirror4")]), tmp_path / "r")
        out = out.parent
        assert "tables/cannons_headline.csv" in (out / "report.md").read_text()
    md = (out / "report.md").read_text()
    checked = 0
    for part in md.split("\n**")[1:]:
        links = re.findall(r"\[(CSV[^\]]*)\]\((tables/[^)]+)\)", part.split("\n")[0])
        if not links:
            continue
        body = part.split("\n\n### ")[0].split("\n## ")[0]
        tables = body.split("<details>")
        rows = [[r for r in t.splitlines() if r.startswith("| ") and "[95% CI]" not in r] for t in tables]
        if len(links) == 2:  # the headline rows, then the whole table folded below them
            assert (out / links[0][1]).is_file() and links[0][1].endswith("_headline.csv")
            pairs = [(links[0][1], rows[0][1:]), (links[1][1], rows[1][1:] if len(rows) > 1 else [])]
        else:
            pairs = [(links[0][1], [r for t in rows for r in t[1:]])]
        for csv, shown in pairs:
            cells = [c for r in shown if not r.startswith("| players |") for c in r.strip("|").split("|")[1:]]
            assert _holds(out / csv, _numbers(cells)) == [], (csv, part.split("\n")[0][:80])
            checked += 1
    assert checked > 20


def test_at_a_glance_is_one_row_per_player_count_on_one_dataset_each(written):
    out, paths = written
    t = pd.read_csv(out / "tables" / "at_a_glance.csv")
    assert t["players"].tolist() == [2, 3, 4]
    seats = raw_seats(paths[1])  # the 2-player mirror: the only dataset of 2 players
    two = t[t["players"] == 2].iloc[0]
    assert two["games"] == seats["game"].nunique()
    share = seats["won"] / seats.groupby("game")["won"].transform("sum")  # a shared win split between its winners
    assert two["start_win"] == pytest.approx(share[seats.seat == 0].mean())
    assert two["last_win"] == pytest.approx(share[seats.seat == 1].mean())
    assert two["start_win"] + two["last_win"] == pytest.approx(1.0)
    four = t[t["players"] == 4].iloc[0]  # four policies in fixed seats: the seats are not measured alone
    assert np.isnan(four["start_win"]) and four["games"] == 600
    md = (out / "report.md").read_text()
    glance = md.split("## At a glance")[1].split("\n## ")[0]
    assert glance.index("![seat-parity]") < glance.index("| players | games |")


def test_a_missing_figure_is_the_one_mark_and_intervals_the_one_form():
    """The page's tables write a figure with its interval as ``intervals.interval_text`` does, and
    a missing figure as ``intervals.MISSING`` (not "nan", not a hyphen)."""
    from smsim.intervals import MISSING, interval_text
    from smsim.report.outline import glance_shown

    t = pd.DataFrame(
        {
            "policy": ["a", "b"],
            "win": [np.nan, 0.25],
            "win_lo": [np.nan, 0.2496],
            "win_hi": [np.nan, 0.2504],
            "vp": [41.25, 3.5],
            "vp_lo": [np.nan, 3.25],
            "vp_hi": [np.nan, 3.75],
        }
    )
    d = display_table(t)
    assert d.iloc[0].tolist() == ["a", MISSING, "41.2"]  # no interval: the value alone
    assert d.iloc[1].tolist() == [
        "b",
        interval_text(0.25, 0.2496, 0.2504, scale=100, unit="%"),
        interval_text(3.5, 3.25, 3.75, digits=2),
    ]
    assert d.iloc[1].tolist() == ["b", "25.0% [25.0, 25.0]", "3.50 [3.25, 3.75]"]
    glance = pd.DataFrame(
        {
            "players": [2],
            "games": [10],
            "field": ["balanced"],
            "start_win": [np.nan],
            "start_win_lo": [np.nan],
            "start_win_hi": [np.nan],
            "last_win": [0.5],
            "last_win_lo": [0.4],
            "last_win_hi": [0.6],
            "parity": [0.5],
            "changed": [np.nan],
            "changed_lo": [np.nan],
            "changed_hi": [np.nan],
            "rounds": [20.0],
            "rounds_lo": [19.5],
            "rounds_hi": [np.nan],
        }
    )
    cells = glance_shown(glance).iloc[0].tolist()
    assert f"{MISSING} (seats and policies confounded)" in cells and "50.0% [40.0, 60.0]" in cells
    assert MISSING in cells and f"20.00 [19.50, {MISSING}]" in cells
    assert not any("nan" in str(c) for c in cells)


def test_a_policy_file_named_as_markup_is_escaped_in_the_html_report(tmp_path, figures_blank):
    """A policy file's name is printed as text: ``<img src=x onerror=alert(1)>.toml`` is no tag (the
    figures left blank: their images are embedded all the same, the only tags the page may hold)."""
    name = "<img src=x onerror=alert(1)>"
    policy = tmp_path / f"{name}.toml"
    policy.write_text('base = "balanced"\n')
    simulate_to(str(tmp_path / "data"), 40, 2, [str(policy), "greedy"], seed=8, batch=40)
    md = write_report(read_report_data([str(tmp_path / "data")]), tmp_path / "report")
    page = md.with_name("report.html").read_text()
    assert name in md.read_text() or html.escape(name) in md.read_text()  # the policy is named on the page
    assert "onerror=alert(1)" in page  # named in the HTML too, as text ...
    assert "<img src=x" not in page and html.escape(name, quote=False) in page  # ... never as a tag
    collector = Collector()
    collector.feed(page)
    assert all(src.startswith("data:image/png;base64,") for src in collector.images)


class TextOutsideCode(html.parser.HTMLParser):
    """The page's text as a reader sees it, code spans and their like left out."""

    def __init__(self):
        super().__init__()
        self.text, self._code = [], 0

    def handle_starttag(self, tag, attrs):
        self._code += tag in ("code", "pre", "style")

    def handle_endtag(self, tag):
        self._code -= tag in ("code", "pre", "style")

    def handle_data(self, data):
        if not self._code:
            self.text.append(data)


def test_no_literal_markdown_emphasis_in_the_html(written):
    """Page text written for Markdown (*stable*, **In short**) shows as emphasis on the HTML page,
    never as asterisks."""
    out, _ = written
    md, page = (out / "report.md").read_text(), (out / "report.html").read_text()
    assert re.search(r"(?<![\w*])\*[^*\s][^*\n]*\*", md)  # the Markdown has emphasis ...
    reader = TextOutsideCode()
    reader.feed(page)
    text = "".join(reader.text)
    assert "<em>" in page and not re.search(r"\*\*|(?<![\w*])\*\S[^*]*?\S\*(?![\w*])", text)  # ... the HTML none
    assert "*" not in text


def test_vp_by_source_headline_rows_add_up_to_the_total(written):
    """Every source of the final score is in the headline rows (coins and logs left too), in words,
    so a row adds up to its total (to the rounding of the cells)."""
    out, _ = written
    md = (out / "report.md").read_text()
    table = md.split("**VP by source.")[1].split("\n\n")[1].splitlines()
    head = [c.strip() for c in table[0].strip("|").split("|")]
    assert {"church series VP", "coins left VP", "logs left VP", "full city VP", "cannons lost VP", "total"} <= set(
        head
    )
    parts = [c for c in head if c.endswith("VP") or c.startswith("VP ")]
    assert "VP earned in play" in parts
    for line in table[2:]:
        cells = dict(zip(head, (c.strip() for c in line.strip("|").split("|"))))
        assert abs(sum(float(cells[c]) for c in parts) - float(cells["total"])) < 0.05 * (len(parts) + 1)


def test_the_first_screen_is_a_box_of_verdicts_levels_and_the_game(written):
    """Above the findings, in a box: each design question with its answer in a line, in the
    findings' order, the levels of play in a sentence, and the picture of a median game."""
    out, _ = written
    md = (out / "report.md").read_text()
    first = md.split(f"## {F.FIRST_SCREEN_TITLE}\n")[1].split("\n## ")[0]
    lines = [line[2:] for line in first.splitlines() if line.startswith("- ")]
    answered = [line.split("? ")[0] + "?" for line in lines if not line.startswith("Not answered")]
    unanswered = [line for line in lines if line.startswith("Not answered by these data: ")]
    assert len(unanswered) <= 1 and not any("not measured" in line for line in lines)
    # every question once, in the findings' order: those answered, then those these data cannot answer
    asked = [F.QUESTIONS[k] for k in F.DESIGN_ORDER]
    assert answered == [q for q in asked if q in answered]
    assert sorted([*answered, *(q for q in asked if unanswered and q in unanswered[0])]) == sorted(asked)
    assert "Levels of play (docs/policies.md): L1 `balanced`, L2 `learned`, L3 `rollout-learned`" in first
    assert "Every bracket [low, high] on this page, in a sentence or a table, is a 95% interval." in first
    assert "![median-game](figures/median-game.png)" in first and (out / "figures" / "median-game.png").stat().st_size
    page = (out / "report.html").read_text()
    box = page.split('<section class="first-screen">')[1].split("</section>")[0]
    assert box.count("<li>") == len(lines) and 'alt="median-game"' in box
    assert page.index('<section class="first-screen">') < page.index('id="key-findings"')


def test_a_report_links_the_reports_to_read_with_it(written, report_datasets, tmp_path, run, figures_blank):
    """``--see-also DIR``: the first screen links the report written in DIR (its Markdown page from
    the Markdown, its HTML page from the HTML, by a path relative to the report), naming the
    sections it adds; a folder with no report is refused in one line before anything is written."""
    same, _ = written  # a report with this one's sections: it adds none
    feel = tmp_path / "feel"  # a report with sections of its own (only its headings are read)
    feel.mkdir()
    (feel / "report.md").write_text(
        "# Saint Malo: how the game feels\n\nMade by smsim.\n\n## Key findings\n\n## How the game feels\n\n"
        "## Church series\n\n## What matters\n\n## Data and rules\n"
    )
    out = tmp_path / "deep" / "rep"
    made = run("report", report_datasets["tiny"], "--see-also", str(feel), "--see-also", str(same), "--out", str(out))
    assert made.exit_code == 0, made.output
    md = (out / "report.md").read_text()
    first = md.split(f"## {F.FIRST_SCREEN_TITLE}\n")[1].split("\n## ")[0]
    links = [x for x in first.splitlines() if x.startswith("**Read with:**")]
    assert links == [
        "**Read with:** [Saint Malo: how the game feels](../../feel/report.md), with its sections How the game feels "
        "and What matters.",
        f"**Read with:** [Saint Malo balance report]({os.path.relpath(same, out)}/report.md).",
    ]
    assert (out / "../../feel/report.md").resolve() == (feel / "report.md").resolve()  # the link leads there
    assert (out / os.path.relpath(same, out) / "report.md").resolve() == (same / "report.md").resolve()
    page = (out / "report.html").read_text()
    box = page.split('<section class="first-screen">')[1].split("</section>")[0]
    assert '<a href="../../feel/report.html">Saint Malo: how the game feels</a>' in box
    refused = run("report", report_datasets["tiny"], "--see-also", str(tmp_path), "--out", str(tmp_path / "q"))
    assert refused.exit_code == 2 and "--see-also" in refused.output and "no report.md" in refused.output
    assert "Traceback" not in refused.output and not (tmp_path / "q").exists()


@pytest.mark.parametrize(
    "margins, words",
    [
        ({"vp": -1}, ["vp", "at least 0"]),
        ({"rate": float("nan")}, ["rate"]),
        ({"rounds": "0.25"}, ["rounds", "'0.25'"]),
        ({"coins": 1.0}, ["'coins'", "not a unit"]),
    ],
)
def test_a_bad_margin_is_refused_before_any_data_is_read(tmp_path, margins, words):
    from smsim.report.write import report

    with pytest.raises(SmsimError) as e:
        report(["/nonexistent/dir"], str(tmp_path / "rep"), margins=margins)
    assert "\n" not in str(e.value) and all(w in str(e.value) for w in words)
    assert not (tmp_path / "rep").exists()


def test_the_margins_reach_the_page(report_datasets, tmp_path, monkeypatch, figures_blank):
    """``report`` and ``write_report`` hand their margins, the defaults filled in, to the page."""
    from smsim.intervals import MARGINS
    from smsim.report import write as W

    seen = []
    real = W.page
    monkeypatch.setattr(W, "page", lambda *a, **k: seen.append(a[3]) or real(*a, **k))
    W.report([report_datasets["tiny"]], str(tmp_path / "rep"), margins={"vp": 0.25})
    assert seen == [{**MARGINS, "vp": 0.25}]
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "smallest change that matters: 1 point of a rate or of a share of VP, 0.25 VP," in md


def test_every_id_in_the_html_is_unique(written):
    """Sections share subheadings ("Across strengths of play"): each id appears once, numbered as
    GitHub numbers the Markdown page's anchors, so that a link leads to one place."""
    import re
    from collections import Counter

    out, _ = written
    ids = Counter(re.findall(r'id="([^"]+)"', (out / "report.html").read_text()))
    assert ids and max(ids.values()) == 1
