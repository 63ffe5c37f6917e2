"""Case 212: a translation lexicon (``translate --lexicon``, ``[translation] lexicon``) whose ``[[span]]`` gives as
its English span what the run's normalizer reads as no words: ``en = "--"`` or ``"—"`` (a dash pasted for a span
left to fill), ``"¿?"``, or a filler the Whisper normalizer drops (``"uh"``, ``"hmm"``).

The probe looks spans up by their normalized words, and ``Lexicon.keyed`` passed such an entry over: its
patterns were never tried, and nothing said so (the file loaded, its examples checked, exit 0).  A ``clash`` of no
words (``clash = ["--"]``) was likewise never looked for: a sentence holding the words meant was read as checkable.  It is now
refused, naming the file and the entry, where the lexicon is keyed under the run's normalizer: by ``translate``
before any model loads, by ``audit --check`` before any model runs.
"""

from __future__ import annotations

import json

import pytest
from conftest import one_clip_manifest, write_lexicon

from asraudit.errors import InputError
from asraudit.probes.translation_lexicon import load_lexicon
from asraudit.text.normalize import get_normalizer

_lexicon = write_lexicon


@pytest.mark.parametrize("en, normalizer", [
    ("--", "whisper"), ("--", "basic"), ("\u2014", "leaderboard"), ("\u00bf?", "basic-es"), ("uh", "whisper"),
    ("hmm", "leaderboard"),
])
def test_a_span_the_normalizer_reads_as_no_words_is_refused_naming_the_entry(tmp_path, en, normalizer):
    path = _lexicon(tmp_path, ("thank you", "gracias"), (en, "senora"))
    lexicon = load_lexicon(path)
    with pytest.raises(InputError) as err:
        lexicon.keyed(get_normalizer(normalizer))
    assert str(err.value) == (f"{path}: span #2 ({en!r}) is no words once normalized, and the probe looks a span up "
                              "by its normalized words, so this entry would never be used: give the span's spoken "
                              "words in en")


@pytest.mark.parametrize("clash, normalizer", [("--", "whisper"), ("...", "basic"), ("uh", "whisper")])
def test_a_clash_of_no_words_is_refused_naming_the_entry(tmp_path, clash, normalizer):
    path = tmp_path / "lex.toml"
    path.write_text('schema = 1\ntarget = "es"\n[[span]]\nen = "thank you"\npatterns = ["gracias"]\n'
                    f'clash = ["thank", "{clash}"]\nmatch = ["gracias"]\nno_match = ["la comision"]\n',
                    encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_lexicon(path).keyed(get_normalizer(normalizer))
    assert str(err.value) == (f"{path}: span #1 ('thank you'): clash {clash!r} is no words once normalized, and a "
                              "clash is looked for by its normalized words in the rest of the sentence, so it would "
                              "never be found: give the English words it stands for")


def test_the_normalizer_decides_which_span_is_no_words(tmp_path):
    lexicon = load_lexicon(_lexicon(tmp_path, ("uh", "eh")))
    assert list(lexicon.keyed(get_normalizer("basic"))) == [("uh",)]  # a word to the basic normalizer


def test_translate_refuses_it_before_any_model_loads(tmp_path, cli):
    lexicon = _lexicon(tmp_path, ("thank you", "gracias"), ("--", "senora"))
    manifest = one_clip_manifest(tmp_path, text="we agree")
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps({"a.wav": {"edits": [{"kind": "insert", "r": "", "a": "thank you", "ref_start": 0,
                                                      "ref_end": 0}]}}))
    ran = cli("translate", "--model", "whisper-base", "--corpus", manifest, "--truth", truth, "--lexicon", lexicon,
              "--out", tmp_path / "out" / "t.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {lexicon}: span #2 ('--') is no words once normalized, and the probe looks a span up by "
        "its normalized words, so this entry would never be used: give the span's spoken words in en"])
    assert not (tmp_path / "out").exists()


def test_audit_check_refuses_it_before_any_model_runs(tmp_path, cli):
    from asraudit.models import embedded

    pytest.importorskip("pocketsphinx")
    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")
    _lexicon(tmp_path, ("thank you", "gracias"), ("uh", "eh"))  # "uh" is no words to the Whisper normalizer
    one_clip_manifest(tmp_path, text="we agree")
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o"\nrefdis = { min_panel = 2 }\n[corpus]\nmanifest = "m.jsonl"\n[[model]]\n'
                    'spec = "whisper-tiny.en"\npanel = true\n[[model]]\nspec = "pocketsphinx"\npanel = true\n'
                    '[[model]]\nspec = "whisper-base"\n'  # multilingual: it renders es, so nothing else is refused
                    '[translation]\nlexicon = "lex.toml"\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {tmp_path / 'lex.toml'}: span #2 ('uh') is no words once normalized, and the probe looks "
        "a span up by its normalized words, so this entry would never be used: give the span's spoken words in en"])
    assert not (tmp_path / "o").exists()
