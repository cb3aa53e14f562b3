"""Where a dataset lives: a local directory, or an fsspec URL (``--out s3://bucket/run``, docs/cluster.md).

``location(text)`` gives a ``pathlib.Path`` for a local path, so a local run keeps its own code
path (a part written under a temporary name, synced and renamed), and a ``Remote`` for a URL
(``s3://``, ``gs://``, ``az://``, ``memory://``, ``file:///``...): the few ``pathlib`` methods the
dataset code calls, over an fsspec filesystem. fsspec is an optional dependency
(``pip install 'smsim[remote]'``, plus the scheme's own package such as s3fs): only this module
imports it, inside functions, and only for a URL.

A file reaches a URL whole or not at all (``publish``): it is first written to a local temporary
file, then uploaded. On an object store (``OBJECT_STORES``) it is uploaded straight to its final
name, since an object appears only when its upload completes; on any other filesystem (``file://``,
``sftp://``...) it is uploaded under a temporary name beside the final one (``.NAME.tmp-PID``, the
name a local run uses) and renamed into place.

>>> is_url("s3://bucket/run"), is_url("memory://runs/a"), is_url("runs/a"), is_url("C:/runs")
(True, True, False, False)
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from smsim.errors import DatasetError
from smsim.files import temp_name, write_file

FSSPEC_MISSING = "needs fsspec to read and write datasets at a URL: pip install 'smsim[remote]'"
# schemes whose files are objects: an upload becomes visible whole, when it completes
OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "oss", "memory"})
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+://")


def is_url(text: str | os.PathLike) -> bool:
    return isinstance(text, str) and _URL.match(text) is not None


def location(text: str | os.PathLike) -> Path | Remote:
    """A local path as a ``Path``; a URL as a ``Remote`` on its fsspec filesystem. A URL that cannot
    be opened (no fsspec, or no implementation for its scheme) raises ``DatasetError`` saying what
    to install."""
    if isinstance(text, Remote):
        return text
    if not is_url(text):
        return Path(text)

    url = text.rstrip("/")
    try:
        import fsspec.core  # optional (the remote extra): only for a URL
    except ImportError:
        raise DatasetError(f"{url!r} {FSSPEC_MISSING}") from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except ImportError as exc:  # the scheme is known to fsspec, its implementation is not installed
        raise DatasetError(f"{url!r}: {_missing(url.split('://')[0], exc)}") from None
    except ValueError as exc:  # e.g. 'Protocol not known: foo'
        raise DatasetError(f"{url!r}: {str(exc).splitlines()[0]}") from None
    return Remote(fs, path, url)


def unwritable(path: Path | Remote) -> str | None:
    """Why ``path`` (a directory or file to be made or replaced) cannot be written, or None: the
    nearest part of it that exists must be a directory we may write in (a file that exists is
    checked for itself). Checked before any game is played, so that a typo in an output path costs
    no compile and no games. A URL is not checked here: its filesystem says so at the first write."""
    if isinstance(path, Remote):
        return None
    path = Path(path)
    if path.exists():
        return None if os.access(path, os.W_OK) else "permission denied"
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{str(parent)!r} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"permission denied in {str(parent)!r}"
    return None


def _missing(scheme: str, exc: ImportError) -> str:
    """What to install for ``scheme``: the package of its fsspec implementation (s3fs for s3://),
    or fsspec's own line where the implementation is in fsspec and needs another package."""
    from fsspec.registry import known_implementations  # optional, as above

    package = known_implementations.get(scheme, {}).get("class", "").split(".")[0]
    if package and package != "fsspec":
        return f"the {scheme}:// scheme needs {package}: pip install {package}"
    return str(exc).splitlines()[0] if str(exc) else f"the {scheme}:// scheme is not installed"


class Remote:
    """A file or directory on an fsspec filesystem, with the ``pathlib.Path`` methods smsim's
    datasets use; ``str`` gives the URL back, so it travels to a worker as a plain string."""

    def __init__(self, fs: Any, path: str, url: str) -> None:
        self.fs, self.path, self.url = fs, path.rstrip("/") or path, url

    def __truediv__(self, name: str) -> Remote:
        return Remote(self.fs, f"{self.path}/{name}", f"{self.url}/{name}")

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"Remote({self.url!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Remote) and other.url == self.url

    def __hash__(self) -> int:
        return hash(self.url)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def object_store(self) -> bool:
        protocols = self.fs.protocol if isinstance(self.fs.protocol, tuple) else (self.fs.protocol,)
        return any(p in OBJECT_STORES for p in protocols)

    def _child(self, path: str) -> Remote:
        """The Remote of ``path``, a path the filesystem listed under this one."""
        if path.startswith(self.path + "/"):
            return Remote(self.fs, path, self.url + path[len(self.path) :])
        return Remote(self.fs, path, self.fs.unstrip_protocol(path))

    def _fresh(self) -> None:
        # listings are cached by some filesystems (s3fs, gcsfs); another machine may have written since
        self.fs.invalidate_cache(self.path)

    def exists(self) -> bool:
        self._fresh()
        return self.fs.exists(self.path)

    def is_dir(self) -> bool:
        self._fresh()
        return self.fs.isdir(self.path)

    def is_file(self) -> bool:
        self._fresh()
        return self.fs.isfile(self.path)

    def iterdir(self):
        self._fresh()
        return iter([self._child(p) for p in self.fs.ls(self.path, detail=False) if p.rstrip("/") != self.path])

    def glob(self, pattern: str):
        self._fresh()
        return iter([self._child(p) for p in self.fs.glob(f"{self.path}/{pattern}")])

    def mkdir(self, parents: bool = True, exist_ok: bool = True) -> None:
        self.fs.makedirs(self.path, exist_ok=True)

    def read_bytes(self) -> bytes:
        return self.fs.cat_file(self.path)

    def read_text(self, encoding: str = "utf-8") -> str:
        return self.read_bytes().decode(encoding)

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self.fs.rm_file(self.path)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def open(self, mode: str = "rb"):
        return self.fs.open(self.path, mode)


def staging_file(final: Remote) -> Path:
    """A local temporary file to write ``final``'s content into before ``publish`` uploads it."""
    fd, name = tempfile.mkstemp(prefix=".smsim-", suffix=f"-{final.name}")
    os.close(fd)
    return Path(name)


def publish(local: Path, final: Remote) -> None:
    """Upload the finished local file ``local`` as ``final``, whole or not at all (module docstring)."""
    if final.object_store:
        final.fs.put_file(str(local), final.path)
        return
    tmp = final.path.rsplit("/", 1)[0] + "/" + temp_name(final)
    final.fs.put_file(str(local), tmp)
    final.fs.mv(tmp, final.path)


def write_text(final: Path | Remote, text: str) -> None:
    """Write a small text file (a manifest) whole: ``files.write_file``; at a URL, its copy uploaded."""
    if isinstance(final, Path):
        write_file(final, text)
        return
    local = staging_file(final)
    try:
        write_file(local, text)
        publish(local, final)
    finally:
        local.unlink(missing_ok=True)


@contextlib.contextmanager
def reading(file: Path | Remote):
    """What pyarrow reads ``file`` from: the path itself when local, else an open fsspec file."""
    if isinstance(file, Path):
        yield file
        return
    with file.open("rb") as fh:
        yield fh
