"""Case 196: a truth file of planted errors (``translate --truth``, ``[translation] truth``) edited by hand.

Its edits were read only when the translation probe built its spans, in an audit after every other stage had
run (``audit --check`` read the JSON's outline only), and read loosely: ``"edits": "x"`` or an edit that is not
an object was ``AttributeError: 'str' object has no attribute 'get'``, ``"ref_start": null`` or ``"abc"`` a
``TypeError`` / ``ValueError`` traceback; a kind misspelt (``"deletion"``) was passed over and ``"a": null`` read
as the spoken word "none", without a word; a clip given twice kept its second entry; ``ref_start`` and
``ref_end`` written as word indices (as an edits file's are: ``0, 2`` for "Madam President") measured the span
``'ma'``, silently; arrays nested deeper than Python reads and an integer of 5,000 digits were tracebacks from the
JSON parser. Every edit is checked when the file is read (its ``r`` against the reference's characters once the
corpus is), by ``translate`` before any model loads and by ``audit --check``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.errors import InputError
from asraudit.probes.translation_probe import items_from_truth, read_truth
from asraudit.text.normalize import get_normalizer

REFERENCE = "Madam President, the vote is closed"
GOOD = {"kind": "delete", "r": "Madam President", "a": "", "ref_start": 0, "ref_end": 15}


def _edit(**change):
    return {"c0.wav": {"edits": [{**GOOD, **change}]}}


@pytest.mark.parametrize("truth, message", [
    ({"c0.wav": {"edits": "x"}}, "clip 'c0.wav': edits must be a list of edits, got 'x'"),
    ({"c0.wav": {"edits": [5]}},
     "clip 'c0.wav', edit #1: an edit is an object with kind, r, a, ref_start and ref_end, got 5"),
    (_edit(kind="deletion"), "clip 'c0.wav', edit #1: kind must be one of delete, insert, substitute, got 'deletion'"),
    (_edit(ref_start=None), "clip 'c0.wav', edit #1: ref_start must be a whole number of characters, got None"),
    (_edit(ref_start="abc"), "clip 'c0.wav', edit #1: ref_start must be a whole number of characters, got 'abc'"),
    (_edit(ref_end=True), "clip 'c0.wav', edit #1: ref_end must be a whole number of characters, got True"),
    (_edit(kind="insert", a=None), "clip 'c0.wav', edit #1: a must be a text (\"\" for none), got None"),
    (_edit(r=5), "clip 'c0.wav', edit #1: r must be a text (\"\" for none), got 5"),
])
def test_an_edit_of_the_wrong_shape_is_refused_when_the_file_is_read(tmp_path, truth, message):
    path = tmp_path / "truth.json"
    path.write_text(json.dumps(truth), encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_truth(path)
    assert str(err.value) == f"{path}: {message}"


@pytest.mark.parametrize("text, message", [
    ('{"c0.wav": {"edits": []}, "c0.wav": {"edits": []}}',
     "key 'c0.wav' is given twice in one object, and a JSON reader keeps only the last value, without a word: merge "
     "the two, or remove one"),
    ('{"c0.wav": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "the truth file is not JSON Python reads: arrays or objects nested deeper than it reads"),
    ('{"c0.wav": {"edits": [{"kind": "delete", "ref_start": ' + "9" * 5000 + "}]}}",
     "the truth file is not JSON Python reads: a number of more than 4300 digits"),
])
def test_json_a_reader_would_misread_is_refused(tmp_path, text, message):
    path = tmp_path / "truth.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_truth(path)
    assert str(err.value) == f"{path}: {message}"


def test_word_indices_for_character_offsets_are_refused_against_the_reference(tmp_path):
    path = tmp_path / "truth.json"
    path.write_text(json.dumps(_edit(ref_start=0, ref_end=2)), encoding="utf-8")
    with pytest.raises(InputError) as err:
        items_from_truth(read_truth(path), {"c0.wav": REFERENCE}, get_normalizer("whisper"), str(path))
    assert str(err.value) == (f"{path}: clip 'c0.wav': a delete edit's characters 0:2 of the reference are 'Ma', "
                              "and its r is 'Madam President': ref_start and ref_end count characters of the "
                              "reference, not words")


def test_a_sound_truth_file_reads_as_before(tmp_path):
    path = tmp_path / "truth.json"
    path.write_text(json.dumps({"c0.wav": {"edits": [GOOD, {"kind": "insert", "r": "", "a": "well"},
                                                     {"kind": "substitute", "r": "vote", "a": "votes"}]}}),
                    encoding="utf-8")
    items = items_from_truth(read_truth(path), {"c0.wav": REFERENCE}, get_normalizer("whisper"), str(path))
    assert [(i.kind, i.span) for i in items] == [("invented", ("madam", "president")), ("dropped", ("well",))]


def _corpus(tmp_path):
    sf.write(tmp_path / "c0.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "c0.wav", "text": REFERENCE}) + "\n",
                                      encoding="utf-8")
    (tmp_path / "truth.json").write_text(json.dumps(_edit(ref_start=0, ref_end=2)), encoding="utf-8")


WORDS = ("clip 'c0.wav': a delete edit's characters 0:2 of the reference are 'Ma', and its r is 'Madam President': "
         "ref_start and ref_end count characters of the reference, not words")


def test_audit_check_refuses_it_before_any_model_runs(tmp_path, cli):
    _corpus(tmp_path)
    spec = tmp_path / "audit.toml"
    spec.write_text('[corpus]\nmanifest = "m.jsonl"\n[[model]]\nspec = "whisper-base"\n'
                    '[translation]\ntruth = "truth.json"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {tmp_path / 'truth.json'}: {WORDS}"])


def test_translate_refuses_it_before_any_model_loads(tmp_path, cli):
    _corpus(tmp_path)
    ran = cli("translate", "--model", "whisper-base", "--corpus", tmp_path / "m.jsonl", "--truth",
              tmp_path / "truth.json", "--out", tmp_path / "out" / "t.jsonl")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {tmp_path / 'truth.json'}: {WORDS}"])
    assert not (tmp_path / "out").exists()
