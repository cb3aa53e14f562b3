"""smsim learn: labels that resume without loss or repeat, a model reproducible byte for byte,
and what it prints. The runs are tiny (a few hundred decisions of 2-player games); the strength
of the shipped model is measured by docs/policies.md's commands, not here."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import threadpoolctl

import smsim
from smsim.errors import LearnError
from smsim.layout import PolicyKind
from smsim.policies.model import PLACE_NAMES, USE_NAMES, Model
from smsim.policies.registry import resolve_policy
from smsim.studies import learn as learn_module
from smsim.studies.learn import LearnPlan, judge, learn, part_path, verify_plan

TINY = LearnPlan(
    decisions=60,
    iterations=2,
    seed=3,
    players=(2, 3),
    rate=0.3,
    games_per_part=2,
    hidden=4,
    epochs=3,
    teacher={"budget": 24, "place_budget": 12, "min_playouts": 4},
)


@pytest.fixture(scope="module", autouse=True)
def few_selection_games():
    """The fits are told apart by 4,000 games in a real run; a few hundred do for these checks."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(learn_module, "SELECTION_GAMES", 240)
        patch.setattr(learn_module, "GAIN_GAMES", 240)
        yield


def labels_of(out: Path) -> pd.DataFrame:
    return pd.concat([pd.read_parquet(p) for p in sorted(out.glob("labels/round-*/part-*.parquet"))])


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("learn")
    return out, learn(TINY, out, threads=1)


def test_a_tiny_run_writes_labels_and_a_model_that_plays(tiny):
    out, result = tiny
    assert result.decisions == [60, 60] and len(result.rounds) == 2
    for table in result.rounds:
        assert set(table["kind"]) <= {"USE", "PLACE"} and (table["decisions"] > 0).all()
        assert table[["agreement", "base_agreement"]].apply(lambda c: c.between(0, 1)).all().all()
    labels = labels_of(out)
    per = labels.groupby(["round", "game", "decision"])
    assert (per["teacher_pick"].sum() == 1).all() and (per["candidate"].min() == 0).all()
    assert (labels["playouts"] >= 4).all() and labels["se"].ge(0).all()
    spec = resolve_policy(str(out / "model-round-2.json"))
    assert spec.kind == PolicyKind.LEARNED
    model = Model.load(out / "model-round-2.json")
    assert [r["round"] for r in model.training["rounds"]] == [1, 2]
    # four fits from seeded starts each round, told apart by play; the shipped one is the best
    for record in model.training["rounds"]:
        assert len(record["selection_shares"]) == 4 and all(0 <= x <= 1 for x in record["selection_shares"])
    assert model.hidden == 4
    # each round's student against the field, on the same games as the one before it
    for record in model.training["rounds"]:
        gain = record["against_field"]
        assert 0 <= gain["share"] <= 1 and gain["gain_lo"] <= gain["gain"] <= gain["gain_hi"]
    # each round's recipe: the plan's seed and decisions, the teacher's knobs in full, and the
    # student it was taught over, round 2's named by round 1's model digest
    first, second = (record["recipe"] for record in model.training["rounds"])
    assert (first["seed"], first["decisions"], first["players"]) == (3, 60, [2, 3])
    assert first["teacher"]["budget"] == 24 and first["teacher"]["place_budget"] == 12
    assert first["teacher"]["candidates"] == resolve_policy("rollout").weights()["candidates"]
    assert first["student"]["kind"] == "heuristic" and first["student"]["weights"]["pirate_next"] > 0
    round_1 = resolve_policy(str(out / "model-round-1.json"))
    assert second["student"]["kind"] == "learned" and "weights" not in second["student"]
    assert second["student"]["model_sha256"] == round_1.describe()["model_sha256"]
    assert first["printed_rules"] and first["smsim"] == smsim.__version__


def test_a_round_gain_is_paired_and_two_small_gains_stop_the_rounds():
    before = np.array([0.25, 0.5, 0.0, 0.25] * 50)
    gain = learn_module.round_gain(before + 0.05, before)
    assert gain["gain"] == pytest.approx(0.05) and gain["gain_hi"] - gain["gain_lo"] < 1e-9  # the same shift everywhere
    assert gain["share"] == pytest.approx(before.mean() + 0.05)
    small, big = {"gain": 0.004}, {"gain": 0.03}
    assert learn_module.converged([big, small, small], 0.01)
    assert not learn_module.converged([small, big], 0.01) and not learn_module.converged([small], 0.01)
    assert not learn_module.converged([small, small], None)


