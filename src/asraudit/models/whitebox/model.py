"""The white-box Whisper: a converted PyTorch model behind asraudit's model protocol.

It decodes exactly like the CTranslate2 backend it was converted from (same
front end, same prompt, greedy search with the same suppressions, the same
224-token limit), so a white-box variant with *no* intervention reproduces
the backend's transcripts, and every difference a variant shows is the
intervention's.  Greedy only: interventions are read at the argmax, and
beam search would mix the intervention's effect with the search's.

Variants share one set of weights: ``model.variant(SteerAdd(...))`` is
cheap, and its ``model_id``/``config_hash`` name the intervention, so the
job grid stores each variant's results apart.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import torch

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError
from asraudit.models.base import TokenScores, score_arguments
from asraudit.models.whisper_frontend import N_SAMPLES, WINDOWING, log_mel_spectrogram, transcribe_in_windows
from asraudit.models.whisper_tokenizer import WhisperTokenizer
from asraudit.models.weights_digest import folder_digest
from asraudit.models.whitebox.convert import convert, load_converted, weights_fingerprint
from asraudit.models.whitebox.frames import WHISPER_FRAMES, FrameGeometry, RunContext, audio_frames, changed_frames
from asraudit.models.whitebox.interventions import Intervention, installed, needs_pairing
from asraudit.models.whitebox.sites import InterventionSites, layer_index
from asraudit.models.whitebox.sources import embedded_source, source_from_dir

TEXT_CONTEXT = 448
# openai/whisper's sample_len (n_text_ctx // 2), which CTranslate2 also applies.
MAX_NEW_TOKENS = TEXT_CONTEXT // 2


@contextlib.contextmanager
def _cpu_threads(n: int | None) -> Iterator[None]:
    """Run a block with ``n`` torch CPU threads (``None``: leave the setting alone)."""
    if n is None or n == torch.get_num_threads():
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _fit_window(audio: np.ndarray) -> np.ndarray:
    """A source made by a condition may be longer than 30 s (a splice): keep the first window."""
    audio = np.asarray(audio, dtype=np.float32)
    return audio[:N_SAMPLES]


class WhiteboxWhisper:
    """Converted Whisper with optional interventions; implements ``ScoringModel``."""

    backend = "whitebox-whisper"

    def __init__(self, hf_model, directory: Path, name: str, *, interventions: Sequence[Intervention] = (),
                 batch_size: int = 8, device: str = "cpu", threads: int | None = None,
                 _shared: tuple | None = None):
        self.hf = hf_model
        self.directory = Path(directory)
        self.name = name
        self.device = device
        self.batch_size = max(1, int(batch_size))
        self.threads = threads
        generation = hf_model.generation_config
        # A folder saved without the generation config's is_multilingual (older fine-tunes): OpenAI's rule by size.
        from asraudit.models.whisper_tokenizer import MULTILINGUAL_WHISPER_VOCAB

        self.multilingual = bool(getattr(generation, "is_multilingual", False)) or \
            int(hf_model.config.vocab_size) >= MULTILINGUAL_WHISPER_VOCAB
        # A variant shares its parent's tokenizer and weights fingerprint: reading tokenizer.json
        # costs ~0.5 s, and an experiment makes a variant per arm.
        tokenizer, fingerprint = _shared or (None, None)
        self.tokenizer = tokenizer or WhisperTokenizer(self.directory / "tokenizer.json", multilingual=self.multilingual)
        self.suppress_tokens = list(generation.suppress_tokens or [])
        self.begin_suppress_tokens = list(generation.begin_suppress_tokens or [])
        self.interventions = tuple(interventions)
        self.source = needs_pairing(self.interventions)
        self.n_mels = hf_model.config.num_mel_bins
        self._fingerprint = fingerprint or weights_fingerprint(self.directory)

    # -- construction -----------------------------------------------------

    @classmethod
    def load(cls, name: str = "whisper-tiny.en", *, cache: Path | None = None, device: str = "cpu",
             **kwargs) -> "WhiteboxWhisper":
        """An embedded model by name, or a CTranslate2 Whisper directory, converted once and cached.

        A directory that already holds a transformers Whisper checkpoint
        (``config.json`` + ``model.safetensors``) is loaded as it is.
        """
        from asraudit.models.torch_device import check_torch_device

        check_torch_device(device)  # before the conversion and the load
        path = Path(name)
        shared = None
        if path.is_dir() and (path / "model.safetensors").is_file():
            directory, label = path, path.resolve().name  # "." names the folder it is
            # A user's folder is known by its content: a conversion's manifest in it (a copy of the cache, then
            # fine-tuned and saved in place, which keeps the file) names the weights it was converted from, and
            # they were taken for the folder's: the fine-tune's results were the stored ones of the model before.
            shared = (None, "hf:" + folder_digest(path)[:16])
        else:
            source = source_from_dir(path) if path.is_dir() else embedded_source(name)
            directory = convert(source, cache)
            label = source.name
        hf_model, _, info = load_converted(directory, device=device, with_tokenizer=False)
        if directory == path:  # a user's folder (a conversion asraudit made is whole: its tests hold it so)
            from asraudit.models.folder_check import refuse_missing_tensors

            refuse_missing_tensors(hf_model, info, str(path))
        return cls(hf_model, directory, label, device=device, _shared=shared, **kwargs)

    def variant(self, *interventions: Intervention) -> "WhiteboxWhisper":
        """The same weights with these interventions (replacing any this model has)."""
        return WhiteboxWhisper(self.hf, self.directory, self.name, interventions=interventions,
                               batch_size=self.batch_size, device=self.device, threads=self.threads,
                               _shared=(self.tokenizer, self._fingerprint))

    # -- identity ---------------------------------------------------------

    @property
    def model_id(self) -> str:
        base = f"whitebox:{self.name}"
        return base if not self.interventions else base + "+" + "+".join(i.id for i in self.interventions)

    @property
    def config_hash(self) -> str:
        settings = {
            "backend": self.backend,
            "weights": self._fingerprint,
            "decoding": {"search": "greedy", "max_new_tokens": MAX_NEW_TOKENS, "language": "en",
                         "suppress": self.suppress_tokens, "begin_suppress": self.begin_suppress_tokens},
            "interventions": [i.spec() for i in self.interventions],
            "windowing": WINDOWING,
        }
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    # -- plumbing ---------------------------------------------------------

    def prompt(self) -> list[int]:
        return self.tokenizer.prompt("en", "transcribe")

    def text_token_ids(self, text: str) -> list[int]:
        """The ids a transcript's text is written with (no prompt, no end-of-text)."""
        return list(self.tokenizer.encode(text).ids)

    def _features(self, windows: Sequence[np.ndarray]) -> torch.Tensor:
        mels = np.stack([log_mel_spectrogram(w, self.n_mels) for w in windows])
        return torch.from_numpy(mels).to(self.device)

    def _rows(self, windows: Sequence[np.ndarray]) -> tuple[list[np.ndarray], RunContext]:
        """The batch rows for ``windows``: the inputs, then (for paired variants) their sources."""
        windows = [np.asarray(w, dtype=np.float32) for w in windows]
        rows = list(windows)
        if self.source is not None:
            rows += [_fit_window(self.source(w)) for w in windows]
        ctx = RunContext(
            n_targets=len(windows),
            audio_frames=[audio_frames(len(r)) for r in rows],
            paired=self.source is not None,
            prompt_length=len(self.prompt()),
            changed=[changed_frames(w, r) for w, r in zip(windows, rows[len(windows):])],
        )
        return rows, ctx

    def _installed(self, ctx: RunContext):
        """This variant's hooks for the duration of one run (``interventions.installed``)."""
        return installed(self.interventions, self.intervention_sites(), ctx)

    @property
    def window_seconds(self) -> float:
        """The longest input decoded in one pass; a longer clip is cut into windows (``transcribe_in_windows``)."""
        return N_SAMPLES / SAMPLE_RATE

    @property
    def max_new_tokens(self) -> int:
        """The most tokens one window's greedy decoding writes (end-of-text included)."""
        return MAX_NEW_TOKENS

    @property
    def hidden_size(self) -> int:
        """Width of the residual stream a direction lives in."""
        return int(self.hf.config.d_model)

    @property
    def frame_geometry(self) -> FrameGeometry:
        """20-ms frames, always 1500 of them (every input is padded to 30 s)."""
        return WHISPER_FRAMES

    def intervention_sites(self) -> InterventionSites:
        """Whisper's hookable modules: encoder blocks, decoder blocks and their cross-attention."""
        model = self.hf.model
        return InterventionSites(
            family="whisper",
            encoder_layers=model.encoder.layers,
            decoder_layers=model.decoder.layers,
            cross_attention=[layer.encoder_attn for layer in model.decoder.layers],
        )

    def _encode(self, rows: Sequence[np.ndarray]) -> torch.Tensor:
        with _cpu_threads(self.threads if self.device == "cpu" else None):
            return self.hf.model.encoder(self._features(rows)).last_hidden_state

    def _decoder_step(self, tokens: torch.Tensor, encoded: torch.Tensor, cache, ctx: RunContext, offset: int):
        ctx.decoder_offset = offset
        # One token per row is too little work to share between threads: on CPU
        # the threads' hand-offs cost more than the matmuls (10x slower steps on
        # a busy 2-core machine), so decoder steps of a few tokens run on one.
        few_tokens = tokens.shape[1] <= 4 and self.device == "cpu"
        with _cpu_threads(1 if few_tokens else self.threads if self.device == "cpu" else None):
            out = self.hf.model.decoder(input_ids=tokens, encoder_hidden_states=encoded, cache=cache, use_cache=True)
            return self.hf.proj_out(out.last_hidden_state)

    @staticmethod
    def _new_cache():
        from transformers.cache_utils import DynamicCache, EncoderDecoderCache

        return EncoderDecoderCache(DynamicCache(), DynamicCache())

    # -- transcription ----------------------------------------------------

    @torch.inference_mode()
    def _greedy(self, windows: Sequence[np.ndarray]) -> list[list[int]]:
        rows, ctx = self._rows(windows)
        n = ctx.n_targets
        prompt = self.prompt()
        eot = self.tokenizer.eot
        suppress = torch.tensor(self.suppress_tokens, dtype=torch.long, device=self.device)
        begin = torch.tensor(self.begin_suppress_tokens, dtype=torch.long, device=self.device)
        with self._installed(ctx):
            encoded = self._encode(rows)
            cache = self._new_cache()
            tokens = torch.tensor([prompt] * len(rows), dtype=torch.long, device=self.device)
            logits = self._decoder_step(tokens, encoded, cache, ctx, 0)[:, -1]
            generated: list[list[int]] = [[] for _ in range(n)]
            finished = torch.zeros(n, dtype=torch.bool, device=self.device)
            for step in range(MAX_NEW_TOKENS):
                scores = logits[:n].float()
                scores[:, suppress] = -torch.inf
                if step == 0:
                    scores[:, begin] = -torch.inf
                chosen = scores.argmax(dim=-1)
                chosen = torch.where(finished, torch.full_like(chosen, eot), chosen)
                finished |= chosen == eot
                for i in range(n):
                    if not finished[i]:
                        generated[i].append(int(chosen[i]))
                if bool(finished.all()) or step == MAX_NEW_TOKENS - 1:
                    break
                # A paired source is teacher-forced with its input's tokens.
                feed = torch.cat([chosen, chosen]) if ctx.paired else chosen
                logits = self._decoder_step(feed[:, None], encoded, cache, ctx, len(prompt) + step)[:, -1]
        return generated

    def transcribe_ids(self, audio: Sequence[np.ndarray]) -> list[list[int]]:
        """Greedy text token ids of each clip of at most 30 s (no prompt, no end-of-text)."""
        out: list[list[int]] = []
        for start in range(0, len(audio), self.batch_size):
            batch = list(audio[start : start + self.batch_size])
            for clip in batch:
                if len(clip) > N_SAMPLES:
                    raise ValueError("transcribe_ids takes clips of at most 30 s; transcribe() splits longer ones")
            out.extend(self._greedy(batch))
        return out

    def transcribe(self, audio: Sequence[np.ndarray]) -> list[str]:
        """Raw transcripts; clips over 30 s are cut into windows and joined (as the CTranslate2 backend does)."""
        return transcribe_in_windows(
            audio, lambda windows: [self.tokenizer.decode(ids).strip() for ids in self.transcribe_ids(windows)],
            self.batch_size)

    # -- scoring ----------------------------------------------------------

    @torch.inference_mode()
    def _forced_logprobs(self, audio: np.ndarray, sequences: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """Log-softmax over the vocabulary at every position of each prompt+sequence (float64)."""
        audio = np.asarray(audio, dtype=np.float32)
        if len(audio) > N_SAMPLES:
            raise InputError(f"cannot score {len(audio) / SAMPLE_RATE:.1f} s of audio: Whisper attends to one 30-s window")
        rows, ctx = self._rows([audio])
        prompt = self.prompt()
        eot = self.tokenizer.eot
        out: list[np.ndarray] = []
        with self._installed(ctx):
            encoded = self._encode(rows)  # [1 or 2, frames, d]
            for start in range(0, len(sequences), self.batch_size):
                batch = [list(s) for s in sequences[start : start + self.batch_size]]
                width = max(len(s) for s in batch)
                # Right padding with end-of-text: a causal decoder never looks right,
                # so the padding cannot change any real position.
                ids = torch.tensor([prompt + s + [eot] * (width - len(s)) for s in batch], device=self.device)
                c = len(batch)
                memory = encoded[:1].expand(c, -1, -1)
                if ctx.paired:
                    ids = torch.cat([ids, ids])
                    memory = torch.cat([memory, encoded[1:2].expand(c, -1, -1)])
                ctx.n_targets = c
                ctx.audio_frames = [audio_frames(len(rows[0]))] * c + (
                    [audio_frames(len(rows[1]))] * c if ctx.paired else []
                )
                ctx.changed = [changed_frames(rows[0], rows[1])] * c if ctx.paired else []
                logits = self._decoder_step(ids, memory, self._new_cache(), ctx, 0)[:c]
                logprobs = torch.log_softmax(logits.double(), dim=-1).cpu().numpy()
                for row, seq in enumerate(batch):
                    out.append(logprobs[row, : len(prompt) + len(seq)])
        return out

    def score(self, audio: np.ndarray, candidates: Sequence[str]) -> list[TokenScores]:
        """Teacher-forced log p(token | audio, previous tokens), end-of-text included.

        The model's own distribution: no decoding-time suppression, the same
        convention as the CTranslate2 backend's ``score``.
        """
        audio, candidates = score_arguments(audio, candidates)
        encoded = [self.tokenizer.encode(text) for text in candidates]
        eot = self.tokenizer.eot
        for text, enc in zip(candidates, encoded):
            if len(self.prompt()) + len(enc.ids) + 1 > TEXT_CONTEXT:
                raise InputError(f"text {text[:60]!r}... has {len(enc.ids)} tokens, and Whisper's decoder holds "
                                 f"{TEXT_CONTEXT} with its prompt and end-of-text: score a shorter text")
        targets = [list(enc.ids) + [eot] for enc in encoded]
        # The last target (end-of-text) is read at the last fed position.
        tables = self._forced_logprobs(audio, [t[:-1] for t in targets])
        first = len(self.prompt()) - 1
        out = []
        for text, enc, ids, table in zip(candidates, encoded, targets, tables):
            logprobs = tuple(float(table[first + k, token]) for k, token in enumerate(ids))
            end = len(text)
            out.append(
                TokenScores(
                    text=text,
                    tokens=tuple(self.tokenizer.token_text(t) for t in ids),
                    logprobs=logprobs,
                    token_ids=tuple(ids),
                    offsets=enc.offsets + ((end, end),),
                )
            )
        return out

    def next_token_logprobs(self, audio: np.ndarray, prefix: Sequence[int] = ()) -> np.ndarray:
        """Log-probabilities of the next token after the prompt and ``prefix`` (a readout)."""
        return self._forced_logprobs(audio, [list(prefix)])[0][-1]

    def no_speech_prob(self, audio: np.ndarray) -> float:
        """P(``<|nospeech|>``/``<|nocaptions|>``) right after ``<|startoftranscript|>``.

        Whisper's own "is anybody speaking?" readout (what it thresholds to
        skip silent windows): a direct measure of whether the encoder output
        reads as speech, which steering experiments can move."""
        token = self.tokenizer.token_id("<|nospeech|>") or self.tokenizer.token_id("<|nocaptions|>")
        if token is None:
            raise ValueError("this Whisper vocabulary has no no-speech token")
        return float(np.exp(self._forced_logprobs(audio, [[]])[0][0, token]))

    # -- activations ------------------------------------------------------

    @torch.inference_mode()
    def encoder_activations(self, audio: Sequence[np.ndarray], layers: Sequence[int]) -> dict[int, np.ndarray]:
        """Outputs of encoder ``layers`` (``[clips, 1500, d_model]`` each), with this variant's interventions.

        Capture hooks are registered after the interventions', so they see
        what the next layer sees (a steered or patched output included).
        """
        n_layers = len(self.hf.model.encoder.layers)
        wanted = sorted({layer_index(layer, n_layers, "encoder") for layer in layers})
        captured: dict[int, list[np.ndarray]] = {layer: [] for layer in wanted}
        for start in range(0, len(audio), self.batch_size):
            batch = [np.asarray(a, dtype=np.float32)[:N_SAMPLES] for a in audio[start : start + self.batch_size]]
            rows, ctx = self._rows(batch)
            with self._installed(ctx):
                handles = []
                try:
                    for layer in wanted:
                        def keep(module, inputs, output, layer=layer):
                            captured[layer].append(output[: ctx.n_targets].float().cpu().numpy())

                        handles.append(self.hf.model.encoder.layers[layer].register_forward_hook(keep))
                    self._encode(rows)
                finally:
                    for handle in handles:
                        handle.remove()
        return {layer: np.concatenate(chunks) for layer, chunks in captured.items()}
