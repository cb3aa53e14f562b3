"""What a balance report reads beside its datasets, declared once per kind.

Each kind of study folder (``runs.folder.KINDS``) that ``smsim report`` takes has one row of
``DECLARED``: how its folder is read, what rules and games its result stands on, and the section it
feeds (a function of its results and the page's ``Context``, giving the section and its lines "In
short"). ``read_inputs`` sorts and reads the paths a report is given, ``check_rules`` refuses in one
place a study under other rules than the report's where its kind must share them, and
``outline.page`` appends each declared section in the declared order. Adding a study kind to the
report is three things: its ``Kind`` (runs/folder.py), its row here and its section function.

The inputs that are not folders of one kind are declared too, with no reader: the rule variants
(sweeps and datasets under other rules: ``tables.split_variants``) and how the game feels (round
snapshots read with a win-probability model: ``write.feel_of``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from smsim.errors import DatasetError
from smsim.intervals import MARGINS
from smsim.report.feel import feel_section, luck_section, matters_section
from smsim.report.render import Section
from smsim.report.studies import compensation_section, skill_section, unadapted_of, variants_section
from smsim.report.study import study_section
from smsim.rules import Rules
from smsim.studies.fairness import read_fairness
from smsim.studies.ladder import read_ladder
from smsim.studies.luck import read_luck
from smsim.studies.matters import read_matters
from smsim.studies.regret import read_regret
from smsim.studies.skill import read_skill
from smsim.studies.study import read_study


@dataclass(frozen=True)
class Study:
    """One study's result in the one shape the report takes: its kind, its folder, the rules and
    the games it stands on, and what its kind's reader gave (``result``)."""

    kind: str
    path: str
    rules: Rules
    games: int
    result: Any


@dataclass
class Context:
    """What a section may need of the page beyond its own results: the margins of the verdicts and
    the rule variants (a skill gap over an L1 a variant's adapted bot beats is bot-dependent)."""

    margins: dict[str, float] = field(default_factory=lambda: dict(MARGINS))
    variants: list = field(default_factory=list)
    variant_tables: list = field(default_factory=list)


@dataclass(frozen=True)
class Declared:
    """A kind of report input: ``read`` (a folder's path to its result; None for an input the
    report builds itself), ``rules`` and ``games`` of a result, ``what`` it is called in a refusal,
    ``section`` (None: it feeds the page's own parts, as a ladder feeds the levels of play),
    ``always`` (its section is shown, saying so, when there is nothing of its kind), ``first_screen``
    (its lines "In short" are on the first screen too) and ``own_rules`` (it may stand on other rules
    than the report's: a compensation, a study of a rules change)."""

    read: Callable[[str], Any] | None
    rules: Callable[[Any], Rules]
    games: Callable[[Any], int]
    what: str
    section: Callable[[list, Context], tuple[Section, list[str]]] | None = None
    always: bool = False
    first_screen: bool = False
    own_rules: bool = False


def _attrs(result, key: str, default):
    table = result if isinstance(result, pd.DataFrame) else result.table
    return table.attrs.get(key, default)


def _regret(path: str) -> pd.DataFrame:
    table = read_regret(path)
    table.attrs["path"] = str(path)  # named in a refusal (``tables.keep_regret``)
    return table


def _games_of(table: pd.DataFrame, *columns: str) -> int:
    return next((int(table[c].sum()) for c in columns if c in table), 0)


