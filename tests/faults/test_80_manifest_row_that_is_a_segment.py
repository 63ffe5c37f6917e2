"""Case 80: a manifest row that is a segment of a longer file (NeMo's ``offset``) is refused, naming the row.

NeMo manifests describe a segment of a long recording by ``offset`` and
``duration`` (seconds).  asraudit decodes each row's whole file: the offset
was kept as metadata and ignored, so each segment's reference was scored
against a transcript of the whole recording, exit 0 (with ``duration``
given, case 72's length check refused it, naming the duration, not the
cause).  An ``offset`` of 0 is the whole file and reads as before.  A
``text`` that is there but null said "missing 'text' (found fields [...,
'text'])"; it now says the field is empty.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf


@pytest.mark.parametrize("row, said", [
    ({"offset": 0.5}, "offset 0.5 s: the row is a segment of a longer audio file (NeMo's offset and duration), and "
                      "asraudit reads each row's whole file, so the segment's reference would be scored against the "
                      "whole recording: cut the segments into files of their own"),
    ({"offset": 1.0, "duration": 0.5}, "offset 1 s: the row is a segment of a longer audio file"),
    ({"offset": "later"}, "offset must be a number of seconds, got 'later'"),
    ({"text": None}, "'text' is empty (null): give it as a string"),
], ids=["offset", "offset-and-duration", "offset-not-a-number", "text-null"])
def test_a_segment_row_is_refused_before_any_model_runs(tmp_path, cli, row, said):
    sf.write(tmp_path / "a.wav", np.zeros(32_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "hello", **row}) + "\n",
                                      encoding="utf-8")
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", tmp_path / "m.jsonl", "--out", tmp_path / "o",
              "--no-progress")
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {tmp_path / 'm.jsonl'}, row 1: {said}")
    assert not (tmp_path / "o" / "pocketsphinx.jsonl").exists()


def test_an_offset_of_zero_is_the_whole_file(tmp_path, cli):
    sf.write(tmp_path / "a.wav", np.zeros(32_000, dtype=np.float32), 16_000)
    (tmp_path / "m.jsonl").write_text(json.dumps({"audio_filepath": "a.wav", "text": "hello", "offset": 0,
                                                  "duration": 2.0}) + "\n", encoding="utf-8")
    ran = cli("transcribe", "--model", "pocketsphinx", "--corpus", tmp_path / "m.jsonl", "--out", tmp_path / "o",
              "--no-progress")
    assert ran.code == 0 and (tmp_path / "o" / "pocketsphinx.jsonl").is_file()
