"""A learned model's file: plain JSON data, never code.

``smsim learn`` writes one; ``--policy FILE.json`` plays it. Loading reads JSON and checks every
field: nothing in the file is executed or unpickled. The file says what it is (``format``), its
``schema`` version, the feature lists it was fitted on (a file fitted on another feature list is
refused: its coefficients would mean other things), the base heuristic's weights by name, the
candidate limits and one coefficient per feature, and how it was trained (``training``: the
command, seeds and held-out figures; kept, never read).

>>> model = Model(base={"coin": 1.0}, use=[0.0] * len(USE_NAMES), place=[0.0] * len(PLACE_NAMES))
>>> Model.from_json(model.to_json()).vector().shape == (N_PARAMS,)
True
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from smsim.checks import whole
from smsim.errors import PolicyError
from smsim.files import parse_data, read_data_file, write_file
from smsim.layout import MAX_CANDS
from smsim.policies.heuristic_layout import N_PARAMS, PARAM_NAMES
from smsim.policies.learned import MAX_HIDDEN, MODEL, PLACE_FEATURES, USE_FEATURES

FORMAT = "smsim learned model"
SCHEMA = 1
USE_NAMES: tuple[str, ...] = USE_FEATURES.columns()
PLACE_NAMES: tuple[str, ...] = PLACE_FEATURES.columns()
# the candidates a model scores unless told: the moves ``rollout`` searches (policies/rollout.py)
DEFAULT_USE_CANDIDATES = 6
DEFAULT_PLACE_CANDIDATES = 6
DEFAULT_PLACE_GAP = 1.0


def model_digest(vector: np.ndarray) -> str:
    """The SHA-256 of a model's vector as a manifest records it (``PolicySpec.describe``), with
    each layer of units unit by unit (weights, bias, weight in the score), the layout the vector
    had when the digest was first taken: the play loop's feature-major layout (``Units.flat``)
    is a matter of speed, and a dataset written before it still resumes as the same policy."""
    v = np.asarray(vector, dtype=np.float64).copy()
    hidden = int(v[MODEL.offset("hidden")])
    for name, f in (("use_units", len(USE_NAMES)), ("place_units", len(PLACE_NAMES))):
        at, size = MODEL.offset(name), hidden * (f + 2)
        by_feature = v[at : at + size].copy()
        weights = by_feature[: f * hidden].reshape(f, hidden)
        bias, out = by_feature[f * hidden : (f + 1) * hidden], by_feature[(f + 1) * hidden :]
        v[at : at + size] = np.column_stack([weights.T, bias, out]).ravel()
    return hashlib.sha256(v.astype("<f8").tobytes()).hexdigest()


@dataclass
class Units:
    """A layer of rectified units over one decision kind's features: unit h adds
    ``out[h] * max(0, weights[h] . features + bias[h])`` to the score."""

    weights: list[list[float]]
    bias: list[float]
    out: list[float]

    def flat(self) -> list[float]:
        """Feature by feature the units' weights, then the units' biases, then their weights in
        the score (``learned.MODEL``): feature-major, so that the play loop adds each feature to
        every unit at once (``learned.score_nb``)."""
        by_feature = [x for column in zip(*self.weights) for x in column]
        return [*by_feature, *self.bias, *self.out]

    def to_dict(self) -> dict[str, Any]:
        return {
            "weights": [[float(x) for x in w] for w in self.weights],
            "bias": [float(x) for x in self.bias],
            "out": [float(x) for x in self.out],
        }


@dataclass
class Model:
    """A learned policy's model: the base heuristic's weights by name, the candidate limits, and
    per decision kind the coefficients of its features (in ``USE_NAMES``, ``PLACE_NAMES``
    order) and, if any, a layer of rectified units (``Units``)."""

    base: dict[str, float]
    use: list[float]
    place: list[float]
    use_units: Units | None = None
    place_units: Units | None = None
    use_candidates: int = DEFAULT_USE_CANDIDATES
    place_candidates: int = DEFAULT_PLACE_CANDIDATES
    place_gap: float = DEFAULT_PLACE_GAP
    description: str = "a model fitted to rollout's values of moves"
    training: dict[str, Any] = field(default_factory=dict)

    def vector(self) -> np.ndarray:
        """The seat's params vector: float64[N_PARAMS] laid out by ``learned.MODEL``."""
        v = np.zeros(N_PARAMS)
        base = MODEL.offset("base")
        for name, value in self.base.items():
            v[base + PARAM_NAMES.index(name)] = value
        v[MODEL.offset("use_candidates")] = self.use_candidates
        v[MODEL.offset("place_candidates")] = self.place_candidates
        v[MODEL.offset("place_gap")] = self.place_gap
        v[MODEL.offset("use") : MODEL.offset("use") + len(self.use)] = self.use
        v[MODEL.offset("place") : MODEL.offset("place") + len(self.place)] = self.place
        v[MODEL.offset("hidden")] = self.hidden
        for name, units in (("use_units", self.use_units), ("place_units", self.place_units)):
            if units is not None:
                flat = units.flat()
                v[MODEL.offset(name) : MODEL.offset(name) + len(flat)] = flat
        return v

    def score(self, kind: str, x: np.ndarray) -> np.ndarray:
        """The model's scores of moves of ``kind`` ("USE", "PLACE") from their features (rows of
        ``x``): what the policy computes in the play loop, in numpy."""
        coef, units = (self.use, self.use_units) if kind == "USE" else (self.place, self.place_units)
        score = x @ np.asarray(coef)
        if units is not None:
            score = score + np.maximum(x @ np.asarray(units.weights).T + np.asarray(units.bias), 0.0) @ np.asarray(
                units.out
            )
        return score

    @property
    def hidden(self) -> int:
        return 0 if self.use_units is None else len(self.use_units.bias)

    def to_json(self) -> str:
        """The file's text: the same model gives the same bytes (floats as Python writes them)."""
        data = {
            "format": FORMAT,
            "schema": SCHEMA,
            "description": self.description,
            "base": {name: float(self.base[name]) for name in PARAM_NAMES if name in self.base},
            "use_candidates": int(self.use_candidates),
            "place_candidates": int(self.place_candidates),
            "place_gap": float(self.place_gap),
            "use_features": list(USE_NAMES),
            "use": [float(x) for x in self.use],
            "place_features": list(PLACE_NAMES),
            "place": [float(x) for x in self.place],
            "hidden": self.hidden,
        }
        if self.hidden:
            data["use_units"] = self.use_units.to_dict()
            data["place_units"] = self.place_units.to_dict()
        data["training"] = self.training
        return json.dumps(data, indent=1) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the file whole or not at all (``files.write_file``)."""
        write_file(path, self.to_json())

    @classmethod
    def from_json(cls, text: str, where: str = "model") -> Model:
        """Parse and check a model file's text; a bad one raises PolicyError in one line."""
        return cls.from_data(parse_data(text, where, "a model file", FORMAT, SCHEMA, PolicyError), where)

    @classmethod
    def from_data(cls, data: dict, where: str) -> Model:
        """The model of a file's parsed contents, its header already checked (``files.parse_data``)."""
        for key, names in (("use_features", USE_NAMES), ("place_features", PLACE_NAMES)):
            if data.get(key) != list(names):
                raise PolicyError(
                    f"{where}: the model was fitted on another feature list ({key} differs from "
                    f"this smsim's {len(names)} features); fit it again with smsim learn"
                )
        base = data.get("base")
        if not isinstance(base, dict) or not all(k in PARAM_NAMES for k in base):
            unknown = sorted(set(base) - set(PARAM_NAMES)) if isinstance(base, dict) else []
            raise PolicyError(f'{where}: "base" must map heuristic weights to numbers (unknown: {unknown})')

        def numbers(key: str, values: Any, length: int) -> list[float]:
            if not isinstance(values, list) or len(values) != length or not all(_finite(x) for x in values):
                raise PolicyError(f"{where}: {key!r} must be {length} finite numbers")
            return [float(x) for x in values]

        base = dict(zip(base, numbers("base", list(base.values()), len(base))))
        use = numbers("use", data.get("use"), len(USE_NAMES))
        place = numbers("place", data.get("place"), len(PLACE_NAMES))
        limits = {}
        for key in ("use_candidates", "place_candidates"):
            limits[key] = whole(data.get(key), f"{where}: {key!r}", low=1, high=MAX_CANDS, error=PolicyError)
        gap = data.get("place_gap")
        if not _finite(gap) or gap < 0:
            raise PolicyError(f"{where}: 'place_gap' must be a number >= 0, got {gap!r}")
        hidden = whole(data.get("hidden", 0), f"{where}: 'hidden'", low=0, high=MAX_HIDDEN, error=PolicyError)
        layers = []
        for key, n_f in (("use_units", len(USE_NAMES)), ("place_units", len(PLACE_NAMES))):
            if hidden == 0:
                layers.append(None)
                continue
            units = data.get(key)
            if not isinstance(units, dict) or not isinstance(units.get("weights"), list):
                raise PolicyError(f"{where}: {key!r} must hold 'weights', 'bias' and 'out' of {hidden} units")
            if len(units["weights"]) != hidden:
                raise PolicyError(f"{where}: {key!r} must have {hidden} rows of weights")
            layers.append(
                Units(
                    [numbers(f"{key} weights", w, n_f) for w in units["weights"]],
                    numbers(f"{key} bias", units.get("bias"), hidden),
                    numbers(f"{key} out", units.get("out"), hidden),
                )
            )
        training = data.get("training", {})
        description = data.get("description", "")
        return cls(
            base,
            use,
            place,
            layers[0],
            layers[1],
            limits["use_candidates"],
            limits["place_candidates"],
            float(gap),
            str(description),
            training if isinstance(training, dict) else {},
        )

    @classmethod
    def load(cls, path: str | Path) -> Model:
        where = f"policy {str(path)!r}"
        return cls.from_data(read_data_file(path, where, "a model file", FORMAT, SCHEMA, PolicyError), where)


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
