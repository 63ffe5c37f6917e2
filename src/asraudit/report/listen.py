"""The report's audio: each clip with an edit, compressed, with the waveform strip the page draws.

A reviewer believes a disputed span once they have heard it, so the edit
browser plays it.  Clips are encoded as Ogg/Opus (``audio.encode``: about
2.5 kB per second of speech, which every current browser decodes) and put
into the page as ``data:`` URIs while the page stays within its size budget;
a clip beyond the budget is written as a file into a folder beside the page
(inside the output folder the user named, never elsewhere) and linked by a
relative path, so a big audit still gives a page that opens quickly.  With
no folder to write into, a clip beyond the budget is left out and the page
says so.  The default budget keeps the page one self-contained file for a
typical audit (hundreds of clips of a few seconds each).

The waveform strip is computed here, not in the browser: peaks (the largest
absolute sample per column) of the 16 kHz samples, so the page needs no
Web Audio decoding to draw it and shows the same picture in any browser.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import soundfile as sf

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.encode import OPUS_COMPRESSION, opus_bytes
from asraudit.data.paths import safe_stems, unique_temp_path
from asraudit.errors import InputError

# 20 MB of page: a few hundred clips of speech, still quick to open and to mail.
DEFAULT_BUDGET_MB = 20.0
AUDIO_FOLDER = "report-audio"   # beside report.html: clips beyond the budget
ENCODED_CACHE = "report-audio-cache"  # in the audit's out: each clip's Ogg/Opus bytes, for the next run's page
PEAK_COLUMNS = 240              # columns of the waveform strip (its SVG is 240 units wide)


@dataclass(frozen=True)
class ClipSound:
    """One clip as the page plays it: where its audio is (a data: URI or a relative file) and its waveform."""

    clip: str
    src: str | None          # None: beyond the budget and nowhere to write it
    embedded: bool
    duration_s: float
    peaks: tuple[float, ...]  # 0..1, PEAK_COLUMNS of them
    size_bytes: int           # encoded size (before base64)


@dataclass
class ReportAudio:
    """The clips of a report and what the page says about them (a sentence: how many embedded, linked, missing)."""

    clips: dict[str, ClipSound] = field(default_factory=dict)
    note: str = ""
    budget_mb: float = DEFAULT_BUDGET_MB

    @property
    def embedded_bytes(self) -> int:
        return sum(len(c.src or "") for c in self.clips.values() if c.embedded)


# One sentence for every page without audio, so a page rebuilt from summary.json is the audit's own page
# whenever the audit had no audio to give it either.
NO_AUDIO = ReportAudio(note="No audio in this page: summary.json holds no audio, so a page rebuilt from it "
                            "(asraudit report) plays nothing, and neither does an audit of prediction files "
                            "without audio. The report.html an audit of a corpus with audio writes plays each clip.")


# The page of an audit whose [report] audio is false.
WITHHELD_AUDIO = ReportAudio(note="No audio in this page: the audit's [report] audio is false.")


def can_write_opus() -> bool:
    """Whether the libsndfile under soundfile encodes Opus (1.0.29 and later; soundfile's wheels bundle 1.2)."""
    return "OPUS" in sf.available_subtypes("OGG")


def waveform_peaks(samples: np.ndarray, columns: int = PEAK_COLUMNS) -> tuple[float, ...]:
    """The largest |sample| per column, scaled so the loudest column is 1 (silence stays 0)."""
    x = np.abs(np.asarray(samples, dtype=np.float32))
    if x.size == 0:
        return (0.0,) * columns
    edges = np.linspace(0, x.size, columns + 1).astype(int)
    peaks = np.array([x[a:b].max() if b > a else 0.0 for a, b in zip(edges[:-1], edges[1:])])
    top = peaks.max()
    return tuple(round(float(p / top), 3) for p in peaks) if top > 0 else (0.0,) * columns


class EncodedCache:
    """Ogg/Opus bytes of clips already encoded, one file per clip in a folder, keyed by a digest of the samples and
    the encoder (its compression level, libsndfile's version).

    Encoding is most of what the page costs: about 35 ms per second of audio (measured), so an audit of 700
    ten-second disputed clips would spend about four minutes on it, and again on every rerun, whose models and
    probes read everything from the store.  A changed clip has another digest; a file that cannot be read is encoded anew."""

    def __init__(self, folder: Path):
        self.folder = folder

    @staticmethod
    def key(samples: np.ndarray) -> str:
        digest = hashlib.sha256(np.ascontiguousarray(samples, dtype=np.float32).tobytes())
        digest.update(f"|opus {OPUS_COMPRESSION} {sf.__libsndfile_version__}".encode())
        return digest.hexdigest()[:32]

    def encoded(self, samples: np.ndarray) -> bytes:
        path = self.folder / f"{self.key(samples)}.ogg"
        try:
            return path.read_bytes()
        except OSError:
            pass
        data = opus_bytes(samples)
        try:  # whole or not at all: a run stopped while writing leaves no half file to be taken as encoded
            self.folder.mkdir(parents=True, exist_ok=True)
            temp = unique_temp_path(path)
            temp.write_bytes(data)
            os.replace(temp, path)
        except OSError:
            pass  # a cache that cannot be written costs the next run the encoding, nothing else
        return data


def prepare_audio(sources: Mapping[str, Callable[[], np.ndarray]], folder: Path | None,
                  budget_mb: float = DEFAULT_BUDGET_MB, cache: EncodedCache | None = None) -> ReportAudio:
    """Encode each clip (``sources``: clip id -> its 16 kHz samples, decoded on demand), in order.

    Clips are embedded while the base64 text of all embedded clips stays
    within ``budget_mb`` (1 MB = 10^6 bytes); the rest are written into
    ``folder``/report-audio and linked, or, with no ``folder``, left out.
    A clip whose audio cannot be read is left out and counted in the note:
    the page is still worth having without it.  With a ``cache``, a clip
    encoded by an earlier run is read from it, not encoded again.
    """
    if sources and not can_write_opus():
        return ReportAudio(note=f"No audio in this page: this libsndfile ({sf.__libsndfile_version__}) cannot "
                                "write Ogg/Opus (1.0.29 or later can; the soundfile wheels carry one).",
                           budget_mb=budget_mb)
    budget = int(budget_mb * 1_000_000)
    stems = safe_stems(sources)
    out, used, linked, missing, failures = {}, 0, 0, 0, {}
    for clip, decode in sources.items():
        try:
            samples = decode()
        except (InputError, OSError, ValueError) as exc:
            failures[clip] = str(exc)
            continue
        data = cache.encoded(samples) if cache is not None else opus_bytes(samples)
        uri = "data:audio/ogg;base64," + base64.b64encode(data).decode("ascii")
        duration, peaks = len(samples) / SAMPLE_RATE, waveform_peaks(samples)
        if used + len(uri) <= budget:
            used += len(uri)
            out[clip] = ClipSound(clip, uri, True, duration, peaks, len(data))
            continue
        src = None
        if folder is not None:
            (folder / AUDIO_FOLDER).mkdir(parents=True, exist_ok=True)
            name = f"{stems[clip]}.ogg"
            (folder / AUDIO_FOLDER / name).write_bytes(data)
            src, linked = f"{AUDIO_FOLDER}/{name}", linked + 1
        else:
            missing += 1
        out[clip] = ClipSound(clip, src, False, duration, peaks, len(data))
    parts = [f"{len(out) - linked - missing} clip(s) embedded ({used / 1e6:.2f} MB of the {budget_mb:g} MB budget)"]
    if linked:
        parts.append(f"{linked} linked as files in {AUDIO_FOLDER}/ beside this page (keep the folder with it)")
    if missing:
        parts.append(f"{missing} left out (beyond the budget, and no folder to write them to)")
    if failures:
        first = next(iter(failures.items()))
        parts.append(f"{len(failures)} could not be read (e.g. {first[0]}: {first[1]})")
    return ReportAudio(out, "Audio: " + "; ".join(parts) + ".", budget_mb)
