"""Case 197: a convention family file (``conventions --families``, ``[conventions] families``) whose arms or
forms were read loosely.

- A pattern family whose arms take the same words (``colou?r`` under one arm, ``colour`` under the other, or one
  pattern pasted under both): every "colour" was matched by both arms, and the probe kept the arm listed first,
  so the family read 100% of one arm whatever the texts wrote, exit 0 (literal ``forms`` under two arms were
  refused already).
- ``"case_sensitive": "false"`` (a JSON string) was ``bool("false")``, true: the family matched "Mr" but not
  "mr" or "MISTER", without a word; ``0`` and ``1`` passed as false and true.
- A form ``""`` or ``" "`` as the only form of an arm stopped the loading with ``ValueError: no literals to
  match``, a traceback (beside other forms it was dropped without a word).
- ``range = [true, 20]`` for a generator was read as ``[1, 20]``.
"""

from __future__ import annotations

import json

import pytest
from conftest import write_preds

from asraudit.errors import InputError
from asraudit.probes.families import load_catalogue

MR = {"name": "mr", "class": "honorific", "arms": ["abbr", "full"], "forms": [["Mr", "Mister"]]}
COLOUR = {"name": "colour", "class": "spelling", "arms": ["uk", "us"]}


def _file(tmp_path, family) -> str:
    path = tmp_path / "fam.json"
    path.write_text(json.dumps({"family": [family]}), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("family, message", [
    ({**MR, "case_sensitive": "false"}, "family #1 ('mr'): 'case_sensitive' must be true or false, got 'false'"),
    ({**MR, "case_sensitive": 1}, "family #1 ('mr'): 'case_sensitive' must be true or false, got 1"),
    ({**MR, "forms": [["", "Mister"]]},
     "family #1 ('mr'): forms row 1 has an empty form '' under arm 'abbr': a form is the words of its rendering"),
    ({**MR, "forms": [[["Mr", " "], "Mister"]]},
     "family #1 ('mr'): forms row 1 has an empty form ' ' under arm 'abbr': a form is the words of its rendering"),
    ({"name": "c", "class": "number", "generate": "cardinal", "range": [True, 20]},
     "family #1 ('c'): 'range' must be [low, high] within [1, 99] for 'cardinal'"),
    ({**COLOUR, "patterns": [["colou?r", "colour"]], "match": ["a colour"]},
     "family 'colour': 'colour' in 'a colour' is matched by arm 'uk' and by arm 'us', so it would always count as "
     "'uk': arms must not overlap; narrow their patterns"),
])
def test_a_family_read_as_something_else_is_refused_when_the_file_is_read(tmp_path, family, message):
    path = _file(tmp_path, family)
    with pytest.raises(InputError) as err:
        load_catalogue(path)
    assert str(err.value) == f"{path}: {message}"


def test_arms_that_overlap_on_the_texts_are_refused_not_counted_as_the_first(tmp_path, cli):
    path = _file(tmp_path, {**COLOUR, "patterns": [["colo(?:u)?r", "color"]]})
    preds = write_preds(tmp_path / "m.jsonl", [("c0", "the colour red", "the color red"),
                                               ("c1", "a color", "a colour")])
    ran = cli("conventions", "--preds", preds, "--families", path)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {path}: family 'colour': 'color' in 'the color red' is matched by arm 'uk' and by arm "
        "'us', so it would always count as 'uk': arms must not overlap; narrow their patterns"])


def test_families_whose_arms_part_the_words_still_measure(tmp_path, cli):
    path = _file(tmp_path, {**COLOUR, "patterns": [["colour", "color"]], "case_sensitive": False})
    preds = write_preds(tmp_path / "m.jsonl", [("c0", "the colour red", "the color red"),
                                               ("c1", "a color", "a colour")])
    ran = cli("conventions", "--preds", preds, "--families", path)
    assert ran.code == 0 and not ran.error_lines
    assert load_catalogue(_file(tmp_path, {**MR, "case_sensitive": True})).family("mr").find("Mr and mr") == [
        (0, 2, 0, "1:")]


def test_audit_check_scans_the_references_with_a_family_file_before_any_model_runs(tmp_path, cli):
    import numpy as np
    import soundfile as sf

    sf.write(tmp_path / "c0.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "c0.wav", "text": "the color red"}) + "\n",
                                      encoding="utf-8")
    path = _file(tmp_path, {**COLOUR, "patterns": [["colo(?:u)?r", "color"]]})
    spec = tmp_path / "audit.toml"
    spec.write_text('[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "whisper-base"\n'
                    '[conventions]\nlanguage = "fam.json"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {path}: family 'colour': 'color' in 'the color red' is matched by arm 'uk' and by arm "
        "'us', so it would always count as 'uk': arms must not overlap; narrow their patterns"])
