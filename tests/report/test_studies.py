"""The sections on the studies (smsim.report.studies): rule variants named by their change from
the baseline's rules, headings in words, never folders."""

import pandas as pd
import pytest

from smsim.report.studies import variants_section
from smsim.studies.sweep import named_variants, plan_variants, run_sweep, variant_set_from_sweep


@pytest.fixture(scope="module")
def sweep_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "runs" / "variants-4p"
    run_sweep(out, plan_variants(["side_defence=1"], ["free-rotation"]), 120, 4, ["balanced"], seed=3, batch=120)
    return out, variant_set_from_sweep(out)


def test_variants_are_named_by_their_change_and_headings_name_no_folder(sweep_set):
    out, vs = sweep_set
    section, glance = variants_section([vs])
    headings = [b.text for b in section.blocks if b.kind == "heading"]
    assert headings == ["Rule variants, 4 players, balanced: one rule at a time"]
    headline = next(b for b in section.blocks if b.name == "variants_0_headline")
    assert headline.shown["variant"].tolist() == [
        "baseline",
        "side defence 2 → 1",
        "rotation cost 2 → 0 (free rotation)",
    ]
    for b in section.blocks:  # the folder is data (the list of variants' datasets), never a heading or a caption
        assert str(out) not in b.text and "variants-4p" not in b.text
    listing = next(b for b in section.blocks if b.name == "variants_0_list")
    assert listing.table["run as"].tolist() == ["baseline", "side_defence=1", "free-rotation"]
    assert "side_defence=1" not in " ".join(glance)


def test_every_shipped_variant_gets_its_balance_figures(tmp_path):
    """A sweep of the shipped variants (``smsim sweep --variant NAME ...``, as `make report`
    plays it) gives each its row in the headline table, its place in the differences figure and
    its group tables, named by its change from the default rules."""
    shipped = list(named_variants())
    out = tmp_path / "shipped"
    run_sweep(out, plan_variants([], shipped), 60, 4, ["balanced"], seed=5, batch=60)
    section, _ = variants_section([variant_set_from_sweep(out)])
    assert [b.text for b in section.blocks if b.kind == "heading"] == [
        "Rule variants, 4 players, balanced: the shipped variants"
    ]
    headline = next(b for b in section.blocks if b.name == "variants_0_headline")
    names = headline.shown["variant"].tolist()[1:]
    assert len(names) == len(shipped)
    for name, said in zip(shipped, names):
        assert "→" in said and said.endswith(f"({name.replace('-', ' ')})")
    figure = next(b for b in section.blocks if b.name == "variants_0_differences")
    labels = [t.get_text() for t in figure.figure.axes[0].get_yticklabels()]
    assert sorted(labels) == sorted(names)
    seats = next(b for b in section.blocks if b.name == "variants_0_seats")
    assert set(seats.shown["variant"]) == {"baseline", *names}


def test_the_verdicts_diff_script_finds_a_verdict_lost(tmp_path):
    """scripts/verdicts_diff.py (the regenerated baseline against the committed one): the same
    report loses nothing; a verdict turned "not settled" in a table or a sides line is named."""
    import importlib.util
    import shutil
    from pathlib import Path

    root = Path(__file__).parents[2]
    spec = importlib.util.spec_from_file_location("verdicts_diff", root / "scripts" / "verdicts_diff.py")
    diff = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(diff)
    old = tmp_path / "old"
    (old / "tables").mkdir(parents=True)
    pd.DataFrame({"players": [2, 4], "figure": ["a", "a"], "verdict": ["moves", "the same"]}).to_csv(
        old / "tables" / "ladder_x.csv", index=False
    )
    (old / "report.md").write_text(
        "- 2 players, `balanced`: left - right (+0.07 VP [+0.01, +0.13]): worth the same on both sides.\n"
    )
    new = tmp_path / "new"
    shutil.copytree(old, new)
    assert diff.main(old, new) == 0
    pd.DataFrame({"players": [2, 4], "figure": ["a", "a"], "verdict": ["not settled", "the same"]}).to_csv(
        new / "tables" / "ladder_x.csv", index=False
    )
    (new / "report.md").write_text("- 2 players, `balanced`: left - right (+0.07 VP [-1, +1]): not settled.\n")
    assert diff.main(old, new) == 1
