"""The sections on the studies (smsim.report.studies): rule variants named by their change from
the baseline's rules, headings in words, never folders."""

import pytest

from smsim.report.studies import variants_section
from smsim.studies.sweep import plan_variants, run_sweep, variant_set_from_sweep


@pytest.fixture(scope="module")
def sweep_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "runs" / "variants-4p"
    run_sweep(out, plan_variants(["side_defence=1"], ["free-rotation"]), 120, 4, ["balanced"], seed=3, batch=120)
    return out, variant_set_from_sweep(out)


def test_variants_are_named_by_their_change_and_headings_name_no_folder(sweep_set):
    out, vs = sweep_set
    section, glance = variants_section([vs])
    headings = [b.text for b in section.blocks if b.kind == "heading"]
    assert headings == ["Rule variants, 4 players, balanced"]
    headline = next(b for b in section.blocks if b.name == "variants_0_headline")
    assert headline.shown["variant"].tolist() == ["baseline", "side defence 2 → 1", "rotation cost 2 → 0 (free rotation)"]
    for b in section.blocks:  # the folder is data (the list of variants' datasets), never a heading or a caption
        assert str(out) not in b.text and "variants-4p" not in b.text
    listing = next(b for b in section.blocks if b.name == "variants_0_list")
    assert listing.table["run as"].tolist() == ["baseline", "side_defence=1", "free-rotation"]
    assert "side_defence=1" not in " ".join(glance)
