"""Case 170: a Hugging Face dataset whose audio, reference or id column has another name than the defaults
(``audio``; ``text``, ``sentence``, ... ; ``id``): a ``speech`` audio column, a ``words`` transcript column, an
``utt`` id column.

``load_hf_dataset`` took the three columns in Python, but no command or audit spec could name them: the CLI
refused ``--text-column`` as an unknown argument, a spec's ``text_column =`` was an unknown key, and the dataset
could not be audited at all (``no audio column 'audio'``).  Now every command that takes ``--corpus`` has
``--audio-column``, ``--text-column`` and ``--id-column``, a spec's ``[corpus]`` has ``audio_column``,
``text_column`` and ``id_column``, ``load_corpus`` owns them, and a column the dataset lacks, one column named
for two parts, or a column named for a manifest or a folder of audio (which have no columns) is one line before
any model runs.
"""

from __future__ import annotations

import json

import pytest

from conftest import one_clip_manifest, write_preds


def _saved(tmp_path):
    datasets = pytest.importorskip("datasets")
    one_clip_manifest(tmp_path)
    saved = tmp_path / "saved"
    rows = datasets.Dataset.from_dict({"speech": [str(tmp_path / "a.wav")], "words": ["a tone"], "utt": ["u1"]})
    rows.cast_column("speech", datasets.Audio(decode=False)).save_to_disk(str(saved))
    return saved


def _transcribe(cli, tmp_path, corpus, *options):
    return cli("transcribe", "--corpus", corpus, *options, "--model", "pocketsphinx", "--out", tmp_path / "out",
               "--no-progress")


def test_the_columns_are_named_on_the_command_line(tmp_path, cli):
    saved = _saved(tmp_path)
    ran = _transcribe(cli, tmp_path, saved)
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: no audio column 'audio'; the dataset's columns are 'speech', 'words', 'utt': "
        "name the one that holds the audio (--audio-column, or audio_column = in an audit spec's [corpus])"]
    ran = _transcribe(cli, tmp_path, saved, "--audio-column", "speech")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: no text column (tried text, sentence, transcription, transcript, "
        "normalized_text); the dataset's columns are 'speech', 'words', 'utt': name the one that holds the "
        "reference transcripts (--text-column, or text_column = in an audit spec's [corpus])"]
    ran = _transcribe(cli, tmp_path, saved, "--audio-column", "speech", "--text-column", "word")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: no text column 'word'; the dataset's columns are 'speech', 'words', 'utt'"]
    ran = _transcribe(cli, tmp_path, saved, "--audio-column", "speech", "--text-column", "words", "--id-column",
                      "words")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: column 'words' is named both the text and the id column: each part of a clip "
        "is read from its own column"]
    assert not (tmp_path / "out").exists()
    ran = _transcribe(cli, tmp_path, saved, "--audio-column", "speech", "--text-column", "words", "--id-column",
                      "utt")
    assert ran.code == 0, ran.err
    rows = [json.loads(line) for line in (tmp_path / "out" / "pocketsphinx.jsonl").read_text().splitlines()]
    assert [(r["audio_filepath"], r["text"]) for r in rows] == [("u1", "a tone")]


def test_the_text_column_chosen_among_several_is_said(tmp_path, cli):
    datasets = pytest.importorskip("datasets")
    one_clip_manifest(tmp_path)
    saved = tmp_path / "two"
    rows = datasets.Dataset.from_dict({"audio": [str(tmp_path / "a.wav")], "text": ["A TONE."],
                                       "normalized_text": ["a tone"]})
    rows.cast_column("audio", datasets.Audio(decode=False)).save_to_disk(str(saved))
    ran = _transcribe(cli, tmp_path, saved)
    notes = [line for line in ran.err.splitlines() if line.startswith("asraudit: note:")]
    assert ran.code == 0 and notes == [
        f"asraudit: note: {saved}: references read from column 'text'; the dataset also has 'normalized_text' "
        "(name another with --text-column, or text_column = in an audit spec's [corpus])"]
    ran = _transcribe(cli, tmp_path, saved, "--text-column", "normalized_text")
    assert ran.code == 0 and "asraudit: note:" not in ran.err
    rows = [json.loads(line) for line in (tmp_path / "out" / "pocketsphinx.jsonl").read_text().splitlines()]
    assert [r["text"] for r in rows] == ["a tone"]


