"""Case 241: a translation lexicon pattern written as the language is written (``translate --lexicon``,
``[translation] lexicon``): ``"está bien"``, ``"señor"``, ``"Gracias"``.

A lexicon's patterns are matched on folded renderings: lower case, no
punctuation, accents removed.  A pattern holding an accent, a tilde or an
upper-case letter can never match, and only the patterns its ``match``
examples tried were known to work: beside a ``"bueno"`` with its example, a
rendering "Está bien, la Comisión ..." was read as not holding the span,
and the translation probe counted it absent.  Now such a pattern is refused
when the lexicon is read, before any model loads.
"""

from __future__ import annotations

import json

import pytest

from asraudit.errors import InputError
from asraudit.probes.translation_lexicon import load_lexicon

from conftest import one_clip_manifest


def lexicon(folder, patterns):
    path = folder / "lex.toml"
    path.write_text('schema = 1\ntarget = "es"\n[[span]]\nen = "well"\npatterns = ' + json.dumps(patterns)
                    + '\nmatch = ["Bueno, la comisión"]\nno_match = ["la comision"]\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("pattern, held", [
    ("está bien", "'á', which a rendering never does once folded (lower case, accents removed: 'a')"),
    ("(?i)pues sí", "'í', which a rendering never does once folded (lower case, accents removed: 'i')"),
    ("Pues bien", "'P', which a rendering never does once folded (lower case, accents removed: 'p')"),
    ("(?<=Sr)x", "'S', which a rendering never does once folded (lower case, accents removed: 's')"),
    ("año", "'ñ', which a rendering never does once folded (lower case, accents removed: 'n')"),
    ("pues-bien", "'-', which a rendering never does once folded (punctuation removed: '-' reads as a space)"),
    (r"sr\. presidente", "'\\\\.', which a rendering never does once folded (punctuation removed: '.' reads as a space)"),
    ("¿bueno", "'¿', which a rendering never does once folded (punctuation removed: '¿' reads as a space)"),
    (r"\d+,\d+", "',', which a rendering never does once folded (punctuation removed: ',' reads as a space)"),
])
def test_a_pattern_folded_text_never_holds_is_refused(tmp_path, pattern, held):
    path = lexicon(tmp_path, ["bueno", pattern])
    with pytest.raises(InputError) as err:
        load_lexicon(path)
    assert str(err.value) == (f"{path}: span #1 ('well'): pattern {pattern!r} holds {held}, so it could never match: "
                              "write the pattern as the folded text reads")


def test_translate_refuses_it_before_any_model_loads(tmp_path, cli):
    manifest = one_clip_manifest(tmp_path, text="well we agree")
    edits = tmp_path / "edits.jsonl"
    edits.write_text(json.dumps({"edit_id": "e1", "clip": "a.wav", "kind": "delete", "position": "start",
                                 "ref_start": 0, "ref_end": 1, "r": "well", "a": ""}) + "\n", encoding="utf-8")
    path = lexicon(tmp_path, ["bueno", "está bien"])
    ran = cli("translate", "--model", tmp_path / "no-such-model", "--corpus", manifest, "--edits", edits,
              "--lexicon", path, "--out", tmp_path / "out" / "t.jsonl", "--no-progress")
    assert ran.code == 2 and ran.error_lines == [
        f"asraudit: error: {path}: span #1 ('well'): pattern 'está bien' holds 'á', which a rendering never does once "
        "folded (lower case, accents removed: 'a'), so it could never match: write the pattern as the folded text "
        "reads"]


def test_folded_patterns_and_regex_syntax_read_as_before(tmp_path):
    path = lexicon(tmp_path, ["bueno", "esta bien", r"(?i)Pues\W+bien", r"(?<!\w)(?P<Key>vale)\b\p{L}*", "ß", "ł",
                              "d'accord", r"(sr|sra),? presidente", r"[-,]?x{1,2}", r"(?#note)(?:o|u)k"])
    lx = load_lexicon(path)
    assert lx.found(lx.entries[0], "Está bien, la Comisión debe...")  # the folded pattern finds the accented text
    assert load_lexicon("es").entries  # the built-in lexicon


@pytest.mark.parametrize("pattern, rendering", [
    ("(está|esta) bien", "Esta bien, la Comisión"), ("(pues|-) bien", "Pues bien"), ("(¿)?pues", "¿Pues?"),
    ("[áa]hora", "Ahora mismo"), ("gracias¡?", "¡Gracias!"), (r"(?!Sr)\w+ bien", "Pues bien"),
    ("(pues|[¿?]) bien", "Pues bien"), ("esta bien|Á", "Está bien"),
])
def test_a_pattern_whose_dead_characters_are_optional_or_one_branch_is_read(tmp_path, pattern, rendering):
    """Control: only what every match holds is checked.  A character folded text never holds in one branch of an
    alternation, in a part made optional, in a character class beside a live member or in a negative lookaround
    leaves the pattern able to match (these were refused as "could never match" once)."""
    lx = load_lexicon(lexicon(tmp_path, ["bueno", pattern]))
    assert lx.found(lx.entries[0], rendering)

