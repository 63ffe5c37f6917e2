"""Case 87: what the mechanism experiments make their inputs and controls from, with a value that touches nothing
or poisons the audio: the audio source of a pair or a patch (``steer learn --negative``, ``patch --source``, a
``[[mechanism]]`` entry's ``negative``), a time span (``--frames START-END``, ``--block-attention``, ``frames``)
and the random control's seed (``--control-seed``, ``control_seed``).

``patch --source mask:50-60`` on clips of 4-5 s masked nothing: the patched input was the clip itself, and the
table reported an intervention that changed 0 of 3 transcripts, as if the span did not matter; ``steer learn
--negative mask:3.9-5`` on a corpus where two of three clips end before 3.9 s learned from three pairs, two of
them a clip against itself, and said nothing. ``noise:nan`` made NaN noise (100% WER for the patch, exit 0),
``noise:10:-1`` passed ``audit --check`` and stopped with numpy's ``ValueError: expected non-negative integer``
once the baseline had run, and ``mask:-1-2`` read "could not convert string to float: ''". ``--frames 500-600``
(``steer induce|ablate``, ``patch``) and ``--block-attention 500-600`` acted on no frame (past Whisper's 30 s) and
reported interventions that changed 0 of 3 transcripts, as did ``patch --source corpus:M`` with ``M`` the
corpus's own manifest (or a copy of its audio): each clip patched from itself (``steer learn --negative-corpus``
with one clip copied: a direction learned from "3 pairs", one a clip against itself); ``--control-seed -1`` and ``control_seed = -1`` were
numpy's ``ValueError: expected non-negative integer`` (the spec's after every other stage of the audit). Now the
source is checked when it is parsed (the one parser all three share), a span against the clips' lengths (their
headers) before any model loads or runs, and a control seed with the arguments or the spec.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.errors import InputError
from asraudit.mechanism.experiment import parse_audio_source


@pytest.mark.parametrize("source, message", [
    ("noise:nan", "the SNR must be a finite number of dB, got nan"),
    ("noise:inf", "the SNR must be a finite number of dB, got inf"),
    ("noise:10:-1", "the seed must be an integer of at least 0, got -1"),
    ("noise:10:1.5", "the seed must be an integer of at least 0, got 1.5"),
    ("mask:-1-2", "mask:T0-T1 takes two times in seconds, 0 or more (mask:0.5-1.2)"),
    ("mask:nan-1", "mask:T0-T1 takes two times in seconds, 0 or more (mask:0.5-1.2)"),
    ("mask:1-1", "the span must end after it starts, in finite seconds, got [1, 1]"),
])
def test_a_source_value_that_poisons_or_empties_the_input_is_refused(source, message):
    with pytest.raises(InputError) as err:
        parse_audio_source(source)
    assert str(err.value) == f"bad audio source {source!r}: {message}"


def test_good_sources_still_parse():
    assert parse_audio_source("noise:-5:3").seed == 3
    mask = parse_audio_source("mask:0.5-1.2")
    assert (mask.t0, mask.t1) == (0.5, 1.2)


def _corpus(tmp_path, seconds=(1.0, 2.0)):
    import soundfile

    rng = np.random.default_rng(0)
    rows = []
    for i, s in enumerate(seconds):
        soundfile.write(tmp_path / f"n{i}.wav", (rng.standard_normal(int(16000 * s)) * 0.1).astype(np.float32), 16000)
        rows.append(json.dumps({"audio_filepath": f"n{i}.wav", "text": "x", "sentence": f"s{i}"}))
    (tmp_path / "c.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return tmp_path / "c.jsonl"



@pytest.fixture()
def tiny_en_whitebox():
    """The white-box tiny.en's requirements (torch, transformers, the embedded model); its conversion in the shared
    model cache, as the other white-box tests use it (a private cache per test converted it anew each time)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")

def test_steer_learn_refuses_a_mask_after_a_clips_end_before_the_model_loads(tmp_path, cli):
    corpus = _corpus(tmp_path)
    out = tmp_path / "d.safetensors"
    ran = cli("steer", "learn", "--model", tmp_path / "no-such-model", "--corpus", corpus, "--negative",
              "mask:1.5-1.8", "--layer", "0", "--out", out)
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: --negative 'mask:1.5-1.8': the span starts at 1.5 s, after the end of 1 of 2 clip(s) "
        "(first: 'n0.wav', 1.00 s), on which the masked input would be the clip itself: give a span inside every "
        "clip (seconds, not milliseconds), or leave the shorter clips out"])
    assert not out.exists()


def test_patch_refuses_a_mask_in_milliseconds_before_any_variant_runs(tmp_path, tiny_en_whitebox, cli):
    corpus = _corpus(tmp_path)
    store = tmp_path / "s.sqlite"
    ran = cli("patch", "--model", "whisper-tiny.en", "--corpus", corpus, "--source", "mask:500-1200", "--store",
              store, "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: --source 'mask:500-1200': the span starts at 500 s, after the end of 2 of 2 clip(s) "
        "(first: 'n0.wav', 1.00 s), on which the masked input would be the clip itself: give a span inside every "
        "clip (seconds, not milliseconds), or leave the shorter clips out"])
    assert not store.exists()  # not even the baseline ran


def _mechanism_spec(negative: str) -> dict:
    return {"corpus": {"manifest": "c.jsonl"},
            "model": [{"spec": "whisper-tiny.en", "panel": True}],
            "mechanism": [{"type": "steer", "model": "whisper-tiny.en", "layer": 0, "positive": "all",
                           "negative": negative, "holdout": 0, "ablate": "all"}]}


