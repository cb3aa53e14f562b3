"""Writing a report (``smsim report``): the page built by ``report.outline``, drawn and written.

What is written into the output directory:

- ``report.md`` and ``report.html`` (figures embedded, so the HTML file travels alone);
- ``figures/KIND.png`` and ``figures/KIND.svg`` (for print);
- ``tables/NAME.csv``: every table of the report, unrounded, for checking and re-use.

Numbers shown are rounded; rates are percentages with their 95% interval in brackets, means are
followed by theirs. A section or table with nothing to show says so instead of failing.
"""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib
import pandas as pd

from smsim.errors import DatasetError
from smsim.files import write_file
from smsim.intervals import MARGINS, check_margins
from smsim.report import tables as A
from smsim.report.inputs import Inputs, check_rules, read_inputs, wrap
from smsim.report.outline import page, see_also_of
from smsim.report.render import Page, html_page, markdown_page
from smsim.report.study import study_page
from smsim.runs.dataset import records_rounds
from smsim.runs.folder import KINDS, kind_of, read_manifest
from smsim.studies.shape import game_shape, shape_difference
from smsim.studies.study import StudyResult, bonus_tables, read_study, rules_named
from smsim.studies.sweep import variant_name
from smsim.studies.winprob import WinProbModel, calibration_summary, mirror_policy, read_positions


def _fig_bytes(fig, fmt: str) -> bytes:
    """The figure as PNG or SVG, without a date and with fixed SVG ids, so that regenerating a
    report from the same data changes no file."""
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "smsim"}):
        fig.savefig(buf, format=fmt, dpi=110 if fmt == "png" else None, metadata={"Date": None})
    return buf.getvalue()


REPORT_TITLE = "Saint Malo balance report"


def write_page(built: Page, out: str | Path) -> Path:
    """Draw and write a built page into ``out`` (which must exist): its tables as CSV, its figures
    as PNG and SVG, ``report.html`` and ``report.md``; returns the path of report.md."""
    out = Path(out)
    for sec in [*built.opening, *built.sections]:
        for b in sec.blocks:
            if b.kind == "table":
                write_file(out / "tables" / f"{b.name}.csv", b.table.to_csv(index=False))
                if b.headline is not None:
                    write_file(out / "tables" / f"{b.name}_headline.csv", b.headline.to_csv(index=False))
            elif b.kind == "figure":
                b.png = _fig_bytes(b.figure, "png")
                write_file(out / "figures" / f"{b.name}.png", b.png)
                # the SVG keeps the layout the PNG's drawing computed: both files show one figure.
                # No layout engine at all (not "none", a placeholder that still makes savefig
                # draw the figure once to lay it out): a tenth of a report's time, then a sixth
                # of its figures' drawing, saved; the SVG is the same, byte for byte
                b.figure.set_layout_engine(None)
                write_file(out / "figures" / f"{b.name}.svg", _fig_bytes(b.figure, "svg"))
    write_file(out / "report.html", html_page(built))
    write_file(out / "report.md", markdown_page(built))
    return out / "report.md"


