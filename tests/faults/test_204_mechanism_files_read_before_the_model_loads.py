"""Case 204: what `asraudit patch` and `steer induce|ablate` can tell from their files and options alone was checked
only once the white-box model had loaded (a conversion on a cold cache, seconds to minutes for a large model):
`patch --source corpus:OTHER` whose clip ids are not the corpus's (or a corpus source that is the clips' own audio),
`patch --frames 50-60` or `--block-attention 50-60` past every clip, a `--corpus` that is missing or not audio,
`steer induce|ablate --frames 50-60` past every clip, `steer ablate --rank 3` on a direction of rank 1.

Now the corpus, the sources, the spans and the ranks are checked first, with the same lines; the model loads only
once they pass.  (The model's own checks, its sites, positions and window, still follow its load.)
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.fixture()
def corpus(tmp_path, monkeypatch):
    from conftest import one_clip_manifest

    from asraudit.commands import patch, steer

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(patch, "load_whitebox", lambda args: pytest.fail("the model loaded"))
    monkeypatch.setattr(steer, "load_whitebox", lambda args: pytest.fail("the model loaded"))
    return one_clip_manifest(tmp_path)


def _direction(path="d.safetensors"):
    from asraudit.mechanism.steering import Direction

    v = np.random.default_rng(0).standard_normal(384)
    return Direction(v, (v / np.linalg.norm(v))[None, :], np.ones(1), 2).save(path)


def test_patch_source_corpus_of_other_clip_ids(corpus, cli):
    import shutil

    shutil.copy(corpus.parent / "a.wav", corpus.parent / "b.wav")
    (corpus.parent / "other.jsonl").write_text(json.dumps({"audio_filepath": "b.wav", "text": "x"}) + "\n")
    ran = cli("patch", "--corpus", corpus, "--source", "corpus:other.jsonl", "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == ["asraudit: error: other.jsonl: 1 clip(s) have no source with the same id, e.g. 'a.wav'"]


def test_patch_source_corpus_that_is_the_clips_own_audio(corpus, cli):
    ran = cli("patch", "--corpus", corpus, "--source", f"corpus:{corpus.name}", "--no-progress")
    assert ran.code == 2
    assert len(ran.error_lines) == 1 and "have a source with the same samples as the clip" in ran.error_lines[0]


@pytest.mark.parametrize("args", [
    ("patch", "--source", "silence", "--frames", "50-60"),
    ("patch", "--block-attention", "50-60"),
])
def test_patch_spans_past_every_clip(corpus, cli, args):
    ran = cli(*args, "--corpus", corpus, "--no-progress")
    assert ran.code == 2
    assert len(ran.error_lines) == 1 and "the span starts at 50 s, after the end of 1 of 1 clip(s)" in ran.error_lines[0]


def test_patch_and_steer_of_a_missing_corpus(corpus, cli):
    _direction()
    for args in (("patch", "--source", "silence"), ("steer", "induce", "--direction", "d.safetensors"),
                 ("steer", "ablate", "--direction", "d.safetensors")):
        ran = cli(*args, "--corpus", "missing.jsonl", "--no-progress")
        assert ran.code == 2, args
        assert len(ran.error_lines) == 1 and "missing.jsonl" in ran.error_lines[0], args


@pytest.mark.parametrize("action", ["induce", "ablate"])
def test_steer_frames_past_every_clip(corpus, cli, action):
    _direction()
    ran = cli("steer", action, "--corpus", corpus, "--direction", "d.safetensors", "--frames", "50-60", "--no-progress")
    assert ran.code == 2
    assert len(ran.error_lines) == 1 and "the span starts at 50 s, after the end of 1 of 1 clip(s)" in ran.error_lines[0]


def test_steer_ablate_rank_past_the_basis(corpus, cli):
    _direction()
    ran = cli("steer", "ablate", "--corpus", corpus, "--direction", "d.safetensors", "--rank", "3", "--no-progress")
    assert ran.code == 2
    assert ran.error_lines == ["asraudit: error: d.safetensors: --rank 3 outside 1..1 (the direction's basis)"]
