"""A trace file (docs/trace.md) read and written: one JSON object a line.

:func:`iter_jsonl` is the one reader of trace files: ``smsim advise`` (``studies/advise.py``) and
the referee (``play/referee.py``) both read with it. It is plain Python (``json``, no numpy, no
engine) so that the referee, which shares no code with the jitted engine, can use it; that is why
it is not in ``play/trace.py``, which turns the engine's event log into records and imports the
engine.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
>>> _ = path.write_text('{"type": "game"}\\n\\n{"type": "end"}\\n')
>>> list(iter_jsonl(path))
[(1, {'type': 'game'}), (3, {'type': 'end'})]
>>> _ = path.write_text('{"type": "game"}\\n{"type": "tu')
>>> read_jsonl(path)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
smsim.errors.TraceError: '...t.jsonl' is not a trace (docs/trace.md): line 2: cut off, the file ends inside it
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from os import PathLike
from typing import Any

from smsim.errors import TraceError

JSON_KINDS = {
    list: "an array",
    str: "a string",
    bool: "true or false",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def write_jsonl(records: Iterable[dict[str, Any]], fh) -> None:
    """Write ``records`` to the text file ``fh``, one compact JSON object a line."""
    for rec in records:
        fh.write(json.dumps(rec, separators=(",", ":")) + "\n")


def _refuse(path: str | PathLike[str], detail: str) -> TraceError:
    return TraceError(f"{str(path)!r} is not a trace (docs/trace.md): {detail}", detail)


def _record(path: str | PathLike[str], lineno: int, raw: bytes) -> dict[str, Any] | None:
    """The object on one line of the file, None for a blank line; TraceError for anything else."""
    try:
        text = raw.decode("utf-8").rstrip("\r\n")  # a column counted within the line
    except UnicodeDecodeError:
        raise _refuse(path, f"line {lineno}: not UTF-8 text") from None
    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except ValueError as exc:
        if not raw.endswith(b"\n") and text.lstrip().startswith("{"):
            raise _refuse(path, f"line {lineno}: cut off, the file ends inside it") from None
        where = f": column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        msg = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise _refuse(path, f"line {lineno}: not valid JSON ({msg}{where})") from None
    if not isinstance(value, dict):
        raise _refuse(path, f"line {lineno}: {JSON_KINDS.get(type(value), 'a value')}, not an object")
    return value


def iter_jsonl(path: str | PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each record of a JSON-lines file with its line number (from 1), blank lines skipped.

    Parameters
    ----------
    path : str or path-like
        The file.

    Yields
    ------
    (line, record) : (int, dict)
        The records in file order, read one line at a time: the records before a bad line
        have been yielded when it raises.

    Raises
    ------
    TraceError
        One line naming the file and, where there is one, the line: the file cannot be read,
        a line is not UTF-8 text, not valid JSON, cut off (the file ends inside it) or not a
        JSON object, or the file holds no record at all (empty, or only blank lines).
        ``TraceError.detail`` is the same message without the file's name.
    """
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        message = f"cannot read trace {str(path)!r}: {exc.strerror}"
        raise TraceError(message, message) from None
    seen_bytes = records = 0
    with handle:
        try:
            for lineno, raw in enumerate(handle, 1):
                seen_bytes += len(raw)
                record = _record(path, lineno, raw)
                if record is not None:
                    records += 1
                    yield lineno, record
        except OSError as exc:
            message = f"cannot read trace {str(path)!r}: {exc.strerror or exc}"
            raise TraceError(message, message) from None
    if not records:
        raise _refuse(path, "the file is empty" if not seen_bytes else "the file has only blank lines")


def read_jsonl(path: str | PathLike[str]) -> list[dict[str, Any]]:
    """Every record of a JSON-lines file, in order (:func:`iter_jsonl`, without line numbers)."""
    return [record for _, record in iter_jsonl(path)]
