"""``asraudit wer --group-field F``: where the group values come from, and the per-group table and JSON."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from asraudit.data.group_values import MISSING_GROUP, group_rows, group_values
from asraudit.data.prediction_rows import ID_FIELDS
from asraudit.data.predictions import ClipIds, no_shared_clips, space_twin, space_twin_words
from asraudit.data.rows import number_id, pick_field, read_rows
from asraudit.display_paths import display_path
from asraudit.errors import InputError
from asraudit.metrics.group_wer import GroupWER, wer_by_group
from asraudit.metrics.model_wer import StreamedFile
from asraudit.metrics.stream_rows import text_hash
from asraudit.report.tables import fmt_interval, fmt_rate, render_table
from asraudit.terminal_text import warn


def read_groups(field: str, paths: list[Path], manifest: Path | None) -> dict[Path, dict[int, str]]:
    """Per prediction file: clip hash -> group.  From the manifest when one is given (every file shares
    it), else from each file's own column; an unknown field is an InputError before anything is scored."""
    if manifest is not None:
        shared = _by_hash(group_values(manifest, field, "manifest"))
        return {p: shared for p in paths}
    per_file = {p: group_rows(p, field) for p in paths}
    _require_one_group_per_clip(field, per_file)
    return {p: _by_hash({cid: label for cid, (label, _) in rows.items()}) for p, rows in per_file.items()}


def _require_one_group_per_clip(field: str, per_file: dict[Path, dict[str, tuple[str, int]]]) -> None:
    """Every prediction file puts a clip in the same group.  Files that disagree (speaker ids renumbered in
    another release of the data, one file's column left empty) put the clip in one group for one model and in
    another for the next, so each group's row compared the models on different clips, with no word."""
    first: dict[str, tuple[str, Path, int]] = {}
    for path, rows in per_file.items():
        for cid, (label, row) in rows.items():
            seen = first.setdefault(cid, (label, path, row))
            if seen[0] != label:
                raise InputError(f"clip {cid!r}: {_shown(field, label)} differs from {_shown(field, seen[0])} in "
                                 f"{display_path(seen[1], Path.cwd())}, row {seen[2]}: a clip is in one group for "
                                 "every model, or each group's WER compares the models on different clips; give every "
                                 f"prediction file the same {field} values, or read them from one --manifest",
                                 path, row)


def _shown(field: str, label: str) -> str:
    return f"no {field}" if label == MISSING_GROUP else f"{field} {label!r}"


def require_manifest_clips(files: dict[str, StreamedFile], groups: dict[Path, dict[int, str]], manifest: Path,
                           field: str) -> None:
    """A ``--manifest`` joined on the clip id must name some clip of every prediction file: one whose ids are
    spelled otherwise (another machine's paths) put every clip in the missing group, silently."""
    for f in files.values():
        shared = groups[f.source]
        if len(f) and not any(h in shared for h in f.clip_hash.tolist()):
            lineno, rec = next(iter(read_rows(manifest, "manifest")))
            first = str(number_id(rec[pick_field(rec, ID_FIELDS)], manifest, lineno))
            row = next(iter(f.read_rows([int(f.rows[0])]).values()))
            raise no_shared_clips((f.source, row.clip_id), (manifest, first), "--manifest",
                                  f"--group-field {field} would put every clip of {f.source.name} in the group "
                                  f"{MISSING_GROUP}", twin=space_twin(f.clip_ids(), _manifest_ids(manifest, field)))
    _warn_clips_the_manifest_lacks(files, groups, manifest, field)


def _warn_clips_the_manifest_lacks(files: dict[str, StreamedFile], groups: dict[Path, dict[int, str]],
                                   manifest: Path, field: str) -> None:
    """A manifest naming only some of the scored clips (another split's, or ids spelled otherwise on some rows)
    put the rest in the group of clips without a value, where nothing told them apart: one line, naming how many
    and one of them (case 252)."""
    lacking: dict[int, tuple[StreamedFile, int]] = {}
    for f in files.values():
        shared = groups[f.source]
        for position, h in enumerate(f.clip_hash.tolist()):
            if h not in shared:
                lacking.setdefault(h, (f, position))
    if not lacking:
        return
    f, position = next(iter(lacking.values()))
    example = next(iter(f.read_rows([int(f.rows[position])]).values())).clip_id
    n_clips = len({h for f in files.values() for h in f.clip_hash.tolist()})
    in_manifest = _manifest_ids(manifest, field)
    twin = next(filter(None, (space_twin(f.clip_ids(), in_manifest) for f in files.values())), None)
    if twin is not None:  # the reason named, not only the count (case 322)
        f = next(f for f in files.values() if f.clip_ids().has(twin[0]))
        warn(f"{display_path(manifest, Path.cwd())} has no row for {len(lacking)} of the {n_clips} clip(s) of the "
             f"prediction files: {space_twin_words(f.source, twin[0], manifest, twin[1])}, or --group-field {field} "
             f"puts such clips in the group {MISSING_GROUP}")
        return
    warn(f"{display_path(manifest, Path.cwd())} has no row for {len(lacking)} of the {n_clips} clip(s) of the prediction files (e.g. "
         f"{example!r} of {f.source.name}): --group-field {field} puts them in the group {MISSING_GROUP}, with any "
         f"clip whose {field} is missing")


def _manifest_ids(manifest: Path, field: str) -> ClipIds:
    """The manifest's clip ids, read again (only where some clip fails to match, to say why)."""
    return ClipIds.of(group_values(manifest, field, "manifest"))


def _by_hash(values: dict[str, str]) -> dict[int, str]:
    return {text_hash(cid): g for cid, g in values.items()}


def score_groups(f: StreamedFile, positions: np.ndarray, groups: dict[int, str], n_boot: int,
                 seed: int) -> list[GroupWER]:
    """The scored clips of one file (``positions``) split by group."""
    labels = [groups.get(int(h), MISSING_GROUP) for h in f.clip_hash[positions]]
    return wer_by_group(labels, f.counts[positions], n_boot=n_boot, seed=seed)


def print_group_table(field: str, per_model: dict[str, list[GroupWER]]) -> None:
    rows = [[g.group, m, fmt_rate(g.wer), fmt_interval(g.interval.low, g.interval.high), g.errors, g.ref_words,
             g.clips] for m, groups in per_model.items() for g in groups]
    render_table([field, "model", "WER", "95% CI", "errors", "ref words", "clips"], rows,
                 title=f"WER by {field} (clip bootstrap within each group)")


def groups_json(field: str, per_model: dict[str, list[GroupWER]]) -> dict:
    return {"field": field, "models": {m: [{"group": g.group, "wer": g.wer, "wer_interval": g.interval.to_json(),
                                            "errors": g.errors, "ref_words": g.ref_words, "clips": g.clips}
                                           for g in groups] for m, groups in per_model.items()}}
