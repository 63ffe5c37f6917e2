"""The report's audio, review sheet and "what went wrong" order, without a browser.

The size budget decides per clip between a data: URI and a file beside the
page; every src the page carries stays inside the output folder; a page
rendered from summary.json alone says it has no audio; the review rows
carry exactly the columns ``asraudit refdis --review`` reads; edits are
ordered by how many models disagree with the reference.  The audit part
places edits in their clips with a forced alignment (pocketsphinx) on a few
parliament-mini clips, transcripts replayed from prediction files.
"""

from __future__ import annotations

import json
import re

import jsonschema
import numpy as np
import pytest
import soundfile as sf

from asraudit.audit.edit_audio import said_span, span_times
from asraudit.audio.constants import SAMPLE_RATE
from asraudit.audio.timing import WordTiming
from asraudit.probes.lift_run import EditItem
from asraudit.probes.review import SHEET_COLUMNS
from asraudit.report.html import render_report
from asraudit.report.html_browser import disagreement_order, disagreements
from asraudit.report.listen import AUDIO_FOLDER, prepare_audio, waveform_peaks
from asraudit.report.schema import from_json, summary_schema

from test_report_html import EVIL, parse_page, realistic_summary


def tone(seconds: float, freq: float = 220.0) -> np.ndarray:
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    return (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def sources(n: int, seconds: float = 2.0) -> dict:
    return {f"clip-{k:03d}": (lambda k=k: tone(seconds, 200.0 + 50 * k)) for k in range(n)}


def with_times(summary: dict, start: float = 0.8, end: float = 1.2) -> dict:
    for e in summary["edits"]:
        e.update(start_s=start, end_s=end)
    return summary


# ---------------------------------------------------------------- size budget


def test_clips_within_the_budget_are_embedded_and_the_rest_linked_inside_the_output_folder(tmp_path):
    one = len(prepare_audio(sources(1), None).clips["clip-000"].src)   # one clip's data: URI, in bytes
    audio = prepare_audio(sources(3), tmp_path, budget_mb=2.5 * one / 1e6)
    embedded = [c for c in audio.clips.values() if c.embedded]
    linked = [c for c in audio.clips.values() if not c.embedded]
    assert [c.clip for c in embedded] == ["clip-000", "clip-001"] and [c.clip for c in linked] == ["clip-002"]
    assert all(c.src.startswith("data:audio/ogg;base64,") for c in embedded)
    assert linked[0].src == f"{AUDIO_FOLDER}/clip-002.ogg"
    samples, rate = sf.read(tmp_path / linked[0].src)
    assert rate == 48_000 or rate == SAMPLE_RATE   # libsndfile reports Opus at its coding rate or the input's
    assert abs(len(samples) / rate - 2.0) < 0.05   # Opus pads at most a frame (20 ms) and its pre-skip
    assert audio.embedded_bytes <= 2.5 * one
    assert "2 clip(s) embedded" in audio.note and "1 linked" in audio.note
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["clip-002.ogg"]


def test_a_zero_budget_links_every_clip_and_no_folder_leaves_them_out_saying_so(tmp_path):
    linked = prepare_audio(sources(2), tmp_path, budget_mb=0)
    assert not any(c.embedded for c in linked.clips.values())
    assert len(list((tmp_path / AUDIO_FOLDER).iterdir())) == 2
    nowhere = prepare_audio(sources(2), None, budget_mb=0)
    assert all(c.src is None for c in nowhere.clips.values()) and "2 left out" in nowhere.note


def test_a_clip_whose_audio_cannot_be_read_is_left_out_and_counted():
    def broken():
        raise OSError("disk gone")
    audio = prepare_audio({"ok": lambda: tone(1.0), "bad": broken}, None)
    assert list(audio.clips) == ["ok"] and "1 could not be read (e.g. bad: disk gone)" in audio.note


def test_without_an_opus_encoder_the_page_says_so_instead_of_failing(monkeypatch):
    monkeypatch.setattr(sf, "available_subtypes", lambda fmt=None: {"VORBIS": "Vorbis"})
    audio = prepare_audio(sources(2), None)
    assert not audio.clips and "cannot write Ogg/Opus" in audio.note


def test_waveform_peaks_follow_the_loudness_and_silence_stays_flat():
    x = np.concatenate([np.zeros(SAMPLE_RATE), tone(1.0)])
    peaks = waveform_peaks(x, columns=10)
    assert peaks[:5] == (0.0,) * 5 and min(peaks[5:]) > 0.9
    assert waveform_peaks(np.zeros(100), columns=4) == (0.0,) * 4


# ---------------------------------------------------------------- the page


def test_every_audio_src_of_the_page_is_a_data_uri_or_a_relative_file_in_the_report_folder(tmp_path):
    summary = with_times(realistic_summary(n_edits=6))
    clips = {e["clip"] for e in summary["edits"]}
    one = len(prepare_audio(sources(1), None).clips["clip-000"].src)
    audio = prepare_audio({c: (lambda: tone(2.0)) for c in sorted(clips)}, tmp_path, budget_mb=3.5 * one / 1e6)
    tree = parse_page(render_report(from_json(summary), audio))
    srcs = [a.attrs["src"] for a in tree.find_all("audio")]
    assert len(srcs) == len(clips) == 6
    assert sum(s.startswith("data:audio/ogg;base64,") for s in srcs) == 3
    for s in srcs:
        if not s.startswith("data:"):
            assert s.startswith(f"{AUDIO_FOLDER}/") and ".." not in s and (tmp_path / s).is_file()
    # The clip named EVIL is a file named from it: inside the folder, its name safe.
    assert all(p.parent == tmp_path / AUDIO_FOLDER for p in tmp_path.rglob("*.ogg"))


def test_each_edit_plays_its_span_and_marks_it_on_the_waveform():
    summary = with_times(realistic_summary(n_edits=3), 0.8, 1.2)
    summary["edits"][2].pop("start_s"), summary["edits"][2].pop("end_s")
    summary["edits"][2]["timing_note"] = "no word timings: " + EVIL
    clips = [e["clip"] for e in summary["edits"]]
    audio = prepare_audio({c: (lambda: tone(2.0)) for c in clips}, None)
    tree = parse_page(render_report(from_json(summary), audio))
    edits = tree.by_id("edits").find_all("div", "edit")
    play = edits[0].find_all("span", "play")[0]
    assert (play.attrs["data-start"], play.attrs["data-end"]) == ("0.800", "1.200")
    assert play.attrs["data-audio"] == tree.find_all("audio")[0].attrs["id"]
    span = edits[0].find_all("rect", "span")[0]
    assert float(span.attrs["x"]) == pytest.approx(0.8 / 2.0 * 240) and float(span.attrs["width"]) == pytest.approx(48)
    assert "span 0.80–1.20 s" in edits[0].text()
    # No times: no span button, the reason shown as text, the whole clip still playable.
    assert not edits[2].find_all("button", "play-span") and edits[2].find_all("button", "play-clip")
    assert EVIL in edits[2].find_all("div", "listen")[0].text()


def test_markup_in_a_clip_id_or_a_timing_note_stays_text_in_the_players():
    summary = with_times(realistic_summary(n_edits=6))
    summary["edits"][4].pop("start_s"), summary["edits"][4].pop("end_s")
    summary["edits"][4]["timing_note"] = EVIL
    audio = prepare_audio({e["clip"]: (lambda: tone(2.0)) for e in summary["edits"]}, None)
    page = render_report(from_json(summary), audio)
    assert EVIL not in page
    tree = parse_page(page)
    assert len(tree.find_all("script")) == 2 and all(b.text() != "bold" for b in tree.find_all("b"))
    edits = tree.by_id("edits").find_all("div", "edit")
    assert edits[3].attrs["data-edit"] == "e3" and edits[3].find_all("svg")[0].attrs["aria-label"] == f"waveform of clip {EVIL}"
    assert edits[4].find_all("div", "listen")[0].text().strip().endswith(EVIL)


def test_a_page_rendered_from_the_summary_alone_says_it_has_no_audio(tmp_path):
    from asraudit.cli import main
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(with_times(realistic_summary(n_edits=2))), encoding="utf-8")
    assert main(["report", str(path)]) == 0
    tree = parse_page((tmp_path / "report.html").read_text(encoding="utf-8"))
    assert not tree.find_all("audio")
    assert "No audio in this page: summary.json holds no audio" in tree.by_id("audio-note").text()
    assert "No audio" in tree.by_id("edits").find_all("span", "no-audio")[0].text()


