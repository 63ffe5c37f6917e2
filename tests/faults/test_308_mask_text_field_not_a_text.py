"""Case 308: `mask --text-field F` (and `battery`'s) naming a field that is there but holds no text: a number
(`"n": 7`), null, a list; or naming the corpus's reference column itself (`--text-field text`).  Each was `clip
'a.wav' has no text field 'n'` (`... 'text'`), sending the user to look for a field the row has.  Now a field that
holds something else says what it holds, and the reference column reads the references, as leaving
`--text-field` out does."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.commands.mask import clip_texts
from asraudit.data.corpus import load_corpus
from asraudit.errors import InputError


@pytest.fixture()
def corpus(tmp_path):
    t = np.arange(16_000) / 16_000
    sf.write(tmp_path / "a.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
    row = {"audio_filepath": "a.wav", "text": "the cat sat", "n": 7, "gone": None, "words": ["the", "cat"],
           "spoken": "the cat sat down"}
    (tmp_path / "m.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    return tmp_path / "m.jsonl"


@pytest.mark.parametrize("field, held", [("n", "a number, 7"), ("gone", "null, null"),
                                         ("words", 'a list, ["the", "cat"]')])
def test_a_field_that_holds_no_text_says_what_it_holds(cli, corpus, field, held):
    ran = cli("mask", "--model", "whisper-tiny.en", "--corpus", corpus, "--text-field", field, "--align",
              "whisper-tiny.en", "--out", corpus.parent / "out", "--no-progress")
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {corpus}, row 1: clip 'a.wav': its field {field!r} (--text-field) "
                               f"holds {held}, not a text: name the field that holds what the clip says"]


def test_a_missing_field_is_still_said_to_be_missing(corpus):
    with pytest.raises(InputError, match="clip 'a.wav' has no text field 'zz'"):
        clip_texts(load_corpus(str(corpus)), "zz")


def test_the_reference_column_reads_the_references(corpus):
    c = load_corpus(str(corpus))
    assert clip_texts(c, "text", reference_column=None) == {"a.wav": "the cat sat"}
    assert clip_texts(c, "spoken") == {"a.wav": "the cat sat down"}
