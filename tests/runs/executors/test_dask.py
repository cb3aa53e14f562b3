"""--cluster: parts played on a Dask distributed cluster equal the parts played here, byte for byte.

The tests that need Dask share one LocalCluster of two worker processes (module fixture); the
others (the address, the missing-Dask message, the import boundary) run without it.
"""

import ast
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import smsim
import smsim.runs.batch
import smsim.runs.executors.dask
from smsim.cli import cli
from smsim.errors import ClusterError, PolicyError
from smsim.policies.registry import rebuild_policy, resolve_policy, ship_policy
from smsim.rules import Rules
from smsim.runs.batch import play_part as real_play_part
from smsim.runs.batch import simulate_to
from smsim.runs.dataset import MANIFEST, part_name, read_manifest
from smsim.runs.executors import Failed
from smsim.runs.executors.dask import DASK_MISSING, parse_address
from smsim.studies.sweep import plan_variants, run_sweep
from tests.helpers import assert_same_dataset, tables_bytes

PACKAGE = Path(smsim.__file__).parent
USER_POLICY = "docs/example_policy.py:next_church"


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as c:
        yield c


def ready(client):
    """The shared cluster with both workers up (a test may have killed one)."""
    client.wait_for_workers(2, timeout=60)
    return client


def assert_same_tables(x: dict, y: dict) -> None:
    assert sorted(x) == sorted(y)
    for name in x:
        pd.testing.assert_frame_equal(x[name], y[name], check_exact=True)


# -- the address and the optional dependency: no cluster needed -----------------------------------------
def test_parse_address():
    assert parse_address("local:3") == ("local", 3)
    assert parse_address(" tcp://scheduler.lan:8786 ") == ("remote", "tcp://scheduler.lan:8786")
    assert parse_address("tls://[::1]:8786/") == ("remote", "tls://[::1]:8786")
    for bad, says in [
        ("local:0", "of at least 1, not 0$"),
        ("local:x", "whole number of at least 1, not 'x'"),
        ("local", "whole number"),
        ("local:-1", "not -1$"),
        ("scheduler:8786", "expected local:N"),
        ("http://host:8786", "expected local:N"),
        ("tcp://host", "expected local:N"),
        ("tcp://host:99999", "port"),
        ("", "expected local:N"),
    ]:
        with pytest.raises(ClusterError, match=says):
            parse_address(bad)


@pytest.mark.parametrize(
    "args, says",
    [
        (
            ["--cluster", "local:0", "--out", "{out}"],
            "--cluster 'local:0': N in local:N must be a whole number of at least 1, not 0",
        ),
        (["--cluster", "mycluster", "--out", "{out}"], "--cluster: expected local:N"),
        (["--cluster", "local:2"], "--cluster needs --out DIR"),
    ],
)
def test_bad_cluster_is_one_line_and_writes_nothing(tmp_path, args, says):
    out = tmp_path / "run"
    r = CliRunner().invoke(cli, ["simulate", "-n", "10", *(a.format(out=out) for a in args)])
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {says}"), r.output
    assert not out.exists()


