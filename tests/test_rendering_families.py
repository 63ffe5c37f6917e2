"""The family catalogue: built-in data, user files, validation, and the matching rules."""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from types import SimpleNamespace

import pytest

from asraudit.errors import InputError
from asraudit.probes.families import load_catalogue
from asraudit.probes.occurrences import find_renderings
from asraudit.probes.rendering import collect, switch_rates


@pytest.fixture(scope="module")
def catalogue():
    return load_catalogue("en")


@pytest.fixture(scope="module")
def raw_catalogue() -> dict:
    text = resources.files("asraudit.probes").joinpath("data", "conventions_en.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def test_builtin_catalogue_covers_every_class_and_records_rejections(catalogue):
    classes = {f.cls for f in catalogue.families}
    assert classes == {"spelling", "initialism", "number", "lexical", "honorific", "spacing"}
    rejected = {r.name: r for r in catalogue.rejected}
    assert "us_united_states" in rejected and "gonna_going_to" in rejected
    assert all(r.reason for r in catalogue.rejected)
    for pool in catalogue.pools.values():
        assert all(len(f.arms) == len(pool.arms) for f in catalogue.pooled(pool.name))


def test_every_literal_form_is_found_as_its_own_arm_and_no_other(catalogue, raw_catalogue):
    checked = 0
    for raw in raw_catalogue["family"]:
        if "forms" not in raw:
            continue
        fam_index = next(i for i, f in enumerate(catalogue.families) if f.name == raw["name"])
        suffix = raw.get("suffixes", [""])[0]
        for row in raw["forms"]:
            for arm, cell in enumerate(row):
                for form in [cell] if isinstance(cell, str) else cell:
                    text = f"we said {form}{suffix} today"
                    found = [r for r in find_renderings(catalogue, text)]
                    assert [(r.family, r.arm) for r in found] == [(fam_index, arm)], (raw["name"], form)
                    assert text[found[0].start:found[0].end] == form + suffix
                    checked += 1
    assert checked > 200


def test_keys_pair_the_arms_of_one_row_and_separate_rows(catalogue):
    def key(text):
        [r] = find_renderings(catalogue, text)
        return r.family, r.key

    assert key("the colour") == key("the color")
    assert key("the colours") != key("the colour")
    assert key("organisations") == key("organizations")
    assert key("the T.V.") == key("the TV") == key("the T. V.")
    assert key("21st") == key("twenty-first")
    assert key("1999") == key("nineteen ninety-nine")
    assert key("2009") == key("two thousand and nine") == key("two thousand nine")


def test_honorific_arms_need_the_same_context(catalogue):
    assert find_renderings(catalogue, "the doctor said so") == []
    assert find_renderings(catalogue, "the Dr said so") == []
    assert len(find_renderings(catalogue, "ask Doctor Who")) == 1
    assert len(find_renderings(catalogue, "ask Dr. Who")) == 1
    assert find_renderings(catalogue, "said Mr.") == []  # no name after it


def test_generic_ise_rule_skips_words_spelled_ise_in_both_varieties(catalogue):
    for word in ("advise", "surprised", "raised", "exercise", "otherwise", "promised", "size", "seized",
                 "capsized", "expertise", "noise", "analyses"):
        assert find_renderings(catalogue, f"a {word} b") == [], word
    for word in ("realised", "realized", "Europeanisation", "prioritise", "emphasize", "organiser"):
        assert len(find_renderings(catalogue, f"a {word} b")) == 1, word


def test_solid_initialisms_are_off_in_all_caps_text(catalogue):
    assert find_renderings(catalogue, "THEY TOLD US WHO WON") == []
    [r] = find_renderings(catalogue, "They told the US who won")
    assert r.key == "US"
    assert find_renderings(catalogue, "they told us who won") == []


def test_digits_in_decimals_times_and_ranges_are_not_occurrences(catalogue):
    for text in ("3.14 and 10:45", "pages 12-18", "1,250 people", "12.5"):
        assert [r for r in find_renderings(catalogue, text) if catalogue.families[r.family].cls == "number"] == [], text


def _write_family_file(path, fmt: str):
    family = {
        "name": "grey_gray",
        "class": "spelling",
        "arms": ["grey", "gray"],
        "forms": [["grey", "gray"]],
        "suffixes": ["", "s", "ish"],
    }
    if fmt == "json":
        path.write_text(json.dumps({"family": [family]}), encoding="utf-8")
    else:
        path.write_text(
            '[[family]]\nname = "grey_gray"\nclass = "spelling"\narms = ["grey", "gray"]\n'
            'forms = [["grey", "gray"]]\nsuffixes = ["", "s", "ish"]\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_user_family_files_in_toml_or_json_drive_the_probe(tmp_path, fmt):
    cat = load_catalogue(_write_family_file(tmp_path / f"mine.{fmt}", fmt))
    assert [f.name for f in cat.families] == ["grey_gray"]
    rows = {f"c{i}": SimpleNamespace(reference=f"a {arm} sky", hypothesis="a grey sky")
            for i, arm in enumerate(["grey", "gray"] * 5)}
    [s] = switch_rates(collect(cat, {"m": rows}))
    assert s.measurable and s.switch == 0.0


def test_user_file_can_be_combined_with_the_builtin_catalogue(tmp_path):
    cat = load_catalogue(["en", _write_family_file(tmp_path / "mine.toml", "toml")])
    assert "grey_gray" in {f.name for f in cat.families} and "mister" in {f.name for f in cat.families}


def test_same_name_twice_is_an_error(tmp_path):
    # two files defining one family name (one file named twice is refused as such, case 313)
    path = _write_family_file(tmp_path / "mine.toml", "toml")
    other = tmp_path / "copy.toml"
    other.write_bytes(path.read_bytes())
    with pytest.raises(InputError, match="defined twice"):
        load_catalogue([path, other])
    with pytest.raises(InputError, match="this catalogue is given twice"):
        load_catalogue([path, path])


@pytest.mark.parametrize("body, message", [
    ('[[family]]\nname = "x"\nclass = "lexical"\narms = ["a", "b"]\nforms = [["a"]]\n', "one entry per arm"),
    ('[[family]]\nname = "x"\nclass = "lexical"\narms = ["a", "b"]\nforms = [["a", "a"]]\n', "listed under two arms"),
    ('[[family]]\nname = "x"\nclass = "lexical"\narms = ["a", "b"]\npatterns = [["(", "b"]]\n', "bad regular expression"),
    ('[[family]]\nname = "x"\nclass = "lexical"\narms = ["a"]\nforms = [["a"]]\n', "at least 2 arms"),
    ('[[family]]\nname = "x"\nclass = "lexical"\narms = ["a", "b"]\n', "exactly one of"),
    ('[[family]]\nname = "x"\nclass = "number"\ngenerate = "roman"\n', "unknown generator"),
    ('[[pool]]\nname = "p"\narms = ["a", "b", "c"]\n[[family]]\nname = "x"\nclass = "lexical"\n'
     'pool = "p"\narms = ["a", "b"]\nforms = [["a", "b"]]\n', "pooling is by arm position"),
    ('[[family]]\nname = "x"\nclass = "lexical"\narms = ["a", "b"]\nform = [["a", "b"]]\n', "unknown key"),
    ('[[family]\n', "broken TOML"),
])
def test_bad_family_files_name_the_file_and_the_family(tmp_path, body, message):
    path = tmp_path / "bad.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        load_catalogue(path)
    assert str(path) in str(info.value)


def test_missing_family_file_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="no such family file"):
        load_catalogue(tmp_path / "absent.toml")
