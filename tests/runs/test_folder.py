"""runs.folder: one manifest form for every result folder, its dialects of earlier versions read
and resumed, and one check before a run writes into a folder."""

import json
import shutil

import pytest

from smsim.errors import DatasetError, FairnessError, LearnError, SmsimError
from smsim.policies.registry import resolve_policy
from smsim.rules import Rules
from smsim.runs.batch import simulate_to
from smsim.runs.dataset import load, run_identity
from smsim.runs.folder import KINDS, check_out, kind_of, read_manifest, write_manifest
from smsim.studies import skill as K
from smsim.studies.bonus import plan_bonus, run_bonus
from smsim.studies.compare import compare, read_comparison, save_comparison
from smsim.studies.fairness import fairness, read_fairness
from smsim.studies.ladder import plan_ladder, run_ladder
from smsim.studies.learn import LearnPlan, check_out_dir
from smsim.studies.luck import LuckPlan, luck_match
from smsim.studies.matters import what_matters
from smsim.studies.regret import RegretPlan, run_regret
from smsim.studies.study import plan_study, run_study
from smsim.studies.sweep import plan_variants, read_sweep, run_sweep
from smsim.studies.winprob import fit_winprob

ENVIRONMENT = {"smsim": "0.1.0", "numba": "0.60.0", "numpy": "2.0.2", "python": "3.11.7"}


def snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """One folder of each kind, written by this version."""
    root = tmp_path_factory.mktemp("folders")
    simulate_to(str(root / "dataset"), 40, 2, ["random"], seed=1, batch=20, command=["smsim", "simulate"])
    result = compare(["greedy", "random"], 2, 2 * 10, seed=4)
    save_comparison(result, str(root / "comparison"), ["smsim", "compare", "greedy", "random"], 4, Rules())
    run_sweep(
        root / "sweep",
        plan_variants(vary=["side_defence=1,3"]),
        20,
        2,
        ["random"],
        seed=2,
        batch=10,
        command=["smsim", "sweep"],
    )
    plan = K.plan_skill(2, ["greedy", "random"], games=20, seed=5)
    K.run_skill(plan, root / "skill", threads=1, command=["smsim", "skill"])
    fairness(players=2, games=40, seed=1, max_compensation=1, threads=1, command=["smsim", "fairness"]).write(
        root / "fairness"
    )
    run_bonus(plan_bonus(2, "random", games=10, seed=3), root / "bonus", threads=1, command=["smsim", "bonus-value"])
    run_regret(RegretPlan(2, ("random",), games=10, seed=3), root / "regret", threads=1, command=["smsim", "regret"])
    run_ladder(
        plan_ladder(["random", "greedy"], [2], 12, seed=6, field=["walls"]),
        root / "ladder",
        threads=1,
        command=["smsim", "ladder"],
    )
    what_matters(
        ["greedy"], ["nobles"], [2], games=4, seed=3, threads=1, out=root / "matters", command=["smsim", "matters"]
    )
    simulate_to(str(root / "positions"), 200, 2, ["balanced"], seed=7, rounds=True)
    luck_match(
        LuckPlan("greedy", "balanced", 2, blocks=4, seed=3, samples=2),
        fit_winprob([str(root / "positions")]),
        threads=1,
        out=root / "luck",
        command=["smsim", "luck"],
    )
    run_study(
        plan_study(Rules(cannon_penalty=3), [2], ["random"], seed=3, bonus=False, first_games=100),
        root / "study",
        max_games=100,
        threads=1,
        command=["smsim", "study"],
    )
    learn = root / "learn"
    assert check_out_dir(learn, LearnPlan(decisions=10)) is False
    write_manifest(
        learn,
        "learn",
        {"plan": LearnPlan(decisions=10).to_dict(), "rules": Rules().to_dict(), "command": ["smsim", "learn"]},
    )  # as learn() writes it before its labels
    return root, plan


def test_every_kind_writes_one_form_and_is_known_by_it(folders):
    root, _ = folders
    for kind, spec in KINDS.items():
        data = json.loads((root / kind / spec.file).read_text())
        assert list(data)[:5] == ["kind", "format_version", "smsim", "command", "inputs"], kind
        assert data["kind"] == kind and data["format_version"] == spec.version and data["command"][0] == "smsim"
        assert isinstance(data["inputs"], dict) and "environment" in data
        assert kind_of(root / kind) == kind and read_manifest(root / kind)["kind"] == kind
    assert kind_of(root / "fairness" / "fairness.json") == "fairness"  # a fairness result given by its file
    assert kind_of(root / "missing") is None and kind_of(root / "dataset" / "seats") is None
    assert kind_of(root / "sweep" / "variants" / "00-baseline") == "dataset"


# -- folders written by earlier versions: each kind's manifest as the code before this form wrote it
def _old(path, file, data, indent=2, sort_keys=False, newline=True):
    (path / file).write_text(json.dumps(data, indent=indent, sort_keys=sort_keys) + ("\n" if newline else ""))


