"""The HTML report: every section of summary.json, escaped, self-contained, tolerant of holes.

Pages are checked through a parsed element tree (``parse_page``), not by
substring search, so "the transcript is text" means what a browser means by
it: no element was created from it and its characters are in a text node.
``parse_page`` and ``realistic_summary`` are reused by the headless-browser
test (tests/test_report_chromium.py).
"""

from __future__ import annotations

import json
import random
from html.parser import HTMLParser

import pytest

from asraudit.report.rows import ModelRow
from asraudit.report.schema import from_json
from asraudit.report.summary import SCHEMA_VERSION, Summary, plain_summary
from asraudit.errors import InputError
from asraudit.report.html import render_report
from asraudit.report.svg import nice_ticks, tick_label

EVIL = '<script>alert(1)</script></script><b>bold</b>'
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


class Node:
    """An element of a parsed page: tag, attributes, children (Nodes and text strings)."""

    def __init__(self, tag: str, attrs: dict, parent: "Node | None" = None):
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    def iter(self):
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list["Node"]:
        return [n for n in self.iter() if (tag is None or n.tag == tag)
                and (cls is None or cls in (n.attrs.get("class") or "").split())]

    def by_id(self, ident: str) -> "Node | None":
        return next((n for n in self.iter() if n.attrs.get("id") == ident), None)


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, dict(attrs), self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse_page(page: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(page)
    builder.close()
    return builder.root


def rows_of(table: Node) -> list[list[str]]:
    """The body rows of a table as lists of cell texts."""
    body = table.find_all("tbody")[0]
    return [[td.text().strip() for td in tr.find_all("td")] for tr in body.find_all("tr")]


MODELS = ("whisper-tiny.en", "whisper-base", "pocketsphinx", "organism")
CONDITIONS = ("original", "noise 10 dB", "reverb", "truncated", "spliced donor")
READOUTS = {"accept-ref": "rate", "recovery": "rate", "lift(r)": "value", "lift(mask)": "value"}


def iv(low, high, method: str = "bootstrap") -> dict:
    """An interval as summary.json spells it (layout 2.0)."""
    return {"low": low, "high": high, "level": 0.95, "method": method}


def model_row(spec: str = "m", **fields) -> dict:
    return {"spec": spec, "panel": False, "can_score": False, "rtfx": None, **fields}


def wer_ranking_of() -> dict:
    """The organism first on the record and last on the truth; two panel members, one scored on the record once."""
    wers = {"whisper-tiny.en": (0.12, 0.10, 0.09), "whisper-base": (0.10, 0.08, 0.07),
            "pocketsphinx": (0.30, 0.29, 0.28), "organism": (0.05, 0.14, 0.15)}
    order = {k: sorted(wers, key=lambda m: wers[m][i]) for i, k in enumerate(("record", "corrected_loo", "truth"))}
    models = {m: {"panel_member": m in MODELS[:2], "wer_record": r, "wer_record_interval": iv(r - 0.01, r + 0.01),
                  "wer_corrected_loo": c, "wer_corrected_loo_interval": iv(c - 0.01, c + 0.01),
                  "record_fallback_clips": 1 if m == "whisper-base" else 0,
                  "rank_record": order["record"].index(m) + 1, "rank_corrected_loo": order["corrected_loo"].index(m) + 1,
                  "wer_truth": t, "wer_truth_interval": iv(t - 0.01, t + 0.01), "corrected_minus_truth": c - t,
                  "corrected_minus_truth_interval": iv(c - t - 0.005, c - t + 0.005),
                  "rank_truth": order["truth"].index(m) + 1}
              for m, (r, c, t) in wers.items()}
    return {"clips": 84, "truth_field": "spoken", "ranking": order, "models": models}


def summary_of(**sections) -> dict:
    """A summary.json of this layout with only ``sections`` filled (the rest: stages that did not run)."""
    return {"schema_version": SCHEMA_VERSION, "title": "", "subtitle": "", "models": {}, **sections}


def provenance_of(**fields) -> dict:
    return {"asraudit": "0.1.0", "created": "2025-01-01T00:00:00Z", "spec_file": "audit.toml", "spec": {},
            "corpus": {"source": "parliament-mini", "clips": 84, "language": "en"}, "models": {}, "panel": [], "seed": 0,
            "normalizer": "whisper-en", "bootstrap": 1000, "python": "3.11.2", "platform": "Linux", "packages": {},
            "store": None, "runtime_s": 0.0, "notes": [], "sampling": {"masked": None, "lift": None}, **fields}


def render(summary: dict) -> str:
    """The page of a summary.json's content, read back as the typed summary the report reads."""
    return render_report(from_json(summary, "test-summary.json"))


def realistic_summary(n_edits: int = 20, evil: str = EVIL) -> dict:
    """A summary.json shaped like the audit's, with every section filled and ``evil`` in corpus and model text."""
    rng = random.Random(0)

    def rate():
        v = rng.uniform(0.05, 0.9)
        return v, max(0.0, v - 0.1), min(1.0, v + 0.1)

    models = {}
    for i, name in enumerate(MODELS):
        flagged = name == "organism"
        v, lo, hi = (0.82, 0.7, 0.9) if flagged else rate()
        models[name] = {
            "spec": name, "panel": i < 2, "can_score": name != "pocketsphinx",
            "wer": 0.05 + 0.04 * i, "wer_interval": iv(0.04 + 0.04 * i, 0.06 + 0.04 * i),
            "wer_corrected": 0.045 + 0.04 * i, "wer_corrected_interval": iv(0.035 + 0.04 * i, 0.055 + 0.04 * i),
            "wer_gained": 0.012 if flagged else 0.001,
            "accept_ref": v, "accept_ref_interval": iv(lo, hi, "wilson"), "n_ref": 33 if flagged else 6,
            "n_eligible": 40,
            "recovery": 0.4 if flagged else 0.05, "recovery_interval": iv(0.3, 0.5, "wilson"), "recovery_n": 60,
            "control_recovery": 0.04, "control_recovery_interval": iv(0.01, 0.1, "wilson"),
            "switch_rate": None if name == "pocketsphinx" else 0.3, "switch_rate_interval": iv(0.2, 0.4, "wilson"),
            "switch_note": "no family with both arms in the references" if name == "pocketsphinx" else None,
            "convention_agreement": 0.7, "convention_agreement_interval": iv(0.6, 0.8),
            "lift": None if name == "pocketsphinx" else rng.uniform(-0.05, 0.3), "lift_interval": iv(-0.1, 0.35),
            "lift_n": 40, "rtfx": 30.0 + i, "flagged": flagged,
            "flag_reasons": ["accept-ref above every clean model", "recovers masked entities"] if flagged else [],
        }
        models[name] = {k: v for k, v in models[name].items() if v is not None}  # the writer leaves None out
    by_kind = {m: {k: {"rate": r[0], "rate_interval": iv(r[1], r[2], "wilson"), "n_ref": 3, "n_eligible": 10}
                   for k, r in ((k, rate()) for k in ("delete", "insert", "substitute"))} for m in MODELS}
    groups = {role: {m: {"rate": r[0], "rate_interval": iv(r[1], r[2], "wilson"), "n_ref": 2, "n_eligible": 8}
                     for m, r in ((m, rate()) for m in MODELS)} for role in ("chair", "member", "guest")}
    battery_rows = []
    for m in MODELS:
        for readout, kind in READOUTS.items():
            for c in CONDITIONS:
                v = rng.uniform(0.05, 0.9) if kind == "rate" else rng.uniform(-0.2, 0.4)
                battery_rows.append({"model": m, "condition": c, "readout": readout, "kind": kind, "value": v,
                                     "value_interval": iv(v - 0.08, v + 0.08), "n": 40, "delta": v - 0.3,
                                     "delta_interval": iv(v - 0.4, v - 0.2)})
    contrasts = [{"model": m, "readout": r, "contrast": "noise vs reverb", "kind": k, "did": 0.05,
                  "did_interval": iv(-0.02, 0.12), "n": 40} for m in MODELS for r, k in READOUTS.items()]
    mechanism = []

    def mechanism_row(experiment, model, intervention, role, value, lo, hi, n_ref, changed, wer, control_of=None):
        return {"experiment": experiment, "model": model, "intervention": intervention, "role": role,
                "control_of": control_of, "metric": "accept-ref", "value": value,
                "value_interval": iv(lo, hi, "wilson"), "n_ref": n_ref, "n_eligible": 40, "changed": changed,
                "clips": 84, "wer": wer, "delta": None, "delta_interval": None, "delta_n": None, "to_ref": None,
                "to_audio": None, "direction": "dir-0", "layer": 2, "action": "add"}

    for experiment, model in (("steer-ref-direction", "organism"), ("patch-encoder", "whisper-tiny.en")):
        mechanism.append(mechanism_row(experiment, model, "baseline", "baseline", 0.8, 0.7, 0.9, 32, 0, 0.06))
        for label, value in (("alpha=-4", 0.3), ("alpha=-8", 0.15)):
            mechanism.append(mechanism_row(experiment, model, label, "intervention", value, value - 0.1,
                                           value + 0.1, int(40 * value), 30, 0.08))
            mechanism.append(mechanism_row(experiment, model, f"random {label}", "control", 0.78, 0.68, 0.88, 31,
                                           4, 0.061, control_of=label))
    verdicts = ("ref", "audio", "other", "ineligible")
    tokens = "madam president the house voted on the seventy second amendment today".split()
    edits = []
    for k in range(n_edits):
        start, kind = k % 6, ("delete", "insert", "substitute")[k % 3]
        end, a = {"delete": (start + 2, ""), "insert": (start, "mister"), "substitute": (start + 1, "a")}[kind]
        audio_reading = tokens[:start] + a.split() + tokens[end:]
        texts = {"ref": " ".join(tokens), "audio": " ".join(audio_reading),
                 "other": " ".join(tokens[:start] + ["uh"] + tokens[end:]), "ineligible": ""}
        model_views = {}
        for j, m in enumerate(MODELS):
            verdict = verdicts[(k + j) % 4]
            text = evil if (k, j) == (5, 3) else texts[verdict]
            model_views[m] = {"verdict": verdict, "text": text, "tokens": text.split(),
                              "span": [start, min(end, len(text.split()))], "words": "", "raw": ""}
        edits.append({"edit_id": f"e{k}", "clip": evil if k == 3 else f"clip-{k:03d}", "kind": kind,
                      "position": ("start", "middle", "end")[k % 3], "r": " ".join(tokens[start:end]), "a": a,
                      "ref_tokens": tokens, "span": [start, end], "models": model_views})
    return summary_of(
        title="asraudit · parliament-mini", subtitle="4 models, 84 clips",
        models=models,
        accept_ref_by_kind=by_kind,
        accept_ref_by_group={"field": "voice role", "groups": groups},
        mining={"edits": 120, "edits_leave_one_out": 6, "clips": 84, "clips_with_edits": 70,
                "status": {"mined": 84}, "by_kind": {"delete": 50, "insert": 40, "substitute": 30},
                "panel": list(MODELS[:2]), "params": {"min_agree": 2, "autojunk": False},
                "truth": {k: {"planted": 40, "mined": 38, "matched": 35, "precision": 35 / 38, "recall": 35 / 40,
                              "precision_interval": iv(0.8, 0.97, "wilson"),
                              "recall_interval": iv(0.74, 0.95, "wilson")}
                          for k in ("delete", "insert", "substitute", "all")}},
        wer_ranking=wer_ranking_of(),
        masked=[{"model": m, "targets": 60, "clean": 0.9, "masked": 0.3, "masked_interval": iv(0.2, 0.4, "wilson"),
                 "masked_k": 18, "masked_n": 60, "control": 0.05, "control_interval": iv(0.01, 0.1, "wilson"),
                 "control_n": 60, "lift_masked": -0.02, "lift_masked_interval": iv(-0.05, 0.01),
                 "lift_clean": 0.4} for m in MODELS],
        conventions={
            "switch": [{"model": m, "group": "percent", "pooled": True, "s": 0.3, "s_interval": iv(0.2, 0.45, "wilson"),
                        "arms": {"%": {"follow": 5, "n": 10}, "percent": {"follow": 3, "n": 10}},
                        "measurable": True, "note": ""} for m in MODELS[:3]]
                      + [{"model": "organism", "group": "numbers", "pooled": True, "s": None, "s_interval": None,
                          "arms": {}, "measurable": False, "note": "only one arm in the references"}],
            "agreement": [{"model": m, "group": "percent", "rate": 0.7, "rate_interval": iv(0.6, 0.8), "agree": 14,
                           "rendered": 20} for m in MODELS],
        },
        lift=[{"model": m, "kind": k, "side": s, "mean": 0.1, "mean_interval": iv(0.05, 0.15), "n": 20,
               "share_positive": 0.8} for m in MODELS[:2] for k in ("delete", "substitute") for s in ("r", "a")],
        battery={"name": "trigger-battery", "conditions": list(CONDITIONS), "rows": battery_rows,
                 "contrasts": contrasts, "notes": ["revoice skipped: espeak-ng not installed"], "edits": 40,
                 "targets": 60},
        mechanism=mechanism,
        stage_seconds={"transcribe": 1.5, "mining": 0.25},
        edits=edits,
        provenance=provenance_of(store="/tmp/store.sqlite", runtime_s=412.5,
                                 spec={"corpus": "parliament-mini", "note": evil},
                                 models={m: {"model_id": m, "config_hash": f"{k:08x}", "can_score": True}
                                         for k, m in enumerate(MODELS)},
                                 packages={"numpy": "2.1.0", "ctranslate2": "4.5.0"}, notes=[evil]),
    )


# ---------------------------------------------------------------- escaping


def test_transcripts_clip_ids_and_provenance_with_markup_end_up_as_text_not_markup():
    summary = realistic_summary()
    summary["battery"]["rows"][0]["condition"] = EVIL  # names from a user's spec too
    summary["mechanism"][1]["intervention"] = EVIL
    page = render(summary)
    assert EVIL not in page
    tree = parse_page(page)
    # Exactly the two scripts of the page itself: the data block and the filter.
    assert len(tree.find_all("script")) == 2
    assert tree.find_all("b", None) and all(b.text() != "bold" for b in tree.find_all("b"))
    edits = tree.by_id("edits").find_all("div", "edit")
    assert EVIL in edits[3].find_all("div", "meta")[0].text()          # clip id
    assert any(EVIL in h.text() for h in edits[5].find_all("div", "hyp"))  # a model's transcript
    assert EVIL in tree.by_id("provenance").text()                     # a provenance string and the spec
    assert EVIL in tree.by_id("battery-accept-ref").text() and EVIL in tree.by_id("mechanism").text()


def test_the_data_block_cannot_be_closed_by_a_model_name():
    summary = summary_of(models={"</script><script>alert(1)</script>": model_row(wer=0.1), "a&b": model_row()})
    tree = parse_page(render(summary))
    assert len(tree.find_all("script")) == 2
    block = tree.by_id("report-data").text()
    assert "<" not in block and ">" not in block and "&" not in block
    assert json.loads(block)["models"] == ["</script><script>alert(1)</script>", "a&b"]


def test_page_makes_no_network_reference():
    page = render(realistic_summary())
    assert "http://" not in page and "https://" not in page
    tree = parse_page(page)
    for node in tree.iter():
        assert "src" not in node.attrs
        assert node.attrs.get("href", "#").startswith("#")


# ---------------------------------------------------------------- sections


def test_every_section_of_a_full_summary_is_rendered():
    tree = parse_page(render(realistic_summary()))
    for ident in ("headline", "by-kind", "by-group", "mining-kinds", "mining-truth", "wer-ranking", "masked", "switch",
                  "agreement",
                  "lift", "contrasts", "battery-rows", "mechanism", "edits", "provenance", "provenance-models"):
        assert tree.by_id(ident) is not None, ident
    assert len(tree.find_all("svg", "scatter")) == 1
    assert not tree.find_all("p", "not-run")


def test_wer_ranking_shows_each_scheme_and_its_first_place():
    tree = parse_page(render(realistic_summary()))
    table = tree.by_id("wer-ranking")
    header = [th.text() for th in table.find_all("th")]
    rows = {r[0].split()[0]: dict(zip(header, r)) for r in rows_of(table)}
    assert rows["organism"]["WER record"].startswith("5.0%") and rows["organism"]["rank (record)"] == "1"
    assert rows["organism"]["rank (corrected)"] == "3" and rows["organism"]["rank (truth)"] == "3"
    assert rows["organism"]["corrected − truth"].startswith("-1.0 pts")
    note = tree.by_id("wer-ranking-section").text()
    assert "record (official): organism" in note and "truth: whisper-base" in note
    assert "1 member-clips had none" in note


def test_headline_shows_counts_control_and_flag_reasons():
    tree = parse_page(render(realistic_summary()))
    table = tree.by_id("headline")
    header = [th.text() for th in table.find_all("th")]
    rows = {r[0].split()[0]: dict(zip(header, r)) for r in rows_of(table)}
    organism = rows["organism"]
    assert organism["accept-ref"].startswith("82.0% [70.0%, 90.0%]") and "n=33/40" in organism["accept-ref"]
    assert "control 4.0%" in organism["masked recovery"]
    reasons = tree.by_id("flag-reasons").text()
    assert "organism" in reasons and "accept-ref above every clean model" in reasons
    assert "flagged" in organism["model"] and "panel" in rows["whisper-base"]["model"]
    assert rows["pocketsphinx"]["switch rate"].startswith("–")
    assert "no family with both arms" in rows["pocketsphinx"]["switch rate"]
    flagged_rows = [tr for tr in table.find_all("tr") if "flagged" in (tr.attrs.get("class") or "")]
    assert len(flagged_rows) == 1


def test_accept_ref_by_group_has_a_row_per_value_and_a_column_per_model():
    tree = parse_page(render(realistic_summary()))
    table = tree.by_id("by-group")
    assert [th.text() for th in table.find_all("th")] == ["voice role", *MODELS]
    assert [r[0] for r in rows_of(table)] == ["chair", "member", "guest"]
    assert tree.by_id("by-group-section").find_all("h2")[0].text() == "accept-ref by voice role"


def test_battery_draws_one_panel_per_readout_with_a_point_and_whisker_per_model_and_condition():
    summary = realistic_summary()
    summary["battery"]["rows"][0]["value"] = None  # one missing cell: no point there
    tree = parse_page(render(summary))
    panels = tree.by_id("battery").find_all("svg", "panel")
    assert [p.attrs["id"] for p in panels] == ["battery-accept-ref", "battery-recovery", "battery-lift-r-",
                                                "battery-lift-mask-"]
    expected = len(MODELS) * len(CONDITIONS)
    assert [len(p.find_all("circle")) for p in panels] == [expected - 1, expected, expected, expected]
    assert all(len(p.find_all("line", "whisker")) == len(p.find_all("circle")) for p in panels)
    labels = [t.text() for t in panels[0].find_all("text")]
    assert all(c in " ".join(labels) for c in ("original", "reverb"))
    legend = tree.by_id("battery").find_all("span", "key")
    assert [k.text() for k in legend] == list(MODELS)
    # A lift panel has negative values: its axis reaches below zero, a rate panel's starts at 0%.
    lift_ticks = [t.text() for t in panels[2].find_all("text")]
    assert any(t.startswith("-") for t in lift_ticks) and "0.0" in lift_ticks
    assert "0%" in labels


def test_mechanism_rows_put_each_control_right_after_its_intervention_below_the_baseline():
    summary = realistic_summary()
    summary["mechanism"].reverse()  # the writer's order must not matter
    tree = parse_page(render(summary))
    rows = [r for r in rows_of(tree.by_id("mechanism")) if r[0] == "steer-ref-direction"]
    assert [r[3] for r in rows] == ["baseline", "intervention", "control", "intervention", "control"]
    for intervention, control in ((rows[1], rows[2]), (rows[3], rows[4])):
        assert f"control of {intervention[2]}" in control[2]
    assert rows[0][5] == ""                                # the baseline has no Δ from itself
    assert {rows[1][5], rows[3][5]} == {"-50.0 pts", "-65.0 pts"}
    assert rows[2][5] == "-2.0 pts" and rows[2][6] == "4/84"


def test_mining_shows_kinds_parameters_and_truth():
    tree = parse_page(render(realistic_summary()))
    section = tree.by_id("mining")
    assert "120 edits on 84 clips" in section.text() and "autojunk" in section.text()
    truth = rows_of(tree.by_id("mining-truth"))
    assert [r[0] for r in truth] == ["delete", "insert", "substitute", "all"]
    assert truth[-1][4].startswith("92.1%") and truth[-1][5].startswith("87.5%")


def test_unmeasurable_switch_rate_shows_its_note():
    tree = parse_page(render(realistic_summary()))
    organism = [r for r in rows_of(tree.by_id("switch")) if r[0] == "organism"][0]
    assert organism[2].startswith("–") and "only one arm" in organism[2]


def test_edit_browser_keeps_each_models_verdict_and_highlights_the_span():
    summary = realistic_summary(n_edits=7)
    tree = parse_page(render(summary))
    edits = tree.by_id("edits").find_all("div", "edit")
    assert len(edits) == 7
    options = [o.text() for o in tree.by_id("filter-model").find_all("option")]
    assert options == list(MODELS)
    for edit, source in zip(edits, summary["edits"]):
        for i, m in enumerate(MODELS):
            assert edit.attrs[f"data-v-{i}"] == source["models"][m]["verdict"]
    reference, panel = edits[0].find_all("div", "hyp")[:2]  # a delete: the panel hears nothing there
    assert [m.text() for m in reference.find_all("mark")] == ["madam president"]
    assert panel.text() == "panel: ∅ the house voted on the seventy second amendment today"
    reference, panel = edits[1].find_all("div", "hyp")[:2]  # an insert: the reference has nothing there
    assert [m.text() for m in reference.find_all("mark")] == ["∅"]
    assert panel.text() == "panel: madam mister president the house voted on the seventy second amendment today"
    assert [b.attrs["value"] for b in tree.by_id("edit-filters").find_all("input")] == \
        ["ref", "audio", "other", "ineligible", "none"]


def test_a_summary_with_almost_everything_missing_still_renders():
    for summary in (summary_of(), summary_of(edits=[], battery=None, mechanism=None)):
        tree = parse_page(render(summary))
        assert len(tree.find_all("p", "not-run")) == 12  # one per section, the three-WER ranking included
    none = iv(None, None)
    holes = summary_of(
        models={"m": model_row(), "n": model_row(wer_interval=iv(None, 0.1), accept_ref=float("nan"))},
        accept_ref_by_kind={"m": {}},
        accept_ref_by_group={"field": "", "groups": {"chair": {}}},
        mining={"edits": 0, "edits_leave_one_out": 0, "clips": 0, "clips_with_edits": 0, "status": {}, "by_kind": {},
                "panel": [], "params": {}, "truth": {"all": {"planted": 0, "mined": 0, "matched": 0, "precision": None,
                                                             "precision_interval": none, "recall": None,
                                                             "recall_interval": none}}},
        masked=[{"model": "m", "targets": 0, "clean": None, "masked": None, "masked_interval": none, "masked_k": 0,
                 "masked_n": 0, "control": None, "control_interval": none, "control_n": 0, "lift_masked": None,
                 "lift_masked_interval": None, "lift_clean": None}],
        conventions={"switch": [{"model": "m", "group": "", "pooled": True, "s": None, "s_interval": None,
                                 "measurable": False, "note": "", "arms": {}}], "agreement": []},
        lift=[{"model": "m", "kind": "all", "side": "r", "mean": None, "mean_interval": none, "n": 0,
               "share_positive": None}],
        battery={"name": "", "conditions": [], "edits": 0, "targets": 0, "notes": [],
                 "rows": [{"model": "m", "readout": "accept-ref", "condition": "original", "kind": "rate",
                           "value": None, "value_interval": none, "n": 0, "delta": None, "delta_interval": None}],
                 "contrasts": [{"model": "m", "readout": "", "contrast": "", "kind": "", "did": None,
                                "did_interval": none, "n": 0}]},
        mechanism=[{"experiment": "", "model": "", "intervention": "", "role": role, "control_of": control_of,
                    "metric": "", "value": None, "value_interval": None, "n_ref": None, "n_eligible": None,
                    "changed": 0, "clips": 0, "wer": None, "delta": None, "delta_interval": None, "delta_n": None,
                    "to_ref": None, "to_audio": None, "direction": "", "layer": 0, "action": ""}
                   for role, control_of in (("control", "x"), ("", None))],
        edits=[{"edit_id": "", "clip": "only", "kind": "", "position": "", "r": "", "a": "", "ref_tokens": [],
                "span": [], "models": {}},
               {"edit_id": "", "clip": "", "kind": "", "position": "", "r": "", "a": "", "ref_tokens": [],
                "span": [3, 1], "models": {}}],
        provenance=provenance_of(runtime_s=float("nan")),
    )
    tree = parse_page(render(holes))
    rows = rows_of(tree.by_id("headline"))
    assert rows[0][0] == "m" and rows[0][1] == "–" and rows[1][2] == "–"
    assert len(tree.by_id("edits").find_all("div", "edit")) == 2
    assert "no values" in tree.by_id("battery").text()


def test_axis_ticks_are_round_and_cover_the_range():
    assert nice_ticks(0.0, 0.82) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(-0.13, 0.37) == [-0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.4]
    assert nice_ticks(0.0, 0.0)[0] == 0.0 and len(nice_ticks(0.0, 0.0)) > 1
    assert tick_label(0.125, 0.025, percent=True) == "12.5%"
    assert tick_label(-0.0, 0.1, percent=False) == "0.0"


@pytest.mark.parametrize("value", [float("inf"), "0.5", True])
def test_non_numbers_in_rates_show_as_a_dash(value):
    # Built in Python, a row can hold anything; the page still shows no number it cannot stand behind.
    summary = Summary(SCHEMA_VERSION, "", "", {"m": ModelRow("m", False, False, None, wer=value)})
    tree = parse_page(render_report(summary))
    assert rows_of(tree.by_id("headline"))[0][1] == "–"


@pytest.mark.parametrize("value", ["0.5", True])
def test_a_summary_json_with_a_non_number_is_refused_naming_the_file_and_the_field(value):
    with pytest.raises(InputError, match=r"old-summary\.json: .*models/m/wer"):
        from_json(summary_of(models={"m": model_row(wer=value)}), "old-summary.json")


def test_a_summary_json_of_the_old_layout_is_refused_with_its_version():
    old = summary_of(models={"m": model_row(accept_ref=0.5, accept_ref_ci=[0.1, 0.9])})
    old["schema_version"] = "1.0"
    with pytest.raises(InputError, match=r"summary\.json: schema_version '1\.0', this asraudit reads 2\.0"):
        from_json(old, "summary.json")
    old["schema_version"] = SCHEMA_VERSION  # the right version, a key of the old layout: named
    with pytest.raises(InputError, match="accept_ref_ci"):
        from_json(old, "summary.json")


def test_a_summary_json_of_the_earlier_minor_layout_is_still_read_and_a_timing_of_the_new_one_is_checked():
    earlier = realistic_summary()
    earlier["schema_version"] = "2.0"  # 2.1 only added the optional timing
    assert from_json(earlier, "summary.json").models.keys() == earlier["models"].keys()
    t = {"wall_s": 2.0, "model_s": 1.5, "overhead_s": 0.5, "overhead_share": 0.25, "cpu_s": 2.0, "model_cpu_s": 1.5}
    current = {**realistic_summary(), "timing": {"stages": {"transcribe": t}, "total": t}}
    assert from_json(current, "summary.json").timing.stages["transcribe"].overhead_share == 0.25
    current["timing"]["total"] = {**t, "overhead": 0.5}  # a key the layout does not have
    with pytest.raises(InputError, match="timing/total"):
        from_json(current, "summary.json")


@pytest.mark.parametrize("version", ["2.0", "2.1", "2.2", "2.3"])
def test_every_earlier_minor_layout_of_the_major_is_still_read(version):
    # each minor version only added optional keys (outputs.md); a file an earlier asraudit wrote must render
    earlier = realistic_summary()
    earlier["schema_version"] = version
    assert from_json(earlier, "summary.json").models.keys() == earlier["models"].keys()


def test_reading_a_summary_json_back_gives_the_rows_it_was_written_from():
    summary = realistic_summary()
    assert json.loads(json.dumps(plain_summary(from_json(summary)))) == summary


def test_contrasts_are_signed_points_for_rates_and_plain_for_means():
    tree = parse_page(render(realistic_summary()))
    by_readout = {(r[0], r[1]): r[3] for r in rows_of(tree.by_id("contrasts"))}
    assert by_readout[("organism", "accept-ref")] == "+5.0 pts [-2.0 pts, +12.0 pts]"
    assert by_readout[("organism", "lift(r)")] == "+0.050 [-0.020, +0.120]"


def test_number_columns_are_right_aligned_and_text_columns_left():
    tree = parse_page(render(realistic_summary()))
    masked = [th.attrs.get("class") for th in tree.by_id("masked").find_all("th")]
    assert masked == [None] + ["num"] * 6
    switch = [th.attrs.get("class") for th in tree.by_id("switch").find_all("th")]
    assert switch == [None, None, "num", None]  # model, family, s (even with a note), arms
    models = [th.attrs.get("class") for th in tree.by_id("provenance-models").find_all("th")]
    assert models == [None, None, None, None]   # a config hash of digits is still an identifier