def test_columns_cannot_be_chosen_of_a_manifest_or_a_folder(tmp_path, cli):
    """A manifest's audio and id are its audio_filepath, a folder has no columns: such a choice is refused, not
    ignored.  (A manifest's text column can be chosen: the next test.)"""
    manifest = one_clip_manifest(tmp_path)
    ran = _transcribe(cli, tmp_path, manifest, "--audio-column", "speech")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {manifest}: audio column 'speech' cannot be chosen: a manifest names its audio and its "
        "clip id in audio_filepath (a Hugging Face dataset's audio and id columns are chosen): give no audio column"]
    ran = _transcribe(cli, tmp_path, tmp_path, "--text-column", "words")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {tmp_path}: text column 'words' cannot be chosen: a folder of audio has no columns: its "
        "clip ids are the file names and its references the .txt files beside them: give no text column"]
    assert not (tmp_path / "out").exists()


def test_a_manifest_reads_its_references_from_the_field_named(tmp_path, cli):
    """A manifest that keeps a corrected reference beside the original is audited against either; a row without
    the field is one line naming it, before any model runs."""
    from asraudit.data.corpus import load_corpus

    manifest = one_clip_manifest(tmp_path, text="the record")
    row = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps({**row, "text_corrected": "a tone"}) + "\n", encoding="utf-8")
    corpus = load_corpus(manifest, text_column="text_corrected")
    (clip,) = corpus.clips
    assert clip.reference == "a tone" and clip.field("text") == "the record"
    assert load_corpus(manifest).clips[0].reference == "the record"
    ran = _transcribe(cli, tmp_path, manifest, "--text-column", "words")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {manifest}, row 1: missing 'words' (found fields ['audio_filepath', 'text', "
        "'text_corrected'])"]
    assert not (tmp_path / "out").exists()


def test_the_columns_in_an_audit_spec_and_from_python(tmp_path, cli):
    saved = _saved(tmp_path)
    models = ""
    for i in range(3):
        write_preds(tmp_path / f"m{i}.jsonl", [("u1", "a tone", "a tone")])
        models += f'[[model]]\npredictions = "m{i}.jsonl"\npanel = true\n\n'
    spec = tmp_path / "audit.toml"
    corpus = 'dataset = "saved"\naudio_column = "speech"\ntext_column = "words"\nid_column = "utt"\n'
    spec.write_text(f'name = "x"\nout = "out"\n[corpus]\n{corpus}\n{models}', encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 0 and ran.out.strip() == f"{spec}: ok: 1 clips, models m0, m1, m2, panel m0, m1, m2"
    spec.write_text(f'name = "x"\nout = "out"\n[corpus]\n{corpus.replace("words", "wordz")}\n{models}',
                    encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: no text column 'wordz'; the dataset's columns are 'speech', 'words', 'utt'"]
    spec.write_text(f'name = "x"\nout = "out"\n[corpus]\nmanifest = "m.jsonl"\ntext_column = "words"\n\n{models}',
                    encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {tmp_path / 'm.jsonl'}, row 1: missing 'words' (found fields ['audio_filepath', "
        "'text'])"]
    spec.write_text(f'name = "x"\nout = "out"\n[corpus]\nmanifest = "m.jsonl"\nid_column = "utt"\n\n{models}',
                    encoding="utf-8")
    ran = cli("audit", spec, "--check")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {spec}: [corpus]: id_column = 'utt' cannot apply to a manifest, which names its audio "
        "and clip id in audio_filepath (a Hugging Face dataset's columns are chosen): remove it"]
    from asraudit.data.corpus import load_corpus

    corpus = load_corpus(saved, audio_column="speech", text_column="words", id_column="utt")
    assert corpus.ids == ["u1"] and corpus["u1"].reference == "a tone"
