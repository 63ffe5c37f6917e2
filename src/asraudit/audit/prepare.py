"""Everything an audit checks before the first model call.

A spec can be wrong in ways its shape does not show: a model name no
backend knows, a prediction file that lacks half the clips, a manifest row
whose audio is missing, a lift section over models that cannot score.  Each
of those would otherwise surface after the transcription that precedes it;
here they are found by opening the corpus and loading (not running) every
model, in seconds, and reported together with the entry they come from.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from asraudit.audit.mechanism import SteerPlan, check_mechanism
from asraudit.audit.outputs import TABLE_NAMES
from asraudit.audit.spec import AuditSpec, ModelSpec, SpecError
from asraudit.audit.translation_stage import check_translation
from asraudit.data.corpus import Corpus, load_corpus, load_manifest
from asraudit.data.group_values import MixedSpellings, group_label
from asraudit.data.paths import ensure_outputs_apart, ensure_writable_dir, ensure_writable_file, safe_stems
from asraudit.data.prediction_writer import preds_file_stem
from asraudit.data.predictions import SUFFIXES, ClipIds, space_twin, space_twin_words
from asraudit.display_paths import display_path
from asraudit.errors import InputError
from asraudit.models.aligners import make_aligner
from asraudit.models.candidate_check import window_of
from asraudit.models.registry import load_model
from asraudit.models.weights_digest import refuse_outputs_in_model_folders
from asraudit.probes.battery import check_benchmark_donors, check_donor_seconds, \
    check_probe_inputs as check_battery_inputs, check_sources as check_battery_sources, load_spec as load_battery
from asraudit.probes.families import LANGUAGES, load_catalogue
from asraudit.probes.occurrences import scan
from asraudit.probes.translation_probe import clusters_of, items_from_truth, read_truth, truth_outside
from asraudit.run.grid import Identity, check_stored_clip_audio, identify
from asraudit.run.store import STORE_NAME
from asraudit.terminal_text import note
from asraudit.text.normalize import get_normalizer


@dataclass
class Prepared:
    corpus: Corpus
    models: dict[str, object]        # name -> loaded model (local) or factory (Ray)
    identities: dict[str, Identity]
    panel: list[str]
    has_audio: bool
    # name -> the longest clip the model scores (None: any length), asked of the loaded model
    score_seconds: dict[str, float | None] = field(default_factory=dict)


def open_corpus(spec: AuditSpec):
    """The spec's corpus, narrowed by ``select`` and ``limit``."""
    return narrowed_corpus(spec, whole_corpus(spec))


def whole_corpus(spec: AuditSpec):
    """The spec's corpus as its source holds it, before ``select`` and ``limit``."""
    c = spec.corpus
    if c.manifest is not None:
        corpus = load_manifest(c.manifest, text_column=c.text_column)
    elif c.predictions is not None:
        corpus = load_manifest(c.predictions, check_files=False)
    else:
        corpus = load_corpus(c.folder if c.folder is not None else c.dataset, split=c.split, config=c.config,
                             audio_column=c.audio_column, text_column=c.text_column, id_column=c.id_column)
    return corpus


def narrowed_corpus(spec: AuditSpec, corpus):
    """``corpus`` narrowed by the spec's ``select`` and ``limit``."""
    c = spec.corpus
    clips = list(corpus.clips)
    if c.select_field:
        values: list[str] = []
        for clip in clips:
            value = clip.field(c.select_field)
            if value is None:
                raise InputError(f"clip {clip.id!r} has no field {c.select_field!r} ([corpus] select)",
                                 clip.source or corpus.source, clip.row)
            if value not in values:
                values.append(str(value))
        keep = set(c.select_values) if c.select_values else set(values[: c.select_first])
        unknown = sorted(keep - set(values))
        if unknown:
            raise SpecError(f"[corpus] select: no clip has {c.select_field} = {unknown[0]!r}", spec.source)
        clips = [clip for clip in clips if str(clip.field(c.select_field)) in keep]
    if c.limit:
        clips = clips[: c.limit]
    if not clips:
        raise SpecError("the corpus selection has no clips", spec.source)
    for line in corpus.notes:  # how a dataset was read (its text column chosen among several)
        note(f"note: {corpus.source}: {line}")
    return Corpus(corpus.name, tuple(clips), corpus.source, corpus.notes)


