"""Case 230: an output of a model-running command named after one of the corpus's audio files.

``translate --out a.wav`` (or ``--json``, ``--store``; ``lift --out``,
``score --out``) where ``a.wav`` is a clip of ``--corpus``: the outputs were
checked against the files the command line names (case 31: the manifest,
``--edits``, ``--texts``), not against the audio files the manifest names,
so the run went ahead and replaced the clip's audio with its outcome rows,
exit 0 (measured with whisper-base: ``wrote a.wav (0 row(s))``, the WAV gone).
Now the outputs are checked against the clips' audio once the corpus is
read, before any model loads; a link to the audio is the audio.
"""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf


def inputs(tmp_path):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "we agree"}) + "\n",
                                      encoding="utf-8")
    (tmp_path / "edits.jsonl").write_text(json.dumps({"edit_id": "e0", "clip": "a.wav", "kind": "delete",
                                                      "position": "start", "ref_start": 0, "ref_end": 1, "r": "we",
                                                      "a": ""}) + "\n", encoding="utf-8")
    return (tmp_path / "a.wav").read_bytes()


def test_outputs_over_a_clips_audio_are_refused_before_any_model_loads(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    audio = inputs(tmp_path)
    (tmp_path / "link.wav").symlink_to("a.wav")
    translate = ["translate", "--model", tmp_path / "no-such-model", "--corpus", "m.jsonl", "--edits", "edits.jsonl",
                 "--target", "es", "--no-progress"]
    for extra, said in ((["--out", "a.wav"], "a.wav: --out"),
                        (["--out", "t.jsonl", "--json", "a.wav"], "a.wav: --json"),
                        (["--out", "t.jsonl", "--store", "a.wav"], "a.wav: the result store"),
                        (["--out", "link.wav"], "link.wav: --out")):
        ran = cli(*translate, *extra)
        assert ran.code == 2 and ran.error_lines == [
            f"asraudit: error: {said} would overwrite the audio of clip 'a.wav', an input: write it to another file"]
    ran = cli("lift", "--model", tmp_path / "no-such-model", "--corpus", "m.jsonl", "--edits", "edits.jsonl",
              "--out", "a.wav")
    assert ran.error_lines == ["asraudit: error: a.wav: --out would overwrite the audio of clip 'a.wav', an input: "
                               "write it to another file"]
    assert (tmp_path / "a.wav").read_bytes() == audio
    assert not (tmp_path / "t.jsonl").exists()


def test_outputs_beside_the_audio_still_go_on_to_the_models(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    inputs(tmp_path)
    (tmp_path / "t.jsonl").write_text("an earlier run's rows\n", encoding="utf-8")  # there: looked up, not audio
    ran = cli("translate", "--model", tmp_path / "no-such-model", "--corpus", "m.jsonl", "--edits", "edits.jsonl",
              "--target", "es", "--no-progress", "--out", "t.jsonl")
    assert ran.code == 2 and len(ran.error_lines) == 1 and "no-such-model" in ran.error_lines[0]
