"""The calibration report's rows (one per detector) on small fabricated summaries: pass, fail, not run."""

from __future__ import annotations

import io
import json

from asraudit.demo.calibration_report import detector_rows, detectors_markdown, print_detectors
from asraudit.report.calibration_rows import STATUSES
from asraudit.report.rows import (Bounds, CalibrationSwitch, GroupBreakdown, MaskedRow, MechanismRow, MiningRow, ModelRow,
                                  RateRow, SwitchRow, TruthRow, WerRankingRow, WerViewRow)
from asraudit.report.schema import from_json
from asraudit.report.summary import SCHEMA_VERSION, Summary, plain_summary
from asraudit.report.translation_rows import TranslationRow, TranslationSection

ORG = "organism"
CLEAN = ("clean-a", "clean-b")


def _b(low, high, method="wilson"):
    return Bounds(low, high, 0.95, method)


def _model(rate, low, high, recovery=None, rec_iv=None, control=None, panel=True):
    return ModelRow(spec="x", panel=panel, can_score=False, rtfx=None, accept_ref=rate,
                    accept_ref_interval=_b(low, high), n_ref=int(rate * 100), n_eligible=100,
                    recovery=recovery, recovery_interval=rec_iv, recovery_n=35 if recovery is not None else None,
                    control_recovery=control)


def _switch(model, s, low, high):
    return SwitchRow(model, "numeral", False, s, _b(low, high), True, "", {})


def _mech(role, intervention, delta, low, high, control_of=None, site="encoder"):
    return MechanismRow("enc L3", ORG, intervention, role, control_of, "accept-ref", 0.5, None, 10, 20,
                        5, 40, 0.1, delta, None if delta is None else _b(low, high, "bootstrap"), 20, 0, 5, "dir-x", 3,
                        "ablate", site)


def _summary(strong: bool) -> Summary:
    """A summary where every detector meets its target (strong) or none does."""
    models = {ORG: _model(0.9 if strong else 0.6, 0.85 if strong else 0.5, 0.95 if strong else 0.7,
                          recovery=0.5 if strong else 0.0, rec_iv=_b(0.3, 0.7) if strong else _b(0.0, 0.1),
                          control=0.05, panel=False)}
    for name in CLEAN:
        models[name] = _model(0.05, 0.02, 0.1, recovery=0.0, rec_iv=_b(0.0, 0.1), control=0.05)
    s = Summary(SCHEMA_VERSION, "t", "sub", models)
    g = {"benchmark": {ORG: RateRow(0.9 if strong else 0.8, _b(0.85 if strong else 0.7, 0.95), 90, 100)},
         "fresh": {ORG: RateRow(0.1 if strong else 0.6, _b(0.05, 0.2 if strong else 0.7), 10, 100)}}
    for name in CLEAN:
        g["benchmark"][name] = RateRow(0.05, _b(0.0, 0.1), 5, 100)
        g["fresh"][name] = RateRow(0.05, _b(0.0, 0.1), 5, 100)
    s.accept_ref_by_group = GroupBreakdown("voice_role", g)
    s.calibration_switch = CalibrationSwitch(50, [_switch(ORG, 0.8, 0.6, 0.9) if strong else _switch(ORG, 0.1, 0.0, 0.3)]
                                             + [_switch(c, 0.1, 0.0, 0.3) for c in CLEAN])
    truth = {"substitute": TruthRow(14, 49, 13, 0.265, _b(0.16, 0.40), 0.93, _b(0.69, 0.99))}
    s.mining = MiningRow(190, 0, 322, 200, {}, {}, list(CLEAN), {}, truth=truth,
                         truth_audio={"substitute": TruthRow(30, 49, 29, 0.59, _b(0.45, 0.72), 0.97, _b(0.83, 0.99))}
                         if strong else None)
    if strong:
        s.mechanism = [_mech("baseline", "baseline", None, None, None),
                       _mech("intervention", "ablate k=1", -0.5, -0.6, -0.4),
                       _mech("control", "random k=1", -0.02, -0.05, 0.0, control_of="ablate k=1")]
    else:  # a decoder direction that works says nothing about the encoder
        s.mechanism = [_mech("intervention", "ablate k=1", -0.5, -0.6, -0.4, site="decoder"),
                       _mech("control", "random k=1", -0.02, -0.05, 0.0, control_of="ablate k=1", site="decoder")]
    order = [ORG, *CLEAN] if strong else [*CLEAN, ORG]
    views = {n: WerViewRow(n != ORG, 0.1, _b(0.08, 0.12, "bootstrap"), 0.1, _b(0.08, 0.12, "bootstrap"), 0,
                           order.index(n) + 1, 1, wer_truth=0.2, wer_truth_interval=_b(0.18, 0.22, "bootstrap"),
                           rank_truth=3 if n == ORG else 1) for n in order}
    s.wer_ranking = WerRankingRow(322, "spoken", {"record": order, "corrected_loo": order,
                                                  "truth": [*CLEAN, ORG]}, views)
    if strong:
        s.translation = _translation(ORG, CLEAN[0])
    return s