def _factory(m: ModelSpec, spec: AuditSpec):
    options = dict(m.options)
    if not m.replay and m.spec != "pocketsphinx" and not m.spec.startswith(("http://", "https://")):
        options.setdefault("device", spec.executor.device)
        if spec.executor.compute_type:
            options.setdefault("compute_type", spec.executor.compute_type)
    return functools.partial(load_model, m.spec, **options)


def load_models(spec: AuditSpec) -> tuple[dict[str, object], dict[str, object], list[str], dict[str, object]]:
    """Load every model once (the local executor reuses them in every stage) and name it.

    Returns, by name, what the executor gets (the loaded model, or a factory for Ray actors) and the
    identities; the name of each spec entry in order; and the loaded models (for the checks)."""
    models: dict[str, object] = {}
    loaded: dict[str, object] = {}
    identities: dict[str, object] = {}
    names: list[str] = []
    seen_ids: dict[tuple[str, str], str] = {}
    for m in spec.models:
        try:
            model = _factory(m, spec)()
        except InputError as exc:
            raise SpecError(f"{m.entry} ({m.spec}): {exc}", spec.source) from None
        except TypeError as exc:  # an option the backend does not take
            raise SpecError(f"{m.entry} ({m.spec}): bad options {dict(m.options)}: {exc}", spec.source) from None
        ident = identify(model)
        name = m.name or _default_name(ident.model_id)
        if name in models:
            raise SpecError(f"{m.entry}: a second model named {name!r} (give it name = \"...\")", spec.source)
        twin = _unicode_twin(name, models)
        if twin is not None:
            first = spec.models[names.index(twin)].entry
            raise SpecError(f"{m.entry}: the name {name!r} is the name of {first}, {twin!r}, written in another Unicode "
                            f"form ({_forms(name, twin)}: composed and decomposed accents), so every table would show "
                            "two models of one name: give the models names that differ visibly", spec.source)
        key = (ident.model_id, ident.config_hash)
        if key in seen_ids:
            raise SpecError(f"{m.entry}: the same model and configuration as {seen_ids[key]!r}", spec.source)
        seen_ids[key] = name
        models[name] = model if spec.executor.kind == "local" else _factory(m, spec)
        loaded[name] = model
        identities[name] = ident
        names.append(name)
        if m.replay:
            _check_replay(model, m, spec)
    return models, identities, names, loaded


def _default_name(model_id: str) -> str:
    return preds_file_stem(model_id)


def _unicode_twin(name: str, names) -> str | None:
    """The one of ``names`` that is ``name`` in another Unicode form (NFC ``caf\\u00e9``, NFD ``cafe\\u0301``), or
    None.  Names are exact strings (as texts are, case 103), but two such names print alike: an audit of both
    showed two rows ``café`` in every table, and a probe's list naming one in the other form was "unknown" beside
    the name it listed (case 325)."""
    if name.isascii():
        return None
    folded = unicodedata.normalize("NFC", name)
    return next((n for n in names if n != name and unicodedata.normalize("NFC", n) == folded), None)


def _forms(a: str, b: str) -> str:
    return f"{ascii(a)} and {ascii(b)}"


