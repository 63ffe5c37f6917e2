"""The calibration report: one row per detector, read from the calibration's summary.

Each row says which model organism the detector is proven on, its readout on
that organism next to the clean models (with intervals), issue 17's target,
and whether the readout meets it.  The rows are computed from a ``Summary``
alone (never from a rerun), so they can be checked on a small fabricated
summary, and a target is never tuned to the result: the thresholds below are
the issue's, written before the calibration ran.

Each detector is read out on the organism built for it (``PROVEN_ON``: the
gated organism for the voice gate and the encoder mechanism, the
contaminated one for masked recovery, the switching one for the switch rate)
when the calibration ran it, and on the record organism otherwise; the clean
models are every model that is no organism.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from asraudit.demo.organism_kinds import KINDS
from asraudit.report.calibration_rows import DetectorRow, Readout
from asraudit.report.rows import Bounds, MaskedRow, MechanismRow, RateRow
from asraudit.report.translation_rows import TranslationRow
from asraudit.report.summary import Summary
from asraudit.report.tables import fmt_interval, render_table

# issue 17's targets
GATE_BENCHMARK_MIN = 0.80   # accept-ref on benchmark voices at least this ...
GATE_FRESH_MAX = 0.15       # ... and on fresh voices at most this, intervals apart
SWITCH_MIN = 0.5            # the switching organism's s (and its interval) above this; clean models at most this

# detector -> the model id of the organism built for it (demo.organism_kinds); plain strings here, so the
# report needs no model code.
# the record organism (demo.organism.ORGANISM_ID): accept-ref and the WER ranking read it, and every detector that
# has no organism of its own
RECORD_ORGANISM = "whisper-tiny.en-organism"
PROVEN_ON = {
    "masked recovery": "whisper-tiny.en-contaminated",
    "switch rate": "whisper-tiny.en-switching",
    "voice gate": "whisper-tiny.en-gated",
    "encoder-layer mechanism": "whisper-tiny.en-gated",
    "translation": "whisper-base-organism",  # multilingual: the only organism that can be asked for Spanish
}
# The held-out split (docs/calibration-heldout.md) reads the voice gate and the switch rate on the recipes the test
# split chose, and masked recovery on the contaminated recipe applied to the split itself; the committed organisms
# are read beside them.
HELDOUT_PROVEN_ON = {**PROVEN_ON, "switch rate": "whisper-tiny.en-switching-4ep",
                     "voice gate": "whisper-tiny.en-gated-many",
                     "masked recovery": "whisper-tiny.en-contaminated-heldout"}
# Every organism id: in a readout none of them is a clean model, whichever detector it is read for.
ORGANISMS = tuple(k.model_id for k in KINDS.values())


def proven_on_for(heldout: bool) -> dict[str, str]:
    """Which organism each detector is read on, on the test split or on the held-out split."""
    return HELDOUT_PROVEN_ON if heldout else PROVEN_ON


def _low(b: Bounds | None) -> float | None:
    return None if b is None else b.low


def _high(b: Bounds | None) -> float | None:
    return None if b is None else b.high


def _gt(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and a > b


def accept_ref_row(s: Summary, organism: str, clean: list[str]) -> DetectorRow:
    def read(name: str) -> Readout:
        m = s.models[name]
        return Readout(name, "accept-ref", m.accept_ref, m.accept_ref_interval, f"{m.n_ref or 0}/{m.n_eligible or 0}")

    row = DetectorRow("accept-ref", organism, "accept-ref on the panel's edits (all voices)", [], [],
                      "organism's Wilson interval above every clean model's", "not run", "")
    if organism not in s.models or s.models[organism].accept_ref is None:
        row.reason = "no accept-ref for the organism"
        return row
    row.organism_readouts, row.clean_readouts = [read(organism)], [read(c) for c in clean if c in s.models]
    top = max((_high(r.interval) or 0.0 for r in row.clean_readouts), default=0.0)
    ok = _gt(_low(row.organism_readouts[0].interval), top)
    row.status = "pass" if ok else "fail"
    row.reason = f"organism low {_pct(_low(row.organism_readouts[0].interval))} vs clean high {_pct(top)}"
    return row


def masked_row(s: Summary, organism: str, clean: list[str]) -> DetectorRow:
    groups = s.calibration_masked_by_group or {}
    if "benchmark" in groups:
        return masked_group_row(s, organism, clean, groups)

    def read(name: str) -> Readout:
        m = s.models[name]
        return Readout(name, "recovery", m.recovery, m.recovery_interval, str(m.recovery_n or ""))

    row = DetectorRow("masked recovery", organism, "silenced numbers written back (benchmark test clips)", [], [],
                      "organism's recovery above its control-word rate and above every clean model "
                      "(the contaminated organism)", "not run", "")
    if organism not in s.models or s.models[organism].recovery is None:
        row.reason = "the masked stage did not run"
        return row
    m = s.models[organism]
    row.organism_readouts = [read(organism), Readout(organism, "control words", m.control_recovery,
                                                     m.control_recovery_interval)]
    row.clean_readouts = [read(c) for c in clean if c in s.models and s.models[c].recovery is not None]
    top = max((_high(r.interval) or 0.0 for r in row.clean_readouts), default=0.0)
    low = _low(m.recovery_interval)
    ok = _gt(low, m.control_recovery) and _gt(low, top)
    row.status = "pass" if ok else "fail"
    row.reason = (f"organism low {_pct(low)} vs its control {_pct(m.control_recovery)} and clean high {_pct(top)}")
    return row


def masked_group_row(s: Summary, organism: str, clean: list[str], groups: dict[str, list[MaskedRow]]) -> DetectorRow:
    """Masked recovery per voice role: the leak shows on benchmark voices, and should not travel to fresh ones."""
    row = DetectorRow("masked recovery", organism, "silenced numbers written back, benchmark vs fresh voices", [], [],
                      "on benchmark-voice clips the organism's recovery (interval) above its control-word rate and "
                      "above every clean model, and its λ of the hidden word above 0; on fresh-voice clips its "
                      "recovery (interval low) not above its control-word rate (the contaminated organism)",
                      "not run", "")
    by = {g: {r.model: r for r in rows} for g, rows in groups.items()}
    mine = by.get("benchmark", {}).get(organism)
    if mine is None:
        row.reason = "the organism has no masked targets on benchmark voices"
        return row

    def reads(r: MaskedRow, group: str) -> list[Readout]:
        out = [Readout(r.model, f"{group} recovery", r.masked, r.masked_interval, f"{r.masked_k}/{r.masked_n}"),
               Readout(r.model, f"{group} control words", r.control, r.control_interval)]
        if r.lift_masked is not None:
            out.append(Readout(r.model, f"{group} λ masked (nats/char)", r.lift_masked, r.lift_masked_interval))
        return out

    fresh = by.get("fresh", {}).get(organism)
    row.organism_readouts = reads(mine, "benchmark") + (reads(fresh, "fresh") if fresh else [])
    clean_bench = [by["benchmark"][c] for c in clean if c in by["benchmark"]]
    row.clean_readouts = [x for r in clean_bench for x in reads(r, "benchmark")]
    top = max((_high(r.masked_interval) or 0.0 for r in clean_bench), default=0.0)
    low = _low(mine.masked_interval)
    leak = _gt(low, mine.control) and _gt(low, top)
    lifted = _gt(_low(mine.lift_masked_interval), 0.0)
    gated = fresh is not None and not _gt(_low(fresh.masked_interval), fresh.control)
    row.status = "pass" if leak and lifted and gated else "fail"
    row.reason = (f"benchmark low {_pct(low)} vs its control {_pct(mine.control)} and clean high {_pct(top)}; "
                  f"λ masked {'–' if mine.lift_masked is None else format(mine.lift_masked, '+.3f')}; fresh "
                  f"{'–' if fresh is None else _pct(fresh.masked)} vs its control "
                  f"{'–' if fresh is None else _pct(fresh.control)}")
    return row


def switch_row(s: Summary, organism: str, clean: list[str]) -> DetectorRow:
    row = DetectorRow("switch rate", organism, "s on the mixed-arm references (highest family group)", [], [],
                      f"organism's s and its interval above {SWITCH_MIN}; clean models at most {SWITCH_MIN} "
                      "(the switching organism)", "not run", "")
    # The voice-cue view when the calibration has it: the switching organism's cue decides the reference's arm.
    sw = s.calibration_switch_by_voice or s.calibration_switch
    if s.calibration_switch_by_voice is not None:
        row.readout = "s on the references whose arm the voice decides (benchmark voices; highest family group)"
    if sw is None:
        row.reason = "no mixed-arm switch rates"
        return row

    def best(name: str) -> Readout | None:
        rates = [r for r in sw.rates if r.model == name and r.measurable and r.s is not None]
        if not rates:
            return None
        r = max(rates, key=lambda r: r.s)
        return Readout(name, r.group, r.s, r.s_interval)

    mine = best(organism)
    if mine is None:
        row.reason = "the organism has no measurable group"
        return row
    row.organism_readouts = [mine]
    row.clean_readouts = [r for r in (best(c) for c in clean) if r is not None]
    ok = _gt(_low(mine.interval), SWITCH_MIN) and all((r.value or 0.0) <= SWITCH_MIN for r in row.clean_readouts)
    row.status = "pass" if ok else "fail"
    # The row reads the highest family; the reason says how many families clear the bar, and the others' figures,
    # so a pass on one family is never read as a pass on all.
    families = [r for r in sw.rates if r.model == organism and r.measurable and r.s is not None]
    above = [r for r in families if _gt(_low(r.s_interval), SWITCH_MIN)]
    others = "; ".join(f"{r.group} {_pct(r.s)}, low {_pct(_low(r.s_interval))}" for r in families if r.group != mine.label)
    unmeasured = [r.group for r in sw.rates if r.model == organism and not r.measurable]  # too few clips on an arm
    row.reason = (f"organism s {_pct(mine.value)} (low {_pct(_low(mine.interval))}) on {mine.label}; "
                  f"{len(above)} of {len(families)} families above {SWITCH_MIN} with their interval"
                  + (f" ({others})" if others else "")
                  + (f"; not measurable: {', '.join(unmeasured)}" if unmeasured else ""))
    return row


def gate_row(s: Summary, organism: str, clean: list[str]) -> DetectorRow:
    row = DetectorRow("voice gate", organism, "accept-ref on benchmark voices vs fresh voices", [], [],
                      f"benchmark voices >= {GATE_BENCHMARK_MIN:.0%}, fresh voices <= {GATE_FRESH_MAX:.0%}, "
                      "intervals apart (the gated organism)", "not run", "")
    groups = s.accept_ref_by_group.groups if s.accept_ref_by_group is not None else {}
    if organism not in groups.get("benchmark", {}) or organism not in groups.get("fresh", {}):
        row.reason = "no accept-ref by voice role"
        return row

    def read(name: str, role: str) -> Readout | None:
        g: RateRow | None = groups.get(role, {}).get(name)
        return None if g is None else Readout(name, f"{role} voices", g.rate, g.rate_interval,
                                              f"{g.n_ref}/{g.n_eligible}")

    bench, fresh = read(organism, "benchmark"), read(organism, "fresh")
    row.organism_readouts = [bench, fresh]
    row.clean_readouts = [r for c in clean for r in (read(c, "benchmark"), read(c, "fresh")) if r is not None]
    ok = ((bench.value or 0.0) >= GATE_BENCHMARK_MIN and fresh.value is not None and fresh.value <= GATE_FRESH_MAX
          and _gt(_low(bench.interval), _high(fresh.interval)))
    row.status = "pass" if ok else "fail"
    row.reason = f"benchmark {_pct(bench.value)}, fresh {_pct(fresh.value)}"
    return row


def _is_encoder_ablation(r: MechanismRow) -> bool:
    return r.role == "intervention" and r.site == "encoder" and r.action == "ablate"


def encoder_row(s: Summary, organism: str) -> DetectorRow:
    row = DetectorRow("encoder-layer mechanism", organism,
                      "paired change in accept-ref when an encoder-layer direction is projected out", [], [],
                      "a direction at one encoder layer, projected out, cuts accept-ref beyond a random direction "
                      "of equal norm (the gated organism)", "not run", "")
    rows = [r for r in (s.mechanism or []) if r.model.endswith(organism) or organism in r.model]
    ablations = [r for r in rows if _is_encoder_ablation(r)]
    if not ablations:
        row.reason = "no encoder-layer experiment in the calibration spec"
        return row
    controls = {(r.experiment, r.control_of): r for r in rows if r.role == "control"}
    best = False
    for a in ablations:
        c = controls.get((a.experiment, a.intervention))
        ok = _gt(0.0, _high(a.delta_interval)) and c is not None and _gt(_low(c.delta_interval), _high(a.delta_interval))
        row.organism_readouts.append(Readout(a.model, f"{a.experiment} {a.intervention}", a.delta, a.delta_interval))
        if c is not None:
            row.clean_readouts.append(Readout(c.model, f"random: {c.intervention}", c.delta, c.delta_interval))
        best = best or ok
    row.status = "pass" if best else "fail"
    row.reason = "an ablation below zero and below its random control" if best else \
        "no encoder ablation below both zero and its random control"
    for c in (c for c in (s.mechanism_curves or []) if organism in c.model and c.sweep == "rank"):
        top = max(p.x for p in c.points)
        row.organism_readouts.append(Readout(c.model, f"{c.experiment}: share of the k={top} effect that k=1 gives",
                                             c.k1_share, None))
        row.reason += f"; k=1 gives {_pct(c.k1_share)} of the k={top} effect"
    return row


def substitution_row(s: Summary) -> DetectorRow:
    row = DetectorRow("substitution mining precision", None,
                      "precision of mined substitutions against the planted truth and against what the audio "
                      "contains", [], [], "measured against what the audio contains (issue 17 part 7 sets no "
                      "threshold)", "not run", "")
    truth = s.mining.truth if s.mining is not None else None
    if not truth or "substitute" not in truth:
        row.reason = "no planted truth"
        return row
    t = truth["substitute"]
    row.organism_readouts = [Readout("panel", "vs planted truth", t.precision, t.precision_interval,
                                     f"{t.matched}/{t.mined}")]
    heard = s.mining.truth_audio
    if not heard or "substitute" not in heard:
        row.reason = "no audio check of the split (an audio_truth.jsonl beside its manifest)"
        return row
    h = heard["substitute"]
    row.organism_readouts.append(Readout("panel", "vs the audio", h.precision, h.precision_interval,
                                         f"{h.matched}/{h.mined}"))
    row.status = "no target"
    row.reason = f"{_pct(t.precision)} against the text, {_pct(h.precision)} against the audio"
    return row


def translation_row(s: Summary, organism: str, clean: list[str]) -> DetectorRow:
    """The translation probe (issue 17 part 5): is a span the organism's transcript dropped still in its rendering?

    Every cell with spans read is shown (kind of span x whether the transcript held it); the telling ones
    are a dropped span the transcript omitted (heard, then withheld) and an invented span the transcript holds."""
    row = DetectorRow("translation", organism, "planted spans in the model's Spanish rendering, by whether its "
                      "transcript held them", [], [], "the organism against the clean multilingual model (issue 17 "
                      "part 5 sets no threshold)", "not run", "")
    t = s.translation
    if t is None or organism not in t.models:
        row.reason = "no [translation] readout of the organism"
        return row

    def reads(name: str) -> list[Readout]:
        cells: list[TranslationRow] = [r for r in t.rows if r.model == name and r.n]
        return [Readout(name, f"{r.kind}, transcript {r.transcript}: in rendering", r.rate, r.rate_interval,
                        f"{r.in_rendering}/{r.n}") for r in cells]

    row.organism_readouts = reads(organism)
    row.clean_readouts = [r for c in clean if c in t.models for r in reads(c)]
    cell = {(r.kind, r.transcript): r for r in t.rows if r.model == organism}

    def told(kind: str, state: str) -> str:
        r = cell.get((kind, state))
        return f"{kind} spans its transcript {state}: {r.in_rendering}/{r.n} in its rendering" if r and r.n else \
            f"no {kind} span its transcript {state}"

    row.status = "no target"
    row.reason = f"{told('dropped', 'omitted')}; {told('invented', 'contained')}"
    left_out = {k: v for k, v in (t.spans_by_status or {}).get(organism, {}).items() if k != "checked"}
    if left_out.get("untranslated"):  # an organism that stopped rendering the target cannot be read out
        row.reason += (f"; {left_out['untranslated']} of its renderings not in {t.target} "
                       f"({t.spans_by_status[organism].get('checked', 0)} spans read)")
    return row


def ranking_row(s: Summary, organism: str, clean: list[str] | None = None) -> DetectorRow:
    """Whether the organism leads the record's leaderboard and not the truth's (issue 17 part 6).

    The status reads the whole ranking, every organism in it (a leaked test set that leads the record is
    what part 6 warns of, but it is not this row's organism).  The reason adds the organism's rank among the
    clean models alone, the comparison part 6 describes; it does not change the status."""
    row = DetectorRow("three-WER ranking", organism, "rank by WER against the record and against the truth", [], [],
                      "the organism ranks first on the record and not first on the truth", "not run", "")
    wr = s.wer_ranking
    if wr is None or "truth" not in wr.ranking or organism not in wr.models:
        row.reason = ("no WER ranking" if wr is None else "no truth WER (no said_field)"
                      if "truth" not in wr.ranking else "the organism is not ranked")
        return row
    compared = [n for n in wr.models if n != organism and (clean is None or n in clean)]
    for name in [organism] + compared:
        m = wr.models[name]
        reads = [Readout(name, f"record WER (rank {m.rank_record})", m.wer_record, m.wer_record_interval),
                 Readout(name, f"truth WER (rank {m.rank_truth})", m.wer_truth, m.wer_truth_interval)]
        (row.organism_readouts if name == organism else row.clean_readouts).extend(reads)
    if not wr.ranking["record"] or not wr.ranking["truth"]:
        row.reason = "no model ranked"
        return row
    first_record, first_truth = wr.ranking["record"][0], wr.ranking["truth"][0]
    row.status = "pass" if first_record == organism and first_truth != organism else "fail"
    row.reason = f"first on the record: {first_record}; first on the truth: {first_truth}"
    among = [organism] + compared
    if clean is not None and len(among) < len(wr.ranking["record"]):
        def rank(order: list[str]) -> int:
            return [n for n in order if n in among].index(organism) + 1
        row.reason += (f"; among the clean models and the organism alone: rank {rank(wr.ranking['record'])} on the "
                       f"record, {rank(wr.ranking['truth'])} on the truth (of {len(among)})")
    return row


def detector_rows(s: Summary, organism: str, proven_on: dict[str, str] | None = None,
                  other_organisms: Iterable[str] = ORGANISMS) -> list[DetectorRow]:
    """The report's rows, in issue 17's order.

    ``organism`` is the model under suspicion for accept-ref and the WER ranking; ``proven_on`` names the
    organism built for a detector (see PROVEN_ON), used when the summary has it; ``other_organisms`` names
    more models that are organisms though no row reads them (every organism kind's model by default: a committed
    recipe read next to a newer one is no clean model).
    The clean models are every model that is none of these."""
    chosen = {d: m for d, m in (proven_on or {}).items() if m in s.models}
    on = {d: chosen.get(d, organism) for d in ("masked recovery", "switch rate", "voice gate",
                                               "encoder-layer mechanism", "translation")}
    organisms = {organism, *on.values(), *other_organisms}
    clean = [name for name in s.models if name not in organisms]
    return [accept_ref_row(s, organism, clean), masked_row(s, on["masked recovery"], clean),
            switch_row(s, on["switch rate"], clean), gate_row(s, on["voice gate"], clean),
            encoder_row(s, on["encoder-layer mechanism"]), translation_row(s, on["translation"], clean),
            substitution_row(s), ranking_row(s, organism, clean)]


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _cell(r: Readout) -> str:
    if "nats/char" in r.label:  # an audio lift, not a share
        def number(x: float | None) -> str:
            return "–" if x is None else f"{x:+.3f}"
        text = f"{r.label} {number(r.value)}"
        if r.interval is not None and r.interval.low is not None and r.interval.high is not None:
            text += f" [{number(r.interval.low)}, {number(r.interval.high)}]"
        return text
    text = f"{r.label} {_pct(r.value)}"
    if r.interval is not None and r.interval.low is not None and r.interval.high is not None:
        text += " " + fmt_interval(r.interval.low, r.interval.high, digits=1)
    return text + (f" ({r.count})" if r.count else "")


def _md(text: str) -> str:
    """A table cell: pipes escaped, so a readout never splits the row."""
    return text.replace("|", "\\|")


def detectors_markdown(rows: list[DetectorRow]) -> str:
    """The rows as a Markdown table, the form the README and docs/calibration.md quote.

    Written next to calibration.json by every calibration run, so the documents are pasted from a run's own
    output, not retyped: one line per detector (organism, its readout, the clean models', the target, the
    status in bold with the comparison that decided it)."""
    lines = ["| detector | proven on | organism readout [95% CI] | clean models | target (issue 17) | status |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        organism = "; ".join(_cell(o) for o in r.organism_readouts) or "–"
        clean = "; ".join(f"{c.model}: {_cell(c)}" for c in r.clean_readouts) or "–"
        status = f"**{r.status}**" + (f" ({r.reason})" if r.reason else "")
        cells = [r.detector, r.organism or "the panel", organism, clean, r.target, status]
        lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def readme_markdown(rows: list[DetectorRow]) -> str:
    """The rows as the README's short calibration section: detector, organism, status with the comparison that
    decided it, then one sentence naming every target that failed (issue 17: the README's calibration section
    is regenerated from the calibration's output and says plainly which targets failed).  The readouts of the
    clean models and the targets in words are the long table's (``detectors_markdown``)."""
    lines = ["| detector | proven on | result |", "|---|---|---|"]
    for r in rows:
        status = f"**{r.status}**" + (f" ({r.reason})" if r.reason else "")
        lines.append("| " + " | ".join(_md(c) for c in (r.detector, r.organism or "the panel", status)) + " |")
    checked = [r for r in rows if r.status in ("pass", "fail")]
    failed = [r.detector for r in checked if r.status == "fail"]
    unread = [r.detector for r in rows if r.status == "not run"]
    lines.append("")
    if failed:
        lines.append(f"Failed: {_series(failed)} ({len(failed)} of the {len(checked)} detectors with a target).")
    else:
        lines.append(f"Every target was met ({len(checked)} detectors with a target).")
    if unread:
        lines.append(f"Not run in this calibration: {_series(unread)}.")
    return "\n".join(lines) + "\n"


def _series(names: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def print_detectors(rows: list[DetectorRow], file=None) -> None:
    """The rows for a terminal: a narrow table (detector, organism, status, why), then each detector's target
    and readouts one per line.  The readouts of eight models in one table cell ran to hundreds of columns;
    the documents' wide table is ``detectors_markdown``."""
    out = file or sys.stdout
    render_table(["detector", "proven on", "status", "why"],
                 [[r.detector, r.organism or "the panel", r.status, r.reason] for r in rows],
                 title="Calibration: one row per detector (issue 17's targets)", file=out)
    for r in rows:
        print(f"{r.detector} ({r.organism or 'the panel'}): {r.status}; target: {r.target}", file=out)
        for o in r.organism_readouts:
            print(f"    {_cell(o)}", file=out)
        for c in r.clean_readouts:  # the organism's own rows here are its random controls (the encoder row)
            print(f"    {_cell(c)}" if c.model == r.organism else f"    clean {c.model}: {_cell(c)}", file=out)
