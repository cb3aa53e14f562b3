"""The report's one renderer: the blocks and sections of a page, and how they are written in
Markdown and in HTML (the same page twice: what one shows the other shows).

A :class:`Page` (built by ``report.outline``) is rendered by :func:`markdown_page` and
:func:`html_page`; a table's cells are formatted here once (``display_table``: rates as
percentages, a figure with its interval as ``intervals.interval_text`` writes it), wide tables are
split (``split_columns``) and long ones fold below their headline rows. Nothing here computes a
figure or reads data.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from smsim.intervals import MISSING, interval_text
from smsim.runs.dataset import VP_LABELS

# columns shown as percentages (with their intervals, when the table has them)
PERCENT = {
    "win",
    "held",
    "walls_held",
    "walls_carried",
    "completed",
    "came",
    "lost_any",
    "priest_scored",
    "changed",
    "several_full",
    "aborted_share",
    "wall_share_of_defence",
    "parity",
    "church_vp_share",
    "win_change",
    "completed_denied",
    *(f"size_{k}_built" for k in range(1, 6)),
    *(f"longest_{k}" for k in range(6)),
    *(f"share_{k}" for k in range(13)),
    *(f"seat_{k}" for k in range(5)),
}


MAX_COLUMNS = 8
"""No table on the page has more columns: eight fit a 1,400 px window with intervals in their cells.
A wider table is split into several that repeat its key columns (``split_columns``)."""

MAX_SHORT_ROWS = 16
"""A table with more rows shows its headline rows, the whole of it folded below (``<details>``)."""

KEYS = (
    "players",
    "policy",
    "field",
    "seat",
    "side",
    "attack",
    "variant",
    "metric",
    "figure",
    "a",
    "b",
    "rule",
    "dataset",
)
"""Columns that name a row: a split table repeats the leading ones."""


@dataclass
class Block:
    kind: str  # "heading", "list", "table", "figure", "missing", "link" (text: a report's title, name: its folder)
    text: str = ""
    name: str = ""
    table: pd.DataFrame | None = None  # written to tables/NAME.csv unrounded
    figure: object = None
    shown: pd.DataFrame | None = None  # a table's cells as the page shows them, where not display_table's
    items: list[str] = field(default_factory=list)  # a list's lines
    short: pd.DataFrame | None = None  # a table's headline rows and columns, shown above the folded whole
    png: bytes = b""  # a figure, once drawn
    pooled: str = ""  # a table whose whole is pooled over line-ups: the words that say so
    fold: bool = True  # a long table folds below its headline rows; a ladder is shown whole
    headline: pd.DataFrame | None = None  # the headline rows' own numbers where the whole table pools more
    # data than they stand on (tables/NAME_headline.csv): each CSV link holds the figures shown beside it

    @property
    def links(self) -> list[tuple[str, str]]:
        """The table's CSV links, (words, file): the headline rows' own where they have one, then the whole table's."""
        if self.headline is None:
            return [("CSV", f"tables/{self.name}.csv")]
        return [
            ("CSV of the headline rows", f"tables/{self.name}_headline.csv"),
            ("CSV of the whole table", f"tables/{self.name}.csv"),
        ]

    @property
    def full(self) -> pd.DataFrame:
        """A table's cells as the page shows them whole."""
        return self.table if self.shown is None else self.shown

    @property
    def folded(self) -> bool:
        """Whether the whole table folds below its headline rows (both pages alike)."""
        full = self.full
        return self.fold and (
            self.short is not None or len(full) > MAX_SHORT_ROWS or len(display_table(full).columns) > MAX_COLUMNS
        )


@dataclass
class Section:
    title: str
    intro: str
    blocks: list[Block] = field(default_factory=list)


def topic(title: str, *blocks: Block) -> list[Block]:
    """A sub-heading, then the figures, then the tables: the page shows a figure before its numbers."""
    order = {"missing": 0, "figure": 1, "text": 2, "table": 2, "list": 2}
    return [Block("heading", text=title), *sorted(blocks, key=lambda b: order[b.kind])]


@dataclass
class Page:
    """A whole report, ready to render: built by ``outline.page``, written by ``write.write_report``."""

    title: str
    made: str  # the line under the title: the version, the date and the games the report stands on
    findings: list[tuple[str, str]]  # (sentence, the title of the section it comes from)
    notes: list[str]  # under the findings: what the cap left out, what the data cannot tell
    findings_rule: str  # how a finding is tested, under them
    sections: list[Section]
    datasets: pd.DataFrame  # "Data and rules": every dataset read
    rules: pd.DataFrame  # "Data and rules": every rules field
    closing: str  # the page's last words: what the intervals are
    opening: list[Section] = field(default_factory=list)  # the first screen, in a box above the findings

    @property
    def titles(self) -> list[str]:
        """The headings of the page's sections, in order: the contents line."""
        return [*(s.title for s in self.opening), "Key findings", *(s.title for s in self.sections), "Data and rules"]


