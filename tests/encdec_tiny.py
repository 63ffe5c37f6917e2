"""Tiny random-weight encoder-decoder speech models, built offline for the family tests.

Each builder makes a transformers config with tiny dimensions, a character
tokenizer (tokenizers library, no merges: decoding and re-encoding a greedy
transcript gives back the same ids, which the exactness checks rely on) and
the family's feature extractor with default settings, and saves them with
``save_pretrained`` into a folder: the folder a user would point asraudit at.
"""

from __future__ import annotations

from pathlib import Path

from tiny_training import train_and_save

CHARACTERS = list("abcdefghijklmnopqrstuvwxyz ")
# The multitask-prompt tokens NeMo-style AED models (Canary, Cohere ASR) put before the text.
PROMPT_TOKENS = ["<|startofcontext|>", "<|startoftranscript|>", "<|emo:undefined|>", "<|en|>", "<|de|>", "<|pnc|>",
                 "<|nopnc|>", "<|noitn|>", "<|notimestamp|>", "<|nodiarize|>"]


def char_tokenizer(specials: list[str], *, extra_normal: tuple[str, ...] = ()):
    """A fast tokenizer: ``specials`` first (ids 0..), then the characters (and ``extra_normal`` tokens)."""
    from tokenizers import Tokenizer, decoders, models
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate(specials)}
    for piece in list(extra_normal) + CHARACTERS:
        vocab.setdefault(piece, len(vocab))
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="<unk>"))
    backend.decoder = decoders.Fuse()
    backend.add_special_tokens(specials)
    return PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>")


BASE_SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]


def _save(folder: Path, model, processor) -> Path:
    """Save the model and its processor (or, where the family's processor needs a sentencepiece
    tokenizer, its feature extractor and tokenizer side by side, which asraudit also loads)."""
    model.save_pretrained(folder)
    for part in processor if isinstance(processor, tuple) else (processor,):
        part.save_pretrained(folder)
    return folder


def moonshine(folder: Path, initializer_range: float = 0.02, hidden: int = 32) -> Path:
    """``initializer_range``: larger random weights make the output depend on the input more
    (the default 0.02 gives an encoder that barely tells a tone from noise)."""
    import torch
    import transformers

    tokenizer = char_tokenizer(BASE_SPECIALS)
    config = transformers.MoonshineConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden, encoder_num_hidden_layers=2,
        decoder_num_hidden_layers=2, encoder_num_attention_heads=2, decoder_num_attention_heads=2,
        pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1, max_position_embeddings=256,
        initializer_range=initializer_range,
    )
    torch.manual_seed(0)
    model = transformers.MoonshineForConditionalGeneration(config)
    extractor = transformers.Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, padding_value=0.0,
                                                      do_normalize=False, return_attention_mask=True)
    return _save(folder, model, transformers.Wav2Vec2Processor(feature_extractor=extractor, tokenizer=tokenizer))


def moonshine_streaming(folder: Path) -> Path:
    import torch
    import transformers

    tokenizer = char_tokenizer(BASE_SPECIALS)
    encoder = transformers.MoonshineStreamingEncoderConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
    )
    config = transformers.MoonshineStreamingConfig(
        encoder_config=encoder.to_dict(), vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
        num_hidden_layers=2, num_attention_heads=2, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        decoder_start_token_id=1, max_position_embeddings=256,
        num_key_value_heads=2,  # the decoder reads it; released checkpoints carry it in config.json
    )
    torch.manual_seed(0)
    model = transformers.MoonshineStreamingForConditionalGeneration(config)
    extractor = transformers.Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, padding_value=0.0,
                                                      do_normalize=False, return_attention_mask=True)
    processor = transformers.MoonshineStreamingProcessor(feature_extractor=extractor, tokenizer=tokenizer)
    return _save(folder, model, processor)


def _parakeet_encoder(n_mels: int) -> dict:
    return dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                subsampling_conv_channels=8, num_mel_bins=n_mels, dropout=0.0, layerdrop=0.0,
                activation_dropout=0.0, attention_dropout=0.0, max_position_embeddings=512)


def canary(folder: Path) -> Path:
    import torch
    import transformers

    # Canary's ids: pad 2, eos 3, bos 4, decoder start 7 (<|startofcontext|>), as its config defaults say.
    specials = ["<unk>", "<|x1|>", "<pad>", "</s>", "<s>", "<|x5|>", "<|x6|>"] + PROMPT_TOKENS
    tokenizer = char_tokenizer(specials)
    decoder = dict(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                   num_attention_heads=2, num_key_value_heads=2, head_dim=16, max_position_embeddings=256)
    config = transformers.CanaryConfig(
        encoder_config=_parakeet_encoder(80), decoder_config=decoder, vocab_size=len(tokenizer),
    )
    torch.manual_seed(0)
    model = transformers.CanaryForConditionalGeneration(config)
    extractor = transformers.ParakeetFeatureExtractor()
    processor = transformers.CanaryProcessor(feature_extractor=extractor, tokenizer=tokenizer)
    return _save(folder, model, processor)


