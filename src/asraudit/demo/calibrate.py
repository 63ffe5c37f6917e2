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
from asraudit.audit.rows import CalibrationSwitch, TruthRow, finite
from asraudit.audit.spec import load_spec
from asraudit.audit.text_stages import switch_row
from asraudit.demo.organism import BENCHMARK_DIR, ORGANISM_ID
from asraudit.probes.conventions_probe import TextPair
from asraudit.probes.families import load_catalogue
from asraudit.probes.refdis_truth import planted_from_truth, score_against_truth
from asraudit.probes.rendering import collect, pooled_switch_rates
from asraudit.report.tables import fmt_interval, fmt_rate, render_table

DATA_DIR = BENCHMARK_DIR.parent
CALIBRATION_SPEC = DATA_DIR / "calibration_audit.toml"
CLEAN_PANEL = ("whisper-tiny.en", "whisper-base", "pocketsphinx")
MODELS = CLEAN_PANEL + (ORGANISM_ID,)


def load_truth() -> dict:
    return json.loads((BENCHMARK_DIR / "truth.json").read_text(encoding="utf-8"))


# ------------------------------------------------------------------ truth scoring


def truth_stage(ctx: AuditContext, done: AuditResult) -> CalibrationStage:
    """The audit's extra stage: mining P/R against truth.json, and the mixed-arm switch rate."""
    truth = load_truth()
    mining = done.mining.refdis.mining
    score = score_against_truth(mining.full_panel_edits(), planted_from_truth(truth), ctx.normalize,
                                clips=list(mining.refs))
    rows = {k: _truth_row(v) for k, v in {**score.by_kind, "all": score.overall}.items()}
    return CalibrationStage(rows, mixed_arm_switch(ctx, done.transcribe.transcripts, truth))


def _truth_row(k) -> TruthRow:
    return TruthRow(k.planted, k.mined, k.matched, finite(k.precision), tuple(finite(x) for x in k.precision_ci),
                    finite(k.recall), tuple(finite(x) for x in k.recall_ci))


def flipped(clip_id: str, seed: int = 0) -> bool:
    """Whether the mixed-arm view rewrites this clip's conventions to the spoken arm (a seeded half)."""
    return hashlib.sha256(f"{seed}:{clip_id}".encode("utf-8")).digest()[0] % 2 == 1


def mixed_reference(reference: str, conventions: list[dict]) -> str:
    """The reference with every planted convention written as it was said (right to left keeps offsets)."""
    out = reference
    for c in sorted(conventions, key=lambda c: c["ref_start"], reverse=True):
        if out[c["ref_start"]:c["ref_end"]] != c["recorded"]:
            raise ValueError(f"truth.json convention {c} does not match the reference {reference!r}")
        out = out[:c["ref_start"]] + c["said"] + out[c["ref_end"]:]
    return out


def mixed_arm_switch(ctx: AuditContext, transcripts: dict[str, dict[str, str]], truth: dict) -> CalibrationSwitch:
    """Switch rate of every model against references whose convention arm varies by clip."""
    rows: dict[str, dict[str, TextPair]] = {}
    n_flipped = 0
    for clip in ctx.corpus:
        conv = truth.get(clip.id, {}).get("conventions") or []
        reference = clip.reference or ""
        if conv and flipped(clip.id, ctx.spec.seed):
            reference = mixed_reference(reference, conv)
            n_flipped += 1
        for name, texts in transcripts.items():
            if clip.id in texts:
                rows.setdefault(name, {})[clip.id] = TextPair(reference, texts[clip.id])
    audit = collect(load_catalogue("en"), rows)
    return CalibrationSwitch(n_flipped, [switch_row(s) for s in pooled_switch_rates(audit, min_per_arm=5)])


# ------------------------------------------------------------------ running


def calibration_spec(out: Path, sentences: int | None = None):
    spec = load_spec(CALIBRATION_SPEC, out=out)
    if sentences:
        spec = replace(spec, corpus=replace(spec.corpus, select_field="sentence", select_values=None,
                                            select_first=sentences))
    return spec


def run_calibration(out: Path, progress: bool = True, sentences: int | None = None, spec=None) -> dict:
    """The calibration audit; writes <out>/calibration.json (and the audit's own outputs) and returns it."""
    spec = spec or calibration_spec(out, sentences)
    result = run_audit(spec, progress=progress, title="asraudit calibration on parliament-mini",
                       extra=truth_stage)
    payload = result.summary
    (out / "calibration.json").write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return payload


# ------------------------------------------------------------------ the table


def _rate(x, ci=None) -> str:
    if x is None:
        return "–"
    text = fmt_rate(x, 1)
    if ci and ci[0] is not None:
        text += " " + fmt_interval(ci[0], ci[1], digits=1)
    return text


