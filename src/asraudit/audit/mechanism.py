"""The audit's white-box experiments: ``[[mechanism]]`` tables of the spec.

Accept-ref says *that* a model writes the benchmark's reference errors; a
mechanism experiment asks *where* that behaviour lives, on a white-box
Whisper whose activations can be edited.  A steering experiment learns a
direction from paired clips, then

* **ablates** it (projects it out) where the behaviour shows: does accept-ref
  drop, more than when a random subspace of the same rank is removed?
* **induces** it (adds it with scale alpha) where the behaviour is weak, in
  the same model and in other white-box models (``apply_to``): does
  accept-ref rise, more than with a random direction of the same norm?

Every arm is a model variant with its own config hash, run through the
audit's result store, so a rerun transcribes nothing.  The learned direction
is not a transcript; it is cached as a safetensors file under
``OUT/mechanism/``, named by a hash of the model's config, the layer, rank,
frames and the exact pairs, so a rerun loads it instead of learning again
and a change to any of these learns a new one.

Spec keys (``type = "steer"``)::

    [[mechanism]]
    type = "steer"
    name = "benchmark voice"                # label in tables (default "steer #i")
    model = "whisper-tiny.en-organism"      # white-box model: whisper-tiny.en, whisper-base,
                                            # whisper-tiny.en-organism, or a model directory
    layer = -1                              # encoder layer (0-based; -1 the last)
    rank = 1                                # basis size; ablation removes the first `ablate_ranks` vectors
    frames = "audio"                        # frames pooled when learning and steered when applying:
                                            # audio | all | "START-END" (seconds)
    positive = { field = "voice_role", value = "benchmark" }   # or values = [...]; "all" = every clip
    negative = { field = "voice_role", value = "fresh" }       # a selection paired by `pair_by`, or a
                                            # condition of each positive: "silence", "noise:SNR[:SEED]",
                                            # "mask:T0-T1"
    pair_by = "sentence"                    # field the two clips of a pair share (needed with a selection)
    holdout = 0.5                           # fraction of pair groups kept out of learning; ablation and
                                            # induction are read on clips outside the learned groups
                                            # (0: learn from all, read out on all)
    max_pairs = 64                          # cap on learning pairs
    ablate = { field = "voice_role", value = "benchmark" }     # clips to ablate on (omit: no ablation)
    ablate_ranks = [1]                      # default [rank]
    induce = { field = "voice_role", value = "fresh" }         # clips to add the direction to (omit: none)
    alphas = [1.0, 2.0]                     # scales of the added direction (default [1.0])
    apply_to = ["whisper-tiny.en"]          # other white-box models the direction is also added to
                                            # (same width; the same induce clips)
    induce_model = true                     # false: induce only in the apply_to models
    max_clips = 48                          # cap on clips per readout (first ones in corpus order)
    control_seed = 0                        # seed of the random control direction / subspace
    seed = 0                                # seed of the learned/held-out split of pair groups

``site = "decoder"`` learns a *model contrast* instead of a clip contrast
(see ``asraudit.mechanism.decoder_steering``): on the ``positive`` clips,
``model`` and ``contrast`` read the same audio and tokens, and the direction
is the mean difference of decoder layer ``layer``'s output.  A behaviour a
fine-tune wrote into the decoder (the organism's adapter) can only be moved
there; an encoder direction cannot make a clean decoder do what it never
learned::

    [[mechanism]]
    type = "steer"
    site = "decoder"
    model = "whisper-tiny.en-organism"
    contrast = "whisper-tiny.en"            # the direction is model minus contrast
    layer = 1                               # decoder layer
    positions = "first"                     # first (the first word's decision) | first:N | all: one
                                            # direction for those positions; each:N: one per position
    positive = { field = "voice_role", value = "benchmark" }   # clips to learn on
    pair_by = "sentence"                    # optional here: groups for the held-out split
    ablate = ...; induce = ...; apply_to = ["whisper-tiny.en"]  # as above

(``frames`` and ``negative`` belong to the encoder site; ``contrast`` and
``positions`` to the decoder site.)

Each readout (ablate in ``model``; induce in ``model``; induce in every
``apply_to`` model) gives one row per variant in ``summary["mechanism"]``:
accept-ref on the panel's edits over those clips with its Wilson interval,
and, beyond the schema's fields, the paired change against the baseline on
the same edits (``delta`` with a clip-bootstrap interval, and the flips in
each direction) -- the figure that says whether an intervention did more
than its control.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from asraudit.audit.spec import SpecError
from asraudit.mechanism.pairs import ClipPair, Selection, clip_field, clip_pairs, group_of, split_groups

TYPES = ("steer",)
COMMON_KEYS = {"type", "name", "site", "model", "layer", "rank", "positive", "pair_by", "holdout", "max_pairs",
               "ablate", "ablate_ranks", "induce", "alphas", "apply_to", "induce_model", "max_clips", "control_seed",
               "seed"}
SITE_KEYS = {"encoder": COMMON_KEYS | {"frames", "negative"}, "decoder": COMMON_KEYS | {"contrast", "positions"}}
CACHE_FORMAT = "asraudit-mechanism-direction/1"


# ------------------------------------------------------------------ the spec


@dataclass(frozen=True)
class SteerSpec:
    entry: str
    name: str
    model: str
    site: str = "encoder"
    layer: int = -1
    rank: int = 1
    frames: str = "audio"
    positive: Selection = Selection()
    negative: Selection | None = None
    negative_source: str | None = None
    pair_by: str | None = None
    holdout: float = 0.5
    max_pairs: int | None = None
    ablate: Selection | None = None
    ablate_ranks: tuple[int, ...] = ()
    induce: Selection | None = None
    alphas: tuple[float, ...] = (1.0,)
    apply_to: tuple[str, ...] = ()
    induce_model: bool = True
    max_clips: int | None = None
    control_seed: int = 0
    seed: int = 0
    contrast: str | None = None      # decoder site: the direction is model minus contrast
    positions: str = "first"         # decoder site: first | all
    kind = "steer"

    @property
    def negative_id(self) -> str:
        if self.site == "decoder":
            return f"model:{self.contrast}"
        return self.negative.id if self.negative is not None else str(self.negative_source)

    @property
    def where(self) -> str:
        """Where the direction acts, for the tables: frames of an encoder layer, positions of a decoder layer."""
        return f"frames {self.frames}" if self.site == "encoder" else f"positions {self.positions}"


MechanismSpec = SteerSpec


def whitebox_names() -> tuple[str, ...]:
    """White-box models known by name (the embedded Whispers and the organism)."""
    from asraudit.models import embedded
    from asraudit.models.registry import ORGANISM

    return tuple(embedded.EMBEDDED_MODELS) + (ORGANISM,)


class _Entry:
    """Typed reads from one ``[[mechanism]]`` table; every error names it."""

    def __init__(self, data: Mapping[str, Any], where: str, source: str, base: Path):
        self.data, self.where, self.source, self.base = dict(data), where, source, base

    def fail(self, message: str) -> SpecError:
        return SpecError(f"{self.where}: {message}", self.source)

    def get(self, key: str, types: tuple, what: str, default: Any = None) -> Any:
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) and bool not in types:
            raise self.fail(f"{key} must be {what}, got {value!r}")
        if not isinstance(value, types):
            raise self.fail(f"{key} must be {what}, got {value!r}")
        return value

    def integer(self, key: str, default: int | None, minimum: int | None = None) -> int | None:
        value = self.get(key, (int,), "an integer", default)
        if value is not None and minimum is not None and value < minimum:
            raise self.fail(f"{key} must be at least {minimum}, got {value}")
        return value

    def model(self, key: str, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{key} must name a white-box model, got {value!r}")
        name = value.strip()
        name = name[len("whitebox:"):] if name.startswith("whitebox:") else name
        known = whitebox_names()
        if name in known:
            return name
        path = Path(name).expanduser()
        path = path if path.is_absolute() else self.base / path
        if path.is_dir():
            return str(path.resolve())
        raise self.fail(f"{key}: unknown white-box model {value!r}; use one of {', '.join(known)} or a model directory")

    def selection(self, key: str, required: bool = False) -> Selection | None:
        if key not in self.data:
            if required:
                raise self.fail(f"needs {key} (a clip selection: {{ field = \"...\", value = \"...\" }} or \"all\")")
            return None
        value = self.data[key]
        if value == "all":
            return Selection()
        if not isinstance(value, dict):
            raise self.fail(f"{key} must be a table {{ field = \"...\", value = \"...\" }} or \"all\", got {value!r}")
        extra = sorted(set(value) - {"field", "value", "values"})
        if extra:
            raise self.fail(f"{key}: unknown key(s) {', '.join(extra)} (a selection has field and value or values)")
        field = value.get("field")
        if not isinstance(field, str) or not field.strip():
            raise self.fail(f"{key}.field must name a clip field (e.g. voice_role, speaker, sentence)")
        if ("value" in value) == ("values" in value):
            raise self.fail(f"{key} needs exactly one of value and values")
        raw = [value["value"]] if "value" in value else value["values"]
        if not isinstance(raw, list) or not raw:
            raise self.fail(f"{key}.values must be a non-empty list")
        texts = []
        for v in raw:
            if isinstance(v, bool):
                texts.append("true" if v else "false")
            elif isinstance(v, (str, int)):
                texts.append(str(v))
            else:
                raise self.fail(f"{key}: a selected value must be text, an integer or true/false, got {v!r}")
        return Selection(field.strip(), tuple(texts))

    def done(self, allowed: set[str]) -> None:
        extra = sorted(set(self.data) - allowed)
        if extra:
            raise self.fail(f"unknown key(s) {', '.join(extra)}")


def _negative(e: _Entry) -> tuple[Selection | None, str | None]:
    if "negative" not in e.data:
        raise e.fail("needs negative: a clip selection paired by pair_by, or \"silence\", \"noise:SNR\", \"mask:T0-T1\"")
    value = e.data["negative"]
    if isinstance(value, str) and value != "all":
        if value.startswith("audio:"):
            raise e.fail("negative: a fixed audio file is not a pair; select the negative clips instead")
        from asraudit.errors import InputError
        from asraudit.mechanism.experiment import parse_audio_source

        try:
            parse_audio_source(value)
        except InputError as exc:
            raise e.fail(f"negative: {exc.message if hasattr(exc, 'message') else exc}") from None
        return None, value
    return e.selection("negative"), None


def _frames(e: _Entry) -> str:
    text = e.get("frames", (str,), "a string", "audio").strip()
    if text in ("all", "audio"):
        return text
    start, sep, end = text.partition("-")
    try:
        if not sep or not 0 <= float(start) < float(end):
            raise ValueError
    except ValueError:
        raise e.fail(f"frames must be audio, all or \"START-END\" in seconds, got {text!r}") from None
    return text


def _steer(e: _Entry, index: int) -> SteerSpec:
    model = e.model("model", e.data.get("model"))
    site = e.get("site", (str,), "a string", "encoder")
    if site not in SITE_KEYS:
        raise e.fail(f"site must be encoder or decoder, got {site!r}")
    wrong = sorted(set(e.data) - SITE_KEYS[site])
    other = "decoder" if site == "encoder" else "encoder"
    if wrong and set(wrong) <= SITE_KEYS[other]:
        raise e.fail(f"{', '.join(wrong)} belong(s) to site = \"{other}\", not {site}")
    contrast, positions = None, "first"
    negative = negative_source = None
    if site == "encoder":
        negative, negative_source = _negative(e)
    else:
        if "contrast" not in e.data:
            raise e.fail("site = \"decoder\" needs contrast: the white-box model whose decoder states are "
                         "subtracted (e.g. the model the fine-tune started from)")
        contrast = e.model("contrast", e.data["contrast"])
        if contrast == model:
            raise e.fail("contrast must be another model than model")
        positions = e.get("positions", (str,), "a string", "first")
        if not re.fullmatch(r"first(:[1-9][0-9]*)?|each:[1-9][0-9]*|all", positions):
            raise e.fail(f"positions must be first, first:N, each:N or all, got {positions!r}")
    pair_by = e.get("pair_by", (str,), "a field name")
    if negative is not None and not pair_by:
        raise e.fail("pairing two clip selections needs pair_by (a field the two clips share, e.g. sentence)")
    rank = e.integer("rank", 1, minimum=1)
    ranks = e.get("ablate_ranks", (list,), "a list of integers", [rank])
    if not ranks or not all(isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= rank for k in ranks):
        raise e.fail(f"ablate_ranks must be integers in 1..rank ({rank}), got {ranks!r}")
    alphas = e.get("alphas", (list,), "a list of numbers", [1.0])
    if not alphas or not all(isinstance(a, (int, float)) and not isinstance(a, bool) and math.isfinite(a)
                             for a in alphas):
        raise e.fail(f"alphas must be a non-empty list of numbers, got {alphas!r}")
    apply_to = e.get("apply_to", (list,), "a list of white-box model names", [])
    holdout = float(e.get("holdout", (int, float), "a number", 0.5))
    if not 0 <= holdout < 1:
        raise e.fail(f"holdout must be in [0, 1), got {holdout}")
    spec = SteerSpec(
        entry=e.where,
        name=e.get("name", (str,), "a string", f"steer #{index}"),
        model=model,
        site=site,
        layer=e.integer("layer", -1),
        rank=rank,
        frames=_frames(e) if site == "encoder" else "audio",
        positive=e.selection("positive", required=True),
        negative=negative,
        negative_source=negative_source,
        pair_by=pair_by,
        holdout=holdout,
        max_pairs=e.integer("max_pairs", None, minimum=1),
        ablate=e.selection("ablate"),
        ablate_ranks=tuple(dict.fromkeys(ranks)),
        induce=e.selection("induce"),
        alphas=tuple(dict.fromkeys(float(a) for a in alphas)),
        apply_to=tuple(e.model("apply_to", m) for m in apply_to),
        induce_model=e.get("induce_model", (bool,), "true or false", True),
        max_clips=e.integer("max_clips", None, minimum=1),
        control_seed=e.integer("control_seed", 0),
        seed=e.integer("seed", 0),
        contrast=contrast,
        positions=positions,
    )
    if spec.ablate is None and spec.induce is None:
        raise e.fail("nothing to do: give ablate and/or induce (the clips to intervene on)")
    if spec.apply_to and spec.induce is None:
        raise e.fail("apply_to adds the direction to other models on the induce clips: give induce")
    if spec.induce is not None and not spec.induce_model and not spec.apply_to:
        raise e.fail("induce_model = false and no apply_to: induce has no model to run in")
    if spec.model in spec.apply_to:
        raise e.fail(f"apply_to repeats the experiment's own model {spec.model!r}")
    e.done(SITE_KEYS[site])
    return spec


def parse_mechanism(entries: Sequence[Mapping[str, Any]], source: str, base: Path) -> tuple[MechanismSpec, ...]:
    """Checked experiments from the spec's ``[[mechanism]]`` tables (no torch needed)."""
    out = []
    names: dict[str, str] = {}
    for i, data in enumerate(entries, start=1):
        where = f"[[mechanism]] #{i}"
        if not isinstance(data, Mapping):
            raise SpecError(f"{where} must be a table", source)
        e = _Entry(data, where, source, Path(base))
        kind = data.get("type")
        if kind not in TYPES:
            raise e.fail(f"type must be one of {', '.join(TYPES)}, got {kind!r}")
        spec = _steer(e, i)
        if spec.name in names:
            raise e.fail(f"name {spec.name!r} is already used by {names[spec.name]}")
        names[spec.name] = where
        out.append(spec)
    return tuple(out)


