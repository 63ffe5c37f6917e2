"""Case 242: the translation probe on transcripts or speech that are not in the language its spans are read in.

The probe looks each span the record drops or invents up in its lexicon by
the span's words (the lexicon's ``source`` language, English for the built-in
one), reads the English transcript for it, and asks whether the rendering in
``target`` holds it.  Three inputs broke that without a word:

* a Spanish audit (``[corpus] language = "es"``) with a ``[translation]``
  section (the demo spec's, kept): ``audit --check`` passed, and the stage
  transcribed and rendered every clip to find every Spanish span "no entry"
  in the English lexicon; with ``target`` the corpus's own language it
  rendered Spanish into Spanish;
* ``translate --option language=es`` (read as the way to ask for Spanish):
  the transcripts were the renderings, every span "untranslated", exit 0;
  ``language=fr`` made the transcripts French, where no English span is ever
  "contained";
* a lexicon whose ``target`` is its ``source``.

Each is refused before any model loads.
"""

from __future__ import annotations

import json

import pytest

from asraudit.errors import InputError
from asraudit.probes.translation_lexicon import load_lexicon

from conftest import one_clip_manifest

PANEL = "".join(f'[[model]]\nspec = "{m}"\npanel = true\n' for m in ("whisper-base", "whisper-tiny.en", "pocketsphinx"))
FRENCH = ('schema = 1\ntarget = "fr"\n[[span]]\nen = "well"\npatterns = ["bon"]\nmatch = ["bon, la commission"]\n'
          'no_match = ["la commission"]\n')


def spanish_audit(folder, translation):
    one_clip_manifest(folder, text="bueno, la comisión debe presentar su informe")
    (folder / "truth.json").write_text(json.dumps({"a.wav": {"edits": [
        {"kind": "delete", "r": "bueno,", "a": "", "ref_start": 0, "ref_end": 6}]}}), encoding="utf-8")
    (folder / "fr.toml").write_text(FRENCH, encoding="utf-8")
    spec = folder / "audit.toml"
    spec.write_text('[corpus]\nmanifest = "m.jsonl"\nlanguage = "es"\n' + PANEL + '[translation]\ntruth = "truth.json"\n'
                    + translation, encoding="utf-8")
    return spec


@pytest.mark.parametrize("translation, said", [
    ("", "[translation] target 'es' is the corpus's own language ([corpus] language): the probe renders the clips in "
         "another language than they are spoken in"),
    ('target = "fr"\nlexicon = "fr.toml"\n',
     "[translation]: the lexicon ({folder}/fr.toml) reads spans spoken in 'en', and the corpus is 'es' ([corpus] "
     "language): a span is looked up by its words, so none would be found; give a lexicon whose source is 'es', or "
     "leave [translation] out"),
])
def test_a_spanish_audit_with_the_english_probe_is_refused_by_check(tmp_path, cli, monkeypatch, translation, said):
    monkeypatch.chdir(tmp_path)
    spec = spanish_audit(tmp_path, translation)
    ran = cli("audit", spec, "--check")
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: audit.toml: {said.format(folder=tmp_path)}"])


def edits(folder):
    path = folder / "edits.jsonl"
    path.write_text(json.dumps({"edit_id": "e1", "clip": "a.wav", "kind": "delete", "position": "start",
                                "ref_start": 0, "ref_end": 1, "r": "well", "a": ""}) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("language, also", [
    ("es", "; --target es asks for the renderings in es, the transcripts stay in en"),
    ("fr", ""),
])
def test_translate_refuses_transcripts_asked_for_in_another_language(tmp_path, cli, language, also):
    manifest = one_clip_manifest(tmp_path, text="well we agree")
    ran = cli("translate", "--model", tmp_path / "no-such-model", "--corpus", manifest, "--edits", edits(tmp_path),
              "--option", f"language={language}", "--out", tmp_path / "out" / "t.jsonl", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: --option language={language} asks the models for transcripts in {language}, and the probe "
        f"reads each transcript for a span spoken in en (the lexicon's source): leave the option out, or give "
        f"language=en{also}"])
    ran = cli("translate", "--model", tmp_path / "no-such-model", "--corpus", manifest, "--edits", edits(tmp_path),
              "--option", "language=EN", "--out", tmp_path / "out" / "t.jsonl", "--no-progress")
    assert ran.code == 2 and "no-such-model" in ran.error_lines[0]  # English transcripts: only the model is missing


def test_a_lexicon_rendering_into_its_own_language_is_refused(tmp_path):
    path = tmp_path / "lex.toml"
    path.write_text(FRENCH.replace('target = "fr"', 'source = "FR"\ntarget = "fr"'), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_lexicon(path)
    assert str(err.value) == (f"{path}: target 'fr' is the spans' own language (source 'fr'): the probe renders "
                              "speech in another language than it was spoken in")
    path.write_text(FRENCH, encoding="utf-8")
    assert (load_lexicon(path).source, load_lexicon(path).target) == ("en", "fr")
