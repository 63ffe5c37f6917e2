"""What parliament-mini's synthetic voices actually said, checked without the ASR panel.

truth.json records what the *text* says: the spoken sentence and the record's
planted errors.  A TTS voice may still mispronounce a word (an unusual name
read by letter-to-sound rules), swallow a short one or run two together; the
panel then hears something the spoken text does not contain, and a correct
"edit" the panel mines there counts against it when scored on the text alone.

This module measures, per word of each clip's spoken text, whether the audio
supports it, using only pocketsphinx's acoustic model (``models.phone_alignment``),
never the transcripts of the models being audited:

- forced phone alignment of the spoken text: each word's acoustic score per
  10-ms frame (relative to the best HMM state in that frame) and its duration;
- a free phone loop over the same audio: which phones the acoustic model hears
  in the word's span with no text, compared with the dictionary's phones
  (phone error rate, PER).

A word is flagged from fixed rules set before looking at the mining results
(``AudioCheckParams``): the score is compared with the other words *of the
same voice*, because the en-us acoustic model fits some synthetic voices far
worse than others; a word must also be heard as different phones by the loop,
so that a word the model merely fits badly in a badly fitting voice is not
enough.  Verdicts: ``said``, ``mispronounced`` (the audio there is not the
word's phones), ``skipped`` (the aligner had to squeeze the word to its
minimum duration: nothing in the audio to give it).

What it cannot see: a word said with another word's phones that the acoustic
model fits no worse (a homograph or a stress shift), errors inside one phone,
and anything the en-us model cannot tell apart in a poorly fitting voice.
Its own errors are estimated in docs/calibration.md.

    python -m asraudit.demo.audio_truth [--manifest test.jsonl] [--out audio_truth.jsonl]

The file lists only the words a voice did not say (and any clip that could not
be aligned, as verdict "unchecked"); every other word of a checked clip was said.
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from asraudit.text.align import edit_counts

DATA_DIR = Path(__file__).resolve().parent / "data" / "parliament_mini"
AUDIO_TRUTH = DATA_DIR / "audio_truth.jsonl"
VERDICTS = ("said", "mispronounced", "skipped", "unchecked")  # unchecked: the clip could not be aligned


@dataclass(frozen=True)
class AudioCheckParams:
    # A word is a low outlier when its score per frame is this many robust
    # standard deviations (1.4826 * MAD) below the median word of its voice:
    # 3 keeps a normal tail of ~0.1% per word.
    z_low: float = -3.0
    # ... and the phone loop must hear at most half its phones (PER >= 0.5).
    min_per: float = 0.5
    # Skipped: every phone within one frame of its 3-frame minimum.
    squeeze_slack: int = 1


@dataclass(frozen=True)
class WordEvidence:
    """One whitespace word of a clip's spoken text with the acoustic evidence for it."""

    clip: str  # the clip id (audio path in the manifest)
    voice: str
    index: int  # word index in spoken.split()
    word: str
    verdict: str
    phones: str  # dictionary phones
    heard: str  # phones the free phone loop heard in the word's span
    per: float  # phone error rate of ``heard`` against ``phones``
    frames: int
    score_per_frame: float
    z: float  # score per frame against the voice's words (robust z)
    squeezed: bool  # every phone within squeeze_slack frames of its minimum duration


@dataclass(frozen=True)
class _Raw:
    clip: str
    voice: str
    index: int
    word: str
    phones: list[str] = field(default_factory=list)
    heard: list[str] = field(default_factory=list)
    frames: int = 0
    score: int = 0
    squeezed: bool = False


