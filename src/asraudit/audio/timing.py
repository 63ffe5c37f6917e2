"""Word timings: where each word of a text is in a clip.

Span masks need them (which samples hold the number to hide), and so does
truncation around a target.  Three sources give one result (a
``WordTiming`` per whitespace-separated word of the text, in order): a mask
recipe file (``data.mask_recipe``), pocketsphinx forced alignment and
Whisper cross-attention alignment (both in ``models.aligners``, since they
run models).

This module holds what needs no model and no file format: the timing type,
the cache, the loop that aligns clips through any aligner, and the
agreement of two aligners.  It sits with the audio because a timing is a
position in a waveform, and the conditions that cut spans out of one are
audio functions.

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
from typing import Iterable, Protocol, Sequence

import numpy as np

from asraudit.errors import InputError
from asraudit.model_clock import model_call
from asraudit.plain_json import to_plain


@dataclass(frozen=True, slots=True)
class WordTiming:
    """One word of a text and where it is: seconds from the start of the clip."""

    word: str
    start: float
    end: float


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of the whitespace-separated words of ``text``."""
    return [m.span() for m in re.finditer(r"\S+", text)]


class Aligner(Protocol):
    """What ``align_clips`` needs from an aligner: a stable id (the cache key) and ``align``."""

    @property
    def id(self) -> str: ...

    def align(self, audio: np.ndarray, text: str) -> list[WordTiming]: ...


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
        self._cut: int | None = None  # bytes of the file before a row a killed run left cut short
        if self.path is not None and self.path.is_file():
            self._load()

    def _load(self) -> None:
        raw = self.path.read_bytes()
        try:  # a file that is not UTF-8 text (a WAV named by --timings): one line, not a traceback
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}): the file is not a "
                             "word-timing cache: name a new file, or the cache a run wrote", self.path,
                             raw[:exc.start].count(b"\n") + 1) from None
        lines = text.split("\n")
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                words = [WordTiming(w["w"], float(w["t0"]), float(w["t1"])) for w in rec["words"]]
                key = (rec["aligner"], rec["__key__"], rec["text_sha"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
                if lineno == len(lines) and _cut_row(line):  # no newline after a row of ours: a write cut short
                    # cut off before the next row is appended: appended to, it glued the next row onto it, and
                    # the run after stopped on a "broken word-timing row" (a second resume after a kill failed)
                    self._cut = raw.rfind(b"\n") + 1
                    continue
                raise InputError("broken word-timing row" + ("" if lineno > 1 else
                                 ": the file is not a word-timing cache (rows {\"__key__\", \"aligner\", "
                                 "\"text_sha\", \"words\"}): name a new file, or the cache a run wrote"),
                                 self.path, lineno) from None
            self._rows[key] = words

    def get(self, aligner_id: str, clip_id: str, text: str) -> list[WordTiming] | None:
        return self._rows.get((aligner_id, clip_id, _text_key(text)))

    def put(self, aligner_id: str, clip_id: str, text: str, timings: Sequence[WordTiming]) -> None:
        key = (aligner_id, clip_id, _text_key(text))
        self._rows[key] = list(timings)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._cut is not None:
            with self.path.open("r+b") as fh:
                fh.truncate(self._cut)
            self._cut = None
        rec = {"__key__": clip_id, "aligner": aligner_id, "text_sha": key[2],
               "words": [{"idx": i, "w": t.word, "t0": t.start, "t1": t.end} for i, t in enumerate(timings)]}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def _cut_row(line: str) -> bool:
    """Whether ``line`` is the start of a row ``TimingCache.put`` writes (its first key is ``__key__``)."""
    head = '{"__key__"'
    return line.startswith(head) or head.startswith(line)


@dataclass(frozen=True)
class AlignmentFailure:
    clip_id: str
    reason: str


def align_clips(aligner: Aligner, items: Iterable[tuple[str, object, str]], cache: TimingCache | None = None
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
                with model_call():
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
        return to_plain({"n_clips": self.n_clips, "n_words": self.n_words, "median_ms": self.median_ms,
                         "mean_ms": self.mean_ms, "p90_ms": self.p90_ms, "start_median_ms": self.start_median_ms,
                         "end_median_ms": self.end_median_ms, "within": {str(k): v for k, v in self.within.items()},
                         "mean_overlap": self.mean_overlap})


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
