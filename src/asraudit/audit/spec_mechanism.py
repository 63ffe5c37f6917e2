"""The audit's white-box experiments as the spec writes them: ``[[mechanism]]`` tables, parsed once.

Accept-ref says *that* a model writes the benchmark's reference errors; a
mechanism experiment asks *where* that behaviour lives, on a white-box
model whose activations can be edited (a Whisper, or a folder of any family
with intervention sites: Moonshine, Qwen2-Audio, Parakeet, ...; see
docs/models.md).  A steering experiment learns a direction from paired
clips, then

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

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from asraudit.arguments import plain
from asraudit.audit.spec_reader import SpecError
from asraudit.audit.spec_sweeps import SWEEP_KEYS, parse_sweeps
from asraudit.errors import InputError
from asraudit.mechanism.experiment import parse_audio_source
from asraudit.mechanism.pairs import Selection
from asraudit.mechanism.splice_pairs import Splice
from asraudit.models.registry import whitebox_model_names
from asraudit.models.whitebox.frames import Frames

TYPES = ("steer", "patch")
COMMON_KEYS = {"type", "name", "site", "model", "layer", "rank", "positive", "pair_by", "holdout", "max_pairs",
               "ablate", "ablate_ranks", "induce", "alphas", "apply_to", "induce_model", "max_clips", "control_seed",
               "seed"}
SITE_KEYS = {"encoder": COMMON_KEYS | {"frames", "negative"} | SWEEP_KEYS,
             "decoder": COMMON_KEYS | {"contrast", "positions"}}




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
    splice: Splice | None = None     # encoder site: learn from splice pairs (audit.spec_sweeps)
    pair_counts: tuple[int, ...] = ()  # encoder site: a direction per number of learning pairs, ablated at rank 1
    layers: tuple[int, ...] = ()     # encoder site: a direction per encoder layer, ablated at rank 1
    kind = "steer"

    @property
    def negative_id(self) -> str:
        if self.site == "decoder":
            return f"model:{self.contrast}"
        if self.splice is not None:
            return self.splice.id
        return self.negative.id if self.negative is not None else str(self.negative_source)

    @property
    def where(self) -> str:
        """Where the direction acts, for the tables: frames of an encoder layer, positions of a decoder layer."""
        return f"frames {self.frames}" if self.site == "encoder" else f"positions {self.positions}"


MechanismSpec = SteerSpec  # or audit.spec_patch.PatchSpec (type = "patch")


def whitebox_names() -> tuple[str, ...]:
    """White-box models known by name (the embedded Whispers and the models plug-ins register)."""
    return whitebox_model_names()


def _plain_values(data: Mapping[str, Any]) -> dict:
    """The entry's values with numpy scalars as the Python values they hold (``arguments.plain``), in its lists
    and tables too (``ablate_ranks``, ``alphas``, a selection's ``values``, ``splice``): a spec built in Python
    from a DataFrame's cells had ``layer = np.int64(1)`` refused as "not an integer", while every other section
    of the spec read it (fault case 106)."""
    def inner(value: Any) -> Any:
        if isinstance(value, list):
            return [inner(v) for v in value]
        if isinstance(value, Mapping):
            return {k: inner(v) for k, v in value.items()}
        return plain(value)

    return {k: inner(v) for k, v in data.items()}


class _Entry:
    """Typed reads from one ``[[mechanism]]`` table; every error names it."""

    def __init__(self, data: Mapping[str, Any], where: str, source: str, base: Path):
        self.data, self.where, self.source, self.base = _plain_values(data), where, source, base

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
        # hf:<dir>: a transformers folder of another white-box family; the folder's config names it.
        name = name[len("hf:"):] if name.startswith("hf:") else name
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
    try:
        Frames.parse(text)  # the parser the experiment uses: an end at infinity stopped it after every other stage
    except ValueError as exc:
        raise e.fail(str(exc)) from None
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
    sweeps = parse_sweeps(e) if site == "encoder" else {}
    if site == "encoder":
        if sweeps["splice"] is None:
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
        control_seed=e.integer("control_seed", 0, minimum=0),  # numpy's generator takes no negative seed
        seed=e.integer("seed", 0),
        contrast=contrast,
        positions=positions,
        **sweeps,
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
        if kind == "patch":
            from asraudit.audit.spec_patch import parse_patch

            spec = parse_patch(e, i)
        else:
            spec = _steer(e, i)
        if spec.name in names:
            raise e.fail(f"name {spec.name!r} is already used by {names[spec.name]}")
        names[spec.name] = where
        out.append(spec)
    return tuple(out)