def test_an_old_dataset_loads_and_resumes(folders, tmp_path):
    root, _ = folders
    out = tmp_path / "d"
    shutil.copytree(root / "dataset", out)
    identity = run_identity(40, 2, [resolve_policy("random")] * 2, 1, Rules(), 20)
    _old(
        out,
        "manifest.json",
        {
            "format": "smsim-dataset",
            "format_version": 3,
            "run": identity,
            "command": ["smsim", "simulate"],
            "environment": ENVIRONMENT,
            "tables": {"seats": "one row per player per game", "games": "one row per game"},
        },
        sort_keys=True,
    )
    manifest = out / "manifest.json"
    old = manifest.read_bytes()
    data = load(out)
    assert data.complete and data.manifest["run"] == identity and data.manifest["format_version"] == 3
    for sub in ("seats", "games"):
        (out / sub / "part-000001.parquet").unlink()
    again = simulate_to(str(out), 40, 2, ["random"], seed=1, batch=20)
    assert (again.games, again.played) == (40, 20)
    assert snapshot(out) == snapshot(root / "dataset") | {"manifest.json": old}  # the same parts; its manifest kept
    with pytest.raises(DatasetError, match="holds a different run \\(its seed differs"):
        simulate_to(str(out), 40, 2, ["random"], seed=2, batch=20)


def test_an_old_comparison_reads_and_is_written_over(folders, tmp_path):
    root, _ = folders
    out = tmp_path / "c"
    shutil.copytree(root / "comparison", out)
    now = read_manifest(out, "comparison")
    _old(
        out,
        "manifest.json",
        {
            "format": "smsim-comparison",
            "command": ["smsim", "compare", "greedy", "random"],
            "seed": 4,
            "rules": Rules().to_dict(),
            "policies": ["greedy", "random"],
            "blocks": 10,
            "games_per_block": 2,
            "environment": ENVIRONMENT,
        },
    )
    assert kind_of(out) == "comparison"
    saved = read_comparison(out)
    assert {k: saved.manifest[k] for k in ("seed", "rules", "policies", "blocks", "games_per_block", "command")} == {
        k: now[k] for k in ("seed", "rules", "policies", "blocks", "games_per_block", "command")
    }
    assert check_out(out, "comparison") is True  # a comparison there is written over


def test_an_old_sweep_reads_and_resumes(folders, tmp_path):
    root, _ = folders
    out = tmp_path / "s"
    shutil.copytree(root / "sweep", out)
    now = read_manifest(out, "sweep")
    _old(
        out,
        "sweep.json",
        {
            "format": "smsim-sweep",
            "format_version": 1,
            "sweep": now["sweep"],
            "variant_dirs": now["variant_dirs"],
            "command": ["smsim", "sweep"],
            "environment": ENVIRONMENT,
        },
    )
    old = (out / "sweep.json").read_bytes()
    data = read_sweep(out)
    assert [v.name for v in data.variants] == ["baseline", "side_defence=1", "side_defence=3"]
    for sub in ("seats", "games"):
        (data.dirs[2] / sub / "part-000001.parquet").unlink()
    again = run_sweep(out, data.variants, 20, 2, ["random"], seed=2, batch=10)
    assert again.played == 10 and (out / "sweep.json").read_bytes() == old
    with pytest.raises(DatasetError, match="holds a different sweep \\(its games differs"):
        run_sweep(out, data.variants, 30, 2, ["random"], seed=2, batch=10)


def test_an_old_skill_study_reads_and_resumes(folders, tmp_path, monkeypatch):
    root, plan = folders
    out = tmp_path / "k"
    shutil.copytree(root / "skill", out)
    (out / "skill.json").write_text(
        json.dumps(
            {"format": "smsim-skill", "version": 1, "plan": plan.identity(), "command": ["smsim", "skill"]}, indent=1
        )
    )
    before = K.read_skill(root / "skill")
    (out / "cells" / plan.cells()[0].file()).unlink()
    played = []
    real = K.play_cell
    monkeypatch.setattr(K, "play_cell", lambda p, c, *a, **k: played.append(c) or real(p, c, *a, **k))
    again = K.run_skill(plan, out, threads=1)
    assert played == [plan.cells()[0]] and again.matrix.equals(before.matrix)
    assert json.loads((out / "skill.json").read_text())["format"] == "smsim-skill"  # kept as it was


def test_an_old_fairness_result_reads(folders, tmp_path):
    root, _ = folders
    out = tmp_path / "f"
    shutil.copytree(root / "fairness", out)
    result = read_fairness(out)
    _old(out, "fairness.json", result.to_dict() | {"environment": ENVIRONMENT})
    assert json.loads((out / "fairness.json").read_text())["kind"] == "fairness"
    back = read_fairness(out / "fairness.json")
    assert back.compensation == result.compensation and back.table.equals(result.table)
    assert back.command == ["smsim", "fairness"] and check_out(out, "fairness") is True


