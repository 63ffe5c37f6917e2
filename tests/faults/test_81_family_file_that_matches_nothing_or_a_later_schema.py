"""Case 81: a family file whose pattern matches the empty string, or a family file or lexicon of a later schema, is
refused.

``patterns = [["", ""]]`` or ``[["x*", "y*"]]`` (a quantifier left on its own)
loaded, matched no rendering and the run said "No reference uses any family
of the catalogue: nothing to measure", exit 0, as if the references held no
convention.  ``schema = 2`` was read as schema 1, in a family file and in a translation
lexicon.  Each is now refused when the file is read, naming it (and the family).
"""

from __future__ import annotations

import json

import pytest

FAMILY = 'schema = {schema}\n[[family]]\nname = "x"\nclass = "spelling"\narms = ["a", "b"]\npatterns = [[{a}, {b}]]\n'


@pytest.mark.parametrize("schema, a, b, said", [
    (1, '""', '""', "family #1 ('x'): regular expression '' matches the empty string: an arm's pattern must match "
                    "the words of its rendering"),
    (1, '"colou?r"', '"x*"', "family #1 ('x'): regular expression 'x*' matches the empty string"),
    (2, '"colour"', '"color"', "schema 2: this asraudit reads family files of schema 1"),
], ids=["empty", "only-a-quantifier", "later-schema"])
def test_a_family_file_that_cannot_be_read_as_written_is_refused(tmp_path, cli, schema, a, b, said):
    preds = tmp_path / "m.jsonl"
    preds.write_text(json.dumps({"audio_filepath": "c", "text": "the colour", "pred_text": "the color"}) + "\n",
                     encoding="utf-8")
    families = tmp_path / "fam.toml"
    families.write_text(FAMILY.format(schema=schema, a=a, b=b), encoding="utf-8")
    ran = cli("conventions", "--preds", preds, "--families", families)
    assert ran.code == 2 and len(ran.error_lines) == 1
    assert ran.error_lines[0].startswith(f"asraudit: error: {families}: {said}"), ran.error_lines


def test_the_same_family_written_well_is_measured(tmp_path, cli):
    preds = tmp_path / "m.jsonl"
    preds.write_text(json.dumps({"audio_filepath": "c", "text": "the colour", "pred_text": "the color"}) + "\n",
                     encoding="utf-8")
    families = tmp_path / "fam.toml"
    families.write_text(FAMILY.format(schema=1, a='"colour"', b='"color"'), encoding="utf-8")
    ran = cli("conventions", "--preds", preds, "--families", families)
    assert ran.code == 0 and "nothing to measure" not in ran.out


def test_a_lexicon_of_a_later_schema_is_refused(tmp_path):
    from asraudit.errors import InputError
    from asraudit.probes.translation_lexicon import load_lexicon

    lexicon = tmp_path / "lex.toml"
    lexicon.write_text('schema = 2\ntarget = "es"\n[[span]]\nen = "Well"\npatterns = ["bueno"]\nmatch = ["bueno"]\n'
                       'no_match = ["malo"]\n', encoding="utf-8")
    with pytest.raises(InputError) as refused:
        load_lexicon(lexicon)
    assert str(refused.value) == f"{lexicon}: schema 2: this asraudit reads lexicons of schema 1"
