"""The translation probe, once: is content a transcript dropped (or invented) still there in another language?

The paper's en->es check.  A benchmark-optimized model that leaves out a
spoken opener ("Well, ...") because the record leaves it out may still have
heard it: asked to render the same clip in Spanish, it may write "Bueno, ...".
Conversely, an unspoken "Madam President" the model writes because the record
has it may or may not come back as "Señora Presidenta".  For every span the
record drops (an ``insert`` edit: said, not in the reference) or invents (a
``delete`` edit: in the reference, not said), the probe reads two outputs of
each model on the clip, both through the store: its transcript, and its
rendering in the target language (``models.target_language``), and asks
whether each holds the span (the transcript by its normalized words, the
rendering by the bilingual lexicon, ``probes.translation_lexicon``).

Readout, per model, kind of span (``dropped`` / ``invented``) and whether the
transcript holds the span (``omitted`` / ``contained``): the share of
renderings that hold it, with a Wilson interval.  The telling cells are a
dropped span the transcript omitted but the rendering holds (content heard,
then withheld) and an invented span the rendering holds as well.

A span is left out, and counted by reason, when the lexicon has no entry for
it (``no entry``), when the rest of its sentence repeats it or holds a word
that renders the same way (``clash``: "I think, I think" or "thank the
rapporteur" before a planted "Thank you"), when the rendering is not in the
target language (``untranslated``: most of its words are the English
transcript's, which small multilingual models often produce), or when a
transcript or rendering is missing from the store.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from asraudit.data.group_values import MISSING_GROUP, MixedSpellings, group_label
from asraudit.errors import InputError
from asraudit.metrics.stats import DEFAULT_SEED, Interval, wilson, wilson_interval
from asraudit.probes.lift_run import EditItem
from asraudit.probes.refdis_truth import KINDS as TRUTH_KINDS  # a planted error's kinds
from asraudit.probes.sampling import sample
from asraudit.probes.translation_lexicon import BUILTIN, Lexicon, LexiconEntry, contains, fold, load_lexicon
from asraudit.run.grid import Identity
from asraudit.run.prediction_files import stored_transcripts
from asraudit.run.spec import Transcribe
from asraudit.text.basic_language_codes import language_code

KINDS = ("dropped", "invented")              # the record leaves out spoken words / has unspoken ones
TRANSCRIPT_STATES = ("omitted", "contained")  # whether the model's own transcript holds the span
EDIT_KIND = {"insert": "dropped", "delete": "invented"}
STATUSES = ("checked", "no entry", "clash", "untranslated", "missing")


@dataclass(frozen=True)
class TranslationParams:
    """Knobs of the translation probe (the audit spec's ``[translation]``, ``asraudit translate``)."""

    # Spanish, as in the paper's en->es check; any language with a lexicon (built in: es)
    target: str = "es"
    # the built-in lexicon of the target (None) or a lexicon TOML file (see probes/data/translation_es.toml)
    lexicon: Path | None = None
    # planted spans from a truth file ({clip: {"edits": [{kind, r, a, ref_start, ref_end}]}}, parliament-mini's
    # truth.json); None: the audit's mined edits, whose spans are the panel's reading
    truth: Path | None = None
    # a rendering sharing at least this share of its words with the model's English transcript was not
    # translated (small multilingual Whispers often echo English); it is left out rather than read
    max_english_overlap: float = field(default=0.5, metadata={"range": (0.0, 1.0)})
    # a speech LLM's translation prompt, with {audio} and {language}; None: the family's own (models.target_language)
    prompt: str | None = None
    # cap on the clips rendered (a seeded sample of the clips with a span, see probes.sampling); None: all
    max_clips: int | None = field(default=None, metadata={"minimum": 1})
    # a clip field whose clips are not independent (parliament-mini's sentence, read by seven voices): the
    # intervals then count its values, not clips, as the sample size (see summarize); None: clips
    cluster_field: str | None = None

    def __post_init__(self) -> None:
        # a language code in any case ("ES" is "es"): fold() picks the target's normalizer by the lower-case code
        object.__setattr__(self, "target", language_code(self.target))

    def lexicon_source(self) -> str | Path:
        return self.lexicon if self.lexicon is not None else self.target

    def validate(self) -> Lexicon:
        """The lexicon, loaded and checked against the target; the truth file and prompt checked (InputError)."""
        if self.lexicon is None and self.target not in BUILTIN:  # else "xx: no such lexicon file" named no option
            raise InputError(f"target {self.target!r} has no built-in lexicon (built-in: {', '.join(BUILTIN)}): give "
                             "a lexicon file for it (--lexicon, [translation] lexicon)")
        lexicon = load_lexicon(self.lexicon_source())
        if lexicon.target != self.target:
            raise InputError(f"the lexicon reads {lexicon.target!r}, the probe renders {self.target!r}", lexicon.label)
        if self.truth is not None:
            read_truth(self.truth)
        if self.prompt is not None and self.prompt.count("{audio}") != 1:
            raise InputError(f"prompt must hold {{audio}} exactly once, got {self.prompt[:80]!r}")
        if self.cluster_field is not None and not self.cluster_field.strip():  # was read as no field: clips
            raise InputError(f"cluster_field names the clip field whose values the intervals count, got "
                             f"{self.cluster_field!r}")
        return lexicon


@dataclass(frozen=True)
class SpanItem:
    """One span the record drops or invents on one clip, in the normalized words the probe compares."""

    clip_id: str
    kind: str                    # dropped | invented
    span: tuple[str, ...]        # the span's words
    rest: tuple[str, ...]        # the sentence's other words (the record without an invented span)
    origin: str                  # planted (a truth file) | mined (the panel's edits)

    def to_json(self) -> dict:
        return {"clip": self.clip_id, "kind": self.kind, "span": " ".join(self.span), "origin": self.origin}


def items_from_edits(edits: Sequence[EditItem]) -> list[SpanItem]:
    """Spans from mined edits: an insert's spoken words a, a delete's reference words r."""
    out = []
    for e in edits:
        if e.kind == "insert":
            out.append(SpanItem(e.clip_id, "dropped", tuple(e.a), tuple(e.ref), "mined"))
        elif e.kind == "delete":
            out.append(SpanItem(e.clip_id, "invented", tuple(e.r), tuple(e.ref[:e.start] + e.ref[e.end:]), "mined"))
    return out


def items_from_truth(truth: Mapping[str, Mapping], references: Mapping[str, str],
                     normalize: Callable[[str], str], source: str = "truth") -> list[SpanItem]:
    """Planted spans of the corpus's clips from a truth mapping (clips outside ``references`` are skipped)."""
    out = []
    for clip_id, reference in references.items():
        entry = truth.get(clip_id)
        if entry is None:
            continue
        for e in entry.get("edits", []) if isinstance(entry, Mapping) else []:
            kind = EDIT_KIND.get(e.get("kind"))
            if kind is None:
                continue
            if kind == "dropped":
                span, rest = normalize(str(e.get("a", ""))).split(), normalize(reference).split()
            else:
                start, end = e.get("ref_start"), e.get("ref_end")
                if not (isinstance(start, int) and isinstance(end, int)) or not 0 <= start <= end <= len(reference):
                    given = ("got none" if start is None or end is None else f"got {start!r} and {end!r}")
                    raise InputError(f"clip {clip_id!r}: a delete edit needs ref_start and ref_end inside the "
                                     f"reference ({len(reference)} characters), {given}", source)
                said = e.get("r")
                if isinstance(said, str) and reference[start:end] != said:
                    # token indices (an edits file's ref_start), or offsets of another version of the reference
                    raise InputError(f"clip {clip_id!r}: a delete edit's characters {start}:{end} of the reference "
                                     f"are {reference[start:end]!r}, and its r is {said!r}: ref_start and ref_end "
                                     "count characters of the reference, not words", source)
                span = normalize(reference[start:end]).split()
                rest = normalize(reference[:start] + " " + reference[end:]).split()
            out.append(SpanItem(clip_id, kind, tuple(span), tuple(rest), "planted"))
    return out


@dataclass(frozen=True)
class SpanOutcome:
    """One model on one span: whether its transcript and its rendering hold it (None: not read, see status)."""

    model: str
    item: SpanItem
    status: str
    in_transcript: bool | None
    in_rendering: bool | None
    transcript: str
    rendering: str

    def to_json(self) -> dict:
        return {"model": self.model, **self.item.to_json(), "status": self.status,
                "in_transcript": self.in_transcript, "in_rendering": self.in_rendering,
                "transcript": self.transcript, "rendering": self.rendering}


@dataclass(frozen=True)
class TranslationCell:
    """Renderings holding the span, for one model, kind of span and transcript state."""

    model: str
    kind: str
    transcript: str
    k: int
    n: int
    interval: Interval


@dataclass(frozen=True)
class TranslationResult:
    target: str
    lexicon: str
    items: list[SpanItem]                     # the spans read (after the cap)
    outcomes: list[SpanOutcome]
    cells: list[TranslationCell]
    excluded: dict[str, dict[str, int]]       # model -> status -> spans (the checked ones included)
    jobs: list                                # the executor's summaries (transcribe, render)


def english_overlap(rendering: str, transcript: str, target: str) -> float:
    """Share of the rendering's words that are words of the English transcript (1.0 for an empty rendering)."""
    words = fold(rendering, target).split()
    if not words:
        return 1.0
    english = set(fold(transcript, target).split())
    return sum(w in english for w in words) / len(words)


def precheck(item: SpanItem, entries: Mapping[tuple[str, ...], LexiconEntry], normalize: Callable[[str], str]
             ) -> str | None:
    """Why the span cannot be read whatever the model writes ("no entry", "clash"), or None."""
    entry = entries.get(item.span)
    if entry is None:
        return "no entry"
    clash = [tuple(normalize(c).split()) for c in entry.clash]
    if contains(item.rest, item.span) or any(contains(item.rest, c) for c in clash if c):
        return "clash"
    return None


def judge(model: str, item: SpanItem, transcript: str | None, rendering: str | None, lexicon: Lexicon,
          entries: Mapping[tuple[str, ...], LexiconEntry], normalize: Callable[[str], str], params: TranslationParams
          ) -> SpanOutcome:
    """One span read on one model's transcript and rendering."""
    def outcome(status, in_t=None, in_r=None):
        return SpanOutcome(model, item, status, in_t, in_r, transcript or "", rendering or "")

    unreadable = precheck(item, entries, normalize)
    if unreadable is not None:
        return outcome(unreadable)
    entry = entries[item.span]
    if transcript is None or rendering is None:
        return outcome("missing")
    if english_overlap(rendering, transcript, lexicon.target) >= params.max_english_overlap:
        return outcome("untranslated")
    return outcome("checked", contains(normalize(transcript).split(), item.span), lexicon.found(entry, rendering))


def summarize(outcomes: Sequence[SpanOutcome], clusters: Mapping[str, str] | None = None) -> list[TranslationCell]:
    """Per model, kind and transcript state: renderings holding the span / spans checked, with a Wilson interval.

    With ``clusters`` (clip -> cluster) the interval's sample size is the number of clusters in the cell, not
    of clips: the voices of one sentence count once, as if they always agreed (the worst case of their
    correlation).  A percentile bootstrap over clusters would be the other choice, but it collapses to a
    point when every cluster is at 0% or 100%, which is where this readout often sits."""
    counts: dict[tuple[str, str, str], dict[str, list[int]]] = {}
    for o in outcomes:
        if o.status != "checked":
            continue
        key = (o.model, o.item.kind, "contained" if o.in_transcript else "omitted")
        unit = clusters[o.item.clip_id] if clusters is not None else o.item.clip_id
        kn = counts.setdefault(key, {}).setdefault(unit, [0, 0])
        kn[0] += bool(o.in_rendering)
        kn[1] += 1
    models = list(dict.fromkeys(o.model for o in outcomes))
    cells = []
    for model in models:
        for kind in KINDS:
            for state in TRANSCRIPT_STATES:
                units = counts.get((model, kind, state), {})
                k, n = sum(v[0] for v in units.values()), sum(v[1] for v in units.values())
                interval = wilson(k, n)
                if clusters is not None and n:
                    low, high = wilson_interval(k / n * len(units), len(units))
                    interval = Interval(k / n, low, high, method="wilson")
                cells.append(TranslationCell(model, kind, state, k, n, interval))
    return cells


def clusters_of(clips: Sequence, field_name: str) -> dict[str, str]:
    """clip -> the value of its field ``field_name`` (InputError naming the clip that lacks it).

    Read as a group's value is (``Clip.field``, ``group_label``): a ``speaker`` column, which the corpus reads into
    the clip's speaker rather than its metadata, was "no field 'speaker'" once the models had loaded (in an audit,
    once every stage before this one had run, its up-front check having found the field); a speaker ``3.0`` beside
    ``3`` counted as two clusters, a NaN as a cluster "nan"."""
    out = {}
    mixed = MixedSpellings(field_name)  # a cluster 1 and a cluster "1": one or two (case 316)
    for clip in clips:
        value = clip.field(field_name)
        if isinstance(value, (list, dict)):
            raise InputError(f"clip {clip.id!r}: field {field_name!r} (the translation probe's cluster_field) holds "
                             f"a {type(value).__name__}, not one value", clip.source, clip.row)
        label = group_label(value, field_name, clip.source, clip.row)
        if label == MISSING_GROUP:
            raise InputError(f"clip {clip.id!r} has no field {field_name!r} (the translation probe's cluster_field)",
                             clip.source, clip.row)
        mixed.add(label, value, clip.source, clip.row, clip.id)
        out[clip.id] = label
    return out


def _read(store, ident: Identity, clip_ids) -> dict[str, str]:
    return {cid: r.text or "" for cid, r in stored_transcripts(store, ident.model_id, ident.config_hash, clip_ids).items()}


def measure_translation(store, executor, transcribers: Sequence, renderers: Sequence, clips: Sequence,
                        items: Sequence[SpanItem], normalize: Callable[[str], str],
                        params: TranslationParams = TranslationParams(), *, seed: int = DEFAULT_SEED,
                        description: str = "translate") -> TranslationResult:
    """Transcribe and render every clip with a span (``renderers[i]`` renders for ``transcribers[i]``), read both
    back from the store and summarize per model (named by the transcriber's model id)."""
    lexicon = params.validate()
    entries = lexicon.keyed(normalize)
    # Only clips with a readable span are run: the others' outcomes do not depend on what a model writes.
    readable = {i.clip_id for i in items if precheck(i, entries, normalize) is None}
    wanted = set(sample(sorted(readable), lambda c: c, params.max_clips, seed))
    chosen_items = [i for i in items if i.clip_id in wanted or i.clip_id not in readable]
    chosen = [c for c in clips if c.id in wanted]
    clusters = clusters_of(chosen, params.cluster_field) if params.cluster_field else None
    if not chosen:
        return TranslationResult(params.target, lexicon.label, chosen_items, [], [], {}, [])
    said = executor.run(store, list(transcribers), chosen, Transcribe(), description=f"{description}: transcribe")
    rendered = executor.run(store, list(renderers), chosen, Transcribe(),
                            description=f"{description}: render in {params.target}")
    ids = [c.id for c in chosen]
    outcomes = []
    for own, other in zip(said.identities, rendered.identities):
        transcripts, renderings = _read(store, own, ids), _read(store, other, ids)
        outcomes += [judge(own.model_id, item, transcripts.get(item.clip_id), renderings.get(item.clip_id), lexicon,
                           entries, normalize, params) for item in chosen_items]
    excluded = {}
    for o in outcomes:
        excluded.setdefault(o.model, Counter())[o.status] += 1
    return TranslationResult(params.target, lexicon.label, chosen_items, outcomes,
                             summarize(outcomes, clusters),
                             {m: {s: c[s] for s in STATUSES if c[s]} for m, c in excluded.items()}, [said, rendered])


def truth_outside(truth: Mapping[str, Mapping], ids, path: Path | str) -> str | None:
    """The warning for a truth file's spans on clips outside the corpus (a truth file of the whole benchmark, a
    run on a subset), which ``items_from_truth`` leaves out; ``None`` when there are none.  ``translate`` and an
    audit's ``[translation] truth`` both print it (cases 159, 337): the audit left them out without a word."""
    from asraudit.data.predictions import outside_twin

    ids = set(ids)
    outside = [clip for clip, entry in truth.items() if clip not in ids and entry.get("edits")]
    if not outside:  # a clip with no edits in it is not counted
        return None
    return (f"the spans of {len(outside)} clip(s) outside the corpus left out, e.g. {outside[0]}"
            f"{outside_twin(path, outside, ids)}")


def read_truth(path: Path) -> dict:
    """A truth file (JSON: clip id -> {"edits": [...]}) as a mapping, every edit's fields checked; InputError
    naming the file, the clip and the edit otherwise.

    Its edits were read only when the translation probe ran (in an audit, after every other stage): an ``edits``
    that was not a list, a ``ref_start`` of null or text were tracebacks, a misspelt kind (``"deletion"``) was
    passed over and ``"a": null`` read as the word "none", without a word; a clip given twice kept its last
    entry."""
    import json

    from asraudit.data.rows import decode_text

    path = Path(path)
    if not path.is_file():
        raise InputError("no such truth file", path)
    seen_twice: list[str] = []

    def pairs(items: list) -> dict:
        keys = [k for k, _ in items]
        seen_twice.extend(k for i, k in enumerate(keys) if k in keys[:i])
        return dict(items)

    try:
        data = json.loads(decode_text(path.read_bytes(), path), object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        raise InputError(f"the truth file is not JSON: {exc}", path) from None
    except ValueError:  # an integer longer than Python converts
        raise InputError("the truth file is not JSON Python reads: a number of more than 4300 digits", path) from None
    except RecursionError:
        raise InputError("the truth file is not JSON Python reads: arrays or objects nested deeper than it reads",
                         path) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise InputError('a truth file maps each clip id to {"edits": [...]}', path)
    if seen_twice:
        raise InputError(f"key {seen_twice[0]!r} is given twice in one object, and a JSON reader keeps only the last "
                         "value, without a word: merge the two, or remove one", path)
    for clip, entry in data.items():
        edits = entry.get("edits", [])
        if not isinstance(edits, list):
            raise InputError(f"clip {clip!r}: edits must be a list of edits, got {edits!r}"[:200], path)
        for n, edit in enumerate(edits, start=1):
            _check_truth_edit(edit, f"clip {clip!r}, edit #{n}", path)
    return data


def _check_truth_edit(edit, where: str, path: Path) -> None:
    if not isinstance(edit, dict):
        raise InputError(f"{where}: an edit is an object with kind, r, a, ref_start and ref_end, got {edit!r}"[:200],
                         path)
    kind = edit.get("kind")
    if kind not in TRUTH_KINDS:
        raise InputError(f"{where}: kind must be one of {', '.join(TRUTH_KINDS)}, got {kind!r}", path)
    for key in ("r", "a"):
        if key in edit and not isinstance(edit[key], str):
            raise InputError(f"{where}: {key} must be a text (\"\" for none), got {edit[key]!r}", path)
    for key in ("ref_start", "ref_end"):
        if key in edit and (isinstance(edit[key], bool) or not isinstance(edit[key], int)):
            raise InputError(f"{where}: {key} must be a whole number of characters, got {edit[key]!r}", path)
