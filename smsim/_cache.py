"""Point numba's on-disk cache at a directory named after a hash of smsim's own sources.

numba invalidates a cached function only when its own file changes, not when a jitted callee in
another file does (NUMBA_NOTES.md). Keying the directory on every source file of the package
makes any edit start a fresh cache. Must run before numba is imported.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def source_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def configure_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    base = os.environ.get("SMSIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "smsim"
    )
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(base, source_hash())
