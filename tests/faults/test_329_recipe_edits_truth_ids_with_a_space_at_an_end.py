"""Case 329: a file naming its clips for the corpus, whose id differs from the corpus's only by a space at an end
(``a.wav `` for ``a.wav``: a spreadsheet's cell, a hand edit): a ``mask --recipe`` (``battery --recipe``, an
audit's ``[masked] recipe``) row, a ``score --texts`` row, an edit given to ``load_edits`` from Python, and the
``--edits`` of ``lift`` / ``battery`` / ``translate`` or the ``--truth`` of ``translate``.

The recipe and the candidates file were refused with ``clip 'a.wav ' is not in the corpus``, and the edits and
the truth file's spans were left out as on a clip outside the corpus (``1 edit(s) on clips outside the corpus left
out, e.g. a.wav ``, the space unseen), while the file plainly named ``a.wav``.  Now the line says why, in the words
case 322 gives prediction files (``data.predictions.space_twin``); an id that differs otherwise reads as before.
"""

from __future__ import annotations

import json

import pytest

from conftest import one_clip_manifest

from asraudit.errors import InputError
from asraudit.probes.lift_run import load_edits

WHY = ("{file}'s clip 'a.wav ' and the corpus's 'a.wav' differ only by a space at an end, and clip ids are compared "
       "as written, so they are two clips: remove the space")


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_clip_manifest(tmp_path, text="we agree")  # a.wav
    return tmp_path


def _edits(folder, clip):
    path = folder / "edits.jsonl"
    path.write_text(json.dumps({"edit_id": "e0", "clip": clip, "kind": "delete", "position": "start", "ref_start": 0,
                                "ref_end": 1, "r": "we", "a": ""}) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("clip, why", [("a.wav ", ": " + WHY.format(file="r.jsonl")), ("b.wav", "")],
                         ids=["space", "control-other-id"])
def test_mask_recipe(folder, cli, clip, why):
    (folder / "r.jsonl").write_text(json.dumps({"clip": clip, "t0": 0.1, "t1": 0.4, "hidden": "agree"}) + "\n",
                                    encoding="utf-8")
    ran = cli("mask", "--model", "pocketsphinx", "--corpus", "m.jsonl", "--recipe", "r.jsonl", "--out", "o",
              "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: r.jsonl, row 1: clip {clip!r} is not in the "
                                               f"corpus{why}"])
    assert not (folder / "o").exists()


def test_score_texts(folder, cli):
    (folder / "c.jsonl").write_text(json.dumps({"audio_filepath": "a.wav ", "candidates": ["we agree"]}) + "\n",
                                    encoding="utf-8")
    ran = cli("score", "--model", "pocketsphinx", "--corpus", "m.jsonl", "--texts", "c.jsonl", "--out", "s.jsonl",
              "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: c.jsonl, row 1: clip 'a.wav ' is not in the corpus: {WHY.format(file='c.jsonl')}"])


def test_load_edits_from_python(folder):
    with pytest.raises(InputError) as err:
        load_edits(_edits(folder, "a.wav "), {"a.wav": "we agree"}, str.lower)
    assert str(err.value) == f"edits.jsonl, row 1: clip 'a.wav ' is not in the corpus: {WHY.format(file='edits.jsonl')}"


def test_lift_edits_left_out(folder, cli):
    ran = cli("lift", "--model", folder / "no-such-model", "--corpus", "m.jsonl", "--edits", _edits(folder, "a.wav "), "--out", "l.jsonl",
              "--no-progress")
    assert (f"asraudit: warning: 1 edit(s) on clips outside the corpus left out, e.g. a.wav : "
            f"{WHY.format(file='edits.jsonl')}") in ran.err.splitlines()
    assert ran.code == 2


def test_translate_truth_left_out(folder, cli):
    span = {"kind": "delete", "r": "we", "a": "", "ref_start": 0, "ref_end": 2}
    (folder / "truth.json").write_text(json.dumps({"a.wav ": {"edits": [span]}}), encoding="utf-8")
    ran = cli("translate", "--model", folder / "no-such-model", "--corpus", "m.jsonl", "--truth", "truth.json",
              "--target", "es", "--out", "t.jsonl", "--no-progress")
    assert (f"asraudit: warning: the spans of 1 clip(s) outside the corpus left out, e.g. a.wav : "
            f"{WHY.format(file='truth.json')}") in ran.err.splitlines()
    assert ran.code == 2