def _heard_in(loop, start: int, end: int) -> list[str]:
    """Loop phones whose middle frame lies in [start, end)."""
    return [s.phone for s in loop if s.phone != "SIL" and start <= s.start + s.frames // 2 < end]


def measure_clip(aligner, audio, clip: str, voice: str, spoken: str, params: AudioCheckParams) -> list[_Raw]:
    """Raw evidence per spoken word; an unalignable clip gives no rows (its words stay unchecked)."""
    pieces = aligner.dictionary_words(spoken)
    flat = [p for ps in pieces for p in ps]
    aligned = aligner.align(audio, flat)
    loop = aligner.recognise(audio)
    out, k = [], 0
    for i, (word, ps) in enumerate(zip(spoken.split(), pieces)):
        mine = aligned[k:k + len(ps)]
        k += len(ps)
        phones = [p for w in mine for p in w.phones]
        if not phones:
            continue
        start, frames = phones[0].start, sum(p.frames for p in phones)
        squeezed = all(p.frames <= 3 + params.squeeze_slack for p in phones)
        out.append(_Raw(clip, voice, i, word, [p.phone for p in phones], _heard_in(loop, start, start + frames),
                        frames, sum(p.score for p in phones), squeezed))
    return out


def judge(raw: Sequence[_Raw], params: AudioCheckParams = AudioCheckParams()) -> list[WordEvidence]:
    """Verdicts from raw evidence, each word's score set against its own voice's words."""
    by_voice: dict[str, list[float]] = {}
    for r in raw:
        by_voice.setdefault(r.voice, []).append(r.score / r.frames)
    centre = {}
    for voice, xs in by_voice.items():
        med = statistics.median(xs)
        mad = statistics.median(abs(x - med) for x in xs) * 1.4826
        centre[voice] = (med, mad if mad > 0 else 1.0)
    out = []
    for r in raw:
        spf = r.score / r.frames
        med, scale = centre[r.voice]
        z = (spf - med) / scale
        per = sum(edit_counts(r.phones, r.heard)) / len(r.phones)
        if r.squeezed and len(r.phones) >= 2 and z <= params.z_low:
            verdict = "skipped"
        elif z <= params.z_low and per >= params.min_per:
            verdict = "mispronounced"
        else:
            verdict = "said"
        out.append(WordEvidence(r.clip, r.voice, r.index, r.word, verdict, " ".join(r.phones), " ".join(r.heard),
                                round(per, 3), r.frames, round(spf, 2), round(z, 2), r.squeezed))
    return out


def check_manifest(manifest: Path, params: AudioCheckParams = AudioCheckParams(),
                   progress: bool = False) -> tuple[list[WordEvidence], list[WordEvidence]]:
    """Every word of every clip of a parliament-mini manifest; returns the evidence and one row per clip not aligned."""
    from asraudit.audio.io import load_audio
    from asraudit.models.phone_alignment import PhoneAligner

    aligner = PhoneAligner()
    rows = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    raw, failed = [], []
    for n, row in enumerate(rows):
        audio = load_audio(manifest.parent / row["audio_filepath"])
        try:
            raw += measure_clip(aligner, audio, row["audio_filepath"], row["speaker"], row["spoken"], params)
        except ValueError:
            failed.append(unchecked(row["audio_filepath"], row["speaker"]))
        if progress and (n + 1) % 20 == 0:
            print(f"{n + 1}/{len(rows)} clips", flush=True)
    return judge(raw, params), failed


def unchecked(clip: str, voice: str) -> WordEvidence:
    """The row that says a whole clip could not be aligned (word index -1)."""
    nan = float("nan")
    return WordEvidence(clip, voice, -1, "", "unchecked", "", "", nan, 0, nan, nan, False)


def write_evidence(rows: Iterable[WordEvidence], path: Path) -> None:
    """The words the voices did not say, and the clips not checked; a word not listed was said."""
    kept = [r for r in rows if r.verdict != "said"]
    path.write_text("".join(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in kept), encoding="utf-8")


def read_evidence(path: Path = AUDIO_TRUTH) -> list[WordEvidence]:
    return [WordEvidence(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def checked_clips(rows: Iterable[WordEvidence], manifest: Path = DATA_DIR / "test.jsonl") -> dict[str, int]:
    """The clips the check covered (those of the manifest it ran on, less any not aligned) and their word counts."""
    skip = {r.clip for r in rows if r.verdict == "unchecked"}
    out = {}
    for line in manifest.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if row["audio_filepath"] not in skip:
                out[row["audio_filepath"]] = len(row["spoken"].split())
    return out


def unsaid_words(rows: Iterable[WordEvidence]) -> dict[str, dict[int, str]]:
    """Per clip, {index of a word of the spoken text the voice did not say: its verdict}."""
    out: dict[str, dict[int, str]] = {}
    for r in rows:
        if r.verdict in ("mispronounced", "skipped"):
            out.setdefault(r.clip, {})[r.index] = r.verdict
    return out


def build_audio_truth(data_dir: Path = DATA_DIR, manifest: str = "test.jsonl", progress: bool = False) -> str:
    """Check every clip of ``data_dir/manifest`` and write ``data_dir/audio_truth.jsonl``; a one-line account."""
    rows, failed = check_manifest(data_dir / manifest, progress=progress)
    write_evidence(rows + failed, data_dir / AUDIO_TRUTH.name)
    flagged = [r for r in rows if r.verdict != "said"]
    return (f"{len(rows)} words of {manifest} checked, {len(flagged)} not said by the voice "
            f"({sum(r.verdict == 'skipped' for r in flagged)} skipped); clips not aligned: {len(failed)}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Check what parliament-mini's voices said (pocketsphinx, no panel).")
    ap.add_argument("--manifest", type=Path, default=DATA_DIR / "test.jsonl")
    ap.add_argument("--out", type=Path, default=AUDIO_TRUTH)
    args = ap.parse_args(argv)
    rows, failed = check_manifest(args.manifest, progress=True)
    write_evidence(rows + failed, args.out)
    flagged = [r for r in rows if r.verdict != "said"]
    print(f"{len(rows)} words, {len(flagged)} not said by the voice; clips not aligned: {len(failed)}")


if __name__ == "__main__":
    main()
