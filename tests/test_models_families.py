"""`asraudit models` (the family table) and the bad-input checks a model folder gets before any audio.

A folder is recognised by the ``model_type`` in its config.json; one that
is not a speech model, or is a speech model no family can run, is refused
with one line naming the folder and what to do (exit 2), before the corpus
audio is decoded (the corpus here holds an undecodable file, so an error
about audio would mean the model was checked too late).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from asraudit.cli import main  # noqa: E402
from asraudit.errors import InputError  # noqa: E402
from asraudit.models.families import FAMILIES, UNSUPPORTED, families  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

ENCODER_DECODER = {"whisper", "moonshine", "moonshine-streaming", "canary", "cohere-asr", "speech2text", "seamless-m4t"}


def test_models_json_lists_every_family_with_what_it_can_do(capsys):
    assert main(["models", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    rows = {row["family"]: row for row in payload["families"]}
    assert ENCODER_DECODER <= set(rows)
    assert [row["family"] for row in payload["families"]] == [f.name for f in families()]
    for name in ENCODER_DECODER:
        row = rows[name]
        assert row["kind"] == "encoder-decoder" and row["score"].startswith("teacher-forced")
        assert row["example"].startswith('spec = "hf:') and row["model_types"]
    assert rows["moonshine"]["whitebox_sites"].startswith("encoder layers") and rows["moonshine-streaming"]["whitebox_sites"] == "-"
    assert {"backends", "embedded"} <= set(payload)  # the catalogue it printed before stays


def test_models_prints_the_family_table_first(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Model families")
    for family in FAMILIES:
        assert family.name in out and family.example in out


def test_every_model_type_belongs_to_one_family_only():
    seen = [t for f in FAMILIES for t in f.model_types]
    assert len(seen) == len(set(seen))


@pytest.fixture()
def bad_corpus(tmp_path, monkeypatch):
    """A clip that loads (integer mono: its header is read, not its samples) and whose decoding is refused.

    (A clip of NaN samples was the canary before; such a float file is now decoded and refused when the
    corpus is read, fault case 74, so decoding itself is made to fail here.)"""
    from asraudit.audio import io as audio_io

    sf.write(tmp_path / "broken.wav", np.zeros(160, dtype=np.float32), 16_000, subtype="PCM_16")
    manifest = tmp_path / "corpus.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "broken.wav", "text": "hello"}) + "\n")

    def refused(samples, rate, *, name="<array>", origin=None):
        raise InputError(f"{name}: decoded before the model was refused")

    monkeypatch.setattr(audio_io, "prepare", refused)
    return manifest


def _text_model(folder):
    config = transformers.BertConfig(vocab_size=32, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32)
    transformers.BertModel(config).save_pretrained(folder)
    return folder


def _refused_speech_config(folder):
    """A speech model type listed as one no family can run (seamless_m4t runs; it is listed for the test)."""
    folder.mkdir()
    transformers.SeamlessM4TConfig().save_pretrained(folder)
    return folder


def _vibevoice_asr_config(folder):
    """VibeVoice-ASR (in UNSUPPORTED: timed, speaker-labelled JSON answers, noisy latents by default); transformers
    lists it as a speech seq2seq model, so before it was listed the generic runner took it."""
    folder.mkdir()
    transformers.VibeVoiceAsrConfig().save_pretrained(folder)
    return folder


@pytest.mark.parametrize("make, expected", [
    (_text_model, "model_type 'bert', which asraudit cannot load as a speech model"),
    (_refused_speech_config, "is a seamless_m4t model, which asraudit cannot run"),
    (_vibevoice_asr_config, "is a vibevoice_asr model, which asraudit cannot run: its answer is a JSON list"),
])
def test_a_folder_that_no_family_runs_is_one_line_and_exit_2_before_any_audio(make, expected, tmp_path, bad_corpus,
                                                                               capsys, monkeypatch):
    if make is _refused_speech_config:
        monkeypatch.setitem(UNSUPPORTED, "seamless_m4t", "listed as unsupported for this test")
    folder = make(tmp_path / "model")
    with pytest.raises(InputError, match=expected):
        load_model(str(folder))
    capsys.readouterr()  # the fixture's own save_pretrained progress
    code = main(["transcribe", "--model", str(folder), "--corpus", str(bad_corpus), "--out", str(tmp_path / "out"),
                 "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and str(folder) in err and expected.split(",")[0] in err
    assert "broken.wav" not in err
