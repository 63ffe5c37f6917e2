"""The number step of the Whisper English normalizer: asraudit's number normalizer against the port's.

asraudit's ``text/english_numbers.py`` replaces the maintained port's
``EnglishNumberNormalizer`` (whisper_normalizer) inside the Whisper English
normalizer.  This benchmark records the calls the normalizer makes to its
number step on the rule-pool strings of ``normalizer_speed.py`` (a fresh
normalizer: every distinct number span once, as a run pays it), checks that
both number normalizers give the same output on every call, then times each
kind of call (``process_words`` with the caller's join, ``preprocess``,
``postprocess``) for both, interleaved round by round, in CPU microseconds
per call (medians over ``--repeat`` rounds).  Last, the whole Whisper
normalizer, fresh each round, with either number normalizer inside,
interleaved, on the rule-pool strings and on the VoxPopuli strings.

    .venv/bin/python benchmarks/number_normalizer_speed.py [--preds DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import normalizer_speed  # noqa: E402  (its corpus, and its path to tests/normalizer_strings.py)
from whisper_normalizer.english import EnglishNumberNormalizer as PortNumbers  # noqa: E402

import asraudit.text.whisper_english as whisper_english  # noqa: E402
from asraudit.text.english_numbers import EnglishNumberNormalizer  # noqa: E402
from asraudit.text.normalize import strip_format_characters  # noqa: E402
from asraudit.text.spelling import english_spelling_mapping  # noqa: E402


class Recorder:
    """A number normalizer that records every call it gets and hands it to ``inner``."""

    def __init__(self, inner):
        self.inner, self.words = inner, inner.words
        self.calls: dict[str, list] = {"process_words": [], "preprocess": [], "postprocess": []}

    def process_words(self, words):
        self.calls["process_words"].append(list(words))
        return self.inner.process_words(words)

    def preprocess(self, s):
        self.calls["preprocess"].append(s)
        return self.inner.preprocess(s)

    def postprocess(self, s):
        self.calls["postprocess"].append(s)
        return self.inner.postprocess(s)


def whisper_with(numbers, spelling):
    """A fresh Whisper English normalizer whose number step is ``numbers``."""
    original = whisper_english._number_normalizer
    whisper_english._number_normalizer = lambda: numbers
    try:
        return whisper_english.EnglishNormalizer(spelling)
    finally:
        whisper_english._number_normalizer = original


def joined(numbers):
    """``process_words`` as the Whisper normalizer calls it (joined, None left out)."""
    return lambda words: " ".join(w for w in numbers.process_words(words) if w is not None)


def cpu(fn, args) -> float:
    t = time.process_time()
    for a in args:
        fn(a)
    return time.process_time() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preds", type=Path, default=normalizer_speed.default_preds())
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--generated", type=int, default=25_000)
    args = ap.parse_args()
    real, gen = normalizer_speed.corpus(args.preds, args.generated)
    real = [strip_format_characters(s) for s in real]
    gen = [strip_format_characters(s) for s in gen]
    spelling = english_spelling_mapping()
    port, ours = PortNumbers(), EnglishNumberNormalizer()

    recorder = Recorder(port)
    normalizer = whisper_with(recorder, spelling)
    for s in gen:
        normalizer(s)
    calls = recorder.calls
    print(f"rule-pool strings: {len(gen):,}; calls to the number step from a fresh Whisper normalizer: "
          + ", ".join(f"{k} {len(v):,}" for k, v in calls.items()))
    print(f"  words per process_words span: {statistics.mean(map(len, calls['process_words'])):.1f} on average")
    sides = {"process_words": (joined(port), joined(ours)), "preprocess": (port.preprocess, ours.preprocess),
             "postprocess": (port.postprocess, ours.postprocess)}
    for kind, (old, new) in sides.items():
        bad = [a for a in calls[kind] if old(a) != new(a)]
        if bad:
            print(f"{kind}: {len(bad)} calls DIFFER, e.g. {bad[:3]!r}")
            return 1
    print("  output identical to the port's on every call")
    totals = {"port": 0.0, "asraudit": 0.0}
    for kind, (old, new) in sides.items():
        times: dict[str, list[float]] = {"port": [], "asraudit": []}
        for _ in range(args.repeat):
            times["port"].append(cpu(old, calls[kind]))
            times["asraudit"].append(cpu(new, calls[kind]))
        med = {k: statistics.median(v) for k, v in times.items()}
        for k in totals:
            totals[k] += med[k]
        n = len(calls[kind])
        print(f"  {kind:<14} port {med['port'] / n * 1e6:6.2f} µs/call   asraudit {med['asraudit'] / n * 1e6:6.2f} µs/call"
              f"   {med['port'] / med['asraudit']:.1f}x")
    print(f"  all number-step calls: port {totals['port']:.3f} CPU-s, asraudit {totals['asraudit']:.3f} CPU-s "
          f"({totals['port'] / len(gen) * 1e6:.1f} and {totals['asraudit'] / len(gen) * 1e6:.1f} µs per string)")

    print(f"\nwhole Whisper normalizer, fresh each round, median of {args.repeat} interleaved rounds:")
    for part, texts in (("rule-pool strings", gen), ("VoxPopuli + variants", real)):
        if not texts:
            continue
        a, b = whisper_with(port, spelling), whisper_with(ours, spelling)
        if any(a(s) != b(s) for s in texts):
            print(f"  {part}: the two normalizers DIFFER")
            return 1
        times = {"port": [], "asraudit": []}
        for _ in range(args.repeat):
            for name, numbers in (("port", port), ("asraudit", ours)):
                normalizer = whisper_with(numbers, spelling)
                times[name].append(cpu(normalizer, texts))
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"  {part:<22} with the port's number step {med['port']:.3f} CPU-s, with asraudit's "
              f"{med['asraudit']:.3f} CPU-s ({med['port'] / med['asraudit']:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