def write_study_report(
    study: str | Path | StudyResult, out: str | Path, title: str | None = None, see_also: list[str] = ()
) -> Path:
    """Write the report of a study (its folder, or a result in hand: ``smsim study``) into ``out``
    (``report.study.study_page``); returns report.md. A study that played the balance report's
    studies too (``--balance``) gets the whole balance report of its rules, with its changes from
    the printed rules on it (``report``; ``see_also`` as there)."""
    result = study if isinstance(study, StudyResult) else read_study(study)
    if result.balance:
        named = f"{REPORT_TITLE}: {result.plan.name or rules_named(result.rules)}"
        return report([*result.balance, result.path], str(out), title or named, result.plan.margins, see_also=see_also)
    out = Path(out)
    if (held := kind_of(out)) is not None:
        raise DatasetError(f"{str(out)!r} holds {KINDS[held].a}; write the report into another directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"cannot write to {str(out)!r}: {exc.strerror}") from None
    return write_page(study_page(result, title), out)


def write_report(
    data: A.ReportData,
    out: str | Path,
    inputs: Inputs | None = None,
    title: str = "Saint Malo balance report",
    margins: dict[str, float] = MARGINS,
    see_also: list[str] = (),
) -> Path:
    """Write the report into ``out`` (created if needed); returns the path of report.md.

    The page (``outline.page``): the key findings, the at-a-glance table, the strength check and
    the headline figure, then the sections; each of the four on the game opens with its ladder
    (``report.ladder``), and each topic shows its figure first, then the headline rows of each
    table (the at-a-glance games), the whole table folded below it and written as CSV. ``inputs``:
    the studies beside the datasets (``report.inputs.Inputs``: ladders, keep-regret studies, skill
    studies, rule variants, compensations, how the game feels, luck, what matters, studies of rule
    changes), each kind that must share the report's rules checked (``inputs.check_rules``).
    ``margins``: the smallest change that matters per unit (``intervals.MARGINS``, as fractions:
    0.01 is a point of a rate), any unit left out at its default; the verdicts by size judge against
    them. ``see_also``: folders of other reports, linked from the first screen (``outline.see_also_of``)."""
    margins = check_margins(margins)
    inputs = inputs or Inputs()
    linked = [see_also_of(folder, out) for folder in see_also]
    check_rules(inputs, data.rules)
    out = Path(out)
    if (held := kind_of(out)) is not None:
        raise DatasetError(f"{str(out)!r} holds {KINDS[held].a}; write the report into another directory")
    try:
        (out / "figures").mkdir(parents=True, exist_ok=True)
        (out / "tables").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"cannot write to {str(out)!r}: {exc.strerror}") from None
    return write_page(page(data, inputs, title, margins, linked), out)


def feel_of(
    paths: list[str], model_paths: str | list[str], variants: list[str] = ()
) -> tuple[list, list[dict], pd.DataFrame]:
    """The shape of the games (``studies.shape``) of every dataset among ``paths`` that records round
    snapshots, each under the win-probability model of ``model_paths`` fitted on its own policy's
    games (one model: every dataset's), and each model's calibration on its datasets' held-out
    games (none recording them, or one whose policy no model was fitted on, is refused in one line);
    and each of ``variants`` (datasets under other rules) recording them, minus the dataset of
    ``paths`` of the same games (players, seed, games: the same dice), paired game by game
    (``shape.shape_difference``), with its ``variant`` named by its rules' change."""
    model_paths = [model_paths] if isinstance(model_paths, str) else list(model_paths)
    models = [WinProbModel.load(m) for m in model_paths]
    runs = {p: read_manifest(p).get("run", {}) for p in [*paths, *variants]}
    with_rounds = [p for p in paths if records_rounds(runs[p])]
    if not with_rounds:
        raise DatasetError(
            f"--winprob {model_paths[0]}: no dataset given records round snapshots (write mirror games "
            "with smsim simulate --rounds)"
        )

    def model_of(path: str) -> WinProbModel:
        if len(models) == 1:
            return models[0]
        policy = mirror_policy(path)
        fitted = [m for m in models if policy in m.policies]
        if not fitted:
            raise DatasetError(
                f"{path}: no --winprob model was fitted on {policy!r} games (given: "
                f"{', '.join(model_paths)}); fit one on its mirror games with smsim winprob"
            )
        if len(fitted) > 1:
            raise DatasetError(
                f"{path}: more than one --winprob model was fitted on {policy!r} games; give one a level"
            )
        return fitted[0]

    shapes = [game_shape(model_of(p), p) for p in with_rounds]

    def same_games(a: str, b: str) -> bool:
        return all(runs[a].get(k) == runs[b].get(k) for k in ("players", "seed", "games"))

    diffs = []
    shown = A.naming_root([*with_rounds, *variants])  # datasets by their folders, never a machine's path
    for v in variants:
        base = next((i for i, p in enumerate(with_rounds) if same_games(p, v)), None)
        if records_rounds(runs[v]) and base is not None:
            base_rules = runs[with_rounds[base]]["rules"]
            changes = {k: x for k, x in runs[v]["rules"].items() if base_rules.get(k) != x}
            diffs.append(
                shape_difference(shapes[base], game_shape(model_of(with_rounds[base]), v)).assign(
                    variant=variant_name(changes, base_rules), dataset=shown(v)
                )
            )
    calibration = [
        {**calibration_summary(model_of(p), read_positions(p)), "policy": r.policy} for p, r in zip(with_rounds, shapes)
    ]
    return shapes, calibration, (pd.concat(diffs, ignore_index=True) if diffs else pd.DataFrame())


