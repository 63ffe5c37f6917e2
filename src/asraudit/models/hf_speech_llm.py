"""Speech LLMs through transformers: an audio encoder feeding a decoder-only language model.

Qwen2-Audio, Qwen3-ASR, GLM-ASR and their kin transcribe by *answering a
chat prompt*: the audio's embeddings replace placeholder tokens inside a
rendered prompt, and the transcript is the assistant turn the language
model writes after it.  One recipe serves them all; a family differs only
in its prompt, the token that closes the assistant turn, the longest audio
its encoder takes and how its answer is cleaned (``prompts.py``).

The prompt is a *template*: the rendered text with ``{audio}`` where the
clip goes.  By default it is the transcription prompt the checkpoint itself
prescribes (its processor's ``apply_transcription_request`` rendered with
its own chat template, or the model card's prompt for families without
one); a spec can replace it (``prompt=...``).  The template and the end
token enter ``config_hash``: a different prompt is a different model.

Scoring is exact teacher forcing of the assistant turn: log p(candidate
tokens, then the end-of-turn token | audio, prompt).  The prompt with its
audio runs through the model once per clip; its key/value cache is copied
over the candidates of a batch, which then pay only for their own tokens.

torch and transformers are imported lazily (the optional ``hf`` extra).
"""

from __future__ import annotations

import copy
import importlib
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError
from asraudit.models.base import TokenScores, audio_batch, backend_options, check_option_values, score_arguments
from asraudit.models.folder_check import load_processor, load_weights
from asraudit.models.hf import _hash, _HFModel, _torch_dtype, tokenizer_of
from asraudit.models.lora_merge import NO_TRANSFORMERS_ADAPTER
from asraudit.models.speech_llm_prompts import AUDIO_SLOT, check_template, format_for
from asraudit.models.speech_llm_whitebox import SpeechLLMWhitebox
from asraudit.models.whisper_frontend import audible_windows, join_window_texts, split_windows


def check_answer_length(model_id: str, config, max_new_tokens: int) -> None:
    """``max_new_tokens`` within the positions the language model reads (its text config's
    ``max_position_embeddings``), where the prompt and the audio's tokens also sit: ``max_new_tokens=1000000``
    was taken, and a window whose answer did not end ran on for minutes, past the positions the model was
    trained on."""
    text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
    limit = getattr(text_config, "max_position_embeddings", None) or getattr(config, "max_position_embeddings", None)
    if isinstance(limit, int) and max_new_tokens >= limit:
        raise InputError(f"model {model_id!r} reads at most {limit} positions (its text config's "
                         f"max_position_embeddings), prompt and audio included, but max_new_tokens={max_new_tokens} "
                         f"was asked: use max_new_tokens below {limit}")


@dataclass(frozen=True)
class SpeechLLMOptions:
    """Settings that change transcripts or scores (all enter ``config_hash``)."""

    beam_size: int = 1
    max_new_tokens: int = 224
    batch_size: int = 8
    language: str | None = "en"
    prompt: str | None = None  # a template with {audio}; None = the checkpoint's own transcription prompt
    end_token: str | None = None  # the token that closes the assistant turn; None = the family's

    def __post_init__(self) -> None:
        check_option_values(self, counts=("beam_size", "max_new_tokens", "batch_size"),
                            texts_or_none=("language", "prompt", "end_token"))

    def hashed(self) -> dict:
        """The settings for ``config_hash`` (the contract ``hf._HFModel.config_hash`` reads): all of them."""
        return asdict(self)


def windows_of(clip: np.ndarray, max_samples: int) -> list[np.ndarray]:
    """``clip`` cut into windows of at most ``max_samples`` (one window when it fits), by the rule every windowed
    model follows (``whisper_frontend.split_windows``: near-equal windows, cut in pauses; windows of digital
    silence left out, ``audible_windows``)."""
    return audible_windows(split_windows(clip, max_samples))


