"""Case 215: a corpus named beside the audited one (``steer learn --negative-corpus``, ``patch --source
corpus:PATH``, a battery's or a splice's ``corpus:`` donors) that is a Hugging Face dataset with several text
columns (``text`` and ``sentence``: a corrected and an original reference, or a normalized and a raw one).

The audited corpus's reader says which column its references were read from (``asraudit: note: ds: references
read from column 'text'; the dataset also has 'sentence' ...``), but a second corpus's notes were dropped: a donor
corpus's references (which the battery compares with each clip's, so that a donor never says what the clip says)
came from a column nobody was told of.  ``load_other_corpus`` now says them the same way, naming the option, once
per corpus and option (a donor corpus is read when the spec is checked and again when its condition runs), with
a remedy that fits it (no option chooses a second corpus's columns).
"""

from __future__ import annotations

import pytest

from conftest import one_clip_manifest


def _dataset(tmp_path):
    datasets = pytest.importorskip("datasets")
    one_clip_manifest(tmp_path, tone=False)
    rows = datasets.Dataset.from_dict({"audio": [str(tmp_path / "a.wav")], "text": ["a tone"],
                                       "sentence": ["A tone."], "id": ["other.wav"]})
    saved = tmp_path / "other"
    rows.cast_column("audio", datasets.Audio(decode=False)).save_to_disk(str(saved))
    return saved


def _note(saved, role):
    return (f"asraudit: note: {saved} ({role}): references read from column 'text'; the dataset also has 'sentence' "
            f"({role} is read with a dataset's default columns, which no option chooses: to read another, remove "
            "this one (Dataset.remove_columns) and save the dataset again)")


def test_a_negative_corpus_says_which_text_column_it_read(tmp_path, cli):
    saved = _dataset(tmp_path)
    ran = cli("steer", "learn", "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl", "--negative-corpus",
              saved, "--layer", "0", "--out", tmp_path / "d.safetensors")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: 1 of 1 clip(s) of --corpus have no negative with the same id (first: 'a.wav'); "
        "pairs are matched by clip id: give each clip its negative, or leave those clips out of --corpus"]  # case 206
    assert _note(saved, "--negative-corpus") in ran.err.splitlines()


def test_a_donor_corpus_says_it_once_and_a_patch_source_too(tmp_path, capsys):
    from asraudit.data.corpus import load_other_corpus
    from asraudit.probes.battery_donors import check_donor_source

    saved = _dataset(tmp_path)
    capsys.readouterr()  # datasets' progress bars
    check_donor_source(f"corpus:{saved}")
    check_donor_source(f"corpus:{saved}")  # the spec's check, then the condition's run
    assert capsys.readouterr().err.splitlines() == [_note(saved, "a donor corpus")]
    (clip,) = load_other_corpus(saved, f"--source corpus:{saved}").clips
    assert clip.reference == "a tone"
    assert capsys.readouterr().err.splitlines() == [_note(saved, f"--source corpus:{saved}")]


def test_the_audited_corpus_keeps_its_own_remedy(tmp_path, capsys):
    from asraudit.data.corpus import load_corpus

    saved = _dataset(tmp_path)
    capsys.readouterr()  # datasets' progress bars
    assert load_corpus(saved).notes == ("references read from column 'text'; the dataset also has 'sentence' (name "
                                        "another with --text-column, or text_column = in an audit spec's [corpus])",)
    assert capsys.readouterr().err == ""  # its caller says it (transcribe, an audit)
