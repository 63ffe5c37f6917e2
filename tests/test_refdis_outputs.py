"""accept-ref intervals, corrected references, WER cost, review sheets and the CLI."""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys

import pytest

from asraudit.commands.refdis import register
from asraudit.errors import InputError
from asraudit.metrics.stats import wilson_interval
from asraudit.probes.corrected import (
    apply_edits,
    corrected_references,
    edits_from_corrections,
    load_corrected_references,
    write_corrected_benchmark,
)
from asraudit.probes.inflation import follow_audio, wer_cost
from asraudit.probes.refdis import ClipInput, Edit, mine
from asraudit.probes.refdis_score import accept_ref, breakdown
from asraudit.probes.review import context_of, read_review_sheet, write_review_sheet

PANEL = ["p0", "p1", "p2", "p3"]
REF = "madam president the report is adopted"
SAID = "the report is adopted"


def toks(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def two_clips() -> list[ClipInput]:
    """Clip a: the reference adds an unspoken "madam president"; clip b: no error."""
    said_b = "we vote tomorrow on the budget"
    return [
        ClipInput("a", toks(REF), {**{m: toks(SAID) for m in PANEL}, "echo": toks(REF), "audio": toks(SAID)}),
        ClipInput("b", toks(said_b), {**{m: toks(said_b) for m in PANEL}, "echo": toks(said_b), "audio": toks(said_b)}),
    ]


def edit(clip_id, start, end, r, a, verdicts, kind="delete"):
    return Edit(clip_id, kind, "start", start, end, r, a, 4, 4, 4, (), 1.0, verdicts=verdicts)


# ---------------------------------------------------------------- accept-ref


def test_accept_ref_is_ref_over_ref_plus_audio_with_other_and_ineligible_outside():
    edits = [
        edit("a", 0, 1, "x", "", {"m": "ref", "n": "other"}),
        edit("a", 2, 3, "y", "", {"m": "audio", "n": "ineligible"}),
        edit("b", 0, 1, "z", "", {"m": "ref", "n": "audio"}),
    ]
    s = accept_ref(edits, ["m", "n"])
    assert (s["m"].n_ref, s["m"].n_eligible, s["m"].rate) == (2, 3, 2 / 3)
    assert (s["m"].low, s["m"].high) == wilson_interval(2, 3)
    assert (s["n"].n_ref, s["n"].n_eligible, s["n"].n_other, s["n"].n_ineligible) == (0, 1, 1, 1)
    assert s["m"].boot_low is None


def test_clip_bootstrap_resamples_clips_not_edits():
    # All ref verdicts sit in one clip: resampling clips gives resamples with
    # no ref at all, so the clustered interval reaches 0 where Wilson does not.
    edits = [edit("a", i, i + 1, "x", "", {"m": "ref"}) for i in range(8)]
    edits += [edit(c, 0, 1, "x", "", {"m": "audio"}) for c in "bcdefgh"]
    s = accept_ref(edits, ["m"], n_boot=2000, seed=1)["m"]
    assert s.n_clips == 8 and s.rate == pytest.approx(8 / 15)
    assert s.boot_low == 0.0 < s.low
    assert s.boot_high > s.high


def test_breakdown_lists_every_group_even_empty_ones():
    edits = [edit("a", 0, 1, "x", "", {"m": "ref"}, kind="delete")]
    table = breakdown(edits, ["m"], lambda e: e.kind, ("delete", "insert", "substitute"))
    assert table["delete"]["m"].n_ref == 1
    assert table["insert"]["m"].n_eligible == 0 and math.isnan(table["insert"]["m"].rate)


# ------------------------------------------------------ corrected references


def test_corrected_benchmark_applies_the_whole_panels_edits(tmp_path):
    result = mine(two_clips(), PANEL)
    fixed = corrected_references(result)
    assert fixed == {"a": toks(SAID), "b": toks("we vote tomorrow on the budget")}
    out = tmp_path / "refs.jsonl"
    assert write_corrected_benchmark(out, result, fixed, {"a": "Madam President, the report is adopted.",
                                                          "b": "We vote tomorrow on the budget."},
                                     normalizer="whisper") == 1
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0] == {"audio_filepath": "a", "text": SAID, "original_text": "Madam President, the report is adopted.",
                       "original_normalized": REF, "edits": ["a@0-2"],
                       "normalizer": "whisper"}
    assert rows[1]["edits"] == [] and rows[1]["text"] == rows[1]["original_normalized"]


def test_apply_edits_handles_a_span_and_an_insertion_at_the_same_index():
    ref = toks("a b c d")
    edits = [edit("x", 1, 2, "b", "", {}), edit("x", 1, 1, "", "new", {}, kind="insert"),
             edit("x", 3, 4, "d", "e f", {}, kind="substitute")]
    assert apply_edits(ref, edits) == toks("a new c e f")