# ------------------------------------------------------------------ the plan


@dataclass(frozen=True)
class SteerPlan:
    """What a steer experiment learns from and reads out on, from the corpus alone."""

    spec: SteerSpec
    learn: tuple[ClipPair, ...]
    learned_groups: frozenset[str]
    held_out_groups: frozenset[str]
    ablate_clips: tuple
    induce_clips: tuple


def _capped(clips: Sequence, cap: int | None) -> tuple:
    return tuple(clips if cap is None else clips[:cap])


def plan_steer(spec: SteerSpec, clips: Sequence) -> SteerPlan:
    """Pairs to learn from and clips to intervene on; a SpecError when the corpus cannot supply them."""
    where = spec.entry
    for sel_name in ("positive", "negative", "ablate", "induce"):
        sel = getattr(spec, sel_name)
        if sel is not None and not sel.everything and not sel.select(clips):
            seen = sorted({v for c in clips if (v := clip_field(c, sel.field)) is not None})[:8]
            hint = f"; values seen: {', '.join(seen)}" if seen else f"; no clip has a field {sel.field!r}"
            raise SpecError(f"{where}: {sel_name} selects no clip of the corpus ({sel.describe()}){hint}", None)
    try:
        pairs = clip_pairs(clips, spec.positive, spec.negative, spec.pair_by)
    except ValueError as exc:
        raise SpecError(f"{where}: {exc}", None) from None
    if not pairs:
        raise SpecError(f"{where}: no learning pairs: no {spec.pair_by} value has both a positive and a negative clip",
                        None)
    learned, held = split_groups([p.group for p in pairs], spec.holdout, spec.seed)
    learn = [p for p in pairs if p.group in learned]
    if spec.max_pairs is not None:
        learn = learn[: spec.max_pairs]
    if len(learn) < spec.rank:
        raise SpecError(f"{where}: rank {spec.rank} needs at least {spec.rank} learning pairs, the corpus gives "
                        f"{len(learn)}", None)
    learned = frozenset(p.group for p in learn)

    def readable(sel: Selection | None) -> tuple:
        if sel is None:
            return ()
        chosen = [c for c in sel.select(clips) if spec.holdout <= 0 or group_of(c, spec.pair_by) not in learned]
        return _capped(chosen, spec.max_clips)

    ablate, induce = readable(spec.ablate), readable(spec.induce)
    for name, sel, chosen in (("ablate", spec.ablate, ablate), ("induce", spec.induce, induce)):
        if sel is not None and not chosen:
            raise SpecError(f"{where}: no {name} clip is left outside the learned pair groups (holdout "
                            f"{spec.holdout}); raise holdout or lower max_pairs", None)
    return SteerPlan(spec, tuple(learn), learned, frozenset(held) - learned, ablate, induce)


