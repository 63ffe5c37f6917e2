"""Case 103: the same text written composed and decomposed (Unicode NFC and NFD).

"café" is one code point for "é" in most files and "e" plus a combining accent
in files saved on a Mac or by some tools; the two are the same text.  Under
``--normalizer none`` a hypothesis in one form against a reference in the
other was a substitution (WER 33.33% for a perfect transcript), and prediction
files whose references differed only so were "references that differ across
models": ``preds`` listed three identical-looking references as a conflict,
and ``refdis`` refused to run.  Now texts are compared composed: ``none``
composes (NFC) as it already dropped format characters, and the reference
checks compare composed texts.  The other normalizers already gave both forms
one output.
"""

from __future__ import annotations

import json
import unicodedata

import pytest

from asraudit.text.normalize import NORMALIZERS, get_normalizer

TEXT = "the café opened à côté"


def _preds(tmp_path, name, ref_form, hyp_form):
    path = tmp_path / f"{name}.jsonl"
    rows = [{"audio_filepath": f"c{i}", "text": unicodedata.normalize(ref_form, f"{TEXT} {i}"),
             "pred_text": unicodedata.normalize(hyp_form, f"{TEXT} {i}")} for i in range(4)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", NORMALIZERS)
def test_every_normalizer_gives_both_forms_one_output(name):
    normalize = get_normalizer(name)
    assert normalize(unicodedata.normalize("NFC", TEXT)) == normalize(unicodedata.normalize("NFD", TEXT))


def test_a_transcript_in_the_other_form_is_no_error(tmp_path, cli):
    ran = cli("wer", "--preds", _preds(tmp_path, "m", "NFC", "NFD"), "--normalizer", "none", "--json",
              tmp_path / "w.json")
    assert ran.code == 0, ran.err
    assert json.loads((tmp_path / "w.json").read_text(encoding="utf-8"))["models"]["m"]["wer"] == 0.0


def test_references_in_either_form_agree(tmp_path, cli):
    files = [_preds(tmp_path, f"m{i}", form, "NFC") for i, form in enumerate(("NFC", "NFD", "NFC", "NFD"))]
    ran = cli("preds", "--preds", *files)
    assert ran.code == 0 and "references agree across models on every shared clip" in ran.out, ran.out
    assert "differ" not in ran.err
    ran = cli("refdis", "--preds", *files, "--panel", "m0,m1,m2")
    assert ran.code == 0, ran.err