def test_edits_from_a_correction_use_the_leaderboard_exclusions():
    original = "madam president the report is adopted today"
    corrected = {"a": toks("the report is adopted today")}
    hyps = {
        "echo": toks(original),
        "audio": toks("the report is adopted today"),
        "third": toks("dear colleagues the report is adopted today"),
        "looping": toks("the report is adopted today " * 5),  # over 3x the reference length
        "weak": toks("the rapport was adapted"),  # matches under half the reference
    }
    result = edits_from_corrections([ClipInput("a", toks(original), hyps)], corrected)
    (e,) = result.edits
    assert (e.kind, e.position, e.r, e.a, e.source) == ("delete", "start", "madam president", "", "corrected")
    assert e.verdicts == {"echo": "ref", "audio": "audio", "third": "other", "looping": "ineligible",
                          "weak": "ineligible"}
    assert result.status["corrected"] == 1


def test_corrected_reference_file_errors_name_the_row(tmp_path):
    good = tmp_path / "fixed.jsonl"
    good.write_text('{"audio_filepath": "a", "text": "x y"}\n{"id": 7, "corrected_text": "z"}\n')
    assert load_corrected_references(good) == {"a": "x y", "7": "z"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"audio_filepath": "a", "text": "x"}\n{"audio_filepath": "a", "text": "y"}\n')
    with pytest.raises(InputError, match=r"bad.jsonl, row 2: duplicate clip id 'a'"):
        load_corrected_references(bad)
    bad.write_text('{"audio_filepath": "a"}\n')
    with pytest.raises(InputError, match="row 1: need a clip id column"):
        load_corrected_references(bad)


# ------------------------------------------------------------------ WER cost


def test_wer_cost_original_corrected_and_gained_by_echoing():
    clips = two_clips()
    result = mine(clips, PANEL)
    cost = wer_cost(clips, corrected_references(result), result.edits, ["echo", "audio"], n_boot=200)
    echo, audio = cost["echo"], cost["audio"]
    # 12 reference words (6 + 6); 10 corrected words (4 + 6).
    assert (echo.ref_words, echo.corrected_words, echo.clips) == (12, 10, 2)
    assert echo.original.estimate == 0.0  # echoing the reference error scores perfectly...
    assert echo.corrected.estimate == pytest.approx(2 / 10)  # ...and costs two insertions once corrected
    assert echo.gained.estimate == pytest.approx(2 / 12)  # following the audio would have cost 2 words
    assert echo.n_echoed == 1
    assert audio.original.estimate == pytest.approx(2 / 12)
    assert audio.corrected.estimate == 0.0 and audio.gained.estimate == 0.0
    assert echo.gained.low <= echo.gained.estimate <= echo.gained.high


def test_follow_audio_rewrites_only_the_echoed_place():
    ref = toks("we have one vote today")
    hyp = toks("so we have one vote today")
    e = edit("c", 2, 3, "one", "a single", {}, kind="substitute")
    assert follow_audio(ref, hyp, [e]) == toks("so we have a single vote today")
    ins = edit("c", 4, 4, "", "here", {}, kind="insert")
    assert follow_audio(ref, hyp, [ins]) == toks("so we have one vote here today")


# -------------------------------------------------------------- review sheet


def test_review_sheet_round_trip_gives_precision_with_an_interval(tmp_path):
    result = mine(two_clips(), PANEL)
    sheet = tmp_path / "review.csv"
    assert write_review_sheet(sheet, result.edits, result.refs) == 1
    rows = list(csv.DictReader(sheet.open()))
    assert rows[0]["context"] == "[- madam president] the report is adopted"
    assert rows[0]["found_by"] == "panel"
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for i, (judgement, kind) in enumerate([("yes", "delete"), ("Y", "insert"), ("no", "substitute"), ("", "delete"),
                                               ("unsure", "delete"), ("1", "substitute")]):
            w.writerow({**rows[0], "edit_id": f"e{i}", "judgement": judgement, "kind": kind})  # one row per edit
    s = read_review_sheet(filled)
    assert (s.n_real, s.n_false, s.n_skipped) == (3, 1, 2)
    assert s.precision == 0.75 and s.interval == wilson_interval(3, 4)
    assert s.by_kind == {"delete": [1, 0], "insert": [1, 0], "substitute": [1, 1]}


def test_review_sheet_rejects_unknown_judgements_naming_the_row(tmp_path):
    sheet = tmp_path / "r.csv"
    sheet.write_text("edit_id,kind,judgement\na@0-1,delete,yes\na@2-3,delete,maybe\n")
    with pytest.raises(InputError, match=r"r.csv, row 3: judgement 'maybe'"):
        read_review_sheet(sheet)