def check_mechanism(specs: Sequence[MechanismSpec], clips: Sequence, source: str | None = None) -> list[SteerPlan]:
    """Before any model runs: the corpus supplies every experiment's pairs and clips, and torch is installed."""
    if not specs:
        return []
    import importlib.util

    missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if missing:
        raise SpecError(f"[[mechanism]] experiments need the white-box model ({', '.join(missing)} missing): "
                        "pip install 'asraudit[hf]'", source)
    plans = []
    for spec in specs:
        try:
            plans.append(plan_steer(spec, clips))
        except SpecError as exc:
            raise SpecError(exc.message if hasattr(exc, "message") else str(exc), source) from None
    return plans


# ------------------------------------------------------------------ running


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:40] or "direction"


def direction_key(model, spec: SteerSpec, pairs: Sequence[ClipPair], contrast=None) -> str:
    """A hash of everything the learned direction depends on."""
    payload = {
        "format": CACHE_FORMAT,
        "model": model.model_id,
        "config": model.config_hash,
        "layer": spec.layer,
        "rank": spec.rank,
        "frames": spec.frames,
        "negative": spec.negative_id,
        "pairs": [p.label for p in pairs],
    }
    if spec.site == "decoder":
        payload.update(site="decoder", positions=spec.positions, contrast=contrast.model_id,
                       contrast_config=contrast.config_hash, pairs=[p.positive.id for p in pairs])
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _pair_audio(pair: ClipPair, condition) -> tuple:
    audio = pair.positive.decode()
    return audio, (pair.negative.decode() if pair.negative is not None else condition(audio))


