"""Prediction files: formats, aliases, coverage, conflicts and bad input."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from asraudit.data.corpus import Clip, Corpus
from asraudit.data.prediction_writer import write_corpus_predictions
from asraudit.data.predictions import load_prediction_file, load_predictions, write_leaderboard_jsonl
from asraudit.errors import InputError


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_leaderboard_jsonl_is_read_with_model_name_from_stem(tmp_path):
    f = _jsonl(tmp_path / "whisper-tiny.en.jsonl", [
        {"audio_filepath": "a", "text": "Hello there.", "pred_text": " hello there", "duration": 1.5},
    ])
    preds = load_prediction_file(f)
    assert preds.model == "whisper-tiny.en"
    assert preds["a"].reference == "Hello there." and preds["a"].hypothesis == " hello there"
    assert preds["a"].duration == 1.5 and preds["a"].row == 1


@pytest.mark.parametrize("fields", [("reference", "hypothesis", "id"), ("ref", "hyp", "__key__"), ("text", "pred_text", "clip_id")])
def test_usual_field_aliases_are_accepted(tmp_path, fields):
    ref_f, hyp_f, id_f = fields
    f = _jsonl(tmp_path / "m.jsonl", [{id_f: "c1", ref_f: "r", hyp_f: "h"}])
    assert load_prediction_file(f)["c1"].hypothesis == "h"


def test_csv_and_parquet_read_the_same_rows(tmp_path):
    (tmp_path / "m.csv").write_text('audio_filepath,text,pred_text\na,"Hi, there",hi there\nb,x,y\n', encoding="utf-8")
    pq.write_table(pa.table({"audio_filepath": ["a", "b"], "text": ["Hi, there", "x"], "pred_text": ["hi there", "y"]}),
                   tmp_path / "n.parquet")
    pset = load_predictions(tmp_path)
    assert pset.model_names == ["m", "n"]
    assert {c: p.reference for c, p in pset.models["m"].rows.items()} == {c: p.reference for c, p in pset.models["n"].rows.items()}
    assert pset.models["m"]["b"].row == 3  # CSV rows are file lines, header is line 1


def test_a_clip_a_model_did_not_run_is_absent_not_empty(tmp_path):
    _jsonl(tmp_path / "a.jsonl", [{"id": "1", "text": "x", "pred_text": "x"}, {"id": "2", "text": "y", "pred_text": ""}])
    _jsonl(tmp_path / "b.jsonl", [{"id": "1", "text": "x", "pred_text": "x"}, {"id": "2", "text": "y", "pred_text": None}])
    pset = load_predictions(tmp_path)
    assert "2" in pset.models["a"] and pset.models["a"]["2"].hypothesis == ""
    assert "2" not in pset.models["b"]
    assert pset.coverage() == {"a": (2, 2), "b": (1, 2)}
    assert pset.common_clip_ids() == ["1"]
    assert any("did not run" in w for w in pset.warnings)


def test_references_that_disagree_across_models_are_named(tmp_path):
    _jsonl(tmp_path / "a.jsonl", [{"id": "1", "text": "same", "pred_text": ""}, {"id": "2", "text": "one", "pred_text": ""}])
    _jsonl(tmp_path / "b.jsonl", [{"id": "1", "text": "same ", "pred_text": ""}, {"id": "2", "text": "other", "pred_text": ""}])
    pset = load_predictions(tmp_path)
    conflicts = pset.reference_conflicts()
    assert [c.clip_id for c in conflicts] == ["2"]
    assert any("differ across models on 1 clip" in w for w in pset.warnings)
    with pytest.raises(InputError, match="clip '2'"):
        pset.references()


def test_broken_json_row_names_file_and_line(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text('{"id": "1", "text": "a", "pred_text": "a"}\n{"id": "2", "text": \n', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_prediction_file(f)
    assert str(f) in str(exc.value) and "row 2" in str(exc.value)


def test_non_utf8_bytes_name_the_line(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_bytes(b'{"id": "1", "text": "a", "pred_text": "a"}\n{"id": "2", "text": "caf\xe9", "pred_text": "a"}\n')
    with pytest.raises(InputError, match=r"row 2: not valid UTF-8"):
        load_prediction_file(f)


def test_duplicate_clip_ids_name_both_rows(tmp_path):
    f = _jsonl(tmp_path / "m.jsonl", [{"id": "1", "text": "a", "pred_text": "a"}, {"id": "1", "text": "a", "pred_text": "b"}])
    with pytest.raises(InputError, match=r"row 2: duplicate clip id '1' \(first seen at row 1\)"):
        load_prediction_file(f)


def test_missing_columns_say_what_was_found(tmp_path):
    f = _jsonl(tmp_path / "m.jsonl", [{"id": "1", "transcription": "a"}])
    with pytest.raises(InputError, match=r"row 1: missing column\(s\) for reference, hypothesis"):
        load_prediction_file(f)


def test_csv_row_with_extra_cells_is_an_error(tmp_path):
    f = tmp_path / "m.csv"
    f.write_text("id,text,pred_text\n1,a,b\n2,a,b,c\n", encoding="utf-8")
    with pytest.raises(InputError, match="row 3"):
        load_prediction_file(f)


def test_missing_reference_value_is_an_error(tmp_path):
    f = _jsonl(tmp_path / "m.jsonl", [{"id": "1", "text": None, "pred_text": "a"}])
    with pytest.raises(InputError, match="reference"):
        load_prediction_file(f)


def test_non_string_text_is_an_error(tmp_path):
    f = _jsonl(tmp_path / "m.jsonl", [{"id": "1", "text": 5, "pred_text": "a"}])
    with pytest.raises(InputError, match="must be a string"):
        load_prediction_file(f)


def test_broken_parquet_names_the_file(tmp_path):
    f = tmp_path / "m.parquet"
    f.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match="cannot read Parquet"):
        load_prediction_file(f)


def test_empty_directory_and_missing_path_are_clear(tmp_path):
    with pytest.raises(InputError, match="no prediction files"):
        load_predictions(tmp_path)
    with pytest.raises(InputError, match="no such file"):
        load_predictions(tmp_path / "nope")


def test_unknown_model_names_the_available_ones(tmp_path):
    _jsonl(tmp_path / "a.jsonl", [{"id": "1", "text": "x", "pred_text": "x"}])
    with pytest.raises(InputError, match="available: a"):
        load_predictions(tmp_path).common_clip_ids(["zzz"])


def test_export_round_trips_in_leaderboard_layout(tmp_path):
    src = _jsonl(tmp_path / "m.jsonl", [
        {"id": "1", "reference": "Ça va?", "hypothesis": "ça va", "duration": 2.0},
        {"id": "2", "reference": "b", "hypothesis": ""},
    ])
    out = write_leaderboard_jsonl(load_prediction_file(src), tmp_path / "out" / "m.jsonl")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0] == {"audio_filepath": "1", "text": "Ça va?", "pred_text": "ça va", "duration": 2.0}
    assert rows[1] == {"audio_filepath": "2", "text": "b", "pred_text": ""}
    again = load_prediction_file(out)
    assert [p.hypothesis for p in again.rows.values()] == ["ça va", ""]


def test_shared_voxpopuli_predictions_load_with_full_coverage(shared_predictions):
    pset = load_predictions(shared_predictions)
    assert len(pset.model_names) == 5
    assert all(ran == total == 150 for ran, total in pset.coverage().values())
    assert pset.reference_conflicts() == []


def test_written_predictions_follow_corpus_order_and_leave_clips_without_a_transcript_out(tmp_path):
    class Stored:  # what the store's results offer: raw text and the audio the model heard
        def __init__(self, text, audio_seconds):
            self.text, self.audio_seconds = text, audio_seconds

    corpus = Corpus("c", (Clip("b.wav", tmp_path / "b.wav", "Bee.", duration=2.0),
                          Clip("a.wav", tmp_path / "a.wav", "Ay."),
                          Clip("c.wav", tmp_path / "c.wav", None)))
    transcripts = {"a.wav": Stored("ay", 1.23456), "b.wav": Stored("", 2.5), "x.wav": Stored("stray", 1.0)}
    path, missing = write_corpus_predictions(corpus, "m", transcripts, tmp_path / "m.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert missing == 1  # c.wav has no transcript; x.wav is not in the corpus
    # An empty hypothesis is kept (the model heard nothing); the corpus's duration wins over the audio seen.
    assert rows == [{"audio_filepath": "b.wav", "text": "Bee.", "pred_text": "", "duration": 2.0},
                    {"audio_filepath": "a.wav", "text": "Ay.", "pred_text": "ay", "duration": 1.2346}]

