"""Case 237: the options ``asraudit battery`` shares with ``asraudit mask``: ``--no-lift`` and ``--timings``.

The battery takes every target and mask option of ``asraudit mask``, ``--no-lift`` ("skip teacher-forced lift
(transcription only)") among them, and its help lists it; but the battery's probes were read from its spec
alone, so ``--no-lift`` was accepted and ignored: every condition was scored anyway (the dearest of its jobs),
and the lift readouts printed, exit 0.  Now it leaves lift out of the spec's probes, and a spec whose only
probe is lift is refused before any work.

``--timings FILE``, the word-timing cache the aligner appends to, was checked against nothing: named after
``--edits`` (one row, no newline at its end, read as a row cut short) it had the timings appended onto that
row, the input destroyed, exit 0; named after ``--json`` the summary replaced the timings; a file that is not
UTF-8 was a ``UnicodeDecodeError`` traceback.  And a cache that a killed run left cut short was appended to
after its partial row, so the run after the next stopped on "broken word-timing row".  ``--timings`` is now
checked with the other outputs, and the cache cuts a partial row of its own before appending, and refuses a
file whose only row is not one of its rows.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest
import soundfile as sf

pytest.importorskip("ctranslate2")


def _inputs(tmp, probes):
    rng = np.random.default_rng(0)
    rows, recipe = [], []
    for i, text in enumerate(("the cat sat on the mat", "a dog ran in the park")):
        sf.write(tmp / f"c{i}.wav", (0.05 * rng.standard_normal(3 * 16_000)).astype("float32"), 16_000)
        rows.append({"audio_filepath": f"c{i}.wav", "text": text})
        recipe.append({"audio_filepath": f"c{i}.wav", "t0": 0.5, "t1": 0.9, "word": text.split()[1]})
    (tmp / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recipe), encoding="utf-8")
    spec = tmp / "b.toml"
    spec.write_text(f'probes = {json.dumps(probes)}\n[[condition]]\nname = "original"\n[[condition]]\n'
                    'name = "noisy"\ntype = "noise"\nsnr_db = 10\n', encoding="utf-8")
    return spec


def test_no_lift_scores_nothing(tmp_path, cli):
    spec = _inputs(tmp_path, ["recovery", "lift"])
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl",
              "--recipe", tmp_path / "r.jsonl", "--no-lift", "--out", tmp_path / "out", "--json", tmp_path / "b.json",
              "--no-progress", "--bootstrap", "10")
    assert ran.code == 0, ran.err
    assert "battery b: 2 condition(s), probes recovery; 0 edit(s), 2 masked target(s)" in ran.err
    readouts = {r["readout"] for r in json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["rows"]}
    assert readouts == {"recovery"}
    with sqlite3.connect(tmp_path / "out" / "asraudit.sqlite") as db:
        tasks = {task for (task,) in db.execute("SELECT DISTINCT task FROM results")}
    assert tasks == {"transcribe"}


def test_no_lift_of_a_lift_only_spec_is_refused_before_any_work(tmp_path, cli):
    spec = _inputs(tmp_path, ["lift"])
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl",
              "--recipe", tmp_path / "r.jsonl", "--no-lift", "--out", tmp_path / "out", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {spec}: --no-lift leaves none of the spec's probes (probes = [\"lift\"]): the battery "
        "would measure nothing: drop --no-lift, or add accept-ref or recovery to probes"])
    assert not (tmp_path / "out").exists()


def _timing_row(clip):
    return {"__key__": clip, "aligner": "a", "text_sha": "t", "words": [{"idx": 0, "w": "x", "t0": 0.0, "t1": 0.1}]}


def test_timings_named_after_the_edits_is_refused_and_the_edits_kept(tmp_path, cli):
    spec = _inputs(tmp_path, ["accept-ref", "recovery"])
    edits = tmp_path / "e.jsonl"
    row = json.dumps({"clip": "c0.wav", "ref_start": 1, "ref_end": 2, "r": "cat", "a": "x"})
    edits.write_text(row, encoding="utf-8")  # one row, no newline at its end
    ran = cli("battery", "--spec", spec, "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl",
              "--edits", edits, "--targets", "listed", "--words", "cat", "--align", "whisper-tiny.en",
              "--timings", edits, "--out", tmp_path / "out", "--no-progress", "--bootstrap", "10")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {edits}: --timings would overwrite --edits, an input: write it to another file"])
    assert edits.read_text(encoding="utf-8") == row


def test_timings_and_json_on_one_file_is_refused(tmp_path, cli):
    import shutil

    from asraudit.demo.organism import BENCHMARK_DIR

    rows = [json.loads(line) for line in (BENCHMARK_DIR / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    [row] = [r for r in rows if r["sentence"] == "s001" and r["speaker"] == "flite-slt"]
    shutil.copy(BENCHMARK_DIR / row["audio_filepath"], tmp_path / "s001.wav")
    (tmp_path / "m.jsonl").write_text(json.dumps({**row, "audio_filepath": "s001.wav"}) + "\n", encoding="utf-8")
    same = tmp_path / "t.jsonl"
    ran = cli("mask", "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl", "--targets", "listed",
              "--words", "report", "--align", "whisper-tiny.en", "--timings", same, "--json", same,
              "--out", tmp_path / "out", "--no-progress")
    assert (ran.code, ran.error_lines) == (2, [
        f"asraudit: error: {same}: --timings and --json name the same file: give each its own"])
    assert not same.exists()


def test_a_cache_cut_short_by_a_kill_resumes_twice(tmp_path):
    from asraudit.audio.timing import TimingCache, WordTiming

    path = tmp_path / "t.jsonl"
    whole = json.dumps(_timing_row("c0.wav")) + "\n"
    path.write_text(whole + json.dumps(_timing_row("c1.wav"))[:40], encoding="utf-8")  # killed while writing
    cache = TimingCache(path)
    cache.put("al", "c1.wav", "a dog", [WordTiming("a", 0.0, 0.2), WordTiming("dog", 0.2, 0.5)])
    again = TimingCache(path)  # the run after the next: the file holds two whole rows
    assert again.get("al", "c1.wav", "a dog") == [WordTiming("a", 0.0, 0.2), WordTiming("dog", 0.2, 0.5)]
    assert path.read_text(encoding="utf-8").startswith(whole) and len(path.read_text().splitlines()) == 2


@pytest.mark.parametrize("content, message", [
    (b'{"a": 1}', "broken word-timing row: the file is not a word-timing cache"),
    (b"RIFF\x24\xec\x00\x00WAVE", "not valid UTF-8 (byte 0xec at offset 5)"),
])
def test_a_file_that_is_no_timing_cache_is_refused_not_appended_to(tmp_path, content, message):
    from asraudit.audio.timing import TimingCache
    from asraudit.errors import InputError

    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError) as err:
        TimingCache(path)
    assert message in str(err.value)
    assert path.read_bytes() == content
