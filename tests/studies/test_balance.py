"""studies.balance: the balance report's studies declared once, each an smsim command played as a
process of its own, resumed or skipped, stopped at the study's time."""

import re
import time
from pathlib import Path

import pytest

from smsim.errors import StudyError
from smsim.runs.dataset import load, read_manifest
from smsim.runs.folder import kind_of
from smsim.studies import balance as B

ROOT = Path(__file__).resolve().parents[2]


def args_of(parts, name):
    return next(p.args for p in parts if p.name == name)


def test_at_seed_2026_the_parts_are_the_commands_of_the_committed_baseline():
    """Every dataset the committed report lists under a part's name was made by that part's
    command (its --out aside): `make report` plays the committed baseline's games."""
    parts = {p.name: p for p in B.balance_parts((2, 3, 4, 5), 2026)}
    rows = re.findall(
        r"^\| (?:\S+/)?([\w-]+) \| .* \| (smsim [^|]+?) \|$", (ROOT / "reports/baseline/report.md").read_text(), re.M
    )
    checked = 0
    for name, command in rows:
        if name in parts:
            words = command.split()
            at = words.index("--out")
            del words[at : at + 2]
            assert words[1:] == list(parts[name].args), name
            checked += 1
    assert checked >= 8  # the mirrors of L1 and L2 and the comparisons at 2 to 5 players, at least


def test_the_seeds_are_apart_and_the_names_unique():
    parts = B.balance_parts((2, 3, 4, 5), 2026)
    assert len({p.name for p in parts}) == len(parts)
    seeds = {p.name: int(p.args[p.args.index("--seed") + 1]) for p in parts}
    assert seeds["mirror-4p"] == 2030 and seeds["learned-4p"] == 2090 and seeds["search-2p"] == 2048
    assert seeds["regret-4p"] == 2120 and seeds["regret-4p-search"] == 2125 and seeds["ladder"] == 2126
    # every part's games their own, but the sweeps' and fairness's pairs (the same games by design)
    by_seed = {}
    for name, seed in seeds.items():
        by_seed.setdefault(seed, []).append(name)
    shared = [sorted(v) for v in by_seed.values() if len(v) > 1]
    assert all(
        all(n.startswith(("variants-", "shipped-")) for n in v) or all(n.startswith("fairness-") for n in v)
        for v in shared
    ), shared


def test_other_rules_pass_their_file_and_leave_the_shipped_variants_out():
    parts = B.balance_parts((4,), 7, "my.toml", printed=False)
    assert all(p.args[p.args.index("--rules") + 1] == "my.toml" for p in parts)
    names = {p.name for p in parts}
    assert "variants-4p" in names and not any(n.startswith("shipped-") for n in names)
    assert "--variant" not in args_of(parts, "skill-4p")
    assert "--rules" not in B.balance_parts((4,), 7)[0].args


def test_the_player_counts_shape_the_parts_and_scale_the_games():
    parts = B.balance_parts((2,), 0, scale=0.01)
    names = {p.name for p in parts}
    assert names == {"mirror-2p", "learned-2p", "compare-2p", "skill-2p", "ladder", "search-2p"} | {
        "fairness-2p-coins",
        "fairness-2p-vp",
    }

    def games(name):
        args = args_of(parts, name)
        return args[args.index("--games") + 1]

    assert games("mirror-2p") == "1500" and games("ladder") == "40" and games("search-2p") == "50"
    assert args_of(parts, "ladder")[args_of(parts, "ladder").index("--players") + 1] == "2"
    assert [p.name for p in parts if p.timed] == ["ladder", "search-2p"]  # the slow ones, last
    assert [p.name for p in parts][-2:] == ["ladder", "search-2p"]


def test_parts_are_played_once_resumed_and_the_report_reads_those_holding_a_result(tmp_path):
    parts = [
        B.Part(
            "mirror-2p", ("simulate", "--games", "40", "--players", "2", "--policy", "greedy", "--seed", "3", "--quiet")
        ),
        B.Part(
            "unplayed",
            ("simulate", "--games", "40", "--players", "2", "--policy", "greedy", "--seed", "4"),
            done="manifest.json",
        ),
    ]
    (tmp_path / "unplayed").mkdir()
    (tmp_path / "unplayed" / "manifest.json").write_text("{}")  # said done: not played again
    heard = []
    got = B.play_balance(parts, tmp_path, threads=1, on_step=heard.append)
    assert got == [str(tmp_path / "mirror-2p")] and kind_of(tmp_path / "mirror-2p") == "dataset"
    assert len(load(tmp_path / "mirror-2p").games) == 40
    assert read_manifest(tmp_path / "mirror-2p")["command"][:2] == ["smsim", "simulate"]
    assert [h.split(":")[0] for h in heard] == ["mirror-2p"]
    timings = (tmp_path / B.TIMINGS).read_text().splitlines()
    assert len(timings) == 1 and timings[0].split("\t")[2].startswith("smsim simulate --games 40")
    before = (tmp_path / "mirror-2p" / "games").stat().st_mtime_ns
    assert B.play_balance(parts, tmp_path, threads=1) == got  # a rerun: the finished dataset is kept as it is
    assert (tmp_path / "mirror-2p" / "games").stat().st_mtime_ns == before


def test_no_part_begins_once_the_time_is_spent(tmp_path):
    parts = [B.Part("mirror-2p", ("simulate", "--games", "40", "--players", "2", "--seed", "3"))]
    heard = []
    assert B.play_balance(parts, tmp_path, deadline=time.monotonic() - 1, on_step=heard.append) == []
    assert not (tmp_path / "mirror-2p").exists() and "out of time" in heard[0]


def test_a_part_that_fails_is_the_studys_error_in_one_line(tmp_path):
    parts = [B.Part("bad", ("simulate", "--games", "40", "--players", "9"))]
    with pytest.raises(StudyError, match=r"^bad: smsim simulate .* failed \(exit status 2\)$"):
        B.play_balance(parts, tmp_path)


@pytest.mark.slow  # a search mirror played for some seconds, then ended
def test_a_timed_part_is_ended_at_the_deadline_and_keeps_what_it_wrote(tmp_path):
    parts = [
        B.Part(
            "search-2p",
            (
                "simulate",
                "--games",
                "2000",
                "--players",
                "2",
                "--policy",
                "rollout-learned",
                "--seed",
                "5",
                "--batch",
                "2",
            ),
            timed=True,
        )
    ]
    heard = []
    start = time.monotonic()
    got = B.play_balance(parts, tmp_path, deadline=start + 25, threads=2, on_step=heard.append)
    assert time.monotonic() - start < 40 and "stopped at the time limit" in heard[-1]
    assert got == [str(tmp_path / "search-2p")]
    assert 0 < len(load(tmp_path / "search-2p").games) < 2000


def test_the_rules_are_written_for_the_parts_only_where_they_are_not_the_printed_ones(tmp_path):
    from smsim.rules import Rules

    assert B.rules_file_of(Rules(), tmp_path) == ""
    path = B.rules_file_of(Rules(cannon_penalty=3), tmp_path)
    assert Rules.from_toml(path) == Rules(cannon_penalty=3)
