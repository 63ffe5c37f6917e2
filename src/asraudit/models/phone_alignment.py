"""Phone-level evidence from pocketsphinx: forced phone alignment and a free phone loop.

Used to check what a synthetic voice actually said without any of the ASR
models under audit (``demo/audio_truth.py``).  Two passes over the same clip:

- **forced phone alignment** of a known text (pocketsphinx's state aligner,
  run as a second pass after word alignment): every dictionary phone of every
  word gets a start, a duration (frames of 10 ms) and an acoustic score.
  Pocketsphinx scores each frame relative to the best-scoring HMM state of
  that frame, so a phone's score per frame is 0 where the text's phone is the
  best the acoustic model can do and falls as the audio moves away from it;
  a phone the audio does not contain is squeezed to its minimum of 3 frames
  (one per HMM state) and scores badly.
- **a phone loop** (pocketsphinx's allphone search with the en-us phone
  language model): the phones the acoustic model hears with no text at all,
  so a word's span can be read back as phones and compared with the
  dictionary's.

The en-us dictionary lacks a few words of parliament-mini (``EXTRA_WORDS``);
they are added with their standard English pronunciation, in the
dictionary's ARPAbet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from asraudit.models.pocketsphinx import alignment_words, default_model_dir, to_int16_pcm

# Words parliament-mini's spoken text uses that cmudict-en-us lacks.
EXTRA_WORDS = {
    "rapporteur": "R AE P AO R T ER",
    "rapporteurs": "R AE P AO R T ER Z",
    "trilogue": "T R AY L AO G",
    "tajani": "T AH JH AA N IY",
}

# One HMM state per frame at least, three states per phone in the en-us model.
MIN_FRAMES_PER_PHONE = 3

_VARIANT = re.compile(r"\(\d+\)$")


@dataclass(frozen=True)
class PhoneSegment:
    phone: str
    start: int  # frame (10 ms)
    frames: int
    score: int  # pocketsphinx acoustic score, relative to the best state per frame (<= 0)


@dataclass(frozen=True)
class AlignedWord:
    """One word of the text as the forced aligner placed it."""

    word: str  # the dictionary spelling (lower case)
    phones: tuple[PhoneSegment, ...]

    @property
    def start(self) -> int:
        return self.phones[0].start

    @property
    def frames(self) -> int:
        return sum(p.frames for p in self.phones)

    @property
    def score(self) -> int:
        return sum(p.score for p in self.phones)


class PhoneAligner:
    """Forced phone alignment and phone-loop recognition with pocketsphinx's en-us model."""

    def __init__(self):
        import pocketsphinx

        self._ps = pocketsphinx
        # bestpath=False: pocketsphinx's state aligner fails on the best-path
        # rescored word sequence (its own alignment test sets it the same way).
        self._aligner = pocketsphinx.Decoder(loglevel="FATAL", samprate=16000, bestpath=False)
        for word, phones in EXTRA_WORDS.items():
            if self._aligner.lookup_word(word) is None:
                self._aligner.add_word(word, phones, True)
        self._loop = pocketsphinx.Decoder(loglevel="FATAL", samprate=16000,
                                          allphone=str(default_model_dir().parent / "en-us-phone.lm.bin"),
                                          lw=2.0, beam=1e-20, pbeam=1e-20)

    def dictionary_words(self, text: str) -> list[list[str]]:
        """The dictionary pieces of each whitespace word of ``text`` (a hyphenated word gives several)."""
        return [alignment_words(w) for w in text.split()]

    def pronunciation(self, word: str) -> list[str]:
        phones = self._aligner.lookup_word(word)
        return phones.split() if phones else []

    def _decode(self, decoder, pcm: bytes) -> None:
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()

    def align(self, audio: np.ndarray, words: list[str]) -> list[AlignedWord]:
        """Phones of each dictionary word, silences left out; raises ValueError when no path is found."""
        missing = sorted({w for w in words if self._aligner.lookup_word(w) is None})
        if missing:
            raise ValueError(f"not in the pocketsphinx dictionary: {', '.join(missing)}")
        pcm = to_int16_pcm(audio)
        self._aligner.set_align_text(" ".join(words))
        try:
            self._decode(self._aligner, pcm)
            self._aligner.set_alignment()
            self._decode(self._aligner, pcm)
        except RuntimeError as err:
            raise ValueError(f"pocketsphinx found no alignment path: {err}") from err
        out = []
        for entry in self._aligner.get_alignment():
            name = _VARIANT.sub("", entry.name)
            if name in ("<sil>", "<s>", "</s>") or name.startswith("["):
                continue
            out.append(AlignedWord(name, tuple(PhoneSegment(p.name, p.start, p.duration, p.score) for p in entry)))
        if [w.word for w in out] != list(words):
            raise ValueError(f"the aligner returned {len(out)} of {len(words)} words")
        return out

    def recognise(self, audio: np.ndarray) -> list[PhoneSegment]:
        """The phones the acoustic model hears with no text (SIL included); score in the decoder's log units."""
        self._decode(self._loop, to_int16_pcm(audio))
        logmath = self._loop.get_logmath()
        return [PhoneSegment(s.word, s.start_frame, s.end_frame - s.start_frame + 1, int(logmath.log(s.ascore)))
                for s in self._loop.seg()]
