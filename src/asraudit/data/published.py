"""The paper's released aggregates, read from the folder they were released in (typed, checked).

"Towards Quantifying Benchmark Optimization in ASR Models" released its
per-model counts (not its audio or transcripts): accept-ref per model on a
corpus with the panel and miner settings used (``*_aggregate.json``), and
switch rates per model for convention groups (``ortho_switch.json``).  They
are reference points an audit can be put beside, so they are read from the
user's copy of the release and never shipped inside asraudit.

Only counts and labels are read here; rates and intervals are recomputed
from the counts by the metrics layer (``metrics.published_rates``), so a
published number is never shown without the arithmetic that produced it.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asraudit.data.rows import json_document
from asraudit.errors import InputError

ENV_VAR = "ASRAUDIT_PAPER_RESULTS"
# The release rounds accept-ref to four decimals (every row of its aggregates is within 5e-5 of its counts'
# arithmetic); a published rate further from its counts than that was not computed from them.
RATE_ROUNDING = 5e-5 + 1e-12
AGGREGATE_SUFFIX = "_aggregate.json"
SWITCH_FILE = "ortho_switch.json"
# The largest count read: every whole number up to 2**53 is a float exactly (the rates and intervals are floats).
MAX_COUNT = 2**53


@dataclass(frozen=True)
class MinerSettings:
    """The miner settings a published set was mined with (the release's names in comments)."""

    majority: float          # majority_pct
    min_run_len: int         # min_run_len
    include_middle: bool     # include_middle
    min_ref_match: float     # min_ref_match_pct
    min_consensus_cer: float  # min_consensus_cer


@dataclass(frozen=True)
class PublishedAcceptRef:
    """One model's published counts on a corpus: it wrote the reference (``ref``) or what the panel heard."""

    model: str
    in_panel: bool
    ref: int
    audio: int
    eligible: int
    published_rate: float  # as released (rounded); recompute from the counts


@dataclass(frozen=True)
class PublishedSet:
    """One ``*_aggregate.json``: a corpus, its panel and settings, and every model's counts."""

    name: str            # the file name without "_aggregate.json"
    path: Path
    corpus: str          # the release's dataset name
    language: str
    split: str
    panel: tuple[str, ...]
    settings: MinerSettings
    clips: int           # clips analysed
    edits: int           # edits mined (the release's n_runs)
    rows: tuple[PublishedAcceptRef, ...]


@dataclass(frozen=True)
class PublishedArm:
    hits: int
    n: int


@dataclass(frozen=True)
class PublishedSwitch:
    """One model's published switch rate: its counts per arm, and the released rate and interval."""

    model: str
    arms: dict[str, PublishedArm]
    limiting_arm: str
    published_rate: float
    published_low: float
    published_high: float


@dataclass(frozen=True)
class PublishedSwitchGroup:
    """One convention group of ``ortho_switch.json``.

    The release says where a group was measured only in its ``scope`` text
    ("within-librispeech, pooled over 4 spacing families", "cross-corpus:
    voxpopuli (abbreviated) vs librispeech (spelled out)"); ``corpora`` and
    ``families`` are read from it (``scope_corpora``, ``scope_families``) so
    an audit can be compared with the group setting by setting."""

    name: str
    path: Path
    scope: str
    arms: tuple[str, ...]
    chance: float
    min_per_arm: int
    rows: tuple[PublishedSwitch, ...]
    corpora: tuple[str, ...] = ()   # the corpora the scope names: one ("within-X") or one per arm ("cross-corpus")
    families: int | None = None     # "pooled over N ... families"; None when the scope does not say


_WITHIN = re.compile(r"^\s*within-([^\s,;()]+)")
_CROSS = re.compile(r"^\s*cross-corpus:\s*(.+)$")
_CROSS_PART = re.compile(r"^\s*([^\s,;()]+)")
_POOLED = re.compile(r"pooled over (\d+)\b")


def scope_corpora(scope: str) -> tuple[str, ...]:
    """The corpora a switch group's scope names, in its order; () when it names none in a known form."""
    m = _WITHIN.match(scope)
    if m:
        return (m.group(1),)
    m = _CROSS.match(scope)
    if m:
        parts = [_CROSS_PART.match(part) for part in re.split(r"\s+vs\.?\s+", m.group(1))]
        return tuple(dict.fromkeys(part.group(1) for part in parts if part))
    return ()


def scope_families(scope: str) -> int | None:
    """How many convention families the scope says the group pools ("pooled over 4 ..."), else None."""
    m = _POOLED.search(scope)
    return int(m.group(1)) if m else None


@dataclass(frozen=True)
class PublishedResults:
    folder: Path
    sets: dict[str, PublishedSet]
    switches: dict[str, PublishedSwitchGroup]

    def names(self) -> list[str]:
        return list(self.sets) + list(self.switches)


def results_folder(given: str | Path | None) -> Path:
    """``given``, else the folder ``$ASRAUDIT_PAPER_RESULTS`` names; an InputError if neither is a folder."""
    raw = given if given is not None else os.environ.get(ENV_VAR)
    if not raw:
        raise InputError(f"name the folder of the paper's released results with --dir or ${ENV_VAR}")
    folder = Path(raw).expanduser()
    if not folder.is_dir():
        raise InputError("no such folder (the paper's released results)", folder)
    return folder


def load_published(folder: str | Path) -> PublishedResults:
    """Every aggregate and switch group in ``folder`` (a folder with neither is an InputError); hidden files (a
    name starting with ``.``) are not read."""
    folder = Path(folder)
    sets = {}
    # The suffix is matched ignoring case, as a predictions folder matches `.JSONL` (case 311): a file saved as
    # `x_Aggregate.JSON` was not read and not named, its set missing from the listing without a word.
    for path in sorted(f for f in folder.iterdir() if f.name.lower().endswith(AGGREGATE_SUFFIX)):
        if path.name.startswith("."):
            # hidden, as a predictions folder skips them (case 21): a copy from a Mac holds `._x_aggregate.json`
            # (binary metadata) beside each file, which refused the whole release as "not a JSON file"
            continue
        s = _published_set(path, _read(path))
        if s.name in sets:
            raise InputError(f"two aggregate files for set {s.name!r}: {sets[s.name].path.name} and {path.name}",
                             folder)
        sets[s.name] = s
    switches = {}
    # Its name matched ignoring case as the aggregates' suffix is (case 311): `Ortho_Switch.JSON` was not read and
    # not named, the switch groups missing from the listing without a word (case 340); hidden copies skipped.
    found = sorted(f for f in folder.iterdir() if f.name.lower() == SWITCH_FILE and f.is_file())
    if len(found) > 1:
        raise InputError(f"two switch files, {' and '.join(f.name for f in found)}: a release has one {SWITCH_FILE}; "
                         "remove the copy", folder)
    for switch_file in found:
        for name, group in _read(switch_file).items():
            switches[name] = _switch_group(switch_file, name, group)
    if not sets and not switches:
        raise InputError(f"no *{AGGREGATE_SUFFIX} or {SWITCH_FILE} here: not the paper's released results", folder)
    return PublishedResults(folder, sets, switches)


def _read(path: Path) -> dict:
    data = json_document(path)  # a key twice, a number of 5,000 digits, nesting 100,000 deep: one line each
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", path)
    return data


def _field(obj: Any, key: str, kind: type | tuple, path: Path, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise InputError(f"{where}: missing field {key!r}", path)
    value = obj[key]
    numeric = kind is int or (isinstance(kind, tuple) and int in kind)
    if (numeric and isinstance(value, bool)) or not isinstance(value, kind):  # true is no count, rate or share
        raise InputError(f"{where}: field {key!r} has the wrong type ({type(value).__name__})", path)
    return value


def _count(obj: Any, key: str, path: Path, where: str) -> int:
    """A released count: an integer of at least 0 (a negative one failed inside the Wilson interval)."""
    value = _field(obj, key, int, path, where)
    if value < 0:
        raise InputError(f"{where}: {key} is a count, got {value}", path)
    if value > MAX_COUNT:  # past a float's whole numbers: the Wilson interval was an OverflowError traceback
        raise InputError(f"{where}: {key} is a count of {len(str(value))} digits, more than any release holds (a "
                         "damaged file?)", path)
    return value


def _number(obj: Any, key: str, path: Path, where: str, low: float = 0.0, high: float = 1.0,
            open_ends: bool = False) -> float:
    """A released number in [low, high] (``open_ends``: strictly between them): a rate, an interval bound, a
    share.  JSON as Python reads it takes ``NaN`` and ``Infinity``, and a copy edited by hand can hold 1.7 or -3;
    each was printed as released (``nan%``, ``-300.00%``, ``chance nan``) beside the recomputed numbers."""
    value = float(_field(obj, key, (int, float), path, where))
    inside = low < value < high if open_ends else low <= value <= high
    if not (inside and math.isfinite(value)):  # NaN fails both comparisons
        span = f"({low:g}, {high:g})" if open_ends else f"[{low:g}, {high:g}]"
        raise InputError(f"{where}: {key} must be a number in {span}, got {value!r}", path)
    return value


SPACE_AT_AN_END = ("a name with a space at an end: the names an audit compares it with have none, so it would "
                   "match nothing")


def _no_space_at_an_end(name: str, what: str, path: Path) -> None:
    """A released name is compared as written with an audit's corpus, panel, arms and models.  ``"a "`` for
    ``a`` (a hand edit, a spreadsheet's cell) matched nothing, and the note said so in words that differ only by
    the space: ``panel a , b, not a, b`` (case 346)."""
    if name != name.strip():
        raise InputError(f"{what} {name!r}, {SPACE_AT_AN_END}", path)


def _name(obj: Any, key: str, path: Path, where: str) -> str:
    """A released name (a set's ``dataset``, a row's ``model``): text with something in it.  An empty one was
    printed as released (``tiny:  (en, test)``, a model row with no name) and matched nothing an audit runs."""
    value = _field(obj, key, str, path, where)
    if not value.strip():
        raise InputError(f"{where}: {key} is {value!r}, no name: every row and set of the release is named", path)
    _no_space_at_an_end(value, f"{where}: {key} is", path)
    return value


def _label(obj: Any, key: str, path: Path, where: str) -> str:
    """A released label the release may leave out (a set's ``language`` and ``split``, a group's ``scope``): text,
    or ``""`` when absent.  ``null``, a number or a list was read through ``str()`` and printed as released
    (``tiny (None, test)``, ``g: None; chance 0.5``), a scope of ``null`` naming no corpus (case 339)."""
    value = obj.get(key, "") if isinstance(obj, dict) else ""
    if not isinstance(value, str):
        raise InputError(f"{where}: {key} is {value!r} ({type(value).__name__}), not text: the release writes it as "
                         "a JSON string", path)
    return value


def _names(obj: Any, key: str, path: Path, where: str) -> tuple[str, ...]:
    """A released list of names (a panel, a group's arms): every item text.  A number among them stopped the
    listing with ``TypeError: sequence item 1: expected str instance, int found``, a traceback; an empty name
    was printed as a member of nothing (``panel a, ``)."""
    items = _field(obj, key, list, path, where)
    for i, item in enumerate(items, start=1):
        if not isinstance(item, str):
            raise InputError(f"{where}: {key}[{i}] is {item!r} ({type(item).__name__}), not a name: the release "
                             "writes names as JSON strings", path)
        if not item.strip():
            raise InputError(f"{where}: {key}[{i}] is {item!r}, no name: the release names every member", path)
        _no_space_at_an_end(item, f"{where}: {key}[{i}] is", path)
    return tuple(items)


def _in_panel(r: Any, panel: tuple[str, ...], path: Path, where: str) -> bool:
    """A row's ``in_whitelist``: a JSON boolean that agrees with the set's whitelist (as every row of the release
    does).  ``"false"`` written as text was read with ``bool()`` as true: a model outside the panel listed as a
    member, silently; a row pasted from another set carries the other set's flag."""
    member = _field(r, "model", str, path, where) in panel
    value = r.get("in_whitelist", member) if isinstance(r, dict) else member
    if not isinstance(value, bool):
        raise InputError(f"{where}: in_whitelist must be true or false, got {value!r} ({type(value).__name__})",
                         path)
    if value != member:
        raise InputError(f"{where}: in_whitelist is {str(value).lower()}, but model {r['model']!r} is "
                         f"{'' if member else 'not '}in the whitelist {list(panel)}", path)
    return value


def _leaderboard_row(r: Any, path: Path, where: str, panel: tuple[str, ...] = ()) -> PublishedAcceptRef:
    """One model's released counts, which must add up: its ref and audio verdicts are among its eligible runs.

    A rate recomputed from counts that do not add up (a copy edited by hand, a file cut and pasted) would be
    printed beside the published rate as if one of them were wrong."""
    ref, audio, eligible = (_count(r, key, path, where) for key in ("accepted_ref", "followed_consensus",
                                                                     "eligible_runs"))
    if ref + audio > eligible:
        raise InputError(f"{where}: accepted_ref {ref} + followed_consensus {audio} exceed eligible_runs {eligible}",
                         path)
    published = _number(r, "benchmaxx_score", path, where)
    if ref + audio and not abs(published - ref / (ref + audio)) <= RATE_ROUNDING:
        raise InputError(f"{where}: benchmaxx_score {published} is not its counts' rate: accepted_ref {ref} of "
                         f"{ref + audio} verdicts is {ref / (ref + audio):.4f}", path)
    return PublishedAcceptRef(_name(r, "model", path, where), _in_panel(r, panel, path, where), ref, audio,
                              eligible, published)


def _run_length(p: Any, path: Path) -> int:
    """The miner's ``min_run_len``: a run of at least one word, as ``refdis --min-run-len`` takes it.  0 was
    printed as released (``min_run_len 0``), settings no miner runs under."""
    value = _count(p, "min_run_len", path, "params")
    if value < 1:
        raise InputError(f"params: min_run_len is {value}: a run is at least 1 word long (refdis --min-run-len "
                         "takes 1 or more)", path)
    return value


def _published_set(path: Path, d: dict) -> PublishedSet:
    name = path.name[: -len(AGGREGATE_SUFFIX)]
    p = _field(d, "params", dict, path, name)
    settings = MinerSettings(
        _number(p, "majority_pct", path, "params"),
        _run_length(p, path),
        _field(p, "include_middle", bool, path, "params"),
        _number(p, "min_ref_match_pct", path, "params"),
        _number(p, "min_consensus_cer", path, "params", high=float("inf")),
    )
    prominence = _field(d, "prominence", dict, path, name)
    clips, edits = (_count(prominence, key, path, "prominence") for key in ("clips_analyzed", "n_runs"))
    if edits and not clips:  # read as released and drawn beside an audit's set: edits on 0 clips (case 342)
        raise InputError(f"prominence: n_runs is {edits} but clips_analyzed is 0: edits are mined from the clips "
                         "analyzed, so a set with edits analyzed some (a damaged file?)", path)
    panel = _names(d, "whitelist", path, name)
    if not panel:  # printed "panel " with nothing after it: the set's edits are the panel's votes
        raise InputError(f"{name}: whitelist is empty: a set's edits are mined from its panel's votes, so every set "
                         "names its panel", path)
    twice = next((m for i, m in enumerate(panel) if m in panel[:i]), None)
    if twice is not None:  # "panel a, a": a panel of one shown as two, as `refdis --panel m0,m0` was (case 18)
        raise InputError(f"{name}: whitelist names {twice!r} more than once: each panel member votes once", path)
    rows, first_row = [], {}
    for i, r in enumerate(_field(d, "benchmaxx_leaderboard", list, path, name), start=1):
        row = _leaderboard_row(r, path, f"benchmaxx_leaderboard[{i}]", panel)
        if row.eligible > edits:  # a row pasted from a larger set: its interval drawn from verdicts this set lacks
            raise InputError(f"benchmaxx_leaderboard[{i}]: eligible_runs {row.eligible} exceed the set's edits "
                             f"(prominence n_runs {edits}): a model is judged on the set's edits at most once each "
                             "(a row from another set?)", path)
        if row.model in first_row:  # two count sets for one model: which one the paper meant is unknowable
            raise InputError(f"benchmaxx_leaderboard[{i}]: model {row.model!r} is listed again "
                             f"(first at benchmaxx_leaderboard[{first_row[row.model]}])", path)
        first_row[row.model] = i
        rows.append(row)
    return PublishedSet(name, path, _name(d, "dataset", path, name), _label(d, "language", path, name),
                        _label(d, "split", path, name), panel, settings,
                        clips, edits, tuple(rows))


def _arm(a: Any, path: Path, where: str) -> PublishedArm:
    hits, n = _count(a, "hits", path, where), _count(a, "n", path, where)
    if hits > n:
        raise InputError(f"{where}: hits {hits} exceed n {n}", path)
    return PublishedArm(hits, n)


def _group_arms(g: Any, path: Path, name: str) -> tuple[str, ...]:
    """A switch group's arms: two or more names, none twice (a rate is a minimum over them, chance 1/arms)."""
    arms = _names(g, "arms", path, name)
    if len(arms) < 2 or len(set(arms)) != len(arms):
        raise InputError(f"{name}: arms {list(arms)} are not two or more distinct arms: a switch rate is the minimum "
                         "over a group's arms", path)
    return arms


def _row_arms(arms: dict, group_arms: tuple[str, ...], limiting: str, switch: float, path: Path,
              where: str) -> None:
    """A row's arms are its group's, and its limiting arm is the lowest of them.  A row without one of the
    group's arms (an arm lost in an edit, a row pasted from a group of other arms) had its minimum taken over
    the arms it had: a one-arm row's "switch rate" is that arm's hit rate, a fixed habit's near 1, drawn
    beside the audit's as the group's; an arm of another group lowered the minimum under a chance of 1/arms."""
    if set(arms) != set(group_arms):
        missing = [a for a in group_arms if a not in arms]
        extra = [a for a in arms if a not in group_arms]
        what = "; ".join(part for part in (f"no {', '.join(map(repr, missing))}" if missing else "",
                                           f"{', '.join(map(repr, extra))} is not one of them" if extra else "")
                         if part)
        raise InputError(f"{where}: arms {list(arms)} are not the group's arms {list(group_arms)} ({what}): a "
                         "switch rate is the minimum over the group's arms, so this row's is not the group's rate",
                         path)
    if limiting not in arms:
        raise InputError(f"{where}: limiting_arm {limiting!r} is not one of the group's arms {list(group_arms)}",
                         path)
    arm = arms[limiting]
    if arm.n and not abs(arm.hits / arm.n - switch) <= RATE_ROUNDING:
        raise InputError(f"{where}: limiting_arm {limiting!r} has hits/n {arm.hits}/{arm.n} = "
                         f"{arm.hits / arm.n:.4f}, not the switch {switch}: the limiting arm is the lowest", path)


CHANCE_ROUNDING = 0.005 + 1e-12  # a chance written to two decimals (0.33 for three arms) is still 1/arms


def _chance(g: Any, arms: tuple[str, ...], path: Path, name: str) -> float:
    """A group's chance: what a model picking among its arms at random scores, 1/arms (every group of the real
    release writes it so).  Another value (0.3 for two arms) was printed over the group's rows as the level to
    read them against, while the arms said otherwise (case 344)."""
    chance = _number(g, "chance", path, name, open_ends=True)
    if not abs(chance - 1 / len(arms)) <= CHANCE_ROUNDING:
        raise InputError(f"{name}: chance {chance} is not 1/{len(arms)} ({1 / len(arms):.4g}), a random pick among "
                         f"the group's {len(arms)} arms {list(arms)}", path)
    return chance


def _min_per_arm(g: Any, path: Path, name: str) -> int:
    """The clips an arm needs to enter a switch rate: 1 or more, as ``conventions --min-per-arm`` takes it.  0 let
    in an arm of no clips (a rate of 0/0) and was shown as the group's setting, one no probe runs under (case 345)."""
    value = _count(g, "min_per_arm", path, name)
    if value < 1:
        raise InputError(f"{name}: min_per_arm is {value}: an arm enters a switch rate on at least 1 clip "
                         "(conventions --min-per-arm takes 1 or more)", path)
    return value


def _switch_group(path: Path, name: str, g: Any) -> PublishedSwitchGroup:
    rows = []
    group_arms = _group_arms(g, path, name)
    for model, r in _field(g, "results", dict, path, name).items():
        where = f"{name}.results.{model}"
        if not model.strip():  # a row of no model: printed with an empty name, matched by no audit's model
            raise InputError(f"{name}.results: a row is keyed {model!r}, no model name", path)
        _no_space_at_an_end(model, f"{name}.results: a row is keyed", path)
        arms = {arm: _arm(a, path, f"{where}.{arm}") for arm, a in _field(r, "arms", dict, path, where).items()}
        switch = _number(r, "switch", path, where)
        rates = [a.hits / a.n for a in arms.values() if a.n]
        if rates and not abs(switch - min(rates)) <= RATE_ROUNDING:
            raise InputError(f"{where}: switch {switch} is not its arms' rate: the lowest arm's hits/n is "
                             f"{min(rates):.4f}", path)
        low, high = _number(r, "lo", path, where), _number(r, "hi", path, where)
        if low > high:
            raise InputError(f"{where}: lo {low} exceeds hi {high}: not an interval", path)
        # the rate is released rounded to four decimals, its bounds are not: the release's rounding is allowed
        if not low - RATE_ROUNDING <= switch <= high + RATE_ROUNDING:
            raise InputError(f"{where}: switch {switch} lies outside its interval [lo {low}, hi {high}]", path)
        limiting = _field(r, "limiting_arm", str, path, where)
        _row_arms(arms, group_arms, limiting, switch, path, where)
        rows.append(PublishedSwitch(model, arms, limiting, switch, low, high))
    scope = _label(g, "scope", path, name)
    return PublishedSwitchGroup(name, path, scope, group_arms, _chance(g, group_arms, path, name),
                                _min_per_arm(g, path, name), tuple(rows),
                                scope_corpora(scope), scope_families(scope))
