"""A result folder: the one manifest form every command that writes a directory writes, and its
one reader and check; no other module knows a manifest's fields or the dialects of earlier versions.
Each kind keeps its manifest's name (``KINDS``; a dataset and a comparison share ``manifest.json``
and say inside which they are): the commands print it and a fairness result is given by it. The form::

    {"kind": "sweep", "format_version": 2, "smsim": "0.1.0", "command": [...], "inputs": {...},
     ...the kind's results..., "environment": {...}}

``inputs`` make two runs the same run. ``read_manifest`` reads it and each earlier dialect
(``Kind.old``) into the form each kind's readers have always read (``Kind.inputs``).
"""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from smsim import __version__
from smsim.errors import (
    BonusError,
    DatasetError,
    FairnessError,
    LadderError,
    LearnError,
    LuckError,
    MattersError,
    RegretError,
    SmsimError,
    StudyError,
)
from smsim.policies.registry import described_now
from smsim.rules import normalised
from smsim.runs.storage import Remote, is_url, location, unwritable, write_text


@dataclass(frozen=True)
class Kind:
    file: str  # its manifest's name in the folder
    noun: str  # what a message calls it: "holds no {noun}"
    a: str  # the same with its article: "is not {a}"
    what: str  # "holds a different {what}": the folder of another run of this kind
    version: int  # the format this smsim writes (the one manifest form began each kind's next)
    inputs: str | tuple[str, ...]  # read_manifest gives the inputs under this key, or as these fields
    needs: tuple[str, ...]  # inputs a reader needs: a manifest without one is damaged
    old: tuple[str, str, str] | None  # the earlier dialect: its marker field and value, its version field
    error: type[SmsimError] = DatasetError  # the kind's own error, as its commands raised before
    url: bool = False  # may be written at a URL (runs.storage)


KINDS = {  # dataset formats: 2 sides_attack_N columns, 3 seat_vp (older ones read with 0), 4 this manifest
    "dataset": Kind(
        "manifest.json",
        "smsim dataset",
        "an smsim dataset",
        "run",
        4,
        "run",
        ("games", "players", "policies", "rules"),
        ("format", "smsim-dataset", "format_version"),
        url=True,
    ),
    "comparison": Kind(
        "manifest.json",
        "comparison",
        "a comparison",
        "comparison",
        2,
        ("policies", "seed", "rules"),
        ("rules",),
        ("format", "smsim-comparison", ""),
    ),
    "sweep": Kind(
        "sweep.json",
        "sweep",
        "a sweep",
        "sweep",
        2,
        "sweep",
        ("variants",),
        ("format", "smsim-sweep", "format_version"),
        url=True,
    ),
    "skill": Kind(
        "skill.json",
        "skill study",
        "a skill study",
        "skill study",
        2,
        "plan",
        ("players", "levels", "games", "seed", "variants"),
        ("format", "smsim-skill", "version"),
    ),
    "fairness": Kind(
        "fairness.json",
        "result of smsim fairness",
        "a result of smsim fairness",
        "fairness search",
        2,
        ("players", "policy", "by", "games", "seed", "max", "check_games", "check_seed"),
        ("players", "policy", "by", "games", "seed", "check_games", "check_seed"),
        ("kind", "fairness", ""),
        FairnessError,
    ),
    "bonus": Kind(
        "bonus.json",
        "wall-bonus ablation",
        "a wall-bonus ablation",
        "wall-bonus ablation",
        1,
        "plan",
        ("players", "policy", "games", "seed"),
        None,
        BonusError,
    ),
    "regret": Kind(
        "regret.json",
        "keep-regret study",
        "a keep-regret study",
        "keep-regret study",
        1,
        "plan",
        ("players", "policies", "games", "seed", "oracle"),
        None,
        RegretError,
    ),
    "ladder": Kind(
        "ladder.json",
        "ladder",
        "a ladder",
        "ladder",
        1,
        "plan",
        ("rungs", "players", "games", "seed", "field", "rules"),
        None,
        LadderError,
    ),
    "luck": Kind(
        "luck.json",
        "luck match",
        "a luck match",
        "luck match",
        1,
        "plan",
        ("policy", "against", "players", "blocks", "seed", "samples", "rules"),
        None,
        LuckError,
    ),
    "matters": Kind(
        "matters.json",
        "what-matters study",
        "a what-matters study",
        "what-matters study",
        1,
        "plan",
        ("policies", "parts", "players", "games", "seed", "rules"),
        None,
        MattersError,
    ),
    "study": Kind(
        "study.json",
        "study",
        "a study of smsim study",
        "study",
        1,
        "plan",
        ("rules", "players", "levels", "seed", "margins"),
        None,
        StudyError,
    ),
    "learn": Kind(
        "learn.json",
        "smsim learn labels",
        "a folder of smsim learn labels",
        "learn run",
        2,
        ("plan", "rules"),
        ("plan", "rules"),
        None,
        LearnError,
    ),
}
ALONE = "fairness"  # the kind whose manifest is its whole result: its file may stand for its folder


