"""The trigger battery: a named list of conditions, the probes re-run under each.

A behaviour that switches on under some conditions and not others says what
triggers it.  If a model writes the benchmark's reference errors only when
the clip is followed by a few seconds of the benchmark's own audio, and not
when it is followed by other speech, the model has learned something about
the benchmark's recordings.  The battery is declared in TOML::

    name = "paper"
    probes = ["accept-ref", "recovery", "lift"]

    [[condition]]
    name = "original"
    type = "original"

    [[condition]]
    name = "suffix-benchmark"
    type = "splice"
    donor = "benchmark"      # other clips of the audited corpus
    seconds = 8
    where = "append"

    [[condition]]
    name = "suffix-other"
    type = "splice"
    donor = "tts:espeak-ng"  # or "corpus:<manifest>" (other material)
    seconds = 8
    where = "append"

    [[contrast]]
    name = "benchmark vs other donor"
    treatment = "suffix-benchmark"
    control = "suffix-other"

Condition types and their keys: ``original``; ``noise`` (``snr_db``,
``kind`` white|babble, ``donors`` = number of other clips summed for
babble, ``seed``); ``reverb`` (``rt60``, ``drr_db``, ``seed``); ``codec``
(``codec`` mp3|opus|vorbis, ``quality`` in [0, 1]); ``truncate``
(``before``, ``after`` seconds around each masked target; masked probes
only); ``splice`` (``donor``, ``seconds``, ``where`` prepend|append, ``gap``);
``revoice`` (``engine`` espeak-ng|flite, ``voice``; the audio is replaced by
TTS of what the clip says, so span masks cannot apply).

Donor audio is whole clips (never a cut word), concatenated until it lasts
``seconds``; what the donors say goes into the channel's prefix or suffix,
so hypotheses are read against donor text + reference and nothing the donor
says counts against the clip.  Benchmark donors never share their text with
the clip (the same sentence in another voice would hand the model the
answer).

Probes: ``accept-ref`` (mined edits, verdicts re-read under each
condition), ``recovery`` (masked targets), ``lift`` (λ(r) at edits and λ of
the masked target).  The readout per model: each probe's value per condition
with an interval (Wilson for rates, clip bootstrap for lift), its change
from the original with a paired clip bootstrap interval, and for each
contrast the difference in differences Δ(treatment) − Δ(control), from the
same paired resamples.
"""

from __future__ import annotations

import math
import subprocess
import tomllib
from collections import Counter
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence


from asraudit.audio.conditions import (TTS_ENGINES, Codec, DonorSplice, Noise, Reverb, Revoice, Truncate, check_codec,
                                      synthesize)
from asraudit.audio.timing import WordTiming
from asraudit.data.corpus import HF_PREFIX
from asraudit.data.paths import ensure_outputs_apart
from asraudit.data.rows import decode_text, not_a_file
from asraudit.errors import InputError
from asraudit.models.base import SAMPLE_RATE
from asraudit.probes.battery_donors import DonorPool, check_donor_source, said_by
from asraudit.probes.channel import Channel
from asraudit.probes.lift_run import EditItem
from asraudit.probes.masked_run import MaskItem
from asraudit.probes.refdis_cells import HypCells, place_of, reading

PROBES = ("accept-ref", "recovery", "lift")
CONDITION_TYPES = ("original", "noise", "reverb", "codec", "truncate", "splice", "revoice")
# What each readout row is, and whether its value is a rate (Wilson) or a mean (bootstrap).
READOUTS = {"accept-ref": "rate", "recovery": "rate", "lift(r)": "mean", "lift(mask)": "mean"}
READOUT_PROBE = {"accept-ref": "accept-ref", "recovery": "recovery", "lift(r)": "lift", "lift(mask)": "lift"}

