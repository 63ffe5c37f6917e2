"""Case 56: a lone surrogate in a JSON row (``"\\ud800"`` with no partner), e.g. a byte-level decoder's cut emoji.

Python's json reads the escape as half of a UTF-16 pair, which is no
character.  ``wer`` and ``accept_ref_from_predictions`` scored it as a
word, but nothing can write it as UTF-8: ``run_audit`` (and ``asraudit
audit``) passed every check, then stopped in the transcribe stage with
``UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' in
position 14: surrogates not allowed`` from the result store.  Now the file
is refused when it is read, before any work, naming the row and the field;
a pair of surrogate escapes (an emoji written with ``ensure_ascii``) is one
character and still reads.
"""

from __future__ import annotations

import json

import pytest

from asraudit import InputError, load_predictions, run_audit

from conftest import files_under

WHY = ("half of a UTF-16 pair and no character: the file's writer split a character (a JSON \\u escape without its "
       "partner); remove it or write the whole character")


def _write(path, rows):
    with path.open("w", encoding="utf-8") as fh:
        for cid, ref, hyp in rows:  # json.dumps escapes the surrogate as \ud800, as a broken writer leaves it
            fh.write(json.dumps({"audio_filepath": cid, "text": ref, "pred_text": hyp}) + "\n")


@pytest.fixture()
def folder(tmp_path):
    rows = [(f"c{i}", f"well the cat sat {i}", f"the cat sat {i}") for i in range(4)]
    for name in ("m1", "m2", "m3"):
        _write(tmp_path / f"{name}.jsonl", rows)
    _write(tmp_path / "m4.jsonl", [*rows[:2], ("c2", "well the cat sat 2", "the cat \ud800sat 2"), rows[3]])
    return tmp_path


def test_the_file_is_refused_naming_row_and_field(folder):
    with pytest.raises(InputError) as err:
        load_predictions(folder)
    assert str(err.value) == f"{folder / 'm4.jsonl'}, row 3: hypothesis holds a lone surrogate (\\ud800 at " \
                             f"character 8), {WHY}"


def test_an_audit_stops_before_any_work(folder, tmp_path):
    spec = {"name": "t", "out": str(tmp_path / "out"), "corpus": {"predictions": str(folder / "m1.jsonl")},
            "model": [{"predictions": str(folder / f"m{i}.jsonl"), "panel": i < 4} for i in range(1, 5)]}
    before = files_under(tmp_path)
    with pytest.raises(InputError) as err:
        run_audit(spec, progress=False)
    assert str(err.value).endswith(f"{folder / 'm4.jsonl'}, row 3: hypothesis holds a lone surrogate (\\ud800 at "
                                   f"character 8), {WHY}")
    assert files_under(tmp_path) == before  # no store, no half-written outputs
    spec["corpus"] = {"predictions": str(folder / "m4.jsonl")}
    _write(folder / "m4.jsonl", [("c0", "a \udc00 reference", "a reference")])
    with pytest.raises(InputError) as err:
        run_audit(spec, progress=False)
    assert f"{folder / 'm4.jsonl'}, row 1: 'text' holds a lone surrogate (\\udc00 at character 2), {WHY}" \
        in str(err.value)


def test_a_whole_character_written_as_two_escapes_still_reads(folder):
    _write(folder / "m4.jsonl", [("c0", "well the cat sat 0", "the cat sat 0 \U0001F600")])
    assert "\\ud83d\\ude00" in (folder / "m4.jsonl").read_text(encoding="utf-8")
    assert load_predictions(folder).models["m4"].rows["c0"].hypothesis == "the cat sat 0 \U0001F600"
