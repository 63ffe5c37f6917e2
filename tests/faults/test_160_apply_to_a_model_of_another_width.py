"""Case 160: an audit's ``[[mechanism]]`` steer entry whose ``apply_to`` names a white-box model of another width
than the model the direction is learned in (``model = "whisper-tiny.en"``, width 384; ``apply_to =
["whisper-base"]``, 512). ``audit --check`` passed (layer 0 exists in both); the mechanism stage, the last, learned
the direction, loaded whisper-base and skipped the induction in it with a note, after every other stage ran. Now
``check_mechanism`` compares the widths the models' files give (``models.layer_counts.hidden_size``) before any
model runs; a model whose files do not say is still compared by the stage."""

from __future__ import annotations

import json

import numpy as np
import pytest

from asraudit.errors import InputError


def _check(tmp_path, apply_to):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import soundfile as sf

    from asraudit import load_corpus, parse_spec
    from asraudit.audit.mechanism import check_mechanism
    from asraudit.models import embedded

    if not all(embedded.is_present(m) for m in ("whisper-tiny.en", "whisper-base")):
        pytest.skip("needs the embedded whisper-tiny.en and whisper-base (the models extra)")
    rng = np.random.default_rng(0)
    for name in ("a.wav", "b.wav"):
        sf.write(tmp_path / name, (0.1 * rng.standard_normal(16_000)).astype(np.float32), 16_000)
    (tmp_path / "c.jsonl").write_text("".join(json.dumps({"audio_filepath": n, "text": "x"}) + "\n"
                                              for n in ("a.wav", "b.wav")), encoding="utf-8")
    entry = {"type": "steer", "model": "whisper-tiny.en", "layer": 0, "positive": "all", "negative": "silence",
             "holdout": 0, "induce": "all", "apply_to": apply_to}
    spec = parse_spec({"corpus": {"manifest": "c.jsonl"}, "model": [{"spec": "whisper-tiny.en", "panel": True}],
                       "mechanism": [entry]}, "a.toml", tmp_path)
    check_mechanism(spec.mechanism, load_corpus(tmp_path / "c.jsonl").clips, "a.toml")


@pytest.mark.parametrize("apply_to, name, width", [
    (["whisper-base"], "whisper-base", 512),
    (["whisper-tiny.en-gated", "whisper-base-organism"], "whisper-base-organism", 512),  # a plug-in's base model
])
def test_an_apply_to_model_of_another_width_is_refused_by_check(tmp_path, apply_to, name, width):
    with pytest.raises(InputError) as err:
        _check(tmp_path, apply_to)
    assert str(err.value) == (
        f"a.toml: [[mechanism]] #1 ('steer #1'): apply_to {name!r} has width {width}, and the direction is learned "
        f"in whisper-tiny.en, of width 384: it cannot be added to {name}; leave {name} out of apply_to, or learn a "
        "direction in it in another entry")


def test_apply_to_models_of_the_same_width_still_pass(tmp_path):
    _check(tmp_path, ["whisper-tiny.en-gated", "whisper-tiny.en-organism"])