# Keys each condition type takes (beyond name and type), with their defaults.
_KEYS: dict[str, dict[str, Any]] = {
    "original": {},
    "noise": {"snr_db": None, "kind": "white", "donors": 3, "seed": 0},
    "reverb": {"rt60": None, "drr_db": 0.0, "seed": 0},
    "codec": {"codec": "mp3", "quality": 0.5},
    "truncate": {"before": 0.5, "after": 0.5},
    "splice": {"donor": None, "seconds": None, "where": "append", "gap": 0.3, "seed": 0},
    "revoice": {"engine": "espeak-ng", "voice": None},
}


# ------------------------------------------------------------------------ spec


@dataclass(frozen=True)
class ConditionSpec:
    name: str
    type: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class ContrastSpec:
    name: str
    treatment: str
    control: str
    baseline: str = "original"


@dataclass(frozen=True)
class BatterySpec:
    name: str
    probes: tuple[str, ...]
    conditions: tuple[ConditionSpec, ...]
    contrasts: tuple[ContrastSpec, ...] = ()
    source: str = ""

    def condition(self, name: str) -> ConditionSpec:
        return next(c for c in self.conditions if c.name == name)


BUILTIN_SPECS = {"paper": "battery_paper.toml"}


def _fail(message: str, source) -> InputError:
    return InputError(message, source)


def parse_spec(data: Mapping[str, Any], source: str = "<spec>", base: Path | None = None) -> BatterySpec:
    """A battery from parsed TOML, checked completely (every error names the entry).

    ``base``: the spec file's folder, against which ``corpus:`` donor paths are resolved."""
    unknown = sorted(set(data) - {"name", "probes", "condition", "contrast", "description"})
    if unknown:
        raise _fail(f"unknown top-level key(s): {', '.join(unknown)}", source)
    given = data.get("probes", list(PROBES))
    if not isinstance(given, list):  # a string would be read as its characters
        raise _fail(f"probes must be a list of {', '.join(PROBES)}; got {given!r}", source)
    probes = tuple(given)
    bad = [p for p in probes if p not in PROBES]
    if bad or not probes:
        raise _fail(f"probes must be a non-empty list of {', '.join(PROBES)}; got {list(probes)}", source)
    if "name" in data and not isinstance(data["name"], str):
        raise _fail(f"name must be a string, got {data['name']!r}", source)
    raw = data.get("condition")
    if not isinstance(raw, list) or not raw:
        raise _fail("a battery needs at least one [[condition]]", source)
    conditions = []
    for n, entry in enumerate(raw, start=1):
        where = f"[[condition]] #{n}"
        if not isinstance(entry, dict):
            raise _fail(f"{where} must be a table", source)
        name, ctype = entry.get("name"), entry.get("type", entry.get("name"))
        if not isinstance(name, str) or not name.strip():
            raise _fail(f"{where} needs a name", source)
        where += f" ({name})"
        if ctype not in CONDITION_TYPES:
            raise _fail(f"{where}: type must be one of {', '.join(CONDITION_TYPES)}, got {ctype!r}", source)
        if name == "original" and ctype != "original":  # every change is read from the condition of this name
            raise _fail(f"{where}: the condition named 'original' is the baseline every change is measured from, "
                        f"so its type must be original, got {ctype}: give this condition another name", source)
        keys = _KEYS[ctype]
        extra = sorted(set(entry) - {"name", "type"} - set(keys))
        if extra:
            raise _fail(f"{where}: unknown key(s) for type {ctype}: {', '.join(extra)} "
                        f"(known: {', '.join(keys) or 'none'})", source)
        params = {k: entry.get(k, default) for k, default in keys.items()}
        missing = [k for k, v in params.items() if v is None and k != "voice"]
        if missing:
            raise _fail(f"{where}: missing {', '.join(missing)}", source)
        _check_params(ctype, params, where, source)
        if ctype == "splice" and params["donor"].startswith("corpus:") and base is not None:
            # A relative donor corpus belongs to the spec, not to the directory the audit runs from.
            named = params["donor"][len("corpus:"):]
            target = Path(named).expanduser()
            if not target.is_absolute() and not named.startswith(HF_PREFIX):  # hf:NAME is a hub id, not a path
                params["donor"] = f"corpus:{base / target}"
        conditions.append(ConditionSpec(name, ctype, params))
    names = [c.name for c in conditions]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise _fail(f"condition names repeat: {', '.join(dup)}", source)
    contrasts = []
    for n, entry in enumerate(data.get("contrast", []), start=1):
        where = f"[[contrast]] #{n}"
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("treatment", "control")):
            raise _fail(f"{where} needs treatment and control (condition names)", source)
        extra = sorted(set(entry) - {"name", "treatment", "control", "baseline"})
        if extra:  # a misspelt baseline would silently be "original"
            raise _fail(f"{where}: unknown key(s): {', '.join(extra)} (known: name, treatment, control, baseline)",
                        source)
        wrong = [k for k in ("name", "baseline") if k in entry and not isinstance(entry[k], str)]
        if wrong:
            raise _fail(f"{where}: {wrong[0]} must be a string, got {entry[wrong[0]]!r}", source)
        if entry["treatment"] == entry["control"]:
            raise _fail(f"{where}: treatment and control are both {entry['treatment']!r}: the difference in "
                        "differences of a condition with itself is zero by construction: name two conditions", source)
        c = ContrastSpec(str(entry.get("name") or f"{entry['treatment']} vs {entry['control']}"),
                         entry["treatment"], entry["control"], str(entry.get("baseline", "original")))
        for ref in (c.treatment, c.control, c.baseline):
            if ref not in names:
                raise _fail(f"{where} ({c.name}): no condition named {ref!r}", source)
        contrasts.append(c)
    return BatterySpec(str(data.get("name") or Path(source).stem), probes, tuple(conditions), tuple(contrasts), source)


