"""Policies by name, weights file and user function; one clear error each."""

import numpy as np
import pytest

from smsim.layout import PolicyKind
from smsim.policies.heuristics import N_PARAMS, PARAM_NAMES
from smsim.policies.interface import MAX_SEATS, no_user_policy
from smsim.policies.registry import (
    LATER_WEIGHTS,
    POLICIES,
    PRESETS,
    PolicyError,
    line_up_marks,
    policy_arrays,
    resolve_policies,
    resolve_policy,
    rollout_spec,
)
from smsim.policies.rollout import FLAT_KNOBS, ROLLOUT_DEFAULTS, TOP_LEVEL
from smsim.rules import Rules
from smsim.runs.batch import run_games
from smsim.studies.learn import LearnPlan, teacher_spec

FIXTURES = "tests/policies/fixtures"


def test_builtins_are_random_and_presets_of_one_heuristic():
    assert set(POLICIES) == {
        "random",
        "greedy",
        "churches",
        "walls",
        "merchant",
        "builder",
        "jugglers",
        "balanced",
        "balanced-exact",
        "rollout",
        "rollout-deep",
        "learned",
        "learned-exact",
        "rollout-learned",
    }
    assert POLICIES["random"].kind == PolicyKind.RANDOM
    assert POLICIES["learned"].kind == PolicyKind.LEARNED  # a model file shipped as package data
    assert POLICIES["rollout-learned"].base is POLICIES["learned"]
    for name in ("rollout", "rollout-deep"):
        assert POLICIES[name].kind == PolicyKind.ROLLOUT and POLICIES[name].base is POLICIES["balanced"]
    for name in PRESETS:
        spec = POLICIES[name]
        assert spec.kind == PolicyKind.HEURISTIC and spec.params.shape == (N_PARAMS,) and spec.description
        assert set(spec.weights()) == set(PARAM_NAMES) - set(LATER_WEIGHTS)  # off: as before it existed


def test_exact_keep_builtins_differ_from_their_policy_by_the_knob_alone():
    for name, of in (("balanced-exact", "balanced"), ("learned-exact", "learned")):
        spec, base = POLICIES[name], POLICIES[of]
        assert spec.kind == base.kind
        diff = np.flatnonzero(spec.params != base.params)
        assert list(diff) == [PARAM_NAMES.index("exact_keep")] and spec.weights()["exact_keep"] == 1.0
    # the knob off is left out of what a manifest records, so that runs written before it resume
    assert "exact_keep" not in POLICIES["balanced"].weights()


def test_a_line_up_is_marked_with_the_compiled_parts_its_seats_use():
    """The learned policy and exact keeps are marked wherever a seat, its base or its playout
    policy uses them, and only there (a loop compiled without a mark holds none of that code)."""
    from smsim.policies.exact_keep import EXACT
    from smsim.policies.learned_layout import LEARNED

    def marks(names):
        return tuple(line_up_marks([resolve_policy(n) if isinstance(n, str) else n for n in names]))

    from smsim.policies.heuristic_layout import FORGO

    assert marks(["balanced", "random", "greedy-noise-30"]) == (None, None, None)
    assert marks(["balanced-exact", "balanced"]) == (None, EXACT, None)
    assert marks(["learned", "balanced"]) == (LEARNED, None, None)
    assert marks(["learned-exact", "random"]) == (LEARNED, EXACT, None)
    assert marks([rollout_spec({}, POLICIES["balanced-exact"]), POLICIES["balanced"]]) == (None, EXACT, None)
    assert marks(["learned-without-nobles", "balanced"]) == (LEARNED, None, FORGO)
    assert marks([rollout_spec({}, POLICIES["learned"]), POLICIES["balanced"]]) == (LEARNED, None, None)
    # a search's own knobs are not a heuristic's weights, whatever their values
    assert marks([rollout_spec({}, POLICIES["balanced"])]) == (None, None, None)


