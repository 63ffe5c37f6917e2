"""`asraudit steer` and `asraudit patch` on folders of the other kinds: a transducer and a speech LLM.

The Moonshine folder's CLI runs are in test_whitebox_seq2seq.py and the
Qwen2-Audio patch run in test_speech_llm_patching.py; here the same commands
run on a Parakeet TDT folder (random weights) and `steer` on the trained
Qwen2-Audio.  Checks that can fail: the commands finish on the folder, the
self-patch control changes no transcript, a trained model's learned
direction changes most clips and its random control at most one, and a
site the model lacks (a transducer's cross-attention) is refused in one
line (exit 2) before any clip is decoded.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
sf = pytest.importorskip("soundfile")

import encdec_tiny  # noqa: E402
from asraudit.cli import main  # noqa: E402


def write_tones(folder, band, seed: int, n: int = 4):
    """A manifest of ``n`` tones of ``band`` ("low" or "high"), clip ids c0.. (pairs match by id)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    with open(folder / "manifest.jsonl", "w") as f:
        for i in range(n):
            sf.write(folder / f"c{i}.wav", encdec_tiny.tone(rng, *(encdec_tiny.LOW if band == "low" else encdec_tiny.HIGH)),
                     16000, subtype="FLOAT")
            f.write(json.dumps({"audio_filepath": f"c{i}.wav", "text": band}) + "\n")
    return folder / "manifest.jsonl"


def steer(model, tmp_path, layer: str) -> dict:
    low, high = write_tones(tmp_path / "low", "low", 11), write_tones(tmp_path / "high", "high", 12)
    direction = tmp_path / "low.safetensors"
    assert main(["steer", "learn", "--model", str(model), "--corpus", str(low), "--negative-corpus", str(high),
                 "--layer", layer, "--out", str(direction)]) == 0
    report = tmp_path / "induce.json"
    assert main(["steer", "induce", "--model", str(model), "--corpus", str(high), "--direction", str(direction),
                 "--store", str(tmp_path / "store.sqlite"), "--json", str(report), "--no-progress"]) == 0
    return {v["label"]: v for v in json.loads(report.read_text())["variants"]}


@pytest.fixture(scope="module")
def parakeet(tmp_path_factory):
    from test_models_hf_transducer import save_tiny

    return save_tiny(tmp_path_factory.mktemp("tdt-cli"), "tdt", initializer_range=0.3, hidden_size=64)


def test_steer_runs_on_a_transducer_folder(parakeet, tmp_path):
    variants = steer(parakeet, tmp_path, "0")
    assert set(variants) == {"baseline", "add a=1", "random a=1"}
    assert all(v["n_clips"] == 4 for v in variants.values()) and variants["baseline"]["changed_vs_baseline"] == 0
    assert "+steer-add(" in variants["add a=1"]["model_id"]


def test_patch_runs_on_a_transducer_folder_and_refuses_cross_attention(parakeet, tmp_path, capsys):
    corpus = write_tones(tmp_path / "low", "low", 13, n=3)
    report = tmp_path / "patch.json"
    assert main(["patch", "--model", str(parakeet), "--corpus", str(corpus), "--source", "silence", "--layer", "-1",
                 "--store", str(tmp_path / "store.sqlite"), "--json", str(report), "--no-progress"]) == 0
    variants = {v["role"]: v for v in json.loads(report.read_text())["variants"]}
    assert variants["control"]["changed_vs_baseline"] == 0 and "+patch(" in variants["intervention"]["model_id"]
    # The decoder site (the prediction network's output) runs; it does not read the audio, so even the
    # silence donor changes no transcript (test_models_hf_transducer_decoder_site.py).
    decoder_report = tmp_path / "patch-decoder.json"
    assert main(["patch", "--model", str(parakeet), "--corpus", str(corpus), "--source", "silence", "--site", "decoder",
                 "--store", str(tmp_path / "store.sqlite"), "--json", str(decoder_report), "--no-progress"]) == 0
    variants = {v["role"]: v for v in json.loads(decoder_report.read_text())["variants"]}
    assert "site=decoder" in variants["intervention"]["model_id"]
    assert variants["intervention"]["changed_vs_baseline"] == 0 and variants["control"]["changed_vs_baseline"] == 0
    capsys.readouterr()
    assert main(["patch", "--model", str(parakeet), "--corpus", str(corpus), "--block-attention", "0-0.5",
                 "--store", str(tmp_path / "store.sqlite"), "--no-progress"]) == 2
    assert "no cross-attention site" in capsys.readouterr().err


def test_steer_on_a_trained_speech_llm_moves_most_clips_and_its_random_control_at_most_one(trained_qwen2_audio_folder,
                                                                                          tmp_path):
    variants = steer(trained_qwen2_audio_folder, tmp_path, "-1")
    # seen: 4 of 4 high tones answered "low" under the learned direction, none under the random one
    assert variants["add a=1"]["changed_vs_baseline"] >= 3 and variants["random a=1"]["changed_vs_baseline"] <= 1
