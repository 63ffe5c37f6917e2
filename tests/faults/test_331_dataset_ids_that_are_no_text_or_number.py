"""Case 331: a saved Hugging Face dataset whose id column (``id``, or the one ``--id-column`` names) holds
booleans, lists or structs: a flag column named as the id by mistake, an ``id`` made of parts
(``[speaker, chapter, utterance]``).

Each became a clip id through ``str()``, exit 0: the clips ``'True'`` and ``'False'`` (two rows of one flag value
were refused as a duplicate id, naming an id the file never wrote), ``'[1, 2]'``, ``"{'spk': 1}"``, written into the
prediction files as such, while a manifest or prediction file refuses an id that is no text or number.  Now the row
is refused, naming the value and what to do, before any model runs; text and number ids read as before.
"""

from __future__ import annotations

import pytest
from conftest import saved_tone_dataset


HOW = "not a text or a number: name the column that holds each clip's id (--id-column, or id_column = in an audit " \
      "spec's [corpus])"


@pytest.mark.parametrize("ids, said", [
    ([True, False], "row 1: clip id is the bool true, " + HOW),
    ([[1, 2], [1, 3]], "row 1: clip id is the list [1, 2], " + HOW),
    ([{"spk": 1}, {"spk": 2}], "row 1: clip id is the dict {'spk': 1}, " + HOW),
], ids=["bool", "list", "struct"])
def test_an_id_that_is_no_text_or_number_is_refused_before_any_model_runs(tmp_path, cli, ids, said):
    saved = saved_tone_dataset(tmp_path, ids)
    ran = cli("transcribe", "--corpus", saved, "--model", "pocketsphinx", "--out", tmp_path / "out", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [f"asraudit: error: {saved}, {said}"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("ids, read", [(["a", "b"], ["a", "b"]), ([7, 8], ["7", "8"])], ids=["text", "number"])
def test_control_text_and_number_ids_are_read(tmp_path, ids, read):
    from asraudit.data.corpus import load_corpus

    assert load_corpus(saved_tone_dataset(tmp_path, ids)).ids == read