def test_which_searches_leave_clear_decisions_to_their_base():
    """``rollout`` gates its decisions (``clear_gap``), and so does the top level, ``rollout-learned``,
    at the knobs chosen by measurement (``TOP_LEVEL``); the searches whose figures were measured
    without the gate, the teacher of ``smsim learn`` and the bench's flat yardstick keep every
    decision searched, and the yardstick searches uses of the dice alone, as the search before
    budgets did."""
    assert POLICIES["rollout"].weights()["clear_gap"] == ROLLOUT_DEFAULTS["clear_gap"] > 0
    top = POLICIES["rollout-learned"].weights()
    assert all(top[k] == v for k, v in TOP_LEVEL.items()) and top["clear_gap"] > 0
    assert POLICIES["rollout-deep"].weights()["clear_gap"] == 0
    assert teacher_spec(LearnPlan(), POLICIES["balanced"]).weights()["clear_gap"] == 0
    flat = rollout_spec(FLAT_KNOBS, POLICIES["balanced"]).weights()
    assert (flat["clear_gap"], flat["search_place"], flat["search_keep"], flat["search_use"]) == (0, 0, 0, 1)
    assert (flat["halving"], flat["group"], flat["stop_se"], flat["budget"] / flat["candidates"]) == (0, 0, 0, 96)


def test_weights_file_over_a_base(tmp_path):
    path = tmp_path / "cautious.toml"
    path.write_text('base = "balanced"\ndescription = "afraid of pirates"\npirate_next = 2.5\n')
    spec = resolve_policy(str(path))
    assert spec.name == "cautious" and spec.description == "afraid of pirates"
    expected = POLICIES["balanced"].params.copy()
    expected[PARAM_NAMES.index("pirate_next")] = 2.5
    assert np.array_equal(spec.params, expected)


@pytest.mark.parametrize(
    "text, message",
    [
        ("speed = 3\n", "unknown weight 'speed'"),
        ('coin = "lots"\n', "weight 'coin' must be a number"),
        ('base = "genius"\n', "unknown base 'genius'"),
        ("coin = = 1\n", "not valid TOML"),
        ('base = "greedy"\nnoise = 1.5\n', "weight 'noise' must be from 0 to 1, got 1.5"),
        ("noise = -0.1\n", "weight 'noise' must be from 0 to 1, got -0.1"),
        ("noise = nan\n", "weight 'noise' must be from 0 to 1, got nan"),
    ],
)
def test_bad_weights_files(tmp_path, text, message):
    path = tmp_path / "w.toml"
    path.write_text(text)
    with pytest.raises(PolicyError, match=message):
        resolve_policy(str(path))


def test_a_noisy_weights_file_is_a_policy(tmp_path):
    """``noise`` is a weight like any other: over a base, recorded in what a manifest keeps (the
    rung differs from its base), played; and ``PRESET-noise-PERCENT`` names the same policy."""
    path = tmp_path / "greedy-half.toml"
    path.write_text('base = "greedy"\nnoise = 0.5\n')
    spec = resolve_policy(str(path))
    assert spec.kind == PolicyKind.HEURISTIC and spec.weights()["noise"] == 0.5
    diff = np.flatnonzero(spec.params != POLICIES["greedy"].params)
    assert list(diff) == [PARAM_NAMES.index("noise")]
    named = resolve_policy("greedy-noise-50")
    assert named.name == "greedy-noise-50" and named.describe()["weights"] == spec.describe()["weights"]
    assert "noise" not in POLICIES["greedy"].weights()  # off: left out, so that runs before it resume
    assert (
        "greedy-noise-50" not in POLICIES and resolve_policy("walls-noise-0").weights() == POLICIES["walls"].weights()
    )
    score, _, _ = run_games(40, 2, [str(path), "greedy-noise-50"], 3, Rules(), threads=1)
    assert score.shape[0] == 40 and np.isfinite(score).all()


def test_a_weights_file_that_is_not_text(tmp_path):
    path = tmp_path / "w.toml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    with pytest.raises(PolicyError, match="not valid TOML \\(not UTF-8 text\\)"):
        resolve_policy(str(path))


@pytest.mark.parametrize(
    "ref, message",
    [
        ("nowhere/policy.py:f", "no file 'nowhere/policy.py'"),
        (f"{FIXTURES}/bad_policies.py:missing", "has no 'missing'"),
        (f"{FIXTURES}/bad_policies.py:not_jitted", "'not_jitted' is not jitted"),
        (f"{FIXTURES}/bad_policies.py:not_a_function", "is not jitted"),
        (f"{FIXTURES}/bad_policies.py:lazy", "must be jitted with exactly smsim.policies.interface.POLICY_SIG"),
        (f"{FIXTURES}/bad_policies.py:wrong_signature", "must be jitted with exactly"),
        (f"{FIXTURES}/broken_import.py:f", "importing .* failed: ModuleNotFoundError"),
        ("genius", "unknown policy 'genius'"),
        ("greedy-noise-150", "the noise must be a whole percent from 0 to 100"),
        ("greedy-noise-05", "the noise must be a whole percent"),
        ("greedy-noise-half", "the noise must be a whole percent"),
        ("genius-noise-50", "unknown policy 'genius-noise-50'"),
        ("weights.yaml", "unknown policy"),
        ("missing.json", "cannot read model file"),
    ],
)
def test_user_policy_errors_name_the_policy(ref, message):
    with pytest.raises(PolicyError, match=message) as info:
        resolve_policy(ref)
    assert str(info.value).startswith(f"policy {ref!r}") or "unknown policy" in str(info.value)


