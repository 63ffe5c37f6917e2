"""Case 177: a corpus named beside the audited one (``steer learn --negative-corpus``, ``patch --source
corpus:PATH``, a battery's ``donor = "corpus:PATH"``, a mechanism's ``splice = { other = "corpus:PATH" }``) that is a
Hugging Face dataset with other column names than the defaults, or several splits.

Case 170 gave the audited corpus ``--audio-column``, ``--text-column``, ``--id-column`` and ``--split``; a second
corpus is read with the defaults, and its refusal told the user to pass ``--audio-column`` (or ``split=``), which
chooses the audited corpus's column: ``--negative-corpus negds --audio-column speech`` was then refused for the
audited manifest.  The rule now, kept in one place (``data.corpus.load_other_corpus``): a second corpus is read with
a dataset's default columns and no split chosen, and a dataset that does not fit is one line naming the option
that named it and the column name it needs.  A ``corpus:hf:NAME`` donor in a spec file had been read as a path
beside the spec (``.../hf:NAME: no such corpus``); it is a hub id, as it is on the command line.
"""

from __future__ import annotations

import pytest

from conftest import one_clip_manifest

RENAME = ("is read with a dataset's default columns, which no option chooses: rename the column that holds the "
          "audio to 'audio' (Dataset.rename_column) and save the dataset again")


def _dataset(tmp_path, columns=("speech", "words", "utt"), splits=None):
    datasets = pytest.importorskip("datasets")
    one_clip_manifest(tmp_path)
    audio, text, ident = columns
    rows = datasets.Dataset.from_dict({audio: [str(tmp_path / "a.wav")], text: ["a tone"], ident: ["a.wav"]})
    rows = rows.cast_column(audio, datasets.Audio(decode=False))
    saved = tmp_path / "other"
    if splits:
        datasets.DatasetDict({s: rows for s in splits}).save_to_disk(str(saved))
    else:
        rows.save_to_disk(str(saved))
    return saved


def _listed(columns=("speech", "words", "utt")):
    return ", ".join(repr(c) for c in columns)


def test_a_steer_negative_corpus_with_other_columns_names_its_option(tmp_path, cli):
    saved = _dataset(tmp_path)
    ran = cli("steer", "learn", "--model", "whisper-tiny.en", "--corpus", tmp_path / "m.jsonl", "--negative-corpus",
              saved, "--layer", "0", "--out", tmp_path / "d.safetensors")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {saved}: no audio column 'audio'; the dataset's columns are {_listed()}: "
        f"--negative-corpus {RENAME}"]
    assert not (tmp_path / "d.safetensors").exists()


def test_the_same_refusal_for_every_second_corpus(tmp_path):
    from asraudit.data.corpus import load_other_corpus
    from asraudit.errors import InputError
    from asraudit.probes.battery_donors import check_donor_source

    saved = _dataset(tmp_path)
    with pytest.raises(InputError) as err:
        load_other_corpus(saved, f"--source corpus:{saved}")
    assert str(err.value) == (f"{saved}: no audio column 'audio'; the dataset's columns are {_listed()}: "
                              f"--source corpus:{saved} {RENAME}")
    with pytest.raises(InputError) as err:
        check_donor_source(f"corpus:{saved}")
    assert str(err.value) == (f"{saved}: no audio column 'audio'; the dataset's columns are {_listed()}: "
                              f"a donor corpus {RENAME}")


def test_a_donor_corpus_without_a_text_column_or_with_splits(tmp_path):
    from asraudit.errors import InputError
    from asraudit.probes.battery_donors import check_donor_source

    saved = _dataset(tmp_path, ("audio", "words", "utt"))
    with pytest.raises(InputError) as err:
        check_donor_source(f"corpus:{saved}")
    assert str(err.value) == (
        f"{saved}: no text column (tried text, sentence, transcription, transcript, normalized_text); the dataset's "
        f"columns are {_listed(('audio', 'words', 'utt'))}: a donor corpus is read with a dataset's default "
        "columns, which no option chooses: rename the column that holds the reference transcripts to 'text' "
        "(Dataset.rename_column) and save the dataset again")
    other = tmp_path / "two"
    other.mkdir()
    saved = _dataset(other, ("audio", "text", "id"), splits=("train", "test"))
    with pytest.raises(InputError) as err:
        check_donor_source(f"corpus:{saved}")
    assert str(err.value) == (
        f"{saved}: dataset has splits ['train', 'test'], and a donor corpus is read whole, as no option chooses "
        "its split: save the split to use alone (dataset[split].save_to_disk) and name that folder")


def test_a_second_corpus_with_the_default_columns_is_read(tmp_path):
    from asraudit.data.corpus import load_other_corpus

    saved = _dataset(tmp_path, ("audio", "text", "id"))
    (clip,) = load_other_corpus(saved, "--negative-corpus").clips
    assert (clip.id, clip.reference) == ("a.wav", "a tone")


def test_a_hub_donor_in_a_spec_is_not_a_path_beside_it(tmp_path):
    from asraudit.audit.spec import parse_spec as parse_audit
    from asraudit.probes.battery import parse_spec

    spec = parse_spec({"condition": [{"name": "original"}, {"name": "x", "type": "splice", "seconds": 2,
                                                            "donor": "corpus:hf:someone/speech"}]},
                      str(tmp_path / "b.toml"), tmp_path)
    assert spec.conditions[1].params["donor"] == "corpus:hf:someone/speech"
    one_clip_manifest(tmp_path)
    data = {"corpus": {"manifest": "m.jsonl"}, "model": [{"spec": "whisper-tiny.en", "panel": True}],
            "mechanism": [{"type": "steer", "model": "whisper-tiny.en", "layer": 0, "positive": "all", "holdout": 0,
                           "ablate": "all", "splice": {"other": "corpus:hf:someone/speech", "seconds": 2}}]}
    (entry,) = parse_audit(data, "a.toml", tmp_path).mechanism
    assert entry.splice.other == "corpus:hf:someone/speech"