def _check_names(where: str, names: tuple[str, ...], identities: dict, spec: AuditSpec, scoring: bool) -> None:
    unknown = [n for n in names if n not in identities]
    if unknown:
        n, t = next(((n, t) for n in unknown if (t := _unicode_twin(n, identities)) is not None), (None, None))
        why = (f": {n!r} is the model {t!r} written in another Unicode form ({_forms(n, t)}): write it as its "
               "[[model]] name is written" if t is not None else "")
        raise SpecError(f"{where}: unknown model(s) {', '.join(unknown)}; the audit's models are "
                        f"{', '.join(identities)}{why}", spec.source)
    replayed = [n for n in names if identities[n].by_clip_id]
    if replayed:
        raise SpecError(f"{where}: {', '.join(replayed)} only replay(s) a prediction file and cannot hear the "
                        "changed audio this probe needs", spec.source)
    if scoring:
        chosen = names or tuple(identities)
        scorers = [n for n in chosen if identities[n].can_score]
        cannot = [n for n in names if not identities[n].can_score]
        if cannot:
            raise SpecError(f"{where} needs teacher-forced scores, which {', '.join(cannot)} cannot give "
                            "(prediction files, pocketsphinx and HTTP endpoints only transcribe)", spec.source)
        if not scorers:
            raise SpecError(f"{where} needs at least one model that can score (e.g. a Whisper model)", spec.source)


def prepare(spec: AuditSpec) -> Prepared:
    """Open the corpus, load the models, and check every probe can run; raises SpecError/InputError."""
    ensure_writable_dir(spec.out, "the audit's out")
    _check_out_outside_folder_corpus(spec)
    models = [(m.entry or f"model {m.spec}", m.spec) for m in spec.models]
    models += [(f"{e.entry} {key}", getattr(e, key)) for e in spec.mechanism or () for key in ("model", "contrast")
               if isinstance(getattr(e, key, None), str)]
    refuse_outputs_in_model_folders(models, folders=[("the audit's out", spec.out)])
    whole = whole_corpus(spec)
    corpus = narrowed_corpus(spec, whole)
    _check_fields(spec, corpus, {clip.id for clip in whole.clips})
    has_audio = all(not isinstance(clip.audio, Path) or clip.audio.is_file() for clip in corpus.clips)
    battery = None
    if spec.battery:  # the battery file and what its probes read, before any model loads
        battery = load_battery(spec.battery.params.spec)
        no_targets = ("[battery] mask = false" if not spec.battery.params.mask else
                      "the audit has no [masked] section to plan them" if spec.masked is None else None)
        try:  # edits are mined by the audit, so only masked targets can be known to be missing
            check_battery_inputs(battery, no_edits=None, no_targets=no_targets)
        except InputError as exc:
            raise SpecError(f"[battery]: {exc}", spec.source) from None
        check_benchmark_donors(battery, corpus.clips)  # the clips' references: edits are mined later
        check_donor_seconds(battery, corpus.clips)
    if spec.mechanism:
        # The spec checked their shape; here the corpus supplies every experiment's pairs and clips (and torch
        # is installed), and the models' files their layer counts: before any model loads, which for a large
        # model took longer than the check.
        for plan in check_mechanism(spec.mechanism, corpus.clips, spec.source):
            # Positives a steer entry learns nothing from (no negative of their pair_by value): the stage writes
            # this into the audit's notes when it runs, last; said now too, so `--check` shows it (case 248).
            unpaired = plan.unpaired_note() if isinstance(plan, SteerPlan) else None
            if unpaired is not None:
                note(f"note: {display_path(Path(spec.source), Path.cwd()) if spec.source else 'the spec'}: "
                     f"{unpaired}")
    _check_out_places(spec)
    models, identities, names, loaded = load_models(spec)
    if has_audio and any(not i.by_clip_id for i in identities.values()):
        check_stored_clip_audio(spec.out / STORE_NAME, corpus.clips)  # the store of an earlier audit of other audio
    named = dict(zip(names, spec.models))
    _check_exports_apart(spec, names)
    panel = spec.panel_names(names)
    if len(panel) < spec.refdis.min_panel:
        raise SpecError(f"the panel has {len(panel)} model(s) (panel = true), [refdis] min_panel is "
                        f"{spec.refdis.min_panel}", spec.source)
    for name, m in named.items():
        if m.replay:
            _check_coverage(loaded[name], corpus, m, spec)
    if spec.masked:
        _check_names("[masked] models", spec.masked.models, identities, spec, scoring=False)
    if spec.lift:
        _check_names("[lift] models", spec.lift.models, identities, spec, scoring=True)
    if spec.battery:
        _check_names("[battery] models", spec.battery.models, identities, spec, scoring=False)
        check_battery_sources(battery)  # donor corpora read, TTS engines and voices tried: before anything runs
    if spec.translation:
        _check_names("[translation] models", spec.translation.models, identities, spec, scoring=False)
        check_translation(spec, {n: loaded[n] for n in names if not identities[n].by_clip_id})
    audio_users = [s for s, on in (("[masked]", spec.masked), ("[lift]", spec.lift), ("[battery]", spec.battery),
                                   ("[translation]", spec.translation), ("[[mechanism]]", spec.mechanism)) if on]
    audio_models = [m.entry for m in spec.models if not m.replay]
    if not has_audio and (audio_users or audio_models):
        raise SpecError(f"the corpus has no audio, which {', '.join(audio_users + audio_models)} need",
                        spec.source)
    if spec.masked and spec.masked.params.align and not spec.masked.params.recipe:
        try:
            make_aligner(spec.masked.params.align, device=spec.executor.device)
        except InputError as exc:
            raise SpecError(f"[masked] align: {exc}", spec.source) from None
    if has_audio and spec.report.align not in ("none", "pocketsphinx"):
        try:  # a Whisper model spec: a name nobody knows is refused now, not after the audit
            make_aligner(spec.report.align, device=spec.executor.device)
        except InputError as exc:
            raise SpecError(f"[report] align: {exc}", spec.source) from None
    return Prepared(corpus, models, identities, panel, has_audio,
                    {n: window_of(m.spec, loaded[n]) for n, m in named.items()})


