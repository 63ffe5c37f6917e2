"""`asraudit calibrate`: asraudit's own validation on a benchmark whose truth is known.

parliament-mini's test split has planted reference errors (truth.json) and a
model organism trained to echo them.  Calibration is the audit of the
embedded calibration spec (``demo/data/calibration_audit.toml``: the clean
embedded models as the panel, the organism under suspicion, every probe)
plus what only a benchmark with known truth allows:

- mining precision and recall against the planted errors, per kind;
- accept-ref, masked recovery, audio lift and WER gained, organism vs
  clean, with intervals (from the audit itself);
- gating: accept-ref by voice role (benchmark voices vs fresh ones) and the
  battery's paired splice (benchmark donor audio vs other speech);
- switch rate on a *mixed-arm* view of the references.  The record writes
  each convention one way (like VoxPopuli), so on the record itself switch
  rate is not measurable; truth.json knows where each convention occurs and
  what was said, so the calibration rewrites the reference of a seeded half
  of those clips to the spoken arm and asks whether each model follows the
  reference's arm on both halves;
- mechanism rows from the spec's ``[[mechanism]]`` experiments.

The clean models are the panel and are scored leave-one-out; the organism is
never in the panel, so it is judged by edits it had no vote on.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

from asraudit.audit.context import AuditContext
from asraudit.audit.pipeline import run_audit
from asraudit.audit.results import AuditResult, CalibrationStage
from asraudit.report.rows import AudioTruthChanges, Bounds, CalibrationSwitch, TruthRow, bounds, finite
from asraudit.audit.results import build_summary
from asraudit.demo.calibration_report import PROVEN_ON, detector_rows, detectors_markdown, print_detectors, proven_on_for
from asraudit.report.summary import Summary, plain_summary, write_json
from asraudit.audit.spec import load_spec
from asraudit.demo.audio_truth import AUDIO_TRUTH, checked_clips, read_evidence, unsaid_words
from asraudit.demo.calibration_groups import accept_ref_by_voice, masked_by_group, switch_against, voice_cue_switch
from asraudit.demo.mixed_arm import mixed_reference
from asraudit.data.paths import write_text_whole
from asraudit.demo.organism import BENCHMARK_DIR, ORGANISM_ID
from asraudit.metrics.stats import Interval
from asraudit.probes.refdis_truth import audio_corrected, planted_from_truth, score_against_truth
from asraudit.report.mechanism_tables import print_by_kind, print_curves
from asraudit.report.tables import fmt_interval, fmt_rate, render_table

DATA_DIR = BENCHMARK_DIR.parent
CALIBRATION_SPEC = DATA_DIR / "calibration_audit.toml"
# The held-out split (demo.build_benchmark --heldout): read out once with the recipes the test split chose.
HELDOUT_SPEC = DATA_DIR / "calibration_heldout.toml"
CLEAN_PANEL = ("whisper-tiny.en", "whisper-base", "pocketsphinx")
MODELS = CLEAN_PANEL + (ORGANISM_ID,)


def load_truth(folder: Path = BENCHMARK_DIR) -> dict:
    """The planted truth of the split whose manifest lies in ``folder``."""
    return json.loads((folder / "truth.json").read_text(encoding="utf-8"))


def _split_folder(ctx: AuditContext) -> Path:
    """The folder of the audited split's manifest, which holds its truth.json (the test split's otherwise)."""
    manifest = ctx.spec.corpus.manifest
    return manifest.parent if manifest is not None else BENCHMARK_DIR


# ------------------------------------------------------------------ truth scoring


def truth_stage(ctx: AuditContext, done: AuditResult) -> CalibrationStage:
    """The audit's extra stage: mining P/R against truth.json, and the mixed-arm switch rate."""
    folder = _split_folder(ctx)
    truth = load_truth(folder)
    mining = done.mining.refdis.mining
    edits, planted = mining.full_panel_edits(), planted_from_truth(truth)
    score = score_against_truth(edits, planted, ctx.normalize, clips=list(mining.refs))
    rows = {k: _truth_row(v) for k, v in {**score.by_kind, "all": score.overall}.items()}
    heard, changes = audio_truth_rows(ctx, edits, planted, list(mining.refs), folder / AUDIO_TRUTH.name)
    transcripts = done.transcribe.transcripts
    return CalibrationStage(rows, mixed_arm_switch(ctx, transcripts, truth), heard, changes,
                            masked_by_group(ctx, done), voice_cue_switch(ctx, transcripts, truth),
                            accept_ref_by_voice(ctx, done))


