"""Case 286: ``corpus_cer`` of texts with whitespace at either end: a hypothesis with Whisper's leading space
(``" the cat"``, its raw transcript lowercased by the caller's own normalizer), a trailing newline (texts read
line by line), a reference padded with spaces.  Every such character was counted: one insertion or deletion per
clip (CER 0.4 for ``" a b "`` against ``"a b"``, where jiwer's ``cer``, which the docstring said it matches, gives
0.0, and ``corpus_wer`` 0.0).  Now each text's ends are stripped, as jiwer does; the spaces between words still
count."""

from __future__ import annotations

import pytest

from asraudit import corpus_cer, corpus_wer


@pytest.mark.parametrize(("refs", "hyps"), [
    ([" a b "], ["a b"]),
    (["the cat sat", "on the mat"], [" the cat sat", "on the mat\n"]),
    (["\ta b\r\n"], ["a b"]),
])
def test_whitespace_at_the_ends_is_no_error(refs, hyps):
    score = corpus_cer(refs, hyps, n_boot=0)
    assert score.rate == 0.0 and score.errors == 0
    assert corpus_wer(refs, hyps, n_boot=0).rate == 0.0


def test_spaces_between_words_still_count():
    score = corpus_cer(["a  b"], [" a b"], n_boot=0)
    assert (score.deletions, score.ref_units, score.rate) == (1, 4, 0.25)


def test_the_rate_is_jiwers():
    jiwer = pytest.importorskip("jiwer")
    refs = [" the cat sat on the mat", "hello  world\n", "a b c"]
    hyps = ["the cat sat on mat ", " hello there world", "a x c  "]
    assert corpus_cer(refs, hyps, n_boot=0).rate == pytest.approx(jiwer.cer(refs, hyps), abs=1e-12)
