"""Corpora from manifests, folders and Hugging Face datasets; bad input names file and row."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from asraudit.data.corpus import Clip, Corpus, load_corpus, load_folder, load_hf_dataset, load_manifest
from asraudit.errors import InputError

SR = 16_000


def write_clip(path: Path, seconds: float = 0.25, freq: float = 220.0, rate: int = SR) -> np.ndarray:
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(int(seconds * rate)) / rate
    x = (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)
    sf.write(path, x, rate)
    return x


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture()
def corpus_dir(tmp_path: Path) -> Path:
    write_clip(tmp_path / "audio" / "a.wav")
    write_clip(tmp_path / "audio" / "b.flac", rate=8_000)
    return tmp_path


def test_manifest_clip_ids_are_audio_filepath_as_written_and_paths_resolve_against_the_manifest(corpus_dir, monkeypatch, tmp_path_factory):
    manifest = write_jsonl(
        corpus_dir / "m.jsonl",
        [{"audio_filepath": "audio/a.wav", "text": "Hello, World.", "duration": 0.25, "speaker": 12, "lang": "en"},
         {"audio_filepath": "audio/b.flac", "text": "second"}],
    )
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))  # resolution must not depend on the cwd
    corpus = load_manifest(manifest)
    assert corpus.ids == ["audio/a.wav", "audio/b.flac"]
    first = corpus["audio/a.wav"]
    assert first.reference == "Hello, World."  # raw text, not normalized
    assert first.audio == corpus_dir / "audio" / "a.wav"
    assert first.duration == 0.25 and first.speaker == "12" and first.metadata == {"lang": "en"}
    assert first.source == str(manifest) and first.row == 1
    assert corpus["audio/b.flac"].duration is None
    assert len(corpus["audio/b.flac"].decode()) == 4000  # 8 kHz file, resampled


def test_absolute_audio_paths_are_kept(corpus_dir):
    path = str(corpus_dir / "audio" / "a.wav")
    corpus = load_manifest(write_jsonl(corpus_dir / "m.jsonl", [{"audio_filepath": path, "text": "x"}]))
    assert corpus.ids == [path] and corpus[path].audio == Path(path)


def test_csv_and_parquet_manifests_give_the_same_clips(corpus_dir):
    rows = [{"audio_filepath": "audio/a.wav", "text": "one", "duration": "0.25"},
            {"audio_filepath": "audio/b.flac", "text": "two", "duration": "0.25"}]
    with (corpus_dir / "m.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["audio_filepath", "text", "duration"])
        w.writeheader()
        w.writerows(rows)
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist([{**r, "duration": float(r["duration"])} for r in rows]), corpus_dir / "m.parquet")
    from_csv, from_parquet = load_manifest(corpus_dir / "m.csv"), load_manifest(corpus_dir / "m.parquet")
    for corpus in (from_csv, from_parquet):
        assert corpus.ids == ["audio/a.wav", "audio/b.flac"]
        assert [c.reference for c in corpus] == ["one", "two"]
        assert [c.duration for c in corpus] == [0.25, 0.25]
    assert [c.row for c in from_csv] == [2, 3]  # CSV rows are file lines (header is line 1)
    assert [c.row for c in from_parquet] == [1, 2]


def test_missing_audio_file_names_manifest_and_row(corpus_dir):
    manifest = write_jsonl(corpus_dir / "m.jsonl", [{"audio_filepath": "audio/a.wav", "text": "x"},
                                                    {"audio_filepath": "audio/gone.wav", "text": "y"}])
    with pytest.raises(InputError, match="gone.wav is missing") as err:
        load_manifest(manifest)
    assert err.value.source == str(manifest) and err.value.row == 2


def test_duplicate_ids_name_both_rows(corpus_dir):
    manifest = write_jsonl(corpus_dir / "m.jsonl", [{"audio_filepath": "audio/a.wav", "text": "x"},
                                                    {"audio_filepath": "audio/b.flac", "text": "y"},
                                                    {"audio_filepath": "audio/a.wav", "text": "z"}])
    with pytest.raises(InputError, match=r"duplicate clip id 'audio/a.wav' \(first at row 1\)") as err:
        load_manifest(manifest)
    assert err.value.row == 3


def test_non_utf8_manifest_names_the_line(corpus_dir):
    manifest = corpus_dir / "m.jsonl"
    manifest.write_bytes(b'{"audio_filepath": "audio/a.wav", "text": "ok"}\n{"audio_filepath": "audio/b.flac", "text": "caf\xe9"}\n')
    with pytest.raises(InputError, match="UTF-8") as err:
        load_manifest(manifest)
    assert err.value.row == 2


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"audio_filepath": "audio/a.wav", "text": ', "broken JSON"),
        ('{"text": "no path"}', "missing 'audio_filepath'"),
        ('{"audio_filepath": "audio/a.wav"}', "missing 'text'"),
        ('{"audio_filepath": "audio/a.wav", "text": 5}', "'text' must be a string"),
        ('{"audio_filepath": "audio/a.wav", "text": "x", "duration": "long"}', "duration must be a number"),
        ('{"audio_filepath": "audio/a.wav", "text": "x", "duration": -1}', "non-negative"),
        ('{"audio_filepath": "", "text": "x"}', "empty audio_filepath"),
        ('["a list"]', "JSON object"),
    ],
)
def test_broken_rows_name_file_and_row(corpus_dir, line, message):
    manifest = corpus_dir / "m.jsonl"
    manifest.write_text('{"audio_filepath": "audio/b.flac", "text": "fine"}\n\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        load_manifest(manifest)
    assert err.value.source == str(manifest) and err.value.row == 3


def test_unreadable_audio_in_a_manifest_names_the_row_when_loaded_and_when_decoded(corpus_dir):
    (corpus_dir / "audio" / "junk.wav").write_bytes(b"RIFF....WAVEnope")
    manifest = write_jsonl(corpus_dir / "m.jsonl", [{"audio_filepath": "audio/a.wav", "text": "x"},
                                                    {"audio_filepath": "audio/junk.wav", "text": "y"}])
    with pytest.raises(InputError, match="junk.wav") as err:  # its header is read with the manifest
        load_manifest(manifest)
    assert err.value.source == str(manifest) and err.value.row == 2
    corpus = load_manifest(manifest, check_files=False)
    with pytest.raises(InputError, match="junk.wav") as err:
        corpus["audio/junk.wav"].decode()
    assert err.value.source == str(manifest) and err.value.row == 2


def test_empty_manifest_is_an_input_error(tmp_path):
    (tmp_path / "m.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no rows"):
        load_manifest(tmp_path / "m.jsonl")


def test_folder_pairs_audio_with_same_named_transcripts(tmp_path):
    write_clip(tmp_path / "x" / "one.wav")
    write_clip(tmp_path / "x" / "sub" / "two.flac")
    (tmp_path / "x" / "one.txt").write_text(" Hello   there\n", encoding="utf-8")
    (tmp_path / "x" / "notes.md").write_text("ignored", encoding="utf-8")
    corpus = load_folder(tmp_path / "x")
    assert corpus.ids == ["one.wav", "sub/two.flac"]
    assert corpus["one.wav"].reference == "Hello there"
    assert corpus["sub/two.flac"].reference is None


def test_folder_transcript_that_is_not_utf8_is_named(tmp_path):
    write_clip(tmp_path / "one.wav")
    (tmp_path / "one.txt").write_bytes(b"na\xefve")
    with pytest.raises(InputError, match="UTF-8") as err:
        load_folder(tmp_path)
    assert err.value.source == str(tmp_path / "one.txt")


def test_folder_without_audio_is_an_input_error(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(InputError, match="no audio files"):
        load_folder(tmp_path)


def test_in_memory_clips_are_checked_and_a_corpus_refuses_duplicates():
    clip = Clip("mem", np.zeros(160, np.float32), "ref")
    assert clip.decode().shape == (160,)
    with pytest.raises(InputError, match="duplicate"):
        Corpus("c", (clip, Clip("mem", np.zeros(10, np.float32))))
    with pytest.raises(InputError, match="empty"):
        Clip("none", np.zeros(0, np.float32)).decode()


def test_load_corpus_dispatches_on_what_the_path_is(corpus_dir):
    manifest = write_jsonl(corpus_dir / "m.jsonl", [{"audio_filepath": "audio/a.wav", "text": "x"}])
    assert load_corpus(manifest).ids == ["audio/a.wav"]
    assert load_corpus(corpus_dir / "audio").ids == ["a.wav", "b.flac"]
    with pytest.raises(InputError, match="no such corpus"):
        load_corpus(corpus_dir / "missing.jsonl")


def test_saved_hugging_face_dataset_is_read_offline_with_ids_and_audio(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    a = write_clip(tmp_path / "a.wav")
    write_clip(tmp_path / "b.flac", rate=8_000)
    ds = datasets.Dataset.from_dict(
        {"id": ["utt-a", "utt-b"], "audio": [str(tmp_path / "a.wav"), str(tmp_path / "b.flac")],
         "sentence": ["First one.", "second"], "speaker_id": [3, 4]}
    ).cast_column("audio", datasets.Audio())
    ds.save_to_disk(str(tmp_path / "saved"))
    corpus = load_corpus(tmp_path / "saved")
    assert corpus.ids == ["utt-a", "utt-b"]
    assert [c.reference for c in corpus] == ["First one.", "second"]
    assert corpus["utt-a"].speaker == "3"
    np.testing.assert_allclose(corpus["utt-a"].decode(), a, atol=1e-4)  # 16-bit wav round trip
    assert len(corpus["utt-b"].decode()) == 4000


def test_dataset_dict_needs_a_split_and_names_the_choices(tmp_path):
    datasets = pytest.importorskip("datasets")
    write_clip(tmp_path / "a.wav")
    one = datasets.Dataset.from_dict({"audio": [str(tmp_path / "a.wav")], "text": ["x"]})
    datasets.DatasetDict({"test": one, "validation": one}).save_to_disk(str(tmp_path / "dd"))
    with pytest.raises(InputError, match="splits"):
        load_hf_dataset(tmp_path / "dd")
    corpus = load_hf_dataset(tmp_path / "dd", split="validation")
    assert corpus.ids == ["0"] and corpus.name == "dd-validation"


def test_unreachable_hub_dataset_is_an_input_error(monkeypatch):
    pytest.importorskip("datasets")
    import datasets.config
    import huggingface_hub.constants

    # Offline switches are read at import time, so set the imported constants too.
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputError, match="cannot load dataset"):
        load_corpus("hf:someone/not-a-real-dataset", split="test")
