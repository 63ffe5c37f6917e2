"""Tiny speech-LLM checkpoints for tests: a tokenizer built here, random weights, save_pretrained.

Nothing is downloaded: the tokenizer is a small BPE trained on a few
sentences (tokenizers library) with the family's special tokens added, and
each model is its transformers config class at toy sizes (hidden 16-32, one
or two layers), so a test loads the folder through the same path a user's
checkpoint takes.
"""

from __future__ import annotations

import numpy as np

from tiny_training import train_and_save

SENTENCES = [
    "the cat sat on the mat", "a quick brown fox jumps over the lazy dog", "hello world, how are you?",
    "speech recognition models transcribe audio", "she sells sea shells by the sea shore",
]
ALPHABET = list("abcdefghijklmnopqrstuvwxyz ,.?'\n:") + [str(d) for d in range(10)]
QWEN_CHAT = [
    "<|endoftext|>", "<|im_start|>", "<|im_end|>",
]


def bpe_tokenizer(special_tokens: list[str], *, vocab_size: int = 96, more_characters: str = "", **named):
    """A fast tokenizer: BPE over ``ALPHABET`` (and ``more_characters``) whose decoding reproduces the text exactly."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE(unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="never")
    core.decoder = decoders.Metaspace(prepend_scheme="never")
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<unk>"] + special_tokens, initial_alphabet=ALPHABET + list(more_characters))
    core.train_from_iterator(SENTENCES * 4, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", **named)


def audio(seconds: float, seed: int) -> np.ndarray:
    """Band-limited noise at speech level (random weights need no real speech)."""
    rng = np.random.default_rng(seed)
    return (0.1 * rng.standard_normal(int(seconds * 16000))).astype(np.float32)


def _save(model, processor, folder, eos_ids, pad_id):
    model.generation_config.eos_token_id = eos_ids
    model.generation_config.pad_token_id = pad_id
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def tiny_qwen2_audio(folder, init: float = 0.02, window_seconds: int = 30):
    """Qwen2-Audio: Whisper-style audio encoder (2 layers, 16 wide), Qwen2 LM (2 layers, 32 wide).

    ``init``: the weights' standard deviation; the default (transformers') leaves
    a tiny model nearly deaf, a larger one makes its output depend on the audio.
    ``window_seconds``: the encoder's input window (the real model's 30 s; a
    shorter one makes training a tiny model 30x cheaper: attention over 50
    frames instead of 1500)."""
    import torch
    import transformers

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>", "<|en|>"]
    tok = bpe_tokenizer(specials, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    extractor = transformers.WhisperFeatureExtractor(feature_size=80, chunk_length=window_seconds)
    processor = transformers.Qwen2AudioProcessor(feature_extractor=extractor, tokenizer=tok)
    config = transformers.Qwen2AudioConfig(
        audio_config=dict(d_model=16, encoder_layers=2, encoder_attention_heads=2, encoder_ffn_dim=32, num_mel_bins=80,
                          initializer_range=init, max_source_positions=50 * window_seconds),
        text_config=dict(model_type="qwen2", vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=1, intermediate_size=64, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                         initializer_range=init),
        audio_token_index=tok.convert_tokens_to_ids("<|AUDIO|>"), initializer_range=init,
    )
    torch.manual_seed(0)
    model = transformers.Qwen2AudioForConditionalGeneration(config)
    return _save(model, processor, folder, tok.eos_token_id, tok.pad_token_id)


# A chat template in Qwen's format (the real checkpoint ships its own beside the weights).
QWEN3_ASR_CHAT = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}"
    "{% if c['type'] == 'audio' %}<|audio_start|><|audio_pad|><|audio_end|>{% else %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}{% if not (loop.last and m['role'] == 'assistant') %}<|im_end|>\n{% endif %}{% endfor %}"
)


def tiny_qwen3_asr(folder):
    """Qwen3-ASR: chunked audio encoder (2 layers, 16 wide), Qwen3 LM (2 layers, 32 wide)."""
    import torch
    import transformers

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|audio_pad|>", "<|audio_start|>", "<|audio_end|>", "<asr_text>"]
    tok = bpe_tokenizer(specials, eos_token="<|im_end|>", pad_token="<|endoftext|>", extra_special_tokens={
        "audio_token": "<|audio_pad|>", "audio_bos_token": "<|audio_start|>", "audio_eos_token": "<|audio_end|>"})
    processor = transformers.Qwen3ASRProcessor(feature_extractor=transformers.Qwen3ASRFeatureExtractor(feature_size=32),
                                               tokenizer=tok, chat_template=QWEN3_ASR_CHAT)
    eos = [tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")]
    config = transformers.Qwen3ASRConfig(
        audio_config=dict(d_model=16, encoder_layers=2, encoder_attention_heads=2, encoder_ffn_dim=32, num_mel_bins=32,
                          output_dim=32, downsample_hidden_size=8),
        text_config=dict(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, head_dim=16,
                         num_key_value_heads=1, intermediate_size=64, tie_word_embeddings=True),
        audio_token_id=tok.convert_tokens_to_ids("<|audio_pad|>"), pad_token_id=tok.pad_token_id, eos_token_id=eos,
    )
    torch.manual_seed(0)
    model = transformers.Qwen3ASRForConditionalGeneration(config)
    return _save(model, processor, folder, eos, tok.pad_token_id)


# A GLM-style chat template (the real checkpoint ships its own beside the weights).
GLM_ASR_CHAT = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{% for c in m['content'] %}"
    "{% if c['type'] == 'audio' %}<|begin_of_audio|><|pad|><|end_of_audio|>{% else %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def tiny_glm_asr(folder):
    """GLM-ASR: rotary audio encoder (2 layers, 16 wide, frames merged by 4), Llama LM (2 layers, 32 wide)."""
    import torch
    import transformers

    specials = ["<|endoftext|>", "<|user|>", "<|assistant|>", "<|pad|>", "<|begin_of_audio|>", "<|end_of_audio|>"]
    tok = bpe_tokenizer(specials, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    processor = transformers.GlmAsrProcessor(feature_extractor=transformers.WhisperFeatureExtractor(feature_size=32),
                                             tokenizer=tok, chat_template=GLM_ASR_CHAT)
    eos = [tok.convert_tokens_to_ids("<|endoftext|>"), tok.convert_tokens_to_ids("<|user|>")]
    config = transformers.GlmAsrConfig(
        audio_config=dict(hidden_size=16, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, num_mel_bins=32),
        text_config=dict(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=1, eos_token_id=eos, pad_token_id=tok.pad_token_id),
        audio_token_id=tok.convert_tokens_to_ids("<|pad|>"),
    )
    torch.manual_seed(0)
    model = transformers.GlmAsrForConditionalGeneration(config)
    return _save(model, processor, folder, eos, tok.pad_token_id)


# Audio Flamingo 3's processor chat template (transformers' convert_audioflamingo3_to_hf.py writes it beside the
# real checkpoint): a default system turn, and <sound> before the user's text.
AF3_CHAT = (
    "{% if messages[0]['role'] != 'system' %}<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "{% for m in messages if m['content'] is not none %}<|im_start|>{{ m['role'] }}\n"
    "{% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% set audio = namespace(found=False) %}{% set text_buf = namespace(v='') %}"
    "{% for c in m['content'] %}{% if c.get('type') == 'audio' or 'audio' in c %}{% set audio.found = True %}"
    "{% elif c.get('type') == 'text' or 'text' in c %}{% set text_buf.v = text_buf.v + c['text'] %}{% endif %}{% endfor %}"
    "{% if audio.found %}{{ '<sound>' }}{% endif %}{{ text_buf.v }}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def tiny_audioflamingo3(folder):
    """Audio Flamingo 3: Whisper-style encoder (2 layers, 16 wide) over 1-s windows (the real one's are 30 s: 30x
    less attention here, and a 1.3-s clip spans two windows), Qwen2 LM (2 layers, 32 wide).  The generation
    config samples with a repetition penalty, as the real checkpoint's does."""
    import torch
    import transformers

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<sound>"]
    # The double quote of AF3's answer framing, in the alphabet (the real tokenizer is byte-level).
    tok = bpe_tokenizer(specials, eos_token="<|im_end|>", pad_token="<|endoftext|>", more_characters='"')
    extractor = transformers.WhisperFeatureExtractor(feature_size=16, chunk_length=1, return_attention_mask=True)
    processor = transformers.AudioFlamingo3Processor(feature_extractor=extractor, tokenizer=tok, chat_template=AF3_CHAT)
    eos = [tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")]
    config = transformers.AudioFlamingo3Config(
        audio_config=dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, num_mel_bins=16,
                          max_source_positions=50),
        text_config=dict(model_type="qwen2", vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=1, intermediate_size=64, eos_token_id=eos[0], pad_token_id=tok.pad_token_id),
        audio_token_id=tok.convert_tokens_to_ids("<sound>"),
    )
    torch.manual_seed(0)
    model = transformers.AudioFlamingo3ForConditionalGeneration(config)
    model.generation_config.update(do_sample=True, temperature=0.7, top_k=20, top_p=0.8, repetition_penalty=1.05)
    return _save(model, processor, folder, eos, tok.pad_token_id)


