"""The replay page (report/replay.py): one self-contained file, its data the referee's, and in a
real browser (the system's headless Chromium, where one is installed) what it shows at a step,
reached by the address or by key presses, is the game's position there."""

import html.parser
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from smsim.play.api import play_game
from smsim.play.replay import games_of, replay_game, vp_by_round
from smsim.report.replay import replay_page
from smsim.rules import Rules

BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
needs_browser = pytest.mark.skipif(BROWSER is None, reason="no Chromium here: .ci/run installs Debian's chromium")


@pytest.fixture(scope="module")
def game():
    data = replay_game(games_of(play_game(4, 7, 0, ["balanced", "learned", "greedy", "random"], Rules()).records)[0])
    return data, replay_page(data)


def embedded(page: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1))


def test_one_self_contained_file_whose_data_is_the_games(game):
    data, page = game
    assert len(page.encode()) < 2 * 1024 * 1024
    assert not re.search(r"(src|href)=\"(?!#)", page) and "http" not in page.replace(
        "http-equiv", ""
    )  # nothing fetched
    back = embedded(page)
    assert back["steps"] == data["steps"] and back["course"] == vp_by_round(data)
    assert page.count("</script>") == 2


def test_a_name_that_is_markup_never_closes_the_data_early(game):
    data, _ = game
    sly = {**data, "header": {**data["header"], "policies": ["</script><script>alert(1)</script>"] * 4}}
    page = replay_page(sly)
    assert page.count("</script>") == 2 and "<script>alert" not in page
    assert embedded(page)["header"]["policies"][0] == "</script><script>alert(1)</script>"


class Shown(html.parser.HTMLParser):
    """What a rendered page shows: the step line, each seat's 49 cells and its figures."""

    def __init__(self):
        super().__init__()
        self.where, self.hash, self.cells, self.fields = "", "", {}, {}
        self._in, self._seat, self._field = None, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") in ("where", "hash"):
            self._in = a["id"]
        if "data-seat" in a:
            self._seat = int(a["data-seat"])
            self.cells[self._seat], self.fields[self._seat] = "", {}
        if "data-letter" in a:
            self.cells[self._seat] += a["data-letter"]
        if "data-field" in a:
            self._field = a["data-field"]

    def handle_data(self, text):
        if self._in == "where":
            self.where += text
        elif self._in == "hash":
            self.hash += text
        if self._field is not None:
            self.fields[self._seat][self._field] = int(text)
            self._field = None

    def handle_endtag(self, tag):
        self._in = None


