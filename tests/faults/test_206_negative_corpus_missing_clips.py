"""Case 206: `steer learn --negative-corpus` given a negative corpus that lacks some of `--corpus`'s clip ids.

The pairs were matched by id and the clips without a negative dropped without a word: the direction was learned
from the pairs there were and the output said only how many (`2 pairs`), exit 0.  `patch --source corpus:PATH`
refused the same mismatch (case 204).  Now `steer learn` refuses it too, in one line naming the negative corpus, the
count and the first clip without a negative, before the model loads.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    import soundfile as sf

    from asraudit.commands import steer

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(steer, "load_whitebox", lambda args: pytest.fail("the model loaded"))
    t = np.arange(16_000) / 16_000
    rows = []
    for i, name in enumerate(("a.wav", "b.wav", "c.wav")):
        sf.write(name, (0.3 * np.sin(2 * np.pi * 220 * (i + 1) * t)).astype(np.float32), 16_000)
        rows.append(json.dumps({"audio_filepath": name, "text": "a tone"}))
    (tmp_path / "m.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (tmp_path / "neg").mkdir()
    sf.write(tmp_path / "neg" / "a.wav", np.zeros(16_000, np.float32), 16_000)
    (tmp_path / "neg" / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "x"}) + "\n")
    return tmp_path


def test_a_negative_corpus_missing_clips_is_refused_before_the_model_loads(folder, cli):
    ran = cli("steer", "learn", "--corpus", "m.jsonl", "--negative-corpus", "neg/m.jsonl", "--layer", "1",
              "--out", "d.safetensors")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: neg/m.jsonl: 2 of 3 clip(s) of --corpus have no negative with the same id (first: 'b.wav'); "
        "pairs are matched by clip id: give each clip its negative, or leave those clips out of --corpus"])
    assert not (folder / "d.safetensors").exists()


def test_a_negative_corpus_sharing_no_id_is_refused_with_its_count(folder, cli):
    (folder / "neg" / "m.jsonl").write_text(json.dumps({"audio_filepath": "z.wav", "text": "x"}) + "\n")
    import shutil

    shutil.copy(folder / "neg" / "a.wav", folder / "neg" / "z.wav")
    ran = cli("steer", "learn", "--corpus", "m.jsonl", "--negative-corpus", "neg/m.jsonl", "--layer", "1",
              "--out", "d.safetensors")
    assert (ran.code, ran.error_lines) == (2, [
        "asraudit: error: neg/m.jsonl: 3 of 3 clip(s) of --corpus have no negative with the same id (first: 'a.wav'); "
        "pairs are matched by clip id: give each clip its negative, or leave those clips out of --corpus"])


def test_a_negative_for_every_clip_goes_on_to_the_model(folder, cli, monkeypatch):
    import shutil

    from asraudit.commands import steer

    class Loaded(Exception):
        pass

    def loaded(args):
        raise Loaded

    rows = []
    for name in ("a.wav", "b.wav", "c.wav", "extra.wav"):  # a negative corpus may hold more clips than --corpus
        if name != "a.wav":
            shutil.copy(folder / "neg" / "a.wav", folder / "neg" / name)
        rows.append(json.dumps({"audio_filepath": name, "text": "x"}))
    (folder / "neg" / "m.jsonl").write_text("\n".join(rows) + "\n")
    monkeypatch.setattr(steer, "load_whitebox", loaded)
    with pytest.raises(Loaded):
        cli("steer", "learn", "--corpus", "m.jsonl", "--negative-corpus", "neg/m.jsonl", "--layer", "1",
            "--out", "d.safetensors")
