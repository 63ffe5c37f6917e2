"""Case 208: an audit's encoder steer entry learning from splice pairs (`splice = { other = ... }`) whose clip is
within the model's window but whose clip plus the donor audio spliced onto it is not (a 25-s clip and an 8-s
benchmark donor: 33 s, past Whisper's 30).

Case 205 checked the learning clips' own lengths: `audit --check` passed, and the encoder pooled the first 30 s of
each spliced input without a word (an appended donor cut, the very audio the splice pair contrasts).  Now the
spliced inputs are measured from the clips' and donors' headers (`splice_pairs.splice_lengths`, the donors chosen
as the learning chooses them) and refused in one line naming the clip and its donor, before any model loads; the
sweeps' `paired_differences` checks the loaded model's window as `learn_direction` does.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.errors import InputError

pytest.importorskip("torch")
pytest.importorskip("transformers")


def _corpus(tmp_path, clip_seconds=25, donor_seconds=8):
    import soundfile as sf

    rng = np.random.default_rng(0)

    def write(path, seconds):
        sf.write(path, (0.1 * rng.standard_normal(int(16_000 * seconds))).astype(np.float32), 16_000)

    write(tmp_path / "clip.wav", clip_seconds)
    write(tmp_path / "short.wav", 3)
    write(tmp_path / "d1.wav", donor_seconds)
    rows = [("clip.wav", "one", "a"), ("short.wav", "two", "a"), ("d1.wav", "three", "b")]
    (tmp_path / "c.jsonl").write_text("".join(json.dumps({"audio_filepath": n, "text": t, "accent": a}) + "\n"
                                              for n, t, a in rows), encoding="utf-8")
    (tmp_path / "o").mkdir()
    for i in range(3):
        write(tmp_path / "o" / f"o{i}.wav", 2)
    (tmp_path / "o" / "m.jsonl").write_text("".join(json.dumps({"audio_filepath": f"o{i}.wav", "text": f"other {i}"})
                                                    + "\n" for i in range(3)), encoding="utf-8")


def _entry(**change):
    return {"type": "steer", "model": "whisper-tiny.en", "layer": 0, "positive": {"field": "accent", "values": ["a"]},
            "holdout": 0, "splice": {"other": "corpus:o/m.jsonl", "donors": {"field": "accent", "values": ["b"]}},
            "ablate": "all", **change}


def _plans(tmp_path, entry):
    from asraudit import load_corpus, parse_spec
    from asraudit.audit.mechanism import check_mechanism

    corpus = load_corpus(tmp_path / "c.jsonl")
    spec = parse_spec({"corpus": {"manifest": "c.jsonl"}, "model": [{"spec": "whisper-tiny.en", "panel": True}],
                       "mechanism": [entry]}, "a.toml", tmp_path)
    return corpus, check_mechanism(spec.mechanism, corpus.clips, "a.toml")


def test_a_spliced_input_past_the_window_is_refused_by_check(tmp_path):
    _corpus(tmp_path)
    with pytest.raises(InputError) as caught:
        _plans(tmp_path, _entry())
    assert str(caught.value) == (
        "a.toml: [[mechanism]] #1: 1 of 2 learning pair(s) hold an input longer than the 30 s the model encodes in "
        "one pass (first: 'clip.wav + benchmark donor d1.wav', 33.00 s): a direction pooled over frames 'audio' would "
        "be learned from the first 30 s of it only: leave the longer clips out, cut them into clips of at most 30 s, "
        "or pool a span of frames")


def test_the_headers_give_the_lengths_the_learning_splices(tmp_path):
    from asraudit.mechanism.splice_pairs import splice_audio_pairs, splice_lengths

    _corpus(tmp_path, clip_seconds=20)  # within the window once spliced: the check passes
    corpus, (plan,) = _plans(tmp_path, _entry())
    spec = plan.spec
    donors = spec.splice.donors.select(list(corpus.clips))
    decoded = [max(len(a), len(b)) / 16_000 for a, b in splice_audio_pairs(plan.learn, donors, spec.splice)]
    measured = splice_lengths(plan.learn, donors, spec.splice)
    assert [label for label, _ in measured] == ["clip.wav + benchmark donor d1.wav",
                                                "short.wav + benchmark donor d1.wav"]
    assert [seconds for _, seconds in measured] == pytest.approx(decoded, abs=1e-6)
    assert decoded == pytest.approx([28.0, 11.0])


def test_a_span_of_frames_still_passes(tmp_path):
    _corpus(tmp_path)
    _plans(tmp_path, _entry(frames="1-2"))


class _Stub:
    """A white-box model of a 1-s window whose encoder must not run."""

    window_seconds = 1.0

    def intervention_sites(self):
        from types import SimpleNamespace

        return SimpleNamespace(encoder_layers=[object(), object()])

    def encoder_activations(self, audio, layers):
        pytest.fail("the encoder ran on an input longer than the window")


def test_the_sweeps_check_the_loaded_models_window():
    from asraudit.mechanism.paired_states import paired_differences

    pairs = [(np.zeros(24_000, np.float32), np.zeros(8_000, np.float32))]
    with pytest.raises(InputError) as caught:
        paired_differences(_Stub(), pairs, [0], labels=["clip.wav vs splice"])
    assert str(caught.value).startswith("1 of 1 learning pair(s) hold an input longer than the 1 s the model encodes "
                                        "in one pass (first: 'clip.wav vs splice', 1.50 s)")