def audio_truth_rows(ctx: AuditContext, edits, planted, clips: list[str], evidence: Path = AUDIO_TRUTH):
    """Mining P/R against the planted truth corrected by the per-word audio check (None without its file).

    Only clips the check covered are scored, on both sides, so the two tables differ only where the
    audio does."""
    if not evidence.is_file():
        return None, None
    words = read_evidence(evidence)
    checked = checked_clips(words)
    texts = {c.id: (c.reference or "", str(c.metadata.get("spoken", c.reference or ""))) for c in ctx.corpus}
    fixed = audio_corrected(planted, texts, unsaid_words(words))
    keep = [c for c in clips if c in checked]
    score = score_against_truth(edits, fixed.errors, ctx.normalize, clips=keep)
    rows = {k: _truth_row(v) for k, v in {**score.by_kind, "all": score.overall}.items()}
    kept = set(keep)
    return rows, AudioTruthChanges(sum(checked[c] for c in keep),
                                   sum(1 for w in words if w.clip in kept and w.verdict in ("mispronounced", "skipped")),
                                   sum(1 for p in fixed.added if p.clip_id in kept),
                                   sum(1 for p in fixed.dropped if p.clip_id in kept))


def _truth_row(k) -> TruthRow:
    # precision and recall are shares of edits: Wilson intervals (probes.refdis_truth)
    return TruthRow(k.planted, k.mined, k.matched, finite(k.precision),
                    bounds(Interval(k.precision, *k.precision_ci, 0.95, "wilson")), finite(k.recall),
                    bounds(Interval(k.recall, *k.recall_ci, 0.95, "wilson")))


def flipped(clip_id: str, seed: int = 0) -> bool:
    """Whether the mixed-arm view rewrites this clip's conventions to the spoken arm (a seeded half)."""
    return hashlib.sha256(f"{seed}:{clip_id}".encode("utf-8")).digest()[0] % 2 == 1


def mixed_arm_switch(ctx: AuditContext, transcripts: dict[str, dict[str, str]], truth: dict) -> CalibrationSwitch:
    """Switch rate of every model against references whose convention arm varies by clip."""
    references: dict[str, str] = {}
    n_flipped = 0
    for clip in ctx.corpus:
        conv = truth.get(clip.id, {}).get("conventions") or []
        reference = clip.reference or ""
        if conv and flipped(clip.id, ctx.spec.seed):
            reference = mixed_reference(reference, conv)
            n_flipped += 1
        references[clip.id] = reference
    return switch_against(references, transcripts, n_flipped)


# ------------------------------------------------------------------ running


def calibration_spec(out: Path, sentences: int | None = None, heldout: bool = False):
    spec = load_spec(HELDOUT_SPEC if heldout else CALIBRATION_SPEC, out=out)
    if sentences:
        spec = replace(spec, corpus=replace(spec.corpus, select_field="sentence", select_values=None,
                                            select_first=sentences))
    return spec


def calibration_summary(result: AuditResult, organism: str = ORGANISM_ID,
                        proven_on: dict[str, str] = PROVEN_ON) -> Summary:
    """The audit's summary with the calibration report's rows (one per detector) added."""
    summary = build_summary(result)
    summary.detectors = detector_rows(summary, organism, proven_on)
    return summary


def write_detector_outputs(result: AuditResult, out: Path, json_name: str, markdown_name: str,
                           proven_on: dict[str, str] = PROVEN_ON) -> Summary:
    """The summary with its detector rows as <out>/<json_name> (summary.json's layout plus the rows) and the
    rows as the Markdown table the documents quote, <out>/<markdown_name>; each written atomically."""
    summary = calibration_summary(result, proven_on=proven_on)
    write_json(plain_summary(summary), out / json_name)
    write_text_whole(out / markdown_name, detectors_markdown(summary.detectors or []))
    return summary


