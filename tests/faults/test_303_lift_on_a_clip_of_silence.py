"""Case 303: `asraudit lift` with an edit on a clip whose audio is silence (a file that lost its audio in a
conversion, a manifest row naming the wrong file).  λ compares the clip with silence of its length, so every λ on
it was 0 by construction: `+0.000 [+0.000, +0.000]`, `λ(r)>0 0%`, the very reading the command's docs give for
"the prior wrote it", exit 0, no word.  Now the clips with edits are decoded before any model loads and a silent
one is refused naming its manifest row (digital silence, or an RMS below -80 dBFS, the level the audio readers
already take for silence).  `mask` the same for a target on such a clip (`--recipe`, or an aligner that times
words in silence): it read as not recovered, λ masked and clean as +0.000."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from conftest import cat_hat_edits

FIX = ("and lift compares a clip with silence of its length, so every λ on it would be 0 by construction, as if the "
       "prior wrote the reference: check its audio file, or leave its edits out")


@pytest.fixture()
def folder(tmp_path):
    t = np.arange(16_000) / 16_000
    sf.write(tmp_path / "a.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
    sf.write(tmp_path / "z.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    sf.write(tmp_path / "q.wav", (1e-5 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000, subtype="FLOAT")
    rows = [{"audio_filepath": f"{n}.wav", "text": "the cat sat on the mat"} for n in "azq"]
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return tmp_path


def _lift(cli, folder, edits):
    return cli("lift", "--model", "whisper-tiny.en", "--corpus", folder / "m.jsonl", "--edits", edits,
               "--out", folder / "out" / "lift.jsonl", "--bootstrap", "20", "--no-progress")


@pytest.mark.parametrize("clip, row, level", [("z.wav", 2, "digital silence (every sample 0)"),
                                              ("q.wav", 3, "silence (RMS -103 dBFS)")])
def test_an_edit_on_a_silent_clip_is_refused_before_any_model_loads(cli, folder, monkeypatch, clip, row, level):
    import asraudit.commands.lift as lift

    def no_model(args):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(lift, "load_models", no_model)
    ran = _lift(cli, folder, cat_hat_edits(folder, ["a.wav", clip]))
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {folder / 'm.jsonl'}, row {row}: clip {clip!r}: its audio is "
                               f"{level}, {FIX}"]
    assert not (folder / "out").exists()


def test_a_silent_clip_without_edits_is_not_read(cli, folder):
    ran = _lift(cli, folder, cat_hat_edits(folder, ["a.wav"]))
    assert ran.code == 0, ran.err
    [row] = [json.loads(line) for line in (folder / "out" / "lift.jsonl").read_text(encoding="utf-8").splitlines()]
    assert row["clip"] == "a.wav" and row["lift_r"] != 0.0


def test_a_mask_target_on_a_silent_clip_is_refused_before_any_model_loads(cli, folder, monkeypatch):
    """`mask --recipe` on the clip of silence: its target read as not recovered and λ masked and clean as
    +0.000, exit 0."""
    import asraudit.commands.mask as mask

    def no_model(args):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(mask, "load_models", no_model)
    recipe = folder / "r.jsonl"
    recipe.write_text(json.dumps({"audio_filepath": "z.wav", "t0": 0.3, "t1": 0.5, "word": "cat"}) + "\n",
                      encoding="utf-8")
    ran = cli("mask", "--model", "whisper-tiny.en", "--corpus", folder / "m.jsonl", "--recipe", recipe,
              "--out", folder / "out", "--no-progress")
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [
        f"asraudit: error: {folder / 'm.jsonl'}, row 2: clip 'z.wav': its audio is digital silence (every sample 0), "
        "and masking hides a word of a clip under silence and λ compares the clip with silence, so its targets would "
        "read as not recovered and every λ on them as 0 by construction: check its audio file, or leave its targets "
        "out"]
    assert not (folder / "out" / "mask_outcomes.jsonl").exists()
