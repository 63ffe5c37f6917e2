"""Word timings: where each word of a text is in a clip.

Span masks need them (which samples hold the number to hide), and so does
truncation around a target.  Three sources, one result (a ``WordTiming`` per
whitespace-separated word of the text, in order):

- a **recipe file**: the paper's mask format, one row per hidden word
  (clip, t0, t1, hidden word; the release names them ``__key__``,
  ``entity_t0``, ``entity_t1``, ``hidden_ref``), read by ``read_recipe``;
- **pocketsphinx forced alignment**: an HMM aligner with a pronunciation
  dictionary, accurate at word boundaries, but it cannot place digits or
  words missing from its dictionary;
- **Whisper cross-attention alignment**: CTranslate2's ``align()`` runs
  dynamic time warping over the attention of Whisper's alignment heads and
  returns (token, encoder frame) pairs at 50 frames/s; a token starts at the
  first frame the path assigns to it, a word at its first token's start and
  ends where the next word's first token starts.  It places anything the
  tokenizer can spell (digits included), but its boundaries are coarser.

Both aligners return one timing per word of ``text.split()``, so timings
from either can be compared word by word (``timing_agreement``) and a
target's index means the same word whatever aligned it.  Aligned timings are
cached in a JSONL file (``TimingCache``) in the release's alignment layout
(``words: [{idx, w, t0, t1}]``), keyed by aligner and text, so a rerun never
aligns a clip twice.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.errors import InputError

# Whisper's encoder emits one frame per 20 ms (two mel hops of 10 ms).
WHISPER_FRAMES_PER_SECOND = 50
_MEL_HOP = 160


@dataclass(frozen=True, slots=True)
class WordTiming:
    """One word of a text and where it is: seconds from the start of the clip."""

    word: str
    start: float
    end: float


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of the whitespace-separated words of ``text``."""
    return [m.span() for m in re.finditer(r"\S+", text)]


# --------------------------------------------------------------------- recipe

CLIP_FIELDS = ("clip", "audio_filepath", "__key__", "id", "clip_id")
T0_FIELDS = ("t0", "entity_t0", "start")
T1_FIELDS = ("t1", "entity_t1", "end")
WORD_FIELDS = ("hidden", "hidden_ref", "word", "w")
INDEX_FIELDS = ("index", "entity_idx", "idx")


@dataclass(frozen=True, slots=True)
class RecipeRow:
    """One hidden word of a mask recipe: the clip, the span, the word, optionally its index."""

    clip_id: str
    t0: float
    t1: float
    word: str
    index: int | None = None
    kind: str = "listed"
    source: str = ""
    row: int = 0


def _first(rec: Mapping, names: Sequence[str]):
    for name in names:
        if rec.get(name) is not None:
            return name, rec[name]
    return None, None


def read_recipe(path: str | Path) -> list[RecipeRow]:
    """Mask targets from a recipe file (JSONL, JSON list, CSV or Parquet).

    Columns: a clip id (``clip``, ``audio_filepath`` or the release's
    ``__key__``), the span (``t0``/``t1`` or ``entity_t0``/``entity_t1``, in
    seconds), the hidden word (``hidden``, ``hidden_ref`` or ``word``) and
    optionally its index among the words of the clip's text (``index`` or
    ``entity_idx``; without it the word is looked up in the text).
    """
    from asraudit.data.rows import parse_seconds, read_rows

    path = Path(path)
    if not path.is_file():
        raise InputError("no such recipe file", path)
    out = []
    for row, rec in read_rows(path, "recipe file"):
        _, clip = _first(rec, CLIP_FIELDS)
        if clip is None or str(clip).strip() == "":
            raise InputError(f"missing clip id (one of {', '.join(CLIP_FIELDS)})", path, row)
        t0_name, t0 = _first(rec, T0_FIELDS)
        t1_name, t1 = _first(rec, T1_FIELDS)
        if t0_name is None or t1_name is None:
            raise InputError(f"missing span: need {'/'.join(T0_FIELDS)} and {'/'.join(T1_FIELDS)}", path, row)
        start, end = parse_seconds(t0, t0_name, path, row), parse_seconds(t1, t1_name, path, row)
        if end < start:
            raise InputError(f"span ends before it starts: [{start}, {end}]", path, row)
        _, word = _first(rec, WORD_FIELDS)
        if not isinstance(word, str) or not word.strip():
            raise InputError(f"missing hidden word (one of {', '.join(WORD_FIELDS)})", path, row)
        _, index = _first(rec, INDEX_FIELDS)
        if index is not None:
            try:
                index = int(index)
            except (TypeError, ValueError):
                raise InputError(f"word index must be an integer, got {index!r}", path, row) from None
            if index < 0:
                raise InputError(f"word index must be >= 0, got {index}", path, row)
        kind = rec.get("kind") if isinstance(rec.get("kind"), str) else "listed"
        out.append(RecipeRow(str(clip), start, end, word.strip(), index, kind, str(path), row))
    return out