def report(
    paths: list[str],
    out: str,
    title: str = REPORT_TITLE,
    margins: dict[str, float] = MARGINS,
    winprob: str | list[str] | None = None,
    see_also: list[str] = (),
) -> Path:
    """Read datasets and write their report (the Python side of ``smsim report``). Mirror datasets
    of the ladder's levels (``balanced``, ``learned``, ``rollout-learned`` in every seat) make the
    strength ladders; sweep directories, and datasets whose rules differ from the others', are
    compared in the section "Rule variants" (``report.tables.split_variants``); results of
    ``smsim fairness --out`` make the section "Seat compensation", skill studies (``smsim skill
    --out``) the section "How much skill matters", a ladder (``smsim ladder --out``) the levels of
    play shown ordered and keep-regret studies (``smsim regret --out``) the section "Dice
    decisions" (``inputs.read_inputs`` sorts them), what-matters studies (``smsim matters --out``) the
    section "What matters", luck matches (``smsim luck --out``) the section "Luck against skill".
    With ``winprob`` (a model of ``smsim winprob``), the datasets recorded with round snapshots make
    the section "How the game feels" (``feel_of``). A folder of ``smsim study`` given alone gets its
    own report (``write_study_report``: with its balance report's studies, the whole balance report);
    beside datasets, the section "Rule changes studied", and where no wall-bonus ablation is given
    and the study played the balance report's studies, its bonus arms are the ablation
    (``study.bonus_tables``).
    ``margins`` and ``see_also``: as ``write_report``'s."""
    margins = check_margins(margins)  # before any data is read
    for folder in see_also:  # and the reports to link: a wrong folder is refused at once
        see_also_of(folder, out)

    kinds = A.kinds_of(paths)  # asked once a path
    inputs, rest = read_inputs(paths, kinds)
    if not rest:
        alone = inputs.studies.get("study", [])
        if len(paths) == 1 and len(alone) == 1:  # a study of smsim study alone: its own report
            return write_study_report(alone[0].result, out, None if title == REPORT_TITLE else title, see_also)
        raise DatasetError(
            "no dataset given beside the studies (fairness results, skill studies, ladders, keep-regret studies); "
            "a folder of smsim study is reported alone"
        )
    main, variants = A.split_variants(rest, kinds)
    inputs.studies["variants"] = [wrap("variants", vs) for vs in variants]
    if winprob:
        variant_paths = [p for p in rest if p not in main and kinds[str(p)] == "dataset"]
        feel = feel_of([p for p in main if kinds[str(p)] == "dataset"], winprob, variant_paths)
        inputs.studies["feel"] = [wrap("feel", feel)]
    data = A.read_report_data(main, kinds=kinds)
    for s in inputs.studies.get("study", []):
        if s.result.balance and data.bonus.empty and s.rules == data.rules:  # its bonus arms: the ablation
            data.bonus = bonus_tables(s.result)[0]
    return write_report(data, out, inputs, title, margins, see_also)
