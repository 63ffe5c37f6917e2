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


def realistic_summary(n_edits: int = 20, evil: str = EVIL) -> dict:
    """A summary shaped like the audit's, with every section filled and ``evil`` in corpus and model text."""
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
            "wer": 0.05 + 0.04 * i, "wer_ci": [0.04 + 0.04 * i, 0.06 + 0.04 * i],
            "wer_corrected": 0.045 + 0.04 * i, "wer_corrected_ci": [0.035 + 0.04 * i, 0.055 + 0.04 * i],
            "wer_gained": 0.012 if flagged else 0.001,
            "accept_ref": v, "accept_ref_ci": [lo, hi], "n_ref": 33 if flagged else 6, "n_eligible": 40,
            "recovery": 0.4 if flagged else 0.05, "recovery_ci": [0.3, 0.5], "recovery_n": 60,
            "control_recovery": 0.04, "control_recovery_ci": [0.01, 0.1],
            "switch_rate": None if name == "pocketsphinx" else 0.3, "switch_rate_ci": [0.2, 0.4],
            "switch_note": "no family with both arms in the references" if name == "pocketsphinx" else None,
            "convention_agreement": 0.7, "convention_agreement_ci": [0.6, 0.8],
            "lift": None if name == "pocketsphinx" else rng.uniform(-0.05, 0.3), "lift_ci": [-0.1, 0.35], "lift_n": 40,
            "rtfx": 30.0 + i, "flagged": flagged,
            "flag_reasons": ["accept-ref above every clean model", "recovers masked entities"] if flagged else [],
        }
    by_kind = {m: {k: {"rate": r[0], "lo": r[1], "hi": r[2], "n_ref": 3, "n_eligible": 10}
                   for k, r in ((k, rate()) for k in ("delete", "insert", "substitute"))} for m in MODELS}
    groups = {role: {m: {"rate": r[0], "lo": r[1], "hi": r[2], "n_ref": 2, "n_eligible": 8}
                     for m, r in ((m, rate()) for m in MODELS)} for role in ("chair", "member", "guest")}
    battery_rows = []
    for m in MODELS:
        for readout, kind in READOUTS.items():
            for c in CONDITIONS:
                v = rng.uniform(0.05, 0.9) if kind == "rate" else rng.uniform(-0.2, 0.4)
                battery_rows.append({"model": m, "condition": c, "readout": readout, "value": v, "lo": v - 0.08,
                                     "hi": v + 0.08, "n": 40, "delta": v - 0.3, "delta_lo": v - 0.4,
                                     "delta_hi": v - 0.2, "kind": kind})
    contrasts = [{"model": m, "readout": r, "contrast": "noise vs reverb", "did": 0.05, "lo": -0.02, "hi": 0.12,
                  "n": 40, "kind": k} for m in MODELS for r, k in READOUTS.items()]
    mechanism = []
    for experiment, model in (("steer-ref-direction", "organism"), ("patch-encoder", "whisper-tiny.en")):
        mechanism.append({"experiment": experiment, "model": model, "intervention": "baseline", "role": "baseline",
                          "metric": "accept-ref", "value": 0.8, "lo": 0.7, "hi": 0.9, "n_ref": 32, "n_eligible": 40,
                          "changed": 0, "clips": 84, "wer": 0.06})
        for label, value in (("alpha=-4", 0.3), ("alpha=-8", 0.15)):
            mechanism.append({"experiment": experiment, "model": model, "intervention": label, "role": "intervention",
                              "metric": "accept-ref", "value": value, "lo": value - 0.1, "hi": value + 0.1,
                              "n_ref": int(40 * value), "n_eligible": 40, "changed": 30, "clips": 84, "wer": 0.08})
            mechanism.append({"experiment": experiment, "model": model, "intervention": f"random {label}",
                              "role": "control", "control_of": label, "metric": "accept-ref", "value": 0.78,
                              "lo": 0.68, "hi": 0.88, "n_ref": 31, "n_eligible": 40, "changed": 4, "clips": 84,
                              "wer": 0.061})
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
            model_views[m] = {"verdict": verdict, "text": evil if (k, j) == (5, 3) else texts[verdict]}
        edits.append({"clip": evil if k == 3 else f"clip-{k:03d}", "kind": kind,
                      "position": ("start", "middle", "end")[k % 3], "r": " ".join(tokens[start:end]), "a": a,
                      "ref_tokens": tokens, "span": [start, end], "models": model_views})
    return {
        "title": "asraudit · parliament-mini", "subtitle": "4 models, 84 clips",
        "models": models,
        "accept_ref_by_kind": by_kind,
        "accept_ref_by_group": {"field": "voice role", "groups": groups},
        "mining": {"edits": 120, "clips": 84, "by_kind": {"delete": 50, "insert": 40, "substitute": 30},
                   "panel": list(MODELS[:2]), "params": {"min_agree": 2, "autojunk": False},
                   "truth": {k: {"planted": 40, "mined": 38, "matched": 35, "precision": 35 / 38, "recall": 35 / 40,
                                 "precision_ci": [0.8, 0.97], "recall_ci": [0.74, 0.95]}
                             for k in ("delete", "insert", "substitute", "all")}},
        "masked": [{"model": m, "targets": 60, "clean": 0.9, "masked": 0.3, "masked_lo": 0.2, "masked_hi": 0.4,
                    "control": 0.05, "control_lo": 0.01, "control_hi": 0.1, "lift_masked": -0.02,
                    "lift_masked_lo": -0.05, "lift_masked_hi": 0.01, "lift_clean": 0.4} for m in MODELS],
        "conventions": {
            "switch": [{"model": m, "group": "percent", "s": 0.3, "lo": 0.2, "hi": 0.45,
                        "arms": {"%": {"follow": 5, "n": 10}, "percent": {"follow": 3, "n": 10}},
                        "measurable": True, "note": None} for m in MODELS[:3]]
                      + [{"model": "organism", "group": "numbers", "s": None, "lo": None, "hi": None, "arms": {},
                          "measurable": False, "note": "only one arm in the references"}],
            "agreement": [{"model": m, "group": "percent", "rate": 0.7, "lo": 0.6, "hi": 0.8, "agree": 14,
                           "rendered": 20} for m in MODELS],
        },
        "lift": [{"model": m, "kind": k, "side": s, "mean": 0.1, "lo": 0.05, "hi": 0.15, "n": 20}
                 for m in MODELS[:2] for k in ("delete", "substitute") for s in ("r", "a")],
        "battery": {"name": "trigger-battery", "rows": battery_rows, "contrasts": contrasts,
                    "notes": ["revoice skipped: espeak-ng not installed"]},
        "mechanism": mechanism,
        "edits": edits,
        "provenance": {"asraudit": "0.1.0", "created": "2025-01-01T00:00:00Z", "seed": 0, "normalizer": "whisper-en",
                       "python": "3.11.2", "store": "/tmp/store.sqlite", "runtime_s": 412.5,
                       "spec": {"corpus": "parliament-mini", "note": evil},
                       "models": {m: {"model_id": m, "config_hash": f"{k:08x}", "spec": m}
                                  for k, m in enumerate(MODELS)},
                       "packages": {"numpy": "2.1.0", "ctranslate2": "4.5.0"}, "operator": evil},
    }


