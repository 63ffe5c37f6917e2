"""The audit spec: one TOML file that says what to audit, with what, and how.

An audit spec is read and checked completely before any model runs: an
unknown key, a missing file, a model name nobody knows, or a probe that
needs likelihoods from a model that cannot score is an error that names the
spec and the entry, raised in seconds rather than after an hour of
transcription.  Paths are relative to the spec file, so a spec and its data
can travel together::

    name = "my leaderboard audit"
    out = "audit-out"               # folder for the store, tables and report
    seed = 0
    normalizer = "whisper"          # whisper | basic | none | leaderboard | basic-es, basic-fr, ... (default: the
                                    # scorer's own for English, basic-<language> for another corpus language)
    scorer = "asraudit"             # how WER is counted: asraudit | leaderboard (its normalizer and merge_compounds)
    bootstrap = 1000

    [corpus]
    manifest = "test.jsonl"         # or folder = "...", dataset = "hf:NAME" / a saved dataset folder,
                                    # or predictions = "x.jsonl" (a prediction file: text probes only)
    # split = "test"; config = "en"; limit = 200
    # audio_column = "speech"; text_column = "normalized_text"; id_column = "utt"   (a dataset's columns)
    # language = "es"               # the corpus's language (default "en"): picks the convention catalogue
    #                               # and the default normalizer; en es fr de it nl pl pt
    # said_field = "spoken"         # a field with what was said (masked targets); default: the reference
    # group_field = "voice_role"    # accept-ref is also reported per value of this field
    # select = { field = "sentence", first = 10 }   # or values = ["s001", "s013"]

    [executor]
    kind = "local"                  # or "ray", "ray:auto", "ray:ray://host:10001"
    batch_size = 8
    device = "cpu"

    [[model]]
    spec = "whisper-tiny.en"        # anything `asraudit models` lists, a path, hf:ID, ct2:DIR, http://...
    panel = true                    # one of the panel that mines reference errors
    # name = "tiny"                 # what tables call it (default: the model's id)
    # options = { beam_size = 1 }

    [[model]]
    predictions = "preds/x.jsonl"   # a prediction file: replayed, no audio needed for its transcripts

    [refdis]                        # every knob of probes.refdis.MinerParams; defaults: its own
    majority = 0.8                  # (the share of the panel that must make the same edit)
    min_panel = 3

    [conventions]                   # rendering conventions (switch rate, agreement)
    [masked]                        # masked-entity recovery
    targets = "numbers"
    [lift]                          # audio lift at mined edits
    max_edits = 60
    [battery]
    spec = "paper"                  # or a battery TOML file
    [translation]                   # dropped/invented spans rendered in Spanish; truth = "truth.json": planted ones
    [[mechanism]]                   # white-box experiments (see asraudit.audit.spec_mechanism)

A section that is absent is a probe not run; every present section is run
and reported.  A probe's section is read onto that probe's Params dataclass
(``[refdis]`` MinerParams, ``[conventions]`` ConventionsParams, ``[masked]``
MaskedParams, ``[lift]`` LiftParams, ``[battery]`` BatteryParams, ``[translation]``
TranslationParams), so every
knob of a probe is settable here with the probe's own defaults, plus
``models`` (which audited models the audio probes run).  Section parsers are
plain functions over dicts, so the demo's embedded spec and a user's file go
through the same checks.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath
from typing import Any, Generic, Mapping, TypeVar

from asraudit.arguments import flag, names as name_list, path as path_argument, plain_values, whole_number
from asraudit.audit.published import PublishedSpec, parse_published
from asraudit.audit.spec_mechanism import MechanismSpec, parse_mechanism
from asraudit.audit.spec_reader import Section, SpecError, read_params, recheck_params
from asraudit.data.corpus import DATASET_COLUMNS
from asraudit.display_paths import display_model_spec, display_path
from asraudit.probes.battery import BUILTIN_SPECS
from asraudit.probes.battery_run import BatteryParams
from asraudit.probes.conventions_probe import ConventionsParams
from asraudit.probes.families import LANGUAGES, load_catalogue
from asraudit.probes.lift_probe import LiftParams
from asraudit.probes.masked_probe import MaskedParams
from asraudit.probes.refdis import MinerParams
from asraudit.probes.refdis_params import checked_params
from asraudit.probes.translation_probe import TranslationParams
from asraudit.data.rows import decode_text
from asraudit.errors import InputError
from asraudit.metrics.defaults import check_bootstrap_count
from asraudit.metrics.scorers import DEFAULT_NORMALIZER, SCORERS, get_scorer
from asraudit.run.executor import ray_address
from asraudit.text.basic_language_codes import language_code
from asraudit.text.normalize import NORMALIZERS

__all__ = ["AuditSpec", "CorpusSpec", "ExecutorSpec", "ModelSpec", "ProbeSection", "ReportSpec", "SpecError",
           "as_audit_spec", "load_spec", "parse_spec"]

TOP_KEYS = {"name", "description", "out", "seed", "normalizer", "scorer", "bootstrap", "corpus", "executor", "model",
            "refdis", "conventions", "masked", "lift", "battery", "translation", "mechanism", "report", "published"}

P = TypeVar("P")


@dataclass(frozen=True)
class CorpusSpec:
    manifest: Path | None = None
    # a prediction file as the corpus: its clips and references, audio only where its paths exist
    predictions: Path | None = None
    folder: Path | None = None
    dataset: str | None = None
    split: str | None = None
    config: str | None = None
    # a dataset's columns (None: the defaults of data.hf_dataset.load_hf_dataset)
    audio_column: str | None = None
    text_column: str | None = None
    id_column: str | None = None
    limit: int | None = field(default=None, metadata={"minimum": 1})
    said_field: str | None = None
    group_field: str | None = None
    # keep only clips whose metadata field is one of select_values, or one of its first select_first values
    # (e.g. chosen sentences, each in every voice)
    select_field: str | None = None
    select_values: tuple[str, ...] | None = None
    select_first: int | None = field(default=None, metadata={"minimum": 1})
    # the language spoken and written (ISO 639-1): picks the convention catalogue and the default normalizer
    language: str = "en"

    @property
    def location(self) -> str:
        return str(self.manifest or self.predictions or self.folder or self.dataset)


@dataclass(frozen=True)
class ModelSpec:
    spec: str
    name: str | None = None
    panel: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)
    entry: str = ""

    @property
    def replay(self) -> bool:
        return self.spec.startswith("replay:")


@dataclass(frozen=True)
class ExecutorSpec:
    kind: str = "local"
    batch_size: int = field(default=8, metadata={"minimum": 1})
    device: str = "cpu"
    compute_type: str | None = None


@dataclass(frozen=True)
class ProbeSection(Generic[P]):
    """An audio probe's section: the probe's Params and the audited models it runs (none named: all)."""

    params: P
    models: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportSpec:
    # a model is flagged when the lower end of its accept-ref interval lies above this
    flag_accept_ref: float = field(default=0.25, metadata={"range": (0.0, 1.0)})
    # edits shown in the report's browser (a seeded sample beyond this)
    max_edits_shown: int = field(default=400, metadata={"minimum": 0})
    # clip audio embedded in report.html (Opus data: URIs) up to this many MB; the rest linked as files in
    # <out>/report-audio/.  20 MB holds a few hundred clips and still opens quickly; 0 links every clip
    audio_budget_mb: float = field(default=20.0, metadata={"range": (0.0, None)})
    # false: the page plays no clip and no audio is written beside it; for a report shared where the
    # benchmark's licence does not allow its audio, or an audit that need not spend time encoding clips
    audio: bool = True
    # the aligner that places each shown edit in its clip (pocketsphinx: no download, ~50 ms a clip), a Whisper
    # model spec, or "none" (the page then plays whole clips and says the span is not placed)
    align: str = "pocketsphinx"


@dataclass(frozen=True)
class AuditSpec:
    name: str
    out: Path
    corpus: CorpusSpec
    models: tuple[ModelSpec, ...]
    executor: ExecutorSpec = ExecutorSpec()
    refdis: MinerParams = MinerParams()
    conventions: ConventionsParams | None = None
    masked: ProbeSection[MaskedParams] | None = None
    lift: ProbeSection[LiftParams] | None = None
    battery: ProbeSection[BatteryParams] | None = None
    translation: ProbeSection[TranslationParams] | None = None
    mechanism: tuple[MechanismSpec, ...] = ()
    report: ReportSpec = ReportSpec()
    published: PublishedSpec | None = None  # the paper's results to show beside a matching audit
    seed: int = 0
    normalizer: str = "whisper"
    scorer: str = "asraudit"  # metrics.scorers: how the audit's WER counts errors
    bootstrap: int = 1000
    description: str = ""
    source: str = "<spec>"

    def panel_names(self, names: list[str]) -> list[str]:
        """The panel's model names, given the name each [[model]] entry resolved to."""
        return [n for n, m in zip(names, self.models) if m.panel]

    @property
    def spec_folder(self) -> Path:
        """The folder the spec's paths are relative to: the spec file's, or the working directory for a dict."""
        source = Path(self.source)
        return source.resolve().parent if source.is_file() else Path.cwd()

    def to_json(self) -> dict:
        """The spec as resolved, for the provenance section; paths relative to the spec's folder, else to the
        working directory, where under either (an embedded spec's out is under neither's folder but the cwd)."""
        bases = (self.spec_folder, Path.cwd())

        def plain(value):
            if isinstance(value, Path):
                return display_path(value, *bases)
            if isinstance(value, str):
                return display_model_spec(value, *bases)
            if isinstance(value, tuple):
                return [plain(v) for v in value]
            if isinstance(value, Mapping):
                return {k: plain(v) for k, v in value.items()}
            if hasattr(value, "__dataclass_fields__"):
                return {k: plain(getattr(value, k)) for k in value.__dataclass_fields__}
            return value
        return plain(self)


