"""Case 7: zero-width and other format characters do not turn correct words into errors.

A hypothesis with U+200B inside words got +16 substitutions on one clip,
because the Whisper normalizer keeps format characters.  They are removed
before normalizing; everything else keeps parity with transformers'
EnglishTextNormalizer (tests/test_normalize.py).
"""

from __future__ import annotations

import json

from asraudit.text.normalize import get_normalizer

from conftest import write_preds

FORMAT = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e"]


def test_format_characters_inside_words_are_not_errors(tmp_path, cli):
    ref = "the quick brown fox jumps over the lazy dog"
    hyp = " ".join(w[:1] + FORMAT[i % len(FORMAT)] + w[1:] for i, w in enumerate(ref.split()))
    write_preds(tmp_path / "zw.jsonl", [("a", ref, hyp)])
    ran = cli("wer", "--preds", tmp_path / "zw.jsonl", "--json", tmp_path / "w.json", "--bootstrap", "0")
    assert ran.code == 0, ran.err
    scores = json.loads((tmp_path / "w.json").read_text())["models"]["zw"]
    assert (scores["wer"], scores["substitutions"], scores["insertions"], scores["deletions"]) == (0.0, 0, 0, 0)
    for name in ("whisper", "basic", "none"):
        assert get_normalizer(name)("zero\u200bwidth\ufeff") == get_normalizer(name)("zerowidth")
