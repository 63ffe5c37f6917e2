"""Donor speech for splice and babble conditions: other utterances, from a corpus or synthesized.

A splice condition prepends or appends another speaker's (or the same
benchmark's) speech to a clip; the donors are chosen by a seeded shuffle of
the clip id, never the clip itself, so every run and machine builds the
same conditioned audio.
"""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from asraudit.audio.conditions import TTS_ENGINES, synthesize
from asraudit.data.corpus import load_other_corpus
from asraudit.errors import InputError
from asraudit.models.base import SAMPLE_RATE


# -------------------------------------------------------------------- donors

# Neutral sentences for TTS donors: everyday speech, far from any parliament
# or audiobook register, so a TTS donor is "other material" in content too.
TTS_DONOR_SENTENCES = (
    "The bakery on the corner opens early on Saturdays.",
    "Please water the tomatoes before the sun gets too hot.",
    "We missed the last bus and walked home along the river.",
    "My cousin painted the kitchen a bright shade of yellow.",
    "The library will be closed for repairs until next month.",
    "Add a pinch of salt and stir the soup slowly.",
    "The children built a small boat out of old boxes.",
    "It rained all afternoon, so we played cards inside.",
    "The train to the coast leaves from platform four.",
    "Her dog always barks at the postman in the morning.",
)


@dataclass(frozen=True)
class Donor:
    """A piece of speech to splice in: its id, samples and what it says."""

    id: str
    audio: np.ndarray = field(compare=False, repr=False)
    text: str