# -------------------------------------------------------------------- parsing


def _corpus(s: Section) -> CorpusSpec:
    manifest = s.path("manifest")
    predictions = s.path("predictions")
    folder = s.path("folder", kind="folder")
    dataset = s.get("dataset", str)
    given = [x for x in (manifest, predictions, folder, dataset) if x]
    if len(given) != 1:
        raise s.fail("give exactly one of manifest, predictions, folder, dataset")
    if dataset is not None and dataset.startswith("hf:") and not dataset[3:].strip():
        raise s.fail("dataset: hf: names no dataset: write hf:NAME (a hub id) or a saved dataset folder")
    if dataset and not dataset.startswith("hf:"):
        local = Path(dataset) if Path(dataset).is_absolute() else s.base / dataset
        if not local.exists():
            raise s.fail(f"dataset: no such saved dataset folder {local} (a hub dataset is written hf:NAME)")
        dataset = str(local)
    select = s.get("select", dict)
    select_field = select_values = select_first = None
    if select is not None:
        sub = Section(select, f"{s.where}.select", s.source, s.base)
        select_field = sub.get("field", str)
        select_values = sub.strings("values") or None
        select_first = sub.integer("first", None, minimum=1)
        if not select_field or (select_values is None) == (select_first is None):
            raise sub.fail("needs field and one of values = [...] (keep clips whose field is one of them) "
                           "or first = N (keep clips whose field takes one of its first N values)")
        sub.done()
    split, config = s.get("split", str), s.get("config", str)
    columns = {key: s.get(key, str) for key in DATASET_COLUMNS}
    for key, value in (("split", split), ("config", config), *columns.items()):
        if value is None or not (manifest or predictions) or (key == "text_column" and manifest):
            continue  # a manifest's references may come from another of its fields
        kind = "manifest" if manifest else "predictions file"
        if key in columns:  # read as a manifest: the key was ignored
            raise s.fail(f"{key} = {value!r} cannot apply to a {kind}, which names its audio and clip id in "
                         "audio_filepath" + ("" if manifest else " and its references in text") +
                         " (a Hugging Face dataset's columns are chosen): remove it")
        raise s.fail(f"{key} = {value!r} cannot apply to a {kind}, which has no {key}s (a Hugging Face "
                     "dataset's): remove it")
    spec = CorpusSpec(manifest=manifest, predictions=predictions, folder=folder, dataset=dataset, split=split,
                      config=config, **columns, limit=s.integer("limit", None, minimum=1),
                      said_field=s.get("said_field", str), group_field=s.get("group_field", str),
                      select_field=select_field, select_values=select_values, select_first=select_first,
                      language=_corpus_language(s))
    s.done()
    return spec