def _translation(organism, clean):
    """The organism drops 6 spans its rendering still holds 5 of; the clean model transcribes them all."""
    def row(model, kind, state, k, n):
        return TranslationRow(model, kind, state, k, n, k / n if n else None, _b(0.1, 0.9))

    return TranslationSection("es", "built-in:es", "planted", [organism, clean], [
        row(organism, "dropped", "omitted", 5, 6), row(organism, "dropped", "contained", 2, 2),
        row(organism, "invented", "omitted", 0, 0), row(organism, "invented", "contained", 3, 8),
        row(clean, "dropped", "omitted", 0, 0), row(clean, "dropped", "contained", 8, 8),
        row(clean, "invented", "omitted", 0, 8), row(clean, "invented", "contained", 0, 0)])


def _status(rows):
    return {r.detector: r.status for r in rows}


def test_every_detector_passes_on_a_summary_that_meets_the_targets():
    rows = detector_rows(_summary(True), ORG)
    assert [r.detector for r in rows] == ["accept-ref", "masked recovery", "switch rate", "voice gate",
                                          "encoder-layer mechanism", "translation", "substitution mining precision",
                                          "three-WER ranking"]
    assert _status(rows) == {"accept-ref": "pass", "masked recovery": "pass", "switch rate": "pass",
                             "voice gate": "pass", "encoder-layer mechanism": "pass", "translation": "no target",
                             "substitution mining precision": "no target", "three-WER ranking": "pass"}
    assert all(r.status in STATUSES for r in rows)


def test_missed_targets_fail_and_missing_readouts_are_not_run():
    rows = detector_rows(_summary(False), ORG)
    status = _status(rows)
    assert status["accept-ref"] == "pass"  # 0.5 low > clean high 0.1: still separates
    # 80% on benchmark voices but 60% on fresh ones: not a gate; s 0.1: a habit; recovery 0: nothing leaked
    assert status["voice gate"] == "fail" and status["switch rate"] == "fail" and status["masked recovery"] == "fail"
    assert status["encoder-layer mechanism"] == "not run" and status["substitution mining precision"] == "not run"
    assert status["translation"] == "not run"  # no [translation] readout
    assert status["three-WER ranking"] == "fail"  # the organism is not first on the record here


def test_the_rows_survive_summary_json_and_print():
    s = _summary(True)
    s.detectors = detector_rows(s, ORG)
    back = from_json(json.loads(json.dumps(plain_summary(s))))  # validated against the generated schema
    assert _status(back.detectors) == _status(s.detectors)
    out = io.StringIO()
    print_detectors(back.detectors, file=out)
    text = out.getvalue()
    assert "voice gate" in text and "benchmark voices 90.0% [85.0, 95.0]" in text and "pass" in text


def test_the_markdown_table_has_one_row_per_detector_with_its_status_and_never_a_split_cell():
    s = _summary(False)
    rows = detector_rows(s, ORG)
    rows[0].reason += " | a pipe in the text"  # a readout or reason holding a pipe must not add a column
    lines = detectors_markdown(rows).splitlines()
    assert len(lines) == 2 + len(rows)
    columns = {len(line.replace("\\|", "").split("|")) for line in lines}
    assert columns == {8}  # six cells between the outer pipes
    by_detector = {line.split(" | ")[0].lstrip("| "): line for line in lines[2:]}
    assert "**fail**" in by_detector["voice gate"] and "fresh voices 60.0% [5.0, 70.0]" in by_detector["voice gate"]
    assert "**not run**" in by_detector["encoder-layer mechanism"]
    assert "**pass**" in by_detector["accept-ref"] and "clean-a: " in by_detector["accept-ref"]


