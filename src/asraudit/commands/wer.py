"""`asraudit wer`: WER of prediction files, per model, with intervals.

Files are scored as they are read (``metrics.model_wer.stream_file``): per
clip only its counts and two hashes are kept, so a million-row file needs a
fraction of its size in memory, not ten times it.  The few texts a report
prints (the worst clips, the ids of clips whose references disagree) are read
again by row number."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from asraudit.commands.common import (add_preds_argument, at_least, check_resampling,
                                      ensure_outside_prediction_folders, integer, prediction_inputs)
from asraudit.commands.wer_groups import (groups_json, print_group_table, read_groups, require_manifest_clips,
                                          score_groups)
from asraudit.data.paths import ensure_outputs_apart, ensure_writable_file, output_file, write_text_whole
from asraudit.data.predictions import no_shared_clips, prediction_files, space_twin, spaced_clip_warning
from asraudit.errors import InputError
from asraudit.metrics.defaults import MIN_BOOTSTRAP
from asraudit.metrics.model_wer import BoundedCache, StreamedFile, score_streamed, stream_file
from asraudit.metrics.scorers import SCORERS, Scorer, get_scorer
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, paired_bootstrap
from asraudit.metrics.stream_rows import text_hash
from asraudit.metrics.wer import CorpusScore
from asraudit.report.alignment_view import alignment_lines
from asraudit.report.summary import to_plain
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.terminal_text import one_line, warn
from asraudit.text.align import align
from asraudit.text.normalize import NORMALIZERS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "wer",
        help="WER per model from prediction files",
        description="WER, S/D/I, transcript precision and a clip-bootstrap 95% interval per model.",
    )
    add_preds_argument(p)
    p.add_argument("--scorer", choices=SCORERS, default="asraudit",
                   help="asraudit (default): the normalizer below and plain word alignment; leaderboard: the Open "
                        "ASR Leaderboard's English normalizer and compound-merging alignment (needs kaldialign)")
    p.add_argument("--normalizer", choices=NORMALIZERS, default=None,
                   help="default: the scorer's own (asraudit: whisper; leaderboard: leaderboard)")
    p.add_argument("--group-field", metavar="F",
                   help="also WER and its interval per value of column F (of --manifest, else of each prediction file)")
    p.add_argument("--manifest", type=Path, metavar="PATH",
                   help="the corpus manifest whose column --group-field names (joined on the clip id)")
    p.add_argument("--common", action="store_true",
                   help="score every model on the clips all models ran (fair comparison)")
    p.add_argument("--json", type=output_file, metavar="OUT", help="write the scores as JSON")
    p.add_argument("--show-alignments", type=at_least(0), default=0, metavar="N",
                   help="print the N worst clips of each model aligned word by word")
    p.add_argument("--paired", action="store_true",
                   help="print P(row model has lower WER than column model), paired clip bootstrap")
    p.add_argument("--bootstrap", type=integer, default=DEFAULT_BOOTSTRAP, metavar="B",
                   help="bootstrap resamples (default %(default)s)")
    p.add_argument("--seed", type=integer, default=0)
    p.set_defaults(func=run)


@dataclass
class Scored:
    """One model's score and the positions (in its file's arrays) of the clips behind it."""

    file: StreamedFile
    score: CorpusScore
    positions: np.ndarray
    empty_reference_clips: list[str]


def run(args: argparse.Namespace) -> int:
    check_resampling(args)
    if args.paired and args.bootstrap < 1:
        raise InputError(f"--paired needs bootstrap resamples: give --bootstrap of at least {MIN_BOOTSTRAP}, got "
                         f"{args.bootstrap}")
    if args.json:
        ensure_writable_file(args.json, "--json")  # before the table is printed, not after
    if args.group_field is not None and not args.group_field.strip():  # "$FIELD" unset: no table, and no word
        raise InputError(f"--group-field names the column to group by, got {args.group_field!r}")
    if args.manifest is not None and not args.group_field:
        raise InputError("--manifest is read only for --group-field; name the column to group by")
    scorer = get_scorer(args.scorer, args.normalizer)
    normalize = BoundedCache(scorer.normalize)
    paths = prediction_files(args.preds)
    ensure_outputs_apart([("--json", args.json)], [*prediction_inputs(paths), ("--manifest", args.manifest)])
    ensure_outside_prediction_folders([("--json", args.json)], args.preds)
    groups = read_groups(args.group_field, paths, args.manifest) if args.group_field else None
    files: dict[str, StreamedFile] = {}
    for path in paths:
        f = stream_file(path, normalize, counts=scorer.counts)
        if f.model in files:
            raise InputError(f"two prediction files for model {f.model!r}: {files[f.model].source} and {path}", path)
        files[f.model] = f
    for w in _warnings(files):
        warn(w)
    sys.stderr.flush()
    if args.common or args.paired:
        _require_common_clips(files, "--common" if args.common else "--paired")
    if args.manifest is not None:
        require_manifest_clips(files, groups, args.manifest, args.group_field)
    common = _common_hashes(files) if args.common else None
    common_set = set(common.tolist()) if common is not None else None
    results = {}
    for m, f in files.items():
        keep = np.isin(f.clip_hash, common) if common is not None else None
        score, positions = score_streamed(f, keep, n_boot=args.bootstrap, seed=args.seed)
        empty = [c for c in f.empty_reference_clips if common_set is None or text_hash(c) in common_set]
        results[m] = Scored(f, score, positions, empty)
    _print_table(files, results, scorer)
    by_group = None
    if groups is not None:
        by_group = {m: score_groups(r.file, r.positions, groups[r.file.source], args.bootstrap, args.seed)
                    for m, r in results.items()}
        print_group_table(args.group_field, by_group)
    if args.paired:
        _print_paired(files, args)
    if args.show_alignments > 0:
        _print_alignments(results, normalize, args.show_alignments)
    if args.json:
        extra = {"groups": groups_json(args.group_field, by_group)} if by_group is not None else {}
        _write_json(args.json, files, results, scorer, extra)
    return 0


def _warnings(files: dict[str, StreamedFile]) -> list[str]:
    """The loader's warnings (as ``load_predictions`` words them), from the streamed files."""
    out = []
    for f in files.values():
        if not len(f):
            out.append(f"{f.source}: no rows with a hypothesis (an empty prediction file): model {f.model} "
                       "ran no clips and is left out of every panel")
        elif f.skipped_missing_hypothesis:
            out.append(f"{f.source}: {f.skipped_missing_hypothesis} row(s) without a hypothesis treated as clips "
                       "the model did not run")
    ran = [f for f in files.values() if len(f)]
    total = len(np.unique(np.concatenate([f.clip_hash for f in ran]))) if ran else 0
    if any(len(f) != total for f in ran):  # the files ran other clips: say so where a space at an end is why
        spaced = spaced_clip_warning([(f.source, f.clip_ids) for f in ran])
        if spaced:
            out.append(spaced)
    ids, n = _conflicting_clips(files)
    if n:
        more = f" and {n - 10} more" if n > 10 else ""
        out.append(f"references differ across models on {n} clip(s): {', '.join(ids)}{more}")
    return out