@pytest.mark.parametrize("command", ["simulate", "sweep"])
def test_without_dask_cluster_says_how_to_get_it(tmp_path, monkeypatch, command):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    out = tmp_path / "run"
    extra = ["--vary", "side_defence=1,2"] if command == "sweep" else []
    r = CliRunner().invoke(cli, [command, "-n", "10", *extra, "--out", str(out), "--cluster", "local:2"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [f"Error: {DASK_MISSING}"]
    assert DASK_MISSING == "--cluster needs Dask: pip install 'smsim[dask]'"
    assert not out.exists()
    with pytest.raises(ClusterError, match="pip install"):  # the API says the same
        simulate_to(str(out), 10, cluster="local:2")
    assert not out.exists()


def imported_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_cluster_module_imports_dask_and_only_inside_functions():
    dask = {"dask", "distributed", "dask_jobqueue"}
    backend = PACKAGE / "runs" / "executors" / "dask.py"
    for path in PACKAGE.rglob("*.py"):
        if path != backend:
            assert not imported_names(ast.parse(path.read_text())) & dask, path
    tree = ast.parse(backend.read_text())
    top = [node for node in tree.body if not isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    assert not imported_names(ast.Module(body=top, type_ignores=[])) & dask
    assert imported_names(tree) & dask  # it does use Dask, inside functions
    # and at run time: the command line, the API and smsim.runs.executors.dask itself load no Dask
    code = (
        "import sys, smsim.cli, smsim.runs.batch, smsim.studies.sweep, smsim.runs.executors.dask; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_policies_ship_as_plain_data_and_a_user_file_by_path_and_hash(tmp_path):
    import pickle

    for ref in ("balanced", "random", "tests/policies/fixtures/cheap_rollout.toml"):
        spec = resolve_policy(ref)
        back = rebuild_policy(pickle.loads(pickle.dumps(ship_policy(spec))))
        assert back.describe() == spec.describe() and (back.params == spec.params).all()
    user = resolve_policy(USER_POLICY)
    shipped = pickle.loads(pickle.dumps(ship_policy(user)))
    assert shipped.path == str(Path(USER_POLICY.partition(":")[0]).resolve())
    back = rebuild_policy(shipped)
    assert back.fn is user.fn and back.describe() == user.describe()
    copy = tmp_path / "example_policy.py"
    copy.write_text(Path(shipped.path).read_text() + "\n# edited\n")
    with pytest.raises(PolicyError, match="differs on this worker"):
        rebuild_policy(type(shipped)(shipped.spec, str(copy), shipped.name, shipped.sha256))
    with pytest.raises(PolicyError, match="same path on every worker"):
        rebuild_policy(type(shipped)(shipped.spec, str(tmp_path / "gone.py"), shipped.name, shipped.sha256))


def test_rules_travel_as_a_dict():
    rules = Rules(pirate_strengths=(1, 3, 6, 8, 10, 12), seat_vp=(0, 0, 1), side_defence=2)
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


def test_a_worker_that_does_not_see_the_dataset_says_so(tmp_path):
    out = tmp_path / "run"
    simulate_to(str(out), 20, 2, ["random"], seed=1, batch=10)
    identity = read_manifest(out)["run"]
    args = (0, 0, 10, 2, [ship_policy(resolve_policy("random"))] * 2, 1, Rules().to_dict())
    failed = real_play_part(str(tmp_path / "elsewhere"), *args, identity)
    assert isinstance(failed, Failed) and "every worker sees" in failed.message
    assert not (tmp_path / "elsewhere").exists()
    failed = real_play_part(str(out), *args, {**identity, "seed": 2})
    assert isinstance(failed, Failed) and "different run" in failed.message
    assert real_play_part(str(out), *args, identity) == (0, 10, None)  # already there: not played again


def test_a_worker_without_fsspec_says_so_for_a_url(tmp_path, monkeypatch):
    out = tmp_path / "run"
    simulate_to(str(out), 20, 2, ["random"], seed=1, batch=10)
    monkeypatch.setitem(sys.modules, "fsspec", None)  # as on a worker where it is not installed
    monkeypatch.setitem(sys.modules, "fsspec.core", None)
    args = (0, 0, 10, 2, [ship_policy(resolve_policy("random"))] * 2, 1, Rules().to_dict())
    failed = real_play_part(f"file://{out}", *args, read_manifest(out)["run"])
    assert isinstance(failed, Failed) and "pip install 'smsim[remote]'" in failed.message


# -- on a LocalCluster of two worker processes -------------------------------------------------------
# On the shared cluster by its address; local:2 (a cluster the command starts and stops itself, two
# more worker processes, some 5 s) in the slow suite.
@pytest.mark.parametrize("where", ["address", pytest.param("local:2", marks=pytest.mark.slow)])
def test_cli_simulate_on_a_cluster_writes_the_same_dataset_as_a_plain_run(request, tmp_path, where):
    pytest.importorskip("distributed")
    cluster = where if where == "local:2" else ready(request.getfixturevalue("client")).scheduler.address
    # parts of two chunks (10,000 + 1,500 games): row groups as simulate_to writes them
    args = [
        "simulate",
        "-n",
        "23000",
        "-p",
        "3",
        "--policy",
        f"random,greedy,{USER_POLICY}",
        "--seed",
        "11",
        "--batch",
        "11500",
        "--quiet",
    ]
    plain = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "plain")])
    assert plain.exit_code == 0, plain.output
    on = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "cluster"), "--cluster", cluster])
    assert on.exit_code == 0, on.output
    assert_same_dataset(tmp_path / "plain", tmp_path / "cluster")
    assert len(tables_bytes(tmp_path / "cluster")) == 2 * 2
    # the printed tables are the same too (all but the timing line)
    strip = [line for line in on.output.splitlines() if not line.startswith("dataset:")]
    assert strip == [line for line in plain.output.splitlines() if not line.startswith("dataset:")]


