"""Case 159: ``translate --edits`` with edits on clips outside the corpus (a subset of the benchmark, or edits
of another one). ``lift`` and ``battery`` leave them out with a warning saying how many; ``translate`` left them
out silently, so a run on a subset measured fewer spans than the file held without a word, and a file none of
whose edits was on the corpus said only "no dropped or invented spans on the corpus's clips". Now the three
share one reader (``commands.common.load_corpus_edits``) and print the same warning, before any model loads."""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf

WARNING = "asraudit: warning: {n} edit(s) on clips outside the corpus left out, e.g. {first}"


def _inputs(tmp_path, clips):
    sf.write(tmp_path / "a.wav", np.zeros(16_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "we agree"}) + "\n",
                                      encoding="utf-8")
    edits = tmp_path / "edits.jsonl"
    edits.write_text("".join(json.dumps({"edit_id": f"e{i}", "clip": clip, "kind": "delete", "position": "start",
                                         "ref_start": 0, "ref_end": 1, "r": "we", "a": ""}) + "\n"
                             for i, clip in enumerate(clips)), encoding="utf-8")
    return tmp_path / "m.jsonl", edits


def _translate(cli, tmp_path, manifest, edits):
    return cli("translate", "--model", tmp_path / "no-such-model", "--corpus", manifest, "--edits", edits,
               "--target", "es", "--out", tmp_path / "t.jsonl", "--no-progress")


def test_edits_on_other_clips_are_counted_in_a_warning_before_the_model_loads(tmp_path, cli):
    manifest, edits = _inputs(tmp_path, ["a.wav", "b.wav", "c.wav"])
    ran = _translate(cli, tmp_path, manifest, edits)
    lines = ran.err.splitlines()
    warning = WARNING.format(n=2, first="b.wav")
    assert warning in lines
    assert ran.code == 2 and len(ran.error_lines) == 1 and "no-such-model" in ran.error_lines[0]
    assert lines.index(warning) < lines.index(ran.error_lines[0])  # said before the model failed to load
    assert not (tmp_path / "t.jsonl").exists()


def test_a_file_none_of_whose_edits_is_on_the_corpus_says_so(tmp_path, cli):
    manifest, edits = _inputs(tmp_path, ["b.wav"])
    ran = _translate(cli, tmp_path, manifest, edits)
    assert WARNING.format(n=1, first="b.wav") in ran.err.splitlines()
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {edits}: no dropped or invented spans on the "
                                               "corpus's clips"])


def test_edits_all_on_the_corpus_give_no_warning(tmp_path, cli):
    manifest, edits = _inputs(tmp_path, ["a.wav"])
    ran = _translate(cli, tmp_path, manifest, edits)
    assert "warning" not in ran.err and ran.code == 2  # the missing model, and nothing else


def test_a_truth_file_with_clips_outside_the_corpus_says_how_many_are_left_out(tmp_path, cli):
    manifest, _ = _inputs(tmp_path, [])
    truth = tmp_path / "truth.json"
    span = {"kind": "delete", "r": "we", "a": "", "ref_start": 0, "ref_end": 1}
    truth.write_text(json.dumps({"a.wav": {"edits": [span]}, "b.wav": {"edits": [span]}, "c.wav": {"edits": []}}),
                     encoding="utf-8")
    ran = cli("translate", "--model", tmp_path / "no-such-model", "--corpus", manifest, "--truth", truth,
              "--target", "es", "--out", tmp_path / "t.jsonl", "--no-progress")
    lines = ran.err.splitlines()
    warning = "asraudit: warning: the spans of 1 clip(s) outside the corpus left out, e.g. b.wav"  # c.wav has none
    assert warning in lines
    assert ran.code == 2 and lines.index(warning) < lines.index(ran.error_lines[0])  # before the model loads
