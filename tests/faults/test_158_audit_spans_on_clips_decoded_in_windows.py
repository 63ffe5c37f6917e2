"""Case 158: an audit's ``[[mechanism]]`` time span on clips longer than the model's window. A span is seconds of
each input the model decodes, and Whisper decodes a longer clip in windows of at most 30 s, so the span acted once
in each window (case 121 refused it for ``steer`` and ``patch``, not for the audit): a steer entry's ``frames =
"1-2"`` on the clips it ablates or induces on (in ``model`` and its ``apply_to`` models); a patch entry's
attention mask over each clip's disputed span stopped the stage with ``KeyError: 'no source for this input'``
(its source is looked up by the audio of each window, which is no clip's). Now ``check_mechanism`` (``audit --check``, and the audit before
its first stage) refuses it from the clips' headers and the models' files; a model whose files do not give its
window is checked by the mechanism stage when it loads it, before any variant runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.errors import InputError

TAIL = ("a time span is placed in each input of at most 30 s the model decodes, and 1 of 2 clip(s) are longer "
        "(first: 'long.wav', 41.00 s), so the model decodes them in windows and the span would act once in each: "
        "leave the longer clips out, or cut them into clips of at most 30 s")


def _corpus(tmp_path, long_seconds=41):
    import soundfile as sf

    rng = np.random.default_rng(0)
    sf.write(tmp_path / "short.wav", (0.1 * rng.standard_normal(16_000 * 3)).astype(np.float32), 16_000)
    sf.write(tmp_path / "long.wav", (0.1 * rng.standard_normal(16_000 * long_seconds)).astype(np.float32), 16_000)
    rows = [{"audio_filepath": name, "text": "x", "sentence": name[0], "accent": kind}
            for name, kind in (("short.wav", "a"), ("long.wav", "b"))]
    (tmp_path / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return tmp_path / "c.jsonl"


def _steer(**entry):
    return {"type": "steer", "model": "whisper-tiny.en", "layer": 0, "positive": "all", "negative": "silence",
            "holdout": 0, **entry}


def _check(tmp_path, entry, long_seconds=41):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit import load_corpus, parse_spec
    from asraudit.audit.mechanism import check_mechanism

    corpus = load_corpus(_corpus(tmp_path, long_seconds))
    spec = parse_spec({"corpus": {"manifest": "c.jsonl"}, "model": [{"spec": "whisper-tiny.en", "panel": True}],
                       "mechanism": [entry]}, "a.toml", tmp_path)
    return lambda: check_mechanism(spec.mechanism, corpus.clips, "a.toml")


@pytest.mark.parametrize("entry", [
    _steer(frames="1-2", ablate="all"),
    _steer(frames="1-2", induce="all"),
    _steer(frames="1-2", induce="all", induce_model=False, apply_to=["whisper-tiny.en-gated"]),
])
def test_a_steer_frames_span_on_a_clip_longer_than_the_window_is_refused_by_check(tmp_path, entry):
    with pytest.raises(InputError) as err:
        _check(tmp_path, entry)()
    assert str(err.value) == f"a.toml: [[mechanism]] #1: frames '1-2': {TAIL}"


def test_a_patch_attention_mask_on_a_clip_longer_than_the_window_is_refused_by_check(tmp_path):
    entry = {"type": "patch", "model": "whisper-tiny.en", "contrast": "whisper-tiny.en-gated", "layer": 0}
    with pytest.raises(InputError) as err:
        _check(tmp_path, entry)()
    assert str(err.value) == ("a.toml: [[mechanism]] #1: attention = true (the decoder kept from each clip's disputed "
                              f"span): {TAIL}")


@pytest.mark.parametrize("entry", [
    # no span: every frame of every window (learned from the short clip: case 205 refuses learning from the first
    # window of a longer one)
    _steer(frames="all", ablate="all", positive={"field": "accent", "values": ["a"]}),
    _steer(frames="1-2", ablate={"field": "accent", "values": ["a"]}),  # the long clip is only learned from
    {"type": "patch", "model": "whisper-tiny.en", "contrast": "whisper-tiny.en-gated", "layer": 0, "attention": False},
])
def test_what_acts_within_one_window_still_passes(tmp_path, entry):
    _check(tmp_path, entry)()


def test_clips_of_at_most_the_window_still_pass(tmp_path):
    _check(tmp_path, _steer(frames="1-2", ablate="all"), long_seconds=30)()