def markdown_page(page: Page) -> str:
    """The page as Markdown (``report.md``)."""
    md = [
        f"# {page.title}",
        "",
        page.made,
        "",
        "Contents: " + " · ".join(f"[{t}](#{slug(t)})" for t in page.titles),
        "",
    ]
    for sec in page.opening:
        md += [f"## {sec.title}", "", sec.intro, ""]
        for b in sec.blocks:
            md += markdown_block(b)
    md += (
        ["## Key findings", ""]
        + [f"{k}. {text} ([{sec}](#{slug(sec)}))" for k, (text, sec) in enumerate(page.findings, 1)]
        + ([""] if page.findings else [])
    )
    md += [note + "\n" for note in page.notes] + [f"*{page.findings_rule}*", ""]
    for sec in page.sections:
        md += [f"## {sec.title}", "", sec.intro, ""]
        for b in sec.blocks:
            md += markdown_block(b)
    md += ["## Data and rules", ""]
    md += ["**Datasets.**", "", markdown_table(page.datasets), ""]
    md += ["**Rules configuration** (every field; docs/rules.md §7).", "", markdown_table(page.rules), ""]
    md += [page.closing, ""]
    return "\n".join(md)


def html_page(page: Page) -> str:
    """The page as one self-contained HTML file (``report.html``): its figures inline, its styles
    inline, nothing loaded from the network. Figures must have been drawn (``Block.png``)."""
    nav = " ".join(f'<a href="#{slug(t)}">{html.escape(t)}</a>' for t in page.titles)
    body = [f'<nav class="toc">{nav}</nav>', f"<h1>{html.escape(page.title)}</h1>", f"<p>{html_text(page.made)}</p>"]
    for sec in page.opening:  # the first screen: a box
        body += [
            f'<section class="first-screen"><h2 id="{slug(sec.title)}">{html.escape(sec.title)}</h2>',
            f"<p>{html_text(sec.intro)}</p>",
            *(html_block(b) for b in sec.blocks),
            "</section>",
        ]
    body.append('<h2 id="key-findings">Key findings</h2>')
    if page.findings:
        body.append(
            '<ol class="findings">'
            + "".join(
                f'<li>{html_text(text)} (<a href="#{slug(sec)}">{html.escape(sec)}</a>)</li>'
                for text, sec in page.findings
            )
            + "</ol>"
        )
    body += [f"<p>{html_text(note)}</p>" for note in page.notes]
    body.append(f'<p class="note">{html.escape(page.findings_rule)}</p>')
    for sec in page.sections:
        body += [f'<h2 id="{slug(sec.title)}">{html.escape(sec.title)}</h2>', f"<p>{html_text(sec.intro)}</p>"]
        body += [html_block(b) for b in sec.blocks]
    body.append('<h2 id="data-and-rules">Data and rules</h2>')
    body += ["<p><b>Datasets.</b></p>", html_table(page.datasets)]
    body += ["<p><b>Rules configuration</b> (every field; docs/rules.md §7).</p>", html_table(page.rules)]
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(page.title)}</title>"
        f"<style>{CSS}</style></head><body>{unique_ids(''.join(body))}<p>{html.escape(page.closing)}</p>"
        "</body></html>\n"
    )


def unique_ids(body: str) -> str:
    """Headings' ids made unique as GitHub makes the Markdown page's anchors: the first of a title
    keeps its slug, the next ones get ``-1``, ``-2`` ... in the order of the page ("Across strengths
    of play" heads four sections), so that an anchor leads to one place and the two pages agree.

    >>> unique_ids('<h3 id="a">A</h3><h3 id="b">B</h3><h3 id="a">A</h3>')
    '<h3 id="a">A</h3><h3 id="b">B</h3><h3 id="a-1">A</h3>'
    """
    seen: dict[str, int] = {}

    def one(m: re.Match) -> str:
        k = seen.get(m.group(1), 0)
        seen[m.group(1)] = k + 1
        return f'id="{m.group(1)}-{k}"' if k else m.group(0)

    return re.sub(r'id="([^"]+)"', one, body)


# -- formatting ----------------------------------------------------------------------------------
def _number(v, percent: bool) -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return MISSING
    if isinstance(v, str):  # a cell already written for the page
        return v
    if percent:
        return f"{100 * float(v):.1f}%"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if v.is_integer() and abs(v) >= 100:
            return f"{int(v):,}"
        return f"{v:.2f}" if abs(v) < 10 else f"{v:.1f}"
    return str(v)