def test_an_old_learn_run_resumes(tmp_path):
    plan, rules = LearnPlan(decisions=10), Rules(rotation_cost=0)
    out = tmp_path / "l"
    (out / "labels" / "round-1").mkdir(parents=True)
    (out / "labels" / "round-1" / "part-000000.parquet").write_bytes(b"labels")
    _old(out, "learn.json", {"plan": plan.to_dict(), "rules": rules.to_dict()}, indent=1)
    assert kind_of(out) == "learn" and read_manifest(out, "learn")["plan"] == plan.to_dict()
    assert check_out_dir(out, plan, rules) is True  # resumes: its labels are this plan's
    with pytest.raises(LearnError, match="holds a different learn run \\(its rules differs"):
        check_out_dir(out, plan, Rules())


# -- the check before a run writes ------------------------------------------------------------
def _damaged(text):
    data = json.loads(text)
    return {
        "not JSON": b'{"kind": ',
        "not text": b"\x89PNG\r\n\x1a\n\x00\xff\xfe",
        "not an object": b"[1, 2]",
        "hollow": json.dumps({"kind": data["kind"]}).encode(),
        "inputs a list": json.dumps(data | {"inputs": [1]}).encode(),
        "version text": json.dumps(data | {"format_version": "2"}).encode(),
        "rules text": json.dumps(data | {"inputs": data["inputs"] | {"rules": "printed"}}).encode(),
        "no players": json.dumps(
            data | {"inputs": {k: v for k, v in data["inputs"].items() if k != "players"}}
        ).encode(),
    }


@pytest.mark.parametrize("kind", ["dataset", "sweep", "skill", "fairness", "learn", "comparison", "bonus", "ladder"])
def test_a_damaged_manifest_is_refused_in_one_line_and_nothing_is_touched(folders, tmp_path, kind):
    root, plan = folders
    file = KINDS[kind].file
    inputs = {
        "dataset": None,
        "sweep": None,
        "skill": plan.identity(),
        "fairness": None,
        "comparison": None,
        "learn": {"plan": LearnPlan(decisions=10).to_dict(), "rules": Rules().to_dict()},
        "bonus": plan_bonus(2, "random", games=10, seed=3).identity(),
        "ladder": plan_ladder(["random", "greedy"], [2], 12, seed=6, field=["walls"]).identity(),
    }[kind]
    for why, data in _damaged((root / kind / file).read_text()).items():
        if why == "no players" and "players" not in KINDS[kind].needs:
            continue
        out = tmp_path / f"{kind}-{why}"
        shutil.copytree(root / kind, out)
        (out / file).write_bytes(data)
        before = snapshot(out)
        with pytest.raises(SmsimError) as info:
            check_out(out, kind, inputs)
        message = str(info.value)
        assert isinstance(info.value, KINDS[kind].error) and "\n" not in message, (why, message)
        assert str(out) in message and ("damaged" in message or "holds no" in message), (why, message)
        with pytest.raises(SmsimError):
            read_manifest(out, kind)
        assert snapshot(out) == before


def test_another_kind_a_foreign_folder_a_file_and_a_newer_format_are_refused(folders, tmp_path):
    root, _ = folders
    before = snapshot(root)
    with pytest.raises(DatasetError, match="is not empty and holds no sweep \\(it holds an smsim dataset\\)"):
        check_out(root / "dataset", "sweep", {})
    with pytest.raises(FairnessError, match="holds no result of smsim fairness \\(it holds a skill study\\)"):
        check_out(root / "skill", "fairness")
    with pytest.raises(LearnError, match="holds no smsim learn labels \\(it holds a comparison\\)"):
        check_out_dir(root / "comparison", LearnPlan())
    with pytest.raises(DatasetError, match="is not an smsim dataset \\(it holds a sweep\\)"):
        load(root / "sweep")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "manifest.json").write_text('{"name": "someone else\'s"}')
    assert kind_of(tmp_path / "foreign") is None
    with pytest.raises(DatasetError, match="holds no smsim dataset; choose another --out"):
        check_out(tmp_path / "foreign", "dataset", {})
    (tmp_path / "file").write_text("x")
    with pytest.raises(DatasetError, match="exists and is not a directory"):
        check_out(tmp_path / "file", "comparison")
    with pytest.raises(LearnError, match="written to a local directory"):
        check_out("memory://labels", "learn", {})
    assert snapshot(root) == before
    newer = tmp_path / "newer"
    shutil.copytree(root / "sweep", newer)
    data = json.loads((newer / "sweep.json").read_text())
    (newer / "sweep.json").write_text(json.dumps(data | {"format_version": 99}))
    with pytest.raises(DatasetError, match=r"sweep.json is of format 99, newer than this smsim"):
        read_sweep(newer)
    assert check_out(tmp_path / "new", "skill", {}) is False and not (tmp_path / "new").exists()