# ---------------------------------------------------------------- escaping


def test_transcripts_clip_ids_and_provenance_with_markup_end_up_as_text_not_markup():
    summary = realistic_summary()
    summary["battery"]["rows"][0]["condition"] = EVIL  # names from a user's spec too
    summary["mechanism"][1]["intervention"] = EVIL
    page = render_report(summary)
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
    summary = {"models": {"</script><script>alert(1)</script>": {"wer": 0.1}, "a&b": {}}}
    tree = parse_page(render_report(summary))
    assert len(tree.find_all("script")) == 2
    block = tree.by_id("report-data").text()
    assert "<" not in block and ">" not in block and "&" not in block
    assert json.loads(block)["models"] == ["</script><script>alert(1)</script>", "a&b"]


def test_page_makes_no_network_reference():
    page = render_report(realistic_summary())
    assert "http://" not in page and "https://" not in page
    tree = parse_page(page)
    for node in tree.iter():
        assert "src" not in node.attrs
        assert node.attrs.get("href", "#").startswith("#")


# ---------------------------------------------------------------- sections


def test_every_section_of_a_full_summary_is_rendered():
    tree = parse_page(render_report(realistic_summary()))
    for ident in ("headline", "by-kind", "by-group", "mining-kinds", "mining-truth", "masked", "switch", "agreement",
                  "lift", "contrasts", "battery-rows", "mechanism", "edits", "provenance", "provenance-models"):
        assert tree.by_id(ident) is not None, ident
    assert len(tree.find_all("svg", "scatter")) == 1
    assert not tree.find_all("p", "not-run")


