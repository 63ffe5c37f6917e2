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
    normalizer = "whisper"          # whisper | basic | none
    bootstrap = 1000

    [corpus]
    manifest = "test.jsonl"         # or folder = "...", dataset = "hf:NAME" / a saved dataset folder,
                                    # or predictions = "x.jsonl" (a prediction file: text probes only)
    # split = "test"; config = "en"; limit = 200
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

    [refdis]
    majority = 0.66
    min_panel = 2

    [conventions]                   # rendering conventions (switch rate, agreement)
    [masked]                        # masked-entity recovery
    targets = "numbers"
    [lift]                          # audio lift at mined edits
    max_edits = 60
    [battery]
    spec = "paper"                  # or a battery TOML file
    [[mechanism]]                   # white-box experiments (see asraudit.audit.mechanism)

A section that is absent is a probe not run; every present section is run
and reported.  Section parsers are plain functions over dicts, so the demo's
embedded spec and a user's file go through the same checks.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from asraudit.errors import InputError
from asraudit.text.normalize import NORMALIZERS

TOP_KEYS = {"name", "description", "out", "seed", "normalizer", "bootstrap", "corpus", "executor", "model",
            "refdis", "conventions", "masked", "lift", "battery", "mechanism", "report"}


class SpecError(InputError):
    """A spec that cannot be run; names the spec file and the entry."""


@dataclass(frozen=True)
class CorpusSpec:
    manifest: Path | None = None
    # a prediction file as the corpus: its clips and references, audio only where its paths exist
    predictions: Path | None = None
    folder: Path | None = None
    dataset: str | None = None
    split: str | None = None
    config: str | None = None
    limit: int | None = None
    said_field: str | None = None
    group_field: str | None = None
    # keep only clips whose metadata field is one of select_values, or one of its first select_first values
    # (e.g. chosen sentences, each in every voice)
    select_field: str | None = None
    select_values: tuple[str, ...] | None = None
    select_first: int | None = None

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
    batch_size: int = 8
    device: str = "cpu"
    compute_type: str | None = None


@dataclass(frozen=True)
class RefdisSpec:
    majority: float = 0.66
    min_panel: int = 2
    min_ref_match: float = 0.5


@dataclass(frozen=True)
class ConventionsSpec:
    language: str = "en"
    min_per_arm: int = 5


@dataclass(frozen=True)
class MaskedSpec:
    targets: str = "numbers"
    words: tuple[str, ...] = ()
    align: str = "pocketsphinx"
    recipe: Path | None = None
    fill: str = "silence"
    pad: float = 0.02
    guard: float = 0.05
    control: bool = True
    lift: bool = True
    max_targets: int | None = None
    models: tuple[str, ...] = ()


@dataclass(frozen=True)
class LiftSpec:
    max_edits: int | None = None
    models: tuple[str, ...] = ()


@dataclass(frozen=True)
class BatteryRunSpec:
    spec: str = "paper"
    models: tuple[str, ...] = ()
    max_edits: int | None = None
    max_targets: int | None = None
    mask: bool = True


@dataclass(frozen=True)
class ReportSpec:
    flag_accept_ref: float = 0.25
    max_edits_shown: int = 400


@dataclass(frozen=True)
class AuditSpec:
    name: str
    out: Path
    corpus: CorpusSpec
    models: tuple[ModelSpec, ...]
    executor: ExecutorSpec = ExecutorSpec()
    refdis: RefdisSpec = RefdisSpec()
    conventions: ConventionsSpec | None = None
    masked: MaskedSpec | None = None
    lift: LiftSpec | None = None
    battery: BatteryRunSpec | None = None
    mechanism: tuple[Mapping[str, Any], ...] = ()
    report: ReportSpec = ReportSpec()
    seed: int = 0
    normalizer: str = "whisper"
    bootstrap: int = 1000
    description: str = ""
    source: str = "<spec>"

    def panel_names(self, names: list[str]) -> list[str]:
        """The panel's model names, given the name each [[model]] entry resolved to."""
        return [n for n, m in zip(names, self.models) if m.panel]

    def to_json(self) -> dict:
        """The spec as resolved (paths absolute), for the provenance section."""
        def plain(value):
            if isinstance(value, Path):
                return str(value)
            if isinstance(value, tuple):
                return [plain(v) for v in value]
            if isinstance(value, Mapping):
                return {k: plain(v) for k, v in value.items()}
            if hasattr(value, "__dataclass_fields__"):
                return {k: plain(getattr(value, k)) for k in value.__dataclass_fields__}
            return value
        return plain(self)


# -------------------------------------------------------------------- parsing


