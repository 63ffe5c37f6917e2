"""Case 257: what a battery's conditions need of the probed clips, checked before any model runs.

A ``revoice`` condition over a clip whose text holds a NUL character (case 236 made it one line), and babble
noise where fewer clips have sound than its ``donors`` (case 239 made it one line), were found only when the
battery reached the condition: the models had run every condition before it (all of ``original``, its store
rows the only thing kept), then the run stopped.  ``check_benchmark_donors`` and ``check_donor_seconds`` already
checked the other donor problems first.  Now both are refused before the models load (``asraudit battery``) or
before the first condition runs (``measure_battery``, the audit's battery stage), naming the condition."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import soundfile as sf

from asraudit.data.corpus import load_corpus
from asraudit.errors import InputError
from asraudit.probes.battery import parse_spec
from asraudit.probes.battery_run import BatteryInputs, check_clip_conditions, measure_battery
from asraudit.probes.lift_run import EditItem


def _corpus(tmp, texts, silent=()):
    rng = np.random.default_rng(0)
    rows = []
    for i, text in enumerate(texts):
        audio = np.zeros(16_000, np.float32) if i in silent else (0.05 * rng.standard_normal(16_000)).astype("float32")
        sf.write(tmp / f"z{i}.wav", audio, 16_000)
        rows.append({"audio_filepath": f"z{i}.wav", "text": text, "spoken": text})
    manifest = tmp / "m.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    edits = tmp / "e.jsonl"
    edits.write_text("".join(json.dumps({"clip": r["audio_filepath"], "ref_start": 0, "ref_end": 1,
                                         "r": r["text"].split()[0], "a": "x"}) + "\n" for r in rows[:1]),
                     encoding="utf-8")
    return manifest, edits


def _spec(tmp, condition):
    spec = tmp / "b.toml"
    spec.write_text('probes = ["accept-ref"]\n[[condition]]\nname = "original"\n[[condition]]\nname = "x"\n'
                    + condition, encoding="utf-8")
    return spec


def _not_run(cli, tmp, manifest, edits, spec, *extra):
    # a model that cannot load: reaching it would be a different line, so the check must come first
    return cli("battery", "--spec", spec, "--model", "whisper-nonexistent-model", "--corpus", manifest,
               "--edits", edits, "--no-mask", *extra, "--out", tmp / "out", "--no-progress", "--bootstrap", "10")


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (re-voicing asks for it first)")
def test_a_revoiced_text_holding_a_nul_is_refused_before_any_model(tmp_path, cli):
    manifest, edits = _corpus(tmp_path, ["the cat\u0000 sat", "a dog ran"])
    spec = _spec(tmp_path, 'type = "revoice"\n')
    ran = _not_run(cli, tmp_path, manifest, edits, spec, "--text-field", "spoken")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [[condition]] #2 (x): re-voicing speaks clip 'z0.wav''s text 'the cat\\x00 sat', "
        "which holds a NUL character, and no TTS engine can be given one: remove it from the text"])
    assert not (tmp_path / "out" / "asraudit.sqlite").exists()


def test_babble_short_of_donors_with_sound_is_refused_before_any_model(tmp_path, cli):
    manifest, edits = _corpus(tmp_path, ["the cat sat", "a dog ran", "blank recording", "a bird sang"], silent={2})
    spec = _spec(tmp_path, 'type = "noise"\nkind = "babble"\ndonors = 3\nsnr_db = 0\n')
    ran = _not_run(cli, tmp_path, manifest, edits, spec)
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: [[condition]] #2 (x): babble of 3 donor(s) for clip 'z0.wav': donor source "
        "'benchmark' holds 2 clip(s) with sound that say something else than the clip (silent: 'z2.wav'): give "
        "donors = 2 or fewer"])
    assert not (tmp_path / "out" / "asraudit.sqlite").exists()


def test_babble_with_enough_donors_passes_and_keeps_no_audio(tmp_path):
    manifest, _ = _corpus(tmp_path, ["the cat sat", "a dog ran", "blank recording", "a bird sang"], silent={2})
    corpus = load_corpus(manifest)
    spec = parse_spec({"condition": [{"name": "b", "type": "noise", "kind": "babble", "donors": 2, "snr_db": 0}]},
                      "b.toml")
    said = {c.id: c.reference for c in corpus}
    inputs = BatteryInputs(corpus, [EditItem("e", "z0.wav", "replace", "start", ("the",), 0, 1, ("x",))], [], said, said)
    check_clip_conditions(spec, inputs)  # z1, z3 have sound: no error


def test_measure_battery_checks_before_the_first_condition(tmp_path):
    manifest, _ = _corpus(tmp_path, ["the cat sat", "a dog ran", "blank recording"], silent={2})
    corpus = load_corpus(manifest)
    spec = parse_spec({"condition": [{"name": "original"}, {"name": "b", "type": "noise", "kind": "babble",
                                                            "donors": 2, "snr_db": 0}]}, "b.toml")
    said = {c.id: c.reference for c in corpus}
    inputs = BatteryInputs(corpus, [EditItem("e", "z0.wav", "replace", "start", ("the",), 0, 1, ("x",))], [], said, said)

    class NoModel:  # any model call would fail the test: the check must come first
        def __getattr__(self, name):
            raise AssertionError(f"a model was used ({name})")

    with pytest.raises(InputError) as err:
        measure_battery(None, None, [NoModel()], inputs, str, spec=spec)
    assert "[[condition]] #2 (b): babble of 2 donor(s) for clip 'z0.wav'" in str(err.value)