def _corpus_language(s: Section) -> str:
    """``[corpus] language``: a code of ``LANGUAGES`` in any case (``language_code``: "FR" is "fr")."""
    given = s.get("language", str, "en")
    if language_code(given) not in LANGUAGES:
        raise s.fail(f"language must be one of {', '.join(LANGUAGES)}, got {given!r}")
    return language_code(given)


def _normalizer_for(top: Section, normalizer: str, given: bool, language: str) -> str:
    """The normalizer for the corpus's language: by default the scorer's for English and that language's basic one
    otherwise; a given one that cannot read the language (an English one, another language's) is refused."""
    if language == "en":
        return normalizer
    if not given:
        return f"basic-{language}"
    if normalizer in ("whisper", "leaderboard") or (normalizer.startswith("basic-") and normalizer != f"basic-{language}"):
        raise top.fail(f"normalizer {normalizer!r} does not fit the corpus language {language!r}; "
                       f"use basic-{language}, basic or none")
    return normalizer


def _model(s: Section) -> ModelSpec:
    spec = s.get("spec", str)
    preds = s.path("predictions")
    if bool(spec) == bool(preds):
        raise s.fail("give exactly one of spec (a model) and predictions (a prediction file)")
    if preds:
        spec = f"replay:{preds}"
    name = s.get("name", str)
    options = s.get("options", dict, {})
    panel = s.get("panel", bool, False)
    s.done()
    # numpy scalars in a dict spec's options as their Python values (as the spec's other values, case 106): kept,
    # a backend refused them, and summary.json's provenance could not be written
    return ModelSpec(spec=_beside_spec(spec.strip(), s.base), name=name, panel=panel, options=plain_values(options),
                     entry=s.where)


