"""Case 35: ``refdis --compat hume`` refuses a clip of more than 5,000 words instead of running for days.

The release's aligner, which ``--compat hume`` reproduces, is difflib's
``SequenceMatcher`` with autojunk off: each matching block is a search over
the reference's words times the hypothesis's occurrences of each, and a clip
has one block per error, so a clip's time grows with the square to the cube
of its words (4 models, an error every 10 words: 5,000 words 52 s, 10,000
words 504 s).  A 300,000-word clip (a whole long-form recording as one row)
ran without end (before this, the first test here does not finish).  The
full miner aligns a 30,000-word clip in under a second, and the refusal says
to use it, before any clip is mined.
"""

from __future__ import annotations

from conftest import PANEL, panel_files

HUME_MAX_WORDS = 5_000  # refdis_compat_run.HUME_MAX_WORDS, written out so that the test runs on the code before it

LONG = " ".join(["the cat sat on the mat"] * 50_000)  # 300,000 words


def test_a_300000_word_clip_is_one_line_before_mining(tmp_path, cli):
    preds = panel_files(tmp_path / "preds", [("c0", "a short one", "a short one"),
                                             ("c1", LONG, LONG.replace("cat", "hat", 10))])
    ran = cli("refdis", "--compat", "hume", "--preds", preds, "--panel", ",".join(PANEL))
    assert ran.code == 2
    assert ran.error_lines == [
        f"asraudit: error: {preds / 'm1.jsonl'}, row 2: clip 'c1': its reference has 300,000 words; --compat hume "
        "aligns a clip as the release does (difflib), in time growing with the square to the cube of its words, so "
        "clips over 5,000 words are refused: split long-form clips into segments, or mine without --compat"]
    assert ran.out == ""


def test_a_long_hypothesis_is_named_too_and_the_limit_itself_is_accepted(tmp_path, cli):
    at_limit = " ".join(["word"] * HUME_MAX_WORDS)
    over = at_limit + " word"
    preds = panel_files(tmp_path / "preds", [("c0", at_limit, at_limit)])
    assert cli("refdis", "--compat", "hume", "--preds", preds, "--panel", ",".join(PANEL)).code == 0
    (preds / "m2.jsonl").write_text(f'{{"audio_filepath": "c0", "text": "{at_limit}", "pred_text": "{over}"}}\n')
    ran = cli("refdis", "--compat", "hume", "--preds", preds, "--panel", ",".join(PANEL))
    assert ran.code == 2
    assert ran.error_lines[0].startswith(f"asraudit: error: {preds / 'm2.jsonl'}, row 1: clip 'c0': its hypothesis "
                                         "has 5,001 words;")