def transcribe_windowed(audio: Sequence[np.ndarray], decode, batch_size: int, max_samples: int, *,
                        equal_lengths: bool = False) -> list[str]:
    """One transcript per clip: clips cut at ``max_samples``, windows decoded in batches of
    similar length (sorted, so padding stays small), each clip's window texts joined (``join_window_texts``).

    ``equal_lengths``: a batch holds windows of one length only, for families whose encoder reads the
    batch's audio padding (``PromptFormat.unmasked_audio_padding``), where a padded window is heard
    differently from the same window alone."""
    audio = audio_batch(audio)
    windows: list[tuple[int, int, np.ndarray]] = []
    for index, clip in enumerate(audio):
        for order, window in enumerate(windows_of(clip, max_samples)):
            windows.append((index, order, window))
    by_length = sorted(range(len(windows)), key=lambda k: windows[k][2].shape[0])
    step = max(1, batch_size)
    batches: list[list[int]] = []
    for k in by_length:
        last = batches[-1] if batches else None
        if last is None or len(last) == step or (equal_lengths and windows[last[-1]][2].shape[0] != windows[k][2].shape[0]):
            batches.append([k])
        else:
            last.append(k)
    texts: dict[int, str] = {}
    for chunk in batches:
        for k, text in zip(chunk, decode([windows[k][2] for k in chunk])):
            texts[k] = text
    pieces: list[list[str]] = [[] for _ in audio]
    for k, (index, _, _) in enumerate(windows):
        pieces[index].append(texts[k])
    return [join_window_texts(p) for p in pieces]


def _cache_of(output):
    cache = getattr(output, "cache", None)
    return cache if cache is not None else output.past_key_values


def encode_answer(tokenizer, text: str) -> tuple[list[int], tuple[tuple[int, int], ...]]:
    """Token ids of an assistant answer and their character spans in ``text``."""
    if not text:
        return [], ()
    if getattr(tokenizer, "is_fast", False):
        enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return list(enc["input_ids"]), tuple((int(a), int(b)) for a, b in enc["offset_mapping"])
    # No offset mapping (Voxtral's mistral-common tokenizer): spans from the growing decoded
    # prefix, exact when decoding reproduces the text (byte-level BPE does).
    ids = list(tokenizer.encode(text, add_special_tokens=False))
    lengths = [len(tokenizer.decode(ids[:k])) for k in range(len(ids) + 1)]
    return ids, tuple((min(a, len(text)), min(b, len(text))) for a, b in zip(lengths, lengths[1:]))