_PATH_PREFIXES = ("whitebox:hf:", "whitebox:", "hf:", "ct2:", "replay:", "")


def _beside_spec(spec: str, base: Path) -> str:
    """A model spec naming a folder or file by a relative path, made absolute against the spec's folder when it is
    there (``spec = "ft"``, ``"hf:models/ft"``, ``"whitebox:ft"``), as every other path of a spec is.  It was read
    against the working directory: run from elsewhere, the audit loaded whatever folder of that name the working
    directory held (another checkpoint), its summary naming the spec's ``ft``, exit 0.  Names that are no path here
    (an embedded or registered model, a hub id, a URL) are left as they are; a dict spec's base is the working
    directory, so its specs read as before."""
    for prefix in _PATH_PREFIXES:
        if spec.startswith(prefix):
            target = spec[len(prefix):]
            break
    if not target or target.startswith(("http://", "https://")) or Path(target).expanduser().is_absolute():
        return spec
    if not (base / target).exists() or target == "pocketsphinx":
        return spec
    from asraudit.models import embedded
    from asraudit.models.registry import registered_models

    if target in embedded.EMBEDDED_MODELS:
        return spec
    if target in registered_models():
        return spec
    return prefix + str(base / target)


def _params(data: Mapping[str, Any], key: str, cls: type, source: str, base: Path, given: dict | None = None):
    """The section ``[key]`` read onto ``cls`` (every field, unknown keys refused)."""
    s = Section(data.get(key, {}), f"[{key}]", source, base)
    params = read_params(s, cls, given)
    s.done()
    return params


def _probe(data: Mapping[str, Any], key: str, cls: type, source: str, base: Path, given=None) -> ProbeSection | None:
    """An audio probe's section: its Params and ``models``; None when the section is absent."""
    if key not in data:
        return None
    s = Section(data[key], f"[{key}]", source, base)
    models = s.strings("models")
    if "models" in s.data and not models:  # an empty list read as "no list": the probe ran every model
        raise s.fail("models is empty: leave the key out to run every model, or the section out to skip the probe")
    repeated = next((m for i, m in enumerate(models) if m in models[:i]), None)
    if repeated is not None:
        raise s.fail(f"models names {repeated} more than once: list each model once")
    params = read_params(s, cls, given(s) if given else None)
    s.done()
    return ProbeSection(params, models)


