"""The rules the code cites exist: every "§N" of the rules in smsim/ (and every "RULES.md §N" or
"docs/rules.md §N" anywhere in the project) names a section of docs/rules.md, and every rule
name the referee reports ("RULES.md §3 Rotation") is a heading of that section."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from smsim.play import referee

ROOT = Path(__file__).resolve().parents[1]
RULES_DOC = ROOT / "docs" / "rules.md"

# "RULES.md §3", "docs/rules.md §3" and "rules.md §3-§6": a citation of the rules, either form
CITED = re.compile(r"(?:docs/)?(?:RULES|rules)\.md,? (§\s*\d+(?:\s*[-,]\s*§\s*\d+)*)")
# a bare "§3" in smsim/: the rules too, except "STYLE §4", which cites the style guide
BARE = re.compile(r"(?<!STYLE )§\s*(\d+)")
LABEL = re.compile(r"^(?:docs/)?(?:RULES|rules)\.md §(\d+) ([^(]+?)\s*(?:\(.*\))?$")


def sections(text: str) -> dict[int, list[str]]:
    """Section number -> its title and the titles of its subsections."""
    out: dict[int, list[str]] = {}
    current = None
    for line in text.splitlines():
        top = re.match(r"^## (\d+)\. (.+)$", line)
        if top:
            current = int(top.group(1))
            out[current] = [top.group(2).strip()]
        elif line.startswith("### ") and current is not None:
            out[current].append(line[4:].strip())
    return out


SECTIONS = sections(RULES_DOC.read_text(encoding="utf-8"))


def citations() -> list[tuple[str, int]]:
    """(file:line, section number) for every citation of the rules."""
    found = []
    files = sorted((ROOT / "smsim").rglob("*.py"))
    others = sorted((ROOT / "scripts").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    others += [ROOT / "README.md"] + [p for p in sorted((ROOT / "docs").glob("*.md")) if p != RULES_DOC]
    for path in files + others:
        bare_counts = path in files
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            where = f"{path.relative_to(ROOT)}:{n}"
            numbers = set()
            for m in CITED.finditer(line):
                numbers.update(int(x) for x in re.findall(r"\d+", m.group(1)))
            if bare_counts:
                numbers.update(int(x) for x in BARE.findall(line))
            found.extend((where, k) for k in sorted(numbers))
    return found


def test_docs_rules_md_has_the_numbered_sections_in_order():
    assert list(SECTIONS) == list(range(1, len(SECTIONS) + 1))
    assert len(SECTIONS) >= 9  # §1 components ... §9 worked examples


def test_the_citation_patterns_read_both_forms_and_skip_the_style_guide():
    assert [m.group(1) for m in CITED.finditer("see RULES.md §3-§6 and docs/rules.md §8")] == ["§3-§6", "§8"]
    assert BARE.findall("(STYLE §4) and (§5 Wall)") == ["5"]


def test_every_section_the_code_cites_is_in_docs_rules_md():
    found = citations()
    assert len(found) > 50  # the code cites the rules everywhere; an empty scan would prove nothing
    missing = [f"{where} cites §{k}" for where, k in found if k not in SECTIONS]
    assert not missing, "\n".join(missing)


RULE_LABELS = sorted({v for k, v in vars(referee).items() if k.isupper() and isinstance(v, str) and LABEL.match(v)})


def test_the_referee_names_rules():
    assert len(RULE_LABELS) >= 20


@pytest.mark.parametrize("label", RULE_LABELS)
def test_every_rule_the_referee_names_is_a_heading_of_its_section(label):
    """``smsim validate`` reports a broken rule as e.g. "RULES.md §3 Rotation"; a reader must
    find "Rotation" among the headings of §3."""
    m = LABEL.match(label)
    assert m, label
    number, name = int(m.group(1)), m.group(2)
    assert number in SECTIONS, label
    assert any(name.lower() in heading.lower() for heading in SECTIONS[number]), (label, SECTIONS[number])


# -- docs/architecture.md names every module, and only modules that exist ----------------------
ARCHITECTURE = ROOT / "docs" / "architecture.md"
# a row of its module tables: "| `smsim/play/loop.py` | the jitted play loop ... |"
MODULE_ROW = re.compile(r"^\|\s*`(smsim/[\w/]+\.py)`\s*\|")
# a Python file named anywhere in it: smsim/play/loop.py, runs/runner.py, executors/local.py, bench.py
NAMED_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.py)\b")


def package_modules(root: Path = ROOT) -> set[str]:
    """Every Python file of the package, by its path from the repository root."""
    return {p.relative_to(root).as_posix() for p in (root / "smsim").rglob("*.py")}


def project_files(root: Path = ROOT) -> set[str]:
    """The Python files a document may name beside the package's: scripts, tests, docs."""
    return {p.relative_to(root).as_posix() for d in ("scripts", "tests", "docs") for p in (root / d).rglob("*.py")}