def rendered(page: str, tmp: Path, fragment: str = "", keys: list[str] = ()) -> Shown:
    """The page as headless Chromium shows it after loading at ``fragment`` and the ``keys`` pressed."""
    if keys:  # the page's own key handler, fed the presses in order; then where the address points
        press = "".join(
            f"document.dispatchEvent(new KeyboardEvent('keydown', {{key: {json.dumps(k)}}}));" for k in keys
        )
        page = page.replace(
            "</body>",
            f"<script>{press}document.body.insertAdjacentHTML('beforeend', "
            "'<p id=\"hash\">' + location.hash + '</p>');</script></body>",
        )
    path = tmp / "page.html"
    path.write_text(page, encoding="utf-8")
    done = subprocess.run(
        [
            BROWSER,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=3000",
            "--dump-dom",
            path.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    shown = Shown()
    shown.feed(done.stdout)
    return shown


def assert_step(shown: Shown, data: dict, k: int) -> None:
    step = data["steps"][k]
    assert shown.where.startswith(f"step {k} of" if k else "start")
    for s, seat in enumerate(step["seats"]):
        assert shown.cells[s] == seat["city"], (k, s)
        assert shown.fields[s] == {f: seat[f] for f in ("coins", "logs", "vp", "defence", "cannons_lost", "score")}


@needs_browser
@pytest.mark.parametrize("k", [0, 1, 37, -1])
def test_the_address_shows_the_position_of_its_step(game, tmp_path, k):
    data, page = game
    k = k % len(data["steps"])
    assert_step(rendered(page, tmp_path, f"#step-{k}"), data, k)


@needs_browser
def test_key_presses_step_through_the_game_and_the_address_follows(game, tmp_path):
    data, page = game
    last = len(data["steps"]) - 1
    for keys, k in (
        (["ArrowRight"] * 3, 3),
        (["End", "ArrowLeft"], last - 1),
        (["PageDown", "PageDown", "ArrowLeft"], 19),
        (["End", "ArrowRight", "Home", "ArrowLeft"], 0),
    ):
        shown = rendered(page, tmp_path, keys=keys)
        assert_step(shown, data, k)
        assert shown.hash == f"#step-{k}"


def test_the_win_probability_course_reads_the_positions_the_engine_records(tmp_path):
    """The page's win probabilities come from the referee's positions at each round's start; the
    engine records the same positions as round snapshots (simulate --rounds), so both give the same
    probabilities, and the end gives the outcome."""
    from smsim.report.replay import win_probability_course
    from smsim.runs.batch import simulate_to
    from smsim.studies.winprob import fit_winprob, read_positions, win_probabilities

    simulate_to(str(tmp_path / "fit"), 300, 3, ["balanced"], seed=61, rounds=True)
    model = fit_winprob([str(tmp_path / "fit")])
    simulate_to(str(tmp_path / "game"), 1, 3, ["balanced"], seed=9, rounds=True)
    engine = win_probabilities(model, read_positions(str(tmp_path / "game")))
    data = replay_game(games_of(play_game(3, 9, 0, ["balanced"], Rules()).records)[0])
    course = win_probability_course(data, model)
    import numpy as np

    assert len(course) == len(engine) and np.allclose(course, engine, atol=1e-4)
    assert sum(course[-1]) == pytest.approx(1.0) and max(course[-1]) >= 0.5  # the end: the outcome (a win, or shared)
    page = replay_page(data, model, "wp.json")
    assert embedded(page)["wp"] == course and "win probability (' + D.wp_model" in page


def test_the_costliest_decisions_are_the_picks_significantly_worse_costliest_first(game):
    from smsim.report.replay import costliest

    data, _ = game
    turn = data["steps"][5]["turn"]
    first = turn["decisions"][0]

    def valued(seat, win_best, win_pick, worse):
        return {
            "seat": seat,
            "kind": "USE",
            "worse": worse,
            "candidates": [
                {"move": "best", "win": win_best, "pick": False},
                {"move": "mine", "win": win_pick, "pick": True},
            ],
        }

    values = {first: valued(1, 0.6, 0.4, True), first + 1: valued(2, 0.5, 0.45, True), 3: valued(0, 0.9, 0.1, False)}
    out = costliest(data, values)
    assert [(c["decision"], c["cost"], c["step"]) for c in out] == [(first, 0.2, 5), (first + 1, 0.05, 5)]
    assert out[0]["pick"] == "mine" and out[0]["best"] == "best"


@needs_browser
def test_a_turns_decisions_are_shown_with_their_moves_valued(tmp_path):
    from smsim.studies.advise import game_values

    # heuristic seats: valuing a learned seat's moves compiles a loop of its own (about 20 s)
    records = play_game(4, 7, 0, ["balanced", "walls", "greedy", "random"], Rules()).records
    data = replay_game(games_of(records)[0])
    values = game_values(records[0], records[1:], playouts=4)
    page = replay_page(data, values=values)
    k = next(
        k
        for k, step in enumerate(data["steps"])
        if step["turn"] and any(d in values for d in range(*step["turn"]["decisions"]))
    )
    path = tmp_path / "v.html"
    path.write_text(page, encoding="utf-8")
    dom = subprocess.run(
        [
            BROWSER,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=3000",
            "--dump-dom",
            path.as_uri() + f"#step-{k}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    shown = [int(d) for d in re.findall(r'data-decision="(\d+)"', dom)]
    assert shown == [d for d in range(*data["steps"][k]["turn"]["decisions"]) if d in values]
    assert dom.count("\u2190 the pick") == len(shown)  # one pick a decision
    assert len(page.encode()) < 2 * 1024 * 1024


@needs_browser
@pytest.mark.parametrize(
    "players, seed, policies",
    [
        (2, 21, ["balanced"]),
        (3, 22, ["greedy", "random", "balanced"]),
        (5, 23, ["balanced", "random", "balanced", "random", "greedy"]),
    ],
)
def test_at_every_player_count_the_page_shows_the_referees_positions(players, seed, policies, tmp_path):
    data = replay_game(games_of(play_game(players, seed, 0, policies, Rules()).records)[0])
    page = replay_page(data)
    last = len(data["steps"]) - 1
    for k in (1, last // 2, last):
        assert_step(rendered(page, tmp_path, f"#step-{k}"), data, k)
