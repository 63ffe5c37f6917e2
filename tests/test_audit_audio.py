"""The audio stages of `asraudit audit` (masked recovery, audio lift, battery) on a few parliament-mini clips.

One real model (Whisper tiny.en) hears the audio; two prediction files stand
in for a faithful panel member and for an echoing model.  The checks are on
what the stages must do whatever the model's skill: every audio probe runs,
replayed models are kept out of probes that change the audio, the battery's
conditions all appear, and a rerun computes nothing.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("ctranslate2")

from asraudit.cli import main  # noqa: E402
from asraudit.demo.organism import BENCHMARK_DIR  # noqa: E402

MANIFEST = BENCHMARK_DIR / "test.jsonl"
SENTENCES = ("s001", "s013")  # an unspoken "Madam President" in the record; a spoken number (the masked target)
VOICES = 3


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    from asraudit.models.registry import available_models

    if not any(e.name == "whisper-tiny.en" and e.present for e in available_models().embedded):
        pytest.skip("the embedded whisper-tiny.en is not installed")
    tmp = tmp_path_factory.mktemp("audit_audio")
    rows = [json.loads(line) for line in MANIFEST.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["sentence"] in SENTENCES]
    # Each sentence in three of its seven voices: every stage still has clips of both kinds, at 3/7 of the model time.
    voices = list(dict.fromkeys(r["speaker"] for r in rows))[:VOICES]
    rows = [{**r, "audio_filepath": str(BENCHMARK_DIR / r["audio_filepath"])} for r in rows if r["speaker"] in voices]
    manifest = tmp / "clips.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for name, field in (("spoken", "spoken"), ("record", "text")):
        with (tmp / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"],
                                     "pred_text": r[field]}) + "\n")
    battery = tmp / "battery.toml"
    battery.write_text('name = "t"\nprobes = ["accept-ref", "recovery"]\n'
                       '[[condition]]\nname = "original"\ntype = "original"\n'
                       '[[condition]]\nname = "white-10dB"\ntype = "noise"\nkind = "white"\nsnr_db = 10\n'
                       '[[condition]]\nname = "suffix-benchmark"\ntype = "splice"\ndonor = "benchmark"\nseconds = 3\n',
                       encoding="utf-8")
    spec = tmp / "audit.toml"
    spec.write_text(
        f'name = "audio"\nout = "{tmp / "out"}"\nbootstrap = 100\n'
        f'[corpus]\nmanifest = "{manifest}"\nsaid_field = "spoken"\n'
        '[[model]]\nspec = "whisper-tiny.en"\npanel = true\noptions = { beam_size = 1 }\n'
        f'[[model]]\npredictions = "{tmp / "spoken.jsonl"}"\nname = "spoken"\npanel = true\n'
        f'[[model]]\npredictions = "{tmp / "record.jsonl"}"\nname = "record"\n'
        '[refdis]\nmin_panel = 2\n'  # a 2-member panel (the miner's default asks for 3)
        '[masked]\ntargets = "numbers"\nalign = "pocketsphinx"\nmax_targets = 2\n'
        '[lift]\nmax_edits = 3\n'
        f'[battery]\nspec = "{battery}"\nmax_edits = 3\nmax_targets = 3\n'
        '[report]\naudio = false\nalign = "none"\n', encoding="utf-8")  # the page's audio: test_report_listen.py
    assert main(["audit", str(spec), "--no-progress"]) == 0
    return tmp / "out", spec


def test_every_audio_probe_runs_on_the_models_that_hear_audio(audited):
    out, _ = audited
    s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    masked = {r["model"]: r for r in s["masked"]}
    assert set(masked) == {"whisper-tiny.en"} and masked["whisper-tiny.en"]["targets"] == 2
    assert masked["whisper-tiny.en"]["masked"] is not None and masked["whisper-tiny.en"]["lift_masked"] is not None
    assert s["sampling"]["masked"] == {"targets_found": VOICES, "targets_used": 2, "kind": "numbers"}  # s013's number
    assert s["sampling"]["lift"]["edits_used"] == 3
    assert {r["model"] for r in s["lift"]} == {"whisper-tiny.en"}
    assert s["models"]["whisper-tiny.en"]["lift_n"] == 3
    conditions = {(r["condition"], r["readout"]) for r in s["battery"]["rows"]}
    assert {("original", "accept-ref"), ("white-10dB", "accept-ref"), ("suffix-benchmark", "accept-ref"),
            ("white-10dB", "recovery")} <= conditions
    # Replayed models answer for the original audio only; they still get accept-ref and WER.
    assert s["models"]["record"]["accept_ref"] == 1.0 and "recovery" not in s["models"]["record"]


def test_a_rerun_of_the_audio_audit_computes_nothing(audited, capsys):
    out, spec = audited
    assert main(["audit", str(spec), "--no-progress"]) == 0
    err = capsys.readouterr().err
    runs = [line for line in err.splitlines() if "job(s) run now" in line]
    assert runs and all(" 0 job(s) run now" in line for line in runs)


def test_the_audio_audit_summary_satisfies_the_published_schema(audited):
    jsonschema = pytest.importorskip("jsonschema")
    from asraudit.report.schema import summary_schema

    out, _ = audited
    jsonschema.validate(json.loads((out / "summary.json").read_text(encoding="utf-8")), summary_schema())