class DonorPool:
    """Whole donor utterances from one source, picked per clip with a seeded shuffle.

    ``benchmark``: other clips of the audited corpus; ``corpus:<manifest>``:
    clips of another corpus; ``tts:<engine>``: the neutral sentences above,
    synthesized.  Decoded or synthesized audio is kept for the run.
    """

    def __init__(self, spec: str, corpus, texts: Mapping[str, str]):
        self.spec = spec
        self._audio: dict[str, np.ndarray] = {}
        if spec == "benchmark":
            self._entries = [(c.id, texts.get(c.id) or c.reference or "") for c in corpus]
            self._clips = {c.id: c for c in corpus}
        elif spec.startswith("corpus:"):
            other = load_other_corpus(spec[len("corpus:"):], "a donor corpus")
            self._entries = [(c.id, c.reference or "") for c in other if c.reference]
            self._clips = {c.id: c for c in other}
        else:
            self.engine = spec[len("tts:"):]
            self._entries = [(f"tts{i}", s) for i, s in enumerate(TTS_DONOR_SENTENCES)]
            self._clips = {}
        if not self._entries:
            raise InputError(f"donor source {spec!r} has no utterances with text")

    def audio_files(self) -> list[tuple[str, Path]]:
        """(clip id, audio file) of the donor clips held as files: inputs an output must not overwrite."""
        return [(c.id, c.audio) for c in self._clips.values() if isinstance(c.audio, Path)]

    def _samples(self, donor_id: str, text: str) -> np.ndarray:
        if donor_id not in self._audio:
            if donor_id in self._clips:
                self._audio[donor_id] = self._clips[donor_id].decode()
            else:
                try:
                    self._audio[donor_id] = synthesize(text, self.engine)
                except (RuntimeError, OSError) as exc:
                    raise InputError(f"donor {self.spec!r}: {exc}") from None
        return self._audio[donor_id]

    def _chosen(self, clip_id: str, clip_text: str, seconds: float, seed: int, gap: int, samples_of) -> list:
        """``(id, text)`` of the donor utterances joined for ``clip_id``: a seeded shuffle of the others (never the
        clip itself or its text), taken until they and a ``gap`` of samples after each last ``seconds``;
        ``samples_of(id, text)`` is an utterance's length in samples."""
        own = said_by(clip_text)
        pool = [(i, t) for i, t in self._entries if i != clip_id and said_by(t) != own]
        if not pool:
            raise InputError(f"donor source {self.spec!r} has no utterance other than clip {clip_id!r}")
        random.Random(f"{seed}:{clip_id}").shuffle(pool)
        chosen, total = [], 0.0
        for donor_id, text in pool:
            chosen.append((donor_id, text))
            total += (samples_of(donor_id, text) + gap) / SAMPLE_RATE
            if total >= seconds:
                break
        return chosen

    def donors_for(self, clip_id: str, clip_text: str, seconds: float, seed: int, gap: float = 0.2) -> Donor:
        """Donor utterances (never the clip itself or its text) joined until they last ``seconds``."""
        silence = np.zeros(int(round(gap * SAMPLE_RATE)), dtype=np.float32)
        chosen = self._chosen(clip_id, clip_text, seconds, seed, len(silence), lambda i, t: len(self._samples(i, t)))
        pieces = [piece for i, t in chosen for piece in (self._samples(i, t), silence)]
        joined = np.concatenate(pieces[:-1]) if pieces else np.zeros(0, dtype=np.float32)
        return Donor("+".join(i for i, _ in chosen), joined, " ".join(t for _, t in chosen))

    def donor_seconds(self, clip_id: str, clip_text: str, seconds: float, seed: int,
                      gap: float = 0.2) -> tuple[str, float | None]:
        """The id and length in seconds of the donor ``donors_for`` joins for ``clip_id``, a corpus's donors
        measured from their files' headers (none decoded; a TTS donor is synthesized); None for the length when a
        header does not give it (audio held in memory)."""
        gap_samples = int(round(gap * SAMPLE_RATE))
        unknown = []

        def samples_of(donor_id: str, text: str) -> float:
            if donor_id in self._clips and donor_id not in self._audio:
                header = self._clips[donor_id].header_seconds()
                if header is not None:
                    return header * SAMPLE_RATE
                unknown.append(donor_id)
                return 0.0
            return len(self._samples(donor_id, text))

        chosen = self._chosen(clip_id, clip_text, seconds, seed, gap_samples, samples_of)
        ids = "+".join(i for i, _ in chosen)
        if unknown:
            return ids, None
        total = sum(samples_of(i, t) for i, t in chosen) + gap_samples * (len(chosen) - 1)
        return ids, total / SAMPLE_RATE

    def shortest_supply(self, clips: Sequence[tuple[str, str]], gap: float = 0.2) -> tuple[str, float, float] | None:
        """Of ``clips`` (id, text), the one with the least donor audio this source can give it: ``(clip id, its
        donor audio in seconds, the same counted as ``donors_for`` counts it, a gap after every utterance)``.
        Every utterance other than the clip and its text, measured from the files' headers (none decoded; a TTS
        donor is synthesized); None when a header does not give a length (audio held in memory).

        ``donors_for`` joins utterances until they last ``seconds``; a source that holds less for a clip gave
        it all it had, shorter than asked, without a word."""
        gap_samples = int(round(gap * SAMPLE_RATE))
        lengths: dict[str, int] = {}
        for donor_id, text in self._entries:
            if donor_id in self._clips and donor_id not in self._audio:
                header = self._clips[donor_id].header_seconds()
                if header is None:
                    return None
                lengths[donor_id] = round(header * SAMPLE_RATE)
            else:
                lengths[donor_id] = len(self._samples(donor_id, text))
        total, by_text = 0, {}
        for donor_id, text in self._entries:
            total += lengths[donor_id] + gap_samples
            by_text[said_by(text)] = by_text.get(said_by(text), 0) + lengths[donor_id] + gap_samples
        entries = dict(self._entries)
        best = None
        for clip_id, clip_text in clips:
            own = said_by(clip_text)
            have = total - by_text.get(own, 0)
            if clip_id in entries and said_by(entries[clip_id]) != own:  # the clip itself, listed under another text
                have -= lengths[clip_id] + gap_samples
            if best is None or have < best[1]:
                best = (clip_id, have)
        if best is None:
            return None
        counted = best[1] / SAMPLE_RATE
        return best[0], max(0.0, counted - gap_samples / SAMPLE_RATE), counted

    def sample(self, clip_id: str, clip_text: str, n: int, seed: int) -> list[tuple[str, np.ndarray]]:
        """``n`` other utterances (babble), seeded per clip."""
        # A clip of digital silence (a blank recording) adds nothing to the sum: babble of one donor drawing it
        # was no noise at all (``Noise`` leaves a clip as it is when the noise has no power), of more donors one
        # voice fewer, without a word.  The shuffle's next clip takes its place (no other choice changes).
        chosen = self._with_sound(clip_id, clip_text, n, seed,
                                  lambda i, t: bool((a := self._samples(i, t)).size and np.any(a)))
        return [(donor_id, self._samples(donor_id, text)) for donor_id, text in chosen]

    def check_sample(self, clip_id: str, clip_text: str, n: int, seed: int, sound: dict[str, bool]) -> None:
        """That ``sample`` finds ``n`` donors with sound for the clip (its InputError if not), before any model
        runs: the same seeded draw, each donor decoded once to see whether it holds sound (``sound``: the answers
        so far, shared across clips and conditions) and not kept."""
        def has_sound(donor_id: str, text: str) -> bool:
            if donor_id not in sound:
                audio = self._audio.get(donor_id)
                audio = audio if audio is not None else (
                    self._clips[donor_id].decode() if donor_id in self._clips else self._samples(donor_id, text))
                sound[donor_id] = bool(audio.size and np.any(audio))
            return sound[donor_id]

        self._with_sound(clip_id, clip_text, n, seed, has_sound)

    def _with_sound(self, clip_id: str, clip_text: str, n: int, seed: int, has_sound) -> list[tuple[str, str]]:
        """``(id, text)`` of the ``n`` donors ``sample`` takes for the clip: the seeded shuffle of the others, a
        donor without sound (``has_sound(id, text)`` false) passed over."""
        own = said_by(clip_text)
        pool = [(i, t) for i, t in self._entries if i != clip_id and said_by(t) != own]
        if not pool:  # Noise would refuse babble of no donor with a ValueError, a traceback mid-run
            raise InputError(f"donor source {self.spec!r} has no utterance other than clip {clip_id!r}")
        random.Random(f"babble:{seed}:{clip_id}").shuffle(pool)
        out, silent = [], []
        for donor_id, text in pool:
            if len(out) == n:
                break
            if has_sound(donor_id, text):
                out.append((donor_id, text))
            else:
                silent.append(donor_id)
        if len(out) < n:
            raise InputError(f"babble of {n} donor(s) for clip {clip_id!r}: donor source {self.spec!r} holds "
                             f"{len(out)} clip(s) with sound that say something else than the clip (silent: "
                             f"{', '.join(repr(i) for i in silent[:3])}{', ...' if len(silent) > 3 else ''}): "
                             f"give donors = {len(out)} or fewer" if out else
                             f"babble for clip {clip_id!r}: every other clip of donor source {self.spec!r} that "
                             f"says something else is silent ({', '.join(repr(i) for i in silent[:3])}"
                             f"{', ...' if len(silent) > 3 else ''})")
        return out


def said_by(text: str) -> str:
    """A donor's text as the pool compares it with the clip's: a donor never says what the clip says."""
    return " ".join(text.lower().split())


def check_donor_source(spec: str) -> None:
    """That a donor source can give donors, before any model runs: a ``corpus:`` source loads (its audio headers
    read) and holds utterances with text; a ``tts:`` engine is one asraudit drives, is installed and speaks.
    Raises an InputError saying what is wrong (the caller names the spec entry)."""
    if spec.startswith("tts:"):
        engine = spec[len("tts:"):]
        if engine not in TTS_ENGINES:
            raise InputError(f"the engine must be one of {', '.join(TTS_ENGINES)}, got {engine!r}")
        try:
            synthesize("test", engine)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            raise InputError(str(exc)) from None
    elif spec.startswith("corpus:"):
        DonorPool(spec, (), {})  # reads the corpus and refuses one without text
