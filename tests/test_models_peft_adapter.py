"""A folder holding only a PEFT (LoRA) adapter over a speech LLM, loaded the way a user's folder is.

The test trains nothing: it builds a tiny Qwen2-Audio (``speech_llm_fixtures``),
wraps it in a LoRA ``PeftModel`` whose B matrices are set non-zero (a fresh
LoRA adds exactly zero), and saves only the adapter, whose config names the
base folder.  What can fail: ``load_model(<adapter folder>)`` must give the
base's family class with the adapter merged in: the same logits as
``PeftModel.from_pretrained(base, adapter)`` (float rounding only) and a
different score from the base's; the adapter enters the config hash; variants
and the ``hf:`` spec keep it; a folder whose config names no base is one line.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
peft = pytest.importorskip("peft")

from asraudit.errors import InputError  # noqa: E402
from asraudit.models.hf_speech_llm import HFSpeechLLM  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from speech_llm_fixtures import audio, tiny_qwen2_audio  # noqa: E402
from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    base = tiny_qwen2_audio(tmp_path_factory.mktemp("base"), init=0.2)
    network = transformers.Qwen2AudioForConditionalGeneration.from_pretrained(base)
    lora = peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], lora_dropout=0.0)
    wrapped = peft.get_peft_model(network, lora)
    torch.manual_seed(1)
    with torch.no_grad():
        for name, weight in wrapped.named_parameters():
            if "lora_B" in name:
                weight.normal_(0.0, 0.5)
    adapter = tmp_path_factory.mktemp("adapter")
    wrapped.save_pretrained(adapter)
    config = json.loads((adapter / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == str(base) and not (adapter / "config.json").exists()
    return base, adapter




def test_an_adapter_folder_loads_through_its_base_family_with_the_adapter_active(folders):
    base, adapter = folders
    plain = load_model(str(base))
    tuned = load_model(str(adapter))
    assert isinstance(tuned, HFSpeechLLM) and tuned.model_id == f"hf:{adapter}"
    assert tuned.config_hash != plain.config_hash
    clip = audio(1.0, seed=3)
    (a,) = plain.score(clip, ["hello there"])
    (b,) = tuned.score(clip, ["hello there"])
    assert a.token_ids == b.token_ids and abs(a.total - b.total) > 1e-3  # the adapter changes the model

    # The same network as peft's PeftModel over the base: same logits on the same input.
    reference = peft.PeftModel.from_pretrained(
        transformers.Qwen2AudioForConditionalGeneration.from_pretrained(base), str(adapter)).eval()
    ids = torch.tensor([[1, 5, 9, 12, 3, 7]])
    with torch.inference_mode():
        ours = tuned.model(input_ids=ids).logits
        theirs = reference(input_ids=ids).logits
        untuned = plain.model(input_ids=ids).logits
    # float32, same weights and modules: rounding only (see tests/tolerances.py).
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=LOGPROB_RTOL, atol=1e-5)
    assert float((ours - untuned).abs().max()) > 1e-2


def test_variants_keep_the_adapter_in_their_hash(folders):
    _, adapter = folders
    tuned = load_model(str(adapter))
    assert tuned.variant().config_hash == tuned.config_hash
    assert load_model(f"hf:{adapter}").config_hash == tuned.config_hash


def test_an_adapter_whose_base_is_missing_is_one_line(tmp_path):
    folder = tmp_path / "adapter"
    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA"}))
    with pytest.raises(InputError, match="names no base model"):
        load_model(str(folder))
