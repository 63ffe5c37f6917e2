"""Case 124: a model folder whose generation_config.json asks for sampling.

``"do_sample": true`` with a temperature (as many checkpoints ship it, for chat use) made every transcript of an
encoder-decoder family (Moonshine, Canary, Cohere ASR, Speech2Text, SeamlessM4T) a random draw: the same clip
gave another transcript on each run, each stored as the model's one answer, exit 0.  asraudit decodes greedily
(or with the beam it is given) whatever the folder asks, as its speech-LLM and Kyutai runners already did.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("transformers")
torch = pytest.importorskip("torch")


@pytest.fixture(scope="module", params=["moonshine", "canary"])
def folders(request, tmp_path_factory):
    import encdec_tiny

    plain = getattr(encdec_tiny, request.param)(tmp_path_factory.mktemp(request.param))
    sampling = shutil.copytree(plain, tmp_path_factory.mktemp("sampling") / "model")
    path = sampling / "generation_config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config.update(do_sample=True, temperature=5.0)
    path.write_text(json.dumps(config), encoding="utf-8")
    return plain, sampling


def _clip():
    return (0.1 * np.random.default_rng(0).standard_normal(16000)).astype(np.float32)


def test_transcripts_are_the_greedy_ones_on_every_draw(folders):
    from asraudit.models.registry import load_model

    plain, sampling = folders
    expected = load_model(f"hf:{plain}", max_new_tokens=8).transcribe([_clip()])
    model = load_model(f"hf:{sampling}", max_new_tokens=8)
    seen = set()
    for seed in range(5):
        torch.manual_seed(seed)
        seen.add(tuple(model.transcribe([_clip()])))
    assert seen == {tuple(expected)}


def test_beam_search_is_not_beam_sampling(folders):
    from asraudit.models.registry import load_model

    plain, sampling = folders
    expected = load_model(f"hf:{plain}", max_new_tokens=8, beam_size=2).transcribe([_clip()])
    model = load_model(f"hf:{sampling}", max_new_tokens=8, beam_size=2)
    for seed in range(3):
        torch.manual_seed(seed)
        assert model.transcribe([_clip()]) == expected
