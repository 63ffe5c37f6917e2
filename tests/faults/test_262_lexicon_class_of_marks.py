"""Case 262: a translation lexicon pattern holding a character class of punctuation marks alone (``[¿?]pues``,
``[«»]``, ``[\\?\\.]``, ``[—-]``), which folding removes from every rendering.

Case 241 refused a mark matched literally (``¿pues``) but passed over
character classes: beside a ``bueno`` with its example, ``[¿?]pues`` loaded
and could never match, so a rendering "¿Pues qué?" was read as not holding
the span.  A class holding anything folding keeps (a letter, the apostrophe,
an escape such as ``\\w``, a range), a negated class, or one made optional
is read as before; so is a POSIX class (``[[:punct:]]``), which was refused
for its inner ``]``.
"""

from __future__ import annotations

import json

import pytest

from asraudit.errors import InputError
from asraudit.probes.translation_lexicon import load_lexicon


def lexicon(folder, patterns):
    path = folder / "lex.toml"
    path.write_text('schema = 1\ntarget = "es"\n[[span]]\nen = "well"\npatterns = ' + json.dumps(patterns)
                    + '\nmatch = ["Bueno, la comisión"]\nno_match = ["la comision"]\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("pattern, written, marks", [
    ("[¿?]pues", "[¿?]", "'¿', '?'"),
    ("[«»]pues", "[«»]", "'«', '»'"),
    (r"[\?\.]+pues", r"[\?\.]", "'?', '.'"),
    ("pues[—-]", "[—-]", "'—', '-'"),
])
def test_a_class_of_marks_alone_is_refused(tmp_path, pattern, written, marks):
    path = lexicon(tmp_path, ["bueno", pattern])
    with pytest.raises(InputError) as err:
        load_lexicon(path)
    assert str(err.value) == (f"{path}: span #1 ('well'): pattern {pattern!r} holds {written!r}, a class of marks "
                              f"alone, which a rendering never holds once folded (punctuation removed: {marks}), so "
                              "it could never match: write the pattern as the folded text reads")


def test_classes_that_can_match_read_as_before(tmp_path):
    path = lexicon(tmp_path, ["bueno", "[¿?]?pues", "[¿?]*vale", "[^¿?]x", "d['.]y", r"[\w?]z", "[!-/]w",
                              "d[[:punct:]]v"])
    lx = load_lexicon(path)
    entry = lx.entries[0]
    assert lx.found(entry, "¿Pues qué?") and lx.found(entry, "d'v") and lx.found(entry, "d'y")
    assert load_lexicon("es").entries  # the built-in lexicon
