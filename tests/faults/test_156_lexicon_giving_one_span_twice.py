"""Case 156: a translation lexicon (``translate --lexicon``, ``[translation] lexicon``) with two ``[[span]]``
entries for one span: ``"Thank you"`` and ``"thank you."`` (a second entry added for more renderings), or
``"Mister Smith"`` and ``"Mr Smith"``, one span once the normalizer has read them.

The probe looks a span up by its normalized words and kept the first entry of each: the second's patterns were
never tried, so a model that rendered the span the second way ("Te lo agradezco") was counted as not rendering
it, a silently lower rate, exit 0. Now the two entries are refused, naming both, before any model loads
(``translate``) or runs (``audit --check``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf
from conftest import write_lexicon

from asraudit.errors import InputError
from asraudit.probes.translation_lexicon import load_lexicon
from asraudit.text.normalize import NORMALIZERS, get_normalizer

_lexicon = write_lexicon


def _corpus(tmp_path):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "we agree"}) + "\n",
                                      encoding="utf-8")
    return tmp_path / "m.jsonl"


def test_translate_refuses_a_span_two_entries_give_before_any_model_loads(tmp_path, cli):
    lexicon = _lexicon(tmp_path, ("Thank you", "gracias"), ("thank you.", "te lo agradezco"))
    manifest = _corpus(tmp_path)
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps({"a.wav": {"edits": [{"kind": "insert", "r": "", "a": "thank you", "ref_start": 0,
                                                      "ref_end": 0}]}}))
    ran = cli("translate", "--model", "whisper-base", "--corpus", manifest, "--truth", truth, "--lexicon", lexicon,
              "--out", tmp_path / "t.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {lexicon}: span #2 ('thank you.') is span #1 ('Thank you') again once normalized "
        "('thank you'), and a span is read by one entry, so its patterns would never be tried: merge the two into "
        "one [[span]]"])


def test_the_normalizer_decides_what_is_one_span(tmp_path):
    lexicon = load_lexicon(_lexicon(tmp_path, ("Mister Smith", "senor smith"), ("Mr Smith", "sr smith")))
    with pytest.raises(InputError) as err:
        lexicon.keyed(get_normalizer("whisper"))  # Mr is Mister to the Whisper normalizer
    assert "span #2 ('Mr Smith') is span #1 ('Mister Smith') again once normalized ('mister smith')" in str(err.value)
    assert len(lexicon.keyed(get_normalizer("basic"))) == 2  # two spans to the basic one


@pytest.mark.parametrize("normalizer", NORMALIZERS)
def test_the_built_in_lexicon_gives_each_span_once(normalizer):
    lexicon = load_lexicon("es")
    assert len(lexicon.keyed(get_normalizer(normalizer))) == len(lexicon.entries)


def test_audit_check_refuses_it_before_any_model_runs(tmp_path, cli):
    from asraudit.models import embedded

    pytest.importorskip("pocketsphinx")
    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    _lexicon(tmp_path, ("Thank you", "gracias"), ("thank you.", "te lo agradezco"))
    _corpus(tmp_path)
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o"\nrefdis = { min_panel = 2 }\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\n'
                    'spec = "whisper-tiny.en"\npanel = true\n[[model]]\nspec = "pocketsphinx"\npanel = true\n'
                    '[translation]\nlexicon = "lex.toml"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {tmp_path / 'lex.toml'}: span #2 ('thank you.') is "
                                         "span #1 ('Thank you') again once normalized")
    assert not (tmp_path / "o").exists()