def test_headline_shows_counts_control_and_flag_reasons():
    tree = parse_page(render_report(realistic_summary()))
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
    tree = parse_page(render_report(realistic_summary()))
    table = tree.by_id("by-group")
    assert [th.text() for th in table.find_all("th")] == ["voice role", *MODELS]
    assert [r[0] for r in rows_of(table)] == ["chair", "member", "guest"]
    assert tree.by_id("by-group-section").find_all("h2")[0].text() == "accept-ref by voice role"


def test_battery_draws_one_panel_per_readout_with_a_point_and_whisker_per_model_and_condition():
    summary = realistic_summary()
    summary["battery"]["rows"][0]["value"] = None  # one missing cell: no point there
    tree = parse_page(render_report(summary))
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
    tree = parse_page(render_report(summary))
    rows = [r for r in rows_of(tree.by_id("mechanism")) if r[0] == "steer-ref-direction"]
    assert [r[3] for r in rows] == ["baseline", "intervention", "control", "intervention", "control"]
    for intervention, control in ((rows[1], rows[2]), (rows[3], rows[4])):
        assert f"control of {intervention[2]}" in control[2]
    assert rows[0][5] == ""                                # the baseline has no Δ from itself
    assert {rows[1][5], rows[3][5]} == {"-50.0 pts", "-65.0 pts"}
    assert rows[2][5] == "-2.0 pts" and rows[2][6] == "4/84"


def test_mining_shows_kinds_parameters_and_truth():
    tree = parse_page(render_report(realistic_summary()))
    section = tree.by_id("mining")
    assert "120 edits on 84 clips" in section.text() and "autojunk" in section.text()
    truth = rows_of(tree.by_id("mining-truth"))
    assert [r[0] for r in truth] == ["delete", "insert", "substitute", "all"]
    assert truth[-1][4].startswith("92.1%") and truth[-1][5].startswith("87.5%")


def test_unmeasurable_switch_rate_shows_its_note():
    tree = parse_page(render_report(realistic_summary()))
    organism = [r for r in rows_of(tree.by_id("switch")) if r[0] == "organism"][0]
    assert organism[2].startswith("–") and "only one arm" in organism[2]


def test_edit_browser_keeps_each_models_verdict_and_highlights_the_span():
    summary = realistic_summary(n_edits=7)
    tree = parse_page(render_report(summary))
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
    for summary in ({}, None, {"models": None, "edits": None, "battery": None, "mechanism": None}):
        tree = parse_page(render_report(summary))
        assert len(tree.find_all("p", "not-run")) == 11
    holes = {
        "models": {"m": {}, "n": {"wer": None, "wer_ci": [None, 0.1], "flag_reasons": None, "accept_ref": float("nan")}},
        "accept_ref_by_kind": {"m": {"delete": None}},
        "accept_ref_by_group": {"field": None, "groups": {"chair": {"m": {}}}},
        "mining": {"truth": {"all": {}}},
        "masked": [{}], "conventions": {"switch": [{"arms": None}], "agreement": None},
        "lift": [{"side": "r"}],
        "battery": {"rows": [{"model": "m", "readout": "accept-ref", "condition": "original"}], "contrasts": [{}]},
        "mechanism": [{"role": "control", "control_of": "x"}, {}],
        "edits": [{"clip": "only", "span": None}, {"models": {"m": None}, "span": [3, 1]}],
        "provenance": {"models": {"m": None}, "packages": None, "runtime_s": None},
    }
    tree = parse_page(render_report(holes))
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
    tree = parse_page(render_report({"models": {"m": {"wer": value}}}))
    assert rows_of(tree.by_id("headline"))[0][1] == "–"


def test_contrasts_are_signed_points_for_rates_and_plain_for_means():
    tree = parse_page(render_report(realistic_summary()))
    by_readout = {(r[0], r[1]): r[3] for r in rows_of(tree.by_id("contrasts"))}
    assert by_readout[("organism", "accept-ref")] == "+5.0 pts [-2.0 pts, +12.0 pts]"
    assert by_readout[("organism", "lift(r)")] == "+0.050 [-0.020, +0.120]"


def test_number_columns_are_right_aligned_and_text_columns_left():
    tree = parse_page(render_report(realistic_summary()))
    masked = [th.attrs.get("class") for th in tree.by_id("masked").find_all("th")]
    assert masked == [None] + ["num"] * 6
    switch = [th.attrs.get("class") for th in tree.by_id("switch").find_all("th")]
    assert switch == [None, None, "num", None]  # model, family, s (even with a note), arms
    models = [th.attrs.get("class") for th in tree.by_id("provenance-models").find_all("th")]
    assert models == [None, None, None, None]   # a config hash of digits is still an identifier