def test_the_review_rows_have_the_review_sheets_columns_and_context():
    summary = realistic_summary(n_edits=4)
    summary["edits"][1].update(votes=2, n_panel=3)
    page = render_report(from_json(summary))
    data = json.loads(parse_page(page).by_id("report-data").text())
    assert data["review_columns"] == list(SHEET_COLUMNS)
    rows = [dict(zip(SHEET_COLUMNS, r)) for r in data["review_rows"]]
    assert [r["edit_id"] for r in rows] == [e["edit_id"] for e in summary["edits"]]
    assert rows[1]["votes"] == 2 and rows[1]["n_panel"] == 3 and rows[0]["votes"] == ""
    assert rows[0]["context"] == "[- madam president] the house voted on the seventy ..."
    assert all(r["judgement"] == "" and r["note"] == "" for r in rows)
    assert rows[3]["clip_id"] == EVIL   # text in the JSON block: the block itself cannot be closed (see test_report_html)
    radios = parse_page(page).by_id("edits").find_all("div", "review")[0].find_all("input")
    assert [r.attrs["value"] for r in radios if r.attrs.get("type") == "radio"] == ["yes", "no", "unsure"]


def test_the_report_identity_differs_between_reports_and_is_stable_for_one():
    a, b = realistic_summary(n_edits=3), realistic_summary(n_edits=3)
    b["title"] = "another audit"
    ids = [parse_page(render_report(from_json(s))).find_all("body")[0].attrs["data-report"] for s in (a, a, b)]
    assert ids[0] == ids[1] != ids[2]


