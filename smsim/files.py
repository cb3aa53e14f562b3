"""The one way smsim writes a file: whole or not at all.

A file is written beside its final name under a temporary one (``.NAME.tmp-PID``), flushed and
synced, renamed into place (``os.replace``) and its directory synced where the system allows: a
reader, or a run killed at any moment, finds the old file or the new one, never a piece (a kill
leaves at most a temporary file, which no reader takes for a finished one). A writer that raises
removes its temporary file. ``write_file`` writes bytes or text; ``writing`` lends the temporary
path to a library that writes to a path (Parquet, a figure). At a URL ``runs.storage`` uploads a
local copy written here.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path, PurePath


def temp_name(final: PurePath) -> str:
    """The name ``final`` (a path, or a ``runs.storage.Remote``) is written under before it is
    renamed into place: ``.NAME.tmp-PID``."""
    return f".{final.name}.tmp-{os.getpid()}"


def temp_path(final: Path) -> Path:
    return final.with_name(temp_name(final))


def commit(tmp: Path, final: Path) -> None:
    """Put the finished file ``tmp`` in place as ``final``: synced, renamed, its directory synced."""
    fd = os.open(tmp, os.O_RDWR)  # writable: Windows syncs only a handle that may write
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, final)
    try:  # the rename itself survives a power cut once the directory is synced
        fd = os.open(final.parent, os.O_RDONLY)
    except OSError:  # a system that opens no directory (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:  # a filesystem that syncs no directory
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def writing(final: str | os.PathLike) -> Iterator[Path]:
    """The temporary path to write ``final``'s new content to; when the block ends it is put in
    place (``commit``), and if the block raises it is removed and ``final`` left as it was."""
    final = Path(final)
    tmp = temp_path(final)
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