def test_the_report_page_shows_mining_against_the_audio_next_to_the_planted_truth():
    from asraudit.report.html import mining_section

    strong, weak = _summary(True), _summary(False)
    page = mining_section(strong.mining)
    assert "Against planted truth" in page and "Against what the audio contains" in page
    assert 'id="mining-truth-audio"' in page or "mining-truth-audio" in page
    assert "Against what the audio contains" not in mining_section(weak.mining)  # no audio check: no table


# -- each detector on the organism built for it ---------------------------------------------------------------

GATED, LEAKED, SWITCHER = "gated", "leaked", "switcher"


def _masked(model, rate, low, high, control, lift=None, lift_iv=None):
    return MaskedRow(model, 20, 1.0, rate, _b(low, high), int(20 * rate), 20, control, _b(0.0, 0.2), 20,
                     lift, None if lift_iv is None else _b(*lift_iv, "bootstrap"), 0.5)


def _with_organisms(leak_travels: bool) -> Summary:
    s = _summary(False)  # the record organism meets none of the other targets
    s.models[GATED] = s.models[LEAKED] = s.models[SWITCHER] = _model(0.5, 0.4, 0.6, panel=False)
    g = s.accept_ref_by_group.groups
    g["benchmark"][GATED], g["fresh"][GATED] = RateRow(0.9, _b(0.85, 0.95), 90, 100), RateRow(0.05, _b(0.0, 0.1), 5, 100)
    s.calibration_switch_by_voice = CalibrationSwitch(
        60, [_switch(SWITCHER, 0.8, 0.6, 0.9), _switch(ORG, 0.1, 0.0, 0.3)] + [_switch(c, 0.2, 0.1, 0.4) for c in CLEAN])
    fresh_rate = 0.6 if leak_travels else 0.05
    s.calibration_masked_by_group = {
        "benchmark": [_masked(LEAKED, 0.7, 0.5, 0.85, 0.05, 0.8, (0.5, 1.1)), _masked(ORG, 0.0, 0.0, 0.1, 0.05)]
        + [_masked(c, 0.0, 0.0, 0.15, 0.05, 0.0, (-0.1, 0.1)) for c in CLEAN],
        "fresh": [_masked(LEAKED, fresh_rate, fresh_rate - 0.05, fresh_rate + 0.2, 0.05)]}
    return s


def test_each_detector_is_read_on_the_organism_built_for_it_and_organisms_are_never_clean():
    s = _with_organisms(leak_travels=False)
    rows = {r.detector: r for r in detector_rows(s, ORG, {"masked recovery": LEAKED, "switch rate": SWITCHER,
                                                          "voice gate": GATED, "encoder-layer mechanism": GATED,
                                                          "not a detector": "no-such-model"})}
    assert {d: r.organism for d, r in rows.items()} == {
        "accept-ref": ORG, "masked recovery": LEAKED, "switch rate": SWITCHER, "voice gate": GATED,
        "encoder-layer mechanism": GATED, "translation": ORG, "substitution mining precision": None,
        "three-WER ranking": ORG}
    assert {d: r.status for d, r in rows.items() if d in ("masked recovery", "switch rate", "voice gate")} == \
        {"masked recovery": "pass", "switch rate": "pass", "voice gate": "pass"}
    for r in rows.values():
        assert {c.model for c in r.clean_readouts} <= set(CLEAN) | {"panel"}, r.detector