def write_recipe(path: str | Path, rows: Iterable[RecipeRow]) -> int:
    """Write a recipe (JSONL); returns the number of rows.  Written whole, then renamed into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as fh:
        for r in rows:
            rec = {"clip": r.clip_id, "t0": round(r.t0, 4), "t1": round(r.t1, 4), "hidden": r.word, "kind": r.kind}
            if r.index is not None:
                rec["index"] = r.index
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    tmp.replace(path)
    return n


def bare_word(word: str) -> str:
    """A word without surrounding punctuation, lower case: how a recipe's hidden word is matched."""
    return word.strip(".,;:!?\"'()[]").lower()


def locate_recipe_word(words: Sequence[str], row: RecipeRow) -> int:
    """Index of a recipe's hidden word among the clip's words (checks the given index)."""
    hidden = bare_word(row.word)
    if row.index is not None:
        if row.index >= len(words) or bare_word(words[row.index]) != hidden:
            found = words[row.index] if row.index < len(words) else "nothing (the text is shorter)"
            raise InputError(f"word {row.index} of clip {row.clip_id!r} is {found!r}, not the hidden "
                             f"{row.word!r}", row.source, row.row)
        return row.index
    hits = [i for i, w in enumerate(words) if bare_word(w) == hidden]
    if not hits:
        raise InputError(f"hidden word {row.word!r} is not in the text of clip {row.clip_id!r}", row.source, row.row)
    if len(hits) > 1:
        raise InputError(f"hidden word {row.word!r} occurs {len(hits)} times in clip {row.clip_id!r}; "
                         "give its index (index / entity_idx)", row.source, row.row)
    return hits[0]


# ------------------------------------------------------------------- aligners


class PocketSphinxAligner:
    """Forced alignment with pocketsphinx's en-us HMM and dictionary.

    Each word of the text is reduced to the dictionary's spelling (lower
    case, letters and apostrophes; a hyphenated word becomes several); its
    timing runs from its first piece's start to its last piece's end.  A word
    of punctuation alone gets a zero-width timing where the previous word
    ends.  Digits cannot be aligned (the dictionary has no "35"), so a text
    with digits is refused with a message to spell them out or use a Whisper
    aligner.
    """

    def __init__(self, model=None):
        if model is None:
            from asraudit.models.pocketsphinx import PocketSphinx

            model = PocketSphinx()
        self.model = model

    @property
    def id(self) -> str:
        return f"pocketsphinx:{self.model.config_hash}"

    def align(self, audio: np.ndarray, text: str) -> list[WordTiming]:
        from asraudit.models.pocketsphinx import alignment_words

        words = text.split()
        pieces = []
        for w in words:
            if any(ch.isdigit() for ch in w):
                raise ValueError(f"pocketsphinx cannot align digits ({w!r}): spell numbers out, or align with Whisper")
            pieces.append(alignment_words(w))
        flat = [p for ps in pieces for p in ps]
        if not flat:
            return [WordTiming(w, 0.0, 0.0) for w in words]
        timed = self.model.align(audio, " ".join(flat))
        out, k, prev_end = [], 0, 0.0
        for w, ps in zip(words, pieces):
            if not ps:
                out.append(WordTiming(w, prev_end, prev_end))
                continue
            first, last = timed[k], timed[k + len(ps) - 1]
            k += len(ps)
            out.append(WordTiming(w, round(first.start, 4), round(last.end, 4)))
            prev_end = last.end
        return out


