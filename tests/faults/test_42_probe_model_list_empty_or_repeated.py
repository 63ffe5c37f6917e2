"""Case 42: a probe section's ``models`` list that is empty, or names a model twice, is refused by ``--check``.

``[masked] models = []`` was read as "no list given": the probe ran on every
model (three models masked and scored on a two-clip corpus, exit 0), the
opposite of what an empty list says.  ``models = ["whisper-tiny.en",
"whisper-tiny.en"]`` passed ``--check`` too.  The same holds for ``[lift]``,
``[battery]`` and ``[translation]``, read by one function.
"""

from __future__ import annotations

import json

import pytest

from asraudit import parse_spec
from asraudit.errors import InputError


@pytest.mark.parametrize("section", ["masked", "lift", "battery", "translation"])
def test_an_empty_models_list_is_refused(tmp_path, cli, section):
    (tmp_path / "p.jsonl").write_text(json.dumps({"audio_filepath": "c0", "text": "x", "pred_text": "x"}) + "\n")
    spec = tmp_path / "audit.toml"
    spec.write_text(f'[corpus]\npredictions = "p.jsonl"\n[[model]]\npredictions = "p.jsonl"\n[{section}]\nmodels = []\n',
                    encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [{section}]: models is empty: leave the key out to run every model, or the "
        "section out to skip the probe"])


def test_a_model_named_twice_is_refused(tmp_path):
    (tmp_path / "p.jsonl").write_text(json.dumps({"audio_filepath": "c0", "text": "x", "pred_text": "x"}) + "\n")
    data = {"corpus": {"predictions": "p.jsonl"}, "model": [{"predictions": "p.jsonl"}],
            "lift": {"models": ["a", "b", "a"]}}
    with pytest.raises(InputError) as err:
        parse_spec(data, "<spec>", tmp_path)
    assert str(err.value) == "<spec>: [lift]: models names a more than once: list each model once"
