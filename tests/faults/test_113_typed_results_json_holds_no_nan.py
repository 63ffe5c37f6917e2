"""Case 113: the JSON form of a typed result (``to_json()``) held NaN where a rate or bound is undefined.

From Python, ``result.accept_ref["m"].to_json()`` of a model with no
eligible edit held ``"rate": nan`` (and NaN Wilson bounds when it had no
edit at all), an ``Interval``'s ``to_json()`` NaN bounds (``corpus_wer(...,
n_boot=0)``), and so did the masked, lift, battery, review, timing and
mechanism results an audit returns: ``json.dumps`` wrote the token ``NaN``,
which JSON does not have (a strict reader, ``JSON.parse`` or ``jq``, refuses
the file), while ``asraudit refdis --json`` and summary.json write null for the
same numbers.  Every ``to_json()`` now gives None (null) there, as the files
do; ``refdis --compat hume --json`` keeps the paper's NaN on purpose (its
layout is the release's).
"""

from __future__ import annotations

import json
import math

from asraudit import CorpusScore, Interval, accept_ref_from_predictions, corpus_wer, load_predictions
from asraudit.audio.timing import TimingAgreement
from asraudit.mechanism.experiment import VariantReadout
from asraudit.probes.battery import BatterySpec
from asraudit.probes.battery_readout import BatteryResult, Row, Value
from asraudit.probes.lift_run import EditItem, EditLift
from asraudit.probes.masked_run import MaskSummary, Rate
from asraudit.probes.lift import summarize_lift
from asraudit.probes.refdis_score import AcceptRef
from asraudit.probes.review import ReviewSummary

from conftest import PANEL, panel_files, write_preds

NAN = float("nan")


def strict(payload) -> object:
    """``json.dumps`` as a strict reader needs it: no NaN or infinity token."""
    return json.loads(json.dumps(payload, allow_nan=False))


def test_accept_ref_of_a_model_without_eligible_edits(tmp_path):
    rows = [(f"c{i}", f"well the cat sat on mat {i}", f"the cat sat on mat {i}") for i in range(4)]
    panel_files(tmp_path, rows)
    write_preds(tmp_path / "odd.jsonl", [(c, r, "zebra " + h) for c, r, h in rows])  # reads every edit as other
    result = accept_ref_from_predictions(load_predictions(tmp_path), PANEL)
    odd = result.accept_ref["odd"]
    assert odd.n_eligible == 0 and math.isnan(odd.rate)  # the typed value keeps NaN: a rate over nothing
    assert strict(odd.to_json())["rate"] is None
    for table in (result.by_kind, result.by_position):
        for scores in table.values():
            assert strict({m: a.to_json() for m, a in scores.items()})["odd"]["rate"] is None
    strict({m: c.to_json() for m, c in result.cost.items()})
    nothing = AcceptRef("m", 0, 0, 0, 0, NAN, NAN)  # no edit at all: no Wilson bounds either
    assert strict(nothing.to_json())["rate_interval"] == {"low": None, "high": None, "level": 0.95,
                                                          "method": "wilson"}


def test_an_interval_without_bounds():
    score = corpus_wer(["the cat"], ["the cat"], n_boot=0)
    assert strict(score.interval.to_json()) == {"low": None, "high": None, "level": 0.95, "method": "bootstrap"}
    assert Interval(0.5, 0.25, 0.75).to_json() == {"low": 0.25, "high": 0.75, "level": 0.95, "method": "bootstrap"}


def test_the_audit_stages_results():
    empty = Rate(0, 0, NAN, NAN)
    assert strict(empty.to_json()) == {"k": 0, "n": 0, "rate": None, "rate_interval": {
        "low": None, "high": None, "level": 0.95, "method": "wilson"}}
    lift = summarize_lift([])
    masked = MaskSummary("m", 0, empty, empty, empty, empty, lift, lift)
    assert strict(masked.to_json())["lift_masked"]["mean"] is None
    item = EditItem("e0", "c0", "replace", "middle", ("a", "b"), 0, 1, ("c",))
    assert strict(EditLift("m", item, NAN, None).to_json())["lift_r"] is None
    value = Value(NAN, NAN, NAN, 0)
    battery = BatteryResult(BatterySpec("b", ("masked",), ()), [Row("m", "masked", "clean", value, value)], [])
    assert strict(battery.to_json())["rows"][0]["value"] == {"estimate": None, "estimate_interval": {
        "low": None, "high": None, "level": 0.95, "method": "bootstrap"}, "n": 0}
    review = strict(ReviewSummary().to_json())
    assert review["precision"] is None
    timing = TimingAgreement(0, 0, NAN, NAN, NAN, NAN, NAN, {50: NAN}, NAN)
    assert strict(timing.to_json()) == {"n_clips": 0, "n_words": 0, "median_ms": None, "mean_ms": None,
                                        "p90_ms": None, "start_median_ms": None, "end_median_ms": None,
                                        "within": {"50": None}, "mean_overlap": None}
    # a rate over no reference words (corpus_wer itself refuses such texts since case 288)
    no_words = CorpusScore(NAN, 0, 0, 0, 0, 0, 1, Interval(NAN, NAN, NAN))
    readout = VariantReadout("v", "baseline", "m", "h", 0, 0, no_words,
                             AcceptRef("m", 0, 0, 0, 0, NAN, NAN))
    got = strict(readout.to_json(readout))
    assert got["wer"]["rate"] is None and got["accept_ref"]["rate"] is None