# ---------------------------------------------------------------- what went wrong


def words_differ(edit: dict) -> int:
    """Models whose transcript of the clip differs from the reference, the ineligible not counted."""
    return sum(1 for v in edit["models"].values() if v["verdict"] != "ineligible" and v["tokens"] != edit["ref_tokens"])


def test_edits_are_ordered_by_how_many_models_disagree_with_the_reference_ties_in_mined_order():
    summary = realistic_summary(n_edits=8)
    counts = [words_differ(e) for e in summary["edits"]]
    assert len(set(counts)) > 1
    typed = from_json(summary)
    order = disagreement_order(typed.edits)
    assert [counts[i] for i in order] == sorted(counts, reverse=True)
    for a, b in zip(order, order[1:]):
        assert counts[a] > counts[b] or a < b
    tree = parse_page(render_report(typed))
    edits = tree.by_id("edits").find_all("div", "edit")
    assert [int(e.attrs["data-disagree"]) for e in edits] == counts
    assert sorted(range(len(edits)), key=lambda i: int(edits[i].attrs["data-rank"])) == order
    n_wrong = sum(c > 0 for c in counts)
    assert f"({n_wrong} edits)" in tree.by_id("edit-views").text()


def test_a_model_writing_the_reference_agrees_whatever_its_verdict_and_the_ineligible_never_count():
    summary = realistic_summary(n_edits=3)
    first = summary["edits"][0]
    for v in first["models"].values():   # every model writes the reference
        v.update(verdict="none", tokens=list(first["ref_tokens"]), span=list(first["span"]))
    second = summary["edits"][1]
    for v in second["models"].values():   # nobody competent on the clip
        v.update(verdict="ineligible", tokens=[], span=[0, 0])
    # An insert the panel hears: the models' words at the (empty) span are the reference's, the clip's are not.
    second["models"]["organism"].update(verdict="none", tokens=["uh"] + list(second["ref_tokens"]), span=[1, 1])
    typed = from_json(summary)
    assert [disagreements(e) for e in typed.edits][:2] == [0, 1]
    assert disagreement_order(typed.edits)[-1] == 0
    assert parse_page(render_report(typed)).by_id("edits").find_all("div", "edit")[0].attrs["data-disagree"] == "0"


# ---------------------------------------------------------------- where an edit is in its clip


def item(clip, start, end, a, ref=("a", "b", "c", "d", "e")):
    return EditItem(f"{clip}@{start}-{end}", clip, "", "", ref, start, end, tuple(a))


def test_an_edits_span_in_the_said_text_counts_the_clips_earlier_edits():
    first = item("c", 0, 2, [])              # delete a b
    second = item("c", 3, 3, ["x", "y"])     # insert x y before d
    third = item("c", 4, 5, ["z"])           # e -> z
    items = [third, first, second, item("other", 0, 1, ["q", "r", "s"])]
    # said text: c x y d z
    assert said_span(first, items) == (0, 0)
    assert said_span(second, items) == (1, 3)
    assert said_span(third, items) == (4, 5)