class _Section:
    """Typed reads from one table of the spec; every error names the table and key."""

    def __init__(self, data: Any, where: str, source: str, base: Path):
        if not isinstance(data, dict):
            raise SpecError(f"{where} must be a table", source)
        self.data, self.where, self.source, self.base = data, where, source, base
        self.used: set[str] = set()

    def fail(self, message: str) -> SpecError:
        return SpecError(f"{self.where}: {message}", self.source)

    def get(self, key: str, types: type | tuple, default: Any = None) -> Any:
        self.used.add(key)
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            raise self.fail(f"{key} must be {_type_names(types)}, got {value!r}")
        if not isinstance(value, types):
            raise self.fail(f"{key} must be {_type_names(types)}, got {value!r}")
        return value

    def number(self, key: str, default: float, lo: float | None = None, hi: float | None = None) -> float:
        value = float(self.get(key, (int, float), default))
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self.fail(f"{key} must be in [{lo}, {hi}], got {value}")
        return value

    def integer(self, key: str, default: int | None, minimum: int = 0) -> int | None:
        value = self.get(key, int, default)
        if value is not None and value < minimum:
            raise self.fail(f"{key} must be at least {minimum}, got {value}")
        return value

    def choice(self, key: str, choices: tuple[str, ...], default: str) -> str:
        value = self.get(key, str, default)
        if value not in choices:
            raise self.fail(f"{key} must be one of {', '.join(choices)}, got {value!r}")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.get(key, list, [])
        if not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(f"{key} must be a list of names")
        return tuple(value)

    def path(self, key: str, must_exist: bool = True, kind: str = "file") -> Path | None:
        value = self.get(key, str)
        if value is None:
            return None
        path = Path(value).expanduser()
        path = path if path.is_absolute() else (self.base / path)
        if must_exist and not (path.is_file() if kind == "file" else path.exists()):
            raise self.fail(f"{key}: no such {kind}: {path}")
        return path

    def done(self) -> None:
        extra = sorted(set(self.data) - self.used)
        if extra:
            raise self.fail(f"unknown key(s) {', '.join(extra)}")


def _type_names(types) -> str:
    types = types if isinstance(types, tuple) else (types,)
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false", list: "a list",
             dict: "a table"}
    return " or ".join(names.get(t, t.__name__) for t in types)


def _corpus(s: _Section) -> CorpusSpec:
    manifest = s.path("manifest")
    predictions = s.path("predictions")
    folder = s.path("folder", kind="folder")
    dataset = s.get("dataset", str)
    given = [x for x in (manifest, predictions, folder, dataset) if x]
    if len(given) != 1:
        raise s.fail("give exactly one of manifest, predictions, folder, dataset")
    if dataset and not dataset.startswith("hf:"):
        local = Path(dataset) if Path(dataset).is_absolute() else s.base / dataset
        if not local.exists():
            raise s.fail(f"dataset: no such saved dataset folder {local} (a hub dataset is written hf:NAME)")
        dataset = str(local)
    select = s.get("select", dict)
    select_field = select_values = select_first = None
    if select is not None:
        sub = _Section(select, f"{s.where}.select", s.source, s.base)
        select_field = sub.get("field", str)
        select_values = sub.strings("values") or None
        select_first = sub.integer("first", None, minimum=1)
        if not select_field or (select_values is None) == (select_first is None):
            raise sub.fail("needs field and one of values = [...] (keep clips whose field is one of them) "
                           "or first = N (keep clips whose field takes one of its first N values)")
        sub.done()
    spec = CorpusSpec(manifest=manifest, predictions=predictions, folder=folder, dataset=dataset, split=s.get("split", str),
                      config=s.get("config", str), limit=s.integer("limit", None, minimum=1),
                      said_field=s.get("said_field", str), group_field=s.get("group_field", str),
                      select_field=select_field, select_values=select_values, select_first=select_first)
    s.done()
    return spec


def _model(s: _Section) -> ModelSpec:
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
    return ModelSpec(spec=spec.strip(), name=name, panel=panel, options=dict(options), entry=s.where)