# Fun-ASR-Nano's chat template as transformers' convert_fun_asr_nano_to_hf.py writes it beside the real checkpoint,
# its transcription branch (the context and hotword branch left out: asraudit's request gives neither).
FUN_ASR_CHAT = (
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n{% else %}"
    "{% set audio_items = message['content'] | selectattr('type', 'equalto', 'audio') | list %}"
    "{% set language_items = message['content'] | selectattr('type', 'equalto', 'language') | list %}"
    "语音转写{% if language_items %}成{{ language_items[0]['language'] }}{% endif %}："
    "{% for content in audio_items %}<|object_ref_start|>{% endfor %}<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def tiny_fun_asr_nano(folder):
    """Fun-ASR-Nano: SAN-M encoder (2 layers, 16 wide, the last a timestamp layer) over 16 mel bins stacked 7 at a
    time, a 1-layer adaptor, Qwen3 LM (2 layers, 32 wide).  The processor's extractor is saved under transformers'
    name, as a real checkpoint's is; asraudit reads it without torchaudio."""
    import json

    import torch
    import transformers

    from asraudit.models.fun_asr_features import fun_asr_extractor

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>"]
    tok = bpe_tokenizer(specials, eos_token="<|im_end|>", pad_token="<|endoftext|>", more_characters="语音转写成中英日文：")
    processing = __import__("importlib").import_module("transformers.models.fun_asr_nano.processing_fun_asr_nano")
    processor = processing.FunAsrNanoProcessor(feature_extractor=fun_asr_extractor(feature_size=16), tokenizer=tok,
                                               chat_template=FUN_ASR_CHAT)
    eos = [tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")]
    config = transformers.FunAsrNanoConfig(
        audio_config=dict(num_mel_bins=16, num_stacked_frames=7, hidden_size=16, num_attention_heads=2, intermediate_size=32,
                          num_hidden_layers=2, num_timestamp_prediction_layers=1, fsmn_kernel_size=5),
        adaptor_config=dict(hidden_size=32, intermediate_size=8, num_attention_heads=2, num_hidden_layers=1,
                            projector_hidden_size=16),
        text_config=dict(model_type="qwen3", vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         head_dim=16, num_key_value_heads=1, intermediate_size=64, tie_word_embeddings=True),
        audio_token_id=tok.convert_tokens_to_ids("<|object_ref_start|>"),
    )
    torch.manual_seed(0)
    model = transformers.FunAsrNanoForConditionalGeneration(config)
    with torch.no_grad():  # at the default init it answers "\n" to every clip: a transcript test would compare ""
        for parameter in model.parameters():
            if parameter.dim() > 1:
                parameter.normal_(0.0, 0.2)
    _save(model, processor, folder, eos, tok.pad_token_id)
    saved = folder / "processor_config.json"
    settings = json.loads(saved.read_text())
    settings["feature_extractor"]["feature_extractor_type"] = "FunAsrNanoFeatureExtractor"
    saved.write_text(json.dumps(settings, ensure_ascii=False, indent=2))
    return folder


# A Granite-style chat template (the real checkpoint ships its own with its tokenizer).
GRANITE_CHAT = (
    "{% for m in messages %}<|start_of_role|>{{ m['role'] }}<|end_of_role|>{{ m['content'] }}<|end_of_text|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|start_of_role|>assistant<|end_of_role|>{% endif %}"
)


def tiny_granite_speech(folder, init: float | None = None):
    """Granite-Speech: conformer encoder (2 blocks, 16 wide), Q-Former projector (1 layer), Granite LM (2 layers, 32 wide).

    The feature extractor is asraudit's torchaudio-free one; its settings are
    saved as GraniteSpeechFeatureExtractor's, as a real checkpoint's are.
    ``init``: redraw every weight matrix at this standard deviation (the
    default init leaves the tiny model deaf: its scores move by 1e-7 between clips)."""
    return _tiny_granite(folder, "GraniteSpeechConfig", "GraniteSpeechForConditionalGeneration", {}, 16, init)


def tiny_granite_speech_plus(folder, init: float | None = None):
    """Granite-Speech-Plus: Granite-Speech whose projector reads the encoder's output concatenated with its
    first block's (``cat_hidden_layers=[1]``, so the Q-Former's encoder side is 2 x 16 wide)."""
    return _tiny_granite(folder, "GraniteSpeechPlusConfig", "GraniteSpeechPlusForConditionalGeneration",
                         {"cat_hidden_layers": [1]}, 32, init)


def _tiny_granite(folder, config_class: str, model_class: str, encoder_extra: dict, projector_input: int,
                  init: float | None):
    import json

    import torch
    import transformers

    from asraudit.models.granite_features import granite_extractor

    specials = ["<|end_of_text|>", "<|start_of_role|>", "<|end_of_role|>", "<|audio|>"]
    tok = bpe_tokenizer(specials, eos_token="<|end_of_text|>", pad_token="<|end_of_text|>")
    tok.chat_template = GRANITE_CHAT
    n_mels = 16
    config = getattr(transformers, config_class)(
        encoder_config=dict(input_dim=2 * n_mels, num_layers=2, hidden_dim=16, feedforward_mult=2, num_heads=2, dim_head=8,
                            output_dim=12, context_size=20, max_pos_emb=64, conv_kernel_size=5, **encoder_extra),
        projector_config=dict(model_type="blip_2_qformer", hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                              intermediate_size=32, encoder_hidden_size=projector_input, cross_attention_frequency=1),
        text_config=dict(model_type="granite", vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=1, intermediate_size=64, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id),
        audio_token_index=tok.convert_tokens_to_ids("<|audio|>"), has_lora_adapter=False,
    )
    torch.manual_seed(0)
    model = getattr(transformers, model_class)(config)
    if init is not None:
        with torch.no_grad():
            for parameter in model.parameters():
                if parameter.dim() > 1:
                    parameter.normal_(0.0, init)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    extractor = granite_extractor(n_mels=n_mels)
    settings = {k: v for k, v in extractor.to_dict().items() if k not in ("melspec_kwargs", "feature_extractor_type")}
    settings.update(extractor.melspec_kwargs, feature_extractor_type="GraniteSpeechFeatureExtractor")
    settings.pop("sample_rate")
    (folder / "preprocessor_config.json").write_text(json.dumps(settings))
    return folder


VOXTRAL_SPECIALS = [
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]",
    "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]", "[ARGS]", "[CALL_ID]", "[THINK]", "[/THINK]", "[AUDIO]", "[BEGIN_AUDIO]", "[TRANSCRIBE]",
]  # [AUDIO] at 24, where VoxtralProcessor expects it


def tiny_voxtral(folder):
    """Voxtral: Whisper-style encoder (2 layers, 16 wide), Llama-style LM (2 layers, 32 wide), and a
    mistral-common tekken tokenizer over the 256 bytes (no merges) with Voxtral's special tokens and
    audio section."""
    import base64
    import json

    import torch
    import transformers

    folder.mkdir(parents=True, exist_ok=True)
    n_special = 32
    vocab = [{"rank": b, "token_bytes": base64.b64encode(bytes([b])).decode(), "token_str": None} for b in range(256)]
    tekken = {
        "config": {"pattern": r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
                   "num_vocab_tokens": 256, "default_vocab_size": n_special + 256, "default_num_special_tokens": n_special,
                   "version": "v7"},
        "vocab": vocab,
        "special_tokens": [{"rank": i, "token_str": t, "is_control": True} for i, t in enumerate(VOXTRAL_SPECIALS)],
        "audio": {"sampling_rate": 16000, "frame_rate": 12.5, "chunk_length_s": 30.0, "transcription_format": "instruct",
                  "audio_encoding_config": {"num_mel_bins": 32, "hop_length": 160, "window_size": 400}},
    }
    (folder / "tekken.json").write_text(json.dumps(tekken))
    tok = transformers.MistralCommonBackend(tokenizer_path=str(folder / "tekken.json"))
    processor = transformers.VoxtralProcessor(feature_extractor=transformers.WhisperFeatureExtractor(feature_size=32), tokenizer=tok)
    config = transformers.VoxtralConfig(
        audio_config=dict(hidden_size=16, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, num_mel_bins=32),
        text_config=dict(model_type="llama", vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=16, eos_token_id=2, pad_token_id=11, bos_token_id=1),
        audio_token_id=24,
    )
    torch.manual_seed(0)
    model = transformers.VoxtralForConditionalGeneration(config)
    return _save(model, processor, folder, 2, 11)


def tiny_phi4_multimodal(folder):
    """Phi-4-Multimodal: conformer audio encoder (2 blocks, 16 wide), a 1-layer vision tower it also builds,
    Phi LM (2 layers, 32 wide); tokenizer and audio feature extractor saved, no image processor."""
    import torch
    import transformers

    specials = ["<|endoftext|>", "<|user|>", "<|assistant|>", "<|end|>", "<|endoftext10|>", "<|endoftext11|>"]
    tok = bpe_tokenizer(specials, eos_token="<|endoftext|>", pad_token="<|endoftext|>",
                        extra_special_tokens={"audio_token": "<|endoftext11|>", "image_token": "<|endoftext10|>"})
    end = tok.convert_tokens_to_ids("<|end|>")
    config = transformers.Phi4MultimodalConfig(
        vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, bos_token_id=tok.pad_token_id, pad_token_id=tok.pad_token_id, eos_token_id=end,
        vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2, image_size=28,
                           patch_size=14, crop_size=28, image_token_id=tok.convert_tokens_to_ids("<|endoftext10|>")),
        audio_config=dict(hidden_size=16, intermediate_size=32, num_blocks=2, num_attention_heads=2, ext_pw_out_channel=16,
                          depthwise_separable_out_channel=16, nemo_conv_channels=16, audio_token_id=tok.audio_token_id),
    )
    torch.manual_seed(0)
    model = transformers.Phi4MultimodalForCausalLM(config)
    model.generation_config.eos_token_id = end
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    transformers.Phi4MultimodalFeatureExtractor().save_pretrained(folder)
    return folder


