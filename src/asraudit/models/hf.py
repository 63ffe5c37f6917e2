"""Hugging Face transformers models: seq2seq (Whisper-like) and CTC, with scoring.

Loaded with ``from_pretrained`` from a local directory or, when the user is
online, a hub id.  Scoring is exact in both families:

* seq2seq: teacher forcing.  The encoder runs once per clip; its output is
  expanded over the candidates, whose tokens (end-of-sequence included) are
  forced after the model's usual decoder prompt, and the log-softmax over the
  full vocabulary is read at each position.
* CTC: the whole-sequence log-likelihood, split into per-token terms by CTC
  prefix probabilities (see ``ctc_prefix``); the last term, stopping after the
  text, plays the part of end-of-sequence.

torch and transformers are imported lazily: they are the optional ``hf`` extra.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError
from asraudit.models.base import TokenScores, audio_batch, backend_options, check_option_values, model_options, score_arguments
from asraudit.models.ctc_prefix import ctc_token_logprobs
from asraudit.models.folder_check import load_processor, load_weights
from asraudit.models.hf_encdec import check_decoder_length, check_window, decoder_prompt, recipe_for
from asraudit.models.weights_digest import folder_digest
from asraudit.models.whisper_frontend import N_SAMPLES, WINDOWING, transcribe_in_windows
from asraudit.models.whisper_tokenizer import MULTILINGUAL_WHISPER_VOCAB, english_only_options

# Non-Whisper encoder-decoder families whose decoder prompt carries the language, or a punctuation switch
# (hf_encdec.decoder_prompt); the others' prompt is their start token alone.
LANGUAGE_PROMPTS = frozenset({"cohere_asr", "canary", "seamless_m4t", "seamless_m4t_v2"})
PUNCTUATION_PROMPTS = frozenset({"cohere_asr", "canary"})
# Where a family's config gives its encoder's input width other than as num_mel_bins (instead of it): (sub-config,
# key, frames stacked per encoder input), checked against the extractor's mel bins (``check_feature_size``).
FEATURE_WIDTHS = {
    "speech_to_text": [("", "input_feat_per_channel", 1)],
    "phi4_multimodal": [("audio_config", "input_size", 1)],
    "granite_speech": [("encoder_config", "input_dim", 2)],  # its extractor stacks two frames into one input
    "granite_speech_plus": [("encoder_config", "input_dim", 2)],  # Granite-Speech's extractor
}
_DTYPES = {None: "float32", "default": "float32", "float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}
CTC_END_TOKEN = "<end>"


@dataclass(frozen=True)
class HFDecodeOptions:
    """Settings that change transcripts (all enter ``config_hash``)."""

    beam_size: int = 1
    max_new_tokens: int = 224
    language: str | None = "en"  # multilingual Whisper only; see ct2_whisper for why not detection
    task: str = "transcribe"
    batch_size: int = 8
    # Added for non-Whisper families; None (the default) leaves existing config hashes unchanged.
    punctuation: bool | None = None  # NeMo multitask prompt (Canary, Cohere ASR): <|pnc|> or <|nopnc|>
    window_seconds: float | None = None  # long-audio window; None = the family's (hf_encdec.Recipe)

    def __post_init__(self) -> None:
        check_option_values(self, counts=("beam_size", "max_new_tokens", "batch_size"), texts_or_none=("language", "task"),
                            switches_or_none=("punctuation",), positive_or_none=("window_seconds",))

    def hashed(self) -> dict:
        """The settings for ``config_hash``: new fields only when set, so old hashes stay valid."""
        settings = asdict(self)
        for name in ("punctuation", "window_seconds"):
            if settings[name] is None:
                del settings[name]
        return settings


def _torch_dtype(compute_type: str | None):
    import torch

    if compute_type not in _DTYPES:
        raise ValueError(f"compute_type {compute_type!r} is not one of {sorted(k for k in _DTYPES if k)}")
    return getattr(torch, _DTYPES[compute_type])


def check_compute_type(compute_type: str | None) -> None:
    """An InputError for a compute type that is no torch dtype asraudit loads with (``int8`` is CTranslate2's, and
    was a ValueError traceback here), before anything is read."""
    if compute_type not in _DTYPES:
        raise InputError(f"compute type {compute_type!r} is not one a transformers model loads with (one of "
                         f"{', '.join(sorted(k for k in _DTYPES if k))}: a torch dtype; int8 and int8_float16 are "
                         "CTranslate2's)")


def _hash(settings: dict) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:16]


def tokenizer_of(processor):
    """A processor's tokenizer (a processor that is a tokenizer itself: that)."""
    return getattr(processor, "tokenizer", processor)


