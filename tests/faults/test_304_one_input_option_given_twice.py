"""Case 304: an option naming the one input file a run reads, given twice with two files, as ``--model`` is given
once per model: ``--corpus a.jsonl --corpus b.jsonl`` (two halves of a benchmark) on any model-running command,
``lift --edits e1.jsonl --edits e2.jsonl`` (also ``battery``, ``translate``), ``mask --recipe r1 --recipe r2``,
``score --texts``, ``steer`` and ``patch --corpus``.
argparse kept the last: ``transcribe`` and ``mask`` ran b's clips only and wrote their files, exit 0, no word;
``lift`` measured e2's edits only.  Now argparse refuses the second, naming both, before anything runs; the same
file twice still goes."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from asraudit.cli import main


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    t = np.arange(8_000) / 16_000
    for name in ("a", "b"):
        sf.write(tmp_path / f"{name}.wav", (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 16_000)
        (tmp_path / f"{name}.jsonl").write_text(json.dumps({"audio_filepath": f"{name}.wav", "text": "a tone"}) + "\n",
                                                encoding="utf-8")
        (tmp_path / f"e{name}.jsonl").write_text(json.dumps({"clip": f"{name}.wav", "ref_start": 0, "ref_end": 1,
                                                             "r": "a", "a": "the"}) + "\n", encoding="utf-8")
        (tmp_path / f"r{name}.jsonl").write_text(json.dumps({"audio_filepath": f"{name}.wav", "t0": 0.1, "t1": 0.3,
                                                             "word": "tone"}) + "\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("argv, option, first, second", [
    (["transcribe", "--model", "pocketsphinx", "--corpus", "a.jsonl", "--corpus", "b.jsonl", "--out", "o"],
     "--corpus", "a.jsonl", "b.jsonl"),
    (["mask", "--model", "pocketsphinx", "--corpus", "a.jsonl", "--corpus", "b.jsonl", "--recipe", "ra.jsonl",
      "--no-lift", "--out", "o"], "--corpus", "a.jsonl", "b.jsonl"),
    (["mask", "--model", "pocketsphinx", "--corpus", "a.jsonl", "--recipe", "ra.jsonl", "--recipe", "rb.jsonl",
      "--no-lift", "--out", "o"], "--recipe", "ra.jsonl", "rb.jsonl"),
    (["lift", "--model", "whisper-tiny.en", "--corpus", "a.jsonl", "--edits", "ea.jsonl", "--edits", "eb.jsonl",
      "--out", "o/l.jsonl"], "--edits", "ea.jsonl", "eb.jsonl"),
    (["translate", "--model", "whisper-tiny.en", "--corpus", "a.jsonl", "--edits", "ea.jsonl", "--edits",
      "eb.jsonl", "--target", "es", "--out", "o/t.jsonl"], "--edits", "ea.jsonl", "eb.jsonl"),
    (["battery", "--spec", "paper", "--model", "whisper-tiny.en", "--corpus", "a.jsonl", "--edits", "ea.jsonl",
      "--edits", "eb.jsonl", "--out", "o"], "--edits", "ea.jsonl", "eb.jsonl"),
    (["score", "--model", "whisper-tiny.en", "--corpus", "a.jsonl", "--texts", "ta.jsonl", "--texts", "tb.jsonl",
      "--out", "o/s.jsonl"], "--texts", "ta.jsonl", "tb.jsonl"),
    (["steer", "induce", "--corpus", "a.jsonl", "--corpus", "b.jsonl", "--direction", "d.safetensors",
      "--out", "o"], "--corpus", "a.jsonl", "b.jsonl"),
    (["patch", "--corpus", "a.jsonl", "--corpus", "b.jsonl", "--source", "silence", "--out", "o"],
     "--corpus", "a.jsonl", "b.jsonl"),
])
def test_two_files_for_one_input_are_refused(folder, capsys, argv, option, first, second):
    with pytest.raises(SystemExit) as stopped:
        main(argv + ["--no-progress"])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    prog = " ".join(argv[:2]) if argv[0] == "steer" else argv[0]
    assert last == (f"asraudit {prog}: error: argument {option}: given twice ({first!r} and {second!r}); a run "
                    "reads one, so the first would not be read: merge them into one, or run once for each")
    assert not (folder / "o").exists()


def test_the_same_file_twice_still_runs(folder, cli):
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", "a.jsonl", "--corpus", "a.jsonl", "--out", "o",
              "--no-progress")
    assert ran.code == 0, ran.err
    assert [json.loads(line)["audio_filepath"] for line in (folder / "o" / "pocketsphinx.jsonl").read_text(
        encoding="utf-8").splitlines()] == ["a.wav"]
