"""A checkpoint's own speech LoRA (Granite-Speech, Phi-4-Multimodal), merged without peft.

The adapters are written by peft itself (the installed 0.21.2): a tiny
checkpoint from ``speech_llm_fixtures`` is wrapped with ``get_peft_model``,
its B matrices set non-zero (a fresh LoRA adds exactly zero), and
``save_pretrained`` puts the adapter where the family keeps it: Granite's in
the model folder (``has_lora_adapter`` in its config), Phi-4's in
``speech-lora/``, Granite-Speech-Plus's as Granite's (peft around the whole
model).  Granite's adapter is written in three key layouts: peft
around the language model alone, peft around the whole model (transformers 5
module names), the same keys in the legacy layout (``language_model.model.*``)
that transformers renames on load, and an rsLoRA on one layer
(``use_rslora``, ``layers_to_transform``).  What can fail: ``load_model(folder)``
must compute what peft's own LoRA layers compute on the same inputs (logits
and the teacher-forced score), differ from the checkpoint without adapter,
and carry the adapter in its config hash; adapters the merge cannot
reproduce are refused in one line naming the field or key.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
peft = pytest.importorskip("peft")

from safetensors.torch import load_file, save_file  # noqa: E402

from asraudit.errors import InputError  # noqa: E402
from asraudit.models.hf_speech_llm import HFSpeechLLM  # noqa: E402
from asraudit.models.peft_adapter import adapter_digest  # noqa: E402
from asraudit.models.registry import load_model  # noqa: E402

from speech_llm_fixtures import BUILDERS, audio  # noqa: E402
from tolerances import LOGPROB_RTOL  # why relative: see tests/tolerances.py

# The merged model computes (W + s B A) x where peft computes W x + s B (A x):
# the same float32 products summed in another order, so logits and log-probs
# differ by rounding only (~1e-7 relative per layer through 2-layer, 32-wide
# models; LOGPROB_RTOL = 1e-5 bounds it on any CPU kernel, see tolerances.py),
# plus an absolute floor for values near 0.  The adapter's own effect is
# orders of magnitude larger (B ~ N(0, 0.5)), checked below.
LOGIT_ATOL = 1e-5
SCORE_ATOL = 1e-4

CLASSES = {"granite_speech": "GraniteSpeechForConditionalGeneration", "phi4_multimodal": "Phi4MultimodalForCausalLM",
           "granite_speech_plus": "GraniteSpeechPlusForConditionalGeneration"}
PHI4_TARGETS = r"model\.layers\.\d+\.((self_attn\.(qkv|o)_proj)|(mlp\.(gate_up|down)_proj))"  # the language model only
CASES = [("granite_speech", "language-model"), ("granite_speech", "whole-model"), ("granite_speech", "legacy-names"),
         ("granite_speech", "rslora-layer-1"), ("phi4_multimodal", "speech-lora"), ("granite_speech_plus", "whole-model")]


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    return {family: BUILDERS[family](tmp_path_factory.mktemp(family)) for family in CLASSES}


def _with_adapter(base, folder, family, layout):
    """``base`` copied to ``folder`` with a peft-written LoRA where the family keeps it; returns
    (folder, the base network with peft's LoRA layers injected: the reference)."""
    shutil.copytree(base, folder)
    network = getattr(transformers, CLASSES[family]).from_pretrained(base).eval()
    if family.startswith("granite_speech"):  # Granite-Speech-Plus keeps its LoRA as Granite-Speech does
        target = network.model.language_model if layout == "language-model" else network
        # rsLoRA scales by alpha / sqrt(r), not alpha / r; layers_to_transform adapts layer 1 alone.
        extra = dict(use_rslora=True, layers_to_transform=[1]) if layout == "rslora-layer-1" else {}
        lora = peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], lora_dropout=0.0, **extra)
        where = folder
        config = json.loads((folder / "config.json").read_text())
        config["has_lora_adapter"] = True
        (folder / "config.json").write_text(json.dumps(config))
    else:
        target = network
        lora = peft.LoraConfig(r=4, lora_alpha=16, target_modules=PHI4_TARGETS, lora_dropout=0.0)
        where = folder / "speech-lora"
    wrapped = peft.get_peft_model(target, lora)
    torch.manual_seed(1)
    with torch.no_grad():
        for name, weight in wrapped.named_parameters():
            if "lora_B" in name:
                weight.normal_(0.0, 0.5)
    wrapped.save_pretrained(where)
    if layout == "legacy-names":  # the layout transformers 4 wrote: language_model.model.* (renamed on load)
        weights = load_file(where / "adapter_model.safetensors")
        renamed = {k.replace("base_model.model.model.language_model.", "base_model.model.language_model.model."): v
                   for k, v in weights.items()}
        assert renamed.keys() != weights.keys()
        save_file(renamed, where / "adapter_model.safetensors")
    network.eval()
    return folder, network, wrapped


@pytest.fixture(scope="module", params=CASES, ids=["-".join(c) for c in CASES])
def adapted(request, bases, tmp_path_factory):
    family, layout = request.param
    folder, network, wrapped = _with_adapter(bases[family], tmp_path_factory.mktemp("adapted") / family, family, layout)
    return family, folder, network, wrapped


def _reference_logprobs(network, llm, clip, token_ids):
    """log p of ``token_ids`` after the prompt, from one plain forward of ``network`` (peft's LoRA layers)."""
    inputs = llm._inputs([clip])
    length = inputs["input_ids"].shape[1]
    ids = torch.cat([inputs["input_ids"], torch.tensor([token_ids])], dim=1)
    mask = torch.ones_like(ids)
    with torch.inference_mode():
        logits = network(**{**inputs, "input_ids": ids, "attention_mask": mask}).logits[0].float()
    logprobs = torch.log_softmax(logits, dim=-1)
    return np.array([float(logprobs[length - 1 + k, t]) for k, t in enumerate(token_ids)])