def encode_text(tokenizer, text: str, *, whisper: bool = False) -> tuple[list[int], tuple[tuple[int, int], ...]]:
    """The ids a seq2seq model writes ``text`` with (no prompt, no end), and each one's character span in it; a
    Whisper's text starts with a space, as its transcripts do."""
    if not text.strip():
        return [], ()
    prefix = " " if whisper and not text.startswith(" ") else ""
    shift = len(prefix)
    if getattr(tokenizer, "is_fast", False):
        enc = tokenizer(prefix + text, add_special_tokens=False, return_offsets_mapping=True)
        ids, spans = list(enc["input_ids"]), enc["offset_mapping"]
    else:
        # Slow tokenizers have no offset mapping: spans from the growing decoded prefix,
        # exact when decoding reproduces the text (byte-level BPE does).
        ids = list(tokenizer(prefix + text, add_special_tokens=False)["input_ids"])
        lengths = [len(tokenizer.decode(ids[:k])) for k in range(len(ids) + 1)]
        limit = len(prefix + text)
        spans = [(min(a, limit), min(b, limit)) for a, b in zip(lengths, lengths[1:])]
    offsets = tuple((max(0, s - shift), max(0, e - shift)) for s, e in spans)
    return ids, offsets


class _HFModel:
    backend = "hf"
    # The rate the runner gives the feature extractor (None: it resamples to the extractor's own).
    feature_rate: int | None = SAMPLE_RATE
    # A decoding fix that changed a backend's transcripts, named in ``config_hash`` (None: no such fix).
    transcript_rule: str | None = None

    def __init__(self, source: str, *, model_id: str | None, device: str, compute_type: str | None, revision: str | None, options: dict):
        from asraudit.models.torch_device import check_torch_device

        check_torch_device(device)  # before any weights load
        self.source = source
        self.model_id = model_id or f"hf:{source}"
        check_compute_type(compute_type)
        self.device = device
        self.compute_type = _DTYPES.get(compute_type, compute_type)
        self.revision = revision
        self.options = backend_options(HFDecodeOptions, options, self.model_id, also=("revision",))
        self._given = model_options(options)
        if self.used_options is not None:
            self.refuse_unused_options(self.used_options, self.runs)

    # The HFDecodeOptions this runner reads (None: the subclass checks after loading, when its family is known),
    # and what it runs, for the message refusing the others.
    used_options: tuple[str, ...] | None = None
    runs = ""

    def refuse_unused_options(self, used: tuple[str, ...], runs: str) -> None:
        """An InputError for an option given with a value other than its default that this family's runner never
        reads (``beam_size`` on a CTC model, ``language`` on an English-only family): accepted, it was ignored,
        and the run looked like the one asked for.  An option at its default changes nothing and is accepted."""
        defaults = {f.name: f.default for f in fields(HFDecodeOptions)}
        unused = sorted(name for name, value in self._given.items()
                        if name in defaults and name not in used and value != defaults[name])
        if unused:
            given = ", ".join(f"{name}={self._given[name]!r}" for name in unused)
            raise InputError(f"model {self.model_id!r} {runs}, so option {given} would change nothing: leave "
                             f"{'it' if len(unused) == 1 else 'them'} out (the options it reads: "
                             f"{', '.join(sorted(used))})")

    @property
    def config_hash(self) -> str:
        settings = {
            "backend": self.backend,
            "source": self.source,
            "revision": self.revision,
            "commit": getattr(self.model.config, "_commit_hash", None),
            # A local folder's content, not only its path: a model fine-tuned into the same folder must not be
            # answered with the old weights' stored results (weights_digest).  A hub id has its commit above.
            "weights": self._folder_content(),
            "compute_type": self.compute_type,
            "options": self.options.hashed(),
            "windowing": WINDOWING,
        }
        if self.transcript_rule is not None:  # a fix that changed transcripts: stored ones are not handed back
            settings["transcript_rule"] = self.transcript_rule
        completed = getattr(self, "_completed", None)  # settings asraudit read from the folder's other files
        if completed is not None:
            settings["completed"] = completed
        adapter = getattr(self.model, "asraudit_adapter", None)  # a PEFT adapter over the base (peft_adapter.py)
        if adapter is not None:
            settings["adapter"] = adapter["digest"]
        return _hash(settings)

    def _folder_content(self) -> str | None:
        """The local folder's content digest, read once per instance (None for a hub id)."""
        if getattr(self, "_content", None) is None:
            self._content = folder_digest(Path(self.source)) if Path(self.source).is_dir() else ""
        return self._content or None

    @classmethod
    def read_processor(cls, source: str, revision: str | None = None):
        """The folder's processor (tokenizer and feature extractor), as ``_load`` reads it beside the weights."""
        from transformers import AutoProcessor

        return load_processor(source, lambda: AutoProcessor.from_pretrained(source, revision=revision),
                              cls.feature_rate)

    @classmethod
    def text_counter(cls, source: str, model_type: str):
        """``text -> tokens`` its ``text_token_ids`` writes a text with, from the folder's tokenizer files alone (no
        weights): the count a decoder steering entry's forced positions are checked against; None when this
        family has no decoder positions."""
        return None

    def _load(self, auto_class):
        import torch

        self.processor = self.read_processor(self.source, self.revision)
        import transformers

        # transformers renamed torch_dtype to dtype in 4.56.
        major, minor = (int(x) for x in transformers.__version__.split(".")[:2])
        dtype_arg = "dtype" if (major, minor) >= (4, 56) else "torch_dtype"
        self.model = load_weights(auto_class, self.source, revision=self.revision,
                                  **{dtype_arg: _torch_dtype(self.compute_type)})
        self.model.to(self.device).eval()
        self._torch = torch
        self.check_processor_fits()

    def check_processor_fits(self) -> None:
        """The folder's processor files are the model's: its feature extractor gives the features the encoder
        takes, and its tokenizer no id the model lacks (checked at load, before any clip)."""
        self.check_feature_input()
        self.check_feature_size()
        self.check_tokenizer_fits()

    def check_feature_input(self) -> None:
        """InputError when the feature extractor gives another input than the model's encoder takes: a Whisper's
        extractor (``input_features``, log-mel frames) in a wav2vec2 CTC folder, whose encoder takes the samples
        (``input_values``), or a wav2vec2's in a Whisper folder.  Such a folder loaded, and the first clip stopped
        the run with ``KeyError: 'input_values'`` or transformers' ``ValueError: Make sure to provide either
        `input_features` ...``, tracebacks.  Only audio inputs are compared: a speech LLM's main input is its text
        (``input_ids``), its processor's extractor feeding the audio tower."""
        audio_inputs = ("input_values", "input_features")
        taken = getattr(self.model, "main_input_name", None)
        extractor = getattr(self.processor, "feature_extractor", None) or self.processor
        names = getattr(extractor, "model_input_names", None)
        given = names[0] if isinstance(names, (list, tuple)) and names else None
        if taken in audio_inputs and given in audio_inputs and given != taken:
            files = [n for n in ("preprocessor_config.json", "processor_config.json") if (Path(self.source) / n).is_file()]
            raise InputError(
                f"its feature extractor{f' ({files[0]})' if files else ''} is a {type(extractor).__name__}, which "
                f"gives {given}, and the model ({type(self.model).__name__}) takes {taken}: the extractor's file is "
                "another model's: put the model's own in the folder", self.source)

    def check_feature_size(self) -> None:
        """InputError when the feature extractor computes another number of mel bins than the model's encoder
        takes (config.json's num_mel_bins, in the model's or its audio or encoder sub-config; the families that
        name it otherwise in ``FEATURE_WIDTHS``): a preprocessor_config.json of another model (whisper-large-v3's
        128 mel bins in an 80-bin Whisper's folder) loaded, and the first clip stopped the run with torch's
        RuntimeError."""
        extractor = getattr(self.processor, "feature_extractor", None) or getattr(self.processor, "audio_processor", None)
        mel = getattr(extractor, "melspec_kwargs", None)
        given = mel.get("n_mels") if isinstance(mel, dict) and "n_mels" in mel else getattr(extractor, "feature_size", None)
        if not isinstance(given, int) or isinstance(given, bool) or given <= 1:  # 1: raw samples (wav2vec2, Moonshine)
            return
        config = self.model.config
        places = FEATURE_WIDTHS.get(config.model_type) or [(sub, "num_mel_bins", 1)
                                                           for sub in ("", "audio_config", "encoder_config")]
        for sub_name, key, frames in places:
            sub = getattr(config, sub_name, None) if sub_name else config
            taken = sub.get(key) if isinstance(sub, dict) else getattr(sub, key, None)
            if isinstance(taken, int) and not isinstance(taken, bool) and taken != given * frames:
                files = [n for n in ("preprocessor_config.json", "processor_config.json")
                         if (Path(self.source) / n).is_file()]
                stacked = f", stacked {frames} frames at a time ({given * frames} wide)" if frames != 1 else ""
                raise InputError(
                    f"its feature extractor{f' ({files[0]})' if files else ''} computes {given} mel bins{stacked}, "
                    f"but the model's encoder takes {taken // frames if frames != 1 else taken}"
                    f"{f' ({taken} wide)' if frames != 1 else ''} (config.json's "
                    f"{sub_name + '.' if sub_name else ''}{key}): the extractor's file is another model's: put the "
                    "model's own in the folder", self.source)

    def vocabulary_sizes(self) -> tuple[int | None, int | None, str]:
        """(the tokens the tokenizer can give, the ids the model's output layer has, what that layer is called)."""
        try:
            count = len(self.tokenizer)
        except TypeError:  # a tokenizer without a length (none of transformers' own)
            count = None
        layer = self.model.get_output_embeddings() if hasattr(self.model, "get_output_embeddings") else None
        limit = getattr(layer, "out_features", None) or getattr(layer, "num_embeddings", None)
        if limit is None:
            config = getattr(self.model.config, "text_config", None) or self.model.config
            limit = getattr(config, "vocab_size", None)
        return count, limit, "output layer"

    def check_tokenizer_fits(self) -> None:
        """InputError when the folder's tokenizer has more tokens than the model has outputs: tokenizer files of
        another model (copied in, or a folder assembled from two downloads).  Its ids past the model's last
        were an IndexError traceback when a text was scored, and the ids below it decoded into another model's
        words, a transcript of nonsense stored as the model's."""
        count, limit, layer = self.vocabulary_sizes()
        if count is not None and limit is not None and int(count) > int(limit):
            raise InputError(f"its tokenizer has {int(count):,} tokens, but the model's {layer} has {int(limit):,}: "
                             "the tokenizer files are another model's (its ids would name other words, or none the "
                             "model has): put the model's own tokenizer files in the folder", self.source)

    @property
    def tokenizer(self):
        return getattr(self.processor, "tokenizer", self.processor)