def display_table(t: pd.DataFrame) -> pd.DataFrame:
    """Strings for the page: ``x [lo, hi]`` where the table has ``x_lo`` and ``x_hi``, percentages
    for rates, counts of successes left out (the rate and n say it), headings in words
    (``heading``) and seats numbered from 1 (a ``seat`` column of whole numbers counts from 0)."""
    cols: dict[str, list[str]] = {}
    for c in t.columns:
        name = str(c)
        if name.endswith(("_lo", "_hi")) and name[:-3] in t.columns:
            continue
        if name.endswith("_count") and name[: -len("_count")] in t.columns:
            continue
        pct = name in PERCENT
        column = t[c] + 1 if name == "seat" and pd.api.types.is_integer_dtype(t[c]) else t[c]  # people count from 1
        values = [_number(v, pct) for v in column]
        if f"{name}_lo" in t.columns and f"{name}_hi" in t.columns:  # a figure with its interval: interval_text
            values = [
                interval_text(
                    v, lo, hi, digits=1 if pct or abs(v) >= 10 else 2, scale=100 if pct else 1, unit="%" if pct else ""
                )
                if _number(lo, pct) != MISSING and not isinstance(v, str)
                else text
                for text, v, lo, hi in zip(values, t[c], t[f"{name}_lo"], t[f"{name}_hi"])
            ]
            name = f"{name} [95% CI]"
        cols[heading(name)] = values
    return pd.DataFrame(cols)


HEADINGS = {
    **{k: f"{v} VP" for k, v in VP_LABELS.items() if k not in ("earned", "total")},
    "earned": "VP earned in play",
}
"""Column headings in words where a column's name is not (the sources of the final score)."""


def heading(name: str) -> str:
    """A column's heading on the page (its CSV keeps the name; ``[95% CI]`` follows an interval).
    Seats are numbered from 1, the start player's seat 1, as people count them; the CSV and the
    datasets count from 0 (``seat_0`` is the start player's)."""
    base, ci = (name[: -len(" [95% CI]")], " [95% CI]") if name.endswith(" [95% CI]") else (name, "")
    if (seat := re.fullmatch(r"seat_(\d)", base)) is not None:
        return f"seat {int(seat.group(1)) + 1}{ci}"
    return HEADINGS.get(base, base.replace("_", " ")) + ci


def markdown_table(t: pd.DataFrame) -> str:
    d = display_table(t)
    esc = lambda s: str(s).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(esc(c) for c in d.columns) + " |", "|" + "---|" * len(d.columns)]
    lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in d.itertuples(index=False)]
    return "\n".join(lines)


def html_table(t: pd.DataFrame) -> str:
    d = display_table(t)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in d.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>" for row in d.itertuples(index=False)
    )
    return f"<div class='wide'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def split_columns(t: pd.DataFrame, limit: int = MAX_COLUMNS) -> list[pd.DataFrame]:
    """A table as the page shows it (``display_table``) cut into tables of at most ``limit``
    columns, each repeating the leading key columns (``KEYS``, at most 3)."""
    d = display_table(t)
    if len(d.columns) <= limit:
        return [d]
    names = {k.replace("_", " ") for k in KEYS}
    keys = []
    for c in d.columns[:3]:
        if c not in names:
            break
        keys.append(c)
    rest = [c for c in d.columns if c not in keys]
    step = max(1, limit - len(keys))
    return [d[keys + rest[i : i + step]] for i in range(0, len(rest), step)]


def slug(title: str) -> str:
    """A heading's anchor, as GitHub and the HTML page both make it: lower case, letters, digits,
    spaces as hyphens."""
    return "-".join("".join(ch for ch in title.lower() if ch.isalnum() or ch in " -").split(" "))


# -- blocks --------------------------------------------------------------------------------------
STRONG = re.compile(r"\*\*(\S(?:[^*]*?\S)?)\*\*")
EMPHASIS = re.compile(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])")
"""Markdown's **strong** and *emphasis* in page text: a pair of asterisks around words, never a
lone asterisk (``2 * 3``) or one inside a word."""


