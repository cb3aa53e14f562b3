"""The one renderer (smsim.report.render): page text written for Markdown shows no Markdown marks
in the HTML, headings are words, and seats are numbered from 1 on the page."""

import pandas as pd

from smsim.report.render import display_table, heading, html_text


def test_markdown_emphasis_becomes_html_emphasis():
    assert html_text("a *stable* figure, **bold** words") == "a <em>stable</em> figure, <strong>bold</strong> words"
    assert html_text("`*.toml` files, *one level*") == "<code>*.toml</code> files, <em>one level</em>"
    assert html_text("2 * 3 * 4 and a*b*c") == "2 * 3 * 4 and a*b*c"  # a lone asterisk and one in a word stay
    assert html_text("<b>*x*</b>") == "&lt;b&gt;<em>x</em>&lt;/b&gt;"  # escaped first: no markup gets through


def test_seats_count_from_one_on_the_page_and_from_zero_in_the_data():
    t = pd.DataFrame({"players": [2, 2], "seat": [0, 1], "seat_0": [0.6, 0.6], "seat_1": [0.4, 0.4]})
    d = display_table(t)
    assert d["seat"].tolist() == ["1", "2"]
    assert list(d.columns) == ["players", "seat", "seat 1", "seat 2"]
    assert t["seat"].tolist() == [0, 1]  # the table itself (its CSV) keeps the datasets' numbering


def test_headings_are_words_not_column_names():
    t = pd.DataFrame(
        {
            "church_vp": [20.0],
            "coins_vp": [0.2],
            "cannon_vp": [-5.0],
            "cannon_vp_lo": [-5.5],
            "cannon_vp_hi": [-4.5],
            "earned": [25.0],
            "vp_p10": [30.0],
        }
    )
    cols = list(display_table(t).columns)
    assert cols == ["church series VP", "coins left VP", "cannons lost VP [95% CI]", "VP earned in play", "vp p10"]
    assert not any("_" in c for c in cols)
    assert heading("seat_3 [95% CI]") == "seat 4 [95% CI]"