# Upper bounds of lengths in seconds: each becomes an array of that many samples (a room response, a gap of
# silence, donor speech), so a value in milliseconds or a typo (rt60 = 1e7) would ask for terabytes.
MAX_RT60_S = 20.0
MAX_GAP_S = 60.0
MAX_SPLICE_S = 600.0
# The noise is scaled to the clip's power, so below this SNR it is more than 30 times the clip's level: a clip at
# an rms of 0.2 gets noise peaks near 30 (-40 dB: near 100), which the models refuse as no audio (past 32, case
# 61) only once the battery reaches the condition, after every condition before it has run.
MIN_SNR_DB = -30.0
# Decibels are raised to powers of ten in float64, which stop at 1e308: an SNR above 3,080 dB (or a DRR below
# -3,080) was an OverflowError traceback once the battery reached the condition.  Past 100 dB the weaker part is
# below 16-bit audio's resolution (96 dB), so no model hears it: such a condition is the original.
MAX_SNR_DB = 100.0
MAX_ABS_DRR_DB = 100.0
# The room response's tail decays by 60 dB in rt60: one sample after the direct path it is exp(-ln(1000) / (16000 *
# rt60)), and below about a microsecond its energy is 0.0 in float64 (a ZeroDivisionError when scaled).  A response
# shorter than a millisecond (16 samples) is no reverberation.
MIN_RT60_S = 0.001