def _catalogue(s: Section, corpus_language: str) -> str:
    """``[conventions] language``: a built-in catalogue (the corpus's language unless the section names one), else
    a family file relative to the spec, read and checked now: it was read only by the conventions stage, after
    every model had run, and from the working directory, not the spec's folder."""
    name = s.get("language", str, corpus_language)
    if language_code(name) in LANGUAGES:
        return language_code(name)
    path = s.path("language", must_exist=False)
    if not path.is_file():
        raise s.fail(f"language {name!r} is neither a built-in catalogue ({', '.join(LANGUAGES)}) nor a family "
                     f"file: no such file {display_path(path, Path.cwd())}")
    try:
        load_catalogue(path)
    except InputError as exc:
        raise s.fail(f"language: {exc}") from None
    return str(path)


def _battery_spec(s: Section) -> dict:
    """A built-in battery by name, else a battery file relative to the spec."""
    name = s.get("spec", str, "paper")
    return {"spec": name if name in BUILTIN_SPECS else str(s.path("spec"))}


def _refuse_keys_not_text(value: Any, where: str, source: str) -> None:
    """A key that is not a string, at any depth of a spec given as a dict from Python (a TOML file has none):
    ``{1: 2}`` stopped the unknown-key check with ``TypeError: sequence item 0: expected str instance``."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise SpecError(f"{where}: a key is {key!r} ({type(key).__name__}): every key of a spec is a string, "
                                "as in the TOML file", source)
            _refuse_keys_not_text(item, f"{where}.{key}", source)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _refuse_keys_not_text(item, f"{where}[{i}]", source)


def parse_spec(data: Mapping[str, Any], source: str = "<spec>", base: Path | None = None) -> AuditSpec:
    """An audit from parsed TOML, checked for shape (names, types, files); see ``prepare`` for the rest."""
    if not isinstance(data, Mapping):
        raise SpecError(f"an audit spec is a dict shaped like the TOML file, got {type(data).__name__}", source)
    _refuse_keys_not_text(data, "spec", source)
    base = Path.cwd() if base is None else path_argument(base, "base")
    top = Section(dict(data), "spec", source, base)
    name = top.get("name", str, "asraudit audit")
    out = top.path("out", must_exist=False) or base / "audit-out"
    seed = top.integer("seed", 0)
    scorer = top.choice("scorer", SCORERS, "asraudit")
    normalizer = top.choice("normalizer", tuple(NORMALIZERS), DEFAULT_NORMALIZER[scorer])
    given_normalizer = "normalizer" in data
    bootstrap = top.integer("bootstrap", 1000, minimum=0)
    try:
        check_bootstrap_count(bootstrap, "bootstrap")
    except InputError as exc:
        raise top.fail(exc.message) from None
    description = top.get("description", str, "")
    if "corpus" not in data:
        raise top.fail("needs a [corpus] table")
    corpus = _corpus(Section(data["corpus"], "[corpus]", source, base))
    normalizer = _normalizer_for(top, normalizer, given_normalizer, corpus.language)
    try:
        get_scorer(scorer, normalizer)  # its library is there (kaldialign for leaderboard), before any model runs
    except InputError as exc:
        raise top.fail(f"scorer {scorer}: {exc.message}") from None
    raw_models = top.get("model", list, [])
    if not raw_models:
        raise top.fail("needs at least one [[model]]")
    models = tuple(_model(Section(m, f"[[model]] #{i}", source, base)) for i, m in enumerate(raw_models, start=1))

    ex = Section(data.get("executor", {}), "[executor]", source, base)
    executor = ExecutorSpec(kind=ex.get("kind", str, "local"), batch_size=ex.integer("batch_size", 8, minimum=1),
                            device=ex.get("device", str, "cpu"), compute_type=ex.get("compute_type", str))
    if not (executor.kind == "local" or executor.kind == "ray" or executor.kind.startswith("ray:")):
        raise ex.fail(f"kind must be local, ray or ray:ADDRESS, got {executor.kind!r}")
    try:
        ray_address(executor.kind)
    except InputError as exc:
        raise ex.fail(f"kind: {exc}") from None
    ex.done()

    refdis = _params(data, "refdis", MinerParams, source, base)
    conventions = None
    if "conventions" in data:
        s = Section(data["conventions"], "[conventions]", source, base)
        conventions = read_params(s, ConventionsParams, {"language": _catalogue(s, corpus.language)})
        s.done()
    masked = _probe(data, "masked", MaskedParams, source, base)
    lift = _probe(data, "lift", LiftParams, source, base)
    battery = _probe(data, "battery", BatteryParams, source, base, given=_battery_spec)
    translation = _probe(data, "translation", TranslationParams, source, base)
    entries = top.get("mechanism", list, [])
    mechanism = parse_mechanism(entries, source, base)
    report = _params(data, "report", ReportSpec, source, base)
    published = None
    if "published" in data:
        published = parse_published(Section(data["published"], "[published]", source, base))
    top.used |= {"published", "corpus", "executor", "refdis", "conventions", "masked", "lift", "battery", "translation",
                 "report"}
    top.done()
    return AuditSpec(name=name, out=out, corpus=corpus, models=models, executor=executor, refdis=refdis,
                     conventions=conventions, masked=masked, lift=lift, battery=battery, translation=translation,
                     mechanism=mechanism, report=report, published=published, seed=seed, normalizer=normalizer,
                     scorer=scorer, bootstrap=bootstrap, description=description, source=source)


def load_spec(path: str | Path, *, out: Path | None = None) -> AuditSpec:
    """Read and shape-check a spec file; ``out`` overrides the spec's output folder."""
    path = path_argument(path, "path")
    out = None if out is None else path_argument(out, "out")
    if not path.is_file():
        raise SpecError("no such audit spec file", path)
    try:
        text = decode_text(path.read_bytes(), path)  # a byte-order mark (Notepad's UTF-8) is dropped
    except InputError as exc:
        raise SpecError(exc.message, exc.source, exc.row) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"not valid TOML: {exc}", path) from None
    except RecursionError:  # arrays within arrays, thousands deep: a traceback
        raise SpecError("not valid TOML: arrays or tables nested deeper than Python reads", path) from None
    spec = parse_spec(data, str(path), path.resolve().parent)
    if out is not None:
        spec = replace(spec, out=out)
    return spec