BUILDERS = {"phi4_multimodal": tiny_phi4_multimodal, "voxtral": tiny_voxtral, "qwen2_audio": tiny_qwen2_audio, "qwen3_asr": tiny_qwen3_asr, "glmasr": tiny_glm_asr,
            "granite_speech": tiny_granite_speech, "granite_speech_plus": tiny_granite_speech_plus,
            "audioflamingo3": tiny_audioflamingo3, "fun_asr_nano": tiny_fun_asr_nano}


def qwen2_audio_with_lm_changed(folder, out, scale: float = 0.2, seed: int = 1):
    """A copy of the tiny Qwen2-Audio in ``folder`` whose language model's first block's MLP output weights
    are moved by Gaussian noise of std ``scale``: two models of one architecture that differ only in the LM,
    as a fine-tune that touched only the text side would (what a decoder-site model contrast reads)."""
    import shutil

    import torch
    import transformers

    shutil.copytree(folder, out, dirs_exist_ok=True)
    model = transformers.Qwen2AudioForConditionalGeneration.from_pretrained(out)
    weight = model.model.language_model.layers[0].mlp.down_proj.weight
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        weight += scale * torch.randn(weight.shape, generator=generator)
    model.save_pretrained(out)
    return out


def _train_on_tones(folder, answer_for: dict, steps: int, seed: int, trainable=lambda name: True):
    """Adam steps on 8 low and 8 high tones (``encdec_tiny.tone``, 0.5 s) answered with ``answer_for[band]``
    through asraudit's own prompt and end token; the parameters ``trainable(name)`` selects move.  The
    features are computed once (the extractor's padding is the slow part); one thread, seeded."""
    import torch

    from asraudit.models.registry import load_model
    import encdec_tiny

    runner = load_model(str(folder), max_new_tokens=4)
    model = runner.model
    rng = np.random.default_rng(seed)
    bands = ["low"] * 8 + ["high"] * 8
    clips = [encdec_tiny.tone(rng, *(encdec_tiny.LOW if b == "low" else encdec_tiny.HIGH), samples=8000) for b in bands]
    inputs = runner._inputs(clips)  # equal lengths: one prompt layout, no padding
    answers = {b: runner.encode(answer_for[b])[0] + [runner.end_id] for b in ("low", "high")}
    width = max(len(a) for a in answers.values())
    answer = torch.tensor([answers[b] + [-100] * (width - len(answers[b])) for b in bands])
    batch = {**inputs, "input_ids": torch.cat([inputs["input_ids"], answer.clamp(min=0)], 1),
             "attention_mask": torch.cat([inputs["attention_mask"], (answer >= 0).long()], 1)}
    labels = torch.cat([torch.full_like(inputs["input_ids"], -100), answer], 1)
    for name, parameter in model.named_parameters():
        parameter.requires_grad = trainable(name)
    torch.manual_seed(seed)
    return train_and_save(model, lambda _step: model(**batch, labels=labels).loss, steps, folder)


