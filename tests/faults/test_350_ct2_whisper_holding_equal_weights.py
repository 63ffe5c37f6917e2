"""Case 350: a CTranslate2 Whisper whose ``model.bin`` holds two equal weights, converted for the white box.

CTranslate2 stores any two equal variables once, the second as an alias of the first (not only the tied output
projection): the zero biases and unit layer norms of layers still at their initial values, biases a fine-tune
froze.  ``whitebox convert`` (and every white-box probe, which converts first) gave both transformers names one
array, and ``save_pretrained`` stopped the conversion with ``RuntimeError: The weights trying to be saved contained
shared tensors ...``, a traceback.  Now each weight gets memory of its own, and the conversion loads with every
weight equal to the CTranslate2 file's.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


def test_a_model_whose_weights_ctranslate2_stored_as_aliases_converts(tmp_path, tiny_ct2_whisper, cli):
    from asraudit.models.whitebox.convert import conversion_dir, hf_state_dict, load_converted
    from asraudit.models.whitebox.ct2_format import read_ct2_model
    from asraudit.models.whitebox.sources import source_from_dir

    ct2 = read_ct2_model(tiny_ct2_whisper / "model.bin")
    assert len(ct2.aliases) > 1  # more than the tied projection: its zero biases and unit layer norms
    ran = cli("whitebox", "convert", tiny_ct2_whisper, "--cache", tmp_path / "cache")
    assert ran.code == 0, ran.err
    assert ran.out.startswith("converted whisper -> ")
    model, _, info = load_converted(conversion_dir(source_from_dir(tiny_ct2_whisper).cache_name, tmp_path / "cache"))
    assert not info["missing_keys"] and not info["unexpected_keys"]
    state = model.state_dict()
    for name, weight in hf_state_dict(ct2).items():
        np.testing.assert_array_equal(state[name].numpy(), weight, err_msg=name)