def as_audit_spec(spec: AuditSpec | Mapping[str, Any] | str | Path, *, out: str | Path | None = None) -> AuditSpec:
    """A checked spec from what a caller has: an ``AuditSpec``, a dict shaped like the TOML, or a spec file.

    Paths in a dict are relative to the working directory (a file's are
    relative to the file), so a notebook can write ``{"corpus": {"predictions":
    "preds/a.jsonl"}, ...}`` beside its data.  ``out`` overrides the spec's
    output folder."""
    out = None if out is None else path_argument(out, "out")
    if isinstance(spec, AuditSpec):
        parsed = checked_audit_spec(spec)
    elif isinstance(spec, Mapping):
        parsed = parse_spec(spec, "<spec dict>", Path.cwd())
    elif isinstance(spec, (str, Path)):
        parsed = load_spec(spec)
    else:
        raise SpecError(f"an audit spec is a dict, a TOML file path or an AuditSpec, got {type(spec).__name__}")
    return parsed if out is None else replace(parsed, out=out)


def checked_audit_spec(spec: AuditSpec) -> AuditSpec:
    """An ``AuditSpec`` built or changed in Python (``dataclasses.replace(spec, bootstrap=-1)``) checked as a
    spec file's entries are, before any work: ``replace`` skips ``parse_spec``, and its values failed deep in
    the run (``out`` as a str: ``AttributeError``; ``bootstrap=1.5``: numpy's ``TypeError`` after every model
    ran; ``bootstrap=-1`` silently meant no intervals; a dict for ``refdis``: ``AttributeError``).  ``out``
    given as a str becomes a Path."""
    def fail(message: str) -> InputError:
        return InputError(f"AuditSpec.{message}")

    changes: dict[str, Any] = {}
    try:
        counts = {key: whole_number(getattr(spec, key), key, 0) for key in ("seed", "bootstrap")}  # np.int64 -> int
        check_bootstrap_count(counts["bootstrap"], "bootstrap")
        for key, choices in (("normalizer", NORMALIZERS), ("scorer", SCORERS)):
            if getattr(spec, key) not in choices:
                raise InputError(f"{key} must be one of {', '.join(choices)}, got {getattr(spec, key)!r}")
        try:
            checked_params(spec.refdis, "refdis")
        except InputError as exc:
            raise InputError(exc.message if exc.message.startswith("refdis ") else f"refdis: {exc.message}") from None
        if not isinstance(spec.name, str):
            raise InputError(f"name must be a string, got {spec.name!r:.60}")
        if isinstance(spec.models, (str, Mapping)) or not all(isinstance(m, ModelSpec) for m in spec.models):
            raise InputError(f"models is a tuple of ModelSpec, got {spec.models!r}"[:200])
        changes["models"] = tuple(_checked_model(m, i) for i, m in enumerate(spec.models))
        for key, cls in (("corpus", CorpusSpec), ("executor", ExecutorSpec), ("report", ReportSpec)):
            if not isinstance(getattr(spec, key), cls):
                raise InputError(f"{key} is a {cls.__name__}, got {type(getattr(spec, key)).__name__}")
        for key in ("corpus", "executor", "report", "conventions", "masked", "lift", "battery", "translation"):
            value = getattr(spec, key)
            params = value.params if isinstance(value, ProbeSection) else value
            if params is not None:
                try:
                    params = recheck_params(params)
                    if isinstance(value, ProbeSection):
                        value = replace(value, params=params, models=tuple(name_list(value.models, "models")))
                    else:
                        value = params
                except InputError as exc:
                    raise InputError(f"{key}: {exc.message}") from None
                changes[key] = value
        corpus_language = language_code(changes["corpus"].language)
        if corpus_language not in LANGUAGES:
            raise InputError(f"corpus: language must be one of {', '.join(LANGUAGES)}, got {spec.corpus.language!r}")
        changes["corpus"] = replace(changes["corpus"], language=corpus_language)
        executor = changes["executor"]
        if not (executor.kind == "local" or executor.kind == "ray" or executor.kind.startswith("ray:")):
            raise InputError(f"executor: kind must be local, ray or ray:ADDRESS, got {executor.kind!r}")
        try:
            ray_address(executor.kind)
        except InputError as exc:
            raise InputError(f"executor: kind: {exc}") from None
        if spec.conventions is not None and spec.conventions.language not in LANGUAGES:
            try:  # a family file (relative to the working directory, as a dict spec's paths are), read now
                load_catalogue(spec.conventions.language)
            except InputError as exc:
                raise InputError(f"conventions: language: {exc}") from None
        out = path_argument(spec.out, "out")
    except InputError as exc:
        raise fail(exc.message) from None
    if out == spec.out and isinstance(spec.out, Path) and all(type(getattr(spec, k)) is int for k in counts) \
            and all(getattr(spec, k) is v for k, v in changes.items()):
        return spec
    return replace(spec, out=out, **counts, **changes)


