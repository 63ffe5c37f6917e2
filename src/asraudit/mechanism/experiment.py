"""Intervention experiments through the job grid, and their readout.

An experiment is a list of *variants* of one white-box model: the baseline
(no intervention), the interventions, and their controls (a random
direction of the same norm or rank).  Each variant is a model id with its
own config hash, so the executor stores every transcript once and a rerun
or a killed run costs nothing already done.

The readout compares each variant with the baseline on the same clips:

* transcripts changed (how many clips the intervention touched at all);
* WER against the references, with its clip-bootstrap interval;
* accept-ref on the panel's edits (when a panel of prediction files is
  given): each variant's verdicts come from the same edits the panel mines,
  so the rates are comparable; with Wilson intervals and the change
  relative to the baseline.  A control's row sits next to its
  intervention's: an effect the control also has is not the direction's.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from asraudit.audio.conditions import Noise, Silence, SpanMask
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.io import load_audio
from asraudit.data.corpus import Clip
from asraudit.data.predictions import PredictionSet
from asraudit.errors import InputError
from asraudit.mechanism.paired import PairedDelta, paired_deltas
from asraudit.metrics.stats import DEFAULT_SEED, json_number
from asraudit.metrics.wer import CorpusScore, corpus_wer
from asraudit.models.whitebox.frames import FixedAudio
from asraudit.probes.refdis import ClipInput, Edit, MinerParams
from asraudit.probes.refdis_probe import clip_inputs, measure_refdis
from asraudit.probes.refdis_score import AcceptRef
from asraudit.run.executor import LocalExecutor
from asraudit.run.prediction_files import stored_transcripts as run_stored
from asraudit.run.spec import Transcribe
from asraudit.run.store import ResultStore
from asraudit.text.normalize import get_normalizer

ROLES = ("baseline", "intervention", "control")


@dataclass(frozen=True)
class Variant:
    """One arm of an experiment: a label for the tables, its role, and the model."""

    label: str
    role: str
    model: object  # a WhiteboxWhisper (or any ASRModel)
    control_of: str | None = None

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"variant role must be one of {ROLES}, got {self.role!r}")


@dataclass
class VariantReadout:
    label: str
    role: str
    model_id: str
    config_hash: str
    n_clips: int
    changed: int
    wer: CorpusScore | None
    accept: AcceptRef | None
    control_of: str | None = None

    def relative_change(self, baseline: "VariantReadout") -> float:
        """accept-ref relative to the baseline's: (rate - base) / base; NaN when undefined."""
        if self.accept is None or baseline.accept is None:
            return float("nan")
        base = baseline.accept.rate
        if base != base or base == 0 or self.accept.rate != self.accept.rate:
            return float("nan")
        return (self.accept.rate - base) / base

    def accept_difference(self, baseline: "VariantReadout") -> float:
        """accept-ref minus the baseline's (a fraction; NaN when either is undefined)."""
        if self.accept is None or baseline.accept is None:
            return float("nan")
        return self.accept.rate - baseline.accept.rate

    def to_json(self, baseline: "VariantReadout | None" = None) -> dict:
        out = {
            "label": self.label,
            "role": self.role,
            "model_id": self.model_id,
            "config_hash": self.config_hash,
            "control_of": self.control_of,
            "n_clips": self.n_clips,
            "changed_vs_baseline": self.changed,
            "wer": None if self.wer is None else {
                "rate": json_number(self.wer.rate), "rate_interval": self.wer.interval.to_json(),
                "ref_words": self.wer.ref_units,
            },
            "accept_ref": None if self.accept is None else self.accept.to_json(),
        }
        if baseline is not None:
            change = self.relative_change(baseline)
            points = self.accept_difference(baseline)
            out["accept_ref_difference"] = None if points != points else points
            out["accept_ref_relative_change"] = None if change != change else change
        return out


