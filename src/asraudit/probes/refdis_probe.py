"""The reference-error recipe, once: clips -> mine (or diff a correction) -> accept-ref -> breakdowns -> WER cost.

``asraudit refdis``, the audit's mining stage and the mechanism readout all
call :func:`measure_refdis` and only render what it returns, so a change to
the recipe (a new breakdown, another interval) reaches every front end at
once and the numbers they print cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from asraudit.arguments import names as name_list, once_each
from asraudit.bulk import builds_in_bulk
from asraudit.data.group_values import MISSING_GROUP, MixedSpellings, group_label
from asraudit.data.predictions import PredictionSet, load_predictions, no_shared_clips
from asraudit.errors import InputError
from asraudit.metrics.normalized_cache import NormalizedCache
from asraudit.metrics.scorers import counts_argument
from asraudit.metrics.wer import ClipCounts, clip_counts
from asraudit.metrics.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, check_resampling_args
from asraudit.probes.corrected import corrected_references, edits_from_corrections
from asraudit.probes.inflation import WerCost, wer_cost
from asraudit.probes.refdis import KINDS, POSITIONS, ClipInput, MinerParams, MiningResult, mine
from asraudit.probes.refdis_score import AcceptRef, accept_ref, accept_ref_tables, breakdown
from asraudit.probes.refdis_params import checked_params, distinct_panel
from asraudit.text.normalize import normalizer_argument

RefdisParams = MinerParams  # the probe's knobs: one frozen dataclass, its defaults argued in probes/refdis.py


@dataclass(frozen=True)
class RefdisResult:
    """Everything the reference-error probe measures, for every scored model."""

    mining: MiningResult                              # edits with every scored model's verdict
    clips: tuple[ClipInput, ...]                      # the normalized inputs (reused by tables and the report)
    scored: tuple[str, ...]
    accept_ref: dict[str, AcceptRef]                  # model -> accept-ref over all edits
    by_kind: dict[str, dict[str, AcceptRef]]          # kind -> model -> accept-ref
    by_position: dict[str, dict[str, AcceptRef]]      # position -> model -> accept-ref
    by_group: dict[str, dict[str, AcceptRef]]         # group value -> model -> accept-ref (empty without groups)
    corrected: dict[str, tuple[str, ...]]             # clip -> corrected reference tokens
    cost: dict[str, WerCost]                          # model -> WER original / corrected / gained

    @property
    def edits(self):
        return self.mining.edits


def clip_inputs(references: Mapping[str, str | None], transcripts: Mapping[str, Mapping[str, str]],
                normalize: Callable[[str], str], models: Sequence[str] | None = None) -> list[ClipInput]:
    """Normalized, tokenized clips from raw texts: ``references`` clip -> text, ``transcripts`` model -> clip -> text.

    Clips keep the order of ``references``; a clip no named model ran is left out."""
    for arg, value in (("references", references), ("transcripts", transcripts)):
        if not isinstance(value, Mapping):
            raise InputError(f"{arg} is a dict (clip id -> text{', per model' if arg == 'transcripts' else ''}), "
                             f"got {type(value).__name__}")
    normalize = normalizer_argument(normalize, "normalize")
    names = name_list(models, "models") if models is not None else list(transcripts)
    if models is not None and not names:  # every clip left out: no clip, found only by what it is given to
        raise InputError("models is empty: name the models whose transcripts to take, or give None for every "
                         "model of transcripts")
    missing = [m for m in names if m not in transcripts]
    if missing:
        raise InputError(f"models names {', '.join(missing)}, which transcripts has no entry for; it has "
                         f"{', '.join(map(str, transcripts)) or 'none'}")
    for m in names:
        if not isinstance(transcripts[m], Mapping) and type(transcripts[m]).__name__ != "Series":
            raise InputError(f"transcripts[{m!r}] is a {type(transcripts[m]).__name__}, not a dict of clip id -> text: "
                             "transcripts maps each model to its texts keyed by clip id")
    out = []
    try:
        for cid, ref in references.items():
            hyps = {m: tuple(normalize(transcripts[m][cid]).split()) for m in names if cid in transcripts[m]}
            if hyps:
                out.append(ClipInput(cid, tuple(normalize(ref or "").split()), hyps))
    except TypeError:  # a text that is not one (None, a NaN, a number): say which, at no cost to the loop
        _raise_for_a_text_that_is_not_one(references, transcripts, names)
        raise
    _require_shared_ids(references, transcripts, names, out)
    return out


def _first_keys(keys: Iterable) -> str:
    shown = []
    for key in keys:
        if len(shown) == 3:
            return ", ".join(shown) + ", ..."
        shown.append(repr(key))
    return ", ".join(shown) or "none"


def _require_shared_ids(references: Mapping, transcripts: Mapping, names: Sequence[str],
                        clips: Sequence[ClipInput]) -> None:
    """Every named model with texts has one for some clip of ``references``.  Keyed apart (a pandas index 0, 1,
    ... on one side and clip ids on the other, a list or a Series of texts with a default index, ids spelled
    two ways) no clip matched: the clips came back empty, or without that model, and the miner mined nothing
    from them and scored it on nothing, with no error."""
    seen: set = set()
    for clip in clips:
        seen.update(clip.hyps)
        if len(seen) == len(names):
            return
    for m in names:
        if m not in seen and len(transcripts[m]):
            keys = transcripts[m].index if type(transcripts[m]).__name__ == "Series" else transcripts[m]
            raise InputError(f"transcripts[{m!r}] shares no clip id with references (transcripts[{m!r}]: "
                             f"{_first_keys(keys)}; references: {_first_keys(references)}): key both by the "
                             "same clip ids")


def _raise_for_a_text_that_is_not_one(references: Mapping, transcripts: Mapping, names: Sequence[str]) -> None:
    for cid, ref in references.items():
        if ref is not None and not isinstance(ref, str):
            raise InputError(f"references[{cid!r}] is {ref!r}, not a text: give each clip a str (None: no reference)")
    for m in names:
        for cid, text in transcripts[m].items():
            if cid in references and not isinstance(text, str):
                raise InputError(f"transcripts[{m!r}][{cid!r}] is {text!r}, not a text: give each clip a str")


def _clip_inputs_argument(clips: object) -> tuple[ClipInput, ...]:
    """``measure_refdis``'s clips: ClipInput items, as :func:`clip_inputs` builds them.  Raw texts (a dict of
    clip id -> text, or strings) failed deep in the miner with ``'str' object has no attribute 'hyps'``."""
    if isinstance(clips, (str, bytes, Mapping)) or not isinstance(clips, Iterable):
        raise InputError(f"clips is a list of ClipInput (clip_inputs builds them from raw texts), got "
                         f"{type(clips).__name__}")
    clips = tuple(clips)
    if not clips:  # the mining and every table came back empty, every WER NaN, with no error
        raise InputError("clips is empty, so there is nothing to mine or score: clip_inputs keeps a clip only where "
                         "a model it names has a transcript of it; give it the texts the models ran")
    for i, clip in enumerate(clips):
        if not isinstance(clip, ClipInput):
            raise InputError(f"clips[{i}] is a {type(clip).__name__}, not a ClipInput: clip_inputs builds them "
                             "from raw texts")
    once_each([clip.clip_id for clip in clips], "clips")
    return clips


def _require_transcripts(clips: Sequence[ClipInput], panel: list[str]) -> None:
    """Every panel member has a transcript of some clip: a member named wrong (``"Whisper-tiny.en"``, a typo)
    voted on nothing, and the panel silently mined with one voter fewer (or no edit at all)."""
    seen: dict[str, None] = {}
    for clip in clips:
        seen.update(dict.fromkeys(clip.hyps))
        if len(seen) >= len(panel) and all(m in seen for m in panel):
            break
    missing = [m for m in panel if m not in seen]
    if missing and clips:
        raise InputError(f"the panel names {', '.join(missing)}, which no clip has a transcript of; the clips have "
                         f"transcripts of {', '.join(seen)}")
    _require_shared_clips(clips, panel)


def _require_shared_clips(clips: Sequence[ClipInput], panel: list[str]) -> None:
    """Every two panel members ran a clip in common: transcripts keyed by clip ids spelled two ways (two
    machines' paths) made every clip one member's, and the panel mined nothing, silently (fault case 116)."""
    pairs = {(a, b) for i, a in enumerate(panel) for b in panel[i + 1:]}
    if not pairs:  # a panel of fewer than two: the miner says how many it needs
        return
    first: dict[str, str] = {}
    for clip in clips:
        ran = [m for m in panel if m in clip.hyps]
        for m in ran:
            first.setdefault(m, clip.clip_id)
        pairs.difference_update((a, b) for i, a in enumerate(ran) for b in ran[i + 1:])
        if not pairs:
            return
    a, b = min(pairs, key=lambda p: (panel.index(p[0]), panel.index(p[1])))
    if a in first and b in first:
        raise no_shared_clips((a, first[a]), (b, first[b]), "the panel's vote")


def _require_scored_transcripts(clips: Sequence[ClipInput], scored: Sequence[str], ran_nothing: Sequence[str]) -> None:
    """Every scored model has a transcript of some clip (or is known to have run none): a misspelt name
    (``"Whisper-tiny.en"``) got an accept-ref over no edit and a WER over no clip, with no error, where the
    panel's check (``_require_transcripts``) refuses the same misspelling in the panel."""
    wanted = [m for m in scored if m not in ran_nothing]
    seen: set[str] = set()
    for clip in clips:
        seen.update(clip.hyps)
        if all(m in seen for m in wanted):
            return
    missing = [m for m in wanted if m not in seen]
    if missing and clips:
        raise InputError(f"scored names {', '.join(missing)}, which no clip has a transcript of; the clips have "
                         f"transcripts of {', '.join(sorted(seen))}")


def _corrected_tokens(cid: str, value: object) -> tuple[str, ...]:
    """One clip's corrected tokens, checked, as the tuple of str the recipe reads (``corrections[cid]``).

    Every corrected token is one word, as the clips' reference tokens are (``normalize(text).split()``).  The
    whole corrected text as one token (``[text]``, not split) was diffed as one substitution of the clip's every
    word that no transcript's tokens could ever equal: the human correction's edits read as echoed by every model
    (accept-ref 1.0 where it was 0.0) and the corrected WER as 10.0, silently; an empty token the same.  The tokens
    are in order: a set (hash order, one of each repeated word) is refused; any other iterable (a generator, a
    numpy array of str) is read once into a tuple.  Passed on as given, a set, a generator or an array was a
    ``TypeError`` or ``ValueError`` from inside the WER cost, once the edits were made."""
    if isinstance(value, (set, frozenset)):
        raise InputError(f"corrections[{cid!r}] is a {type(value).__name__}, whose order is its hash's and which "
                         "keeps one of each repeated word: the corrected reference's tokens go in order, a list "
                         "(normalize(text).split())")
    tokens = [str(t) for t in name_list(value, f"corrections[{cid!r}]", "tokens (the corrected reference, split)")]
    for i, token in enumerate(tokens):
        if token.split() != [token]:
            what = "an empty token" if not token.strip() else f"{token[:60]!r}, not one word"
            raise InputError(f"corrections[{cid!r}][{i}] is {what}: corrections[{cid!r}] is the corrected reference's "
                             "tokens, split as the clips' references are (normalize(text).split())")
    return tuple(tokens)


def _require_corrected_clips(corrections: Mapping, clips: Sequence[ClipInput]) -> None:
    """``corrections`` names some clip of ``clips``: keyed otherwise (a frame's row numbers, ids spelled another
    way) no reference was corrected, and the result was no edit and every model's accept-ref over none, with no
    error, where ``refdis --corrected`` refuses a file that corrects no clip."""
    ids = {clip.clip_id for clip in clips}
    if corrections and clips and not any(cid in ids for cid in corrections):
        raise InputError(f"corrections names no clip of clips (corrections: {_first_keys(corrections)}; clips: "
                         f"{_first_keys(clip.clip_id for clip in clips)}): key it by the clips' ids")


def _group_labels(groups: Mapping, clips: Sequence[ClipInput]) -> dict[str, str]:
    """clip -> its group, by the rule of the command line and the audit (``data.group_values.group_label``): NaN,
    None and the empty value are ``(none)``, as is a clip ``groups`` does not name; ``3.0`` is group ``3``.  A
    NaN per clip was one group per clip (NaN is not equal to itself) and every edit of it fell out of them; a clip
    missing from ``groups`` fell out of every group; a list was a TypeError after the mining."""
    for cid, value in groups.items():
        if isinstance(value, (list, tuple, set, dict)):
            raise InputError(f"groups[{cid!r}] is a {type(value).__name__}, not one value: groups maps each clip id "
                             f"to its group's label")
    labels = {str(cid): group_label(value, "groups", None, None) for cid, value in groups.items()}
    mixed = MixedSpellings("groups")  # a group 1 and a group "1": one or two (case 316)
    for cid, value in groups.items():
        mixed.add(labels[str(cid)], value, None, None, str(cid))
    return {clip.clip_id: labels.get(clip.clip_id, MISSING_GROUP) for clip in clips}


@builds_in_bulk
def measure_refdis(clips: Sequence[ClipInput], panel: Sequence[str], params: MinerParams = MinerParams(), *,
                   scored: Sequence[str], corrections: Mapping[str, tuple[str, ...]] | None = None,
                   groups: Mapping[str, str] | None = None, n_boot: int = DEFAULT_BOOTSTRAP,
                   accept_ref_boot: int | None = None, seed: int = DEFAULT_SEED,
                   counts: Callable[[Sequence[str], Sequence[str]], ClipCounts] = clip_counts,
                   ran_nothing: Sequence[str] = ()) -> RefdisResult:
    """Mine the panel's edits (or diff ``corrections``, clip -> corrected tokens) and score ``scored`` on them.

    ``n_boot`` resamples clips for the WER intervals; ``accept_ref_boot`` (default ``n_boot``) for accept-ref's
    clip-bootstrap interval (0: Wilson only).  ``groups`` (clip -> value) adds accept-ref per value (NaN, None and a clip it
    does not name: ``(none)``).
    ``counts`` counts word errors for the WER figures (a scorer's, ``metrics.scorers``).  A scored model no clip
    has a transcript of is refused (a misspelt name was scored on nothing, with no error), unless it is named in
    ``ran_nothing`` (a model known to have run no clip: an empty prediction file)."""
    check_resampling_args(n_boot=n_boot, accept_ref_boot=accept_ref_boot, seed=seed,
                          none_means={"accept_ref_boot": "n_boot"})
    checked_params(params)
    counts = counts_argument(counts)
    panel = distinct_panel(panel)
    scored = tuple(name_list(scored, "scored"))
    clips = _clip_inputs_argument(clips)
    if not scored:  # the panel's edits mined for no one: every table empty, silently
        raise InputError("scored is empty: name the models to score on the edits (the panel's members too, "
                         "scored leave-one-out)")
    for arg, value in (("corrections", corrections), ("groups", groups)):
        if value is not None and not isinstance(value, Mapping):
            raise InputError(f"{arg} is a dict keyed by clip id, got {type(value).__name__}")
    _require_scored_transcripts(clips, scored, name_list(ran_nothing, "ran_nothing"))
    labels = _group_labels(groups, clips) if groups is not None else None  # before the mining
    if corrections is not None:
        # one string would be diffed character by character; a generator read twice is empty the second time
        corrections = {cid: _corrected_tokens(cid, tokens) for cid, tokens in corrections.items()}
        _require_corrected_clips(corrections, clips)
        result = edits_from_corrections(clips, corrections, list(scored))
    else:
        _require_transcripts(clips, panel)
        result = mine(clips, panel, params, scored=list(scored))
    boot = n_boot if accept_ref_boot is None else accept_ref_boot
    # accept-ref overall, by kind and by position from one reading of the verdicts (the clip bootstrap, when
    # asked for, needs accept_ref's per-clip counts)
    scores, (by_kind, by_position) = accept_ref_tables(result.edits, scored, [(lambda e: e.kind, KINDS),
                                                                             (lambda e: e.position, POSITIONS)])
    if boot > 0:
        scores = accept_ref(result.edits, scored, n_boot=boot, seed=seed)
    by_group: dict[str, dict[str, AcceptRef]] = {}
    if labels is not None:
        by_group = breakdown(result.edits, scored, lambda e: labels.get(e.clip_id, MISSING_GROUP),
                             list(dict.fromkeys(labels.values())))
    fixed = corrected_references(result, corrections)
    cost = wer_cost(clips, fixed, result.edits, scored, n_boot=n_boot, seed=seed, counts=counts)
    return RefdisResult(result, clips, scored, scores, by_kind, by_position, by_group, fixed, cost)


def accept_ref_from_predictions(preds: PredictionSet | str | Path | Sequence[str | Path], panel: Sequence[str],
                                params: MinerParams = MinerParams(), *, models: Sequence[str] | None = None,
                                normalizer: str | Callable[[str], str] = "whisper", n_boot: int = DEFAULT_BOOTSTRAP,
                                accept_ref_boot: int = 0, seed: int = DEFAULT_SEED) -> RefdisResult:
    """Mine ``panel``'s edits in prediction files and score ``models`` (default: every model) on them.

    The text-only path of ``asraudit refdis`` for a notebook: the same clips
    (:func:`clip_inputs`), the same recipe (:func:`measure_refdis`) and the
    same defaults, so its numbers are the command's.  ``preds`` is a loaded
    :class:`PredictionSet` or what :func:`load_predictions` reads (a folder of
    files, one per model, or the files).  ``accept_ref_boot`` is 0 (Wilson
    interval only) as in the command without ``--cluster-bootstrap``: edits
    in one clip are not independent, and the clip bootstrap that says so costs
    ``accept_ref_boot`` resamples.  Panel members are scored leave-one-out; a member whose prediction file is
    empty is left out of the panel (it has no vote; ``preds.warnings`` names it), as the command leaves it out."""
    check_resampling_args(n_boot=n_boot, accept_ref_boot=accept_ref_boot, seed=seed,
                          none_means={"accept_ref_boot": "n_boot"})  # before any file is read
    checked_params(params)
    normalize = NormalizedCache(normalizer_argument(normalizer))
    panel = distinct_panel(panel)
    models = name_list(models, "models") if models is not None else None
    if models == []:  # the edits mined and no model scored on them: an empty result, silently
        raise InputError("models is empty: name the models to score, or give None to score every model")
    pset = preds if isinstance(preds, PredictionSet) else load_predictions(preds)
    scored = models if models is not None else pset.model_names
    pset.require_models(panel + scored)
    pset.require_some_rows(list(dict.fromkeys(panel + scored)))
    panel = pset.models_with_rows(panel)  # an empty file (pset.warnings says so) casts no vote, as in the command
    pset.require_shared_clips(panel, scored)
    names = list(dict.fromkeys(panel + scored))
    transcripts = {m: {cid: p.hypothesis for cid, p in pset.models[m].rows.items()} for m in names}
    clips = clip_inputs(pset.references(), transcripts, normalize, names)
    return measure_refdis(clips, panel, params, scored=scored, n_boot=n_boot, accept_ref_boot=accept_ref_boot,
                          seed=seed, ran_nothing=[m for m in scored if not len(pset.models[m])])
