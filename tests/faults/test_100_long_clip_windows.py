"""Case 100: a clip just over 30 s, and words at a window's edge.

Clips longer than a model's window (Whisper's 30 s) were cut into
consecutive full windows, the last holding whatever was left: a 30.4-s clip
ended in a 0.4-s window of its trailing silence, which whisper-tiny.en
transcribed as "you", an insertion appended to every clip just over 30 s
(LibriSpeech has clips up to 35 s).  The cut at a fixed sample also split
the word under it: "prudently" at 30.0 s came out "prudence.".  Exit 0 both
times; the WER counted asraudit's cut as the model's errors.

A 70-s clip whose last 30 s are digital silence ended in a whole window of
it: "you" again.

Long clips are now cut into windows of near-equal length, each cut at the
quietest 100 ms within 5 s of the equal split, and a window of digital
silence cut from a clip that holds sound elsewhere is not decoded.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.models.whisper_frontend import N_SAMPLES, split_windows

ORDER = ("0870", "0880", "0890", "0920", "0930")


def _words(text: str) -> list[str]:
    return "".join(c if c.isalnum() or c == " " else " " for c in text.lower()).split()


def test_clips_just_over_30_s_get_no_invented_words(tmp_path, cli, librivox, librivox_audio):
    by_id = {c.clip_id.rsplit("-", 1)[1]: c for c in librivox}
    speech = [librivox_audio[by_id[k].clip_id] for k in ORDER]
    said = [by_id[k].transcript for k in ORDER]
    # 27.7 s of speech then digital silence to 30.4 s: the old last window was 0.4 s of silence.
    tail = np.concatenate(speech + [speech[1]])
    tail = np.concatenate([tail, np.zeros(int(30.4 * 16_000) - len(tail), np.float32)])
    # 31.8 s: the old cut at 30.0 s fell inside "prudently" of the repeated first sentence.
    straddle = np.concatenate(speech + [speech[0]])
    # 40 s of speech, then 30 s of digital silence: a window of silence whatever the cut.
    silent = np.concatenate(speech * 2)[: 40 * 16_000]
    silent = np.concatenate([silent, np.zeros(30 * 16_000, np.float32)])
    rows = []
    for name, audio, text in (("tail.wav", tail, said + [said[1]]), ("straddle.wav", straddle, said + [said[0]]),
                              ("silent.wav", silent, said)):
        sf.write(tmp_path / name, audio, 16_000, subtype="PCM_16")
        rows.append(json.dumps({"audio_filepath": name, "text": " ".join(text)}) + "\n")
    (tmp_path / "m.jsonl").write_text("".join(rows), encoding="utf-8")

    ran = cli("transcribe", "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl", "--out", tmp_path / "o",
              "--no-progress")
    assert ran.code == 0 and ran.error_lines == []
    got = {r["audio_filepath"]: _words(r["pred_text"])
           for r in map(json.loads, (tmp_path / "o" / "whisper-tiny.en.jsonl").read_text(encoding="utf-8").splitlines())}
    assert got["tail.wav"][-4:] == ["ill", "disposed", "young", "man"]  # was [..., "young", "man", "you"]
    assert got["straddle.wav"].count("prudently") == 2  # was once: the second cut into "prudence"
    assert got["straddle.wav"][-4:] == ["to", "do", "for", "them"]
    assert got["silent.wav"][-1] != "you" and got["silent.wav"].count("you") == 0

    for audio in (tail, straddle):
        windows = split_windows(audio)
        assert len(windows) == 2 and min(len(w) for w in windows) >= N_SAMPLES // 6
        assert np.array_equal(np.concatenate(windows), audio)


def test_results_stored_under_the_earlier_cut_are_not_reused():
    """A long clip's transcript changed with the cut, and stored results are keyed by the model's config hash:
    the hash of every windowing backend holds the rule (``whisper_frontend.WINDOWING``), so a store written
    before recomputes instead of answering with the old windows' transcript."""
    import hashlib
    import json
    from dataclasses import asdict

    from asraudit.models import embedded
    from asraudit.models.registry import load_model

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en")
    model = load_model("whisper-tiny.en")
    earlier = {"backend": model.backend, "weights": model._fingerprint, "compute_type": model.compute_type,
               "options": asdict(model.options)}  # the settings hashed before the windowing rule was added
    assert model.config_hash != hashlib.sha256(json.dumps(earlier, sort_keys=True).encode()).hexdigest()[:16]