def test_cluster_run_equals_plain_run_with_progress_across_workers(client, tmp_path):
    ready(client)
    kwargs = dict(games=3000, players=4, policies=["balanced", "random"] * 2, seed=5, batch=500)
    plain = simulate_to(str(tmp_path / "plain"), **kwargs)
    seen = []
    on = simulate_to(str(tmp_path / "cluster"), **kwargs, cluster=client, on_progress=seen.append)
    assert_same_dataset(tmp_path / "plain", tmp_path / "cluster")
    assert_same_tables(plain.tables, on.tables)
    assert (on.games, on.played) == (3000, 3000)
    done = [p.done for p in seen]
    assert done == sorted(done) and done[-1] == 3000 and all(p.total == 3000 for p in seen)
    assert {p.workers for p in seen} == {2}
    assert seen[-1].leader in ("balanced", "random") and seen[-1].games_per_second > 0


def test_resuming_on_the_cluster_plays_only_the_missing_part(client, tmp_path):
    ready(client)
    kwargs = dict(games=2000, players=2, policies=["greedy", "random"], seed=8, batch=500)
    simulate_to(str(tmp_path / "plain"), **kwargs)
    out = tmp_path / "resumed"
    simulate_to(str(out), **kwargs)  # written here; then part 2 is lost
    (out / "games" / part_name(2)).unlink()
    kept = {p: p.stat().st_mtime_ns for p in (out / "seats").iterdir() if p.name != part_name(2)}
    result = simulate_to(str(out), **kwargs, cluster=client)
    assert (result.games, result.played) == (2000, 500)
    assert {p: p.stat().st_mtime_ns for p in kept} == kept  # the other parts were not written again
    assert_same_dataset(tmp_path / "plain", out)
    again = simulate_to(str(out), **kwargs, cluster=client)
    assert again.played == 0
    assert_same_tables(result.tables, again.tables)


def test_workers_write_at_a_file_url_the_plain_run_byte_for_byte(client, tmp_path):
    """The workers reach --out through fsspec (file://, a filesystem that renames: each part uploaded
    under a temporary name and moved), the client lists and sums the parts there."""
    ready(client)
    kwargs = dict(games=1500, players=3, policies=["balanced", "random", "greedy"], seed=9, batch=500)
    plain = simulate_to(str(tmp_path / "plain"), **kwargs)
    url = f"file://{tmp_path}/url"
    on = simulate_to(url, **kwargs, cluster=client)
    assert (on.path, on.games, on.played) == (url, 1500, 1500)
    assert_same_dataset(tmp_path / "plain", tmp_path / "url")  # no temporary file left either
    assert_same_tables(plain.tables, on.tables)
    assert simulate_to(url, **kwargs, cluster=client).played == 0


