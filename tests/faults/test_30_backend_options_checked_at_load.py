"""Case 30: a model's backend options are checked when it is loaded, not in its first call.

``--option beam_size=-1`` (or ``0``, ``nan``, ``"5"``, ``max_length=0``) on a
Whisper model passed the load and ``audit --check``, then stopped the first
``generate`` call with a CTranslate2 traceback (``TypeError: generate():
incompatible function arguments`` and a dump of the mel features), after the
models before it had run; ``task=dance`` was silently ignored; an option the
backend does not have was a ``TypeError`` traceback on the command line, and
on pocketsphinx a ``KeyError: "Unknown key b'beam_size'"`` traceback.
"""

from __future__ import annotations

import sqlite3

import pytest

from conftest import one_clip_manifest


@pytest.fixture()
def manifest(tmp_path):
    return one_clip_manifest(tmp_path)


@pytest.mark.parametrize("option, said", [
    ("beam_size=-1", "option beam_size must be an integer of at least 1, got -1"),
    ("beam_size=0", "option beam_size must be an integer of at least 1, got 0"),
    ("beam_size=nan", "option beam_size must be an integer of at least 1, got 'nan'"),
    ('beam_size="5"', "option beam_size must be an integer of at least 1, got '5'"),
    ("max_length=0", "option max_length must be an integer of at least 1, got 0"),
    ("patience=0", "option patience must be a number above 0, got 0"),
    ("task=dance", "option task must be one of transcribe, translate, got 'dance'"),
])
def test_a_bad_whisper_option_is_one_line_before_any_clip(tmp_path, cli, manifest, option, said):
    out = tmp_path / "out"
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--option", option, "--corpus", manifest, "--out", out,
              "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: --model whisper-tiny.en: {said}"]
    if (out / "asraudit.sqlite").exists():
        with sqlite3.connect(out / "asraudit.sqlite") as db:
            assert db.execute("SELECT COUNT(*) FROM results").fetchone() == (0,)


def test_an_option_pocketsphinx_does_not_have_is_one_line(tmp_path, cli, manifest):
    ran = cli("transcribe", "--model", "pocketsphinx", "--option", "beam_size=2", "--corpus", manifest,
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == ["asraudit: error: model 'pocketsphinx' has no option 'beam_size'; its options are "
                               "pocketsphinx's decoder settings (hmm, lm, dict, beam, ...)"]


def test_an_option_whisper_does_not_have_is_one_line_naming_the_model_once(tmp_path, cli, manifest):
    ran = cli("transcribe", "--model", "whisper-tiny.en", "--option", "bogus=1", "--corpus", manifest,
              "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == ["asraudit: error: model 'whisper-tiny.en' has no option 'bogus'; its options: "
                               "batch_size, beam_size, cpu_threads, language, length_penalty, max_length, "
                               "no_repeat_ngram_size, patience, repetition_penalty, suppress_blank, suppress_tokens, "
                               "task"]


def test_audit_check_refuses_the_option(tmp_path, cli, manifest):
    spec = tmp_path / "audit.toml"
    spec.write_text('out = "o"\n[corpus]\nmanifest = "m.jsonl"\n[refdis]\nmajority = 0.66\nmin_panel = 2\n'
                    '[[model]]\nspec = "whisper-tiny.en"\npanel = true\noptions = { beam_size = -1 }\n'
                    '[[model]]\nspec = "pocketsphinx"\npanel = true\n', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2
    assert ran.error_lines == [f"asraudit: error: {spec}: [[model]] #1 (whisper-tiny.en): option beam_size must be "
                               "an integer of at least 1, got -1"]


def test_good_options_still_load():
    from asraudit.models.registry import load_model

    model = load_model("whisper-tiny.en", beam_size=1, suppress_tokens=[-1], task="transcribe", patience=1)
    assert model.options.beam_size == 1 and model.options.suppress_tokens == (-1,)