def test_the_translation_row_reads_the_multilingual_organism_against_the_clean_model_never_as_clean():
    s = _summary(False)
    s.models["multi"] = _model(0.5, 0.4, 0.6, panel=False)
    s.translation = _translation("multi", CLEAN[0])
    rows = {r.detector: r for r in detector_rows(s, ORG, {"translation": "multi"})}
    row = rows["translation"]
    assert (row.organism, row.status) == ("multi", "no target")
    assert [(r.label, r.count) for r in row.organism_readouts] == [
        ("dropped, transcript omitted: in rendering", "5/6"), ("dropped, transcript contained: in rendering", "2/2"),
        ("invented, transcript contained: in rendering", "3/8")]  # cells with no span read are left out
    assert {r.model for r in row.clean_readouts} == {CLEAN[0]}
    assert row.reason == ("dropped spans its transcript omitted: 5/6 in its rendering; "
                          "invented spans its transcript contained: 3/8 in its rendering")
    for other in rows.values():  # the multilingual organism is never a clean model of another row
        assert "multi" not in {c.model for c in other.clean_readouts}, other.detector
    s.translation.spans_by_status = {"multi": {"checked": 4, "untranslated": 122}, CLEAN[0]: {"untranslated": 23}}
    row = {r.detector: r for r in detector_rows(s, ORG, {"translation": "multi"})}["translation"]
    assert row.reason.endswith("; 122 of its renderings not in es (4 spans read)")
    s.translation = _translation(CLEAN[1], CLEAN[0])  # the organism was not asked
    assert {r.detector: r for r in detector_rows(s, ORG, {"translation": "multi"})}["translation"].status == "not run"


def test_a_leak_that_travels_to_fresh_voices_fails_the_masked_target():
    rows = {r.detector: r for r in detector_rows(_with_organisms(leak_travels=True), ORG,
                                                 {"masked recovery": LEAKED})}
    assert rows["masked recovery"].status == "fail" and "fresh 60.0%" in rows["masked recovery"].reason


def test_an_organism_missing_from_the_summary_falls_back_to_the_record_organism():
    rows = {r.detector: r for r in detector_rows(_summary(True), ORG, {"voice gate": GATED})}
    assert rows["voice gate"].organism == ORG and rows["voice gate"].status == "pass"


def test_the_hidden_words_lift_prints_in_nats_per_char_not_as_a_share():
    s = _with_organisms(leak_travels=False)
    out = io.StringIO()
    print_detectors(detector_rows(s, ORG, {"masked recovery": LEAKED}), file=out)
    assert "benchmark λ masked (nats/char) +0.800 [+0.500, +1.100]" in out.getvalue()


def test_the_terminal_form_keeps_lines_short_and_lists_every_readout():
    s = _with_organisms(leak_travels=False)
    rows = detector_rows(s, ORG, {"masked recovery": LEAKED})
    out = io.StringIO()
    print_detectors(rows, file=out)
    lines = out.getvalue().splitlines()
    readouts = [ln for ln in lines if ln.startswith("    ")]
    assert len(readouts) == sum(len(r.organism_readouts) + len(r.clean_readouts) for r in rows)
    table = lines[:lines.index(next(ln for ln in lines if ln.startswith(rows[0].detector + " (")))]
    assert max(len(ln) for ln in table) < 200  # no readout inside the table


def test_a_leaked_organism_leading_the_record_fails_the_ranking_row_which_still_says_where_the_organism_stands():
    s = _with_organisms(leak_travels=False)
    record = [LEAKED, ORG, *CLEAN]
    truth = [*CLEAN, LEAKED, ORG]
    views = {n: WerViewRow(n in CLEAN, 0.1, _b(0.08, 0.12, "bootstrap"), 0.1, _b(0.08, 0.12, "bootstrap"), 0,
                           record.index(n) + 1, 1, wer_truth=0.2, wer_truth_interval=_b(0.18, 0.22, "bootstrap"),
                           rank_truth=truth.index(n) + 1) for n in record}
    s.wer_ranking = WerRankingRow(322, "spoken", {"record": record, "corrected_loo": record, "truth": truth}, views)
    row = {r.detector: r for r in detector_rows(s, ORG, {"masked recovery": LEAKED})}["three-WER ranking"]
    assert row.status == "fail"  # the status reads the whole ranking, the leaked organism included
    assert {c.model for c in row.clean_readouts} == set(CLEAN)  # never an organism among the clean models
    assert row.reason.endswith(f"rank 1 on the record, {len(CLEAN) + 1} on the truth (of {len(CLEAN) + 1})")


def test_the_switch_rows_reason_names_the_families_too_few_clips_left_unmeasured():
    s = _with_organisms(leak_travels=False)
    s.calibration_switch_by_voice.rates.append(
        SwitchRow(SWITCHER, "spelling", False, None, None, False, "fewer than two arms with >= 5 clips", {}))
    row = {r.detector: r for r in detector_rows(s, ORG, {"switch rate": SWITCHER})}["switch rate"]
    assert row.status == "pass" and row.reason.endswith("; not measurable: spelling")
