"""Transcription speed: asraudit's whisper-tiny.en against faster-whisper's own ``transcribe``.

Both run the same CTranslate2 weights (the embedded whisper-tiny.en) on the
same decoded 16 kHz arrays, with the same settings: beam size, compute type,
CPU threads, English, no VAD, no timestamps, temperature 0 only (no fallback
re-decoding), no silence skipping.  Rounds alternate between the two so that
load on a shared machine hits both alike; the best round of each is
reported (the least disturbed measurement of the same work).

Two clocks: wall time, and the process's CPU time.  On a machine shared with
other jobs, wall time measures the neighbours as much as the code; CPU time
of a single-threaded run does not, which is why ``--threads`` defaults to 1
(with more threads, OpenMP's spin-waiting inflates CPU time).

The transcripts are not identical, and that is not a settings mismatch:
faster-whisper computes log-mel features on the clip alone and pads the
*feature matrix* with zeros to 3000 frames, while asraudit (like
openai/whisper) pads the *audio* with 30 s of silence before the STFT.

RTFx = seconds of audio / seconds of compute.  For asraudit it is measured
on the model calls alone (what the store records per model), and on the
whole job grid (decoding the files, the store's transactions) through
``LocalExecutor`` into a fresh store.  faster-whisper gets the arrays already
decoded, so its figure is comparable with the first; the grid pays more.

    .venv/bin/python benchmarks/transcribe_speed.py [--repeat 4] [--rounds 3]
        [--beam-size 5] [--compute-type int8] [--threads N] [--corpus MANIFEST_OR_FOLDER]

Needs the ``bench`` extra (faster-whisper).  The default clips are the five
LibriVox clips of the pocketsphinx 5.1.1 sdist (downloaded with pip, as the
tests' ``librivox`` fixture does), repeated ``--repeat`` times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from asraudit.data.corpus import Clip, load_corpus
from asraudit.metrics.wer import corpus_wer
from asraudit.models import embedded
from asraudit.models.base import SAMPLE_RATE
from asraudit.models.registry import load_model
from asraudit.run.executor import LocalExecutor
from asraudit.run.spec import Transcribe
from asraudit.run.store import ResultStore
from asraudit.text.normalize import get_normalizer

TESTS = Path(__file__).resolve().parents[1] / "tests"


def librivox_folder() -> Path:
    """The sdist's LibriVox folder, fetched like the tests fetch it."""
    sys.path.insert(0, str(TESTS))
    from conftest import TEST_DATA_CACHE, _download_pocketsphinx_test_data  # the tests' own helper

    target = TEST_DATA_CACHE / "pocketsphinx-5.1.1-test-data"
    if not (target / "librivox" / "fileids").is_file():
        _download_pocketsphinx_test_data(target)
    return target / "librivox"


def faster_whisper_texts(model, arrays, beam_size: int) -> list[str]:
    texts = []
    for audio in arrays:
        segments, _ = model.transcribe(
            audio, language="en", beam_size=beam_size, vad_filter=False, without_timestamps=True,
            temperature=0.0, compression_ratio_threshold=None, log_prob_threshold=None, no_speech_threshold=None,
            condition_on_previous_text=False, word_timestamps=False,
        )
        texts.append(" ".join(s.text.strip() for s in segments))  # the generator does the work
    return texts


def asraudit_texts(model, arrays, batch_size: int) -> list[str]:
    out: list[str] = []
    for start in range(0, len(arrays), batch_size):
        out.extend(model.transcribe(arrays[start : start + batch_size]))
    return out