def test_context_marks_the_edit_inside_its_neighbours():
    ref = toks("one two three four five six seven eight nine ten eleven twelve thirteen fourteen")
    sub = edit("c", 7, 8, "eight", "ate", {}, kind="substitute")
    assert context_of(ref, sub) == "... two three four five six seven [eight -> ate] nine ten eleven twelve thirteen fourteen"
    ins = edit("c", 0, 0, "", "so", {}, kind="insert")
    assert context_of(ref, ins).startswith("[+ so] one two")


# ----------------------------------------------------------------------- CLI


def main(argv: list[str]) -> int:
    """``asraudit refdis ...`` as cli.main runs it (InputError -> one line, exit 2),
    without importing the other commands."""
    parser = argparse.ArgumentParser(prog="asraudit")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"asraudit: error: {exc}", file=sys.stderr)
        return 2


def write_preds(folder, clips: dict[str, tuple[str, dict[str, str]]]):
    folder.mkdir()
    models = sorted({m for _, hyps in clips.values() for m in hyps})
    for m in models:
        with (folder / f"{m}.jsonl").open("w") as fh:
            for cid, (ref, hyps) in clips.items():
                fh.write(json.dumps({"audio_filepath": cid, "text": ref, "pred_text": hyps[m]}) + "\n")


@pytest.fixture()
def preds(tmp_path):
    said = "The report is adopted."
    ref = "Madam President, the report is adopted."
    other_ref = "We vote tomorrow on the budget."
    folder = tmp_path / "preds"
    write_preds(folder, {
        "a": (ref, {**{m: said for m in PANEL}, "echo": ref}),
        "b": (other_ref, {**{m: other_ref for m in PANEL}, "echo": other_ref}),
    })
    return folder


def test_cli_full_mode_prints_scores_and_writes_every_output(preds, tmp_path, capsys):
    out = {name: tmp_path / name for name in ("edits.jsonl", "refs.jsonl", "sheet.csv", "result.json")}
    code = main(["refdis", "--preds", str(preds), "--panel", ",".join(PANEL), "--cluster-bootstrap",
                 "--bootstrap", "100", "--edits-out", str(out["edits.jsonl"]), "--corrected-out",
                 str(out["refs.jsonl"]), "--review-sheet", str(out["sheet.csv"]), "--json", str(out["result.json"])])
    assert code == 0
    printed = capsys.readouterr()
    assert "clips: 2 (mined 2)" in printed.out
    assert "edits: 1 by the whole panel" in printed.out
    echo_line = next(line for line in printed.out.splitlines() if line.startswith("echo"))
    assert "100.00%" in echo_line  # accept-ref of the echoing model
    assert "scored leave-one-out" in printed.err
    (row,) = [json.loads(line) for line in out["edits.jsonl"].read_text().splitlines()]
    assert (row["kind"], row["r"], row["a"], row["verdicts"]["echo"]) == ("delete", "madam president", "", "ref")
    assert json.loads(out["refs.jsonl"].read_text().splitlines()[0])["text"] == "the report is adopted"
    payload = json.loads(out["result.json"].read_text())
    assert payload["accept_ref"]["echo"]["n_ref"] == 1
    assert payload["wer_cost"]["echo"]["wer_gained"]["value"] == pytest.approx(2 / 12)
    assert out["sheet.csv"].read_text().count("\n") == 2


def test_cli_corrected_mode_needs_no_panel(preds, tmp_path, capsys):
    fixed = tmp_path / "fixed.jsonl"
    fixed.write_text('{"audio_filepath": "a", "text": "The report is adopted."}\n')
    assert main(["refdis", "--preds", str(preds), "--corrected", str(fixed), "--bootstrap", "50"]) == 0
    printed = capsys.readouterr().out
    assert "edits: 1 from the correction" in printed
    assert "no correction 1" in printed  # clip b has no corrected reference and stays as it is


def test_cli_review_alone_and_bad_combinations(preds, tmp_path, capsys):
    sheet = tmp_path / "r.csv"
    sheet.write_text("edit_id,kind,judgement\na@0-2,delete,yes\n")
    assert main(["refdis", "--review", str(sheet)]) == 0
    assert "miner precision 100.00%" in capsys.readouterr().out
    assert main(["refdis", "--preds", str(preds)]) == 2
    assert "--panel is required" in capsys.readouterr().err
    assert main(["refdis", "--preds", str(preds), "--panel", ",".join(PANEL[:3]), "--compat", "hume",
                 "--corrected-out", str(tmp_path / "x.jsonl")]) == 2
    assert "not available with --compat hume" in capsys.readouterr().err