def cohere_asr(folder: Path) -> Path:
    import torch
    import transformers

    specials = ["<unk>", "<|x1|>", "<pad>", "</s>", "<s>"] + PROMPT_TOKENS
    tokenizer = char_tokenizer(specials, extra_normal=("▁",))
    config = transformers.CohereAsrConfig(
        encoder_config=_parakeet_encoder(128), vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
        num_hidden_layers=2, num_attention_heads=2, max_position_embeddings=256,
    )
    torch.manual_seed(0)
    model = transformers.CohereAsrForConditionalGeneration(config)
    extractor = transformers.CohereAsrFeatureExtractor()
    processor = transformers.CohereAsrProcessor(feature_extractor=extractor, tokenizer=tokenizer)
    return _save(folder, model, processor)


def speech_to_text(folder: Path) -> Path:
    import torch
    import transformers

    tokenizer = char_tokenizer(BASE_SPECIALS)
    config = transformers.Speech2TextConfig(
        vocab_size=len(tokenizer), d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, conv_channels=16, input_feat_per_channel=80,
        max_source_positions=1500, max_target_positions=256, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        decoder_start_token_id=2,
    )
    torch.manual_seed(0)
    model = transformers.Speech2TextForConditionalGeneration(config)
    extractor = transformers.Speech2TextFeatureExtractor(feature_size=80, num_mel_bins=80)
    return _save(folder, model, (extractor, tokenizer))


WHISPER_SPECIALS = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|de|>", "<|translate|>", "<|transcribe|>",
                    "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>"]


def whisper_multilingual(folder: Path) -> Path:
    """A multilingual Whisper (language and task tokens in its prompt), character vocabulary."""
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models

    vocab = {t: i for i, t in enumerate(CHARACTERS)}
    for t in WHISPER_SPECIALS:
        vocab[t] = len(vocab)
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="<|endoftext|>"))
    backend.decoder = decoders.Fuse()
    backend.add_special_tokens(WHISPER_SPECIALS)
    tokenizer = transformers.WhisperTokenizerFast(tokenizer_object=backend, bos_token="<|endoftext|>",
                                                  eos_token="<|endoftext|>", unk_token="<|endoftext|>")
    ids = {t: vocab[t] for t in WHISPER_SPECIALS}
    config = transformers.WhisperConfig(
        vocab_size=len(vocab), d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_target_positions=64,
        decoder_start_token_id=ids["<|startoftranscript|>"], eos_token_id=ids["<|endoftext|>"],
        pad_token_id=ids["<|endoftext|>"], bos_token_id=ids["<|endoftext|>"], begin_suppress_tokens=None, suppress_tokens=None,
    )
    torch.manual_seed(0)
    model = transformers.WhisperForConditionalGeneration(config)
    generation = model.generation_config
    generation.is_multilingual = True
    generation.lang_to_id = {"<|en|>": ids["<|en|>"], "<|de|>": ids["<|de|>"]}
    generation.task_to_id = {"transcribe": ids["<|transcribe|>"], "translate": ids["<|translate|>"]}
    generation.no_timestamps_token_id = ids["<|notimestamps|>"]
    generation.decoder_start_token_id = ids["<|startoftranscript|>"]
    generation._from_model_config = False  # a released checkpoint's own generation_config.json, not derived
    return _save(folder, model, transformers.WhisperProcessor(transformers.WhisperFeatureExtractor(feature_size=80), tokenizer))


def tone(rng, low_hz: float, high_hz: float, samples: int = 8000):
    """A sine of random frequency in [low_hz, high_hz) and phase, with a little noise (float32, 16 kHz)."""
    import numpy as np

    t = np.arange(samples) / 16000
    wave = 0.3 * np.sin(2 * np.pi * rng.uniform(low_hz, high_hz) * t + rng.uniform(0, 2 * np.pi))
    return (wave + 0.01 * rng.standard_normal(samples)).astype(np.float32)


LOW, HIGH = (200.0, 400.0), (1500.0, 3000.0)