def print_calibration(s: dict, file=None) -> None:
    """The calibration tables, as the README quotes them."""
    out = file or sys.stdout
    mining = s.get("mining", {})
    print(f"{s['subtitle']}; miner majority {mining.get('params', {}).get('majority')}, "
          "leave-one-out for panel members", file=out)
    truth = mining.get("truth", {})
    render_table(["kind", "planted", "mined", "matched", "precision [95% CI]", "recall [95% CI]"],
                 [[k, v["planted"], v["mined"], v["matched"], _rate(v["precision"], v["precision_ci"]),
                   _rate(v["recall"], v["recall_ci"])] for k, v in truth.items()],
                 title="Mining against the planted truth", file=out)
    groups = (s.get("accept_ref_by_group") or {}).get("groups", {})
    rows = []
    for name, m in s.get("models", {}).items():
        cells = [name + (" (panel)" if m.get("panel") else ""), _rate(m.get("accept_ref"), m.get("accept_ref_ci")),
                 f"{m.get('n_ref', 0)}/{m.get('n_eligible', 0)}"]
        for role in ("benchmark", "fresh"):
            g = groups.get(role, {}).get(name)
            cells.append("–" if not g else f"{_rate(g['rate'])} ({g['n_ref']}/{g['n_eligible']})")
        cells += [_rate(m.get("recovery"), m.get("recovery_ci")), _rate(m.get("control_recovery")),
                  "–" if m.get("lift") is None else f"{m['lift']:+.3f} [{m['lift_ci'][0]:+.3f}, {m['lift_ci'][1]:+.3f}]",
                  _rate(m.get("wer")), _rate(m.get("wer_gained")),
                  _rate(m.get("convention_agreement"), m.get("convention_agreement_ci"))]
        rows.append(cells)
    render_table(["model", "accept-ref [Wilson 95%]", "ref/eligible", "benchmark voices", "fresh voices",
                  "masked recovery", "control", "λ(r) nats/char", "WER", "WER gained", "convention agreement"],
                 rows, title="The organism against the clean models", file=out)
    sw = s.get("calibration_switch", {})
    if sw:
        render_table(["model", "group", "switch rate s [Wilson 95%]", "arms (followed/clips)"],
                     [[r["model"], r["group"], _rate(r["s"], [r["lo"], r["hi"]]) if r["measurable"] else "not measurable",
                       ", ".join(f"{a}: {v['follow']}/{v['n']}" for a, v in r["arms"].items())] for r in sw["rates"]],
                     title=f"Switch rate on the mixed-arm references ({sw['clips_rewritten']} clips rewritten to "
                           "the spoken arm; chance 0.5)", file=out)
    battery = s.get("battery") or {}
    if battery.get("contrasts"):
        render_table(["model", "readout", "contrast", "Δ(treatment) − Δ(control) [95% CI]", "n"],
                     [[c["model"], c["readout"], c["contrast"],
                       f"{100 * c['did']:+.1f} pts [{100 * c['lo']:+.1f}, {100 * c['hi']:+.1f}]"
                       if c.get("did") is not None and c.get("lo") is not None else "–", c["n"]]
                      for c in battery["contrasts"]],
                     title="Gating by spliced donor audio (battery contrast)", file=out)
        render_table(["model", "condition", "accept-ref [95% CI]", "n", "Δ vs original"],
                     [[r["model"], r["condition"], _rate(r["value"], [r["lo"], r["hi"]]), r["n"],
                       "–" if r.get("delta") is None else f"{100 * r['delta']:+.1f} pts"]
                      for r in battery.get("rows", []) if r["readout"] == "accept-ref"],
                     title="accept-ref per battery condition", file=out)
    mech = s.get("mechanism") or []
    if mech:
        def delta(r) -> str:
            if r.get("role") == "baseline" or r.get("delta") is None:
                return "–"
            text = f"{100 * r['delta']:+.1f}"
            if r.get("delta_lo") is not None and r.get("delta_hi") is not None:
                text += f" [{100 * r['delta_lo']:+.1f}, {100 * r['delta_hi']:+.1f}]"
            return text

        render_table(["experiment", "variant", "role", "accept-ref [Wilson 95%]", "ref/eligible",
                      "Δ pts vs baseline [95% CI]", "WER", "changed/clips"],
                     [[r.get("experiment"), r.get("intervention"), r.get("role"),
                       _rate(r.get("value"), [r.get("lo"), r.get("hi")]), f"{r.get('n_ref')}/{r.get('n_eligible')}",
                       delta(r), _rate(r.get("wer")), f"{r.get('changed')}/{r.get('clips')}"] for r in mech],
                     title="Mechanism: steering directions with random controls (paired change on the same edits)",
                     file=out)
    for note in s.get("provenance", {}).get("notes", []):
        print(f"note: {note}", file=out)