def run_variants(store: ResultStore, variants: Sequence[Variant], clips: Sequence[Clip], *, batch_size: int = 8,
                 progress: bool = False, description: str = "mechanism experiment"):
    """Transcribe every clip with every variant (what the store already has is skipped)."""
    labels = [v.label for v in variants]
    if len(set(labels)) != len(labels):
        raise InputError(f"variant labels repeat: {labels}")
    keys = [(v.model.model_id, v.model.config_hash) for v in variants]
    if len(set(keys)) != len(keys):
        raise InputError("two variants are the same model configuration; they would share their results")
    return LocalExecutor(batch_size=batch_size, progress=progress).run(
        store, [v.model for v in variants], list(clips), Transcribe(), description=description
    )


def stored_transcripts(store: ResultStore, variant: Variant, clips: Sequence[Clip]) -> dict[str, str]:
    """clip id -> the variant's stored transcript (clips without a result are left out)."""
    found = run_stored(store, variant.model.model_id, variant.model.config_hash, (c.id for c in clips))
    return {cid: result.text or "" for cid, result in found.items()}


def panel_transcripts(panel: PredictionSet | Mapping[str, Mapping[str, str]] | None,
                      panel_models: Sequence[str]) -> dict[str, dict[str, str]]:
    """model -> clip -> raw transcript of the panel, from a PredictionSet or such a mapping."""
    if panel is None:
        return {}
    if isinstance(panel, PredictionSet):
        panel.require_models(panel_models)
        return {m: {cid: p.hypothesis for cid, p in panel.models[m].rows.items()} for m in panel_models}
    missing = [m for m in panel_models if m not in panel]
    if missing:
        raise InputError(f"no transcripts for panel model(s) {', '.join(missing)}")
    return {m: dict(panel[m]) for m in panel_models}


@dataclass(frozen=True)
class Readout:
    """An experiment's readout: one row per variant, the panel's edits with every variant's verdict, and the
    paired change of each variant against the baseline on those same edits."""

    variants: list[VariantReadout]
    edits: list[Edit]
    deltas: dict[str, PairedDelta]

    @property
    def baseline(self) -> VariantReadout:
        return next(r for r in self.variants if r.role == "baseline")


@dataclass(frozen=True)
class ReadoutParams:
    """Knobs of the mechanism readout (the audit fills them from its spec: normalizer, [refdis], bootstrap, seed)."""

    # WER and the panel's edits are read on normalized text, as the audit's mining stage reads them
    normalizer: str = "whisper"
    # the panel mines the edits every variant is judged on with the reference-error probe's own knobs
    miner: MinerParams = MinerParams()
    # clip-bootstrap resamples for WER, accept-ref and the paired change
    n_boot: int = 1000
    # seed of the paired change's bootstrap
    seed: int = 0


def measure_readout(store: ResultStore, variants: Sequence[Variant], clips: Sequence[Clip],
                    params: ReadoutParams = ReadoutParams(), *,
                    panel: PredictionSet | Mapping[str, Mapping[str, str]] | None = None,
                    panel_models: Sequence[str] = ()) -> Readout:
    """Per variant: clips changed vs the baseline, WER, accept-ref on the panel's edits (mined once, by the
    reference-error probe's one recipe), and the paired change against the baseline."""
    normalize = get_normalizer(params.normalizer)
    miner, n_boot, seed = params.miner, params.n_boot, params.seed
    baseline = next((v for v in variants if v.role == "baseline"), None)
    if baseline is None:
        raise InputError("an experiment needs a baseline variant")
    labels = [v.label for v in variants]
    texts = {v.label: stored_transcripts(store, v, clips) for v in variants}
    accept: dict[str, AcceptRef] = {}
    edits: list[Edit] = []
    if panel is not None:
        clash = set(panel_models) & set(texts)
        if clash:
            raise InputError(f"panel model names clash with variant labels: {sorted(clash)}")
        hyps = {**panel_transcripts(panel, panel_models), **texts}
        references = {c.id: c.reference for c in clips if c.reference is not None}
        if references:  # none: no edit to mine (measure_refdis refuses an empty list of clips)
            measured = measure_refdis(_all_clips(references, hyps, normalize), list(panel_models), miner, scored=labels,
                                      n_boot=n_boot, accept_ref_boot=n_boot, seed=DEFAULT_SEED)
            accept, edits = measured.accept_ref, list(measured.edits)
    out = []
    base_texts = texts[baseline.label]
    for v in variants:
        mine_texts = texts[v.label]
        # A clip whose normalized reference is empty has no WER: left out, as score_model leaves it out
        pairs = [(normalize(c.reference), normalize(mine_texts[c.id])) for c in clips
                 if c.reference is not None and c.id in mine_texts]
        pairs = [(ref, hyp) for ref, hyp in pairs if ref.split()]
        wer = None
        if pairs:
            wer = corpus_wer([ref for ref, _ in pairs], [hyp for _, hyp in pairs], n_boot=n_boot)
        changed = sum(1 for cid, text in mine_texts.items() if cid in base_texts and base_texts[cid] != text)
        out.append(VariantReadout(v.label, v.role, v.model.model_id, v.model.config_hash, len(mine_texts), changed,
                                  wer, accept.get(v.label), v.control_of))
    deltas = paired_deltas(edits, baseline.label, labels, n_boot=n_boot, seed=seed)
    return Readout(out, edits, deltas)