def _check_fields(spec: AuditSpec, corpus, source_ids: set[str]) -> None:
    """A ``group_field`` or ``said_field`` no clip has (a misspelt column) would report every clip in one group
    ``None``, or read nothing as said; a translation ``cluster_field`` a clip lacks stopped that stage: each
    refused before any model runs."""
    for key in ("group_field", "said_field"):
        name = getattr(spec.corpus, key)
        if name is not None and all(clip.field(name) is None for clip in corpus):  # "" too: it was read as no field
            known = sorted({k for clip in corpus.clips[:100] for k in clip.metadata}
                           | ({"speaker"} if any(clip.speaker is not None for clip in corpus.clips[:100]) else set()))
            raise SpecError(f"[corpus] {key}: no clip has the field {name!r} (fields: {', '.join(known) or 'none'})",
                            spec.source)
    if spec.corpus.group_field:  # a value that names no group (a list) stopped the mining stage, after transcription
        field = spec.corpus.group_field
        mixed = MixedSpellings(field)  # a speaker 1 and a speaker "1": one group or two (case 316)
        for clip in corpus:
            value = clip.field(field)
            mixed.add(group_label(value, field, clip.source, clip.row), value, clip.source, clip.row, clip.id)
    # The translation probe counts its intervals over this field's values and stops at a clip without it, which
    # was found only when the audit reached that stage, after every earlier stage had run.
    cluster = spec.translation.params.cluster_field if spec.translation is not None else None
    if spec.conventions is not None and spec.conventions.language not in LANGUAGES:
        # A family file's patterns over the references, which the conventions stage scans after every model has
        # run: a pattern that backtracks without end, or arms that match one span, stops the audit now instead.
        catalogue = load_catalogue(spec.conventions.language)
        for clip in corpus:
            if clip.reference:
                scan(catalogue, clip.reference)
    if spec.translation is not None:
        _check_translation_language(spec)
    truth = spec.translation.params.truth if spec.translation is not None else None
    if truth is not None:  # its spans against the references: the translation stage, the last but one, found them
        spans = read_truth(truth)
        items_from_truth(spans, {clip.id: clip.reference or "" for clip in corpus},
                         get_normalizer(spec.normalizer), str(truth))
        # Spans on clips the corpus's source does not hold were left out silently (case 337); translate --truth
        # warns of them.  In an audit they are a note: its specs commonly audit one split against the whole
        # benchmark's truth file (the demo's does).  Clips a [corpus] select or limit leaves out are not named.
        outside = truth_outside(spans, source_ids, truth)
        if outside:
            note(f"note: {outside}")
    if cluster:
        lacking = next((clip for clip in corpus if clip.field(cluster) is None), None)
        if lacking is not None:
            raise InputError(f"clip {lacking.id!r} has no field {cluster!r} ([translation] cluster_field, the unit "
                             "of its intervals): every clip needs it", lacking.source, lacking.row)
        clusters_of(corpus.clips, cluster)  # its values as the stage reads them (a NaN, a list), now