def _learn(spec: SteerSpec, plan: "SteerPlan", model, contrast):
    """Learn the plan's direction (the slow part: an encoder pass per clip of every pair)."""
    if spec.site == "decoder":
        from asraudit.mechanism.decoder_steering import learn_model_contrast

        clips = [(p.positive.id, p.positive.decode(), p.positive.reference) for p in plan.learn]
        return learn_model_contrast(model, contrast, clips, spec.layer, positions=spec.positions, rank=spec.rank,
                                    description=f"{model.name} minus {contrast.name} on {spec.positive.describe()}")
    from asraudit.mechanism.experiment import parse_audio_source
    from asraudit.mechanism.steering import learn_direction
    from asraudit.models.whitebox.interventions import Frames

    condition = parse_audio_source(spec.negative_source) if spec.negative_source else None
    pairs = [_pair_audio(p, condition) for p in plan.learn]
    return learn_direction(model, pairs, spec.layer, frames=Frames.parse(spec.frames), rank=spec.rank,
                           pair_labels=[p.label for p in plan.learn],
                           description=f"{spec.positive.describe()} vs "
                                       f"{spec.negative.describe() if spec.negative else spec.negative_source}"
                                       f"{f', paired by {spec.pair_by}' if spec.pair_by else ''}")


def _load_direction(spec: SteerSpec, path: Path):
    if spec.site == "decoder":
        from asraudit.mechanism.decoder_steering import load_any_direction

        return load_any_direction(path)
    from asraudit.mechanism.steering import Direction

    return Direction.load(path)