def environment() -> dict[str, str]:
    """The versions a manifest records: what made the data."""
    return {
        "smsim": __version__,
        "numba": metadata.version("numba"),
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def _inputs(spec: Kind, manifest: dict) -> Any:
    """The inputs in a manifest of the form ``read_manifest`` gives (``Kind.inputs``)."""
    return (
        manifest.get(spec.inputs)
        if isinstance(spec.inputs, str)
        else {f: manifest[f] for f in spec.inputs if f in manifest}
    )


def _says(data: dict, kind: str) -> bool:
    """Whether a manifest's fields name ``kind``, in this form or its earlier dialect."""
    old = KINDS[kind].old
    return data.get("kind") == kind or (data.get(old[0]) == old[1] if old else "kind" not in data)


def _load(folder: Path | Remote, file: str, error: type[SmsimError]) -> dict:
    """The JSON object of ``folder``'s manifest ``file``; refused as damaged if it is none."""
    try:
        data = json.loads((folder / file).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8 text
        raise error(f"{str(folder)!r}: {file} is damaged (unreadable: {str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise error(f"{str(folder)!r}: {file} is damaged (not a JSON object)")
    return data


def _found(path: Path | Remote, error: type[SmsimError]) -> tuple[Path | Remote, str | None]:
    """The folder ``path`` stands for and the kind it holds (None: no manifest of smsim's)."""
    if path.name == KINDS[ALONE].file and path.is_file():
        return path.parent, ALONE
    shared = KINDS["dataset"].file  # a comparison's too: the manifest says which
    for kind, spec in KINDS.items():
        if spec.file != shared and (path / spec.file).is_file():
            return path, kind
    if not (path / shared).is_file():
        return path, None
    data = _load(path, shared, error)
    return path, next((k for k, spec in KINDS.items() if spec.file == shared and _says(data, k)), None)


def kind_of(path: str | Path | Remote) -> str | None:
    """What the folder ``path`` holds: a kind of ``KINDS``, or None (no manifest of smsim's). A
    damaged ``manifest.json`` (a dataset's or a comparison's?) raises ``DatasetError``."""
    return _found(location(path), DatasetError)[1]


def read_manifest(path: str | Path | Remote, kind: str | None = None) -> dict[str, Any]:
    """The manifest of the folder ``path`` (of ``kind``, or whatever it holds) in the form its
    kind's readers read; another kind, none or a damaged manifest raise the kind's error."""
    path = location(path)
    error = KINDS[kind].error if kind else DatasetError
    folder, found = _found(path, error)
    if found is None or (kind is not None and found != kind):
        want = KINDS[kind].a if kind else "an smsim result"
        raise error(
            f"{str(path)!r} is not {want} "
            + (f"(it holds {KINDS[found].a})" if found else f"(no {KINDS[kind].file if kind else 'manifest'})")
        )
    spec = KINDS[found]
    data = _load(folder, spec.file, spec.error)

    def damaged(why: str) -> SmsimError:
        return spec.error(f"{str(folder)!r}: {spec.file} is damaged ({why})")

    if not _says(data, found):
        raise damaged(f"it is not {spec.a}'s manifest")
    if "inputs" in data:  # this version's form
        version, inputs = data.get("format_version"), data["inputs"]
        view = {k: v for k, v in data.items() if k != "inputs"}
    else:  # an earlier dialect
        version = data.get(spec.old[2], 1) if spec.old and spec.old[2] else 1
        env = data.get("environment")
        view = {k: v for k, v in data.items() if k not in ("format", "version")}
        view.update(kind=found, format_version=version, smsim=env.get("smsim") if isinstance(env, dict) else None)
        inputs = _inputs(spec, view)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise damaged(f"its format_version is {version!r}")
    if version > spec.version:
        raise spec.error(
            f"{str(folder)!r}: {spec.file} is of format {version}, newer than this smsim "
            f"({__version__}) reads ({spec.version}); upgrade smsim"
        )
    if not isinstance(inputs, dict):
        raise damaged("it records no inputs")
    missing = [f for f in spec.needs if inputs.get(f) is None]
    if missing:  # cut short or edited by hand: refused here, not met later as a KeyError
        raise damaged(f"its inputs have no {', '.join(missing)}")
    if not isinstance(inputs.get("rules", {}), dict) or not isinstance(view.get("command", []), list):
        raise damaged("its rules or command are of the wrong type")
    inputs = _today(inputs)
    view.update({spec.inputs: inputs} if isinstance(spec.inputs, str) else inputs)
    return view


def _today(value: Any) -> Any:
    """Recorded inputs in today's form: rules and policies with the fields and knobs added since
    at their defaults (``normalised``, ``described_now``): the same run, so it resumes."""
    if isinstance(value, list):
        return [_today(v) for v in value]
    if not isinstance(value, dict):
        return value
    by_name = isinstance(value.get("policies"), dict)  # a skill study's policies, by name; a run's, by seat
    return {
        k: normalised(v)
        if k == "rules" and isinstance(v, dict)
        else {n: described_now(p) for n, p in v.items()}
        if k == "policies" and by_name
        else [described_now(p) for p in v]
        if k == "policies" and isinstance(v, list)
        else _today(v)
        for k, v in value.items()
    }


def check_out(path: str | Path | Remote, kind: str, inputs: dict[str, Any] | None = None) -> bool:
    """Whether ``path`` holds this run's folder of ``kind`` (True: the run resumes, or without
    ``inputs`` writes over it) or can become it (False). Anything else (a file, another kind or
    none of smsim's, other ``inputs``, a damaged manifest, no write access) raises the kind's error
    in one line naming the folder. Reads only: a refused folder is left as it was."""
    spec = KINDS[kind]
    if not spec.url and is_url(str(path)):
        raise spec.error(f"{spec.a} is written to a local directory, not to a URL ({str(path)!r})")
    path = location(path)
    out = str(path)
    if path.exists() and not path.is_dir():
        raise spec.error(f"output {out!r} exists and is not a directory")
    _, found = _found(path, spec.error)
    if found != kind and path.is_dir() and any(path.iterdir()):
        held = f" (it holds {KINDS[found].a})" if found else ""
        raise spec.error(f"output {out!r} is not empty and holds no {spec.noun}{held}; choose another --out")
    was = _inputs(spec, read_manifest(path, kind)) if found == kind else None  # a damaged manifest: refused
    now = json.loads(json.dumps(inputs))  # as a manifest holds them: lists, not tuples
    if was is not None and now is not None and was != now:
        differs = [k for k in {**now, **was} if was.get(k) != now.get(k)] or ["format"]  # a key either lacks: named
        raise spec.error(
            f"output {out!r} holds a different {spec.what} (its {', '.join(differs)} "
            f"{'differs' if len(differs) == 1 else 'differ'}); choose another --out or delete it"
        )
    why = unwritable(path)
    if why is not None:
        raise spec.error(f"cannot write to {out!r}: {why}")
    return found == kind


def write_manifest(path: str | Path | Remote, kind: str, manifest: dict[str, Any]) -> None:
    """Make the folder ``path`` and write ``manifest`` (in the form ``read_manifest`` gives) as its
    manifest of ``kind`` in this version's form, whole (``storage.write_text``)."""
    spec = KINDS[kind]
    path = location(path)
    inputs = _inputs(spec, manifest)
    rest = {
        k: v
        for k, v in manifest.items()
        if k
        not in (
            "kind",
            "format_version",
            "smsim",
            "command",
            "environment",
            *([spec.inputs] if isinstance(spec.inputs, str) else spec.inputs),
        )
    }
    data = {
        "kind": kind,
        "format_version": spec.version,
        "smsim": __version__,
        "command": list(manifest.get("command", [])),
        "inputs": inputs,
        **rest,
        "environment": environment(),
    }
    path.mkdir(parents=True, exist_ok=True)
    write_text(path / spec.file, json.dumps(data, indent=2) + "\n")


__all__ = ["KINDS", "check_out", "environment", "kind_of", "read_manifest", "write_manifest"]
