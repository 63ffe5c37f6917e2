"""Corrected references: edits from a human correction, and corrected benchmarks.

Two directions.

*From a correction*: the Open ASR Leaderboard re-transcribed VoxPopuli by
hand.  Given the original and the corrected references, every place where they
differ is an edit (same cells, kinds and verdicts as the mined ones), and no
panel is needed.  Verdicts follow the leaderboard's exclusions: a model is not
scored on a clip when its hypothesis is over 3x the reference length (a
hallucination loop) or it matches under half of the reference (it is not
transcribing this clip), and a third reading counts for neither side.

*To a correction*: applying mined edits (each reference span ``r`` replaced by
the audio rendering ``a``) gives a corrected reference per clip, written out
so anyone can rescore on a cleaned benchmark.  The corrected text is in the
normalizer's token space, since that is where edits live; re-normalizing it
with the same normalizer leaves it unchanged.  Each row records that
normalizer (``normalizer``), and reading the file back as ``--corrected``
under another one is refused: every place the two normalizers write a word
differently (``Mr.`` and ``mister``, ``25`` and ``$25``) would be diffed as a
correction.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from asraudit.data.paths import written_whole
from asraudit.data.prediction_rows import ID_FIELDS
from asraudit.data.rows import not_a_file, number_id, pick_field, read_rows
from asraudit.errors import InputError
from asraudit.probes.refdis import ClipInput, Edit, MinerParams, MiningResult, assign_edit_ids
from asraudit.probes.refdis_cells import HypCells, classify, interior_cells, place_of, verdict_of
from asraudit.probes.refdis_votes import canonical

CORRECTED_FIELDS = ("corrected_text", "corrected", "text", "reference", "ref", "transcript")
# Open ASR Leaderboard exclusions for scoring against corrected references.
NORMALIZER_FIELD = "normalizer"  # what --corrected-out's rows were normalized under
MAX_LENGTH_RATIO = 3.0
MIN_MATCH_SHARE = 0.5


def load_corrected_references(path: str | Path, normalizer: str | None = None,
                              normalize: Callable[[str], str] | None = None) -> dict[str, str]:
    """clip id -> corrected raw reference, from JSONL/JSON/CSV/Parquet.

    A row written by ``refdis --corrected-out`` holds text already normalized, and names the normalizer
    (``normalizer``); given the run's ``normalizer``, a row normalized under another is refused.  A row of such a
    file written before it named one still holds ``original_text`` and ``original_normalized``: given the run's
    ``normalize``, a row whose ``original_normalized`` is not its ``original_text`` so normalized is refused too."""
    path = Path(path)
    if not path.is_file():
        raise InputError(not_a_file(path, "corrected-reference file"), path)
    out: dict[str, str] = {}
    first_row: dict[str, int] = {}
    for row, rec in read_rows(path, "corrected reference file"):
        id_f, text_f = pick_field(rec, ID_FIELDS), pick_field(rec, CORRECTED_FIELDS)
        if id_f is None or text_f is None:
            raise InputError(
                f"need a clip id column ({', '.join(ID_FIELDS)}) and a text column "
                f"({', '.join(CORRECTED_FIELDS)}); found {sorted(rec)}",
                path,
                row,
            )
        cid, text = rec[id_f], rec[text_f]
        cid = number_id(cid, path, row)
        if not isinstance(cid, str) or not cid.strip():
            raise InputError("empty or non-text clip id", path, row)
        if not isinstance(text, str):
            raise InputError(f"corrected reference must be a string, got {type(text).__name__}", path, row)
        if cid in out:
            raise InputError(f"duplicate clip id {cid!r} (first seen at row {first_row[cid]})", path, row)
        _same_normalizer(rec.get(NORMALIZER_FIELD), normalizer, path, row)
        if rec.get(NORMALIZER_FIELD) is None and normalize is not None:
            _same_normalized_original(rec, normalizer, normalize, path, row)
        out[cid] = text
        first_row[cid] = row
    return out


def _same_normalizer(written, normalizer: str | None, path: Path, row: int) -> None:
    """A row of ``--corrected-out`` read under the normalizer it was written under, else an InputError."""
    if written is None or normalizer is None:  # a correction of the user's: raw text, normalized as read
        return
    if not isinstance(written, str):
        raise InputError(f"{NORMALIZER_FIELD} must be the name of a normalizer, got {written!r}", path, row)
    if written != normalizer:
        raise InputError(f"this corrected reference is text normalized under {written!r} (refdis --corrected-out "
                         f"of a run with --normalizer {written}), and this run normalizes with {normalizer!r}: "
                         "every word the two normalizers write differently would be counted as a correction; "
                         f"give --normalizer {written}", path, row)


def _same_normalized_original(rec: dict, normalizer: str | None, normalize: Callable[[str], str], path: Path,
                              row: int) -> None:
    """A ``--corrected-out`` row that names no normalizer (written before rows named one): its
    ``original_normalized`` is its ``original_text`` under the normalizer it was written with, so it must be the
    same text under the run's."""
    original, written = rec.get("original_text"), rec.get("original_normalized")
    if not isinstance(original, str) or not isinstance(written, str):
        return  # a correction of the user's
    mine = " ".join(normalize(original).split())
    if mine != " ".join(written.split()):
        raise InputError(f"original_normalized {written!r} is not original_text read under this run's normalizer "
                         f"{normalizer or 'given'!r} ({mine!r}): a file of refdis --corrected-out written under another "
                         "normalizer, whose spellings would be counted as corrections; give the --normalizer it was "
                         "written under", path, row)