def test_the_merged_model_computes_what_peft_computes_and_not_the_base(adapted, bases):
    family, folder, network, wrapped = adapted
    base = load_model(str(bases[family]), max_new_tokens=4)
    tuned = load_model(str(folder), max_new_tokens=4)
    assert isinstance(tuned, HFSpeechLLM)
    where = folder / "speech-lora" if family == "phi4_multimodal" else folder
    assert tuned.model.asraudit_adapter["digest"] == adapter_digest(where)
    assert not getattr(tuned.model, "_hf_peft_config_loaded", False)  # transformers applied nothing itself
    assert tuned.config_hash != base.config_hash and tuned.variant().config_hash == tuned.config_hash

    clip = audio(1.0, seed=3)
    inputs = tuned._inputs([clip])
    with torch.inference_mode():
        ours = tuned.model(**inputs).logits
        theirs = network(**inputs).logits
        with wrapped.disable_adapter():
            untuned = network(**inputs).logits
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=LOGPROB_RTOL, atol=LOGIT_ATOL)
    assert float((ours - untuned).abs().max()) > 1e-2  # the adapter changes the model

    (score,) = tuned.score(clip, ["hello there"])
    (plain,) = base.score(clip, ["hello there"])
    reference = _reference_logprobs(network, tuned, clip, list(score.token_ids))
    np.testing.assert_allclose(score.logprobs, reference, rtol=LOGPROB_RTOL, atol=LOGIT_ATOL)
    assert score.total == pytest.approx(float(reference.sum()), rel=LOGPROB_RTOL, abs=SCORE_ATOL)
    assert plain.token_ids == score.token_ids and abs(plain.total - score.total) > 1e-3


def _granite_adapted(bases, tmp_path):
    folder, _, _ = _with_adapter(bases["granite_speech"], tmp_path / "granite", "granite_speech", "whole-model")
    return folder


def test_an_adapter_feature_the_merge_does_not_implement_is_refused_naming_it(bases, tmp_path):
    folder = _granite_adapted(bases, tmp_path)
    config = json.loads((folder / "adapter_config.json").read_text())
    config["use_dora"] = True
    (folder / "adapter_config.json").write_text(json.dumps(config))
    with pytest.raises(InputError, match="use_dora=True is not supported"):
        load_model(str(folder))


def test_an_adapter_key_naming_a_module_the_model_lacks_is_refused_naming_it(bases, tmp_path):
    folder = _granite_adapted(bases, tmp_path)
    weights = load_file(folder / "adapter_model.safetensors")
    weights = {k.replace("layers.1.", "layers.7."): v for k, v in weights.items()}
    save_file(weights, folder / "adapter_model.safetensors")
    with pytest.raises(InputError, match=r"adapter key '.*layers\.7\.self_attn\.[qv]_proj\.lora_[AB]\.weight' names "
                                         "module .* which the model does not have"):
        load_model(str(folder))


def test_a_lone_half_of_a_pair_is_refused_naming_the_key(bases, tmp_path):
    folder = _granite_adapted(bases, tmp_path)
    weights = load_file(folder / "adapter_model.safetensors")
    dropped = next(k for k in weights if k.endswith("lora_B.weight"))
    del weights[dropped]
    save_file(weights, folder / "adapter_model.safetensors")
    with pytest.raises(InputError, match="has no lora_B partner"):
        load_model(str(folder))


def test_granite_that_needs_its_adapter_but_lacks_it_is_refused(bases, tmp_path):
    folder = tmp_path / "granite"
    shutil.copytree(bases["granite_speech"], folder)
    config = json.loads((folder / "config.json").read_text())
    config["has_lora_adapter"] = True
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(InputError, match="has_lora_adapter.*no adapter_config.json"):
        load_model(str(folder))


def test_adapter_weights_the_config_does_not_target_are_refused_naming_the_key(bases, tmp_path):
    folder = _granite_adapted(bases, tmp_path)
    config = json.loads((folder / "adapter_config.json").read_text())
    config["target_modules"] = ["q_proj"]  # the file also holds v_proj pairs: not the adapter this config describes
    (folder / "adapter_config.json").write_text(json.dumps(config))
    with pytest.raises(InputError, match=r"adapter key '.*v_proj\.lora_[AB]\.weight'.*not one the config's target_modules"):
        load_model(str(folder))


def test_a_bfloat16_load_merges_in_float32_and_keeps_the_dtype(bases, tmp_path):
    folder = _granite_adapted(bases, tmp_path)
    exact = load_model(str(folder)).model.model.language_model.layers[0].self_attn.q_proj.weight
    low = load_model(str(folder), compute_type="bfloat16").model.model.language_model.layers[0].self_attn.q_proj.weight
    base = load_model(str(bases["granite_speech"])).model.model.language_model.layers[0].self_attn.q_proj.weight
    assert low.dtype == torch.bfloat16 and exact.dtype == torch.float32
    # bfloat16 keeps 8 significant bits (7 stored): rounding to nearest moves a value by at most half
    # a step, 2^-8 of it. The base weight is rounded once on load and the float32 sum once more, so each
    # entry is within 2^-8 (|W| + |W + dW|) of the float32 merge; an unmerged delta, a wrongly scaled
    # one or a sum rounded twice drifts outside on some of the entries.
    bound = 2.0 ** -8 * (base.abs() + exact.abs()) + 1e-12
    assert bool(((low.float() - exact).abs() <= bound).all())
    assert float((exact - base).abs().max()) > 1e-2