def _all_clips(references: Mapping[str, str], hyps: Mapping[str, Mapping[str, str]], normalize) -> list[ClipInput]:
    """Every clip with a reference, also those no model ran (the miner counts them), normalized."""
    ran = {c.clip_id: c for c in clip_inputs(references, hyps, normalize)}
    return [ran.get(cid) or ClipInput(cid, tuple(normalize(ref).split()), {}) for cid, ref in references.items()]


def readout(store: ResultStore, variants: Sequence[Variant], clips: Sequence[Clip], *,
            panel: PredictionSet | Mapping[str, Mapping[str, str]] | None = None, panel_models: Sequence[str] = (),
            normalizer: str = "whisper", miner: MinerParams = MinerParams(), n_boot: int = 1000,
            seed: int = 0) -> list[VariantReadout]:
    """The variants' rows of :func:`measure_readout` (the tables of ``asraudit steer`` and ``patch``)."""
    params = ReadoutParams(normalizer=normalizer, miner=miner, n_boot=n_boot, seed=seed)
    return measure_readout(store, variants, clips, params, panel=panel, panel_models=panel_models).variants


# -- sources of paired inputs, from the command line -----------------------------------------


def parse_audio_source(spec: str):
    """A condition (or fixed clip) from its command-line spelling.

    ``silence``; ``noise:SNR_DB[:SEED]`` (white noise at that SNR);
    ``mask:T0-T1`` (the span silenced); ``audio:PATH`` (one fixed clip).
    """
    kind, _, rest = spec.partition(":")
    try:
        if kind == "silence" and not rest:
            return Silence()
        if kind == "noise" and rest:
            snr, _, seed = rest.partition(":")
            snr_db = float(snr)
            if not math.isfinite(snr_db):  # NaN noise would turn every sample into NaN
                raise ValueError(f"the SNR must be a finite number of dB, got {snr}")
            if seed and not (seed.isascii() and seed.isdigit()):
                raise ValueError(f"the seed must be an integer of at least 0, got {seed}")
            return Noise(snr_db=snr_db, seed=int(seed or 0))
        if kind == "mask" and rest:
            match = re.fullmatch(r"\s*([0-9.eE+]+)\s*-\s*([0-9.eE+]+)\s*", rest)
            if match is None:
                raise ValueError("mask:T0-T1 takes two times in seconds, 0 or more (mask:0.5-1.2)")
            t0, t1 = float(match[1]), float(match[2])
            if not (math.isfinite(t0) and math.isfinite(t1)) or t1 <= t0:
                raise ValueError(f"the span must end after it starts, in finite seconds, got [{t0:g}, {t1:g}]")
            return SpanMask(t0, t1)
        if kind == "audio" and rest:
            audio = load_audio(rest)
            return FixedAudio(audio, label=Path(rest).name)
    except ValueError as exc:
        raise InputError(f"bad audio source {spec!r}: {exc}") from None
    raise InputError(f"unknown audio source {spec!r}: use silence, noise:SNR[:SEED], mask:T0-T1 or audio:PATH")


