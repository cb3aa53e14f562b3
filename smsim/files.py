"""The one way smsim writes a file, whole or not at all: beside its final name under a temporary
one (``.NAME.tmp-PID``), synced, renamed into place (``os.replace``), its directory synced where
the system allows. A reader, or a run killed at any moment, finds the old file or the new one; a
writer that raises removes its temporary file. At a URL ``runs.storage`` uploads a copy written here.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path, PurePath


def temp_name(final: PurePath) -> str:
    """The name ``final`` (a path or a ``storage.Remote``) is written under: ``.NAME.tmp-PID``."""
    return f".{final.name}.tmp-{os.getpid()}"


def _sync(path: Path, flags: int) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def commit(tmp: Path, final: Path) -> None:
    """Put the finished file ``tmp`` in place as ``final``: synced, renamed, its directory synced."""
    _sync(tmp, os.O_RDWR)  # writable: Windows syncs only a handle that may write
    os.replace(tmp, final)
    with contextlib.suppress(OSError):  # a system or filesystem that opens or syncs no directory
        _sync(final.parent, os.O_RDONLY)  # the rename itself then survives a power cut


@contextlib.contextmanager
def writing(final: str | os.PathLike) -> Iterator[Path]:
    """The path to write ``final`` to: put in place when the block ends, removed if it raises. Its
    missing directories are made first, as the check of an output path before a run promises
    (``runs.storage.unwritable``: the nearest part that exists must be a directory we may write in)."""
    final = Path(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(temp_name(final))
    try:
        yield tmp
        commit(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_file(final: str | os.PathLike, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8, line ends as given) as the file ``final``, whole or not at all."""
    with writing(final) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def read_data_file(
    path: str | os.PathLike, where: str, noun: str, fmt: str, schema: int, error: type[Exception]
) -> dict:
    """A JSON data file smsim wrote (a model), read and its header checked: readable, UTF-8, JSON,
    an object whose ``format`` is ``fmt`` and ``schema`` is ``schema``; else ``error`` in one line
    (``where``: what the message calls the file; ``noun``: what it should be, "a model file").
    Reading it executes nothing."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise error(f"{where}: cannot read {noun.removeprefix('a ')} ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{where}: not {noun} (not UTF-8 text)") from None
    return parse_data(text, where, noun, fmt, schema, error)


def parse_data(text: str, where: str, noun: str, fmt: str, schema: int, error: type[Exception]) -> dict:
    """``read_data_file``'s checks of a data file's text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not {noun} (invalid JSON: {exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise error(f'{where}: not {noun} (no "format": "{fmt}")')
    if data.get("schema") != schema:
        raise error(f"{where}: model schema {data.get('schema')!r}; this smsim reads schema {schema}")
    return data