def _conflicting_clips(files: dict[str, StreamedFile], shown: int = 10) -> tuple[list[str], int]:
    """The first ``shown`` clip ids (first-seen order) whose reference differs between files, and how many."""
    if len(files) < 2:
        return [], 0
    pairs = np.unique(np.concatenate([np.stack([f.clip_hash, f.ref_hash], axis=1) for f in files.values()]), axis=0)
    clips, n_refs = np.unique(pairs[:, 0], return_counts=True)
    conflicting = clips[n_refs > 1]
    if not len(conflicting):
        return [], 0
    ids: dict[int, str] = {}
    for f in files.values():
        hit = np.flatnonzero(np.isin(f.clip_hash, conflicting))
        want = [i for i in hit if int(f.clip_hash[i]) not in ids][: shown - len(ids)]
        texts = f.read_rows(f.rows[i] for i in want)
        for i in want:
            ids.setdefault(int(f.clip_hash[i]), texts[int(f.rows[i])].clip_id)
        if len(ids) >= shown:
            break
    return list(ids.values()), len(conflicting)


def _require_common_clips(files: dict[str, StreamedFile], flag: str) -> None:
    """``--common`` and ``--paired`` compare models on the clips all of them ran: refused when there is none (the
    same recordings under clip ids of two machines' paths, a file of another benchmark), which printed a table
    of no clip and NaN for every pair."""
    ran = [f for f in files.values() if len(f)]
    if len(ran) < 2 or len(_common_hashes(files)):
        return
    def first_id(f: StreamedFile) -> str:  # the hashes are all that is kept: one row read again
        return next(iter(f.read_rows([int(f.rows[0])]).values())).clip_id

    for i, a in enumerate(ran):
        for b in ran[i + 1:]:
            if not len(np.intersect1d(a.clip_hash, b.clip_hash)):
                raise no_shared_clips((a.source, first_id(a)), (b.source, first_id(b)), flag,
                                      twin=space_twin(a.clip_ids(), b.clip_ids()))
    raise InputError(f"no clip is in every one of {', '.join(f.source.name for f in ran)} (each two share some), so "
                     f"{flag} has no clip to compare them on: leave it out, or leave out the file that ran other "
                     "clips", ran[-1].source)


def _common_hashes(files: dict[str, StreamedFile]) -> np.ndarray:
    """Hashes of the clips every model ran; an empty file (a model that ran nothing, warned about) is left out,
    as from every panel, or no clip would be common and every model would score nothing."""
    common = None
    for f in files.values():
        if not len(f):
            continue
        common = f.clip_hash if common is None else np.intersect1d(common, f.clip_hash)
    return np.asarray(common if common is not None else [], dtype=np.int64)


