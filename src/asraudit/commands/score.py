"""`asraudit score`: teacher-forced per-token log-probabilities of candidate texts.

The candidates file is JSONL (or a JSON list), one object per clip::

    {"audio_filepath": "audio/a.wav", "candidates": ["the cat sat", "the cat sat down"]}

``audio_filepath`` is the clip id as the corpus gives it (``id`` is accepted
too); ``candidates`` is a non-empty list of texts, scored exactly as written
(no normalization: the rendering probes compare spellings).  Clips the file
does not name are not scored.  ``--with-reference`` also scores each clip's
reference transcript (first, when it is not already a candidate), so the
file can be omitted when the reference is all that is needed.

The output is JSONL, one row per (model, clip, candidate)::

    {"model": ..., "config_hash": ..., "audio_filepath": ..., "condition": "original",
     "text": ..., "tokens": [...], "token_ids": [...], "logprobs": [...], "total": ...}

``logprobs`` are natural logs, one per token, end-of-text included as the
last token.  Scores are kept in the result store, so rescoring the same
candidates is free.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from asraudit.data.corpus import Corpus
from asraudit.data.paths import output_file, written_whole
from asraudit.data.predictions import ClipIds, space_twin, space_twin_words
from asraudit.data.rows import jsonl_rows, number_id
from asraudit.commands.common import OneInput, check_candidates_fit
from asraudit.errors import InputError
from asraudit.commands.transcribe import (STORE_NAME, add_grid_arguments, check_grid_outputs, executor_of,
                                         load_models, open_corpus, print_run)
from asraudit.run.spec import ORIGINAL, SCORE, Score, make_job
from asraudit.run.store import ResultStore

ID_FIELDS = ("audio_filepath", "id")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="teacher-forced per-token log-probabilities of candidate texts",
        description="Score candidate texts of each clip under teacher forcing (models that expose likelihoods). "
                    "Candidates file: JSONL rows {\"audio_filepath\": CLIP_ID, \"candidates\": [TEXT, ...]}.",
    )
    add_grid_arguments(p)
    p.add_argument("--texts", type=Path, metavar="FILE", action=OneInput, help="candidates file (JSONL, see above)")
    p.add_argument("--with-reference", action="store_true", help="also score each clip's reference transcript")
    p.add_argument("--out", type=output_file, required=True, metavar="FILE", help="output JSONL of per-token log-probs")
    p.set_defaults(func=run)


def load_candidates(path: Path, corpus: Corpus, rows: dict[str, int] | None = None) -> dict[str, list[str]]:
    """clip id -> candidate texts, checked against the corpus (``rows``, when given, gets each clip's row)."""
    if not path.is_file():
        raise InputError("no such candidates file", path)
    if path.suffix.lower() not in (".jsonl", ".json"):
        raise InputError("candidates must be JSONL (one {\"audio_filepath\", \"candidates\"} object per line)", path)
    out: dict[str, list[str]] = {}
    rows = {} if rows is None else rows
    for row, rec in jsonl_rows(path):
        key = next((f for f in ID_FIELDS if f in rec), None)
        if key is None:
            raise InputError(f"missing clip id (one of {ID_FIELDS}); found {sorted(rec)}", path, row)
        clip_id = str(number_id(rec[key], path, row))  # 7.0 is clip 7, as in every other file the project reads
        if clip_id not in corpus:
            twin = space_twin(ClipIds.of([clip_id]), ClipIds.of(c.id for c in corpus))
            why = f": {space_twin_words(path, twin[0], 'the corpus', twin[1])}" if twin else ""
            raise InputError(f"clip {clip_id!r} is not in the corpus{why}", path, row)
        if clip_id in out:
            raise InputError(f"clip {clip_id!r} listed twice (first at row {rows[clip_id]})", path, row)
        texts = rec.get("candidates")
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            raise InputError("'candidates' must be a non-empty list of strings", path, row)
        first: dict[str, int] = {}
        for i, text in enumerate(texts, 1):  # scored twice, it was two rows of the output for one candidate
            if first.setdefault(text, i) != i:
                raise InputError(f"candidates {first[text]} and {i} are the same text {text!r}: keep one", path, row)
        out[clip_id], rows[clip_id] = list(texts), row
    return out


def check_clips_fit(models: list[str], corpus: Corpus, candidates: dict[str, list[str]], loaded=None) -> None:
    """Each clip to score checked against the longest audio the models score (a Whisper's 30-s window), by the
    length its header gave when the corpus was read: before any model loads, from the files ``models`` name, and
    again once ``loaded`` (the same models, loaded) can say their own (a speech LLM's prompt): a longer clip was a
    ValueError traceback when its turn came."""
    from asraudit.models.candidate_check import score_window

    window = score_window(models, loaded)
    long_clips = window.too_long(c for c in corpus if c.id in candidates) if window is not None else {}
    if long_clips:
        clip = corpus[next(iter(long_clips))]
        raise InputError(f"clip {clip.id!r} is {long_clips[clip.id]:.1f} s long, and {window.model} scores at most "
                         f"{window.seconds:g} s (one window): cut the clip, or leave it out of the clips to score",
                         clip.source, clip.row)


def with_references(candidates: dict[str, list[str]], corpus: Corpus) -> dict[str, list[str]]:
    out = dict(candidates)
    for clip in corpus:
        if clip.reference is None:
            continue
        texts = out.get(clip.id, [])
        out[clip.id] = texts if clip.reference in texts else [clip.reference, *texts]
    return out


def run(args: argparse.Namespace) -> int:
    if args.texts is None and not args.with_reference:
        raise InputError("nothing to score: give --texts FILE and/or --with-reference")
    check_grid_outputs(args, store=args.store or args.out.parent / STORE_NAME, files=[("--out", args.out)],
                       inputs=[("--texts", args.texts)])
    corpus = open_corpus(args)
    rows: dict[str, int] = {}
    candidates = load_candidates(args.texts, corpus, rows) if args.texts else {}
    texts = [(text, f"candidate {i} of clip {clip_id!r}", args.texts, rows[clip_id])
             for clip_id, given in candidates.items() for i, text in enumerate(given, 1)]
    if args.with_reference:
        texts += [(clip.reference, f"the reference of clip {clip.id!r}", clip.source, clip.row) for clip in corpus
                  if clip.reference is not None and clip.reference not in candidates.get(clip.id, ())]
        candidates = with_references(candidates, corpus)
    check_candidates_fit(args.model, texts)
    check_clips_fit(args.model, corpus, candidates)
    if not candidates:
        raise InputError("no clip has a candidate to score", args.texts or args.corpus)
    store_path = args.store or args.out.parent / STORE_NAME
    task = Score(candidates)
    models = load_models(args)
    check_clips_fit(args.model, corpus, candidates, models)  # a loaded model's own window, before any scoring
    with ResultStore(store_path) as store:
        summary = executor_of(args).run(store, models, corpus.clips, task,
                                        description=f"score {corpus.source}")
        print_run(summary, store)
        n_rows = 0
        args.out.parent.mkdir(parents=True, exist_ok=True)
        # written whole as every other output (case 135): a link keeps pointing at its file, which gets the rows; a
        # stream (a FIFO, /dev/stdout) is appended to; a run's temporary file has a name of its own
        with written_whole(args.out) as tmp, tmp.open("w", encoding="utf-8") as fh:
            for ident in summary.identities:
                for clip in corpus:
                    params = task.params_for(clip)
                    if params is None:
                        continue
                    result = store.get(make_job(ident.model_id, ident.config_hash, clip.id, ORIGINAL.id, SCORE, params))
                    if result is None:
                        continue
                    for s in result.scores:
                        fh.write(json.dumps({
                            "model": ident.model_id, "config_hash": ident.config_hash, "audio_filepath": clip.id,
                            "condition": ORIGINAL.id, "text": s.text, "tokens": list(s.tokens),
                            "token_ids": list(s.token_ids), "logprobs": list(s.logprobs), "total": s.total,
                        }, ensure_ascii=False) + "\n")
                        n_rows += 1
    print(f"wrote {args.out} ({n_rows} scored candidate(s))")
    return 0