def correction_keys(original: Sequence[str], corrected: Sequence[str]):
    """Edits that turn ``original`` into ``corrected``: one per changed stretch.

    Neighbouring changes separated only by an empty gap are one edit, as in
    the miner, and insertions/deletions sit at their canonical place.
    """
    cells = HypCells(original, corrected)
    keys = []
    for group in cells.region_groups():
        lo, hi = group[0][0], group[-1][1]
        keys.append(canonical(original, (lo // 2, hi // 2, cells.text(lo, hi))))
    return keys


def leaderboard_eligible(cells: HypCells, n_ref: int) -> bool:
    """Scored unless over 3x the reference length or matching under half of it."""
    return len(cells.hyp) <= MAX_LENGTH_RATIO * n_ref and cells.hits >= MIN_MATCH_SHARE * n_ref


def edits_from_corrections(
    clips: Iterable[ClipInput],
    corrected: Mapping[str, tuple[str, ...]],
    scored: Sequence[str] | None = None,
) -> MiningResult:
    """Edits and verdicts from diffing each clip's reference against its correction."""
    status = {"corrected": 0, "unchanged": 0, "no_correction": 0, "empty_reference": 0}
    edits: list[Edit] = []
    refs: dict[str, tuple[str, ...]] = {}
    seen: dict[str, None] = {}
    n = 0
    for clip in clips:
        n += 1
        refs[clip.clip_id] = clip.ref
        for m in clip.hyps:
            seen.setdefault(m, None)
        if not clip.ref:
            status["empty_reference"] += 1
            continue
        if clip.clip_id not in corrected:
            status["no_correction"] += 1
            continue
        keys = correction_keys(clip.ref, corrected[clip.clip_id])
        if not keys:
            status["unchanged"] += 1
            continue
        status["corrected"] += 1
        cells = {m: HypCells(clip.ref, h) for m, h in clip.hyps.items()}
        eligible = {m: leaderboard_eligible(c, len(clip.ref)) for m, c in cells.items()}
        for key in keys:
            start, end, audio = key
            kind, position = classify(start, end, audio, len(clip.ref))
            ref_span = clip.ref[start:end]
            edit = Edit(clip.clip_id, kind, position, start, end, " ".join(ref_span), " ".join(audio),
                        0, 0, 0, (), None, source="corrected")
            place = place_of(clip.ref, key)
            for m, c in cells.items():
                verdict, text = verdict_of(c, key, place)
                edit.texts[m] = text
                if scored is None or m in scored:
                    edit.verdicts[m] = verdict if eligible[m] else "ineligible"
            edits.append(edit)
    assign_edit_ids(edits)
    models = list(scored) if scored is not None else list(seen)
    return MiningResult([], models, MinerParams(), edits, n, status, refs)


def apply_edits(ref: Sequence[str], edits: Iterable[Edit]) -> tuple[str, ...]:
    """The reference with each edit's span replaced by its audio rendering.

    Edits must not overlap (those of one panel never do).  Applied right to
    left so earlier indices stay valid; at one index a span goes before an
    insertion, which lands in the same gap either way.
    """
    out = list(ref)
    for e in sorted(edits, key=lambda e: (e.ref_start, e.ref_end), reverse=True):
        out[e.ref_start:e.ref_end] = e.a.split()
    return tuple(out)


def corrected_references(result: MiningResult, corrected: Mapping[str, tuple[str, ...]] | None = None):
    """clip -> corrected tokens: the given corrections, else the whole panel's edits applied."""
    if corrected is not None:
        return {cid: corrected.get(cid, ref) for cid, ref in result.refs.items()}
    by_clip: dict[str, list[Edit]] = {}
    for e in result.full_panel_edits():
        by_clip.setdefault(e.clip_id, []).append(e)
    return {cid: apply_edits(ref, by_clip.get(cid, ())) for cid, ref in result.refs.items()}


def write_corrected_benchmark(
    path: str | Path,
    result: MiningResult,
    corrected: Mapping[str, tuple[str, ...]],
    raw_refs: Mapping[str, str],
    *,
    normalizer: str,
) -> int:
    """Write one JSONL row per clip (Open ASR Leaderboard fields, and the ``normalizer`` its texts are in) and
    return the rows changed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    applied: dict[str, list[str]] = {}
    for e in result.edits:
        if e.in_full_panel:
            applied.setdefault(e.clip_id, []).append(e.edit_id)
    changed = 0
    with written_whole(path) as tmp, tmp.open("w", encoding="utf-8") as fh:
        for cid, ref in result.refs.items():
            new = corrected.get(cid, ref)
            changed += new != ref
            row = {
                "audio_filepath": cid,
                "text": " ".join(new),
                "original_text": raw_refs.get(cid, ""),
                "original_normalized": " ".join(ref),
                "edits": applied.get(cid, []),
                NORMALIZER_FIELD: normalizer,
            }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return changed


def hyp_span_of(cells: HypCells, start: int, end: int) -> tuple[int, int]:
    """Hypothesis indices holding the edit's place (an empty range for an empty gap)."""
    lo, hi = interior_cells(start, end)
    return cells.hyp_span(lo, hi)