def parse_spec(data: Mapping[str, Any], source: str = "<spec>", base: Path | None = None) -> AuditSpec:
    """An audit from parsed TOML, checked for shape (names, types, files); see ``validate`` for the rest."""
    base = base or Path.cwd()
    top = _Section(dict(data), "spec", source, base)
    name = top.get("name", str, "asraudit audit")
    out = top.path("out", must_exist=False) or base / "audit-out"
    seed = top.integer("seed", 0)
    normalizer = top.choice("normalizer", tuple(NORMALIZERS), "whisper")
    bootstrap = top.integer("bootstrap", 1000, minimum=0)
    description = top.get("description", str, "")
    if "corpus" not in data:
        raise top.fail("needs a [corpus] table")
    corpus = _corpus(_Section(data["corpus"], "[corpus]", source, base))
    raw_models = top.get("model", list, [])
    if not raw_models:
        raise top.fail("needs at least one [[model]]")
    models = tuple(_model(_Section(m, f"[[model]] #{i}", source, base)) for i, m in enumerate(raw_models, start=1))

    ex = _Section(data.get("executor", {}), "[executor]", source, base)
    executor = ExecutorSpec(kind=ex.get("kind", str, "local"), batch_size=ex.integer("batch_size", 8, minimum=1),
                            device=ex.get("device", str, "cpu"), compute_type=ex.get("compute_type", str))
    if not (executor.kind == "local" or executor.kind == "ray" or executor.kind.startswith("ray:")):
        raise ex.fail(f"kind must be local, ray or ray:ADDRESS, got {executor.kind!r}")
    ex.done()

    rd = _Section(data.get("refdis", {}), "[refdis]", source, base)
    refdis = RefdisSpec(majority=rd.number("majority", 0.66, 0.0, 1.0), min_panel=rd.integer("min_panel", 2, minimum=1),
                        min_ref_match=rd.number("min_ref_match", 0.5, 0.0, 1.0))
    rd.done()

    conventions = None
    if "conventions" in data:
        cs = _Section(data["conventions"], "[conventions]", source, base)
        conventions = ConventionsSpec(language=cs.get("language", str, "en"),
                                      min_per_arm=cs.integer("min_per_arm", 5, minimum=1))
        cs.done()

    masked = None
    if "masked" in data:
        ms = _Section(data["masked"], "[masked]", source, base)
        masked = MaskedSpec(targets=ms.choice("targets", ("numbers", "names", "listed"), "numbers"),
                            words=ms.strings("words"), align=ms.get("align", str, "pocketsphinx"),
                            recipe=ms.path("recipe"), fill=ms.choice("fill", ("silence", "noise"), "silence"),
                            pad=ms.number("pad", 0.02, 0.0, 1.0), guard=ms.number("guard", 0.05, 0.0, 1.0),
                            control=ms.get("control", bool, True), lift=ms.get("lift", bool, True),
                            max_targets=ms.integer("max_targets", None, minimum=1), models=ms.strings("models"))
        if masked.targets == "listed" and not masked.words:
            raise ms.fail("targets = \"listed\" needs words = [...]")
        ms.done()

    lift = None
    if "lift" in data:
        ls = _Section(data["lift"], "[lift]", source, base)
        lift = LiftSpec(max_edits=ls.integer("max_edits", None, minimum=1), models=ls.strings("models"))
        ls.done()

    battery = None
    if "battery" in data:
        bs = _Section(data["battery"], "[battery]", source, base)
        bspec = bs.get("spec", str, "paper")
        from asraudit.probes.battery import BUILTIN_SPECS

        if bspec not in BUILTIN_SPECS:
            bspec = str(bs.path("spec"))
        battery = BatteryRunSpec(spec=bspec, models=bs.strings("models"),
                                 max_edits=bs.integer("max_edits", None, minimum=1),
                                 max_targets=bs.integer("max_targets", None, minimum=1), mask=bs.get("mask", bool, True))
        bs.done()

    mechanism = tuple(top.get("mechanism", list, []))
    for i, m in enumerate(mechanism, start=1):
        if not isinstance(m, dict):
            raise top.fail(f"[[mechanism]] #{i} must be a table")

    rp = _Section(data.get("report", {}), "[report]", source, base)
    report = ReportSpec(flag_accept_ref=rp.number("flag_accept_ref", 0.25, 0.0, 1.0),
                        max_edits_shown=rp.integer("max_edits_shown", 400, minimum=0))
    rp.done()
    top.used |= {"corpus", "executor", "refdis", "conventions", "masked", "lift", "battery", "report"}
    top.done()
    return AuditSpec(name=name, out=out, corpus=corpus, models=models, executor=executor, refdis=refdis,
                     conventions=conventions, masked=masked, lift=lift, battery=battery, mechanism=mechanism,
                     report=report, seed=seed, normalizer=normalizer, bootstrap=bootstrap, description=description,
                     source=source)


def load_spec(path: str | Path, *, out: Path | None = None) -> AuditSpec:
    """Read and shape-check a spec file; ``out`` overrides the spec's output folder."""
    path = Path(path)
    if not path.is_file():
        raise SpecError("no such audit spec file", path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"not valid TOML: {exc}", path) from None
    spec = parse_spec(data, str(path), path.resolve().parent)
    if out is not None:
        from dataclasses import replace

        spec = replace(spec, out=out)
    return spec
