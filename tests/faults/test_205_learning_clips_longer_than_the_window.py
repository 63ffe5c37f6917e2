"""Case 205: `steer learn` on clips longer than the model's window (a 41-s clip; Whisper encodes at most 30 s in
one pass), with `--negative silence` or a `--negative-corpus` of long clips.

The white-box encoder takes one window per input and cut each input to its first 30 s (`encoder_activations`),
without a word: the direction was learned from 30 of 41 s and saved with provenance saying it was pooled over the
clip's audio, exit 0.  Now the pairs' lengths are checked against the model's window from its files before it loads
(`layer_counts.window_seconds`), and by `learn_direction` against the loaded model's `window_seconds` (other
families, and an audit's steer entry) before any activation is computed.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

TAIL = ("1 of 2 learning pair(s) hold an input longer than the 30 s the model encodes in one pass (first: {!r}, "
        "41.00 s): a direction pooled over frames 'audio' would be learned from the first 30 s of it only: leave the "
        "longer clips out, cut them into clips of at most 30 s, or pool a span of frames")
LINE = "asraudit: error: " + TAIL


@pytest.fixture()
def corpus(tmp_path, monkeypatch):
    import soundfile as sf
    from conftest import one_clip_manifest

    from asraudit.commands import steer

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(steer, "load_whitebox", lambda args: pytest.fail("the model loaded"))
    manifest = one_clip_manifest(tmp_path)
    t = np.arange(41 * 16_000) / 16_000
    sf.write(tmp_path / "long.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
    with manifest.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"audio_filepath": "long.wav", "text": "a long tone"}) + "\n")
    return manifest


def test_a_long_clip_is_refused_before_the_model_loads(corpus, cli):
    ran = cli("steer", "learn", "--corpus", corpus, "--negative", "silence", "--layer", "1", "--out", "d.safetensors")
    assert ran.code == 2
    assert ran.error_lines == [LINE.format("long.wav vs silence")]
    assert not (corpus.parent / "d.safetensors").exists()


def test_a_long_negative_is_refused_too(corpus, cli, tmp_path):
    import shutil

    (tmp_path / "neg").mkdir()
    shutil.copy(tmp_path / "long.wav", tmp_path / "neg" / "a.wav")  # a.wav's negative is 41 s long
    (tmp_path / "neg" / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}) + "\n")
    (tmp_path / "short.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "a tone"}) + "\n")
    ran = cli("steer", "learn", "--corpus", "short.jsonl", "--negative-corpus", "neg/m.jsonl", "--layer", "1",
              "--out", "d.safetensors")
    assert ran.code == 2
    assert ran.error_lines == [LINE.replace("1 of 2", "1 of 1").format("a.wav")]


class _Stub:
    """A white-box model of a 1-s window whose encoder must not run."""

    model_id = "stub"
    config_hash = "stub"
    window_seconds = 1.0

    def intervention_sites(self):
        from types import SimpleNamespace

        return SimpleNamespace(encoder_layers=[object(), object()])

    def encoder_activations(self, audio, layers):
        if max(len(a) for a in audio) > 16_000:
            pytest.fail("the encoder ran on an input longer than the window")
        return {layers[0]: np.random.default_rng(0).standard_normal((len(audio), 50, 4)).astype(np.float32)}


def test_learn_direction_checks_the_loaded_models_window():
    from asraudit.errors import InputError
    from asraudit.mechanism.steering import learn_direction

    pairs = [(np.zeros(8_000, np.float32), np.zeros(8_000, np.float32)),
             (np.zeros(24_000, np.float32), np.zeros(8_000, np.float32))]
    with pytest.raises(InputError) as caught:
        learn_direction(_Stub(), pairs, 1, pair_labels=["short", "long"])
    assert str(caught.value).startswith("1 of 2 learning pair(s) hold an input longer than the 1 s the model "
                                        "encodes in one pass (first: 'long', 1.50 s): a direction pooled over "
                                        "frames 'audio' would be learned from the first 1 s of it only")
    learn_direction(_Stub(), pairs[:1], 1)  # within the window: on to the encoder



def test_a_span_of_frames_on_a_long_clip_still_learns(corpus, cli, monkeypatch):
    from asraudit.commands import steer

    class Loaded(Exception):
        pass

    def loaded(args):
        raise Loaded

    monkeypatch.setattr(steer, "load_whitebox", loaded)  # past every check on the files: the span is inside 30 s
    with pytest.raises(Loaded):
        cli("steer", "learn", "--corpus", corpus, "--negative", "silence", "--layer", "1", "--frames", "0.2-0.8",
            "--out", "d.safetensors")


def test_an_audits_learning_clip_is_refused_by_check(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("case158", __file__.replace(
        "test_205_learning_clips_longer_than_the_window.py", "test_158_audit_spans_on_clips_decoded_in_windows.py"))
    case158 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(case158)
    from asraudit.errors import InputError

    # case 158's corpus: a 3-s and a 41-s clip, each learned against silence, the short one ablated
    with pytest.raises(InputError) as caught:
        case158._check(tmp_path, case158._steer(ablate={"field": "accent", "values": ["a"]}))()
    assert str(caught.value) == f"a.toml: [[mechanism]] #1: {TAIL.format('long.wav vs condition')}"
    case158._check(tmp_path, case158._steer(frames="1-2", ablate={"field": "accent", "values": ["a"]}))()  # a span