DECLARED: dict[str, Declared] = {
    "ladder": Declared(
        read_ladder,
        lambda r: r.plan.rules,
        lambda r: _games_of(r.cells, "played", "games"),
        "a ladder",
    ),
    "regret": Declared(
        _regret,
        lambda r: _attrs(r, "rules", Rules()),
        lambda r: _games_of(r, "seat_games"),
        "a keep-regret study",
    ),
    "skill": Declared(
        read_skill,
        lambda r: Rules(),
        lambda r: _games_of(r.matrix, "games"),
        "a skill study",
        lambda results, ctx: skill_section(results, ctx.margins["points"], unadapted_of(ctx.variants)),
        always=True,
        own_rules=True,  # its variants are other rules by design
    ),
    "variants": Declared(
        None,
        lambda r: Rules(),
        lambda r: 0,
        "rule variants",
        lambda results, ctx: variants_section(results, ctx.variant_tables, ctx.margins),
        own_rules=True,
    ),
    "fairness": Declared(
        read_fairness,
        lambda r: r.rules,
        lambda r: int(r.games + r.check_games),
        "a seat-compensation search",
        lambda results, ctx: compensation_section(results),
        own_rules=True,  # its rules are compensated
    ),
    "feel": Declared(
        None,
        lambda r: Rules(),
        lambda r: 0,
        "how the game feels",
        lambda results, ctx: feel_section(*results[0]),
        first_screen=True,
    ),
    "luck": Declared(
        read_luck,
        lambda r: _attrs(r, "rules", Rules()),
        lambda r: len(r.rows),
        "a luck match",
        lambda results, ctx: luck_section(results),
        first_screen=True,
    ),
    "matters": Declared(
        read_matters,
        lambda r: _attrs(r, "rules", Rules()),
        lambda r: _games_of(r.table, "games"),
        "a what-matters study",
        lambda results, ctx: matters_section(results),
        first_screen=True,
    ),
    "study": Declared(
        read_study,
        lambda r: r.rules,
        lambda r: r.games,
        "a study of rule changes",
        lambda results, ctx: study_section(results),
        first_screen=True,
        own_rules=True,  # a rules change against the printed rules, by design
    ),
}
"""Every kind of report input, in the order of their sections on the page."""


def wrap(kind: str, result: Any, path: str = "") -> Study:
    """``result`` of ``kind`` in the one shape (``Study``)."""
    d = DECLARED[kind]
    path = path or str(getattr(result, "path", "") or _attrs_path(result))
    return Study(kind, path, d.rules(result), d.games(result), result)


def _attrs_path(result) -> str:
    try:
        return str(_attrs(result, "path", ""))
    except AttributeError:
        return ""


@dataclass
class Inputs:
    """Everything a report reads beside its datasets, by kind of ``DECLARED``."""

    studies: dict[str, list[Study]] = field(default_factory=dict)

    @classmethod
    def of(cls, **results: list) -> Inputs:
        """Inputs from results in hand, by kind: ``Inputs.of(ladder=[res], skill=[s])``; the feel's
        one entry is the tuple (shapes, calibration, shape_variants)."""
        unknown = [k for k in results if k not in DECLARED]
        if unknown:
            raise ValueError(f"no report input of kind {', '.join(unknown)}; one of {', '.join(DECLARED)}")
        return cls({k: [wrap(k, r) for r in rs] for k, rs in results.items() if rs})

    def results(self, kind: str) -> list:
        return [s.result for s in self.studies.get(kind, [])]


def read_inputs(paths: list[str], kinds: dict[str, str | None]) -> tuple[Inputs, list[str]]:
    """The study folders among ``paths`` (``kinds``: what each holds, ``tables.kinds_of``), read
    by their declared readers, in the order given, and the other paths (datasets, comparisons,
    sweeps, wall-bonus ablations: the tables' data). The one place that sorts what ``smsim report``
    is given."""
    readable = {kind for kind, d in DECLARED.items() if d.read is not None}
    studies: dict[str, list[Study]] = {}
    for p in paths:
        kind = kinds[str(p)]
        if kind in readable:
            studies.setdefault(kind, []).append(wrap(kind, DECLARED[kind].read(p), str(p)))
    return Inputs(studies), [p for p in paths if kinds[str(p)] not in readable]


def check_rules(inputs: Inputs, rules: Rules) -> None:
    """A study under other rules than the report's, of a kind that must share them, refused in one
    line naming the fields that differ."""
    for kind, studies in inputs.studies.items():
        if DECLARED[kind].own_rules:
            continue
        for s in studies:
            if s.rules != rules:
                mine, theirs = s.rules.to_dict(), rules.to_dict()
                diff = sorted(k for k in {*mine, *theirs} if mine.get(k) != theirs.get(k))
                raise DatasetError(
                    f"{s.path!r} is {DECLARED[kind].what} under other rules than the report's ({', '.join(diff)}); "
                    "report one rules configuration at a time"
                )


def sections(inputs: Inputs, context: Context) -> list[tuple[Section, list[str], bool]]:
    """Each declared kind's section, in the declared order: (section, its lines "In short", whether
    they go on the first screen too); a kind with nothing in ``inputs`` only where it is ``always``."""
    out = []
    for kind, d in DECLARED.items():
        results = inputs.results(kind)
        if d.section is None or not (results or d.always):
            continue
        sec, short = d.section(results, context)
        out.append((sec, short, d.first_screen))
    return out
