"""Case 268: a PEFT adapter folder whose weights are not whole, or were trained over another model than the base
its config names: ``adapter_model.safetensors`` lost or cut short (an interrupted copy); an adapter trained over a
wav2vec2 whose ``base_model_name_or_path`` names a Whisper (a base moved and another model put at that path).

A folder without the weights was peft's ``Repo id must be in the form ...`` once the base had loaded, and one cut
short was ``SafetensorError: Error while deserializing header: invalid header length``, a traceback.  An adapter
of another base whose target modules (``q_proj``, ``v_proj``) the base also has was applied with none of its
tensors loaded (peft warns among the log lines): the base's adapter modules kept their initial weights, and the
run transcribed with the base model (or with noise, for an adapter initialised at random), exit 0.  Now the
weights are checked before the base loads, and tensors that name no adapter module of the base are refused.
"""

from __future__ import annotations

import json
import shutil

import pytest

peft = pytest.importorskip("peft")
transformers = pytest.importorskip("transformers")
np = pytest.importorskip("numpy")


@pytest.fixture(scope="module")
def adapter(wav2vec2, tmp_path_factory):
    model = transformers.Wav2Vec2ForCTC.from_pretrained(wav2vec2)
    wrapped = peft.get_peft_model(model, peft.LoraConfig(r=2, target_modules=["q_proj", "v_proj"],
                                                          init_lora_weights=False))
    folder = tmp_path_factory.mktemp("adapter") / "a"
    wrapped.save_pretrained(folder)
    return folder


def _copy(adapter, tmp_path):
    return shutil.copytree(adapter, tmp_path / "a")


def test_an_adapter_without_its_weights_is_refused_before_the_base_loads(adapter, tmp_path):
    from asraudit import InputError, load_model

    folder = _copy(adapter, tmp_path)
    (folder / "adapter_model.safetensors").unlink()
    with pytest.raises(InputError) as err:
        load_model(str(folder))
    assert str(err.value) == (f"{folder}: no adapter weights: the folder has adapter_config.json but neither "
                              "adapter_model.safetensors nor adapter_model.bin (an interrupted download or copy? "
                              "fetch the adapter's files again)")


def test_adapter_weights_cut_short_are_one_line(adapter, tmp_path):
    from asraudit import InputError, load_model

    folder = _copy(adapter, tmp_path)
    weights = folder / "adapter_model.safetensors"
    weights.write_bytes(weights.read_bytes()[:300])
    with pytest.raises(InputError) as err:
        load_model(str(folder))
    assert str(err.value).startswith(f"{weights}: cut short: 300 bytes")


def test_an_adapter_of_another_base_is_refused(adapter, tmp_path):
    import encdec_tiny

    from asraudit import InputError, load_model

    folder = _copy(adapter, tmp_path)
    whisper = encdec_tiny.whisper_multilingual(tmp_path / "whisper")
    config = json.loads((folder / "adapter_config.json").read_text())
    config["base_model_name_or_path"] = str(whisper)
    (folder / "adapter_config.json").write_text(json.dumps(config))
    with pytest.raises(InputError) as err:
        load_model(str(folder), max_new_tokens=32)  # the tiny Whisper decodes 64 positions
    assert str(err.value).startswith(f"{folder}: the adapter does not fit its base model: 4 of its tensors name no "
                                     "adapter module of the base and ")
    assert str(err.value).endswith(" (first: base_model.model.wav2vec2.encoder.layers.0.attention.q_proj.lora_A."
                                   "weight): base_model_name_or_path names another model than the adapter was "
                                   "trained over")


def test_the_adapter_over_its_own_base_loads_and_changes_the_model(adapter, wav2vec2):
    from asraudit import load_model

    clip = np.sin(np.arange(16000) / 5.0).astype(np.float32)
    tuned, base = load_model(str(adapter)), load_model(str(wav2vec2))
    assert tuned.config_hash != base.config_hash
    assert tuned.model_id == f"hf:{adapter}" and tuned.transcribe([clip]) is not None
