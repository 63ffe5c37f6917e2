"""Calibration readouts the new organisms need: masked recovery per voice role, switch rate by the voice cue.

- Masked recovery per voice role: the contaminated organism saw the test
  sentences in the benchmark's voices only, so its recovery is read on the
  benchmark-voice test clips (where a leaked test set shows) and the
  fresh-voice ones (where it should fall to chance) separately.  The audit's
  masked stage pools all clips; its per-target outcomes are regrouped here.
- Accept-ref per voice: the gate read voice by voice, because a "fresh"
  voice may be a benchmark speaker rendered by another engine (flite's kal16
  and festival's kal diphone are the same speaker), and a pooled fresh rate
  hides which voices carry it.
- Switch rate against the voice-cue view of the references
  (``mixed_arm.SPOKEN_ARM_VOICES``), on the benchmark voices: the only clips
  whose reference arm a cue in the audio decides.
"""

from __future__ import annotations

from asraudit.audit.context import AuditContext
from asraudit.audit.results import AuditResult, rate_row
from asraudit.data.group_values import MISSING_GROUP, group_label
from asraudit.demo.mixed_arm import voice_arm_reference
from asraudit.probes.lift import summarize_lift
from asraudit.probes.masked_run import rate_of
from asraudit.audit.text_stages import switch_row
from asraudit.probes.conventions_probe import TextPair
from asraudit.probes.families import load_catalogue
from asraudit.probes.refdis_score import breakdown
from asraudit.probes.rendering import collect, pooled_switch_rates
from asraudit.report.rows import CalibrationSwitch, GroupBreakdown, MaskedRow, bounds, finite

VOICE_FIELD = "speaker"  # parliament-mini's manifest names each clip's voice here (the corpus's Clip.speaker)
ROLE_ORDER = ("benchmark", "control", "fresh")


def accept_ref_by_voice(ctx: AuditContext, done: AuditResult) -> GroupBreakdown | None:
    """Accept-ref of every scored model on the edits of each voice's clips (None without mining or voices).

    The same edits and verdicts as the audit's accept-ref (leave-one-out ones for panel members), grouped by
    the clip's voice; voices ordered by role (benchmark, control, fresh), then by name."""
    if done.mining is None:
        return None
    voice_of = {c.id: str(c.speaker) for c in ctx.corpus if c.speaker}
    if not voice_of:
        return None
    role_of = {str(c.speaker): str(c.metadata.get("voice_role", "")) for c in ctx.corpus if c.speaker}
    rank = {role: i for i, role in enumerate(ROLE_ORDER)}
    voices = sorted(set(voice_of.values()), key=lambda v: (rank.get(role_of[v], len(rank)), v))
    r = done.mining.refdis
    per_voice = breakdown(r.mining.edits, r.scored, lambda e: voice_of.get(e.clip_id, "None"), voices)
    return GroupBreakdown(VOICE_FIELD, {v: {name: rate_row(per_voice[v][name]) for name in r.scored}
                                        for v in voices})


def masked_by_group(ctx: AuditContext, done: AuditResult) -> dict[str, list[MaskedRow]] | None:
    """group value -> one MaskedRow per model, from the masked stage's per-target table (None without groups)."""
    field = ctx.spec.corpus.group_field
    if done.masked is None or not field:
        return None
    group_of = {c.id: group_label(c.field(field), field, c.source, c.row) for c in ctx.corpus}
    cells: dict[str, dict[str, list[dict]]] = {}
    for t in done.masked.table:
        cells.setdefault(group_of.get(t["clip"], MISSING_GROUP), {}).setdefault(t["model"], []).append(t)
    out = {}
    for group, per_model in sorted(cells.items()):
        out[group] = [_row(model, targets, ctx.spec.bootstrap, ctx.spec.seed) for model, targets in per_model.items()]
    return out


def _row(model: str, targets: list[dict], n_boot: int, seed: int) -> MaskedRow:
    # the same arithmetic as the masked stage's pooled row (probes.masked_run.summarize_masked)
    clean = rate_of(t["clean_recovered"] for t in targets)
    masked = rate_of(t["masked_recovered"] for t in targets)
    control = rate_of(t["control_recovered"] for t in targets)
    lift = summarize_lift([t["lift_masked"] for t in targets if t["lift_masked"] is not None], n_boot=n_boot,
                          seed=seed)
    lift_clean = summarize_lift([t["lift_clean"] for t in targets if t["lift_clean"] is not None], n_boot=n_boot,
                                seed=seed)
    return MaskedRow(model, len(targets), finite(clean.rate), finite(masked.rate), bounds(masked.interval),
                     masked.k, masked.n, finite(control.rate), bounds(control.interval), control.n,
                     finite(lift.mean) if lift.n else None, bounds(lift.interval) if lift.n else None,
                     finite(lift_clean.mean) if lift_clean.n else None)


def voice_cue_references(ctx: AuditContext, truth: dict) -> tuple[dict[str, str], int]:
    """Benchmark-voice clip id -> its reference in the arm its voice asks for, and how many were rewritten."""
    references, rewritten = {}, 0
    for clip in ctx.corpus:
        role, speaker = str(clip.metadata.get("voice_role")), str(clip.speaker)
        if role != "benchmark":
            continue
        reference = clip.reference or ""
        references[clip.id] = voice_arm_reference(reference, speaker, role,
                                                  truth.get(clip.id, {}).get("conventions") or [])
        rewritten += references[clip.id] != reference
    return references, rewritten


def voice_cue_switch(ctx: AuditContext, transcripts: dict[str, dict[str, str]], truth: dict) -> CalibrationSwitch:
    """Every model's switch rate against the voice-cue references (benchmark voices only)."""
    references, rewritten = voice_cue_references(ctx, truth)
    return switch_against(references, transcripts, rewritten)



def switch_against(references: dict[str, str], transcripts: dict[str, dict[str, str]],
                   rewritten: int) -> CalibrationSwitch:
    """Every model's pooled switch rate against these references (clip id -> reference)."""
    rows: dict[str, dict[str, TextPair]] = {}
    for clip_id, reference in references.items():
        for name, texts in transcripts.items():
            if clip_id in texts:
                rows.setdefault(name, {})[clip_id] = TextPair(reference, texts[clip_id])
    audit = collect(load_catalogue("en"), rows)
    return CalibrationSwitch(rewritten, [switch_row(s) for s in pooled_switch_rates(audit, min_per_arm=5)])
