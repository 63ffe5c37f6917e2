"""Case 305: `asraudit battery` (and the audit's battery stage) with λ or masked recovery read on a clip whose own
audio is silence (a file that lost its audio, a manifest row naming the wrong file).  Case 303 refused it for `lift`
and `mask`; the battery read λ under the original condition as 0 by construction, and under noise (set against the
clip's level: silence stays silence), reverb or a codec too, each change from the original as 0, exit 0.  Now the
original clip is checked before any model loads, with `data.clip.refuse_silent_audio`; a battery that reads only
accept-ref (transcripts) does not decode it."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

FIX = ("the battery reads λ and masked recovery on the clip's own audio under every condition but revoice (noise is "
       "set against its level, a splice only adds a donor's audio), so every λ on it would be 0 by construction and "
       "its targets not recovered: check its audio file, or leave its edits and targets out")


@pytest.fixture()
def folder(tmp_path):
    t = np.arange(16_000) / 16_000
    sf.write(tmp_path / "a.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
    sf.write(tmp_path / "z.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    rows = [{"audio_filepath": f"{n}.wav", "text": "the cat sat on the mat"} for n in "az"]
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "e.jsonl").write_text("".join(
        json.dumps({"clip": f"{n}.wav", "ref_start": 1, "ref_end": 2, "r": "cat", "a": "hat"}) + "\n" for n in "az"),
        encoding="utf-8")
    return tmp_path


def _battery(cli, folder, monkeypatch, probes):
    import asraudit.commands.battery as battery

    def no_model(args):
        raise RuntimeError("a model was loaded")

    monkeypatch.setattr(battery, "load_models", no_model)
    spec = folder / "b.toml"
    spec.write_text(f"probes = {json.dumps(probes)}\n[[condition]]\nname = \"original\"\n"
                    "[[condition]]\nname = \"x\"\ntype = \"noise\"\nsnr_db = 10\n", encoding="utf-8")
    return cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", folder / "m.jsonl",
               "--edits", folder / "e.jsonl", "--no-mask", "--out", folder / "out", "--no-progress",
               "--bootstrap", "10")


@pytest.mark.parametrize("probes", [["lift"], ["accept-ref", "lift"]])
def test_lift_on_a_silent_clip_is_refused_before_any_model_loads(cli, folder, monkeypatch, probes):
    ran = _battery(cli, folder, monkeypatch, probes)
    assert (ran.code, ran.out) == (2, "")
    assert ran.error_lines == [f"asraudit: error: {folder / 'm.jsonl'}, row 2: clip 'z.wav': its audio is digital "
                               f"silence (every sample 0), and {FIX}"]
    assert not (folder / "out" / "asraudit.sqlite").exists()


def test_accept_ref_alone_does_not_read_the_audio(cli, folder, monkeypatch):
    """Transcripts of silence are a reading like any other (case 303 left `transcribe` alone): the battery goes on
    to load its models."""
    with pytest.raises(RuntimeError, match="a model was loaded"):
        _battery(cli, folder, monkeypatch, ["accept-ref"])


def test_the_check_is_in_the_battery_run_the_audit_calls(folder):
    """`measure_battery` (the audit's battery stage) runs the same check before its first condition."""
    from asraudit.data.corpus import load_corpus
    from asraudit.errors import InputError
    from asraudit.probes.battery import parse_spec
    from asraudit.probes.battery_run import BatteryInputs, check_clip_conditions
    from asraudit.probes.lift_run import EditItem

    corpus = load_corpus(str(folder / "m.jsonl"))
    spec = parse_spec({"probes": ["lift"], "condition": [{"name": "original"}]}, "b.toml")
    item = EditItem("e1", "z.wav", "substitute", "interior", ("the", "cat", "sat"), 1, 2, ("hat",))
    with pytest.raises(InputError, match="clip 'z.wav': its audio is digital silence"):
        check_clip_conditions(spec, BatteryInputs(corpus, [item], [], {}, {}, {}))


def test_a_battery_of_revoicing_only_reads_no_clip_audio(folder):
    """Re-voicing speaks the clip's text anew (and applies to no masked target): the clip's own audio is not read."""
    from asraudit.data.corpus import load_corpus
    from asraudit.probes.battery import parse_spec
    from asraudit.probes.battery_run import BatteryInputs, check_clip_conditions
    from asraudit.probes.lift_run import EditItem

    corpus = load_corpus(str(folder / "m.jsonl"))
    spec = parse_spec({"probes": ["lift"], "condition": [{"name": "v", "type": "revoice", "engine": "espeak-ng"}]},
                      "b.toml")
    item = EditItem("e1", "z.wav", "substitute", "interior", ("the", "cat", "sat"), 1, 2, ("hat",))
    check_clip_conditions(spec, BatteryInputs(corpus, [item], [], {}, {"z.wav": "the cat sat"}, {}))


def test_an_audits_battery_section_refuses_it_through_the_audit(cli, folder, monkeypatch):
    """The path a user takes: an audit of an audio corpus whose panel (replayed prediction files, no model loads)
    mines an edit on each clip, with a [battery] of λ; the battery stage stops at the silent clip and the earlier
    stages' results stay in ``out``."""
    monkeypatch.chdir(folder)
    models = ""
    for i in range(3):
        (folder / f"p{i}.jsonl").write_text("".join(json.dumps(
            {"audio_filepath": f"{n}.wav", "text": "the cat sat on the mat", "pred_text": "the hat sat on the mat"})
            + "\n" for n in "az"), encoding="utf-8")
        models += f'[[model]]\nname = "p{i}"\npredictions = "p{i}.jsonl"\npanel = true\n\n'
    (folder / "b.toml").write_text('probes = ["lift"]\n[[condition]]\nname = "original"\n[[condition]]\nname = "x"\n'
                                   'type = "noise"\nsnr_db = 10\n', encoding="utf-8")
    (folder / "audit.toml").write_text(f'name = "t"\nout = "out"\nbootstrap = 10\n[corpus]\nmanifest = "m.jsonl"\n\n'
                                       f'{models}[battery]\nspec = "b.toml"\nmask = false\n[report]\nalign = "none"\n',
                                       encoding="utf-8")
    ran = cli("audit", "audit.toml", "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == ["asraudit: error: audit stage 'battery' stopped (results so far are in out): m.jsonl, "
                               "row 2: clip 'z.wav': its audio is digital silence (every sample 0), and " + FIX]
    assert (folder / "out" / "asraudit.sqlite").is_file()