def test_an_audit_mechanism_negative_is_checked_with_the_spec_and_the_corpus(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit import load_corpus, parse_spec
    from asraudit.audit.mechanism import check_mechanism

    corpus = load_corpus(_corpus(tmp_path))
    with pytest.raises(InputError) as err:
        parse_spec(_mechanism_spec("noise:10:-1"), "a.toml", tmp_path)
    assert str(err.value) == ("a.toml: [[mechanism]] #1: negative: bad audio source 'noise:10:-1': the seed must "
                              "be an integer of at least 0, got -1")
    spec = parse_spec(_mechanism_spec("mask:1.5-1.8"), "a.toml", tmp_path)
    with pytest.raises(InputError) as err:
        check_mechanism(spec.mechanism, corpus.clips, "a.toml")
    assert str(err.value) == (
        "a.toml: [[mechanism]] #1: negative 'mask:1.5-1.8': the span starts at 1.5 s, after the end of 1 of 2 "
        "clip(s) (first: 'n0.wav', 1.00 s), on which the masked input would be the clip itself: give a span inside "
        "every clip (seconds, not milliseconds), or leave the shorter clips out")


@pytest.mark.parametrize("argv, what", [
    (("steer", "induce", "--direction", "D", "--frames", "500-600"), "--frames '500-600'"),
    (("steer", "ablate", "--direction", "D", "--frames", "1.5-1.8"), "--frames '1.5-1.8'"),
    (("patch", "--source", "silence", "--frames", "500-600"), "--frames '500-600'"),
    (("patch", "--block-attention", "500-600"), "--block-attention '500-600'"),
])
def test_a_span_past_a_clips_end_is_refused_before_any_variant_runs(tmp_path, tiny_en_whitebox, cli, argv, what):
    from asraudit.mechanism.steering import Direction

    corpus = _corpus(tmp_path)
    vector = np.ones(384, dtype=np.float32)
    direction = Direction(vector, (vector / np.linalg.norm(vector))[None, :], np.ones(1), 1).save(tmp_path / "d.st")
    store = tmp_path / "s.sqlite"
    argv = tuple(str(direction) if a == "D" else a for a in argv)
    ran = cli(*argv, "--model", "whisper-tiny.en", "--corpus", corpus, "--store", store, "--no-progress")
    start = what.split("'")[1].split("-")[0]
    n = 2 if start == "500" else 1
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {what}: the span starts at {start} s, after the end of {n} of 2 clip(s) (first: 'n0.wav', "
        "1.00 s), where it would act on no frame of the clip's audio: give a span inside every clip (seconds, not "
        "milliseconds), or leave the shorter clips out"])
    assert not store.exists()


def test_a_negative_control_seed_is_refused_with_the_arguments_and_the_spec(tmp_path, cli):
    with pytest.raises(SystemExit) as exit_:
        cli("steer", "induce", "--direction", tmp_path / "d.st", "--corpus", tmp_path, "--control-seed", "-1")
    assert exit_.value.code == 2
    from asraudit import parse_spec

    _corpus(tmp_path)
    with pytest.raises(InputError) as err:
        parse_spec({**_mechanism_spec("silence"),
                    "mechanism": [{**_mechanism_spec("silence")["mechanism"][0], "control_seed": -1}]}, "a.toml", tmp_path)
    assert str(err.value) == "a.toml: [[mechanism]] #1: control_seed must be at least 0, got -1"


def test_an_audit_mechanism_frames_span_is_checked_against_the_corpus(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from asraudit import load_corpus, parse_spec
    from asraudit.audit.mechanism import check_mechanism

    corpus = load_corpus(_corpus(tmp_path))
    data = _mechanism_spec("silence")
    data["mechanism"][0]["frames"] = "500-600"
    spec = parse_spec(data, "a.toml", tmp_path)
    with pytest.raises(InputError) as err:
        check_mechanism(spec.mechanism, corpus.clips, "a.toml")
    assert str(err.value) == (
        "a.toml: [[mechanism]] #1: frames '500-600': the span starts at 500 s, after the end of 2 of 2 clip(s) "
        "(first: 'n0.wav', 1.00 s), where it would act on no frame of the clip's audio: give a span inside every "
        "clip (seconds, not milliseconds), or leave the shorter clips out")


def test_a_per_clip_source_that_is_the_clip_itself_is_refused(tmp_path, tiny_en_whitebox, cli):
    corpus = _corpus(tmp_path)
    store = tmp_path / "s.sqlite"
    ran = cli("patch", "--model", "whisper-tiny.en", "--corpus", corpus, "--source", f"corpus:{corpus}", "--store",
              store, "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {corpus}: 2 of 2 clip(s) have a source with the same samples as the clip (first: "
        "'n0.wav'), on which the patch would exchange the layer with itself and change nothing: give a corpus of "
        "other audio under the same clip ids (re-voiced, masked...)"])
    assert not store.exists()


def test_a_learning_pair_of_a_clip_with_itself_is_refused(tmp_path, tiny_en_whitebox, cli):
    import shutil

    corpus = _corpus(tmp_path)
    (tmp_path / "neg").mkdir()
    negatives = _corpus(tmp_path / "neg", seconds=(1.0, 1.5))  # other noise under the same clip ids
    shutil.copy(tmp_path / "n0.wav", tmp_path / "neg" / "n0.wav")  # ... but n0's negative is n0 itself
    out = tmp_path / "d.safetensors"
    ran = cli("steer", "learn", "--model", "whisper-tiny.en", "--corpus", corpus, "--negative-corpus", negatives,
              "--layer", "0", "--out", out)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {negatives}: 1 of 2 pair(s) have a negative with the same samples as the clip (first: "
        "'n0.wav'), which would pair the clip with itself: give a corpus of other audio under the same clip ids"])
    assert not out.exists()