def html_text(text: str) -> str:
    """Page text (written for Markdown) as HTML: escaped, `code` as code, **strong** and
    *emphasis* as such, so that no Markdown mark shows on the HTML page. Inside code nothing is
    converted."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for k, part in enumerate(parts):
        if k % 2:  # a code span
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            part = STRONG.sub(r"<strong>\1</strong>", html.escape(part))
            out.append(EMPHASIS.sub(r"<em>\1</em>", part))
    return "".join(out)


def _link_sections(sections: list[str]) -> str:
    """What a linked report adds: ", with its sections A, B and C." (nothing where it adds none)."""
    if not sections:
        return "."
    names = sections[0] if len(sections) == 1 else ", ".join(sections[:-1]) + " and " + sections[-1]
    return f", with its section{'s' if len(sections) > 1 else ''} {names}."


def markdown_block(b: Block) -> list[str]:
    if b.kind == "heading":
        return [f"### {b.text}", ""]
    if b.kind == "missing":
        return [f"*{b.text}*", ""]
    if b.kind == "text":
        return [b.text, ""]
    if b.kind == "list":
        return [f"**{b.text}**", ""] + [f"- {item}" for item in b.items] + [""]
    if b.kind == "link":
        return [f"**Read with:** [{b.text}]({b.name}/report.md){_link_sections(b.items)}", ""]
    if b.kind == "figure":
        return [f"![{b.name}](figures/{b.name}.png)", "", f"*{b.text}* ([SVG](figures/{b.name}.svg))", ""]
    full = b.full
    lines = [f"**{b.text}** (" + "; ".join(f"[{w}]({f})" for w, f in b.links) + ")", ""]
    if b.short is not None:
        lines += _md_tables(b.short)
    if b.folded:
        lines += [
            "<details><summary>The whole table"
            + (f", {b.pooled}" if b.pooled else "")
            + f": {len(full):,} rows</summary>",
            "",
        ]
        lines += _md_tables(full) + ["</details>", ""]
    else:
        lines += _md_tables(full)
    return lines


def _md_tables(t: pd.DataFrame) -> list[str]:
    out = []
    for part in split_columns(t):
        out += [markdown_table(part), ""]
    return out


def _html_tables(t: pd.DataFrame) -> str:
    return "".join(html_table(part) for part in split_columns(t))


def html_block(b: Block) -> str:
    if b.kind == "heading":
        return f'<h3 id="{slug(b.text)}">{html.escape(b.text)}</h3>'
    if b.kind == "missing":
        return f'<p class="missing">{html_text(b.text)}</p>'
    if b.kind == "text":
        return f"<p>{html_text(b.text)}</p>"
    if b.kind == "list":
        return f"<p><b>{html_text(b.text)}</b></p><ul>" + "".join(f"<li>{html_text(i)}</li>" for i in b.items) + "</ul>"
    if b.kind == "link":
        href = html.escape(f"{b.name}/report.html", quote=True)
        adds = html_text(_link_sections(b.items))
        return f'<p><b>Read with:</b> <a href="{href}">{html.escape(b.text)}</a>{adds}</p>'
    if b.kind == "figure":
        png = base64.b64encode(b.png).decode()
        return (
            f'<figure><img alt="{b.name}" src="data:image/png;base64,{png}"><figcaption>{html_text(b.text)}'
            "</figcaption></figure>"
        )
    full = b.full
    links = "; ".join(f'<a href="{html.escape(f, quote=True)}">{html.escape(w)}</a>' for w, f in b.links)
    head = f"<p><b>{html_text(b.text)}</b> ({links})</p>"
    if not b.folded:
        return head + _html_tables(full)
    short = _html_tables(b.short) if b.short is not None else ""
    label = f"The whole table{', ' + b.pooled if b.pooled else ''}: {len(full):,} rows"
    return head + short + f"<details><summary>{html.escape(label)}</summary>{_html_tables(full)}</details>"


CSS = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:0 auto;padding:0 1em 2em;color:#222}
nav.toc{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc;padding:0.4em 0;z-index:1;font-size:0.9em}
nav.toc a{margin-right:1em;text-decoration:none;white-space:nowrap}h2,h3{scroll-margin-top:3em}
h2{border-bottom:2px solid #4c72b0;padding-bottom:0.2em;margin-top:2em}
ol.findings li{margin:0.5em 0;line-height:1.4}.wide{overflow-x:auto}
table{border-collapse:collapse;font-size:0.82em;margin:0.5em 0 1em}th,td{border:1px solid #ccc;padding:2px 6px;
text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}figure{margin:1em 0 1.5em}
figcaption{font-size:0.9em;color:#444}img{max-width:100%}.missing{color:#8a6d3b;font-style:italic}
details{margin:0 0 1.5em}summary{cursor:pointer;color:#4c72b0}.note{font-size:0.9em;color:#444}
.first-screen{border:2px solid #4c72b0;border-radius:6px;padding:0 1em;margin:1em 0;background:#f7f9fc}
code,pre{background:#f6f6f6}pre{padding:0.5em;overflow-x:auto}"""
