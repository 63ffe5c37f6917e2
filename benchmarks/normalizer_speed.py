"""Normalizer speed: asraudit's Whisper English and basic normalizers against transformers', same strings.

The corpus is at least 100,000 *distinct* strings (repeats would let a
whole-string cache flatter the figure; asraudit keeps no such cache):

- the shared VoxPopuli-150 references and predictions (``--preds``; skipped
  with a note when absent),
- seeded variants of them (words dropped, repeated, swapped, recased,
  punctuated, or replaced by a number, currency, contraction, British
  spelling, symbol or Unicode piece: ``tests/normalizer_strings.py``),
- seeded strings built only from those rule pools (number- and
  symbol-dense: the hard case for asraudit, whose per-token tables help
  least there).

Parity is checked on every string before anything is timed: asraudit's
output must equal transformers' (format characters removed and spaces
collapsed, the documented departure).  Then each round times, on one core,
transformers' normalizer and a *fresh* asraudit normalizer (empty token
tables, so learning them is paid inside the round) over the whole corpus,
in CPU seconds (``time.process_time``), and ``normalize_many`` over two
worker processes (CPU seconds of the workers from ``getrusage``, and wall
time; ``normalize_many`` keeps a compiled normalizer in one
process, and the line says so).  Medians over ``--repeat`` rounds; the
ratios are per round, so load on a shared machine hits both sides alike.

The compiled paths of the basic and the Whisper English normalizers
(``asraudit.text._basic_fast``, ``asraudit.text._whisper_fast``) are used
where they are built, and the first lines say whether they are; then each
one's pure-Python path is checked for parity too and timed in the same
rounds (the figures in brackets), so the two are compared on the same load.

    .venv/bin/python benchmarks/normalizer_speed.py [--preds DIR] [--repeat 3] [--generated 25000] [--only basic]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from normalizer_strings import HANDMADE, generated, perturbed  # noqa: E402

from asraudit.text.spelling import english_spelling_mapping  # noqa: E402
from asraudit.text.normalize import (  # noqa: E402
    in_one_process,
    normalize_many,
    strip_format_characters,
)
from asraudit.text.basic_normalizer import COMPILED, BasicNormalizer, PythonBasicNormalizer  # noqa: E402
from asraudit.text import whisper_english  # noqa: E402
from asraudit.text.whisper_english import EnglishNormalizer  # noqa: E402

SHARED_CANDIDATES = [ROOT.parent / "shared", ROOT.parent.parent / "shared"]
PREDS = "reference/hume-voxpopuli-150/predictions"
TARGET = 100_000


def default_preds() -> Path | None:
    for base in SHARED_CANDIDATES:
        if (base / PREDS).is_dir():
            return base / PREDS
    return None


def real_texts(folder: Path | None) -> list[str]:
    if folder is None:
        return []
    texts = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts += [row["text"], row["pred_text"]]
    return list(dict.fromkeys(texts))


def corpus(folder: Path | None, n_generated: int) -> tuple[list[str], list[str]]:
    """(real text and its variants, rule-pool strings): distinct, ``TARGET`` in all at least."""
    real = real_texts(folder)
    gen = list(dict.fromkeys(HANDMADE + generated(n_generated, seed=2026)))
    sentences = list(real)
    if real:
        seed = 0
        while True:  # counted after the rule-pool strings that are also sentences are left out of their pool
            seen = set(sentences)
            rest = [s for s in gen if s not in seen]
            if len(sentences) + len(rest) >= TARGET:
                return sentences, rest
            more = perturbed(real, TARGET - len(sentences) - len(rest), seed=seed)
            sentences = list(dict.fromkeys(sentences + more))
            seed += 1
    seed = 1  # no shared text: the rule pools make up the whole corpus
    while len(gen) < TARGET:
        gen = list(dict.fromkeys(gen + generated(TARGET - len(gen), seed=seed)))
        seed += 1
    return sentences, gen


def cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def two_cores(texts: list[str], name: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and its workers) of normalize_many over two workers."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t_cpu, wall = time.process_time(), time.perf_counter()
    normalize_many(texts, name, workers=2, threshold=0)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, time.process_time() - t_cpu + children


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preds", type=Path, default=default_preds(), help="VoxPopuli-150 prediction folder")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--generated", type=int, default=25_000, help="rule-pool strings (default %(default)s)")
    ap.add_argument("--only", choices=("whisper", "basic"), help="time one normalizer (default: both)")
    args = ap.parse_args()
    from transformers.models.whisper.english_normalizer import BasicTextNormalizer, EnglishTextNormalizer

    real, gen = corpus(args.preds, args.generated)
    texts = real + gen
    if not real:
        print("note: shared VoxPopuli text not found; the corpus is rule-pool strings only")
    print(f"corpus: {len(texts):,} distinct strings ({len(real):,} VoxPopuli and variants, {len(gen):,} rule-pool), "
          f"{sum(map(len, texts)) / len(texts):.0f} characters on average")

    spelling = english_spelling_mapping()
    peers = {"whisper": EnglishTextNormalizer(spelling), "basic": BasicTextNormalizer()}

    print(f"basic normalizer: {'compiled (asraudit.text._basic_fast)' if COMPILED else 'pure Python (not built)'}")
    print(f"Whisper English normalizer: "
          f"{'compiled (asraudit.text._whisper_fast)' if whisper_english.COMPILED else 'pure Python (not built)'}")
    compiled = {"basic": COMPILED, "whisper": whisper_english.COMPILED}

    def fresh(name: str, python: bool = False):
        if name == "basic":
            basic = PythonBasicNormalizer() if python else BasicNormalizer()
            return lambda s: basic(strip_format_characters(s))
        ours = whisper_english.PythonEnglishNormalizer(spelling) if python else EnglishNormalizer(spelling)
        return lambda s: ours(strip_format_characters(s))

    for name, peer in peers.items():
        if args.only not in (None, name):
            continue
        ours = fresh(name)
        bad = [s for s in texts if ours(s) != " ".join(peer(strip_format_characters(s)).split())]
        if compiled[name]:  # the pure-Python path too
            python = fresh(name, python=True)
            bad += [s for s in texts if python(s) != " ".join(peer(strip_format_characters(s)).split())]
        print(f"\n[{name}] parity with transformers on all {len(texts):,} strings: "
              f"{'identical' if not bad else f'{len(bad)} DIFFER, e.g. {bad[:3]!r}'}")
        if bad:
            return 1
        rows: dict[str, list[float]] = {k: [] for k in ("peer", "ours", "ratio", "peer_real", "ours_real",
                                                          "ratio_real", "peer_gen", "ours_gen", "ratio_gen",
                                                          "wall2", "cpu2", "py", "py_real", "py_gen",
                                                          "ratio_py", "ratio_py_real", "ratio_py_gen")}
        # With a compiled normalizer built, its pure-Python path is timed in the same rounds (A/B).
        both = compiled[name]
        for _ in range(args.repeat):
            for part, sub in (("", texts), ("_real", real), ("_gen", gen)):
                if not sub:
                    continue
                t_peer = cpu(lambda: [peer(s) for s in sub])
                ours = fresh(name)
                t_ours = cpu(lambda: [ours(s) for s in sub])
                rows["peer" + part].append(len(sub) / t_peer)
                rows["ours" + part].append(len(sub) / t_ours)
                rows["ratio" + part].append(t_peer / t_ours)
                if both:
                    python = fresh(name, python=True)
                    t_py = cpu(lambda: [python(s) for s in sub])
                    rows["py" + part].append(len(sub) / t_py)
                    rows["ratio_py" + part].append(t_peer / t_py)
                if not part:
                    wall2, cpu2 = two_cores(texts, name)
                    rows["wall2"].append(t_peer / wall2)
                    rows["cpu2"].append(t_peer / cpu2)
        med = {k: statistics.median(v) for k, v in rows.items() if v}
        print(f"  one core, strings per CPU second (median of {args.repeat}):")
        for part, label in (("", "all"), ("_real", "VoxPopuli + variants"), ("_gen", "rule-pool strings")):
            if "peer" + part in med:
                print(f"    {label:<22} transformers {med['peer' + part]:>9,.0f}/s   asraudit {med['ours' + part]:>9,.0f}/s"
                      f"   ratio {med['ratio' + part]:5.1f}x"
                      + (f"   (pure-Python path {med['py' + part]:>9,.0f}/s, {med['ratio_py' + part]:5.1f}x)"
                         if "py" + part in med else ""))
        where = (f"in one process (normalize_many keeps the compiled {name} normalizer here)" if in_one_process(name)
                 else "two worker processes (normalize_many)")
        print(f"  {where}: transformers' one-core CPU time / asraudit's wall time "
              f"{med['wall2']:.1f}x; per CPU second (workers included) {med['cpu2']:.1f}x")
        print(f"RATIO normalizer-{name}: transformers {med['peer']:,.0f} strings/CPU-s, asraudit "
              f"{med['ours']:,.0f} strings/CPU-s, {med['ratio']:.1f}x one core, {med['wall2']:.1f}x wall "
              f"{'by normalize_many in one process' if in_one_process(name) else 'on two'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