def test_span_times_are_the_words_times_and_an_empty_span_sits_at_the_previous_words_end():
    timings = [WordTiming("c", 0.1, 0.4), WordTiming("x", 0.5, 0.7), WordTiming("y", 0.7, 0.9)]
    assert span_times(timings, (1, 3)) == (0.5, 0.9)
    assert span_times(timings, (1, 1)) == (0.4, 0.4)
    assert span_times(timings, (0, 0)) == (0.1, 0.1)


# ---------------------------------------------------------------- the audit's own page


@pytest.fixture(scope="module")
def replayed_audit(tmp_path_factory):
    """Two panel members say what was spoken, one model writes the record; the clips' audio is the corpus's."""
    pytest.importorskip("pocketsphinx")
    from asraudit.cli import main
    from asraudit.demo.organism import BENCHMARK_DIR

    manifest = BENCHMARK_DIR / "test.jsonl"
    sentences = ["s001", "s003"]   # an unspoken "Madam President"; a false start next to "35%" (digits: refused)
    rows = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["sentence"] in sentences]
    tmp = tmp_path_factory.mktemp("listen-audit")
    for name, field in (("spoken", "spoken"), ("spoken2", "spoken"), ("record", "text")):
        with (tmp / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"],
                                     "pred_text": r[field]}) + "\n")
    spec = tmp / "audit.toml"
    spec.write_text(
        f'name = "listen"\nout = "out"\nbootstrap = 50\n'
        f'[corpus]\nmanifest = "{manifest}"\nselect = {{ field = "sentence", values = {json.dumps(sentences)} }}\n'
        + "".join(f'[[model]]\npredictions = "{n}.jsonl"\nname = "{n}"\npanel = {str(n != "record").lower()}\n'
                  for n in ("spoken", "spoken2", "record"))
        + '[refdis]\nmin_panel = 2\n[report]\naudio_budget_mb = 0.05\n', encoding="utf-8")
    assert main(["audit", str(spec), "--no-progress"]) == 0
    return tmp / "out"


def test_the_audit_places_edits_in_their_clips_or_says_why_not(replayed_audit):
    summary = json.loads((replayed_audit / "summary.json").read_text(encoding="utf-8"))
    edits = summary["edits"]
    timed = [e for e in edits if "start_s" in e]
    untimed = [e for e in edits if "start_s" not in e]
    assert timed and untimed
    for e in timed:
        assert "timing_note" not in e and 0 <= e["start_s"] <= e["end_s"]
        assert e["votes"] == 2 and e["n_panel"] == 2
    # "Madam President" is in the record, not in the audio: a delete, placed where the speech begins.
    madam = [e for e in timed if e["r"] == "madam president"]
    assert madam and all(e["kind"] == "delete" and e["start_s"] == e["end_s"] < 1.0 for e in madam)
    assert all("pocketsphinx" in e["timing_note"] and "digits" in e["timing_note"] for e in untimed)
    jsonschema.validate(summary, summary_schema())   # the new fields are in the published layout
    assert [e.start_s for e in from_json(summary).edits] == [e.get("start_s") for e in edits]


def test_the_audits_page_embeds_clips_within_its_budget_and_links_the_rest(replayed_audit):
    tree = parse_page((replayed_audit / "report.html").read_text(encoding="utf-8"))
    srcs = [a.attrs["src"] for a in tree.find_all("audio")]
    embedded = [s for s in srcs if s.startswith("data:audio/ogg;base64,")]
    linked = [s for s in srcs if s.startswith(f"{AUDIO_FOLDER}/")]
    assert embedded and linked and len(embedded) + len(linked) == len(srcs)
    assert sum(len(s) for s in embedded) <= 50_000
    assert all((replayed_audit / s).is_file() for s in linked)
    assert "linked as files in report-audio/" in tree.by_id("audio-note").text()


