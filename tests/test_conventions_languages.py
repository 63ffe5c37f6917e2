"""The per-language convention catalogues: every family's examples, every arm exercised, the switch rate runs."""

from __future__ import annotations

import tomllib
from importlib import resources
from types import SimpleNamespace

import pytest

from asraudit.errors import InputError
from asraudit.probes.conventions_probe import ConventionsParams, measure_conventions
from asraudit.probes.families import BUILTIN, LANGUAGES, build_family, load_catalogue
from asraudit.probes.occurrences import find_renderings

OTHER_LANGUAGES = [code for code in LANGUAGES if code != "en"]


def _raw(code: str) -> dict:
    text = resources.files("asraudit.probes").joinpath("data", BUILTIN[code]).read_text(encoding="utf-8")
    return tomllib.loads(text)


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_built_in_language_loads_and_declares_itself(code):
    catalogue = load_catalogue(code)  # loading also checks every family's match / no_match examples
    assert catalogue.families
    assert _raw(code)["language"] == code


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_every_family_has_examples_that_reach_every_arm(code):
    """Each family says where it must match and where not; its match examples together use every arm,
    so no arm is a row that nothing can ever find."""
    catalogue = load_catalogue(code)
    raw = {f["name"]: f for f in _raw(code)["family"]}
    for family in catalogue.families:
        entry = raw[family.name]
        assert entry.get("match") and entry.get("no_match"), f"{code}: {family.name} lacks examples"
        arms = {arm for text in entry["match"] for _, _, arm, _ in family.find(text)}
        assert arms == set(range(len(family.arms))), f"{code}: {family.name} examples reach arms {sorted(arms)}"
        for text in entry["no_match"]:
            assert family.find(text) == [], f"{code}: {family.name} matches {text!r}"


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_each_language_covers_honorifics_numerals_compounds_and_spelling(code):
    classes = {f.cls for f in load_catalogue(code).families}
    assert {"honorific", "number", "spacing", "spelling"} <= classes, f"{code}: {sorted(classes)}"


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_family_names_are_unique_across_languages_so_catalogues_combine(code):
    assert load_catalogue(["en", code]).families


@pytest.mark.parametrize("code, digits, words", [
    ("es", "21", "veintiuno"), ("fr", "71", "soixante et onze"), ("de", "21", "einundzwanzig"),
    ("it", "28", "ventotto"), ("nl", "22", "tweeëntwintig"), ("pl", "45", "czterdzieści pięć"),
    ("pt", "31", "trinta e um"),
])
def test_digits_and_number_words_of_the_same_value_pair_up(code, digits, words):
    catalogue = load_catalogue(code)
    a = find_renderings(catalogue, f"x {digits} y")
    b = find_renderings(catalogue, f"x {words} y")
    assert len(a) == len(b) == 1
    assert (a[0].family, a[0].key) == (b[0].family, b[0].key) and (a[0].arm, b[0].arm) == (0, 1)


def test_a_number_word_inside_a_longer_number_is_not_an_occurrence():
    assert find_renderings(load_catalogue("es"), "ciento veintiuno") == []
    assert find_renderings(load_catalogue("fr"), "deux cent vingt") == []
    # the longest reading wins: "soixante-dix-sept" is 77, never 17
    (hit,) = find_renderings(load_catalogue("fr"), "soixante-dix-sept")
    assert hit.key == find_renderings(load_catalogue("fr"), "77")[0].key


def test_a_family_whose_own_example_fails_is_refused_naming_the_example():
    family = {"name": "x", "class": "lexical", "arms": ["a", "b"], "forms": [["usw.", "und so weiter"]],
              "match": ["und so fort"]}
    with pytest.raises(InputError, match="'und so fort' under 'match'"):
        build_family(family)
    family = {**family, "match": ["usw."], "no_match": ["und so weiter"]}
    with pytest.raises(InputError, match="under 'no_match' has an occurrence"):
        build_family(family)


def test_not_after_and_not_before_rule_out_context_on_every_arm():
    family = build_family({"name": "x", "class": "number", "arms": ["digits", "words"],
                           "forms": [["21", "veintiuno"]], "not_after": [r"ciento\s+"], "not_before": [r",\d"]})
    assert [arm for _, _, arm, _ in family.find("21 y veintiuno")] == [0, 1]
    assert family.find("ciento veintiuno, ciento 21, 21,5") == []


def test_switch_rate_on_a_spanish_corpus_follows_the_reference_arm():
    """A model that writes whatever arm the reference uses has switch rate 1; the probe runs on Spanish text."""
    refs = {f"c{i}": text for i, text in enumerate(
        ["el Sr. García llegó", "el señor Pérez llegó", "tiene 21 años", "tiene veintiún años"] * 3)}
    echo = {cid: SimpleNamespace(reference=ref, hypothesis=ref) for cid, ref in refs.items()}
    result = measure_conventions({"echo": echo}, ConventionsParams(language="es", min_per_arm=2), n_boot=50)
    pooled = {s.group: s for s in result.pooled if s.measurable}
    assert set(pooled) == {"honorific", "numeral"}
    assert all(s.wilson().estimate == 1.0 for s in pooled.values())