def test_the_yardstick_is_the_base_heuristic_keeping_as_itself():
    stick = learn_module.yardstick(LearnPlan(base="learned-exact"))
    assert stick.kind == resolve_policy("balanced").kind
    # learned-exact differs from learned by the knob alone: the yardstick is learned's base heuristic
    assert np.array_equal(stick.params, resolve_policy("learned").params) and "exact_keep" not in stick.weights()


def test_the_same_plan_gives_the_same_model_byte_for_byte_on_one_and_two_threads(tiny, tmp_path):
    out, _ = tiny
    learn(TINY, tmp_path, threads=2)
    for name in ("model-round-1.json", "model-round-2.json"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes()


def test_a_rerun_resumes_from_the_parts_on_disk(tiny, tmp_path):
    out, _ = tiny
    learn(TINY, tmp_path, threads=1)
    lost = part_path(tmp_path, 2, 1)
    lost.unlink()  # a part never written
    (tmp_path / "model-round-2.json").unlink()  # killed while labelling round 2: its model not saved yet
    lost.with_name(lost.name + ".tmp").write_bytes(b"half a parquet file")  # and what a kill leaves
    learn(TINY, tmp_path, threads=1)
    assert (tmp_path / "model-round-2.json").read_bytes() == (out / "model-round-2.json").read_bytes()
    assert labels_of(tmp_path).equals(labels_of(out))


def test_parts_labelled_apart_on_one_pool_are_the_parts_the_run_wrote(tiny, tmp_path):
    """What lets a round's labelling be shared between machines: the run's recorded plan and saved
    model give each round's student, and parts labelled on their own (several on one pool of
    threads, in any order of games) are the run's parts, row for row."""
    out, _ = tiny
    plan, rules = learn_module.read_plan(out)
    assert plan == TINY and rules.to_dict() == learn_module.Rules().to_dict()
    for round_no in (1, 2):
        student = learn_module.round_student(plan, out, round_no)
        written = sorted(int(p.stem[5:]) for p in (out / "labels" / f"round-{round_no}").glob("part-*.parquet"))
        parts = written[-3:]
        done = learn_module.label_parts(plan, tmp_path, round_no, parts, student, rules, threads=3)
        assert done == parts
        for p in parts:
            got = learn_module.read_part(part_path(tmp_path, round_no, p))
            assert len(got) > 0 and got.equals(learn_module.read_part(part_path(out, round_no, p)))
        again = learn_module.label_parts(plan, tmp_path, round_no, parts, student, rules, threads=3)
        assert again == []  # written: skipped
    round_2 = learn_module.round_student(plan, out, 2)
    assert np.array_equal(round_2.params, Model.load(out / "model-round-1.json").vector())


def test_a_round_without_the_model_before_it_has_no_student(tmp_path):
    with pytest.raises(LearnError, match="round 2 has not ended, so round 3 has no student"):
        learn_module.round_student(TINY, tmp_path, 3)


def test_label_parts_script_compares_parts_labelled_again_with_the_runs(tiny, tmp_path):
    out, _ = tiny
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    script = Path(__file__).resolve().parents[2] / "scripts" / "label_parts.py"
    done = subprocess.run(
        [
            sys.executable,
            str(script),
            "--out",
            str(out),
            "--round",
            "2",
            "--parts",
            "0:2",
            "--into",
            str(tmp_path / "again"),
            "--compare",
            "--threads",
            "2",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "labelled 2 parts of round 2" in done.stdout and done.stdout.count("the same as") == 2
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # the run's folder is only read


def test_a_round_saved_in_an_earlier_sitting_is_read_not_fitted_again(tiny, tmp_path, monkeypatch):
    out, first = tiny
    shutil.copytree(out, tmp_path, dirs_exist_ok=True)
    (tmp_path / "model-round-2.json").unlink()
    fitted = []
    real_fit = learn_module.fit_model
    monkeypatch.setattr(learn_module, "fit_model", lambda *a, **k: fitted.append(1) or real_fit(*a, **k))
    again = learn(TINY, tmp_path, threads=1)
    assert fitted == [1]  # round 2 alone: round 1's saved model was read
    assert (tmp_path / "model-round-2.json").read_bytes() == (out / "model-round-2.json").read_bytes()
    assert [t.equals(u) for t, u in zip(again.rounds, first.rounds)] == [True, True]
    # a saved model that differs from what this smsim would fit is kept as it is (it taught round 2)
    model = Model.load(tmp_path / "model-round-1.json")
    model.use[0] += 1.0
    model.save(tmp_path / "model-round-1.json")
    (tmp_path / "model-round-2.json").unlink()
    learn(TINY, tmp_path, threads=1)
    assert Model.load(tmp_path / "model-round-1.json").use[0] == model.use[0]


def test_a_saved_round_of_another_plan_is_refused(tiny, tmp_path):
    out, _ = tiny
    shutil.copytree(out, tmp_path, dirs_exist_ok=True)
    model = Model.load(tmp_path / "model-round-1.json")
    model.training = {**model.training, "plan": {**model.training["plan"], "seed": 4}}
    model.save(tmp_path / "model-round-1.json")
    with pytest.raises(LearnError, match="was not saved by this plan's round 1; remove it"):
        learn(TINY, tmp_path, threads=1)


def test_another_plan_in_the_same_directory_is_refused(tiny):
    out, _ = tiny
    with pytest.raises(LearnError, match="holds a different learn run \\(its plan differs"):
        learn(LearnPlan(decisions=61, seed=3, players=(2, 3)), out)


def test_a_run_fits_on_the_labels_of_earlier_folders_and_records_their_recipes(tiny, tmp_path):
    """--labels-from: the round's fit is the fit of every round so far, the earlier folder's rounds
    first (in their order), then its own; its recipe names theirs. A plan without it is written as
    plans were before it existed."""
    out, _ = tiny
    assert "labels_from" not in TINY.to_dict()
    plan = replace(TINY, iterations=1, seed=5, base=str(out / "model-round-2.json"), labels_from=(str(out),))
    result = learn(plan, tmp_path / "next", threads=1)
    earlier = [learn_module.read_round_labels(TINY, out, k).assign(round=k - 2) for k in (1, 2)]
    own = learn_module.read_round_labels(plan, tmp_path / "next", 1)
    union = pd.concat([*earlier, own], ignore_index=True)
    assert union.groupby(["round", "game", "decision"]).ngroups == 180  # 60 decisions a round, none lost
    expected, _ = learn_module.fit_model(union, resolve_policy(plan.base), plan, {}, threads=1)
    assert np.array_equal(result.model.vector(), expected.vector())
    recipe = result.model.training["rounds"][0]["recipe"]
    assert [(r["folder"], r["round"], r["seed"]) for r in recipe["labels_from"]] == [(out.name, 1, 3), (out.name, 2, 3)]
    assert learn_module.read_plan(tmp_path / "next")[0] == plan
    # a round's labels read back: its training parts' rows of its first 60 decisions, in order
    rows = labels_of(out).query("round == 2 and part % 10 != 0").reset_index(drop=True)
    first = rows[["game", "decision"]].drop_duplicates().head(TINY.decisions)
    assert learn_module.read_round_labels(TINY, out, 2).equals(rows.merge(first, on=["game", "decision"]))


@pytest.mark.parametrize(
    "labels_from, message",
    [
        ("own", "is this run's own folder"),
        ("empty", "no round of it has ended"),
        ("foreign", "is not"),
        ("short", "round 1's labels stop at part 1, short of its 60 decisions"),
    ],
)
def test_earlier_labels_that_cannot_be_fitted_on_are_refused(tiny, tmp_path, labels_from, message):
    out, _ = tiny
    folders = {"own": tmp_path / "run", "empty": tmp_path / "empty", "foreign": tmp_path, "short": tmp_path / "short"}
    learn_module.write_manifest(folders["empty"], "learn", {"plan": TINY.to_dict(), "rules": {}, "command": []})
    for copy in ("own", "short"):
        shutil.copytree(out, folders[copy])
    part_path(folders["short"], 1, 1).unlink()  # its first training part
    plan = replace(TINY, labels_from=(str(folders[labels_from]),))
    with pytest.raises(LearnError, match=message):
        learn(plan, folders["own"], threads=1)


def test_a_fit_is_the_same_whatever_the_blas_threads(monkeypatch):
    """A fit of 2,000 decisions of 6 moves: the same numbers on one BLAS thread or two (a machine's
    cores); without the fit's own limit to one thread, two threads sum in another order."""
    rng = np.random.default_rng(0)
    decisions, moves = 2000, 6
    features = rng.normal(size=(decisions * moves, len(learn_module.FEATURE_COLUMNS)))
    labels = pd.DataFrame(features, columns=learn_module.FEATURE_COLUMNS).assign(
        round=1,
        game=np.repeat(np.arange(decisions), moves),
        decision=0,
        candidate=np.tile(np.arange(moves), decisions),
        kind=learn_module.KINDS["USE"],
        value=features[:, :5].sum(axis=1) * 0.01 + rng.normal(0, 0.05, decisions * moves),
        se=0.03,
    )

    def fitted(blas_threads: int) -> np.ndarray:
        with threadpoolctl.threadpool_limits(limits=blas_threads, user_api="blas"):
            beta, units = learn_module.fit_kind(labels, "USE", 0.01, hidden=16, seed=3, epochs=2)
        return np.concatenate([beta, np.ravel(units.weights), units.bias, units.out])

    assert np.array_equal(fitted(1), fitted(2))
    if max(i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas") >= 2:
        monkeypatch.setattr(learn_module, "threadpool_limits", lambda **_: contextlib.nullcontext())
        assert not np.array_equal(fitted(1), fitted(2))


@pytest.mark.parametrize(
    "plan, message",
    [
        (LearnPlan(decisions=0), "--decisions"),
        (LearnPlan(iterations=0), "--iterations"),
        (LearnPlan(players=(2, 6)), "--players"),
        (LearnPlan(rate=0.0), "--rate"),
        (LearnPlan(base="rollout"), "--base"),
        (LearnPlan(teacher={"budget": -1}), "budget"),
        (LearnPlan(teacher={"depth": 3}), "unknown rollout parameter"),
    ],
)
def test_bad_plans_are_refused_before_anything_runs(plan, message):
    with pytest.raises(Exception, match=message):
        verify_plan(plan)


def test_the_judge_counts_agreement_and_regret_against_the_teachers_values():
    rows = [  # one decision: the base picks candidate 0, the teacher candidate 1 (0.2 better)
        dict(round=1, game=0, decision=4, kind=1, candidate=0, group=0, teacher_pick=False, value=0.3),
        dict(round=1, game=0, decision=4, kind=1, candidate=1, group=1, teacher_pick=True, value=0.5),
        dict(round=1, game=0, decision=4, kind=1, candidate=2, group=1, teacher_pick=False, value=0.5),
    ]
    df = pd.DataFrame(rows)
    for j in range(len(USE_NAMES)):
        df[f"f{j}"] = 0.0
    df.loc[2, "f0"] = 1.0  # the model prefers candidate 2: the teacher's pick's twin (same group)
    use = [1.0] + [0.0] * (len(USE_NAMES) - 1)
    table = judge(df, Model({}, use, [0.0] * len(PLACE_NAMES)))
    row = table.iloc[0]
    assert row["agreement"] == 1.0 and row["regret"] == pytest.approx(0.0)
    assert row["base_agreement"] == 0.0 and row["base_regret"] == pytest.approx(0.2)


# three `smsim learn` processes (~50 s); test_a_rerun_resumes_from_the_parts_on_disk keeps
# resumption in the default suite
@pytest.mark.slow
def test_kill_9_mid_labelling_loses_and_repeats_no_decision(tiny, tmp_path):
    _out, _ = tiny
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    command = [
        sys.executable,
        "-m",
        "smsim.cli",
        "learn",
        "--out",
        str(tmp_path),
        "--decisions",
        "60",
        "--iterations",
        "2",
        "--seed",
        "3",
        "--players",
        "2,3",
        "--rate",
        "0.3",
        "--threads",
        "1",
        "-q",
        "--hidden",
        "0",  # a linear model: one fit, no selection games (the resumption is what is tested)
        "--knob",
        "budget=24",
        "--knob",
        "place_budget=12",
        "--knob",
        "min_playouts=4",
    ]
    # games_per_part is not a command option: the command's parts are bigger, so compare with itself
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not list(tmp_path.glob("labels/round-1/part-*.parquet")) and time.time() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (tmp_path / "model-round-2.json").exists()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    fresh = tmp_path.parent / (tmp_path.name + "-fresh")
    subprocess.run([*command[:5], str(fresh), *command[6:]], env=env, check=True, stdout=subprocess.DEVNULL)
    assert (tmp_path / "model.json").read_bytes() == (fresh / "model.json").read_bytes()
    resumed, clean = labels_of(tmp_path), labels_of(fresh)
    assert not resumed.duplicated(["round", "game", "decision", "candidate"]).any()
    assert resumed.reset_index(drop=True).equals(clean.reset_index(drop=True))