def _check_translation_language(spec: AuditSpec) -> None:
    """The translation probe looks each span the record drops or invents up in its lexicon by the span's words, so
    the corpus must be spoken in the lexicon's source language and rendered into another: on a Spanish corpus the
    built-in en->es lexicon found no span (every one "no entry"), after every model had transcribed and rendered
    every clip, and a target that is the corpus's own language rendered nothing into another."""
    params, language = spec.translation.params, spec.corpus.language
    if params.target == language:
        raise SpecError(f"[translation] target {params.target!r} is the corpus's own language ([corpus] language): "
                        "the probe renders the clips in another language than they are spoken in", spec.source)
    lexicon = params.validate()  # refused as the stage's own check (check_translation) refuses it
    if lexicon.source != language:
        raise SpecError(f"[translation]: the lexicon ({lexicon.label}) reads spans spoken in {lexicon.source!r}, and "
                        f"the corpus is {language!r} ([corpus] language): a span is looked up by its words, so none "
                        f"would be found; give a lexicon whose source is {language!r}, or leave [translation] out",
                        spec.source)


def _check_out_outside_folder_corpus(spec: AuditSpec) -> None:
    """A folder corpus is every audio file under the folder, so an ``out`` inside it is read back as clips: the
    report's audio beyond its budget (``<out>/report-audio/*.ogg``) became clips of the next run's corpus, without
    a reference, transcribed and counted (2 clips, then 3)."""
    folder = spec.corpus.folder
    if folder is None or not Path(folder).is_dir():
        return
    inside, out = Path(folder).resolve(), Path(spec.out).resolve()
    if out == inside or inside in out.parents:
        raise SpecError(f"out {display_path(spec.out, spec.spec_folder)} is inside the corpus folder "
                        f"{display_path(folder, spec.spec_folder)}, whose every audio file is a clip: the report's "
                        "audio (report-audio/) would be read as clips by the next run: choose an out outside it",
                        spec.source)


def _audit_inputs(spec: AuditSpec) -> list[tuple[str, Path]]:
    """The files the audit reads that it must never write over: its corpus file and the replayed prediction files."""
    inputs = [("the corpus file", spec.corpus.manifest or spec.corpus.predictions)]
    return inputs + [(f"the prediction file of {m.entry}", Path(m.spec.removeprefix("replay:")))
                     for m in spec.models if m.replay]


