"""A model file is data: it round-trips byte for byte, and anything else is refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from smsim.errors import PolicyError
from smsim.layout import PolicyKind
from smsim.policies.heuristic_layout import N_PARAMS, PARAM_NAMES
from smsim.policies.learned import MODEL
from smsim.policies.model import PLACE_NAMES, SCHEMA, USE_NAMES, Model
from smsim.policies.registry import LEARNED_FILE, POLICIES, resolve_policy


def a_model() -> Model:
    rng = np.random.default_rng(3)
    return Model(
        {"coin": 1.25, "wall": 0.5},
        list(rng.normal(size=len(USE_NAMES))),
        list(rng.normal(size=len(PLACE_NAMES))),
        use_candidates=5,
        place_candidates=7,
        place_gap=0.5,
        training={"plan": {"seed": 3}},
    )


def test_a_model_round_trips_byte_for_byte_into_its_vector(tmp_path):
    model = a_model()
    path = tmp_path / "m.json"
    model.save(path)
    again = Model.load(path)
    assert again.to_json() == path.read_text() == model.to_json()
    v = again.vector()
    assert v.shape == (N_PARAMS,)
    assert v[MODEL.offset("base") + PARAM_NAMES.index("coin")] == 1.25
    assert v[MODEL.offset("use_candidates")] == 5 and v[MODEL.offset("place_gap")] == 0.5
    assert np.array_equal(v[MODEL.offset("use") : MODEL.offset("use") + len(USE_NAMES)], model.use)
    assert np.array_equal(v[MODEL.offset("place") : MODEL.offset("place") + len(PLACE_NAMES)], model.place)


def test_a_model_file_is_a_policy_named_after_it(tmp_path):
    path = tmp_path / "student.json"
    a_model().save(path)
    spec = resolve_policy(str(path))
    assert spec.kind == PolicyKind.LEARNED and spec.name == "student" and spec.weights()["coin"] == 1.25
    assert "model_sha256" in spec.describe()


def test_the_built_in_learned_is_shipped_package_data():
    spec = POLICIES["learned"]
    assert spec.kind == PolicyKind.LEARNED and spec.source == "built-in"
    assert np.array_equal(spec.params, Model.load(LEARNED_FILE).vector())


def edited(**changes) -> str:
    data = json.loads(a_model().to_json())
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "invalid JSON"),
        (a_model().to_json()[:200], "invalid JSON"),  # truncated
        ('{"name": "something else"}', "not a model file"),
        ("[1, 2, 3]", "not a model file"),
        (edited(schema=SCHEMA + 1), "model schema"),
        (edited(use_features=list(USE_NAMES[:-1])), "another feature list"),
        (edited(place_features=list(reversed(PLACE_NAMES))), "another feature list"),
        (edited(use=[0.0] * 3), "'use' must be"),
        (edited(place=["x"] * len(PLACE_NAMES)), "'place' must be"),
        (edited(base={"speed": 1.0}), "unknown"),
        (edited(use_candidates=0), "use_candidates"),
        (edited(place_candidates=True), "place_candidates"),
        (edited(place_gap=-1), "place_gap"),
    ],
)
def test_bad_model_files_are_refused_in_one_line(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(PolicyError, match=message) as info:
        resolve_policy(str(path))
    assert "\n" not in str(info.value)


def test_non_finite_numbers_and_binary_files_are_refused(tmp_path):
    data = json.loads(a_model().to_json())
    data["use"][0] = float("nan")
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(data))  # json writes NaN, and reads it back
    with pytest.raises(PolicyError, match="finite"):
        resolve_policy(str(path))
    path.write_bytes(b"\x80\x04\x95 pickled")
    with pytest.raises(PolicyError, match="not UTF-8"):
        resolve_policy(str(path))
    with pytest.raises(PolicyError, match="cannot read"):
        resolve_policy(str(tmp_path / "missing.json"))


def test_a_manifest_digests_the_model_unit_by_unit_whatever_the_loop_layout():
    """The play loop keeps the units feature-major (for speed); a manifest's digest is taken
    over the vector with each unit's weights, bias and weight in the score together, the layout
    datasets were first written with, so that they resume as the same policy."""
    import hashlib

    from smsim.policies.model import model_digest

    model = Model.load(LEARNED_FILE)
    vector = model.vector()
    unit_major = vector.copy()
    for name, units in (("use_units", model.use_units), ("place_units", model.place_units)):
        flat = [x for w, b, o in zip(units.weights, units.bias, units.out) for x in (*w, b, o)]
        unit_major[MODEL.offset(name) : MODEL.offset(name) + len(flat)] = flat
    assert not np.array_equal(unit_major, vector)
    assert model_digest(vector) == hashlib.sha256(unit_major.astype("<f8").tobytes()).hexdigest()
    assert POLICIES["learned"].describe()["model_sha256"] == model_digest(POLICIES["learned"].params)