def run_calibration(out: Path, progress: bool = True, sentences: int | None = None, spec=None,
                    heldout: bool = False) -> AuditResult:
    """The calibration audit; writes <out>/calibration.json (summary.json's layout plus the detector rows)
    and <out>/calibration.md (the detector rows as the Markdown table the documents quote).

    ``heldout``: the held-out split and its spec, each detector read on the organism built for it there."""
    spec = spec or calibration_spec(out, sentences, heldout)
    title = "asraudit calibration on parliament-mini" + (" (held-out split)" if heldout else "")
    result = run_audit(spec, progress=progress, title=title, extra=truth_stage)
    write_detector_outputs(result, out, "calibration.json", "calibration.md", proven_on_for(heldout))
    return result


# ------------------------------------------------------------------ the table


def _rate(x, interval: Bounds | None = None) -> str:
    if x is None:
        return "–"
    text = fmt_rate(x, 1)
    if interval is not None and interval.low is not None and interval.high is not None:
        text += " " + fmt_interval(interval.low, interval.high, digits=1)
    return text


def _signed(value: float | None, interval: Bounds | None, scale: float, fmt: str) -> str:
    """A change with its interval, e.g. '+12.5 [+3.0, +20.1]' (points when scale is 100)."""
    text = format(scale * value, fmt)
    if interval is not None and interval.low is not None and interval.high is not None:
        text += f" [{format(scale * interval.low, fmt)}, {format(scale * interval.high, fmt)}]"
    return text


def _print_switch(sw, title: str, out) -> None:
    """One switch-rate table (the mixed-arm view and the voice-cue view share its columns)."""
    render_table(["model", "group", "switch rate s [Wilson 95%]", "arms (followed/clips)"],
                 [[r.model, r.group, _rate(r.s, r.s_interval) if r.measurable else "not measurable",
                   ", ".join(f"{a}: {v.follow}/{v.n}" for a, v in r.arms.items())] for r in sw.rates],
                 title=title, file=out)


def print_organism_tables(s: Summary, out, json_name: str = "calibration.json") -> None:
    """The readouts of the organisms built for one detector each: switch rate by the voice cue, masked by role,
    accept-ref voice by voice.  ``json_name``: the file whose rows hold the intervals this table leaves out."""
    by_voice = s.calibration_accept_ref_by_voice
    if by_voice is not None:
        voices = list(by_voice.groups)
        models = list(next(iter(by_voice.groups.values()), {}))

        def cell(r) -> str:
            return f"{'–' if r.rate is None else fmt_rate(r.rate, 1)} {r.n_ref}/{r.n_eligible}"
        render_table(["model"] + voices, [[m] + [cell(by_voice.groups[v][m]) for v in voices] for m in models],
                     title="accept-ref voice by voice, ref/eligible (voices in role order: benchmark, control, fresh; "
                           f"Wilson intervals in {json_name})", file=out)
    sw = s.calibration_switch_by_voice
    if sw is not None:
        _print_switch(sw, f"Switch rate on the voice-cue references (benchmark voices; {sw.clips_rewritten} clips "
                          "rewritten to the spoken arm by their voice; chance 0.5)", out)
    for group, rows in sorted((s.calibration_masked_by_group or {}).items()):
        render_table(["model", "targets", "masked recovery [Wilson 95%]", "recovered", "control words",
                      "λ masked nats/char [95% CI]"],
                     [[r.model, r.targets, _rate(r.masked, r.masked_interval), f"{r.masked_k}/{r.masked_n}",
                       _rate(r.control), "–" if r.lift_masked is None
                       else _signed(r.lift_masked, r.lift_masked_interval, 1, "+.3f")] for r in rows],
                     title=f"Masked recovery on {group} clips", file=out)


