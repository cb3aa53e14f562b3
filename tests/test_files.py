"""smsim.files: a file is written whole or not at all, whatever kills the writer and when."""

import os
import signal
import stat
import subprocess
import sys
import textwrap

import pytest

from smsim import files
from smsim.files import write_file, writing

OLD = b"old content\n" * 1000
NEW_TEXT = 'b"new content, longer than the old one\\n" * 100_000'  # 3.7 MB: written in many blocks
NEW = eval(NEW_TEXT)


def _writer(final, how: str) -> subprocess.Popen:
    """A process that writes NEW over ``final`` and is stopped between the write and the rename:
    ``exit`` leaves by os._exit inside os.replace, ``kill`` waits there to be killed."""
    code = textwrap.dedent(f"""
        import os, sys, time
        from smsim import files
        def replace(src, dst):
            assert open(src, "rb").read() == {NEW_TEXT}  # written and synced: only the rename is missing
            if {how!r} == "exit":
                os._exit(9)
            print("renaming", flush=True)
            time.sleep(60)
        files.os.replace = replace
        files.write_file(sys.argv[1], {NEW_TEXT})
    """)
    return subprocess.Popen([sys.executable, "-c", code, str(final)], stdout=subprocess.PIPE, text=True)


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_a_writer_killed_before_the_rename_leaves_the_old_file(tmp_path, how):
    final = tmp_path / "manifest.json"
    final.write_bytes(OLD)
    proc = _writer(final, how)
    if how == "kill":
        assert proc.stdout.readline() == "renaming\n"
        proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=60) != 0
    assert final.read_bytes() == OLD  # the old file, whole
    left = [p.name for p in tmp_path.iterdir() if p != final]
    assert left == [f".manifest.json.tmp-{proc.pid}"]  # what the kill left: never taken for the file
    write_file(final, NEW)  # the next writer puts the new file in place, whole
    assert final.read_bytes() == NEW


def test_a_file_killed_in_its_first_write_is_not_there(tmp_path):
    final = tmp_path / "part.parquet"
    proc = _writer(final, "exit")
    assert proc.wait(timeout=60) != 0
    assert not final.exists()


def test_a_failed_write_removes_its_temporary_file_and_keeps_the_old_one(tmp_path):
    final = tmp_path / "a.csv"
    final.write_bytes(OLD)
    with pytest.raises(RuntimeError, match="cut"), writing(final) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("cut")
    with pytest.raises(TypeError):
        write_file(final, 12)  # neither bytes nor text
    assert final.read_bytes() == OLD and [p.name for p in tmp_path.iterdir()] == ["a.csv"]
    (tmp_path / "d").mkdir()  # a rename onto a directory fails
    with pytest.raises(OSError):
        write_file(tmp_path / "d", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "d"] and not any((tmp_path / "d").iterdir())


def test_the_file_and_its_directory_are_synced_before_and_after_the_rename(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(files.os, "fsync", lambda fd: calls.append(("fsync", os.fstat(fd).st_mode)) or real_fsync(fd))
    monkeypatch.setattr(files.os, "replace", lambda a, b: calls.append(("replace", 0)) or real_replace(a, b))
    write_file(tmp_path / "w.toml", "x = 1\n")
    assert [(what, stat.S_ISDIR(mode)) for what, mode in calls] == [
        ("fsync", False),
        ("replace", False),
        ("fsync", True),
    ]
    assert (tmp_path / "w.toml").read_text() == "x = 1\n"


def test_a_written_file_is_an_ordinary_one(tmp_path):
    umask = os.umask(0o022)
    try:
        write_file(tmp_path / "w.toml", "x = 1\n")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "w.toml").stat().st_mode) == 0o644  # not a private temporary file's 0o600


def test_a_file_in_directories_not_made_yet_makes_them(tmp_path):
    """The check of an output path before a run lets through a path under directories not made yet
    (``runs.storage.unwritable``); the write makes them, so that a run is never refused after it
    played (``smsim play --trace T --html missing/deeper`` wrote the trace, then failed on the page)."""
    from smsim.runs.storage import unwritable

    target = tmp_path / "missing" / "deeper" / "page.html"
    assert unwritable(target) is None
    write_file(target, "<html></html>")
    assert target.read_text() == "<html></html>"