def _check_params(ctype: str, p: dict, where: str, source) -> None:
    def number(key, lo=None, hi=None, positive=False, why=""):
        v = p[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise _fail(f"{where}: {key} must be a number, got {v!r}", source)
        if (positive and v <= 0) or (lo is not None and v < lo) or (hi is not None and v > hi):
            low = "(0" if positive else ("(-inf" if lo is None else f"[{lo:g}")
            high = "inf)" if hi is None else f"{hi:g}]"
            raise _fail(f"{where}: {key} = {v} is out of range {low}, {high}{why}", source)

    def integer(key, lo):
        v = p[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise _fail(f"{where}: {key} must be an integer of at least {lo}, got {v!r}", source)

    if "seed" in p:
        integer("seed", 0)
    if ctype == "noise":
        number("snr_db")
        if p["snr_db"] > MAX_SNR_DB:
            raise _fail(f"{where}: snr_db = {p['snr_db']} is out of range [{MIN_SNR_DB:g}, {MAX_SNR_DB:g}]: above "
                        f"{MAX_SNR_DB:g} dB the noise is below 16-bit audio's resolution (96 dB), so the condition is "
                        "the original (and past 3,080 dB beyond what a float holds)", source)
        if p["snr_db"] < MIN_SNR_DB:
            raise _fail(f"{where}: snr_db = {p['snr_db']} is out of range [{MIN_SNR_DB:g}, {MAX_SNR_DB:g}]: below "
                        f"{MIN_SNR_DB:g} dB the noise, set against the clip's power, drives its samples tens of times "
                        "past [-1, 1] (at -100 dB to 10^5 times the clip's level), audio the models refuse once the "
                        "battery reaches it", source)
        if p["kind"] not in ("white", "babble"):
            raise _fail(f"{where}: kind must be white or babble, got {p['kind']!r}", source)
        integer("donors", 1)
    elif ctype == "reverb":
        number("rt60", lo=MIN_RT60_S, hi=MAX_RT60_S, why=f": rt60 is in seconds; a room response shorter than "
               f"{MIN_RT60_S:g} s is no reverberation, and one of {MAX_RT60_S:g} s an echo chamber")
        number("drr_db", lo=-MAX_ABS_DRR_DB, hi=MAX_ABS_DRR_DB, why=f": past {MAX_ABS_DRR_DB:g} dB either way the "
               "weaker part is below 16-bit audio's resolution (96 dB), and past 3,080 dB beyond what a float holds")
    elif ctype == "codec":
        if p["codec"] not in ("mp3", "opus", "vorbis"):
            raise _fail(f"{where}: codec must be mp3, opus or vorbis, got {p['codec']!r}", source)
        number("quality", 0, 1)
    elif ctype == "truncate":
        number("before", lo=0)
        number("after", lo=0)
    elif ctype == "splice":
        number("seconds", positive=True, hi=MAX_SPLICE_S)
        number("gap", lo=0, hi=MAX_GAP_S)
        donor = p["donor"]
        if not isinstance(donor, str) or not (donor == "benchmark" or donor.startswith(("corpus:", "tts:"))):
            raise _fail(f"{where}: donor must be 'benchmark', 'corpus:<manifest>' or 'tts:<engine>', got {donor!r}",
                        source)
        if donor.startswith("tts:") and donor[len("tts:"):] not in TTS_ENGINES:
            raise _fail(f"{where}: donor {donor!r}: the engine must be one of {', '.join(TTS_ENGINES)}", source)
        if donor.startswith("corpus:") and not donor[len("corpus:"):].strip():
            raise _fail(f"{where}: donor 'corpus:' names no corpus: write corpus:<manifest or folder>", source)
        if p["where"] not in ("prepend", "append"):
            raise _fail(f"{where}: where must be prepend or append, got {p['where']!r}", source)
    elif ctype == "revoice":
        if p["engine"] not in TTS_ENGINES:
            raise _fail(f"{where}: engine must be espeak-ng or flite, got {p['engine']!r}", source)
        if p["voice"] is not None and (not isinstance(p["voice"], str) or not p["voice"].strip()):
            raise _fail(f"{where}: voice must be the name of one of {p['engine']}'s voices, got {p['voice']!r}", source)


# What each probe reads: mined edits (accept-ref, λ(r)) and masked targets (recovery, λ of the target).
EDIT_PROBES = frozenset({"accept-ref", "lift"})
TARGET_PROBES = frozenset({"recovery", "lift"})


def check_probe_inputs(spec: BatterySpec, *, no_edits: str | None, no_targets: str | None) -> None:
    """Refuse a battery none of whose probes has anything to read: ``no_edits`` / ``no_targets`` say why there
    are no edits or no masked targets (None where there may be some). ``probes = ["recovery"]`` with ``--no-mask``
    ran every condition, measured nothing and printed nothing, exit 0."""
    probes = set(spec.probes)
    if (probes & EDIT_PROBES and no_edits is None) or (probes & TARGET_PROBES and no_targets is None):
        return
    needs = ([("mined edits", no_edits)] if probes & EDIT_PROBES else []) + \
        ([("masked targets", no_targets)] if probes & TARGET_PROBES else [])
    raise _fail(f"probes {', '.join(spec.probes)} read {' or '.join(n for n, _ in needs)}, and "
                f"{' and '.join(str(why) for _, why in needs)}: the battery would measure nothing", spec.source)


def check_sources(spec: BatterySpec) -> None:
    """What the conditions need from outside the spec file, there before any model runs: each donor corpus
    loads and has utterances with text, each TTS engine is installed and speaks with the voice asked for, the
    installed libsndfile writes each codec.

    Found only when the battery reached the condition, each had stopped the run after the models had worked
    through every condition before it (an unknown voice and an engine name as tracebacks)."""
    for n, cond in enumerate(spec.conditions, start=1):
        where, p = f"[[condition]] #{n} ({cond.name})", cond.params
        try:
            if cond.type == "splice" and p["donor"] != "benchmark":
                check_donor_source(p["donor"])
            elif cond.type == "revoice":
                synthesize("test", p["engine"], p["voice"])
            elif cond.type == "codec":
                check_codec(p["codec"], float(p["quality"]))
        except InputError as exc:
            raise _fail(f"{where}: donor {p['donor']}: {exc}", spec.source) from None
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            raise _fail(f"{where}: {exc}", spec.source) from None


def check_outputs_apart_from_donors(spec: BatterySpec, outputs: Sequence[tuple[str, Path | None]]) -> None:
    """Refuse, before any model runs, an output file (``outputs``: (option, path) pairs) that is a splice's
    donor corpus: its manifest or one of its clips' audio files, inputs the command line does not name.
    ``battery --json donors.jsonl`` replaced the donor manifest with the readout, exit 0 (the next run:
    ``broken JSON row``), ``--json d0.wav`` a donor's audio."""
    outputs = [(what, path) for what, path in outputs if path is not None and Path(path).is_file()]
    if not outputs:  # a file that is not there yet is no input
        return
    for n, cond in enumerate(spec.conditions, start=1):
        donor = cond.params.get("donor") if cond.type == "splice" else None
        if not isinstance(donor, str) or not donor.startswith("corpus:"):
            continue
        where = f"[[condition]] #{n} ({cond.name}) of {spec.source}"
        named = Path(donor[len("corpus:"):])
        inputs = [(f"the donor corpus of {where}", named)] if named.is_file() else []
        inputs += [(f"the audio of donor clip {clip_id!r} of {where}", audio)
                   for clip_id, audio in DonorPool(donor, (), {}).audio_files()]
        ensure_outputs_apart(outputs, inputs)


def check_benchmark_donors(spec: BatterySpec, corpus, texts: Mapping[str, str] | None = None) -> None:
    """That the corpus can give the conditions drawing on its own clips (``donor = "benchmark"``, babble noise)
    a donor for every clip, and babble its ``donors`` for every clip, before any model runs: a donor is another
    clip that says something else, so a corpus of one clip, or whose clips all say one text, has none
    (``texts``: what each clip says, as the run reads it; else its reference).

    The battery found it when it reached the condition, after the models had run every condition before it:
    babble was a ``ValueError`` traceback, a splice one line naming neither spec nor condition; babble of fewer
    donors than asked was summed from the ones there were."""
    clips = list(corpus)
    said = [said_by((texts or {}).get(c.id) or c.reference or "") for c in clips]
    counts = Counter(said)
    for n, cond in enumerate(spec.conditions, start=1):
        p = cond.params
        if cond.type == "noise" and p["kind"] == "babble":
            what, fix, wanted = "babble noise is summed from", 'use kind = "white", or', int(p["donors"])
        elif cond.type == "splice" and p["donor"] == "benchmark":
            what, fix, wanted = "donor 'benchmark' splices", "use a corpus: or tts: donor, or", 1
        else:
            continue
        if len(counts) < 2:  # no clip has another clip that says something else
            held = (f"holds one clip ({clips[0].id!r})" if len(clips) == 1 else
                    f"holds {len(clips)} clips that all say one text" if clips else "holds no clip")
            raise _fail(f"[[condition]] #{n} ({cond.name}): {what} other clips of the corpus that say something "
                        f"else than the clip, and the corpus {held}, so no clip has a donor: {fix} audit a larger "
                        "corpus", spec.source)
        # Babble of fewer voices than asked (one voice: a competing talker) was summed without a word.
        fewest = min(range(len(clips)), key=lambda i: len(clips) - counts[said[i]])
        have = len(clips) - counts[said[fewest]]
        if have < wanted:
            raise _fail(f"[[condition]] #{n} ({cond.name}): babble noise sums donors = {wanted} other clips of the "
                        f"corpus that say something else than the clip, and clip {clips[fewest].id!r} has {have} "
                        f"(the corpus holds {len(clips)} clips), so its babble would hold fewer voices than asked: "
                        f"give donors = {have}, or audit a larger corpus", spec.source)


def check_donor_seconds(spec: BatterySpec, corpus, texts: Mapping[str, str] | None = None,
                        clip_ids: set[str] | None = None) -> None:
    """That every splice condition's donor source holds its ``seconds`` of audio for every clip (``clip_ids``;
    default every clip of the corpus), before any model runs: from the donors' headers, a TTS donor's ten
    sentences synthesized (``DonorPool.shortest_supply``).

    Donors are joined whole until they last ``seconds``; a source that holds less (a donor corpus of one short
    utterance, TTS sentences of about 30 s in all against ``seconds = 60``, a corpus of a few clips as its own
    donors) gave each clip all it had without a word, so a contrast of benchmark against other donor set
    donors of two lengths against each other under one ``seconds``."""
    clips = [c for c in corpus if clip_ids is None or c.id in clip_ids]
    said = [(c.id, (texts or {}).get(c.id) or c.reference or "") for c in clips]
    for n, cond in enumerate(spec.conditions, start=1):
        if cond.type != "splice" or not clips:
            continue
        p = cond.params
        try:
            supply = DonorPool(p["donor"], corpus, texts or {}).shortest_supply(said)
        except InputError:
            continue  # no donor at all: check_sources and check_benchmark_donors say so
        if supply is None or supply[2] * SAMPLE_RATE >= float(p["seconds"]) * SAMPLE_RATE - 0.5:
            continue
        clip_id, have, _ = supply
        source = "the corpus's other clips hold" if p["donor"] == "benchmark" else f"donor {p['donor']} holds"
        raise _fail(f"[[condition]] #{n} ({cond.name}): seconds = {p['seconds']:g} of donor audio, and {source} "
                    f"{have:.2f} s for clip {clip_id!r} (every utterance that is not the clip and does not "
                    f"say its text), so its splice would be shorter than asked, and set against conditions of the "
                    f"full length: give seconds = {math.floor(have * 10) / 10:g} or less, or a donor source with "
                    "more audio", spec.source)


def load_spec(spec: str | Path) -> BatterySpec:
    """A spec file, or the name of a built-in one (``paper``)."""
    if str(spec) in BUILTIN_SPECS:
        text = resources.files("asraudit.probes").joinpath("data", BUILTIN_SPECS[str(spec)]).read_text("utf-8")
        source = f"built-in battery {spec!r}"
    else:
        path = Path(spec)
        if not path.is_file():
            raise InputError(f"{not_a_file(path, 'battery spec')} (built-in: {', '.join(BUILTIN_SPECS)})", path)
        text, source = decode_text(path.read_bytes(), path), str(path)  # BOM dropped, a bad byte named
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", source) from None
    except RecursionError:  # arrays within arrays, thousands deep: a traceback
        raise InputError("not valid TOML: arrays or tables nested deeper than Python reads", source) from None
    base = None if str(spec) in BUILTIN_SPECS else Path(spec).resolve().parent
    return parse_spec(data, source, base)


# ------------------------------------------------------------------- channels


class Channels:
    """Channels of one battery condition: per clip (edits) and per masked target."""

    def __init__(self, spec: ConditionSpec, corpus, texts: Mapping[str, str],
                 timings: Mapping[str, Sequence[WordTiming]], pools: dict[str, DonorPool]):
        self.spec = spec
        self.texts = texts
        self.timings = timings
        self.corpus = corpus
        self.pools = pools
        self._cache: dict[str, Channel | None] = {}

    def _pool(self, source: str) -> DonorPool:
        if source not in self.pools:
            self.pools[source] = DonorPool(source, self.corpus, self.texts)
        return self.pools[source]

    def for_clip(self, clip_id: str) -> Channel | None:
        if clip_id not in self._cache:
            self._cache[clip_id] = self._build(clip_id)
        return self._cache[clip_id]

    def _build(self, clip_id: str) -> Channel | None:
        p, t = self.spec.params, self.spec.type
        text = self.texts.get(clip_id, "")
        if t == "original":
            return Channel()
        if t == "noise":
            if p["kind"] == "white":
                return Channel(Noise(float(p["snr_db"]), "white", int(p["seed"])))
            donors = self._pool("benchmark").sample(clip_id, text, int(p["donors"]), int(p["seed"]))
            return Channel(Noise(float(p["snr_db"]), "babble", int(p["seed"]), tuple(a for _, a in donors),
                                 tuple(i for i, _ in donors)))
        if t == "reverb":
            return Channel(Reverb(float(p["rt60"]), float(p["drr_db"]), int(p["seed"])))
        if t == "codec":
            return Channel(Codec(p["codec"], float(p["quality"])))
        if t == "splice":
            donor = self._pool(p["donor"]).donors_for(clip_id, text, float(p["seconds"]), int(p["seed"]))
            splice = DonorSplice(donor.audio, donor.id, len(donor.audio) / SAMPLE_RATE, p["where"], float(p["gap"]))
            if p["where"] == "append":
                return Channel(splice, suffix=donor.text)
            return Channel(splice, prefix=donor.text)
        if t == "revoice":
            voice = p.get("voice")
            return Channel(Revoice(voice or "default", text=text, engine=p["engine"]), keeps_timing=False)
        return None  # truncate: per target only

    def for_target(self, item: MaskItem) -> Channel | None:
        if self.spec.type != "truncate":
            return self.for_clip(item.clip_id)
        timings = self.timings.get(item.clip_id)
        if timings is None:
            return None  # a recipe gives no word timings: the window's words are unknown
        p, tg = self.spec.params, item.target
        window = Truncate(tg.start, tg.end, float(p["before"]), float(p["after"]))
        lo_t, hi_t = tg.start - float(p["before"]), tg.end + float(p["after"])
        kept = [i for i, w in enumerate(timings) if lo_t <= (w.start + w.end) / 2 <= hi_t]
        if tg.index not in kept:
            return None
        return Channel(window, word_range=(kept[0], kept[-1] + 1))


# ------------------------------------------------------------------ verdicts


def verdict_under(item: EditItem, hypothesis: str, channel: Channel, normalize: Callable[[str], str],
                  min_ref_match: float = 0.5) -> str:
    """The verdict of a hypothesis on an edit, read against prefix + reference + suffix.

    Eligibility counts only the clip's own reference tokens, so a donor the
    model transcribes badly does not disqualify it on the clip."""
    prefix = normalize(channel.prefix).split() if channel.prefix else []
    suffix = normalize(channel.suffix).split() if channel.suffix else []
    ref = prefix + list(item.ref) + suffix
    cells = HypCells(ref, normalize(hypothesis).split())
    off, n = len(prefix), len(item.ref)
    hits = sum(1 for i in range(off, off + n) if not cells.diff[2 * i + 1])
    if n == 0 or hits < min_ref_match * n:
        return "ineligible"
    return reading(cells, place_of(ref, (item.start + off, item.end + off, item.a)))


def normalized_channel(channel: Channel | None, normalize: Callable[[str], str]) -> Channel | None:
    """The channel with its donor text normalized (edits live on normalized tokens)."""
    if channel is None:
        return None
    return replace(channel, prefix=normalize(channel.prefix) if channel.prefix else "",
                   suffix=normalize(channel.suffix) if channel.suffix else "")