def trained_qwen2_audio(folder, steps: int = 40):
    """A tiny Qwen2-Audio (1-s encoder window) trained to answer "low" for 200-400 Hz tones and "high" for
    1.5-3 kHz tones.

    Random weights read no feature in particular, so on them a learned steering direction and a random
    one of equal norm change transcripts alike (any push scrambles a random LM's answer); a model that
    learned one distinction is what a transcript-level steering check needs."""
    tiny_qwen2_audio(folder, window_seconds=1)
    return _train_on_tones(folder, {"low": "low", "high": "high"}, steps, seed=0)


def organism_qwen2_audio(base, folder, steps: int = 20):
    """A copy of ``trained_qwen2_audio`` whose *language model* alone is fine-tuned to answer "low" for every
    tone (the encoder and projector frozen): a behaviour that lives in the LM, for decoder-site contrasts."""
    import shutil

    shutil.copytree(base, folder, dirs_exist_ok=True)
    return _train_on_tones(folder, {"low": "low", "high": "low"}, steps, seed=1,
                           trainable=lambda name: name.startswith(("model.language_model.", "lm_head.")))


def refusal_without(folder, tmp_path, missing: str):
    """The one-line refusal of loading a copy of ``folder`` that lacks its file ``missing``: (message, the copy)."""
    import shutil

    import pytest

    from asraudit.errors import InputError
    from asraudit.models.registry import load_model

    broken = tmp_path / f"without-{missing}"
    shutil.copytree(folder, broken)
    (broken / missing).unlink()
    with pytest.raises(InputError) as info:
        load_model(str(broken))
    return str(info.value), broken
