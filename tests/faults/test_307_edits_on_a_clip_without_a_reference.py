"""Case 307: `lift` (and `battery`, `translate --edits`) on a folder corpus where the clip an edit is on has no
`.txt` beside its audio (the transcripts kept in another folder, one file lost), or a manifest row without text.
The clip is in the corpus, but the edits were matched against the clips that have a reference only: with every
edit on such clips, `none of its 1 edit(s) is on a clip of the corpus (e.g. 'b.wav'): edits and corpus of different
benchmarks, or clip ids written differently?`, wrong on both counts; with some, a warning `1 edit(s) on clips outside
the corpus left out` and a λ over the other edits, exit 0.  Now the edit's clip is found in the corpus and refused
for what it lacks, naming the edits row, before any model loads (`probes.lift_run.load_edits`)."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from conftest import cat_hat_edits

LINE = ("clip 'b.wav' is in the corpus but has no reference text, and an edit is checked against its clip's "
        "reference and applied to it: give the clip its reference (in a folder corpus a .txt file of the audio's "
        "name beside it; in a manifest its text field), or leave its edits out")


@pytest.fixture()
def folder(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    t = np.arange(16_000) / 16_000
    for name in "ab":
        sf.write(corpus / f"{name}.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
    (corpus / "a.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("clips, row", [(["b.wav"], 1), (["a.wav", "b.wav"], 2)])
def test_an_edit_on_a_clip_without_a_reference_is_refused(cli, folder, monkeypatch, clips, row):
    import asraudit.commands.lift as lift

    def no_model(args):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(lift, "load_models", no_model)
    edits = cat_hat_edits(folder, clips)
    ran = cli("lift", "--model", "whisper-tiny.en", "--corpus", folder / "corpus", "--edits", edits,
              "--out", folder / "out" / "lift.jsonl", "--no-progress")
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {edits}, row {row}: {LINE}"]
    assert "outside the corpus" not in ran.err


def test_battery_reads_its_edits_the_same_way(cli, folder):
    edits = cat_hat_edits(folder, ["b.wav"])
    # A spec of no synthetic speech: the paper's battery asks for espeak-ng before it reads the edits, and a
    # machine without it stopped there, before the line this case is about.
    spec = folder / "noise.toml"
    spec.write_text('[[condition]]\nname = "original"\n[[condition]]\nname = "noise"\ntype = "noise"\nsnr_db = 10\n',
                    encoding="utf-8")
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", folder / "corpus",
              "--edits", edits, "--no-mask", "--out", folder / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {edits}, row 1: {LINE}"]


def test_an_edit_on_a_clip_outside_the_corpus_is_still_left_out(tmp_path):
    from asraudit.probes.lift_run import load_edits

    skipped: list = []
    items = load_edits(cat_hat_edits(tmp_path, ["a.wav", "z.wav"]), {"a.wav": "the cat sat on the mat"}, str.lower,
                       skipped=skipped, clip_ids={"a.wav", "b.wav"})
    assert [i.clip_id for i in items] == ["a.wav"] and skipped == ["z.wav"]