def _print_table(files: dict[str, StreamedFile], results: dict[str, Scored], scorer: Scorer) -> None:
    total = len(np.unique(np.concatenate([f.clip_hash for f in files.values()]))) if files else 0
    rows = []
    empty: set[str] = set()
    for m, r in results.items():
        s = r.score
        rows.append([
            m, fmt_rate(s.rate), fmt_interval(s.interval.low, s.interval.high),
            s.substitutions, s.deletions, s.insertions, s.ref_units,
            fmt_rate(s.precision), s.clips, f"{len(r.file)}/{total}",
        ])
        empty.update(r.empty_reference_clips)
    if empty:
        shown = ", ".join(sorted(empty)[:5]) + (" ..." if len(empty) > 5 else "")
        warn(f"{len(empty)} clip(s) have an empty normalized reference and are left out of WER: {shown}")
    sys.stderr.flush()
    render_table(
        ["model", "WER", "95% CI", "S", "D", "I", "ref words", "precision", "scored", "ran"],
        rows,
        title=f"WER ({scorer.name} scorer, {scorer.normalizer} normalizer, clip bootstrap)",
    )


def _print_paired(files: dict[str, StreamedFile], args) -> None:
    """P(row model has the lower WER), resampling the clips every model ran with a reference, in the
    first file's order; models whose file is empty have nothing to compare and are left out."""
    files = {m: f for m, f in files.items() if len(f)}
    models = list(files)
    common = _common_hashes(files)
    first = files[models[0]] if models else None
    order = first.clip_hash[np.isin(first.clip_hash, common)] if first is not None else np.zeros(0, np.int64)
    per: dict[str, np.ndarray] = {}
    for m, f in files.items():
        sort = np.argsort(f.clip_hash)
        per[m] = f.counts[sort[np.searchsorted(f.clip_hash, order, sorter=sort)]] if len(order) else f.counts[:0]
    ok = np.ones(len(order), dtype=bool)
    for c in per.values():
        ok &= c[:, 3] > 0
    arrays = {m: (c[ok, 0] + c[ok, 1] + c[ok, 2], c[ok, 3]) for m, c in per.items()}
    rows = []
    for a in models:
        row = [a]
        for b in models:
            if a == b:
                row.append("-")
            else:
                p = paired_bootstrap(arrays[a][0], arrays[b][0], arrays[a][1], n_boot=args.bootstrap, seed=args.seed)
                row.append(f"{p:.3f}")
        rows.append(row)
    render_table(["P(row < col)"] + models, rows, title=f"Paired bootstrap on {int(ok.sum())} common clips")


def _print_alignments(results: dict[str, Scored], normalize, n: int) -> None:
    for m, r in results.items():
        c = r.file.counts[r.positions].astype(np.int64)
        errors, ref = c[:, 0] + c[:, 1] + c[:, 2], c[:, 3]
        wer = errors / ref
        # Candidates: every clip ranked at or above the n-th by (WER, errors); ties are broken by clip id.
        key = np.lexsort((-errors, -wer))
        if len(key) > n:
            nth = key[n - 1]
            candidates = np.flatnonzero((wer > wer[nth]) | ((wer == wer[nth]) & (errors >= errors[nth])))
        else:
            candidates = key
        texts = r.file.read_rows(r.file.rows[r.positions[i]] for i in candidates)
        ranked = sorted(candidates, key=lambda i: (-wer[i], -errors[i], texts[int(r.file.rows[r.positions[i]])].clip_id))
        print("\n" + one_line(f"== {m}: {min(n, len(ranked))} worst clips =="))
        for i in ranked[:n]:
            p = texts[int(r.file.rows[r.positions[i]])]
            s, d, ins, words = (int(x) for x in c[i, :4])
            al = align(normalize(p.reference).split(), normalize(p.hypothesis).split())
            print(f"\nclip {one_line(p.clip_id)}  WER {fmt_rate(wer[i])}  (S {s}, D {d}, I {ins}, N {words})")
            for line in alignment_lines(al):
                print(one_line(line))


def _write_json(path: Path, files: dict[str, StreamedFile], results: dict[str, Scored], scorer: Scorer,
                extra: dict) -> None:
    models = {}
    for m, r in results.items():
        s = r.score
        models[m] = {
            "wer": s.rate,
            "substitutions": s.substitutions,
            "deletions": s.deletions,
            "insertions": s.insertions,
            "ref_words": s.ref_units,
            "clips": s.clips,
            "wer_interval": s.interval.to_json(),  # clip bootstrap; the one spelling of an interval
            "precision": s.precision,
            "clips_ran": len(files[m]),
        }
    # The scorer and normalizer behind the numbers (provenance: they move WER by tenths of a point).
    payload = {**scorer.provenance(), "models": models, **extra}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_whole(path, json.dumps(to_plain(payload), indent=2, allow_nan=False) + "\n")  # NaN as null
