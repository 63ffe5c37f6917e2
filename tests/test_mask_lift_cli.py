"""`asraudit mask` and `asraudit lift` on real clips of the embedded benchmark, through the store."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from asraudit.cli import main
from asraudit.probes.masked import is_recovered
from asraudit.text.normalize import get_normalizer

BENCH = Path(__file__).resolve().parents[1] / "src" / "asraudit" / "demo" / "data" / "parliament_mini"
NUMBER_CLIP = "audio/s013-flite-slt.ogg"  # "More than fifty percent of the money was never paid out."
EDIT_CLIP = "audio/s001-flite-slt.ogg"  # reference adds "Madam President," that was not said


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    from asraudit.models import embedded

    pytest.importorskip("pocketsphinx")
    if not embedded.is_present("whisper-tiny.en"):
        pytest.skip("whisper-tiny.en is not installed")
    root = tmp_path_factory.mktemp("mini")
    rows = [json.loads(line) for line in (BENCH / "test.jsonl").read_text().splitlines()]
    keep = [r for r in rows if r["audio_filepath"] in (NUMBER_CLIP, EDIT_CLIP)]
    (root / "audio").mkdir()
    for r in keep:
        shutil.copy(BENCH / r["audio_filepath"], root / r["audio_filepath"])
    (root / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in keep))
    return root / "manifest.jsonl"


@pytest.fixture(scope="module")
def masked_run(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("mask")
    code, stdout, stderr = _cli("mask", "--model", "whisper-tiny.en", "--corpus", corpus, "--text-field", "spoken",
                                "--out", out, "--no-progress", "--json", out / "summary.json")
    assert code == 0, stderr
    return out, stdout, stderr


def test_a_silenced_number_is_not_written_and_the_masked_audio_does_not_lift_it(masked_run):
    out, stdout, _ = masked_run
    (row,) = [json.loads(line) for line in (out / "mask_outcomes.jsonl").read_text().splitlines()]
    assert (row["clip"], row["word"], row["kind"]) == (NUMBER_CLIP, "fifty", "number")
    assert row["clean_recovered"] is True and row["masked_recovered"] is False
    # With the number heard, the audio makes it far likelier than silence does; masked, the audio adds
    # nothing (a hole in speech argues against any word there, so λ may even go below zero).
    assert row["lift_clean"] > 0.5 and row["lift_masked"] < 0.1
    assert row["control_word"] and row["control_recovered"] is not None
    summary = json.loads((out / "summary.json").read_text())
    assert summary["targets"] == 1 and summary["models"][0]["masked"]["k"] == 0
    assert "masked-entity recovery" in stdout and "whisper-tiny.en" in stdout


def test_the_recipe_written_is_the_papers_mask_format_and_reads_back(masked_run, corpus):
    out, _, _ = masked_run
    (rec,) = [json.loads(line) for line in (out / "mask_recipe.jsonl").read_text().splitlines()]
    assert rec["clip"] == NUMBER_CLIP and rec["hidden"] == "fifty" and rec["index"] == 2 and rec["t1"] > rec["t0"]
    code, stdout, stderr = _cli("mask", "--model", "whisper-tiny.en", "--corpus", corpus, "--text-field", "spoken",
                                "--recipe", out / "mask_recipe.jsonl", "--out", out, "--no-progress", "--no-lift",
                                "--no-control")
    assert code == 0, stderr
    assert "targets: 1 numbers in 1 clip(s)" in stdout
    assert "0.0% [0.0," in stdout  # still not recovered
    # The first run stored λ and the control word in the same store; a run without them does not report them.
    (row,) = [json.loads(line) for line in (out / "mask_outcomes.jsonl").read_text().splitlines()]
    assert row["lift_masked"] is None and row["lift_clean"] is None and row["control_recovered"] is None
    table = stdout[stdout.index("masked-entity recovery"):]
    assert "+0." not in table and "-0." not in table


def test_rerunning_mask_computes_nothing(masked_run, corpus):
    out, _, _ = masked_run
    code, _, stderr = _cli("mask", "--model", "whisper-tiny.en", "--corpus", corpus, "--text-field", "spoken",
                           "--out", out, "--no-progress")
    assert code == 0
    assert "transcribe: 0 job(s) run now, 3 already stored" in stderr
    assert "score: 0 job(s) run now, 3 already stored" in stderr


def test_recovery_reads_digits_glued_to_symbols_as_the_spoken_words():
    n = get_normalizer("whisper")
    words = "More than fifty percent of the money".split()
    assert is_recovered(words, 2, "More than 50% of the money.", n)
    assert not is_recovered(words, 2, "More than 15% of the money.", n)
    assert not is_recovered(words, 2, "More than % of the money.", n)


def _edit(start, end, r, a, kind):
    position = "start" if start == 0 else "end" if end == 11 else "middle"  # the reference has 11 tokens
    return {"edit_id": f"{EDIT_CLIP}@{start}-{end}", "clip": EDIT_CLIP, "kind": kind, "position": position,
            "ref_start": start, "ref_end": end, "r": r, "a": a}


def test_lift_is_positive_for_spoken_words_and_not_for_unspoken_ones(corpus, tmp_path):
    # Reference: "madam president the commission must present its report before the autumn" (normalized);
    # the clip says it without "madam president".
    edits = tmp_path / "edits.jsonl"
    edits.write_text("".join(json.dumps(e) + "\n" for e in (
        _edit(0, 2, "madam president", "", "delete"),
        _edit(10, 11, "autumn", "summer", "substitute"),
    )))
    out = tmp_path / "lift.jsonl"
    code, stdout, stderr = _cli("lift", "--model", "whisper-tiny.en", "--corpus", corpus, "--edits", edits,
                                "--out", out, "--no-progress")
    assert code == 0, stderr
    rows = {r["edit_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    unspoken = rows[f"{EDIT_CLIP}@0-2"]
    swapped = rows[f"{EDIT_CLIP}@10-11"]
    assert unspoken["lift_a"] is None and unspoken["lift_r"] < 0.5
    assert swapped["lift_r"] > 0.5 > swapped["lift_a"]  # "autumn" was said, "summer" was not
    assert "λ(r)" in stdout
    code, _, stderr = _cli("lift", "--model", "whisper-tiny.en", "--corpus", corpus, "--edits", edits,
                           "--out", out, "--no-progress")
    assert code == 0 and "score: 0 job(s) run now, 2 already stored" in stderr


def test_an_edit_that_does_not_match_the_reference_is_an_input_error(corpus, tmp_path):
    edits = tmp_path / "edits.jsonl"
    edits.write_text(json.dumps(_edit(0, 2, "mister president", "", "delete")) + "\n")
    code, _, stderr = _cli("lift", "--model", "whisper-tiny.en", "--corpus", corpus, "--edits", edits,
                           "--out", tmp_path / "x.jsonl", "--no-progress")
    assert code == 2 and "row 1" in stderr and "does not match the reference" in stderr


def test_edits_of_another_benchmark_are_named_as_such_not_as_an_empty_file(corpus, tmp_path):
    edits = tmp_path / "edits.jsonl"
    edits.write_text("".join(json.dumps({**_edit(0, 2, "madam president", "", "delete"), "clip": f"other/{i}.wav"})
                             + "\n" for i in range(3)))
    code, _, stderr = _cli("lift", "--model", "whisper-tiny.en", "--corpus", corpus, "--edits", edits,
                           "--out", tmp_path / "x.jsonl", "--no-progress")
    assert code == 2 and "no edits in the file" not in stderr
    assert stderr.strip().splitlines()[-1].endswith(
        "none of its 3 edit(s) is on a clip of the corpus (e.g. 'other/0.wav'): edits and corpus of different "
        "benchmarks, or clip ids written differently?")
