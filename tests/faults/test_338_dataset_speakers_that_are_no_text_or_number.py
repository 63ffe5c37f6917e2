"""Case 338: a saved Hugging Face dataset whose speaker column (``speaker`` or ``speaker_id``) holds booleans,
lists or structs: a flag column named ``speaker``, a speaker made of parts (``[corpus, speaker]``).

Each became the clip's speaker through ``str()``, exit 0: the group labels ``'True'``, ``'[1, 2]'``,
``"{'spk': 1}"`` in every per-group table and in the speaker column of the prediction files, while a manifest
refuses such a speaker (``'speaker' must be a string, got bool``), as the dataset's id column refuses such an id
(case 331).  Now the row is refused, naming the column and the value, before any model runs; text and number
speakers read as before (``7`` and ``7.0`` are speaker ``7``)."""

from __future__ import annotations

import pytest
from conftest import saved_tone_dataset

HOW = "not a text or a number: a speaker column holds each clip's speaker (its name or number)"


@pytest.mark.parametrize("speakers, said", [
    ([True, False], "row 1: 'speaker' is the bool true, " + HOW),
    ([[1, 2], [1, 3]], "row 1: 'speaker' is the list [1, 2], " + HOW),
    ([{"spk": 1}, {"spk": 2}], "row 1: 'speaker' is the dict {'spk': 1}, " + HOW),
], ids=["bool", "list", "struct"])
def test_a_speaker_that_is_no_text_or_number_is_refused_before_any_model_runs(tmp_path, cli, speakers, said):
    saved = saved_tone_dataset(tmp_path, ["a", "b"], columns={"speaker": speakers})
    ran = cli("transcribe", "--corpus", saved, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {saved}, {said}"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("column, speakers, read", [
    ("speaker", ["ann", "bo"], ["ann", "bo"]), ("speaker_id", [7, 8], ["7", "8"]),
    ("speaker_id", [7.0, float("nan")], ["7", None]),
], ids=["text", "number", "float"])
def test_control_text_and_number_speakers_are_read(tmp_path, column, speakers, read):
    from asraudit.data.corpus import load_corpus

    assert [c.speaker for c in load_corpus(saved_tone_dataset(tmp_path, ["a", "b"], columns={column: speakers}))] == read