class HFSeq2Seq(_HFModel):
    """A transformers speech seq2seq model (Whisper, Speech2Text, ...)."""

    backend = "hf-seq2seq"

    def __init__(self, source: str, *, model_id: str | None = None, device: str = "cpu", compute_type: str | None = None, revision: str | None = None, **options):
        super().__init__(source, model_id=model_id, device=device, compute_type=compute_type, revision=revision, options=options)
        from transformers import AutoModelForSpeechSeq2Seq

        self._load(AutoModelForSpeechSeq2Seq)
        self.is_whisper = self.model.config.model_type == "whisper"
        generation = self.model.generation_config
        if self.is_whisper:
            self._whisper_languages_from_vocabulary(generation)
        self.multilingual = self.is_whisper and bool(getattr(generation, "lang_to_id", None))
        if self.is_whisper:
            self._check_whisper_options(generation)
        self.refuse_unused_options(*self._options_read())
        self.recipe = recipe_for(self.model, self.processor)
        self.window_seconds = check_window(self.model_id, self.recipe, self.options.window_seconds)
        self._prompt = self._build_prompt()
        check_decoder_length(self.model_id, self.model, len(self._prompt), self.options.max_new_tokens)

    def _options_read(self) -> tuple[tuple[str, ...], str]:
        """The options this family's decoding reads, and what it runs (for ``refuse_unused_options``)."""
        model_type = self.model.config.model_type
        if self.is_whisper:  # one 30-s window per decode, no punctuation switch
            return ("beam_size", "max_new_tokens", "language", "task", "batch_size"), \
                "is a Whisper (30-s windows, no punctuation switch in its prompt)"
        used = ["beam_size", "max_new_tokens", "batch_size", "window_seconds"]
        if model_type in LANGUAGE_PROMPTS:
            used.append("language")
        if model_type in PUNCTUATION_PROMPTS:
            used.append("punctuation")
        said = {"language": "a language", "punctuation": "a punctuation switch"}
        has = " and ".join(said[name] for name in ("language", "punctuation") if name in used)
        return tuple(used), (f"is {model_type}, whose decoder prompt carries {has} and no task" if has else
                             f"is {model_type}, whose decoder prompt carries no language, task or punctuation switch")

    def _whisper_languages_from_vocabulary(self, generation) -> None:
        """A multilingual Whisper's language and task tokens, read from its vocabulary when the folder's
        generation config lacks them (no generation_config.json, or one saved before transformers wrote
        lang_to_id, as older fine-tunes are): the model was taken for an English-only one, its prompt built
        without the language and task tokens it was trained with (other transcripts, silently), and a
        ``language`` option refused as if its vocabulary had none."""
        if getattr(generation, "lang_to_id", None) or int(self.model.config.vocab_size) < MULTILINGUAL_WHISPER_VOCAB:
            return  # English-only Whispers' tokenizers hold the language tokens too: their size tells them apart
        from transformers.models.whisper.tokenization_whisper import LANGUAGES

        vocab = self.tokenizer.get_vocab()
        languages = {f"<|{code}|>": int(vocab[f"<|{code}|>"]) for code in LANGUAGES if f"<|{code}|>" in vocab}
        tasks = {task: int(vocab[f"<|{task}|>"]) for task in ("transcribe", "translate") if f"<|{task}|>" in vocab}
        if not languages or "transcribe" not in tasks or "<|notimestamps|>" not in vocab:
            return  # an English-only vocabulary
        generation.lang_to_id, generation.task_to_id, generation.is_multilingual = languages, tasks, True
        generation.no_timestamps_token_id = int(vocab["<|notimestamps|>"])
        self._completed = "whisper languages from the vocabulary"  # in config_hash: results stored before differ

    def _check_whisper_options(self, generation) -> None:
        """The language and task a Whisper prompt can carry, checked when the model loads.

        The prompt's tokens are looked up by name: an unknown code (``xx``, or ``auto``: this backend does not
        detect) became the tokenizer's unknown token, and an English-only model ignored the options."""
        opts = self.options
        if not self.multilingual:
            english_only_options(opts.language, opts.task)
            return
        if opts.language is not None and f"<|{opts.language}|>" not in generation.lang_to_id:
            codes = sorted(t.strip("<|>") for t in generation.lang_to_id)
            raise InputError(f"option language {opts.language!r} is not a language of this Whisper (its codes: "
                             f"{', '.join(codes[:12])}{', ...' if len(codes) > 12 else ''}); this backend does not "
                             "detect the language")
        tasks = getattr(generation, "task_to_id", None) or {"transcribe": None, "translate": None}
        if opts.task not in tasks:
            raise InputError(f"option task {opts.task!r}: one of {', '.join(sorted(tasks))}")

    # -- inputs -----------------------------------------------------------

    def _inputs(self, windows: Sequence[np.ndarray]) -> dict:
        extractor = getattr(self.processor, "feature_extractor", self.processor)
        if self.is_whisper:
            features = extractor(list(windows), sampling_rate=SAMPLE_RATE, return_tensors="pt", return_attention_mask=False)
        else:
            features = extractor(list(windows), sampling_rate=SAMPLE_RATE, return_tensors="pt", **dict(self.recipe.feature_kwargs))
        dtype = self.model.dtype
        # Only tensors go to the model (Cohere ASR's extractor also returns chunk bookkeeping lists).
        # Utterance mean/variance normalisation (Speech2Text) divides 0 by 0 on exact silence; the
        # normalised value of a constant feature is 0, so NaN (and the +-inf of 0-std rounding) becomes 0.
        return {k: (self._torch.nan_to_num(v, nan=0.0, posinf=0.0, neginf=0.0).to(self.device, dtype) if v.is_floating_point() else v.to(self.device))
                for k, v in features.items() if hasattr(v, "is_floating_point")}

    def _eos_id(self) -> int:
        eos = self.model.generation_config.eos_token_id
        if eos is None:
            eos = self.tokenizer.eos_token_id
        return int(eos[0] if isinstance(eos, (list, tuple)) else eos)

    def prompt_ids(self) -> list[int]:
        """The decoder's start sequence: Whisper's special tokens, a NeMo multitask prompt, or the start token."""
        return list(self._prompt)

    def _build_prompt(self) -> list[int]:
        if not self.is_whisper:
            return decoder_prompt(self.model, self.processor, self.tokenizer, self.model_id,
                                  language=self.options.language, punctuation=self.options.punctuation is not False)
        tok = self.tokenizer
        ids = [int(self.model.config.decoder_start_token_id)]
        if self.multilingual:
            ids += [tok.convert_tokens_to_ids(f"<|{self.options.language or 'en'}|>"), tok.convert_tokens_to_ids(f"<|{self.options.task}|>")]
        ids.append(tok.convert_tokens_to_ids("<|notimestamps|>"))
        return ids

    # -- transcription ----------------------------------------------------

    def _generate(self, windows: list[np.ndarray]) -> list[str]:
        opts = self.options
        # Greedy or beam search, whatever the folder's generation_config.json asks: its do_sample (with a
        # temperature) would make every transcript a random draw, stored as the model's one answer.
        # And one sequence per window: its num_return_sequences would return several, read as the next clips'.
        kwargs = {"num_beams": opts.beam_size, "max_new_tokens": opts.max_new_tokens, "do_sample": False,
                  "num_return_sequences": 1}
        if self.is_whisper:
            kwargs["return_timestamps"] = False
            if self.multilingual:
                kwargs.update(language=opts.language, task=opts.task)
        else:
            # The family's own prompt, forced; only what follows it is the transcript.
            kwargs["decoder_input_ids"] = self._torch.tensor([self._prompt] * len(windows), device=self.device)
        with self._torch.inference_mode():
            sequences = self.model.generate(**self._inputs(windows), **kwargs)
        if not isinstance(sequences, self._torch.Tensor):
            sequences = sequences.sequences
        if not self.is_whisper:
            sequences = sequences[:, len(self._prompt):]
        return [t.strip() for t in self.tokenizer.batch_decode(sequences, skip_special_tokens=True)]

    def _generate_equal_lengths(self, windows: list[np.ndarray]) -> list[str]:
        """``_generate`` on runs of equal-length windows only (for models whose padding leaks)."""
        texts: list[str] = []
        start = 0
        while start < len(windows):
            end = start + 1
            while end < len(windows) and len(windows[end]) == len(windows[start]):
                end += 1
            texts.extend(self._generate(windows[start:end]))
            start = end
        return texts

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        if self.is_whisper:
            return transcribe_in_windows(audio, self._generate, self.options.batch_size)
        window = int(round(self.window_seconds * SAMPLE_RATE))
        decode = self._generate if self.recipe.pads_exactly else self._generate_equal_lengths
        return transcribe_in_windows(audio, decode, self.options.batch_size, window_samples=window, by_length=True)

    # -- scoring ----------------------------------------------------------

    def _encode_text(self, text: str) -> tuple[list[int], tuple[tuple[int, int], ...]]:
        return encode_text(self.tokenizer, text, whisper=self.is_whisper)

    @classmethod
    def text_counter(cls, source: str, model_type: str):
        tokenizer = tokenizer_of(cls.read_processor(source))
        whisper = model_type == "whisper"
        return lambda text: len(encode_text(tokenizer, text, whisper=whisper)[0])

    def _check_forced(self, candidates: Sequence[str], encoded, prompt: int, eos: int) -> None:
        """An InputError for a candidate the decoder cannot be forced through: longer than its positions (an
        IndexError from the position embeddings), or, for a Whisper, holding a special token (scored as if it were
        text: end-of-text forced mid-sentence), worded as ``candidate_check`` words it before any model loads."""
        from asraudit.models.forced_text import special_token, too_long
        from asraudit.models.hf_encdec import decoder_positions

        limit = decoder_positions(self.model.config)
        for text, (ids, _) in zip(candidates, encoded):
            why = special_token(text, ids, self.tokenizer.convert_ids_to_tokens(ids), eos) if self.is_whisper else None
            if why is None and isinstance(limit, int):
                why = too_long(len(ids), prompt, limit, self.model_id)
            if why is not None:
                raise InputError(why)

    @property
    def score_seconds(self) -> float | None:
        """The longest clip ``score`` takes (``ScoringModel``): a Whisper's window, else the family's hard limit."""
        return N_SAMPLES / SAMPLE_RATE if self.is_whisper else self.recipe.hard_limit_seconds

    def score(self, audio: np.ndarray, candidates: Sequence[str], *, batch_size: int = 8) -> list[TokenScores]:
        audio, candidates = score_arguments(audio, candidates)
        torch = self._torch
        audio = np.asarray(audio, dtype=np.float32)
        if self.is_whisper and audio.shape[0] > N_SAMPLES:
            raise InputError(f"cannot score {audio.shape[0] / SAMPLE_RATE:.1f} s of audio: Whisper attends to one 30-s window")
        limit = self.recipe.hard_limit_seconds
        if limit is not None and audio.shape[0] > limit * SAMPLE_RATE:
            raise InputError(f"cannot score {audio.shape[0] / SAMPLE_RATE:.1f} s of audio: {self.recipe.family} attends to at most {limit:g} s")
        inputs = self._inputs([audio])
        prompt, eos = self.prompt_ids(), self._eos_id()
        encoded = [self._encode_text(text) for text in candidates]
        self._check_forced(candidates, encoded, len(prompt), eos)
        out: list[TokenScores] = []
        with torch.inference_mode():
            encoder_output = self.model.get_encoder()(**{k: v for k, v in inputs.items() if k != "attention_mask"} if self.is_whisper else inputs)
            for start in range(0, len(candidates), max(1, batch_size)):
                chunk = list(range(start, min(len(candidates), start + max(1, batch_size))))
                rows = [prompt + encoded[i][0] for i in chunk]
                width = max(len(r) for r in rows)
                # Right padding never reaches earlier positions through the causal decoder.
                ids = torch.tensor([r + [eos] * (width - len(r)) for r in rows], device=self.device)
                extra = {}
                if "attention_mask" in inputs and not self.is_whisper:
                    extra["attention_mask"] = inputs["attention_mask"].expand(len(chunk), -1)
                logits = self.model(
                    encoder_outputs=_expanded(encoder_output, len(chunk)), decoder_input_ids=ids, **extra
                ).logits
                logprobs = torch.log_softmax(logits.float(), dim=-1).cpu().numpy()
                for row, i in enumerate(chunk):
                    tokens, offsets = encoded[i]
                    targets = tokens + [eos]
                    positions = np.arange(len(prompt) - 1, len(prompt) - 1 + len(targets))
                    values = logprobs[row, positions, targets]
                    end = len(candidates[i])
                    out.append(
                        TokenScores(
                            text=candidates[i],
                            tokens=tuple(self.tokenizer.convert_ids_to_tokens(targets)),
                            logprobs=tuple(float(v) for v in values),
                            token_ids=tuple(int(t) for t in targets),
                            offsets=offsets + ((end, end),),
                        )
                    )
        return out