def timed(fn):
    """(wall seconds, CPU seconds of this process, result)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def wer(refs, hyps) -> float:
    normalize = get_normalizer("whisper")
    return corpus_wer([normalize(r) for r in refs], [normalize(h) for h in hyps], n_boot=0).rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", help="manifest or folder (default: the pocketsphinx LibriVox clips)")
    ap.add_argument("--repeat", type=int, default=4, help="use every clip this many times (default %(default)s)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--beam-size", type=int, default=5)
    ap.add_argument("--compute-type", default="int8")
    ap.add_argument("--threads", type=int, default=1, help="CPU threads of both (default %(default)s)")
    ap.add_argument("--batch-size", type=int, default=8, help="asraudit clips per model call (default %(default)s)")
    args = ap.parse_args()

    from faster_whisper import WhisperModel

    corpus = load_corpus(args.corpus or librivox_folder())
    base = list(corpus)
    clips = [Clip(f"{r}:{c.id}", c.audio, c.reference) for r in range(args.repeat) for c in base]
    arrays = [c.decode() for c in clips]
    refs = [c.reference or "" for c in clips]
    audio_seconds = sum(len(a) for a in arrays) / SAMPLE_RATE
    model_dir = embedded.locate("whisper-tiny.en")
    print(f"{len(clips)} clips, {audio_seconds:.1f} s of audio; whisper-tiny.en, beam {args.beam_size}, "
          f"{args.compute_type}, {args.threads} thread(s); {args.rounds} alternating rounds, best reported")

    # asraudit as a user gets it (the backend's default window batch for the device), and
    # with 8 windows per generate() call, to show what batching does on this machine.
    ours = load_model("whisper-tiny.en", compute_type=args.compute_type, beam_size=args.beam_size,
                      cpu_threads=args.threads)
    ours_batched = load_model("whisper-tiny.en", compute_type=args.compute_type, beam_size=args.beam_size,
                              cpu_threads=args.threads, batch_size=8)
    peer = WhisperModel(str(model_dir), device="cpu", compute_type=args.compute_type, cpu_threads=args.threads,
                        num_workers=1)
    # Warm up (first calls allocate and tune).
    asraudit_texts(ours, arrays[:2], args.batch_size)
    asraudit_texts(ours_batched, arrays[:2], args.batch_size)
    faster_whisper_texts(peer, arrays[:2], args.beam_size)

    runs = {
        "asraudit": lambda: asraudit_texts(ours, arrays, args.batch_size),
        "asraudit, 8 windows/call": lambda: asraudit_texts(ours_batched, arrays, args.batch_size),
        "faster-whisper": lambda: faster_whisper_texts(peer, arrays, args.beam_size),
    }
    walls: dict[str, list[float]] = {name: [] for name in [*runs, "asraudit job grid"]}
    cpus: dict[str, list[float]] = {name: [] for name in walls}
    texts: dict[str, list[str]] = {}
    for _ in range(args.rounds):
        for name, fn in runs.items():
            wall, cpu, texts[name] = timed(fn)
            walls[name].append(wall)
            cpus[name].append(cpu)
        with tempfile.TemporaryDirectory() as tmp, ResultStore(Path(tmp) / "s.sqlite") as store:
            wall, cpu, _ = timed(lambda: LocalExecutor(batch_size=args.batch_size, progress=False).run(
                store, [ours], clips, Transcribe()))
            walls["asraudit job grid"].append(wall)
            cpus["asraudit job grid"].append(cpu)
            texts["asraudit job grid"] = [r.text for r in store.results()]

    print(f"\n{'system':<26} {'wall s':>7} {'CPU s':>7} {'RTFx wall':>10} {'RTFx CPU':>9}  WER")
    for name in walls:
        wall, cpu = min(walls[name]), min(cpus[name])
        print(f"{name:<26} {wall:7.2f} {cpu:7.2f} {audio_seconds / wall:10.1f} {audio_seconds / cpu:9.1f}  "
              f"{100 * wer(refs, texts[name]):.2f}%")
    print("(median wall s: " + ", ".join(f"{n} {statistics.median(t):.2f}" for n, t in walls.items()) + ")")
    same = np.mean([a == b for a, b in zip(texts["asraudit"], texts["faster-whisper"])])
    print(f"identical transcripts, asraudit vs faster-whisper: {100 * same:.0f}% (front ends differ, see docstring)")
    for name in ("asraudit", "asraudit job grid", "asraudit, 8 windows/call"):
        print(f"speed ratio {name} / faster-whisper: wall {min(walls['faster-whisper']) / min(walls[name]):.2f}x, "
              f"CPU {min(cpus['faster-whisper']) / min(cpus[name]):.2f}x")
    fw, ours = audio_seconds / min(cpus["faster-whisper"]), audio_seconds / min(cpus["asraudit"])
    print(f"RATIO transcribe: faster-whisper RTFx {fw:.1f} (CPU), asraudit RTFx {ours:.1f} (CPU), {ours / fw:.2f}x")

if __name__ == "__main__":
    main()