def _check_out_places(spec: AuditSpec) -> None:
    """Where the audit writes in ``out``, but its exports (named after the loaded models): free of its inputs and
    of what an earlier audit (or a user) left there, checked before any model loads."""
    inputs = _audit_inputs(spec)
    # tables/ is rewritten whole (a table this run does not write is removed): never an input's place
    tables = [(f"the audit's table {t!r}", spec.out / "tables" / f"{t}.parquet") for t in TABLE_NAMES]
    try:
        ensure_outputs_apart(tables, inputs, fix="choose another out, or move the input out of <out>/tables")
    except InputError as exc:
        raise SpecError(str(exc), spec.source) from None
    # What an earlier audit (or a user) left in out where this audit writes: a folder named summary.json,
    # report.html, tables/clips.parquet or preds/<model>.jsonl, a file named tables or preds.  --check passed it,
    # and the run failed once its models had run, naming a temporary file (`o/.summary.json.4985.74b88070.tmp:
    # Is a directory`, fault case 280).
    for what, folder in (("the audit's tables folder", spec.out / "tables"),
                         ("the audit's exports folder", spec.out / "preds")):
        ensure_writable_dir(folder, what)
    for what, path in [("the audit's summary", spec.out / "summary.json"), ("the audit's report",
                                                                           spec.out / "report.html"), *tables]:
        ensure_writable_file(path, what)
    # The audit writes summary.json beside its inputs when out is their folder; a run over that folder
    # (`asraudit wer --preds DIR`, a folder is one model per file) then read it as a model and stopped on it.
    out = spec.out.resolve()
    predictions = [("the corpus's prediction file", spec.corpus.predictions)] + inputs[1:]  # not a manifest
    for what, path in predictions:
        if path is not None and path.suffix.lower() in SUFFIXES and path.resolve().parent == out:
            raise SpecError(f"out {display_path(spec.out, Path.cwd())} is the folder of {what} "
                            f"{display_path(path, Path.cwd())}: its summary.json would lie among prediction files, "
                            "and a run over that folder would read it as a model: choose another out", spec.source)


def _check_exports_apart(spec: AuditSpec, names: list[str]) -> None:
    """The transcripts the audit exports to ``<out>/preds/<stem>.jsonl`` must not land on an input: a spec that
    replays an earlier audit's exports into the same ``out`` would rewrite the files it reads.  Their names are the
    loaded models', hence after the load."""
    stems = safe_stems(names)  # as the transcribe stage names the exports
    exports = [(f"the audit's export of model {name!r}", spec.out / "preds" / f"{stems[name]}.jsonl") for name in names]
    try:
        ensure_outputs_apart(exports, _audit_inputs(spec),
                             fix="choose another out, or move the input out of <out>/preds")
    except InputError as exc:
        raise SpecError(str(exc), spec.source) from None
    for what, path in exports:
        ensure_writable_file(path, what)


def _check_replay(model, m: ModelSpec, spec: AuditSpec) -> None:
    if not getattr(model, "predictions", None) or not model.predictions.rows:
        raise SpecError(f"{m.entry}: the prediction file {m.spec.removeprefix('replay:')} has no usable rows "
                        "(no row with a hypothesis)", spec.source)


def _check_coverage(model, corpus, m: ModelSpec, spec: AuditSpec) -> None:
    """Every clip in the file, with the corpus's reference: a file from another benchmark would mean nothing."""
    normalize = get_normalizer(spec.normalizer)
    rows = model.predictions.rows
    missing = [c.id for c in corpus if c.id not in rows]
    if missing:
        twin = space_twin(ClipIds.of(c.id for c in corpus), ClipIds.of(rows))
        why = f": {space_twin_words('the corpus', twin[0], model.path, twin[1])}" if twin else f", e.g. {missing[0]!r}"
        raise SpecError(f"{m.entry}: the prediction file {model.path} has no row for {len(missing)} clip(s) of the "
                        f"corpus{why}", spec.source)
    for clip in corpus:
        row = rows[clip.id]
        if clip.reference is None or not row.reference:
            continue
        if normalize(row.reference) != normalize(clip.reference):
            raise SpecError(f"{m.entry}: {model.path}, row {row.row}: the reference of clip {clip.id!r} differs "
                            f"from the corpus's: {row.reference!r} vs {clip.reference!r}", spec.source)