def learned_direction(ctx, plan: SteerPlan, model, contrast=None):
    """The plan's direction: from the cache under ``OUT/mechanism`` when present, else learned and saved there."""
    from asraudit.errors import InputError

    spec = plan.spec
    key = direction_key(model, spec, plan.learn, contrast)
    path = Path(ctx.out) / "mechanism" / f"{_slug(spec.name)}-{key}.safetensors"
    if path.is_file():
        try:
            direction = _load_direction(spec, path)
            ctx.log(f"mechanism {spec.name}: direction {direction.id} from {path}")
            return direction, path
        except InputError as exc:
            ctx.log(f"mechanism {spec.name}: cached direction unreadable ({exc}); learning it again")
    started = time.perf_counter()
    try:
        direction = _learn(spec, plan, model, contrast)
    except ValueError as exc:
        raise SpecError(f"{spec.entry}: cannot learn the direction: {exc}", ctx.spec.source) from None
    direction.save(path)
    ctx.log(f"mechanism {spec.name}: learned {direction.id} at {spec.site} layer {direction.layer} from "
            f"{len(plan.learn)} pairs in {time.perf_counter() - started:.1f} s (|v| {direction.norm:.3g}); saved {path}")
    return direction, path


def _load_whitebox(ctx, name: str, cache: dict):
    if name not in cache:
        from asraudit.models.registry import load_model

        executor = ctx.spec.executor
        cache[name] = load_model(f"whitebox:{name}", device=executor.device, batch_size=executor.batch_size)
    return cache[name]