def architecture_problems(text: str, modules: set[str], others: set[str] = frozenset()) -> list[str]:
    """What is wrong with an architecture document ``text`` for a package of ``modules`` (paths
    from the repository root, every ``*.py``, ``__init__.py`` and ``__main__.py`` included: a
    package is listed as its ``__init__.py``): a module missing from its module table (a row
    starting with the module's path in backticks), a row for no module, a module listed twice, and
    a Python file named anywhere in the text that is neither a module nor one of ``others`` (a
    shortened name, ``runs/runner.py`` or ``bench.py``, counts where one known file ends with it)."""
    listed = [m.group(1) for line in text.splitlines() if (m := MODULE_ROW.match(line))]
    problems = [f"{m}: a module missing from the module table" for m in sorted(modules - set(listed))]
    problems += [f"{m}: listed, but there is no such module" for m in sorted(set(listed) - modules)]
    problems += [f"{m}: listed {listed.count(m)} times" for m in sorted(set(listed)) if listed.count(m) > 1]
    known = modules | set(others)
    for name in sorted(set(NAMED_FILE.findall(text)) - set(listed)):  # a row for no module: said above
        if name not in known and not any(k.endswith("/" + name) for k in known):
            problems.append(f"{name}: named, but there is no such file")
    return problems


def test_the_architecture_checker_finds_missing_stale_and_doubled_modules():
    modules = {"smsim/__init__.py", "smsim/a.py", "smsim/b/__init__.py", "smsim/b/c.py"}
    table = "| module | job |\n|---|---|\n" + "".join(f"| `{m}` | its job |\n" for m in sorted(modules))
    assert (
        architecture_problems(table + "see b/c.py and `smsim/a.py`, and bench.py", modules, {"scripts/bench.py"}) == []
    )
    assert architecture_problems(table.replace("| `smsim/b/c.py` | its job |\n", ""), modules) == [
        "smsim/b/c.py: a module missing from the module table"
    ]
    assert architecture_problems(table + "| `smsim/gone.py` | its job |\n", modules) == [
        "smsim/gone.py: listed, but there is no such module"
    ]
    assert architecture_problems(table + "| `smsim/a.py` | again |\n", modules) == ["smsim/a.py: listed 2 times"]
    assert architecture_problems(table + "the loop (`smsim/b/old.py`, d/c.py)", modules) == [
        "d/c.py: named, but there is no such file",
        "smsim/b/old.py: named, but there is no such file",
    ]


def test_docs_architecture_md_lists_every_module_and_names_no_missing_file():
    modules = package_modules()
    assert len(modules) > 90 and "smsim/play/loop.py" in modules  # a scan that found nothing would prove nothing
    problems = architecture_problems(ARCHITECTURE.read_text(encoding="utf-8"), modules, project_files())
    assert not problems, "docs/architecture.md:\n" + "\n".join(problems)
