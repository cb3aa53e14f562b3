"""The report's sections on the game (smsim/report/sections.py)."""


def test_sides_with_one_bonus_are_judged_by_size(monkeypatch):
    """Two sides with one bonus: a difference inside the VP margin reads "worth the same" even where
    its interval excludes 0; one beyond it reads "worth more on one side"; a wide one is not settled."""
    import pandas as pd

    from smsim.report import sections as S
    from smsim.report import tables as A

    rows = [
        {
            "players": 2,
            "policy": "balanced",
            "sides": "left - right",
            "win_diff": 0.004,
            "win_diff_lo": 0.001,
            "win_diff_hi": 0.007,
            "vp_diff": d,
            "vp_diff_lo": lo,
            "vp_diff_hi": hi,
            "agree": lo <= 0 <= hi,
            "verdict": v,
        }
        for d, lo, hi, v in ((0.07, 0.01, 0.13, "the same"), (1.0, 0.8, 1.2, "moves"), (0.3, -0.2, 0.8, "not settled"))
    ]
    monkeypatch.setattr(A, "bonus_value", lambda data: pd.DataFrame())
    monkeypatch.setattr(A, "sides_agree", lambda table: pd.DataFrame(rows))
    (block,) = S.bonus_agreement(None)
    same, moves, unsure = block.items
    assert "worth the same on both sides, within the margin of 0.5 VP" in same and "not worth" not in same
    assert "worth more on one side, by more than the margin of 0.5 VP" in moves
    assert "not settled against the margin of 0.5 VP" in unsure