def check_starts_inside(start_s: float, what: str, clips: Sequence[Clip], consequence: str) -> None:
    """A time span the experiment uses on every clip (a ``mask:T0-T1`` source, ``--frames START-END``,
    ``--block-attention``) must start inside each of them: on a clip that ends before it, it touches nothing
    the clip holds (``consequence`` says what that does). A span in milliseconds (``mask:500-1200``) did that to
    every clip, and the table reported an intervention that changed nothing. The lengths come from the audio
    files' headers; clips held in memory are not checked."""
    short = []
    for clip in clips:
        seconds = clip.header_seconds()
        if seconds is not None and seconds <= start_s:
            short.append((clip.id, seconds))
    if short:
        first, seconds = short[0]
        raise InputError(f"{what}: the span starts at {start_s:g} s, after the end of {len(short)} of {len(clips)} "
                         f"clip(s) (first: {first!r}, {seconds:.2f} s), {consequence}: give a span inside every clip "
                         "(seconds, not milliseconds), or leave the shorter clips out")


def check_one_window(model, clips: Sequence[Clip], what: str) -> None:
    """A time span the experiment places (a ``mask:T0-T1`` source, ``--frames START-END``, ``--block-attention``)
    is in seconds of each input the model decodes, and a clip longer than the model's window is cut into windows
    (at pauses, ``transcribe_in_windows``) that are decoded one by one: the span acted once in each window, at
    1.0-1.6 s of a 41.9-s clip and again 19.76 s later, with no word. The lengths come from the audio files'
    headers; clips held in memory are not checked."""
    check_within_window(getattr(model, "window_seconds", None), clips, what)


def check_windows(models: Sequence[str], clips: Sequence[Clip], what: str) -> None:
    """``check_one_window`` before any model runs, for the models whose files give their window
    (``layer_counts.window_seconds``); the experiment checks the others once it has loaded them."""
    from asraudit.models.layer_counts import window_seconds

    for name in dict.fromkeys(models):
        check_within_window(window_seconds(name), clips, what)


def check_within_window(window: float | None, clips: Sequence[Clip], what: str) -> None:
    """InputError when a clip is longer than ``window`` seconds (None: the model does not window)."""
    if window is None:
        return
    long = []
    for clip in clips:
        seconds = clip.header_seconds()
        if seconds is not None and seconds * SAMPLE_RATE > round(window * SAMPLE_RATE):
            long.append((clip.id, seconds))
    if long:
        first, seconds = long[0]
        raise InputError(f"{what}: a time span is placed in each input of at most {window:g} s the model decodes, and "
                         f"{len(long)} of {len(clips)} clip(s) are longer (first: {first!r}, {seconds:.2f} s), so the "
                         "model decodes them in windows and the span would act once in each: leave the longer clips "
                         f"out, or cut them into clips of at most {window:g} s")


def check_source_reaches(source, spec: str, clips: Sequence[Clip], what: str) -> None:
    """A ``mask:T0-T1`` source must start inside every clip it is made from: on a clip that ends before T0 the
    masked input is the clip itself, so its learning pair differs by nothing (a direction diluted towards zero)
    and its patch exchanges a layer with itself."""
    if isinstance(source, SpanMask):
        check_starts_inside(source.t0, f"{what} {spec!r}", clips, "on which the masked input would be the clip itself")


def check_frames_reach(frames, spec: str, clips: Sequence[Clip], what: str) -> None:
    """A ``START-END`` frame span must start inside every clip: past a clip's end it names padding or no frame at
    all (past a Whisper's 30 s window), so the intervention would act on nothing the clip says."""
    if getattr(frames, "kind", None) == "span":
        check_starts_inside(frames.start_s, f"{what} {spec!r}", clips,
                            "where it would act on no frame of the clip's audio")