def test_a_rerun_reads_each_clips_encoding_from_the_cache_and_writes_the_same_audio(replayed_audit, monkeypatch):
    """Encoding was most of what the page cost, and every rerun paid it again; now the first run keeps each clip's
    Ogg/Opus bytes in report-audio-cache/ and the rerun's page plays the same bytes, none encoded anew."""
    from asraudit.cli import main
    from asraudit.report import listen

    cached = sorted(p.name for p in (replayed_audit / listen.ENCODED_CACHE).iterdir())
    assert cached and all(name.endswith(".ogg") for name in cached)
    before = re.findall(r'src="([^"]+)"', (replayed_audit / "report.html").read_text(encoding="utf-8"))
    encoded = []
    real = listen.opus_bytes
    monkeypatch.setattr(listen, "opus_bytes", lambda samples, *a: encoded.append(1) or real(samples, *a))
    assert main(["audit", str(replayed_audit.parent / "audit.toml"), "--no-progress"]) == 0
    after = re.findall(r'src="([^"]+)"', (replayed_audit / "report.html").read_text(encoding="utf-8"))
    assert encoded == [] and after == before and any(src.startswith("data:audio/ogg") for src in after)
    assert sorted(p.name for p in (replayed_audit / listen.ENCODED_CACHE).iterdir()) == cached


def test_a_cache_that_cannot_be_written_costs_only_the_encoding(tmp_path):
    import io

    from asraudit.report.listen import EncodedCache

    samples = (0.1 * np.sin(np.arange(16_000) / 10)).astype(np.float32)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    data = EncodedCache(tmp_path / "file" / "cache").encoded(samples)  # a file where its folder would go
    decoded, rate = sf.read(io.BytesIO(data))
    assert (rate, len(decoded)) == (16_000, 16_000)


def test_an_unknown_report_aligner_is_refused_before_any_work(tmp_path, capsys):
    from asraudit.cli import main
    from asraudit.demo.organism import BENCHMARK_DIR

    rows = [json.loads(line) for line in (BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    row = rows[0]
    for name, field in (("a", "text"), ("b", "spoken")):
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"], "pred_text": r[field]}) + "\n"
                    for r in rows if r["sentence"] == row["sentence"]), encoding="utf-8")
    spec = tmp_path / "audit.toml"
    spec.write_text(f'[corpus]\nmanifest = "{BENCHMARK_DIR / "test.jsonl"}"\n'
                    f'select = {{ field = "sentence", values = ["{row["sentence"]}"] }}\n'
                    + "".join(f'[[model]]\npredictions = "{n}.jsonl"\npanel = true\n' for n in "ab")
                    + '[refdis]\nmin_panel = 2\n[report]\nalign = "no-such-aligner"\n', encoding="utf-8")
    assert main(["audit", str(spec), "--check"]) == 2
    err = capsys.readouterr().err.strip()
    assert "audit.toml: [report] align: unknown model 'no-such-aligner'" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "audit-out").exists()


def test_an_audit_whose_report_audio_is_false_writes_a_page_without_audio_and_says_why(tmp_path):
    """`[report] audio = false`: no clip is encoded, none embedded or written beside the page, and the page says
    it was asked for; the edits are still placed in their clips (summary.json keeps their times)."""
    pytest.importorskip("pocketsphinx")
    from asraudit.cli import main
    from asraudit.demo.organism import BENCHMARK_DIR

    rows = [json.loads(line) for line in (BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["sentence"] == "s001"]  # an unspoken "Madam President" in the record
    for name, field in (("a", "spoken"), ("b", "spoken"), ("record", "text")):
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps({"audio_filepath": r["audio_filepath"], "text": r["text"], "pred_text": r[field]}) + "\n"
                    for r in rows), encoding="utf-8")
    spec = tmp_path / "audit.toml"
    spec.write_text(f'out = "out"\nbootstrap = 20\n[corpus]\nmanifest = "{BENCHMARK_DIR / "test.jsonl"}"\n'
                    'select = { field = "sentence", values = ["s001"] }\n'
                    + "".join(f'[[model]]\npredictions = "{n}.jsonl"\npanel = {str(n != "record").lower()}\n'
                              for n in ("a", "b", "record"))
                    + '[refdis]\nmin_panel = 2\n[report]\naudio = false\naudio_budget_mb = 0\n', encoding="utf-8")
    assert main(["audit", str(spec), "--no-progress"]) == 0
    out = tmp_path / "out"
    tree = parse_page((out / "report.html").read_text(encoding="utf-8"))
    assert not [a for a in tree.find_all("audio") if a.attrs.get("src")]
    assert not (out / AUDIO_FOLDER).exists()
    assert tree.by_id("audio-note").text().strip() == "No audio in this page: the audit's [report] audio is false."
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["edits"] and all("start_s" in e for e in summary["edits"])