def test_sweep_on_the_cluster_equals_the_plain_sweep(client, tmp_path):
    ready(client)
    variants = plan_variants(["side_defence=1,2"], [], False, Rules())
    kwargs = dict(variants=variants, games=600, players=3, policies=["balanced", "random", "greedy"], seed=2, batch=300)
    plain = run_sweep(tmp_path / "plain", **kwargs)
    seen = []
    on = run_sweep(tmp_path / "cluster", **kwargs, cluster=client, on_progress=seen.append)
    subs = sorted(p.relative_to(tmp_path / "plain") for p in (tmp_path / "plain").glob("**/manifest.json"))
    assert len(subs) == 2  # one dataset per variant
    for sub in subs:
        assert_same_dataset(tmp_path / "plain" / sub.parent, tmp_path / "cluster" / sub.parent)
    pd.testing.assert_frame_equal(plain.table, on.table, check_exact=True)
    assert on.played == 1200 and seen[-1].done == 1200 and seen[-1].workers == 2


def slow_play_part(out, k, *args, **kwargs):
    """play_part that first says which process plays part k, leaves half a part as a write cut
    short would, and waits: the test kills one worker's process meanwhile."""
    started = Path(out).parent / "started"
    started.mkdir(exist_ok=True)
    (started / f"{k}-{os.getpid()}").touch()
    (Path(out) / "seats").mkdir(exist_ok=True)
    (Path(out) / "seats" / f".{part_name(k)}.tmp-{os.getpid()}").write_bytes(b"half a part")
    time.sleep(1.5)
    return real_play_part(out, k, *args, **kwargs)


def test_a_worker_killed_mid_part_loses_nothing(client, tmp_path, monkeypatch):
    ready(client)
    kwargs = dict(games=1600, players=3, policies=["walls", "random", "greedy"], seed=13, batch=400)
    simulate_to(str(tmp_path / "plain"), **kwargs)
    out = tmp_path / "cluster"
    pids = set(client.run(os.getpid).values())
    killed = []

    def kill_first_player() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            for marker in (tmp_path / "started").glob("*-*") if (tmp_path / "started").is_dir() else ():
                pid = int(marker.name.split("-")[1])
                if pid in pids:
                    os.kill(pid, signal.SIGKILL)
                    killed.append((int(marker.name.split("-")[0]), pid))
                    return
            time.sleep(0.05)

    monkeypatch.setattr(smsim.runs.batch, "play_part", slow_play_part)
    killer = threading.Thread(target=kill_first_player)
    killer.start()
    result = simulate_to(str(out), **kwargs, cluster=client)
    killer.join()
    assert killed, "no worker was killed"
    part, pid = killed[0]
    assert pid not in client.run(os.getpid).values()  # that process is gone
    assert len([m for m in (tmp_path / "started").iterdir() if m.name.startswith(f"{part}-")]) >= 2  # replayed
    assert (result.games, result.played) == (1600, 1600)
    assert_same_dataset(tmp_path / "plain", out)  # and no half part left behind
    assert (out / MANIFEST).is_file()


def test_compare_on_the_cluster_equals_compare_here(client):
    from smsim.studies.compare import compare

    ready(client)
    args = (["balanced", "greedy", "random"], 3, 3600)
    here = compare(*args, seed=4)
    there = compare(*args, seed=4, cluster=client)
    for a, b in [
        (here.table, there.table),
        (here.pairs, there.pairs),
        (here.seats, there.seats),
        (here.games, there.games),
    ]:
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert (here.blocks, here.games_per_block) == (there.blocks, there.games_per_block)
    # with a precision the rounds stop where they stop here, whatever was in flight
    here = compare(["balanced", "walls"], 2, 20000, seed=4, precision=0.07, keep_games=False)
    there = compare(["balanced", "walls"], 2, 20000, seed=4, precision=0.07, keep_games=False, cluster=client)
    assert 200 < here.blocks == there.blocks < 10000  # more than one round of 200 blocks, far from all
    pd.testing.assert_frame_equal(here.table, there.table, check_exact=True)