def _checked_model(model: ModelSpec, i: int) -> ModelSpec:
    """A ``ModelSpec`` built or changed in Python, checked as ``_model`` reads a ``[[model]]`` entry: ``spec=5``
    was an ``AttributeError``, ``name=3`` a ``TypeError`` after the store was opened, ``panel="no"`` a member of
    the panel (a non-empty string is true), ``options=[...]`` a ``TypeError`` from ``dict()``."""
    where = f"models[{i}]"
    spec = model.spec
    if isinstance(spec, PurePath):
        spec = str(spec)
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"{where}.spec is a model's name or a path (a str), got {model.spec!r:.60}")
    if model.name is not None and (not isinstance(model.name, str) or not model.name.strip()):
        raise InputError(f"{where}.name is a label (a non-empty str) or None, got {model.name!r:.60}")
    panel = flag(model.panel, f"{where}.panel")
    if not isinstance(model.options, Mapping):
        raise InputError(f"{where}.options is a dict of the model's options, got {type(model.options).__name__}")
    _refuse_keys_not_text(model.options, f"{where}.options", "AuditSpec")
    options = plain_values(model.options)
    if spec == model.spec and panel is model.panel and options == model.options and \
            all(type(a) is type(b) for a, b in zip(options.values(), model.options.values())):
        return model
    return replace(model, spec=spec.strip(), panel=panel, options=options)
