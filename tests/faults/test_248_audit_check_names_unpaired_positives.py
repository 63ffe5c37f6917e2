"""Case 248: ``asraudit audit SPEC --check`` on a spec whose ``[[mechanism]]`` steer entry leaves positives without
a negative partner in their ``pair_by`` group (case 234).

Case 234 names those positives in one line of the audit's notes, written when the mechanism stage runs, the
last stage; ``--check``, which plans every entry's pairs from the corpus, passed without a word, so a user
checking a spec learned of it only after every model had run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.faults.conftest import two_pocketsphinx_audit

SPEC = 'name = "t"\n' + two_pocketsphinx_audit() + '''[[mechanism]]
type = "steer"
model = "whisper-tiny.en"
layer = 3
positive = { field = "voice_role", value = "benchmark" }
negative = { field = "voice_role", value = "fresh" }
pair_by = "sentence"
holdout = 0
ablate = { field = "voice_role", value = "benchmark" }
'''


def _corpus(folder, lone: int):
    import soundfile as sf

    tone = (0.1 * np.sin(np.arange(16000) * 0.05)).astype(np.float32)
    rows = []
    for i in range(3):
        for role in ("benchmark", "fresh"):
            sf.write(folder / f"s{i}-{role}.wav", tone, 16000)
            rows.append({"audio_filepath": f"s{i}-{role}.wav", "text": f"sentence {i}", "sentence": f"s{i}",
                         "voice_role": role})
    for i in range(lone):
        sf.write(folder / f"lone{i}.wav", tone, 16000)
        rows.append({"audio_filepath": f"lone{i}.wav", "text": f"lone {i}", "sentence": f"t{i}",
                     "voice_role": "benchmark"})
    (folder / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "audit.toml").write_text(SPEC, encoding="utf-8")


@pytest.fixture()
def needs_models():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("pocketsphinx")
    from asraudit.models import embedded

    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("needs the embedded whisper-tiny.en (the models extra)")


def test_check_names_the_positives_left_without_a_partner(cli, tmp_path, monkeypatch, needs_models):
    _corpus(tmp_path, lone=2)
    monkeypatch.chdir(tmp_path)
    ran = cli("audit", "--check", "audit.toml")
    assert ran.code == 0, ran.err
    assert ran.out.startswith("audit.toml: ok: 8 clips")
    assert ran.err.splitlines() == [
        "asraudit: note: audit.toml: mechanism steer #1: 2 of 5 positive clip(s) (voice_role benchmark) have no "
        "negative (voice_role fresh) of the same sentence and are not learned from ('lone0.wav', 'lone1.wav'); the "
        "direction is learned from 3 pair(s)"]
    assert not (tmp_path / "o" / "summary.json").exists()


def test_check_is_silent_when_every_positive_has_a_partner(cli, tmp_path, monkeypatch, needs_models):
    _corpus(tmp_path, lone=0)
    monkeypatch.chdir(tmp_path)
    ran = cli("audit", "--check", "audit.toml")
    assert ran.code == 0 and ran.err == ""