def _expanded(encoder_output, rows: int):
    """The encoder's output (a ModelOutput of one clip) repeated for ``rows`` candidates.

    Every field is kept (some families' decoders read the encoder's own
    attention mask from it, Moonshine and Cohere ASR among them).  Copied,
    not a view: Moonshine-Streaming's decoder adds its position embeddings
    to the encoder states in place, which would otherwise accumulate in the
    one encoder pass shared by every chunk of candidates."""
    return encoder_output.__class__(**{
        key: (value.expand(rows, *value.shape[1:]).clone() if hasattr(value, "expand") and value.shape[0] == 1 else value)
        for key, value in encoder_output.items()
    })


class HFCTC(_HFModel):
    """A transformers CTC model (wav2vec2, HuBERT, ...)."""

    backend = "hf-ctc"
    used_options = ("batch_size",)
    # Transcripts before this rule merged doubled letters (``_decode``); it enters the hash so that a store
    # holding them computes them again.
    transcript_rule = "ctc: repeats merged, then the blank removed"
    runs = "is a CTC model, decoded greedily frame by frame over the whole clip, with no prompt"

    def vocabulary_sizes(self) -> tuple[int | None, int | None, str]:
        # The base vocabulary: a CTC tokenizer adds <s> and </s>, which no frame emits and no text is encoded with.
        config = self.model.config
        return getattr(self.tokenizer, "vocab_size", None), getattr(config, "vocab_size", None), "CTC output layer"

    def __init__(self, source: str, *, model_id: str | None = None, device: str = "cpu", compute_type: str | None = None, revision: str | None = None, **options):
        super().__init__(source, model_id=model_id, device=device, compute_type=compute_type, revision=revision, options=options)
        from transformers import AutoModelForCTC

        self._load(AutoModelForCTC)
        self.blank = int(self.model.config.pad_token_id)

    def _log_probs(self, audio: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Frame log-posteriors ``[frames, vocab]`` per clip, padding frames removed."""
        torch = self._torch
        extractor = getattr(self.processor, "feature_extractor", self.processor)
        batch = extractor(
            [np.asarray(a, dtype=np.float32) for a in audio],
            sampling_rate=SAMPLE_RATE,
            return_tensors="pt",
            padding=True,
            return_attention_mask=True,
        )
        values = batch["input_values"].to(self.device, self.model.dtype)
        kwargs = {}
        if getattr(self.model.config, "feat_extract_norm", "group") == "layer":
            # Models trained with attention masks need them; group-norm models must not get one.
            kwargs["attention_mask"] = batch["attention_mask"].to(self.device)
        with torch.inference_mode():
            logits = self.model(values, **kwargs).logits
            lengths = self.model._get_feat_extract_output_lengths(batch["attention_mask"].sum(-1))
            logprobs = torch.log_softmax(logits.float(), dim=-1).cpu().numpy()
        return [logprobs[i, : int(lengths[i])] for i in range(len(audio))]

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        texts: list[str] = []
        audio = audio_batch(audio)
        step = max(1, self.options.batch_size)
        for start in range(0, len(audio), step):
            texts.extend(self._decode(lp.argmax(-1).tolist()) for lp in self._log_probs(audio[start : start + step]))
        return texts

    def _decode(self, frame_ids: Sequence[int]) -> str:
        """The greedy path collapsed as CTC defines it (repeats merged, then the blank removed), then its tokens'
        text.  ``decode(path, skip_special_tokens=True)`` removed wav2vec2's blank, ``<pad>``, a special token,
        *before* merging repeats, so the two ``l`` frames of "hel<pad>lo" merged into one: every doubled letter
        was written once ("hello" as "helo"), a silently wrong transcript of every wav2vec2-style model."""
        ids = [int(k) for k, _ in itertools.groupby(frame_ids) if int(k) != self.blank]
        groups = "group_tokens" in inspect.signature(self.tokenizer._decode).parameters
        return self.tokenizer.decode(ids, skip_special_tokens=True, **({"group_tokens": False} if groups else {})).strip()

    def _labels(self, text: str) -> list[int]:
        ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        unk = self.tokenizer.unk_token_id
        if unk is not None and unk in ids:
            vocab = self.tokenizer.get_vocab()
            unknown = sorted({ch for ch in text if ch != " " and ch not in vocab})
            raise ValueError(
                f"candidate {text[:60]!r} has characters outside the CTC vocabulary ({''.join(unknown) or 'unknown tokens'}): "
                "normalise candidates the way the model's training text was"
            )
        return ids

    def score(self, audio: np.ndarray, candidates: Sequence[str]) -> list[TokenScores]:
        audio, candidates = score_arguments(audio, candidates)
        (lp,) = self._log_probs([audio])
        out = []
        for text in candidates:
            labels = self._labels(text)
            per_label, end = ctc_token_logprobs(lp, labels, self.blank)
            out.append(
                TokenScores(
                    text=text,
                    tokens=tuple(self.tokenizer.convert_ids_to_tokens(labels)) + (CTC_END_TOKEN,),
                    logprobs=tuple(float(v) for v in per_label) + (end,),
                    token_ids=tuple(labels) + (-1,),
                    offsets=self._offsets(text, labels) + ((len(text), len(text)),),
                )
            )
        return out

    def _offsets(self, text: str, labels: Sequence[int]) -> tuple[tuple[int, int], ...]:
        """Each label's character span in ``text`` (families with a fast tokenizer read its offset mapping)."""
        return _char_offsets(text, self.tokenizer, labels)


def _char_offsets(text: str, tokenizer, labels: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Spans of CTC labels in ``text``: each label's string found left to right.

    CTC tokenizers are character-level and usually slow (no offset mapping);
    the word delimiter (``|``) stands for a space.
    """
    delimiter = getattr(tokenizer, "word_delimiter_token", None)
    spans = []
    pos = 0
    for token in tokenizer.convert_ids_to_tokens(list(labels)):
        piece = " " if token == delimiter else token
        found = text.find(piece, pos)
        if found < 0:
            found = text.lower().find(piece.lower(), pos)
        if found < 0:
            spans.append((pos, pos))
            continue
        spans.append((found, found + len(piece)))
        pos = found + len(piece)
    return tuple(spans)
