"""Case 165: a language code in upper or mixed case ("FR", "Es") where asraudit takes a language.

From Python, ``get_normalizer("basic", language="FR")`` read "FR" as French, but an audit spec's ``language = "FR"``
(``[corpus]`` and ``[conventions]``), ``asraudit conventions --language FR`` and ``--families FR``,
``load_catalogue("FR")``, the translation probe's ``target`` and a lexicon file's ``target = "FR"`` did not: refused
(``language must be one of en, es, ...``, ``FR: no such family file``, ``target 'ES' has no built-in lexicon``), or,
for the lexicon, folded with the English basic normalizer instead of the French one, so a French pattern that holds
an elision (``aujourd'hui``) matched nothing.  Now every one of them reads the code in any case, by one rule
(``text.basic_language_codes.language_code``).
"""

from __future__ import annotations

import json
import tomllib

import pytest

from asraudit.audit.spec import parse_spec
from asraudit.probes.families import load_catalogue
from asraudit.probes.translation_lexicon import load_lexicon
from asraudit.probes.translation_probe import TranslationParams
from asraudit.text.normalize import get_normalizer

from conftest import write_preds


def _spec(tmp_path, corpus: str = "", conventions: str = "") -> dict:
    preds = write_preds(tmp_path / "p.jsonl", [("a.wav", "Aujourd'hui", "aujourd'hui")])
    return tomllib.loads(f'[corpus]\npredictions = "{preds}"\n{corpus}\n[[model]]\npredictions = "{preds}"\n'
                         f'[conventions]\n{conventions}\n')


def test_the_spec_reads_the_corpus_and_catalogue_language_in_any_case(tmp_path):
    spec = parse_spec(_spec(tmp_path, corpus='language = "FR"'), base=tmp_path)
    assert (spec.corpus.language, spec.normalizer, spec.conventions.language) == ("fr", "basic-fr", "fr")
    assert spec.to_json()["corpus"]["language"] == "fr"
    spec = parse_spec(_spec(tmp_path, corpus='language = "fr"', conventions='language = "Es"'), base=tmp_path)
    assert spec.conventions.language == "es"


def test_the_audit_check_takes_an_upper_case_language(tmp_path, cli):
    panel = [write_preds(tmp_path / f"p{i}.jsonl", [("a.wav", "Aujourd'hui", "aujourd'hui")]) for i in range(3)]
    models = "".join(f'[[model]]\npredictions = "{p}"\npanel = true\n' for p in panel)
    path = tmp_path / "audit.toml"
    path.write_text(f'out = "o"\n[corpus]\npredictions = "{panel[0]}"\nlanguage = "FR"\n{models}[conventions]\n',
                    encoding="utf-8")
    ran = cli("audit", path, "--check")
    assert ran.code == 0 and not ran.error_lines, ran.err


def test_the_conventions_command_and_catalogues_take_any_case(tmp_path, cli):
    preds = write_preds(tmp_path / "m.jsonl", [("a.wav", "Monsieur Dupont", "M. Dupont")])
    for args in (("--language", "FR"), ("--families", "FR")):
        ran = cli("conventions", "--preds", preds, *args, "--json", tmp_path / "c.json")
        assert ran.code == 0, ran.err
        assert "built-in:fr" in ran.out
    assert load_catalogue("FR").sources == load_catalogue("fr").sources
    # a code nobody knows is still refused in one line
    with pytest.raises(SystemExit) as stop:
        cli("conventions", "--preds", preds, "--language", "XX")
    assert stop.value.code == 2


def test_the_translation_target_and_a_lexicons_target_in_any_case(tmp_path):
    assert TranslationParams(target="ES").target == "es"
    assert TranslationParams(target="ES").validate().target == "es"
    assert load_lexicon("ES").target == "es"
    lexicon = tmp_path / "fr.toml"
    lexicon.write_text('schema = 1\nsource = "en"\ntarget = "FR"\n[[span]]\nen = "today"\n'
                       "patterns = [\"aujourd'hui\"]\nmatch = [\"Aujourd'hui, c'est fini.\"]\n"
                       'no_match = ["Hier, c\'est fini."]\n', encoding="utf-8")
    read = TranslationParams(target="FR", lexicon=lexicon).validate()
    assert read.target == "fr"
    assert get_normalizer("basic", language="FR")("Aujourd'hui") == get_normalizer("basic-fr")("Aujourd'hui")
    json.dumps(TranslationParams(target="FR").target)
