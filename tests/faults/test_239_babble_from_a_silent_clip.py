"""Case 239: babble noise drawing a clip of digital silence (a blank recording) from the corpus.

Babble sums ``donors`` other clips of the corpus, each brought to equal power; a clip of zeros has none, so
``Noise`` dropped it from the sum: babble of ``donors = 1`` that drew it was no noise at all (the clip left as it
was, the condition measuring the original under its name), babble of more donors one voice fewer, without a
word.  Now a silent clip is passed over and the shuffle's next clip takes its place (no other choice changes),
and a corpus that holds fewer clips with sound than ``donors`` is one line saying how many it holds.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.data.corpus import load_corpus
from asraudit.errors import InputError
from asraudit.probes.battery import Channels, parse_spec


@pytest.fixture()
def corpus(tmp_path):
    rng = np.random.default_rng(0)
    rows = []
    for i, text in enumerate(("the cat sat on the mat", "a dog ran in the park", "blank recording", "a bird sang")):
        audio = np.zeros(48_000, np.float32) if i == 2 else (0.05 * rng.standard_normal(48_000)).astype(np.float32)
        sf.write(tmp_path / f"z{i}.wav", audio, 16_000)
        rows.append({"audio_filepath": f"z{i}.wav", "text": text})
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return load_corpus(tmp_path / "m.jsonl")


def _channels(corpus, donors):
    spec = parse_spec({"condition": [{"name": "b", "type": "noise", "snr_db": 0, "kind": "babble",
                                      "donors": donors}]}, "b.toml")
    return Channels(spec.conditions[0], corpus, {c.id: c.reference for c in corpus}, {}, {})


@pytest.mark.parametrize("donors", [1, 2])
def test_babble_never_draws_the_silent_clip(corpus, donors):
    channels = _channels(corpus, donors)
    for clip in corpus:
        if clip.id == "z2.wav":
            continue
        condition = channels.for_clip(clip.id).condition
        assert "z2.wav" not in condition.donor_ids and len(condition.donor_ids) == donors
        audio = clip.decode()
        assert not np.array_equal(condition(audio), audio)  # noise was added


def test_fewer_clips_with_sound_than_donors_is_one_line(corpus):
    with pytest.raises(InputError) as err:
        _channels(corpus, 3).for_clip("z0.wav")
    assert str(err.value) == ("babble of 3 donor(s) for clip 'z0.wav': donor source 'benchmark' holds 2 clip(s) "
                              "with sound that say something else than the clip (silent: 'z2.wav'): give donors = 2 "
                              "or fewer")