class WhisperAligner:
    """Whisper cross-attention alignment through CTranslate2's ``align()``.

    The text is tokenized as Whisper would write it, end-of-text appended
    (so the last word gets an end), and aligned against the encoder output
    of the clip's one 30-s window with ``num_frames`` set to the clip's own
    mel frames, so the padding is never assigned a word.  Token start = the
    first encoder frame of the token on the warping path / 50.  Tokens map
    to words by their character offsets, so punctuation stays with its word.
    """

    def __init__(self, model, median_filter_width: int = 7):
        if not callable(getattr(model, "encode", None)) or not hasattr(model, "tokenizer"):
            raise InputError(f"{getattr(model, 'model_id', model)!r} is not a CTranslate2 Whisper model; "
                             "cross-attention alignment needs one")
        self.model = model
        self.median_filter_width = median_filter_width

    @property
    def id(self) -> str:
        return f"whisper-xattn:{self.model.model_id}:{self.model.config_hash}:{self.median_filter_width}"

    def token_starts(self, audio: np.ndarray, token_ids: Sequence[int]) -> np.ndarray:
        """Start time (s) of each token of ``token_ids`` and of the end-of-text after them."""
        import ctranslate2

        audio = np.asarray(audio, dtype=np.float32)
        encoded = self.model.encode(audio)  # raises for audio over 30 s
        tokenizer = self.model.tokenizer
        language = self.model.options.language if self.model.options.language != "auto" else "en"
        prompt = tokenizer.prompt(language, self.model.options.task)
        ids = list(token_ids) + [tokenizer.eot]
        num_frames = max(2, len(audio) // _MEL_HOP)
        # The float32 CTranslate2 model that `encode` used (CT2Whisper keeps it for scoring).
        ct2 = self.model._scoring_model()
        (result,) = ct2.align(ctranslate2.StorageView.from_array(np.ascontiguousarray(encoded)), prompt, [ids],
                              num_frames, median_filter_width=self.median_filter_width)
        pairs = np.asarray(result.alignments, dtype=np.int64).reshape(-1, 2)
        starts = np.full(len(ids), np.nan)
        for token_index, frame in pairs:
            if 0 <= token_index < len(ids) and np.isnan(starts[token_index]):
                starts[token_index] = frame / WHISPER_FRAMES_PER_SECOND
        if np.isnan(starts).any():
            # A token the path skipped starts where the next placed token does.
            for k in range(len(ids) - 1, -1, -1):
                if np.isnan(starts[k]):
                    starts[k] = starts[k + 1] if k + 1 < len(ids) else len(audio) / SAMPLE_RATE
        return np.minimum(starts, len(audio) / SAMPLE_RATE)

    def align(self, audio: np.ndarray, text: str) -> list[WordTiming]:
        spans = word_spans(text)
        if not spans:
            return []
        enc = self.model.tokenizer.encode(text)
        starts = self.token_starts(audio, enc.ids)
        owner = []  # word index of each token
        for a, b in enc.offsets:
            w = next((i for i, (s, e) in enumerate(spans) if max(a, s) < min(b, e)), None)
            owner.append(w)
        out = []
        for i, (s, e) in enumerate(spans):
            toks = [k for k, w in enumerate(owner) if w == i]
            if not toks:
                raise ValueError(f"no token of {text!r} covers the word {text[s:e]!r}")
            first, last = toks[0], toks[-1]
            out.append(WordTiming(text[s:e], round(float(starts[first]), 4), round(float(starts[last + 1]), 4)))
        return out


def make_aligner(spec: str, *, device: str = "cpu"):
    """``pocketsphinx`` or a Whisper model spec (``whisper-tiny.en``, ``ct2:<dir>``...)."""
    if spec == "pocketsphinx":
        return PocketSphinxAligner()
    from asraudit.models.registry import load_model

    return WhisperAligner(load_model(spec, device=device))


# ---------------------------------------------------------------------- cache


def _text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


class TimingCache:
    """Aligned word timings in a JSONL file, appended one clip at a time.

    A row: ``{"__key__": clip, "aligner": id, "text_sha": ..., "words":
    [{"idx", "w", "t0", "t1"}]}``.  A run killed while writing leaves at
    most a partial last line, which is ignored on reading (that clip is
    aligned again); any other broken row is an error naming the row.
    """

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path is not None else None
        self._rows: dict[tuple[str, str, str], list[WordTiming]] = {}
        if self.path is not None and self.path.is_file():
            self._load()

    def _load(self) -> None:
        lines = self.path.read_text(encoding="utf-8").split("\n")
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                words = [WordTiming(w["w"], float(w["t0"]), float(w["t1"])) for w in rec["words"]]
                key = (rec["aligner"], rec["__key__"], rec["text_sha"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                if lineno == len(lines):  # no newline after it: a write cut short
                    continue
                raise InputError("broken word-timing row", self.path, lineno) from None
            self._rows[key] = words

    def get(self, aligner_id: str, clip_id: str, text: str) -> list[WordTiming] | None:
        return self._rows.get((aligner_id, clip_id, _text_key(text)))

    def put(self, aligner_id: str, clip_id: str, text: str, timings: Sequence[WordTiming]) -> None:
        key = (aligner_id, clip_id, _text_key(text))
        self._rows[key] = list(timings)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        rec = {"__key__": clip_id, "aligner": aligner_id, "text_sha": key[2],
               "words": [{"idx": i, "w": t.word, "t0": t.start, "t1": t.end} for i, t in enumerate(timings)]}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


@dataclass(frozen=True)
class AlignmentFailure:
    clip_id: str
    reason: str


def align_clips(aligner, items: Iterable[tuple[str, object, str]], cache: TimingCache | None = None
                ) -> tuple[dict[str, list[WordTiming]], list[AlignmentFailure]]:
    """Timings of ``(clip_id, clip, text)`` items, from the cache or the aligner.

    ``clip`` is anything with ``decode()`` (a corpus ``Clip``) or an array.
    A clip the aligner cannot handle (digits for pocketsphinx, a word not in
    its dictionary, audio over 30 s for Whisper) is reported, not fatal: the
    probe runs on the clips that could be aligned and says how many could not.
    """
    cache = cache or TimingCache(None)
    timings: dict[str, list[WordTiming]] = {}
    failures: list[AlignmentFailure] = []
    for clip_id, clip, text in items:
        found = cache.get(aligner.id, clip_id, text)
        if found is None:
            audio = clip.decode() if hasattr(clip, "decode") else np.asarray(clip, dtype=np.float32)
            try:
                found = aligner.align(audio, text)
            except ValueError as exc:
                failures.append(AlignmentFailure(clip_id, str(exc)))
                continue
            cache.put(aligner.id, clip_id, text, found)
        timings[clip_id] = found
    return timings, failures


# ------------------------------------------------------------------ agreement


@dataclass(frozen=True)
class TimingAgreement:
    """How far two aligners' word boundaries are apart (both boundaries of every word).

    Milliseconds: ``median_ms``/``mean_ms``/``p90_ms`` of |Δ| over starts and
    ends together, ``start_median_ms``/``end_median_ms`` separately;
    ``within`` maps a tolerance (ms) to the share of boundaries within it;
    ``mean_overlap`` is the mean intersection-over-union of the two spans of
    a word (zero-width words excluded).
    """

    n_clips: int
    n_words: int
    median_ms: float
    mean_ms: float
    p90_ms: float
    start_median_ms: float
    end_median_ms: float
    within: dict[int, float]
    mean_overlap: float

    def to_json(self) -> dict:
        return {"n_clips": self.n_clips, "n_words": self.n_words, "median_ms": self.median_ms, "mean_ms": self.mean_ms,
                "p90_ms": self.p90_ms, "start_median_ms": self.start_median_ms, "end_median_ms": self.end_median_ms,
                "within": {str(k): v for k, v in self.within.items()}, "mean_overlap": self.mean_overlap}


TOLERANCES_MS = (50, 100, 200)


def timing_agreement(pairs: Iterable[tuple[Sequence[WordTiming], Sequence[WordTiming]]]) -> TimingAgreement:
    """Agreement of two aligners over clips: one (timings A, timings B) pair per clip, same words."""
    starts, ends, overlaps = [], [], []
    n_clips = 0
    for a, b in pairs:
        if len(a) != len(b):
            raise ValueError(f"the aligners timed different texts ({len(a)} vs {len(b)} words)")
        n_clips += 1
        for x, y in zip(a, b):
            starts.append(abs(x.start - y.start))
            ends.append(abs(x.end - y.end))
            union = max(x.end, y.end) - min(x.start, y.start)
            if x.end > x.start and y.end > y.start and union > 0:
                overlaps.append(max(0.0, min(x.end, y.end) - max(x.start, y.start)) / union)
    both = np.asarray(starts + ends) * 1000
    if both.size == 0:
        nan = float("nan")
        return TimingAgreement(n_clips, 0, nan, nan, nan, nan, nan, {t: nan for t in TOLERANCES_MS}, nan)
    return TimingAgreement(
        n_clips, len(starts), float(np.median(both)), float(both.mean()), float(np.quantile(both, 0.9)),
        float(np.median(starts) * 1000), float(np.median(ends) * 1000),
        {t: float(np.mean(both <= t + 1e-6)) for t in TOLERANCES_MS},
        float(np.mean(overlaps)) if overlaps else float("nan"),
    )