def test_user_policy_loads_with_its_params():
    spec = resolve_policy(f"{FIXTURES}/bad_policies.py:uses_params")
    assert spec.kind == PolicyKind.USER and spec.params[0] == 1.0 and spec.params.shape == (N_PARAMS,)
    assert spec.description.startswith("Picks row")


def test_one_policy_for_all_or_one_per_seat():
    assert [s.name for s in resolve_policies(["greedy"], 3)] == ["greedy"] * 3
    assert [s.name for s in resolve_policies(None, 2)] == ["balanced"] * 2
    with pytest.raises(PolicyError, match="got 2 policies for 4 players"):
        resolve_policies(["greedy", "random"], 4)


def test_engine_arrays_always_carry_five_functions():
    kind, params, fns = policy_arrays(resolve_policies(["greedy", "random"], 2))
    assert list(kind) == [PolicyKind.HEURISTIC, PolicyKind.RANDOM] and params.shape == (2, N_PARAMS)
    assert len(fns) == MAX_SEATS and all(f is no_user_policy for f in fns)


def test_a_policy_without_parts_of_the_game_is_named_and_marked():
    from smsim.policies.registry import forgo_mask

    spec = resolve_policy("balanced-without-churches+walls")
    assert spec.kind == PolicyKind.HEURISTIC and spec.weights()["forgo"] == forgo_mask(["churches", "walls"]) == 3
    assert np.array_equal(
        np.delete(spec.params, PARAM_NAMES.index("forgo")),
        np.delete(POLICIES["balanced"].params, PARAM_NAMES.index("forgo")),
    )
    assert resolve_policy("balanced-without-walls+churches").name == spec.name  # one name per set of parts
    learned = resolve_policy("learned-without-nobles")
    assert learned.kind == PolicyKind.LEARNED and learned.weights()["forgo"] == 2048
    assert line_up_marks([spec, POLICIES["balanced"]]).forgo is not None
    assert line_up_marks([POLICIES["balanced"], POLICIES["learned"]]).forgo is None


@pytest.mark.parametrize(
    "name, words",
    [
        ("balanced-without-dragons", ["unknown part 'dragons'", "churches, walls"]),
        ("balanced-without-", ["unknown part ''"]),
        ("random-without-churches", ["only a heuristic or learned policy"]),
        ("rollout-without-churches", ["only a heuristic or learned policy"]),
    ],
)
def test_a_bad_policy_without_parts_is_refused_in_one_line(name, words):
    with pytest.raises(PolicyError) as err:
        resolve_policy(name)
    assert all(w in str(err.value) for w in words) and "\n" not in str(err.value)


def test_the_forgo_weight_is_a_whole_mask(tmp_path):
    for value, words in (("1.5", "whole number"), ("-1", "from 0 to 4095"), ("5000", "from 0 to 4095")):
        path = tmp_path / "w.toml"
        path.write_text(f'base = "balanced"\nforgo = {value}\n')
        with pytest.raises(PolicyError, match=words):
            resolve_policy(str(path))


@pytest.mark.parametrize(
    "name, column",
    [
        ("balanced-without-rotations", "N_ROTATED"),
        ("balanced-without-nobles", "VP_NOBLE"),
        # a learned seat that forgoes parts is a loop of its own (about 20 s of compiling)
        pytest.param("learned-without-nobles", "VP_NOBLE", marks=pytest.mark.slow),
    ],
)
def test_a_seat_without_a_part_never_plays_it_where_the_rules_let_it_choose(name, column):
    """Turning dice and nobles are never forced (the pass row, a citizen), so the seat never plays them;
    the seats beside it do."""
    from smsim import layout as L

    base = name.split("-without-")[0]
    _score, player, _ = run_games(300, 3, [base, name, base], 11, Rules(), threads=2)
    assert player[:, 1, getattr(L, column)].sum() == 0, name
    assert player[:, 0, getattr(L, column)].sum() > 0 and player[:, 2, getattr(L, column)].sum() > 0, name
