"""Splice pairs, the paper's learning pairs: the same clip followed by benchmark audio vs by other audio.

A direction learned between two *different* clips (a benchmark voice vs a
fresh one) also learns everything else that differs between them.  The
splice pair holds the clip fixed and changes only what follows it: donor
audio from the benchmark itself (``donors``: clips of the audited corpus,
e.g. its benchmark voices) or from other material (``other``: a corpus of
other speech, or TTS of neutral sentences).  Donors are chosen per clip by
the trigger battery's seeded pools (``probes.battery_donors``), never the
clip itself nor a clip with its text, so the pairs are the same on every
run and machine.

Which pairs a direction learns from, and in which order a pair-count sweep
takes them, is also fixed here: ``sweep_order`` ranks pair labels by a
seeded hash, so the first 8 pairs are spread over sentences rather than
being one sentence's voices, and every larger set contains the smaller.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from asraudit.audio.conditions import DonorSplice
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.mechanism.pairs import ClipPair, Selection
from asraudit.probes.battery_donors import DonorPool


@dataclass(frozen=True)
class Splice:
    """What follows (or precedes) each clip in a splice pair."""

    other: str                   # the negative's donor: "corpus:<manifest>" or "tts:<engine>"
    donors: Selection = Selection()  # corpus clips the positive's (benchmark) donor comes from; default every clip
    seconds: float = 6.0         # donor audio spliced in (whole utterances until this long; the battery's 6 s)
    where: str = "append"        # append | prepend
    seed: int = 0                # seed of the donor choice per clip
    other_key: str | None = None  # how ``other`` is named in ids: a corpus by its manifest's name and digest

    @property
    def id(self) -> str:
        """The splice in cache keys and summaries: a donor corpus enters by content, not by where this
        checkout keeps it (an absolute path would relearn the direction after a move and show the path)."""
        other = self.other_key or self.other
        return f"splice({self.where},{self.seconds:g}s,donors={self.donors.id},other={other},seed={self.seed})"


def _spliced(audio: np.ndarray, pool: DonorPool, clip, splice: Splice) -> np.ndarray:
    donor = pool.donors_for(clip.id, clip.reference or "", splice.seconds, splice.seed)
    return DonorSplice(donor.audio, donor.id, len(donor.audio) / SAMPLE_RATE, splice.where)(audio)


def splice_audio_pairs(pairs: Sequence[ClipPair], donors: Sequence, splice: Splice) -> list[tuple[np.ndarray, np.ndarray]]:
    """(clip + benchmark donor, clip + other donor) for each pair's positive clip.

    ``donors`` are the corpus clips the benchmark donor is drawn from."""
    bench = DonorPool("benchmark", list(donors), {c.id: c.reference or "" for c in donors})
    other = DonorPool(splice.other, [], {})
    out = []
    for pair in pairs:
        audio = pair.positive.decode()
        out.append((_spliced(audio, bench, pair.positive, splice), _spliced(audio, other, pair.positive, splice)))
    return out


def splice_lengths(pairs: Sequence[ClipPair], donors: Sequence, splice: Splice) -> list[tuple[str, float]]:
    """``(label, seconds)`` of the longer spliced input of each pair ``splice_audio_pairs`` builds, from the clips'
    and the donors' headers, none decoded: what the learning check compares with the model's window before it
    loads.  The label names the clip and its donor (``'a.wav' + benchmark donor 'b.wav+c.wav'``).  A pair whose
    lengths no header gives (audio held in memory) is left out: it is checked once decoded, when the model has
    loaded."""
    bench = DonorPool("benchmark", list(donors), {c.id: c.reference or "" for c in donors})
    other = DonorPool(splice.other, [], {})
    out = []
    for pair in pairs:
        clip = pair.positive
        own = clip.header_seconds()
        if own is None:
            continue
        inputs = []
        for name, pool in (("benchmark", bench), ("other", other)):
            ids, seconds = pool.donor_seconds(clip.id, clip.reference or "", splice.seconds, splice.seed)
            if seconds is None:
                break
            inputs.append((own + seconds, f"{clip.id} + {name} donor {ids}"))
        else:
            seconds, label = max(inputs)
            out.append((label, seconds))
    return out


def sweep_order(labels: Sequence[str], seed: int = 0) -> list[int]:
    """Indices of ``labels`` in a seeded, order-independent order (nested subsets for a pair-count sweep)."""
    return sorted(range(len(labels)), key=lambda i: hashlib.sha256(f"{seed}\x00{labels[i]}".encode()).hexdigest())