def _miner(ctx):
    from asraudit.probes.refdis import MinerParams

    rd = ctx.spec.refdis
    return MinerParams(majority=rd.majority, min_panel=rd.min_panel, min_ref_match=rd.min_ref_match)


def _number(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if x != x else x


def _readout_rows(ctx, experiment: str, action: str, plan: SteerPlan, model_name: str, variants, clips, direction,
                  direction_path: Path, details: dict[str, dict]) -> None:
    from asraudit.mechanism.experiment import measure_readout

    spec = plan.spec
    measured = measure_readout(ctx.store, variants, clips, panel=ctx.predictions, panel_models=list(ctx.panel),
                               normalizer=ctx.spec.normalizer, miner=_miner(ctx), n_boot=ctx.spec.bootstrap,
                               seed=ctx.spec.seed)
    results, deltas, baseline = measured.variants, measured.deltas, measured.baseline
    summary = ctx.summary.setdefault("mechanism", [])
    table = ctx.tables.setdefault("mechanism", [])
    for r in results:
        acc, d = r.accept, deltas[r.label]
        is_base = r.role == "baseline"
        row = {
            "experiment": experiment,
            "model": model_name,
            "intervention": r.label,
            "role": r.role,
            "control_of": r.control_of,
            "metric": "accept-ref",
            "value": None if acc is None else _number(acc.rate),
            "lo": None if acc is None else _number(acc.low),
            "hi": None if acc is None else _number(acc.high),
            "n_ref": None if acc is None else acc.n_ref,
            "n_eligible": None if acc is None else acc.n_eligible,
            "changed": r.changed,
            "clips": r.n_clips,
            "wer": None if r.wer is None else _number(r.wer.rate),
            # beyond the schema: the paired change against the baseline on the same edits
            "delta": None if is_base else _number(d.delta),
            "delta_lo": None if is_base else _number(d.low),
            "delta_hi": None if is_base else _number(d.high),
            "delta_n": None if is_base else d.n,
            "to_ref": None if is_base else d.to_ref,
            "to_audio": None if is_base else d.to_audio,
            "direction": direction.id,
            "layer": direction.layer,
            "action": action,
        }
        summary.append(row)
        table.append({
            **{k: v for k, v in row.items()},
            "name": spec.name,
            "entry": spec.entry,
            "model_id": r.model_id,
            "config_hash": r.config_hash,
            "n_audio": None if acc is None else acc.n_audio,
            "n_other": None if acc is None else acc.n_other,
            "n_ineligible": None if acc is None else acc.n_ineligible,
            "wer_lo": None if r.wer is None else _number(r.wer.interval.low),
            "wer_hi": None if r.wer is None else _number(r.wer.interval.high),
            "site": spec.site,
            "where": spec.where,
            "contrast": spec.contrast,
            "direction_norm": direction.norm,
            "direction_file": str(direction_path),
            "learn_pairs": len(plan.learn),
            "learned_groups": len(plan.learned_groups),
            "pair_by": spec.pair_by,
            "positive": spec.positive.id,
            "negative": spec.negative_id,
            **details.get(r.label, {}),
        })
    base = baseline.accept
    lines = [f"{r.label}: {'-' if r.accept is None else f'{r.accept.n_ref}/{r.accept.n_eligible}'}"
             + ("" if r.role == "baseline" or deltas[r.label].n == 0 else f" (Δ {100 * deltas[r.label].delta:+.1f} pts)")
             for r in results]
    ctx.log(f"mechanism {experiment}: accept-ref " + "; ".join(lines)
            + ("" if base is None else f" [panel edits judged on {len(clips)} clips]"))


def _fits(spec: SteerSpec, target, direction) -> str | None:
    """Why ``direction`` cannot be applied to ``target`` (None when it can)."""
    width = target.hf.config.d_model
    stack = target.hf.model.encoder.layers if spec.site == "encoder" else target.hf.model.decoder.layers
    if width != direction.vector.shape[-1] or not direction.layer < len(stack):
        return (f"{target.name} has width {width} and {len(stack)} {spec.site} layers; the direction (width "
                f"{direction.vector.shape[-1]}, layer {direction.layer}) does not fit it")
    return None


def _interventions(spec: SteerSpec, direction):
    """(ablate(direction, k), add(direction, alpha)) for the spec's site."""
    if spec.site == "decoder":
        from asraudit.mechanism.decoder_steering import DecoderSteerAblate, DecoderSteerAdd

        return (lambda d, k: DecoderSteerAblate(direction=d, rank=k, layer=direction.layer, positions=spec.positions),
                lambda d, a: DecoderSteerAdd(direction=d, alpha=a, layer=direction.layer, positions=spec.positions))
    from asraudit.models.whitebox.interventions import Frames, SteerAblate, SteerAdd

    frames = Frames.parse(spec.frames)
    return (lambda d, k: SteerAblate(direction=d, rank=k, layer=direction.layer, frames=frames),
            lambda d, a: SteerAdd(direction=d, alpha=a, layer=direction.layer, frames=frames))


def _run_steer(ctx, plan: SteerPlan, models: dict) -> None:
    from asraudit.mechanism.experiment import Variant, run_variants

    spec = plan.spec
    model = _load_whitebox(ctx, spec.model, models)
    contrast = _load_whitebox(ctx, spec.contrast, models) if spec.contrast else None
    direction, path = learned_direction(ctx, plan, model, contrast)
    control = direction.random_control(spec.control_seed)
    ablation, addition = _interventions(spec, direction)
    batch = ctx.spec.executor.batch_size

    def go(action: str, model_name: str, variants, clips, details):
        title = f"{spec.name}: {action} in {model_name}"
        run_variants(ctx.store, variants, clips, batch_size=batch, progress=ctx.progress, description=title)
        _readout_rows(ctx, title, action, plan, model_name, variants, clips, direction, path, details)

    if plan.ablate_clips:
        variants = [Variant("baseline", "baseline", model)]
        details: dict[str, dict] = {"baseline": {}}
        for k in spec.ablate_ranks:
            label = f"ablate k={k}"
            variants.append(Variant(label, "intervention", model.variant(ablation(direction, k))))
            variants.append(Variant(f"random k={k}", "control", model.variant(ablation(control, k)), control_of=label))
            details[label] = details[f"random k={k}"] = {"rank": k}
        go("ablate", spec.model, variants, plan.ablate_clips, details)

    if plan.induce_clips:
        for name in ((spec.model,) if spec.induce_model else ()) + spec.apply_to:
            target = _load_whitebox(ctx, name, models)
            problem = _fits(spec, target, direction)
            if problem:
                ctx.note(f"mechanism {spec.name}: {problem}; induction in {name} skipped")
                continue
            variants = [Variant("baseline", "baseline", target)]
            details = {"baseline": {}}
            for alpha in spec.alphas:
                label = f"add a={alpha:g}"
                variants.append(Variant(label, "intervention", target.variant(addition(direction, alpha))))
                variants.append(Variant(f"random a={alpha:g}", "control", target.variant(addition(control, alpha)),
                                        control_of=label))
                details[label] = details[f"random a={alpha:g}"] = {"alpha": alpha}
            go("induce", name, variants, plan.induce_clips, details)


def run_mechanism(ctx, specs: Sequence[MechanismSpec]) -> None:
    """Run every experiment through ``ctx.store`` and add its rows to ``ctx.summary``/``ctx.tables``."""
    if not specs:
        return
    if ctx.predictions is None or not ctx.panel:
        ctx.note("mechanism experiments skipped: accept-ref needs the panel's transcripts (no panel)")
        return
    plans = check_mechanism(specs, list(ctx.corpus.clips), ctx.spec.source)
    models: dict = {}
    ctx.summary.setdefault("mechanism", [])
    ctx.tables.setdefault("mechanism", [])
    for plan in plans:
        started = time.perf_counter()
        _run_steer(ctx, plan, models)
        ctx.log(f"mechanism {plan.spec.name}: done in {time.perf_counter() - started:.1f} s")