class HFSpeechLLM(SpeechLLMWhitebox, _HFModel):
    """A transformers speech LLM (see the module docstring); white-box through ``intervention_sites``
    (``speech_llm_whitebox``)."""

    backend = "hf-speech-llm"

    def __init__(self, source: str, *, model_id: str | None = None, device: str = "cpu", compute_type: str | None = None,
                 revision: str | None = None, interventions: Sequence = (), base_id: str | None = None, _shared=None,
                 **options):
        super().__init__(source, model_id=model_id, device=device, compute_type=compute_type, revision=revision, options={})
        self.options = backend_options(SpeechLLMOptions, options, self.model_id, also=("revision",))
        if self.options.prompt is not None:
            # Checked before anything is loaded, so a bad spec fails in a second.
            check_template(self.options.prompt, self.model_id)
        self.interventions = tuple(interventions)
        self.base_id = base_id or self.model_id  # the id without interventions, for variants
        if _shared is not None:
            self.model, self.processor, self.format, self._torch = _shared
        else:
            import transformers
            from transformers import AutoConfig

            config = AutoConfig.from_pretrained(source, revision=revision)
            self.format = format_for(config.model_type)
            check_answer_length(self.model_id, config, self.options.max_new_tokens)  # before the weights load
            model_class = getattr(transformers, self.format.model_class)
            if self.format.processor_loader is None:
                self._load(model_class)
            else:
                self._load_with_own_processor(model_class)
            # Batched generation needs the prompts aligned at their ends.
            self.tokenizer.padding_side = "left"
        self.template = self.options.prompt if self.options.prompt is not None else self.format.default_template(self.processor, self.options.language, self.source)
        self._refuse_an_unread_language()
        check_template(self.template, self.model_id)
        # The default prompt's answer framing (AF3's closing quote and full stop); a prompt of the user's has none.
        self.closing = self.format.closing if self.options.prompt is None else ""
        end = self.options.end_token or self.format.end_token or self._generation_end()
        end_id = self.tokenizer.convert_tokens_to_ids(end)
        if end_id is None or end_id == self.tokenizer.unk_token_id:
            raise InputError(f"model {self.model_id!r}: end token {end!r} is not in its vocabulary; set end_token=... to the token that closes the assistant turn")
        self.end_id = int(end_id)
        self.end_token = end

    def _refuse_an_unread_language(self) -> None:
        """The language reaches the model only through the family's default prompt: given with a prompt of the
        user's, or to a family whose prompt names no language (GLM-ASR, Granite-Speech, Phi-4-Multimodal), a
        language other than the default was ignored, and the run looked like the one asked for (fault case 127)."""
        language, default = self.options.language, SpeechLLMOptions.language
        if language in (default, None):  # None: no language named, which is what such a prompt does
            return
        if self.options.prompt is not None:
            raise InputError(f"model {self.model_id!r}: option language={language!r} would change nothing, since "
                             "the prompt is given (prompt=...): write the language into the prompt, and leave the "
                             "option out")
        if self.format.default_template(self.processor, default, self.source) == self.template:
            raise InputError(f"model {self.model_id!r} is {self.model.config.model_type}, whose transcription prompt "
                             f"names no language, so option language={language!r} would change nothing: leave it out, "
                             "or give a prompt that asks for the language (prompt=...)")

    def _load_with_own_processor(self, model_class) -> None:
        """``_HFModel._load`` for families whose processor AutoProcessor cannot build here (Granite-Speech,
        Phi-4).  Their speech LoRA is merged by the format's ``after_load`` (``lora_merge``), not applied by
        transformers, so the weights are loaded without it."""
        import torch

        self.processor = self.read_family_processor(self.format, self.source, self.revision)
        self.model = load_weights(model_class, self.source, revision=self.revision, dtype=_torch_dtype(self.compute_type),
                                  **NO_TRANSFORMERS_ADAPTER)
        if self.format.after_load is not None:
            module, _, name = self.format.after_load.partition(":")
            getattr(importlib.import_module(module), name)(self.model, self.source, self.revision)
        self.model.to(self.device).eval()
        self._torch = torch
        self.check_processor_fits()

    def _generation_end(self) -> str:
        """The first token generation stops at: the end of turn for families that name none."""
        eos = self.model.generation_config.eos_token_id
        if eos is None:
            eos = self.tokenizer.eos_token_id
        first = eos[0] if isinstance(eos, (list, tuple)) else eos
        return self.tokenizer.convert_ids_to_tokens(int(first))

    # -- identity ---------------------------------------------------------

    @property
    def config_hash(self) -> str:
        closing = {"closing": self.closing} if self.closing else {}  # only where there is one: other hashes stay
        return _hash({"base": super().config_hash, "template": self.template, "end_token": self.end_token,
                      "interventions": [i.spec() for i in self.interventions], **closing,
                      **self._penalty_dropped(), **self._one_length_batches()})

    def _one_length_batches(self) -> dict:
        """Granite's batches of one window length, in the hash: before them a clip padded in a batch was
        transcribed otherwise than alone, and a store held those transcripts under the same hash."""
        return {"batches": "windows of one length"} if self.format.unmasked_audio_padding else {}

    def _penalty_dropped(self) -> dict:
        """A repetition penalty the folder's generation config sets and ``_generate`` leaves out, in the hash.

        Transcripts were searched with the folder's penalty before it was left out (Audio Flamingo 3's
        generation config has 1.05), so a store holding such a checkpoint's transcripts would have handed them
        back as this code's under the same hash.  Folders without a penalty (or with 1.0) hash as before."""
        penalty = getattr(self.model.generation_config, "repetition_penalty", None)
        return {} if penalty in (None, 1.0) else {"repetition_penalty_dropped": float(penalty)}

    def variant(self, *interventions) -> "HFSpeechLLM":
        """The same weights with these interventions (replacing any this model has)."""
        self._check_variant(interventions)  # here, before any audio is decoded, rather than inside the first batch
        options = {k: getattr(self.options, k) for k in SpeechLLMOptions.__dataclass_fields__}
        model_id = self.base_id if not interventions else self.base_id + "+" + "+".join(i.id for i in interventions)
        return HFSpeechLLM(self.source, model_id=model_id, device=self.device, compute_type=self.compute_type,
                           revision=self.revision, interventions=interventions, base_id=self.base_id,
                           _shared=(self.model, self.processor, self.format, self._torch), **options)

    # -- inputs -----------------------------------------------------------

    @property
    def max_seconds(self) -> float:
        if self.format.max_seconds is not None:
            return self.format.max_seconds
        return float(self.processor.max_audio_len)

    @property
    def score_seconds(self) -> float:
        """The longest clip ``score`` takes, one prompt (``ScoringModel``)."""
        return self.max_seconds

    @property
    def max_samples(self) -> int:
        return int(self.max_seconds * SAMPLE_RATE)

    def prompt_text(self) -> str:
        """The rendered prompt with the processor's audio placeholder (which the processor expands)."""
        return self.template.replace(AUDIO_SLOT, self.processor.audio_token)

    def _inputs(self, clips: Sequence[np.ndarray]) -> dict:
        clips = [np.asarray(c, dtype=np.float32) for c in clips]
        if self.format.inputs_builder is not None:
            module, _, name = self.format.inputs_builder.partition(":")
            batch = getattr(importlib.import_module(module), name)(self, clips)
        else:
            batch = self._processor_inputs(clips)
        dtype = self.model.dtype
        return {k: (v.to(self.device, dtype) if v.is_floating_point() else v.to(self.device))
                for k, v in batch.items() if k not in ("num_audio_tokens",) and hasattr(v, "to")}

    def _processor_inputs(self, clips: list[np.ndarray]):
        return self.processor(text=[self.prompt_text()] * len(clips), audio=clips, sampling_rate=SAMPLE_RATE,
                              return_tensors="pt", text_kwargs={"padding": True})

    # -- transcription ----------------------------------------------------

    def _generate(self, windows: list[np.ndarray]) -> list[str]:
        torch = self._torch
        inputs, ctx = self._paired_inputs(windows)  # a paired variant: the windows, then their sources
        with torch.inference_mode(), self._hooks(ctx):
            # One sequence per window, whatever the folder's generation_config.json says (num_return_sequences 2
            # returned two per window, read as the next clips' transcripts).  No repetition penalty either
            # (AF3's generation config has 1.05): the transcript is the search over the model's own
            # probabilities, the ones ``score`` reads.
            sequences = self.model.generate(**inputs, do_sample=False, num_return_sequences=1, repetition_penalty=1.0,
                                            max_new_tokens=self.options.max_new_tokens,
                                            **self.paired_generate_options(ctx))
        if not isinstance(sequences, torch.Tensor):
            sequences = sequences.sequences
        answers = sequences[: len(windows), inputs["input_ids"].shape[1]:]
        return [self.answer_text(t) for t in self.tokenizer.batch_decode(answers, skip_special_tokens=True)]

    def answer_text(self, answer: str) -> str:
        """The transcript in a decoded answer: the default prompt's closing cut (an answer that does not end with
        it is kept as the model wrote it), or a user prompt's answer cleaned as the family's are."""
        if self.closing:
            answer = answer.strip()
            return answer[: -len(self.closing)].strip() if answer.endswith(self.closing) else answer
        return self.format.clean(answer)

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        return transcribe_windowed(audio, self._generate, self.options.batch_size, self.max_samples,
                                   equal_lengths=self.format.unmasked_audio_padding)

    # -- scoring ----------------------------------------------------------

    def encode(self, text: str) -> tuple[list[int], tuple[tuple[int, int], ...]]:
        """Token ids of an assistant answer and their character spans in ``text``; with a closing (AF3), the ids of
        ``text`` and the closing tokenized together, as the model writes them, spans cut at the end of ``text``."""
        if not self.closing:
            return encode_answer(self.tokenizer, text)
        ids, spans = encode_answer(self.tokenizer, text + self.closing)
        end = len(text)
        return ids, tuple((min(a, end), min(b, end)) for a, b in spans)

    @classmethod
    def read_family_processor(cls, fmt, source: str, revision: str | None = None):
        """The folder's processor as its family reads it: the format's own loader (Granite-Speech, Phi-4, which
        AutoProcessor cannot build here), else AutoProcessor (``read_processor``)."""
        if fmt.processor_loader is None:
            return cls.read_processor(source, revision)
        module, _, name = fmt.processor_loader.partition(":")
        loader = getattr(importlib.import_module(module), name)
        return load_processor(source, lambda: loader(source, revision))

    @classmethod
    def text_counter(cls, source: str, model_type: str):
        """``text -> tokens`` of an answer (``encode``), from the folder's processor files alone, read as the
        model reads them (``read_family_processor``)."""
        tokenizer = tokenizer_of(cls.read_family_processor(format_for(model_type), source))
        return lambda text: len(encode_answer(tokenizer, text)[0])

    def score_ids(self, audio: np.ndarray, rows: Sequence[Sequence[int]], *, batch_size: int | None = None) -> list[np.ndarray]:
        """log p of each row's tokens, then of the end token, after the prompt with ``audio``.

        The prompt (audio encoder included) runs once; its cache is copied for
        each batch of rows.  Rows are right-padded: a causal model never lets a
        padding token reach an earlier position.
        """
        torch = self._torch
        audio = np.asarray(audio, dtype=np.float32)
        if audio.shape[0] > self.max_samples:
            raise InputError(f"cannot score {audio.shape[0] / SAMPLE_RATE:.1f} s of audio: {self.model_id} takes at most "
                             f"{self.max_seconds:g} s in one prompt")
        step = max(1, batch_size or self.options.batch_size)
        inputs, ctx = self._paired_inputs([audio])  # a paired variant: the clip, then its source
        halves = 2 if ctx.paired else 1
        out: list[np.ndarray] = []
        with torch.inference_mode(), self._hooks(ctx):
            prefix = self.model(**inputs, use_cache=True)
            first = torch.log_softmax(prefix.logits[0, -1].float(), dim=-1)
            for start in range(0, len(rows), step):
                chunk = [list(r) for r in rows[start : start + step]]
                targets = [r + [self.end_id] for r in chunk]
                width = max(len(r) for r in chunk)
                later = None
                if width:
                    ids = torch.tensor([r + [self.end_id] * (width - len(r)) for r in chunk], device=self.device)
                    # The prompt's cache per candidate; a paired source's rows follow, forced with the same tokens.
                    cache = copy.deepcopy(_cache_of(prefix))
                    cache.batch_repeat_interleave(len(chunk))
                    ids = ids.repeat(halves, 1)
                    # The prompt's own mask (a paired source of another length pads one of the two rows).
                    mask = torch.cat([inputs["attention_mask"].repeat_interleave(len(chunk), dim=0),
                                      torch.ones((halves * len(chunk), width), dtype=torch.long, device=self.device)], 1)
                    ctx.n_targets = len(chunk)
                    logits = self.model(input_ids=ids, attention_mask=mask, use_cache=True,
                                        **{self._cache_arg: cache}).logits[: len(chunk)]
                    later = torch.log_softmax(logits.float(), dim=-1)
                for row, target in enumerate(targets):
                    values = [float(first[target[0]])]
                    values += [float(later[row, k - 1, t]) for k, t in enumerate(target) if k > 0]
                    out.append(np.asarray(values, dtype=np.float64))
        return out

    @property
    def _cache_arg(self) -> str:
        # transformers renamed past_key_values to cache (5.2x); accept both.
        import inspect

        return "cache" if "cache" in inspect.signature(self.model.forward).parameters else "past_key_values"

    def score(self, audio: np.ndarray, candidates: Sequence[str], *, batch_size: int | None = None) -> list[TokenScores]:
        audio, candidates = score_arguments(audio, candidates)
        encoded = [self.encode(text) for text in candidates]
        values = self.score_ids(audio, [ids for ids, _ in encoded], batch_size=batch_size)
        out = []
        for text, (ids, offsets), logprobs in zip(candidates, encoded, values):
            targets = ids + [self.end_id]
            out.append(TokenScores(
                text=text,
                tokens=tuple(self.tokenizer.convert_ids_to_tokens(targets)),
                logprobs=tuple(float(v) for v in logprobs),
                token_ids=tuple(int(t) for t in targets),
                offsets=offsets + ((len(text), len(text)),),
            ))
        return out
