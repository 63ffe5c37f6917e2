"""Case 118: numpy scalars in an audit spec's ``[[mechanism]]`` entries, from Python (case 106 for the other
sections).

A spec built as a dict from a DataFrame's cells or an array's elements (``"layer": np.int64(1)``,
``"alphas": [np.float32(0.5)]``, ``"attention": np.False_``) was refused by ``parse_spec`` / ``run_audit`` /
``asraudit.audit.spec`` as ``layer must be an integer, got np.int64(1)``, while every other section of the same
spec read such values as the Python values they hold. Now a mechanism entry's values go through the same
``arguments.plain``, in its lists and tables too.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit import parse_spec
from asraudit.errors import InputError

STEER = {"type": "steer", "model": "whisper-tiny.en", "layer": 0, "positive": "all", "negative": "silence",
         "holdout": 0, "ablate": "all"}
PATCH = {"type": "patch", "model": "whisper-tiny.en", "contrast": "whisper-base", "clips": "all"}


def _spec(tmp_path, entry):
    (tmp_path / "c.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "x", "role": "3"}) + "\n",
                                      encoding="utf-8")
    (tmp_path / "a.wav").write_bytes(b"")  # the spec's reader checks the manifest is there, not its audio
    data = {"corpus": {"manifest": "c.jsonl"}, "model": [{"spec": "whisper-tiny.en"}], "mechanism": [entry]}
    return parse_spec(data, "a.toml", tmp_path).mechanism[0]


@pytest.mark.parametrize("entry, key, value, expected", [
    (STEER, "layer", np.int64(1), 1),
    (STEER, "layer", np.int32(-1), -1),
    (STEER, "rank", np.int64(2), 2),
    (STEER, "max_clips", np.int64(4), 4),
    (STEER, "control_seed", np.uint8(3), 3),
    (STEER, "holdout", np.float32(0.25), 0.25),
    (STEER, "induce_model", np.True_, True),
    (STEER, "ablate_ranks", [np.int64(1)], (1,)),
    (STEER, "alphas", [np.float32(0.5), np.int64(2)], (0.5, 2.0)),
    (STEER, "layers", [np.int64(0), np.int64(1)], (0, 1)),
    (PATCH, "layer", np.int64(-1), -1),
    (PATCH, "max_clips", np.int64(3), 3),
    (PATCH, "attention", np.False_, False),
    (PATCH, "span_pad", np.float32(0.5), 0.5),
])
def test_a_numpy_scalar_is_the_value_it_holds(tmp_path, entry, key, value, expected):
    spec = _spec(tmp_path, {**entry, key: value})
    got = getattr(spec, key)
    assert got == expected and type(got) is type(expected)
    if isinstance(got, tuple):
        assert all(type(v) is type(e) for v, e in zip(got, expected))


def test_a_selection_value_from_numpy(tmp_path):
    spec = _spec(tmp_path, {**STEER, "positive": {"field": "role", "values": [np.int64(3)]}})
    assert spec.positive.values == ("3",)


def test_numpy_values_of_the_wrong_kind_are_still_refused(tmp_path):
    with pytest.raises(InputError) as err:
        _spec(tmp_path, {**STEER, "layer": np.float64(1.5)})
    assert str(err.value) == "a.toml: [[mechanism]] #1: layer must be an integer, got 1.5"
    with pytest.raises(InputError) as err:
        _spec(tmp_path, {**STEER, "rank": np.int64(0)})
    assert str(err.value) == "a.toml: [[mechanism]] #1: rank must be at least 1, got 0"