def test_cli_compare_on_a_scheduler_address_writes_the_same_files(client, tmp_path):
    ready(client)
    address = client.scheduler.address  # tcp://127.0.0.1:PORT: as a scheduler on another machine is given
    assert address.startswith("tcp://")
    args = ["compare", "balanced", "walls", "--players", "2", "--games", "4000", "--seed", "9"]
    here = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "here")])
    there = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "there"), "--cluster", address])
    assert here.exit_code == 0 and there.exit_code == 0, there.output
    assert here.output == there.output.replace(str(tmp_path / "there"), str(tmp_path / "here"))
    for name in ("seats.parquet", "games.parquet", "policies.csv", "pairs.csv", "ratings.csv"):
        assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "there" / name).read_bytes(), name


def test_an_unreachable_scheduler_is_one_line(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(smsim.runs.executors.dask, "CONNECT_TIMEOUT", 2)
    r = CliRunner().invoke(
        cli, ["simulate", "-n", "10", "--out", str(tmp_path / "run"), "--cluster", f"tcp://127.0.0.1:{port}"]
    )
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: --cluster tcp://127.0.0.1:{port}: no scheduler answered")


def fails_on_the_worker(*args, **kwargs):
    raise RuntimeError("no smsim here")


def test_a_task_that_fails_on_the_cluster_is_one_line(client, tmp_path, monkeypatch):
    ready(client)
    monkeypatch.setattr(smsim.runs.batch, "play_part", fails_on_the_worker)
    with pytest.raises(ClusterError, match="part-000000 failed on the cluster: RuntimeError: no smsim here"):
        simulate_to(str(tmp_path / "run"), 100, 2, ["random"], seed=1, batch=100, cluster=client)


def test_fairness_on_the_cluster_equals_fairness_here(client):
    """fairness hands each step's candidates to the executor: on a cluster they are played side by
    side, and the search walks the same way to the same compensation and check."""
    ready(client)
    kwargs = dict(players=2, policy="balanced", by="vp", games=400, seed=3, max_compensation=1)
    here = smsim.fairness(**kwargs, threads=1)
    there = smsim.fairness(**kwargs, cluster=client)
    assert here.compensation == there.compensation
    assert [e.compensation for e in here.search] == [e.compensation for e in there.search]
    assert [e.win for e in here.search] == [e.win for e in there.search] and here.check == there.check
    pd.testing.assert_frame_equal(here.table, there.table, check_exact=True)


def test_a_study_on_the_cluster_plays_the_games_of_the_plain_study(client, tmp_path):
    """smsim study --cluster: each chunk of an arm a task on the workers; the same rounds and the
    same games as on this machine's threads."""
    from smsim.studies.study import plan_study, read_rounds, run_study

    ready(client)
    plan = plan_study(Rules(cannon_penalty=3), [2], ["random", "greedy"], seed=9, first_games=200)
    plain = run_study(plan, tmp_path / "plain", max_games=400, threads=2)
    on = run_study(plan, tmp_path / "cluster", max_games=400, cluster=client)

    def chunks(root):
        return sorted(p.relative_to(root) for p in (root / "games").rglob("*.parquet"))

    files = chunks(tmp_path / "plain")
    assert files == chunks(tmp_path / "cluster") and len(files) > len(plain.arm_games)  # a second round played
    for f in files:
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "plain" / f), pd.read_parquet(tmp_path / "cluster" / f)
        )
    assert read_rounds(tmp_path / "plain") == read_rounds(tmp_path / "cluster")
    pd.testing.assert_frame_equal(plain.table, on.table, check_exact=True)