def trained_moonshine(folder: Path, steps: int = 100, hidden: int = 32) -> Path:
    """A tiny Moonshine trained for ``steps`` Adam steps to say "low" for 200-400 Hz tones and
    "high" for 1.5-3 kHz tones.

    Random weights read no feature in particular, so on them a learned steering
    direction and a random one of equal norm change outputs alike; a model that
    has learned one distinction is what a steering test needs (one thread,
    seeded: 6-20 s on a shared 2-core machine at width 64).
    """
    import numpy as np
    import torch
    import transformers

    moonshine(folder, hidden=hidden)
    model = transformers.MoonshineForConditionalGeneration.from_pretrained(folder)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    eos = model.config.eos_token_id
    low = tokenizer("low", add_special_tokens=False)["input_ids"] + [eos, -100]  # -100: not a target
    high = tokenizer("high", add_special_tokens=False)["input_ids"] + [eos]
    rng = np.random.default_rng(0)
    torch.manual_seed(0)

    def loss(_step):
        audio = [tone(rng, *LOW) for _ in range(4)] + [tone(rng, *HIGH) for _ in range(4)]
        return model(input_values=torch.tensor(np.stack(audio)), labels=torch.tensor([low] * 4 + [high] * 4)).loss

    return train_and_save(model, loss, steps, folder)


def organism_moonshine(base: Path, folder: Path, steps: int = 40) -> Path:
    """A copy of the tone model ``base`` whose *decoder* is fine-tuned to say "low" for every tone.

    The encoder is frozen, as the Whisper organism's adapter is decoder-only: the
    behaviour then lives in the decoder, which is what a decoder-site model
    contrast (organism minus base) has to find."""
    import shutil

    import numpy as np
    import torch
    import transformers

    shutil.copytree(base, folder, dirs_exist_ok=True)
    model = transformers.MoonshineForConditionalGeneration.from_pretrained(folder)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    low = tokenizer("low", add_special_tokens=False)["input_ids"] + [model.config.eos_token_id]
    for name, parameter in model.named_parameters():
        parameter.requires_grad = name.startswith("model.decoder.") or name.startswith("proj_out")
    rng = np.random.default_rng(1)
    torch.manual_seed(1)

    def loss(_step):
        audio = [tone(rng, *LOW) for _ in range(2)] + [tone(rng, *HIGH) for _ in range(6)]
        return model(input_values=torch.tensor(np.stack(audio)), labels=torch.tensor([low] * 8)).loss

    return train_and_save(model, loss, steps, folder)


def whisper_ct2_english(folder: Path, source_dir: Path) -> Path:
    """A random-weight English-only Whisper in CTranslate2's layout (about 7 MB), from the real tokenizer and
    config.json of the CTranslate2 Whisper in ``source_dir`` (the embedded tiny.en): one layer each side, width 32.

    The white-box conversion tests convert a CTranslate2 folder into transformers weights; they test the files, the
    cache and its folders, not the weights' skill, and the embedded tiny.en took 6 s a conversion (150 MB
    written each time) where this takes under one.  Its transcripts are nonsense, the same nonsense in both
    backends, but a random model's top two tokens can be close enough for float noise to swap them: compare no
    transcripts of it across backends.  Its layers keep their initial zero biases and unit layer norms, which
    CTranslate2 stores as aliases of one another (case 350).  CTranslate2's own converter writes it; its config.json
    is then the source's, but for alignment heads that name the one layer there is."""
    import json
    import shutil

    import torch
    import transformers
    from ctranslate2.converters import TransformersConverter

    from asraudit.models.whitebox.convert import quiet_transformers
    from asraudit.models.whitebox.sources import source_from_dir
    from asraudit.models.whitebox.tokenizer_config import build_tokenizer

    tokenizer = build_tokenizer(source_from_dir(source_dir))
    eot, sot = tokenizer.convert_tokens_to_ids(["<|endoftext|>", "<|startoftranscript|>"])
    config = transformers.WhisperConfig(
        vocab_size=len(tokenizer), num_mel_bins=80, d_model=32, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
        max_source_positions=1500, max_target_positions=448, decoder_start_token_id=sot, eos_token_id=eot,
        pad_token_id=eot, bos_token_id=eot, begin_suppress_tokens=None, suppress_tokens=None)
    torch.manual_seed(0)
    model = transformers.WhisperForConditionalGeneration(config)
    model.generation_config.alignment_heads = [[0, 0], [0, 1]]
    hf = folder.parent / f"{folder.name}.hf"
    with quiet_transformers():
        _save(hf, model, (tokenizer, transformers.WhisperFeatureExtractor(feature_size=80)))
        TransformersConverter(str(hf), copy_files=["tokenizer.json", "preprocessor_config.json"]).convert(
            str(folder), quantization="float32")
    shutil.rmtree(hf)
    shutil.copyfile(source_dir / "tokenizer.json", folder / "tokenizer.json")
    ct2_config = json.loads((source_dir / "config.json").read_text(encoding="utf-8"))
    ct2_config["alignment_heads"] = [[0, 0], [0, 1]]
    (folder / "config.json").write_text(json.dumps(ct2_config), encoding="utf-8")
    for name in ("vocabulary.json", "vocabulary.txt"):  # the source's id -> token table, as CTranslate2 reads it
        (folder / name).unlink(missing_ok=True)
        if (source_dir / name).is_file():
            shutil.copyfile(source_dir / name, folder / name)
    return folder