def print_calibration(s: Summary, file=None) -> None:
    """The calibration tables, as the README quotes them."""
    out = file or sys.stdout
    mining = s.mining
    print(f"{s.subtitle}; miner majority {mining.params.get('majority') if mining else None}, "
          "leave-one-out for panel members", file=out)
    truth = (mining.truth if mining else None) or {}
    render_table(["kind", "planted", "mined", "matched", "precision [95% CI]", "recall [95% CI]"],
                 [[k, v.planted, v.mined, v.matched, _rate(v.precision, v.precision_interval),
                   _rate(v.recall, v.recall_interval)] for k, v in truth.items()],
                 title="Mining against the planted truth", file=out)
    heard = (mining.truth_audio if mining else None) or {}
    if heard:
        ch = mining.truth_audio_changes
        render_table(["kind", "errors", "mined", "matched", "precision [95% CI]", "recall [95% CI]"],
                     [[k, v.planted, v.mined, v.matched, _rate(v.precision, v.precision_interval),
                       _rate(v.recall, v.recall_interval)] for k, v in heard.items()],
                     title=f"Mining against what the audio contains ({ch.words_unsaid} of {ch.words_checked} spoken "
                           f"words not said by the voice: {ch.errors_added} record errors added, "
                           f"{ch.planted_dropped} planted insertions dropped)", file=out)
    groups = s.accept_ref_by_group.groups if s.accept_ref_by_group is not None else {}
    rows = []
    for name, m in s.models.items():
        cells = [name + (" (panel)" if m.panel else ""), _rate(m.accept_ref, m.accept_ref_interval),
                 f"{m.n_ref or 0}/{m.n_eligible or 0}"]
        for role in ("benchmark", "fresh"):
            g = groups.get(role, {}).get(name)
            cells.append("–" if not g else f"{_rate(g.rate)} ({g.n_ref}/{g.n_eligible})")
        cells += [_rate(m.recovery, m.recovery_interval), _rate(m.control_recovery),
                  "–" if m.lift is None else _signed(m.lift, m.lift_interval, 1, "+.3f"),
                  _rate(m.wer), _rate(m.wer_gained),
                  _rate(m.convention_agreement, m.convention_agreement_interval)]
        rows.append(cells)
    render_table(["model", "accept-ref [Wilson 95%]", "ref/eligible", "benchmark voices", "fresh voices",
                  "masked recovery", "control", "λ(r) nats/char", "WER", "WER gained", "convention agreement"],
                 rows, title="The organism against the clean models", file=out)
    sw = s.calibration_switch
    if sw is not None:
        _print_switch(sw, f"Switch rate on the mixed-arm references ({sw.clips_rewritten} clips rewritten to "
                          "the spoken arm; chance 0.5)", out)
    print_organism_tables(s, out)
    battery = s.battery
    if battery is not None and battery.contrasts:
        render_table(["model", "readout", "contrast", "Δ(treatment) − Δ(control) [95% CI]", "n"],
                     [[c.model, c.readout, c.contrast,
                       f"{100 * c.did:+.1f} pts [{100 * c.did_interval.low:+.1f}, {100 * c.did_interval.high:+.1f}]"
                       if c.did is not None and c.did_interval.low is not None and c.did_interval.high is not None
                       else "–", c.n]
                      for c in battery.contrasts],
                     title="Gating by spliced donor audio (battery contrast)", file=out)
        render_table(["model", "condition", "accept-ref [95% CI]", "n", "Δ vs original"],
                     [[r.model, r.condition, _rate(r.value, r.value_interval), r.n,
                       "–" if r.delta is None else f"{100 * r.delta:+.1f} pts"]
                      for r in battery.rows if r.readout == "accept-ref"],
                     title="accept-ref per battery condition", file=out)
    if s.mechanism:
        def delta(r) -> str:
            if r.role == "baseline" or r.delta is None:
                return "–"
            return _signed(r.delta, r.delta_interval, 100, "+.1f")

        render_table(["experiment", "variant", "role", "accept-ref [Wilson 95%]", "ref/eligible",
                      "Δ pts vs baseline [95% CI]", "WER", "changed/clips"],
                     [[r.experiment, r.intervention, r.role, _rate(r.value, r.value_interval),
                       f"{r.n_ref}/{r.n_eligible}", delta(r), _rate(r.wer), f"{r.changed}/{r.clips}"]
                      for r in s.mechanism],
                     title="Mechanism: steering directions with random controls (paired change on the same edits)",
                     file=out)
        print_curves(s.mechanism_curves or [], file=out)
        print_by_kind(s.mechanism_by_kind or [], file=out)
    if s.detectors:
        print_detectors(s.detectors, file=out)
    for note in (s.provenance.notes if s.provenance is not None else []):
        print(f"note: {note}", file=out)
