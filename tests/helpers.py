"""Shared test helpers: positions drawn in the board text format (docs/rules.md §8), and datasets
compared byte for byte."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from smsim import layout as L
from smsim.engine.city import set_city_nb
from smsim.play.board import parse_city
from smsim.rules import Rules
from smsim.runs.dataset import read_manifest


def state_from_cities(*texts: str, coins: int = 0, logs: int = 0, soldiers: int = 0):
    """(city, occ, player) arrays of len(texts) seats drawn as board text."""
    n = len(texts)
    city = np.zeros((n, 49), dtype=np.int8)
    occ = np.zeros((n, L.N_CELL_CODES), dtype=np.uint64)
    player = np.zeros((n, L.N_PLAYER_FIELDS), dtype=np.int64)
    for s, text in enumerate(texts):
        set_city_nb(city, occ, player, s, parse_city(text))
        player[s, L.COINS] = coins
        player[s, L.LOGS] = logs
        player[s, L.SOLDIERS] = soldiers
    return city, occ, player


def cell(r: int, c: int) -> int:
    return r * 7 + c


RULES = Rules()
RULES_NB = RULES.to_nb()


def tables_bytes(path: Path) -> dict[str, bytes]:
    """Every file under seats/ and games/ (hidden ones too: a leftover temporary part counts)."""
    return {
        p.relative_to(path).as_posix(): p.read_bytes()
        for sub in ("seats", "games")
        for p in sorted((path / sub).iterdir())
    }


def assert_same_dataset(a: Path, b: Path) -> None:
    """The datasets ``a`` and ``b`` hold the same files byte for byte, and their manifests the same run."""
    files_a, files_b = tables_bytes(a), tables_bytes(b)
    assert sorted(files_a) == sorted(files_b)
    for name in files_a:
        assert files_a[name] == files_b[name], name
    assert read_manifest(a)["run"] == read_manifest(b)["run"]


@contextlib.contextmanager
def figures_left_blank():
    """Within it, a report's figures are built but not drawn: each figure file is written empty.
    For tests that read what a report says (its Markdown, its tables): the page is built as
    always and its text is exactly a drawn report's, at a third of the cost, since drawing the
    figures into PNG and SVG is most of a report's time. The drawing itself is checked by the tests
    of the figures (tests/report/test_plots.py) and of the drawn reports (the session's report,
    tests/report/test_write.py, tests/report/test_feel.py)."""
    import pytest

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("smsim.report.write._fig_bytes", lambda fig, fmt: b"")
        yield
